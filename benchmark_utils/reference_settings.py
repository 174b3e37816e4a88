"""benchmark_bilevel's algorithms in this benchmark's parameters.

benchmark_bilevel (benchopt/benchmark_bilevel, the JAX benchmark whose
tuned values the PnPBO paper reuses) runs some of its solvers with
settings our defaults do not share; docs/baselines.md "Differences from
benchmark_bilevel" lists every convention that differs.  This module holds
those that are parameters here, so that a value tuned there runs here the
algorithm it was tuned for (``benchmark_utils.tuned``) and its
configuration lines convert (``tools.from_reference``):

- ``SETTINGS[solver]``: the parameters that make our solver run its
  algorithm: F2SA's step exponents (Kwon et al., ICML 2023: the reference
  takes x at 4/7 and the multiplier's increments at 1/7, ours 5/7 and 6/7
  by default), SABA's start from a zero memory (Dagréou et al., NeurIPS
  2022: the reference always starts so, our default fills the memory at
  u_0), SRBA without clipping of z (Dagréou et al., AISTATS 2024: the
  reference does not project, ours clips at R = 1 by default), BOME and
  PZOBO on full batches (the reference's only setting; ours default to
  minibatches of 64), Optuna's box [-5, 5] for every coordinate of x
  (ours depends on the task, docs/solvers.md "Optuna");
- ``setting(solver, sizes, **line)``: those, plus the parameters of a
  reference line that need converting (SRBA's ``period_frac``, a restart
  every ``int((n + m) period_frac / batch_size)`` iterations, is our
  ``period``).
"""
import math

from .algorithms import period_of

SETTINGS = {
    "F2SA": dict(exponent_x=4 / 7, exponent_y=5 / 7, exponent_w=4 / 7,
                 exponent_delta=1 / 7),
    "SABA": dict(init="minibatch"),
    "SRBA": dict(R=math.inf),
    "Optuna": dict(low=-5.0, high=5.0),
    "BOME": dict(batch_size="full"),
    "PZOBO": dict(batch_size="full"),
}
# Why each setting, in a few words (tools.from_reference prints them)
REASONS = {
    "F2SA": "the reference's step exponents (x 4/7, y 5/7, w 4/7, "
            "multiplier increments 1/7; ours 5/7, 5/7, 4/7, 6/7)",
    "SABA": "the reference starts from a zero memory",
    "SRBA": "the reference does not clip z (ours clips at R = 1)",
    "Optuna": "the reference searches every coordinate of x in [-5, 5] "
              "(ours: the task's box)",
    "BOME": "the reference runs it on full batches",
    "PZOBO": "the reference runs it on full batches",
}


def srba_period(period_frac, sizes, batch_size=64):
    """SRBA's restart period (``period``, in iterations) of the
    reference's ``period_frac`` on a problem of ``sizes = (n, m)`` upper-
    and lower-level samples: ``int((n + m) period_frac / batch_size)``, at
    least 1 (the reference's own formula, as VRBO's here)."""
    return period_of(period_frac, *sizes, batch_size)


def setting(solver, sizes=None, **line):
    """``{our parameter: value}`` that runs the reference's ``solver`` with
    the values ``line`` of its configuration line (reference names;
    ``period_frac`` needs ``sizes``, ``batch_size`` defaults to the
    reference's 64): ``SETTINGS[solver]`` and ``line`` converted."""
    out = dict(SETTINGS.get(solver, {}))
    for key, value in line.items():
        if solver == "SRBA" and key == "period_frac":
            if sizes is None:
                raise ValueError("SRBA's period_frac needs the dataset's "
                                 "sizes (n, m) to give our period")
            out["period"] = srba_period(value, sizes,
                                        line.get("batch_size", 64))
        else:
            out[key] = value
    return out
