"""The table of algorithms (``benchmark_utils.algorithms``) is the one
source of truth of the solvers: each solver's benchopt ``parameters`` come
from its entry, with the names and defaults they had before (benchopt's
result names and users' configs depend on them), every parameter maps to
a configuration field by name or by a documented rename, each solver at
its defaults is a pinned configuration, and the configs in ``configs/``
name existing solvers and parameters.  The baseline solvers are pinned
the same way, with benchmark_bilevel's parameter names, and so is
ImplicitGD (the ``EXACT`` kind)."""
import itertools
import math
from dataclasses import fields
from pathlib import Path

import pytest
import yaml
from benchopt.utils.parametrized_name_mixin import _check_patterns

from bench_helpers import ROOT, benchmark, solver_class
from benchmark_utils import algorithms
from benchmark_utils.algorithms import (ALGORITHMS, BASELINE, BaselineConfig,
                                        PnPBOConfig, config_of, fields_of)
from benchmark_utils.sample_grid import check_eval_epochs

inf = math.inf
_COMMON = [("batch_size", [64]), ("step_size", [0.1]),
           ("outer_ratio", [1.0]), ("z_ratio", [1.0]),
           ("exponent_x", [0.0]), ("exponent_yz", [0.0]),
           ("sampling", ["uniform"]),
           ("random_state", [None])]
# Every solver's ``parameters`` (names, order, default lists); do not edit
# without a reason: a change renames benchopt results and breaks users'
# configs.  The common ``sampling`` parameter comes after the others
# ("uniform" by default: the batches of the first releases), then
# ``random_state`` (None: the Objective's seed; benchmark_bilevel's
# configuration lines set it).
PINNED_PARAMETERS = {
    "SPABA": _COMMON + [("p", [0.01]), ("large_batch", [0]), ("R", [1.0])],
    "SFFBA": _COMMON + [("rho_bar", [0.1]), ("init", ["full"]),
                        ("R", [1.0])],
    "MSEBA": _COMMON + [("p", [0.01]), ("rho_bar", [0.1]),
                        ("init", ["full"]), ("R", [1.0])],
    "MA-SABA": _COMMON + [("rho", [0.1]), ("init", ["full"]), ("R", [1.0])],
    "SRMBA": _COMMON + [("storm_a", [0.1]), ("init", ["minibatch"]),
                        ("R", [1.0])],
    "SRBA": _COMMON + [("period", [100]), ("R", [1.0])],
    "SOBA": [("exponent_x", [0.5]) if k == "exponent_x" else
             ("exponent_yz", [0.5]) if k == "exponent_yz" else (k, v)
             for k, v in _COMMON] + [("R", [inf])],
    "MA-SOBA": _COMMON + [("rho", [0.1]), ("R", [inf])],
    "SABA": _COMMON + [("init", ["full"]), ("R", [inf])],
    "PnPBO": _COMMON + [
        ("estimator_x", ["page"]), ("estimator_y", ["page"]),
        ("estimator_z", ["page"]), ("ma", ["auto"]), ("rho", [0.1]),
        ("R", [1.0]), ("p", [0.01]), ("rho_bar", [0.1]),
        ("storm_a", [0.1]), ("period", [100]), ("init", ["full"]),
        ("large_batch", [0])],
}
# Each preset at its defaults, as ``PnPBOConfig`` keyword arguments beside
# ``PnPBOConfig``'s own defaults (``config_of(name)`` must equal it).
PINNED_PRESETS = {
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
                 ma="off", R=inf, exponent_x=0.5, exponent_y=0.5,
                 exponent_z=0.5),
    "MA-SOBA": dict(estimator_x="sgd", estimator_y="sgd",
                    estimator_z="sgd", ma="on", R=inf),
    "SABA": dict(estimator_x="saga", estimator_y="saga", estimator_z="saga",
                 ma="off", R=inf),
}
SOLVERS = list(PINNED_PARAMETERS)
CONFIG_FIELDS = {f.name for f in fields(PnPBOConfig)}

_BASE = [("batch_size", [64]), ("step_size", [0.1]), ("outer_ratio", [1.0]),
         ("sampling", ["uniform"]), ("random_state", [None])]
# Every baseline solver's ``parameters`` (names, order, default lists): those
# of commit 72fcda0, where the first nine baselines were added (BOME,
# PZOBO: as they were added), and the common ``random_state``; do not edit
# without a reason: a change renames benchopt results and breaks users'
# configs (and the lines converted from benchmark_bilevel's configs).
PINNED_BASELINE_PARAMETERS = {
    "StocBiO": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [0.0]), ("exponent_y", [0.0]),
        ("n_inner_steps", [10]), ("n_shia_steps", [10])],
    "AmIGO": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [0.0]), ("exponent_y", [0.0]),
        ("n_inner_steps", [10]), ("n_z_steps", [10])],
    "BSA": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [0.5]), ("exponent_y", [0.5]),
        ("n_inner_steps", [10]), ("n_hia_steps", [10])],
    "TTSA": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [0.6]), ("exponent_y", [0.4]),
        ("n_hia_steps", [10])],
    "SUSTAIN": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [1 / 3]), ("exponent_y", [1 / 3]),
        ("n_hia_steps", [10]), ("eta", [0.5]), ("exponent_eta", [2 / 3])],
    "MRBO": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [1 / 3]), ("exponent_y", [1 / 3]),
        ("n_shia_steps", [10]), ("eta", [0.5]), ("exponent_eta", [2 / 3])],
    "VRBO": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [0.0]), ("exponent_y", [0.0]),
        ("n_inner_steps", [10]), ("n_shia_steps", [10]),
        ("period_frac", [0.5])],
    "FSLA": _BASE + [
        ("z_ratio", [1.0]), ("exponent_x", [0.5]), ("exponent_yz", [0.5]),
        ("storm_a", [None]), ("exponent_a", [0.5])],
    "F2SA": [("step_size", [0.01]) if k == "step_size" else (k, v)
             for k, v in _BASE] + [
        ("exponent_x", [5 / 7]), ("exponent_y", [5 / 7]),
        ("exponent_w", [4 / 7]), ("n_inner_steps", [10]),
        ("lmbda0", [1.0]), ("delta_lmbda", [0.1]),
        ("exponent_delta", [6 / 7])],
    "ITD": _BASE + [
        ("exponent_x", [0.0]), ("exponent_y", [0.0]),
        ("n_inner_steps", [10]), ("warm_start", [True])],
    "BOME": _BASE + [
        ("exponent_x", [0.0]), ("exponent_y", [0.0]),
        ("n_inner_steps", [10]), ("eta", [0.5]),
        ("choice_phi", ["grad_norm"])],
    "PZOBO": _BASE + [
        ("exponent_x", [0.0]), ("exponent_y", [0.0]),
        ("n_inner_steps", [10]), ("mu", [0.1]),
        ("n_gaussian_vectors", [10])],
}
BASELINES = list(PINNED_BASELINE_PARAMETERS)
# The solvers of the EXACT kind (full batch, exact solves, Python side)
PINNED_EXACT_PARAMETERS = {
    "ImplicitGD": [("step_size", [1.0]), ("random_state", [None]),
                   ("exponent_x", [0.0]), ("tol", [1e-10])],
}
EXACT = list(PINNED_EXACT_PARAMETERS)
BASELINE_FIELDS = {f.name for f in fields(BaselineConfig)}
# The Python-side searches (kind SEARCH), pinned the same way.
PINNED_SEARCH_PARAMETERS = {
    "Optuna": [("random_state", [None]),
               ("low", [None]), ("high", [None]), ("max_dim", [100])],
}
SEARCHES = list(PINNED_SEARCH_PARAMETERS)


def _typed(items):
    """(name, [(type, value), ...]) pairs: 1 and 1.0 differ in a result
    name, so the types are compared too."""
    return [(k, [(type(v).__name__, v) for v in values])
            for k, values in items]


def test_every_solver_is_pinned():
    assert sorted(s.name for s in benchmark().get_solvers()) == \
        sorted(SOLVERS + BASELINES + EXACT + SEARCHES)
    assert algorithms.BASELINES == BASELINES
    assert algorithms.SEARCHES == SEARCHES
    assert algorithms.PRESETS == list(PINNED_PRESETS)
    assert list(ALGORITHMS) == [*PINNED_PRESETS, "PnPBO", *BASELINES,
                                *EXACT, *SEARCHES]


def test_the_generic_solver_takes_the_configuration_defaults():
    """Defaults live in one place: the generic PnPBO solver at its defaults
    is ``PnPBOConfig()``, field for field; a baseline at its defaults
    differs from ``BaselineConfig(algorithm=...)`` only where its entry
    chooses another value."""
    assert config_of("PnPBO") == PnPBOConfig()
    for name in ("StocBiO", "AmIGO", "ITD", "BOME", "PZOBO"):
        algorithm = ALGORITHMS[name].fixed["algorithm"]
        assert config_of(name) == BaselineConfig(algorithm=algorithm), name


def test_an_entry_restating_a_class_default_is_refused():
    """A default stated in the table and in the configuration class would
    drift: the table takes ``DEFAULT`` instead, and refuses the copy."""
    from benchmark_utils.algorithms.table import (DEFAULT, SINGLE_LOOP,
                                                  Algorithm)
    entry = Algorithm(SINGLE_LOOP, {}, dict(p=DEFAULT, R=math.inf))
    assert entry.parameters == dict(p=PnPBOConfig().p, R=inf)
    with pytest.raises(ValueError, match=r"p=0\.01 restates PnPBOConfig's "
                       r"default: write p=DEFAULT"):
        Algorithm(SINGLE_LOOP, {}, dict(p=0.01))
    with pytest.raises(ValueError, match="no single default"):
        Algorithm(SINGLE_LOOP, {}, dict(not_a_field=DEFAULT))


@pytest.mark.parametrize("name", EXACT)
def test_exact_parameters_are_unchanged(name):
    params = solver_class(name).parameters
    assert _typed(params.items()) == _typed(PINNED_EXACT_PARAMETERS[name])
    assert params == algorithms.solver_parameters(name)
    assert solver_class(name).algorithm == name


@pytest.mark.parametrize("name", SOLVERS)
def test_solver_parameters_are_unchanged(name):
    params = solver_class(name).parameters
    assert _typed(params.items()) == _typed(PINNED_PARAMETERS[name])
    assert params == algorithms.solver_parameters(name)
    assert solver_class(name).algorithm == name


@pytest.mark.parametrize("name", BASELINES)
def test_baseline_parameters_are_unchanged(name):
    params = solver_class(name).parameters
    assert _typed(params.items()) == \
        _typed(PINNED_BASELINE_PARAMETERS[name])
    assert params == algorithms.solver_parameters(name)
    assert solver_class(name).algorithm == name  # its ALGORITHMS key


@pytest.mark.parametrize("name", SEARCHES)
def test_search_parameters_are_unchanged(name):
    params = solver_class(name).parameters
    assert _typed(params.items()) == _typed(PINNED_SEARCH_PARAMETERS[name])
    assert params == algorithms.solver_parameters(name)
    assert solver_class(name).algorithm == name
    fields_ = {f.name for f in fields(ALGORITHMS[name].kind.config)}
    for key in params:
        assert key in ALGORITHMS[name].kind.solver_only or key in fields_


@pytest.mark.parametrize("name", BASELINES)
def test_baseline_parameters_map_to_the_configuration_by_name(name):
    """Every baseline parameter is a ``BaselineConfig`` field, a documented
    rename (``BASELINE.renames``) or a solver-only one
    (``BASELINE.solver_only``)."""
    for key in algorithms.solver_parameters(name):
        targets = BASELINE.renames.get(key, (key,))
        assert key in BASELINE.solver_only or \
            set(targets) <= BASELINE_FIELDS, key


# A new valid value of every baseline parameter (FSLA's storm_a=None is
# covered by test_baseline_solvers.py).
_NEW_BASELINE_VALUES = dict(
    batch_size=7, step_size=0.3, outer_ratio=2.0, z_ratio=3.0,
    exponent_x=0.25, exponent_y=0.75, exponent_yz=0.75, n_inner_steps=3,
    n_z_steps=4, n_shia_steps=5, n_hia_steps=6, eta=0.25,
    exponent_eta=0.125, storm_a=0.375, exponent_a=0.625, lmbda0=2.5,
    delta_lmbda=0.5, exponent_w=0.875, exponent_delta=0.0625,
    sampling="blocks", warm_start=False, mu=0.25, n_gaussian_vectors=3)
# parameters with a single allowed value (BOME's choice_phi)
_ONE_VALUE = ("choice_phi",)


@pytest.mark.parametrize("name", BASELINES)
def test_a_baseline_parameter_reaches_its_field(name):
    """Setting one parameter changes exactly its ``BaselineConfig``
    field(s) (``RENAMES``: Q, storm_a, exponent_a, exponent_y and
    exponent_z), to that value; the defaults give a valid configuration."""
    cls = solver_class(name)
    base = cls.get_instance().config()
    assert base.validate() is base
    assert base.algorithm == ALGORITHMS[name].fixed["algorithm"]
    for key in cls.parameters:
        if key in BASELINE.solver_only or key in _ONE_VALUE:
            continue
        value = _NEW_BASELINE_VALUES[key]
        cfg = cls.get_instance(**{key: value}).config()
        cfg.validate()
        changed = {f for f in BASELINE_FIELDS
                   if getattr(cfg, f) != getattr(base, f)}
        expected = set(BASELINE.renames.get(key, (key,)))
        if key == "step_size" and cls.parameters.get("storm_a") == [None]:
            expected.add("storm_a")  # FSLA: storm_a=None takes step_size
        assert changed == expected, key
        assert all(getattr(cfg, f) == value for f in changed), key


@pytest.mark.parametrize("name", list(PINNED_PRESETS))
def test_solver_at_its_defaults_is_its_preset(name):
    """The solver at its defaults, ``config_of(name)`` and the pinned
    configuration are one configuration, value and type."""
    cfg = solver_class(name).get_instance().config()
    pinned = PnPBOConfig(**PINNED_PRESETS[name])
    assert cfg == pinned == config_of(name)
    for key in CONFIG_FIELDS:
        assert type(getattr(cfg, key)) is type(getattr(pinned, key)), key
    for key, value in ALGORITHMS[name].fixed.items():
        assert getattr(cfg, key) == value


@pytest.mark.parametrize("name", SOLVERS)
def test_parameters_map_to_the_configuration_by_name(name):
    entry = algorithms.entry(name)
    assert set(entry.fixed) <= CONFIG_FIELDS
    assert not set(entry.fixed) & set(entry.parameters)
    for key in algorithms.solver_parameters(name):
        targets = fields_of(name, key, 0)
        assert key in entry.kind.solver_only or targets, key
        assert set(targets) <= CONFIG_FIELDS, key
        assert not set(targets) & set(entry.fixed), key
    for key, renames in entry.values.items():
        assert entry.parameters[key] in renames


@pytest.mark.parametrize("name", SOLVERS)
def test_a_parameter_reaches_its_field(name):
    """Setting one parameter changes exactly its field(s)."""
    cls = solver_class(name)
    base = cls.get_instance().config()
    new = dict(batch_size=7, step_size=0.3, outer_ratio=2.0, z_ratio=3.0,
               exponent_x=0.25, exponent_yz=0.75, R=5.0, rho=0.5, p=0.5,
               rho_bar=0.5, storm_a=0.5, period=9, large_batch=11,
               estimator_x="sgd", estimator_y="saga", estimator_z="storm",
               ma="on", sampling="blocks")
    for key, value in new.items():
        if key not in cls.parameters:
            continue
        cfg = cls.get_instance(**{key: value}).config()
        changed = {f for f in CONFIG_FIELDS
                   if getattr(cfg, f) != getattr(base, f)}
        assert changed == set(fields_of(name, key, value)), key
        assert all(getattr(cfg, f) == value for f in changed), key


def _config_selections():
    for path in sorted(Path(ROOT, "configs").glob("*.yml")):
        spec = yaml.safe_load(path.read_text())
        if "backend" in spec:
            continue  # a --parallel-config file (tests/test_parallel.py)
        yield path.name, spec


@pytest.mark.parametrize("path, spec", list(_config_selections()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_configs_name_existing_solvers_and_parameters(path, spec):
    """benchopt's own pattern check on every config's solvers, datasets
    and objective (unknown name or parameter: an error naming it), every
    objective setting has a valid grid of sample evaluations, and every
    selected solver setting gives a valid configuration."""
    bench = benchmark()
    for cls, params in _check_patterns(
            [bench.get_benchmark_objective()],
            spec.get("objective", ["Bilevel Optimization"]), "objective"):
        values = params.get("eval_epochs", [])
        for value in values if isinstance(values, list) else [values]:
            check_eval_epochs(value)
    datasets = _check_patterns(bench.get_datasets(), spec["dataset"],
                               "dataset")
    keys_of_data = sorted({_tuning_key(cls.name, params)
                           for cls, params in datasets})
    selected = _check_patterns(bench.get_solvers(), spec["solver"], "solver")
    assert selected
    for cls, params in selected:
        keys = list(params)
        grids = [v if isinstance(v, list) else [v] for v in params.values()]
        for values in itertools.product(*grids):
            solver = cls.get_instance(**dict(zip(keys, values)))
            # a 'tuned' parameter needs an entry on every dataset of the
            # config (benchmark_utils/tuned.py)
            for key in keys_of_data:
                solver.dataset = key
                solver.config().validate()


def _tuning_key(name, params):
    """The ``tuning_key`` a dataset's get_data returns (datasets/*.py)."""
    if name == "mnist" and "fashion" in str(params.get("variant", "")):
        return "fashion-mnist"
    return name


@pytest.mark.parametrize("name", ["SABA", "MRBO", "ImplicitGD", "Optuna"])
def test_a_configuration_is_validated_once(name, monkeypatch):
    """config_of validates; the run trusts a configuration it validated
    and that did not change since, and checks any other."""
    from benchmark_utils.algorithms.checks import validated_for
    sizes = (400, 500)
    config = algorithms.config_of(name, sizes=sizes)
    calls = []
    original = type(config).validate
    monkeypatch.setattr(type(config), "validate",
                        lambda self, n=None, m=None: calls.append((n, m))
                        or original(self, n, m))
    assert validated_for(config, *sizes) is config
    assert calls == []
    if hasattr(config, "batch_size"):
        # validated without sizes: only batch_size meets them
        unsized = algorithms.config_of(name, batch_size=450)
        calls.clear()  # config_of's own validation
        with pytest.raises(ValueError, match="batch_size must be at most"):
            validated_for(unsized, *sizes)
        assert calls == []
    # a field changed after the validation: validated again
    field = fields(config)[0].name
    setattr(config, field, "bad")
    with pytest.raises(ValueError, match=field):
        validated_for(config, *sizes)
    assert calls == [sizes]
