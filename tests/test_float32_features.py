"""Features stored in float32 (``problem.as_features``, ``data/storage.py``,
the ``dtype`` parameter of ijcnn1, covtype and mnist).

A float32 converts exactly to float64 and the arithmetic is float64, so a
run on float32 features must give bitwise the iterates and the sample count
of the run on float64 features holding the same (rounded) values; the
Objective scores the rounded values in float64; the core compiles once per
feature dtype."""
import inspect
from functools import lru_cache

import numpy as np
import pytest
from benchopt.utils.run_context import RunContext

import bench_helpers
from benchmark_utils import engine
from benchmark_utils.algorithms.baseline import FAMILIES
from benchmark_utils.data import mnist
from benchmark_utils.data.storage import DTYPES, check_dtype, features_as
from benchmark_utils.algorithms import PnPBOConfig
from benchmark_utils.problem import as_features
from benchmark_utils.problem import starting_point
from conftest import glm_data
from tools.bench.shapes import (baseline_names, make_config, make_run,
                                problem_of)
from tools.iterate_hashes import MIXTURES, datasets

TASKS = ("quadratic", "logreg", "multilogreg", "datacleaning")
PRESET_NAMES = ("SOBA", "SABA", "SPABA", "MSEBA", "SRMBA", "MA-SABA")
MIXTURE_NAMES = ("mix-saga-page-zerosarah-ma", "mix-schedules")
# The baselines read the rows only through the kernels the single loop
# uses (``core/oracles.py``): the features' dtype reaches no family code.
# Each task is checked with one family, four families in all (Jacobi reads
# the rows as Gauss-Seidel does, two points per pass), each a pair the
# float64 tests compile too; every (family, task) pair would compile 16
# baseline loops more for float32 features.
BASELINE_CASES = {"quadratic": ("VRBO",), "logreg": ("FSLA",),
                  "multilogreg": ("F2SA",), "datacleaning": ("StocBiO",)}
BASELINE_NAMES = tuple(n for names in BASELINE_CASES.values() for n in names)
SAMPLINGS = ("uniform", "blocks")
CHUNKS = (11, 19)  # 30 iterations in two uneven chunks
SEED = 7


@lru_cache(maxsize=None)
def problems(task):
    """(original float64 problem, float32-feature problem, float64 problem
    of the rounded values) of ``task``'s small seeded dataset."""
    data = datasets()[task]
    data32 = features_as(data, "float32")
    rounded = features_as(data32, "float64")
    return problem_of(data), problem_of(data32), problem_of(rounded)


def config(name, problem, sampling):
    if name in MIXTURES:
        return PnPBOConfig(**MIXTURES[name], batch_size=8, step_size=0.05,
                           sampling=sampling)
    return make_config(name, 8, step_size=0.05, n=problem.n, m=problem.m,
                       sampling=sampling)


def run_of(problem, name, sampling):
    run = make_run(problem, config(name, problem, sampling), SEED)
    for chunk in CHUNKS:
        run.run(chunk)
    return run


def test_the_cases_exist():
    assert set(BASELINE_NAMES) <= set(baseline_names())
    assert set(MIXTURE_NAMES) <= set(MIXTURES)
    assert set(datasets()) == set(TASKS)


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("task, name", [
    (task, name) for task in TASKS
    for name in PRESET_NAMES + MIXTURE_NAMES + BASELINE_CASES[task]])
def test_float32_features_give_the_rounded_float64_run_bitwise(
        task, name, sampling):
    original, p32, p64 = problems(task)
    # not vacuous: the features really are float32, and rounded
    for X in (p32.Xg, p32.Xf):
        assert X.dtype == np.float32 and X.flags.c_contiguous
    for X in (p64.Xg, p64.Xf, original.Xg, original.Xf):
        assert X.dtype == np.float64
    assert not np.array_equal(p64.Xg, original.Xg)
    assert not np.array_equal(p64.Xf, original.Xf)
    np.testing.assert_array_equal(p64.Xg, p32.Xg.astype(np.float64))
    for key in ("yg", "yf", "params"):
        assert getattr(p32, key).dtype == np.float64
        np.testing.assert_array_equal(getattr(p32, key), getattr(p64, key))
    assert (p32.dim_x, p32.dim_y) == (p64.dim_x, p64.dim_y)

    a = run_of(p32, name, sampling)
    b = run_of(p64, name, sampling)
    # the kernels read the float32 rows (blocks: a permuted float32 copy)
    assert all(level.X.dtype == np.float32 for level in a.levels)
    assert all(level.X.dtype == np.float64 for level in b.levels)
    assert a.iteration == b.iteration == sum(CHUNKS)
    assert not a.diverged and not b.diverged
    for key in "xyz":
        u, v = getattr(a, key), getattr(b, key)
        assert u.dtype == v.dtype == np.float64
        assert np.all(np.isfinite(u))
        assert np.array_equal(u, v), (
            f"{key} differs: max |diff| {np.max(np.abs(u - v)):.3g}")
    assert a.n_samples == b.n_samples > 0
    x0, y0, z0 = starting_point(p32, SEED)
    assert not np.array_equal(a.y, y0)  # the run moved
    # the test can see a rounding of the features: the run on the original
    # (unrounded) features ends elsewhere
    c = run_of(original, name, sampling)
    assert not all(np.array_equal(getattr(a, k), getattr(c, k))
                   for k in "xyz")


# --------------------------------------------------------------------------
# as_features, check_dtype, features_as
# --------------------------------------------------------------------------
def test_as_features_keeps_float32_and_converts_the_rest_to_float64():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4)).astype(np.float32)
    kept = as_features(X)
    assert kept.dtype == np.float32 and kept.flags.c_contiguous
    assert np.shares_memory(kept, X)  # no copy needed
    np.testing.assert_array_equal(kept, X)
    strided = as_features(X.T)  # Fortran-ordered view: made contiguous
    assert strided.dtype == np.float32 and strided.flags.c_contiguous
    np.testing.assert_array_equal(strided, X.T)
    sliced = as_features(X[:, ::2])
    assert sliced.dtype == np.float32 and sliced.flags.c_contiguous
    np.testing.assert_array_equal(sliced, X[:, ::2])
    for other in (np.arange(12).reshape(3, 4), X.astype(np.float16),
                  X.astype(np.float64), X.astype(np.int8),
                  X.tolist()):
        out = as_features(other)
        assert out.dtype == np.float64 and out.flags.c_contiguous
        np.testing.assert_array_equal(out, np.asarray(other, np.float64))
    for bad in (X[0], X[0].astype(np.float64), X[None]):
        with pytest.raises(ValueError, match="expected a 2-d array"):
            as_features(bad)


def test_mixed_feature_dtypes_are_stored_in_float64():
    """The core takes both levels' rows of one dtype: float32 only when
    both are float32, float64 as soon as one is not."""
    from benchmark_utils.problem import problem_from_data
    data = datasets()["logreg"]
    X32 = {k: data[k].astype(np.float32) for k in ("X_train", "X_val")}
    for train, val, dtype in ((X32["X_train"], X32["X_val"], np.float32),
                              (X32["X_train"], data["X_val"], np.float64),
                              (data["X_train"], X32["X_val"], np.float64)):
        problem = problem_from_data("logreg", train, data["y_train"], val,
                                    data["y_val"])
        assert problem.Xg.dtype == dtype and problem.Xf.dtype == dtype
        np.testing.assert_array_equal(problem.Xg, train)
        np.testing.assert_array_equal(problem.Xf, val)


@pytest.mark.parametrize("bad", ["float16", "double", "float", "f4",
                                 np.float32, None])
def test_check_dtype_names_the_parameter_and_the_allowed_values(bad):
    with pytest.raises(ValueError) as e:
        check_dtype(bad)
    message = str(e.value)
    assert "dtype" in message and repr(bad) in message
    assert "'float64'" in message and "'float32'" in message
    with pytest.raises(ValueError, match="float64.*float32"):
        features_as(dict(X_train=np.zeros((2, 2))), bad)


def test_check_dtype_allowed_values():
    assert set(DTYPES) == {"float64", "float32"}
    assert check_dtype("float64") is np.float64
    assert check_dtype("float32") is np.float32


def test_features_as_casts_only_the_features():
    data = glm_data("multilogreg")
    data["extra"] = np.arange(3.0)
    before = {k: (v.copy() if isinstance(v, np.ndarray) else v)
              for k, v in data.items()}
    out = features_as(data, "float32")
    assert out is not data
    for key in ("X_train", "X_val", "X_test"):
        assert out[key].dtype == np.float32 and out[key].flags.c_contiguous
        np.testing.assert_array_equal(out[key],
                                      data[key].astype(np.float32))
    for key in ("y_train", "y_val", "y_test", "extra", "task", "n_classes"):
        assert out[key] is data[key]  # shared, untouched
    for key, value in before.items():  # the input dict is unchanged
        np.testing.assert_array_equal(data[key], value)
        if isinstance(value, np.ndarray):
            assert data[key].dtype == value.dtype
    back = features_as(out, "float64")
    for key in ("X_train", "X_val", "X_test"):
        assert back[key].dtype == np.float64
        np.testing.assert_array_equal(back[key], out[key])
    # float64 -> float64 needs no copy
    assert features_as(data, "float64")["X_train"] is data["X_train"]
    # absent or None test set: left alone
    no_test = dict(data, X_test=None, y_test=None)
    out = features_as(no_test, "float32")
    assert out["X_test"] is None and out["y_test"] is None
    del no_test["X_test"], no_test["y_test"]
    out = features_as(no_test, "float32")
    assert "X_test" not in out and out["X_train"].dtype == np.float32


# --------------------------------------------------------------------------
# The Objective
# --------------------------------------------------------------------------
def objective_on(data):
    """An Objective set on the dataset dict ``data`` (``set_data`` called
    as benchopt does with a dataset's ``get_data()``)."""
    bench = bench_helpers.benchmark()
    objective = bench.get_benchmark_objective().get_instance()
    RunContext().set_run_context(objective, "dummy", "dummy", repetition=0,
                                 base_seed=0)
    objective.set_data(**data)
    return objective


def iterate(problem, seed):
    """A point away from the starting point (the metrics at a random
    point, not only at the start)."""
    rng = np.random.default_rng(seed)
    x0, y0, z0 = starting_point(problem, seed)
    return (x0 + 0.1 * rng.standard_normal(x0.shape),
            y0 + rng.standard_normal(y0.shape),
            z0 + 0.1 * rng.standard_normal(z0.shape))


@pytest.mark.parametrize("task", ["logreg", "multilogreg", "datacleaning"])
def test_objective_scores_float32_features_as_their_float64_values(
        task, monkeypatch):
    data32 = features_as(glm_data(task, n=30, m=40, p=5), "float32")
    rounded = features_as(data32, "float64")
    assert data32["X_test"].dtype == np.float32
    compiled = []
    for name in ("compile_core", "compile_baselines", "compile_for"):
        monkeypatch.setattr(engine, name,
                            lambda *args: compiled.append(args))
    o32 = objective_on(data32)
    o64 = objective_on(rounded)
    # the Objective compiles no solver code: each solver compiles its own
    assert compiled == []
    assert o32.problem.Xg.dtype == o32.problem.Xf.dtype == np.float32
    assert o64.problem.Xg.dtype == np.float64
    given = o32.get_objective()
    assert given["problem"] is o32.problem
    for seed in (0, 1):
        x, y, z = iterate(o32.problem, seed)
        a = o32.evaluate_result(x, y, z, 0)
        b = o64.evaluate_result(x, y, z, 0)
        assert set(a) == set(b)
        for key in a:
            if key.startswith("ref_") and np.isnan(a[key]):
                # a reference the fixture cannot define (no clean labels)
                assert np.isnan(b[key]), key
                continue
            assert np.isfinite(a[key]), key
            assert a[key] == b[key], (key, a[key], b[key])
        assert a["diverged"] == 0


# --------------------------------------------------------------------------
# Compilation once per feature dtype
# --------------------------------------------------------------------------
def test_the_core_compiles_once_per_feature_dtype_and_task():
    core = engine.compile_core
    for dtype in (np.float64, np.float32):
        core(dtype)  # True or False: an earlier test may have compiled it
        assert (dtype, "quadratic") in engine._CORE_READY
        assert core(dtype) is False
    # the same dtype spelled otherwise is the same entry
    assert core("float32") is False
    assert core(np.dtype("float32"), "quadratic") is False
    assert core() is False  # float64 and quadratic by default


def test_a_baseline_compiles_once_per_feature_dtype_task_and_family():
    compile_ = engine.compile_baselines
    inner = FAMILIES["stocBiO"][0]
    for dtype in (np.float64, np.float32):
        compile_(dtype, "quadratic", "stocBiO")
        assert (dtype, "quadratic", inner) in engine._BASELINES_READY
        assert compile_(dtype, "quadratic", "stocBiO") is False
    assert compile_("float32", "quadratic", "stocBiO") is False
    # the algorithms of a family share its compiled loop
    assert compile_(np.float64, "quadratic", "TTSA") is False
    assert compile_(np.float64, "quadratic", "AmIGO") is False


def test_feature_dtype_of_a_problem():
    p32 = problems("logreg")[1]
    assert engine.feature_dtype(p32) is np.float32
    assert engine.feature_dtype(problems("logreg")[2]) is np.float64
    assert engine.feature_dtype() is np.float64
    tiny = engine.tiny_problem(np.float32)
    assert tiny.Xg.dtype == tiny.Xf.dtype == np.float32


# --------------------------------------------------------------------------
# The datasets' dtype parameter
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["ijcnn1", "covtype", "mnist"])
def test_datasets_have_a_dtype_parameter_checked_first(name, monkeypatch):
    cls = bench_helpers.dataset_class(name)
    assert cls.parameters["dtype"] == ["float64"]
    ds = bench_helpers.dataset(name, dtype="float16")

    def no_data(*args, **kwargs):
        raise AssertionError("the data were read before dtype was checked")
    monkeypatch.setattr(type(ds), "_arrays", no_data)
    with pytest.raises(ValueError, match="dtype.*'float16'"):
        ds.get_data()


FASHION = mnist.DEBIAN_FASHION_MNIST


@pytest.mark.skipif(
    not mnist.local_copy_available("fashion", [FASHION]),
    reason=f"Fashion-MNIST is not installed in {FASHION} (Debian's "
           "dataset-fashion-mnist): the mnist dataset cannot run offline")
def test_mnist_dataset_stores_float32_features(tmp_path, monkeypatch):
    params = dict(variant="fashion", n_train=300, n_val=100, n_test=100)
    ds64 = bench_helpers.dataset("mnist", **params)
    paths = inspect.getmodule(type(ds64)).paths
    # the parsed images are cached under tmp_path, not in the benchmark
    monkeypatch.setattr(paths, "get_data_path",
                        lambda key=None: tmp_path if key is None
                        else tmp_path / key)
    d64 = ds64.get_data()
    d32 = bench_helpers.dataset("mnist", dtype="float32", **params).get_data()
    assert set(d32) == set(d64)
    for key in ("X_train", "X_val", "X_test"):
        assert d64[key].dtype == np.float64
        assert d32[key].dtype == np.float32 and d32[key].flags.c_contiguous
        np.testing.assert_array_equal(d32[key],
                                      d64[key].astype(np.float32))
    assert not np.array_equal(d32["X_train"].astype(np.float64),
                              d64["X_train"])  # standardised, so rounded
    for key in d64:
        if key not in ("X_train", "X_val", "X_test"):
            np.testing.assert_array_equal(d32[key], d64[key])
            if isinstance(d64[key], np.ndarray):
                assert d32[key].dtype == d64[key].dtype
    # end to end: the Objective of the float32 dataset
    o32 = bench_helpers.objective_for(dict(dtype="float32", **params),
                                      dataset="mnist")
    assert o32.problem.Xg.dtype == o32.problem.Xf.dtype == np.float32
    o64 = objective_on(features_as(d32, "float64"))
    x, y, z = iterate(o32.problem, 0)
    assert o32.evaluate_result(x, y, z, 0) == o64.evaluate_result(x, y, z, 0)


def test_compile_baselines_names_the_allowed_algorithms():
    with pytest.raises(ValueError, match="algorithm must be one of"):
        engine.compile_baselines(np.float64, "quadratic", "StocBiO")
