"""The named algorithms as PnPBO settings (ALGORITHMS.md §4).

Each entry is the fixed part of a ``PnPBOConfig``: the estimators on x, y, z,
the moving average and the clipping default.  Solvers, tests and the bench
script all read them from here.
"""
import math

PRESETS = {
    "SPABA": dict(estimator_x="page", estimator_y="page",
                  estimator_z="page", ma="off", R=1.0),
    "SFFBA": dict(estimator_x="zerosarah", estimator_y="zerosarah",
                  estimator_z="zerosarah", ma="off", R=1.0),
    "MSEBA": dict(estimator_x="page", estimator_y="zerosarah",
                  estimator_z="page", ma="off", R=1.0),
    "MA-SABA": dict(estimator_x="saga", estimator_y="saga",
                    estimator_z="saga", ma="on", R=1.0),
    "SRMBA": dict(estimator_x="storm", estimator_y="storm",
                  estimator_z="storm", ma="off", R=1.0, init="minibatch"),
    "SRBA": dict(estimator_x="sarah", estimator_y="sarah",
                 estimator_z="sarah", ma="off", R=1.0),
    "SOBA": dict(estimator_x="sgd", estimator_y="sgd", estimator_z="sgd",
                 ma="off", R=math.inf, exponent_x=0.5, exponent_y=0.5,
                 exponent_z=0.5),
    "MA-SOBA": dict(estimator_x="sgd", estimator_y="sgd", estimator_z="sgd",
                    ma="on", R=math.inf),
    "SABA": dict(estimator_x="saga", estimator_y="saga", estimator_z="saga",
                 ma="off", R=math.inf),
}
FIXED = ("estimator_x", "estimator_y", "estimator_z", "ma")


def preset(name):
    """The estimator/MA part of a named algorithm (what a solver fixes)."""
    return {k: v for k, v in PRESETS[name].items() if k in FIXED}
