"""The algorithms as PnPBO settings (docs/algorithms.md §4): one entry per solver,
the single source of truth for what it fixes and for its defaults.

An entry of ``ALGORITHMS`` (and the generic solver's ``PNPBO``) states

* ``fixed``: the ``PnPBOConfig`` fields the algorithm fixes (its estimators
  on x, y, z and its moving average) -- a user cannot change them;
* ``parameters``: the solver's own parameters and their defaults, in the
  order the solver lists them after ``COMMON`` (an entry may also restate a
  ``COMMON`` parameter with another default: SOBA's exponents).  Every name
  is a ``PnPBOConfig`` field, except ``SHARED`` ones (one value for several
  fields) and ``SOLVER_ONLY`` ones (benchopt plumbing);
* ``values`` (optional): ``{parameter: {solver's value: config value}}``
  for a parameter the solver names differently (MA-SABA's ``init=zero``
  is the engine's ``minibatch`` start); other values are refused.

A solver's benchopt ``parameters`` are ``solver_parameters(name)``
(``COMMON`` then the entry's parameters, each default in a list) and its
``PnPBOConfig`` is ``fixed`` + its parameter values, mapped by name
(``solver_base.PnPBOSolver.config``).

``PRESETS[name]`` is the entry as ``PnPBOConfig`` keyword arguments, for
code that runs the core without benchopt (tests, ``tools/``):
``PnPBOConfig(**PRESETS[name], batch_size=8)`` is the algorithm at its
defaults.  It holds ``fixed``, the clipping radius ``R`` and the defaults
that differ from ``PnPBOConfig``'s own, so that such calls may still set
any other field (``p``, ``large_batch``, ...) themselves.
"""
import math
from dataclasses import MISSING, fields

from .pnpbo import PnPBOConfig

# Parameters every PnPBO-based solver exposes, with their defaults.
COMMON = dict(
    batch_size=64,
    step_size=0.1,       # beta (y step)
    outer_ratio=1.0,     # alpha = beta / outer_ratio
    z_ratio=1.0,         # gamma = beta / z_ratio
    exponent_x=0.0,      # alpha_k = alpha / (k + 1)^exponent_x
    exponent_yz=0.0,     # beta_k, gamma_k likewise
    eval_freq=128,       # iterations between two callback calls
    sampling="uniform",  # batches: "uniform" subsets or contiguous "blocks"
)
# Solver parameters that set several configuration fields to one value.
SHARED = {"exponent_yz": ("exponent_y", "exponent_z")}
# Solver parameters that are not part of the configuration.
SOLVER_ONLY = ("eval_freq",)


def _same(est, ma):
    """``fixed`` of an algorithm with one estimator on x, y and z."""
    return dict(estimator_x=est, estimator_y=est, estimator_z=est, ma=ma)


ALGORITHMS = {
    "SPABA": dict(fixed=_same("page", "off"),
                  parameters=dict(p=0.01, large_batch=0, R=1.0)),
    "SFFBA": dict(fixed=_same("zerosarah", "off"),
                  parameters=dict(rho_bar=0.1, init="full", R=1.0)),
    "MSEBA": dict(fixed=dict(estimator_x="page", estimator_y="zerosarah",
                             estimator_z="page", ma="off"),
                  parameters=dict(p=0.01, rho_bar=0.1, init="full", R=1.0)),
    "MA-SABA": dict(fixed=_same("saga", "on"),
                    parameters=dict(rho=0.1, init="full", R=1.0),
                    values=dict(init=dict(full="full", zero="minibatch"))),
    "SRMBA": dict(fixed=_same("storm", "off"),
                  parameters=dict(storm_a=0.1, init="minibatch", R=1.0)),
    "SRBA": dict(fixed=_same("sarah", "off"),
                 parameters=dict(period=100, R=1.0)),
    "SOBA": dict(fixed=_same("sgd", "off"),
                 parameters=dict(exponent_x=0.5, exponent_yz=0.5,
                                 R=math.inf)),
    "MA-SOBA": dict(fixed=_same("sgd", "on"),
                    parameters=dict(rho=0.1, R=math.inf)),
    "SABA": dict(fixed=_same("saga", "off"),
                 parameters=dict(init="full", R=math.inf)),
}

# The generic solver: nothing fixed, every estimator and parameter free.
PNPBO = dict(fixed={}, parameters=dict(
    estimator_x="page", estimator_y="page", estimator_z="page",
    ma="auto", rho=0.1, R=1.0, p=0.01, rho_bar=0.1, storm_a=0.1,
    period=100, init="full", large_batch=0))


def entry(name):
    """The entry of solver ``name`` (a key of ``ALGORITHMS`` or
    ``"PnPBO"``)."""
    if name == "PnPBO":
        return PNPBO
    if name not in ALGORITHMS:
        raise KeyError(f"no preset {name!r}; the presets are "
                       f"{['PnPBO', *ALGORITHMS]}")
    return ALGORITHMS[name]


def solver_parameters(name):
    """benchopt ``parameters`` of solver ``name``: ``COMMON`` then the
    entry's own parameters, each default as a one-element list (a fresh
    dict: benchopt may not share it between solvers)."""
    return {key: [value] for key, value in
            {**COMMON, **entry(name)["parameters"]}.items()}


def config_fields(key, value):
    """``{PnPBOConfig field: value}`` set by solver parameter ``key`` (empty
    for the ``SOLVER_ONLY`` ones)."""
    if key in SOLVER_ONLY:
        return {}
    return dict.fromkeys(SHARED.get(key, (key,)), value)


_CONFIG_DEFAULTS = {f.name: f.default for f in fields(PnPBOConfig)
                    if f.default is not MISSING}


def _config_kwargs(name):
    """``PRESETS[name]``: fixed, R, and the defaults that differ from
    ``PnPBOConfig``'s (mapped through ``values`` and ``SHARED``)."""
    spec = ALGORITHMS[name]
    params = spec["parameters"]
    out = dict(spec["fixed"], R=params["R"])
    for key, value in params.items():
        value = spec.get("values", {}).get(key, {}).get(value, value)
        for field, v in config_fields(key, value).items():
            if field != "R" and v != _CONFIG_DEFAULTS[field]:
                out[field] = v
    return out


PRESETS = {name: _config_kwargs(name) for name in ALGORITHMS}
