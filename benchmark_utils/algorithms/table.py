"""The one table of algorithms (docs/algorithms.md §4, docs/baselines.md
§3): for every solver, what it fixes, its parameters with their defaults,
and how each parameter reaches its configuration.

An entry (``Algorithm``) states

* ``kind``: ``SINGLE_LOOP`` (a preset of Algorithm 1, ``PnPBOConfig``),
  ``BASELINE`` (a loop family of docs/baselines.md, ``BaselineConfig``),
  ``EXACT`` (full-batch descent with exact solves on the Python side,
  ``implicit.ImplicitConfig``) or ``SEARCH`` (a Python-side black-box
  search over x, ``SearchConfig``); the kind gives the configuration class
  and the run's, whether it has compiled code (``compiled``), the
  parameters every solver of the kind exposes first (``common``), the
  parameters named differently from the fields they set (``renames``) and
  those that are benchopt plumbing (``solver_only``);
* ``fixed``: the configuration fields the algorithm fixes (its estimators
  and moving average; a baseline's ``algorithm``): a user cannot change
  them;
* ``parameters``: the solver's own parameters and their defaults, in the
  order the solver lists them after ``common`` (an entry may restate a
  common parameter with another default: SOBA's exponents).  A default
  the entry does not choose is written ``DEFAULT``: the value of the field
  it sets in the kind's configuration class (``PnPBOConfig``, the loop
  families' ``Parameter`` declarations, ...), so each default lives in one
  place; an entry that restates the class's value is refused at import
  (``resolve_defaults``);
* ``values`` (optional): ``{parameter: {solver's value: config value}}``
  for values the solver names differently (MA-SABA's ``init=zero`` is the
  engine's ``minibatch`` start); other values are refused.

A solver's benchopt ``parameters`` are ``solver_parameters(name)``, its
configuration ``config_of(name, **values)``: solvers, tools and tests all
build configurations this way.  The parameter names and defaults are
pinned by ``tests/test_algorithm_table.py``: benchopt's result names and users'
configs depend on them.
"""
import math
from dataclasses import MISSING, dataclass, field, fields

from .baseline import BaselineConfig, BaselineRun
from .checks import (check_integer, check_positive, check_random_state,
                     mark_validated)
from .implicit import ImplicitConfig, ImplicitRun
from .pnpbo import PnPBOConfig, PnPBORun
from .search import SearchConfig, SearchRun


# An entry's default that is the configuration class's (one place).
DEFAULT = Ellipsis


def class_default(config, targets):
    """The default of the configuration field(s) ``targets`` of class
    ``config`` (a parameter filling several fields needs one default)."""
    given = {f.name: f.default for f in fields(config)}
    values = {given.get(t, MISSING) for t in targets}
    if MISSING in values or len(values) != 1:
        raise ValueError(f"{config.__name__} has no single default for "
                         f"{targets}: state the default in the table")
    return values.pop()


def resolve_defaults(config, renames, solver_only, parameters):
    """``parameters`` with each ``DEFAULT`` replaced by the class's value
    of the field it sets (``renames``: parameter -> fields); a ValueError
    for a stated default equal to the class's (write ``DEFAULT``: a value
    stated twice drifts)."""
    out = {}
    for key, value in parameters.items():
        if key in solver_only:
            out[key] = value
            continue
        default = class_default(config, renames.get(key, (key,)))
        if value is DEFAULT:
            value = default
        elif type(value) is type(default) and value == default:
            raise ValueError(
                f"{key}={value!r} restates {config.__name__}'s default: "
                f"write {key}=DEFAULT")
        out[key] = value
    return out


@dataclass(frozen=True)
class Kind:
    """What the solvers of one kind share (see the module docstring)."""
    config: type
    run: type
    common: dict
    renames: dict
    solver_only: tuple
    compiled: bool = True  # False: no numba code (engine.compile_for)

    def __post_init__(self):
        object.__setattr__(self, "common", self.resolve(self.common))

    def resolve(self, parameters):
        """``parameters`` with the class's defaults filled in."""
        return resolve_defaults(self.config, self.renames, self.solver_only,
                                parameters)


SINGLE_LOOP = Kind(
    config=PnPBOConfig, run=PnPBORun,
    common=dict(
        batch_size=DEFAULT,
        step_size=DEFAULT,   # beta (y step)
        outer_ratio=DEFAULT,  # alpha = beta / outer_ratio
        z_ratio=DEFAULT,     # gamma = beta / z_ratio
        exponent_x=DEFAULT,  # alpha_k = alpha / (k + 1)^exponent_x
        exponent_yz=DEFAULT,  # beta_k, gamma_k likewise
        sampling=DEFAULT,    # "uniform" subsets or contiguous "blocks"
        random_state=None,   # None: the Objective's seed; an int: its own
    ),
    renames={"exponent_yz": ("exponent_y", "exponent_z")},
    solver_only=("random_state",))

# The baselines keep benchmark_bilevel's parameter names (``n_shia_steps``,
# ``eta``, ...); ``eta`` is the STORM weight there (BOME's eta, the
# weight of its phi_k, fills the same field), not gamma.
BASELINE = Kind(
    config=BaselineConfig, run=BaselineRun,
    common=dict(batch_size=DEFAULT, step_size=DEFAULT, outer_ratio=DEFAULT,
                sampling=DEFAULT, random_state=None),
    renames={"n_shia_steps": ("Q",), "n_hia_steps": ("Q",),
             "eta": ("storm_a",), "exponent_eta": ("exponent_a",),
             "exponent_yz": ("exponent_y", "exponent_z")},
    solver_only=("period_frac", "random_state"))

# Deterministic full-batch solvers: no batch, no sampling; random_state is
# accepted (every solver has it) and changes nothing.
EXACT = Kind(
    config=ImplicitConfig, run=ImplicitRun,
    common=dict(step_size=DEFAULT, random_state=None), renames={},
    solver_only=("random_state",), compiled=False)

# Black-box searches (docs/solvers.md "Optuna"): ``random_state`` seeds the
# sampler.
SEARCH = Kind(
    config=SearchConfig, run=SearchRun,
    common=dict(random_state=None), renames={},
    solver_only=("random_state",), compiled=False)
KINDS = (SINGLE_LOOP, BASELINE, EXACT, SEARCH)


@dataclass(frozen=True)
class Algorithm:
    kind: Kind
    fixed: dict
    parameters: dict
    values: dict = field(default_factory=dict)
    # what the solver reports as z: "iterate" (it tracks z*(x)) or
    # "sample" (drawn afresh each iteration, or z0): metrics.lost_inner
    z_role: str = "iterate"

    def __post_init__(self):
        object.__setattr__(self, "parameters",
                           self.kind.resolve(self.parameters))


def _single_loop(estimators, ma, values=None, **parameters):
    """A preset of Algorithm 1: ``estimators`` on x, y, z (one name for
    all three, or a triple)."""
    if isinstance(estimators, str):
        estimators = (estimators,) * 3
    fixed = dict(zip(("estimator_x", "estimator_y", "estimator_z"),
                     estimators), ma=ma)
    return Algorithm(SINGLE_LOOP, fixed, parameters, values or {})


# The baselines whose reported z is not an iterate tracking z*(x): a
# Neumann or HIA sample drawn afresh at each iteration, or z0 (BOME, PZOBO
# estimate no z*; docs/baselines.md §3 "Report").
Z_SAMPLES = ("stocBiO", "BSA", "TTSA", "SUSTAIN", "MRBO", "VRBO", "BOME",
             "PZOBO")


def _baseline(algorithm, **parameters):
    z_role = "sample" if algorithm in Z_SAMPLES else "iterate"
    return Algorithm(BASELINE, dict(algorithm=algorithm), parameters,
                     z_role=z_role)


_HESSIAN = dict(z_ratio=DEFAULT)  # gamma = step_size / z_ratio
D = DEFAULT  # short for the entries below: the class's default

ALGORITHMS = {
    # The PnPBO presets (docs/algorithms.md §4).
    "SPABA": _single_loop("page", "off", p=D, large_batch=D, R=D),
    "SFFBA": _single_loop("zerosarah", "off", rho_bar=D, init=D, R=D),
    "MSEBA": _single_loop(("page", "zerosarah", "page"), "off", p=D,
                          rho_bar=D, init=D, R=D),
    "MA-SABA": _single_loop("saga", "on", rho=D, init=D, R=D,
                            values=dict(init=dict(full="full",
                                                  zero="minibatch"))),
    "SRMBA": _single_loop("storm", "off", storm_a=D, init="minibatch",
                          R=D),
    "SRBA": _single_loop("sarah", "off", period=D, R=D),
    "SOBA": _single_loop("sgd", "off", exponent_x=0.5, exponent_yz=0.5,
                         R=math.inf),
    "MA-SOBA": _single_loop("sgd", "on", rho=D, R=math.inf),
    "SABA": _single_loop("saga", "off", init=D, R=math.inf),
    # The generic solver: nothing fixed, every estimator and parameter free,
    # each at PnPBOConfig's default.
    "PnPBO": Algorithm(SINGLE_LOOP, {}, dict.fromkeys((
        "estimator_x", "estimator_y", "estimator_z", "ma", "rho", "R", "p",
        "rho_bar", "storm_a", "period", "init", "large_batch"), D)),
    # The baselines (docs/baselines.md §3); a family's own parameters take
    # their defaults from its declaration (families/).
    "StocBiO": _baseline(
        "stocBiO", **_HESSIAN, exponent_x=D, exponent_y=D,
        n_inner_steps=D, n_shia_steps=D),
    "AmIGO": _baseline(
        "AmIGO", **_HESSIAN, exponent_x=D, exponent_y=D,
        n_inner_steps=D, n_z_steps=D),
    "BSA": _baseline(
        "BSA", **_HESSIAN, exponent_x=0.5, exponent_y=0.5,
        n_inner_steps=D, n_hia_steps=D),
    "TTSA": _baseline(
        "TTSA", **_HESSIAN, exponent_x=0.6, exponent_y=0.4, n_hia_steps=D),
    "SUSTAIN": _baseline(
        "SUSTAIN", **_HESSIAN, exponent_x=1 / 3, exponent_y=1 / 3,
        n_hia_steps=D, eta=D, exponent_eta=D),
    "MRBO": _baseline(
        "MRBO", **_HESSIAN, exponent_x=1 / 3, exponent_y=1 / 3,
        n_shia_steps=D, eta=D, exponent_eta=D),
    "VRBO": _baseline(
        "VRBO", **_HESSIAN, exponent_x=D, exponent_y=D,
        n_inner_steps=D, n_shia_steps=D, period_frac=0.5),
    "FSLA": _baseline(
        "FSLA", **_HESSIAN, exponent_x=0.5, exponent_yz=0.5, storm_a=None,
        exponent_a=0.5),
    "F2SA": _baseline(
        "F2SA", step_size=0.01, exponent_x=5 / 7, exponent_y=5 / 7,
        exponent_w=D, n_inner_steps=D, lmbda0=D, delta_lmbda=D,
        exponent_delta=D),
    "ITD": _baseline(
        "ITD", exponent_x=D, exponent_y=D, n_inner_steps=D, warm_start=D),
    "BOME": _baseline(
        "BOME", exponent_x=D, exponent_y=D, n_inner_steps=D, eta=D,
        choice_phi=D),
    "PZOBO": _baseline(
        "PZOBO", exponent_x=D, exponent_y=D, n_inner_steps=D, mu=D,
        n_gaussian_vectors=D),
    # benchmark_bilevel's jaxopt_GD (docs/baselines.md §3)
    "ImplicitGD": Algorithm(EXACT, {}, dict(exponent_x=D, tol=D)),
    # Python-side searches (docs/solvers.md "Optuna").
    "Optuna": Algorithm(SEARCH, {}, dict(low=D, high=D, max_dim=D)),
}
PRESETS = [name for name, a in ALGORITHMS.items()
           if a.kind is SINGLE_LOOP and name != "PnPBO"]
BASELINES = [name for name, a in ALGORITHMS.items() if a.kind is BASELINE]
SEARCHES = [name for name, a in ALGORITHMS.items() if a.kind is SEARCH]


def entry(name):
    """The ``Algorithm`` of solver ``name``."""
    if name not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, "
                         f"got {name!r}")
    return ALGORITHMS[name]


def defaults(name):
    """{parameter: default} of solver ``name``: its kind's common
    parameters, then its own (a later default overrides)."""
    algo = entry(name)
    return {**algo.kind.common, **algo.parameters}


def solver_parameters(name):
    """benchopt ``parameters`` of solver ``name``: each default as a
    one-element list (a fresh dict: benchopt may not share it between
    solvers)."""
    return {key: [value] for key, value in defaults(name).items()}


def fields_of(name, key, value):
    """``{configuration field: value}`` set by parameter ``key`` of solver
    ``name`` (empty for benchopt plumbing such as ``random_state``)."""
    kind = entry(name).kind
    if key in kind.solver_only:
        return {}
    return dict.fromkeys(kind.renames.get(key, (key,)), value)


def config_of(name, sizes=None, **values):
    """The validated configuration of solver ``name`` with parameter
    ``values``, the others at the solver's defaults.

    ``values`` may name the solver's parameters (``exponent_yz``,
    ``n_shia_steps``, ``eta``, ``init="zero"``, ...) or any configuration
    field the algorithm does not fix (``exponent_y``, ``large_batch``,
    ...): tests and tools set fields no solver exposes.  ``sizes = (n,
    m)``, the problem's UL and LL samples, bound ``batch_size`` and set
    VRBO's restart period from ``period_frac`` (without them the period
    keeps its default: for validation only).  A bad value is named as it
    was set (``n_shia_steps``, ``eta``, ``exponent_yz``), not by the field
    it fills.
    """
    algo = entry(name)
    kind = algo.kind
    field_names = {f.name for f in fields(kind.config)}
    allowed = set(defaults(name)) | (field_names - set(algo.fixed))
    for key in values:
        if key in algo.fixed:
            free = (" (the PnPBO solver leaves it free)"
                    if kind is SINGLE_LOOP else "")
            raise ValueError(f"{name} fixes {key}={algo.fixed[key]!r}; "
                             f"it cannot be set{free}")
        if key not in allowed:
            raise ValueError(f"unknown parameter {key!r} for {name}: its "
                             f"parameters are {sorted(allowed)}")
    merged = {**defaults(name), **values}
    check_random_state(merged.get("random_state"))
    config = dict(algo.fixed)
    source = {}  # field -> the parameter that set it
    for key, value in merged.items():
        renames = algo.values.get(key)
        if renames is not None:
            if not (isinstance(value, str) and value in renames):
                raise ValueError(f"{key} must be one of {list(renames)}, "
                                 f"got {value!r}")
            value = renames[value]
        for target, v in fields_of(name, key, value).items():
            config[target] = v
            source[target] = key
    if isinstance(config.get("R"), str):
        # benchopt's command line passes R=inf as 'inf'
        try:
            config["R"] = float(config["R"])
        except ValueError:
            pass  # validate names it
    if source.get("storm_a") == "storm_a" and config["storm_a"] is None:
        # FSLA's storm_a=None: a_k tied to step_size (benchmark_bilevel's
        # setting); another parameter set to None is named by validate
        check_positive("step_size", config.get("step_size"))
        config["storm_a"] = config["step_size"]
        if not config["storm_a"] <= 1:
            raise ValueError(
                "storm_a must be in (0, 1] (storm_a=None takes step_size, "
                f"here {config['storm_a']!r}); set storm_a explicitly")
    if "period_frac" in merged:
        check_positive("period_frac", merged["period_frac"])
        if sizes is not None:
            check_integer("batch_size", config["batch_size"], 1)
            config["period"] = period_of(merged["period_frac"], *sizes,
                                         config["batch_size"])
    n, m = (None, None) if sizes is None else sizes
    try:
        return mark_validated(kind.config(**config).validate(n, m), n, m)
    except ValueError as err:
        target, _, rest = str(err).partition(" ")
        if source.get(target, target) != target:
            raise ValueError(f"{source[target]} {rest}") from None
        raise


def period_of(period_frac, n, m, batch_size):
    """VRBO's restart period in outer iterations, benchmark_bilevel's
    ``int((n + m) period_frac / batch_size)`` (at least 1)."""
    check_positive("period_frac", period_frac)
    return max(1, int((n + m) * period_frac / batch_size))


def run_seed(seed, random_state=None):
    """The seed of a run's generator (its batches, coins and, under
    ``sampling="blocks"``, its orders): the Objective's ``seed`` when
    ``random_state`` is None, else ``random_state`` (benchmark_bilevel's
    parameter: runs with the same ``random_state`` draw the same batches,
    whatever the repetition)."""
    check_random_state(random_state)
    return seed if random_state is None else int(random_state)


def run_of(problem, config, x0, y0, z0, seed):
    """A fresh run of ``config``: its kind's run (``PnPBORun``,
    ``BaselineRun``, ``ImplicitRun`` or ``SearchRun``)."""
    kind = next(k for k in KINDS if isinstance(config, k.config))
    return kind.run(problem, config, x0, y0, z0, seed)
