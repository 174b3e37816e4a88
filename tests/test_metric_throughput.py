"""What makes the exact metrics cheap without changing them: passes split
in fixed row chunks (bitwise the same on any number of threads), the last
answer reused at an unchanged x, a dataset's arrays and evaluator built
once per process (``prepared``), and its reference results kept on disk by
content (``reference_store``)."""
import json

import numba
import numpy as np
import pytest

from benchmark_utils import exact_kernels, prepared as prepared_mod
from benchmark_utils.exact_glm import GLMExact
from benchmark_utils.exact_kernels import ce_grad_pass, ce_hvp_pass
from benchmark_utils.prepared import prepared
from benchmark_utils.reference_store import data_key, load_or_compute
from conftest import glm_data


def _passes(A, lab, W, w, V):
    m, C = A.shape[0], W.shape[0]
    S, G, out = np.empty((m, C)), np.empty(W.shape), np.empty(W.shape)
    loss = ce_grad_pass(A, lab, W, w, S, G)
    ce_hvp_pass(A, S, w, V, out)
    return loss, G, S, out


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                    reason="numba has one thread here")
def test_passes_are_bitwise_the_same_on_one_and_two_threads():
    rng = np.random.default_rng(0)
    m, p, C = 1001, 131, 4
    A = rng.standard_normal((m, p))
    lab = rng.integers(0, C, m)
    W, V = rng.standard_normal((C, p)), rng.standard_normal((C, p))
    w = rng.random(m)
    numba.set_num_threads(1)
    one = _passes(A, lab, W, w, V)
    numba.set_num_threads(2)
    two = _passes(A, lab, W, w, V)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert one[0] == two[0]
    for a, b in zip(one[1:], two[1:]):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(70, 13, 3), (1000, 64, 10), (7, 3, 2)])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 30.0])
def test_serial_passes_are_bitwise_the_threaded_ones(shape, dtype, scale):
    """The calling-thread build of each pass (wine's and digits' shapes)
    sums the same chunks in the same order as the threaded one, the
    chunks' losses too (a compiled reduction may reorder them)."""
    m, p, C = shape
    rng = np.random.default_rng(m)
    A = rng.standard_normal((m, p))
    lab = rng.integers(0, C, m)
    W = scale * rng.standard_normal((C, p))
    V = rng.standard_normal((C, p))
    w = rng.random(m) * scale
    threaded = _passes(A, lab, W, w, V)
    S, G, out = np.empty((m, C)), np.empty(W.shape), np.empty(W.shape)
    loss = exact_kernels.ce_grad_pass_serial(A, lab, W, w, S, G)
    exact_kernels.ce_hvp_pass_serial(A.astype(dtype), S, w, V, out)
    ref = np.empty(W.shape)
    ce_hvp_pass(A.astype(dtype), threaded[2], w, V, ref)
    assert loss == threaded[0]
    assert np.array_equal(G, threaded[1]) and np.array_equal(S, threaded[2])
    assert np.array_equal(out, ref)
    # the entry points pick the build by size, with the same result
    G2 = np.empty(W.shape)
    assert exact_kernels.grad_pass(A, lab, W, w, S, G2) == loss
    assert not exact_kernels.is_large(A, C)


def test_small_data_warms_up_only_the_serial_passes():
    small, large = np.empty((134, 13)), np.empty((20000, 784))
    assert exact_kernels.variants_for(3, small, small) == ("serial",)
    assert exact_kernels.variants_for(10, large, small) == (
        "serial", "threaded")
    with pytest.raises(ValueError, match="variants must be among"):
        exact_kernels.warm_up(("parallel",))


def test_pass_threads_follow_the_launchers_share(monkeypatch):
    monkeypatch.delenv(exact_kernels.THREADS_ENV, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a worker of -j N or dask
    assert exact_kernels.pass_threads() == 1
    monkeypatch.setenv(exact_kernels.THREADS_ENV, "2")
    assert exact_kernels.pass_threads() == min(
        2, numba.config.NUMBA_NUM_THREADS)
    monkeypatch.setenv(exact_kernels.THREADS_ENV, "two")
    with pytest.raises(ValueError, match="BILEVEL_METRIC_THREADS"):
        exact_kernels.pass_threads()


def test_an_unchanged_x_reuses_the_last_answer_without_a_pass():
    data = glm_data("datacleaning", n=25, m=30, p=4, C=3, seed=1)
    ex = GLMExact("datacleaning", data)
    x = np.random.default_rng(1).standard_normal(30)
    first = ex.solve(x)
    calls = []
    hvp = ex.P.hvp
    ex.P.hvp = lambda v: calls.append(1) or hvp(v)
    again = ex.solve(x.copy())
    assert calls == []
    for a, b in zip(first, again):
        assert np.array_equal(a, b)
    ex.solve(x + 1e-3)  # another x: solved
    assert calls


def _data():
    return glm_data("datacleaning", n=25, m=30, p=4, C=3, seed=2)


def test_prepared_builds_a_dataset_once_and_again_for_new_arrays():
    data = _data()
    problem, metrics = prepared(data)
    assert prepared(dict(data)) == (problem, metrics)  # same arrays
    other = dict(data, X_train=data["X_train"].copy())
    assert prepared(other)[0] is not problem
    assert len(prepared_mod._LAST) == 1  # only the last dataset is kept


def test_a_run_scores_the_same_after_another_run_in_the_process():
    from objective import Objective
    obj = Objective.get_instance()
    obj.get_seed = lambda use_repetition: 0  # benchopt's run context
    data = _data()
    rng = np.random.default_rng(3)
    x, y, z = (rng.standard_normal(k) for k in (30, 12, 12))

    def first_point_of_a_run():
        obj.set_data(**data)
        obj.get_objective()  # what benchopt calls at the start of a run
        return obj.evaluate_result(x, y, z, n_samples=0)

    first = first_point_of_a_run()
    obj.evaluate_result(x + 0.5, y, z, n_samples=10)  # its next point
    second = first_point_of_a_run()
    assert obj.metrics.exact.status["newton_steps"] > 0  # solved again
    for key in ("value", "grad_norm2", "inner_gap", "implicit_gap"):
        assert first[key] == second[key]


def test_references_are_computed_once_per_content(tmp_path):
    data = _data()
    calls = []

    def compute():
        calls.append(1)
        return {"ref_x0_value": 1.5, "ref_x0_test_error": np.nan}

    first = load_or_compute(data, compute, folder=tmp_path)
    again = load_or_compute(dict(data), compute, folder=tmp_path)
    assert calls == [1]
    assert again["ref_x0_value"] == 1.5 and np.isnan(
        again["ref_x0_test_error"])
    assert first.keys() == again.keys()
    changed = dict(data, y_train=data["y_train"][::-1].copy())
    assert data_key(changed) != data_key(data)
    load_or_compute(changed, compute, folder=tmp_path)
    assert calls == [1, 1]
    (entry,) = [p for p in tmp_path.iterdir()
                if p.stem == data_key(data)]
    assert json.loads(entry.read_text())["ref_x0_test_error"] is None


def test_a_store_that_cannot_be_written_computes_each_time(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    calls = []

    def compute():
        calls.append(1)
        return {"ref_x0_value": 2.0}

    for _ in range(2):
        assert load_or_compute(_data(), compute,
                               folder=blocked / "sub") == {
            "ref_x0_value": 2.0}
    assert calls == [1, 1]


def test_rounded_products_read_float32_features_in_float64_arithmetic():
    data = glm_data("datacleaning", n=20, m=200, p=9, C=3, seed=4)
    ex = GLMExact("datacleaning", data)
    x = np.random.default_rng(5).standard_normal(200)
    ex.P.value_grad(x, np.random.default_rng(6).standard_normal(27))
    v = np.random.default_rng(7).standard_normal(27)
    exact, rounded = ex.P.hvp(v), ex.P.hvp_rounded(v)
    gap = np.linalg.norm(rounded - exact) / np.linalg.norm(exact)
    assert 0.0 < gap < 1e-6  # the features' rounding, nothing more
    # features that float32 holds exactly: the same product up to the sum's
    # order
    data32 = dict(data, X_train=data["X_train"].astype(np.float32))
    ex32 = GLMExact("datacleaning", data32)
    ex32.P.value_grad(x, np.random.default_rng(6).standard_normal(27))
    np.testing.assert_allclose(ex32.P.hvp_rounded(v), ex32.P.hvp(v),
                               rtol=1e-13)


@pytest.mark.parametrize("task", ("multilogreg", "datacleaning"))
def test_float32_directions_keep_the_solves_tolerances(task):
    data = glm_data(task, n=30, m=120, p=6, C=3, seed=8)
    plain = GLMExact(task, data)
    rounded = GLMExact(task, data, products="float32")
    calls = []
    product = rounded.P.hvp_rounded
    rounded.P.hvp_rounded = lambda v: calls.append(1) or product(v)
    rng = np.random.default_rng(9)
    for _ in range(3):
        x = 0.5 * rng.standard_normal(plain.P.dim_x)
        if task == "multilogreg":
            x += np.log(0.1)
        a, b = plain.solve(x), rounded.solve(x)
        assert rounded.status["residual"] <= 1.0
        assert calls  # the Newton directions took the rounded products
        calls.clear()
        # both within their tolerance of the same y*, z*: far closer than
        # the 1e-7 of a float32 product
        for u, w in zip(a[:3], b[:3]):
            assert np.linalg.norm(u - w) <= 1e-9 * np.linalg.norm(u)


def test_products_names_the_allowed_values():
    with pytest.raises(ValueError, match="products must be one of"):
        GLMExact("datacleaning", glm_data("datacleaning"),
                 products="float16")


def test_the_metrics_take_float32_directions():
    from benchmark_utils.metrics import make_metrics
    metrics = make_metrics(glm_data("multilogreg"))
    assert metrics.exact.products == "float32"


@pytest.mark.parametrize("task", ("multilogreg", "datacleaning"))
def test_a_loose_z_solve_takes_the_rounded_products(task):
    """At a tuning trial's z tolerance (``ROUNDED_ZTOL`` or looser) z*(x)
    is solved over the float32 features, as the Newton directions are;
    at the benchmark's 1e-12 over the float64 ones.  Either way the
    float64 residual of z* meets its tolerance."""
    from benchmark_utils.exact_glm import ROUNDED_ZTOL
    data = glm_data(task, n=30, m=120, p=6, C=3, seed=8)
    x = 0.5 * np.random.default_rng(3).standard_normal(
        GLMExact(task, data).P.dim_x)
    if task == "multilogreg":
        x += np.log(0.1)
    for ztol, rounded_z in ((1e-3, True), (ROUNDED_ZTOL, True),
                            (1e-12, False)):
        ex = GLMExact(task, data, ztol=ztol, products="float32")
        ys = ex.y_star(x)
        _, rhs = ex.P.f_grad(ys)
        calls = []
        plain, rounded = ex.P.hvp, ex.P.hvp_rounded
        ex.P.hvp = lambda v: calls.append("float64") or plain(v)
        ex.P.hvp_rounded = lambda v: calls.append("float32") or rounded(v)
        ex._last, ex._y = None, ys  # solve y* again: no Newton step
        _, zs, _, _ = ex.solve(x)
        assert calls and set(calls) == {"float32" if rounded_z
                                        else "float64"}
        assert np.linalg.norm(plain(zs) - rhs) <= ztol * np.linalg.norm(rhs)


def test_an_evaluation_computes_only_the_columns_asked():
    """``only`` skips grad H's cross term and the error rates a criterion
    does not read; what it computes is bit for bit the full evaluation's,
    and grad H is formed later at the same x without solving again."""
    from benchmark_utils.metrics import evaluate, make_metrics
    data = glm_data("datacleaning", n=25, m=30, p=4, C=3, seed=4)
    rng = np.random.default_rng(4)
    x = rng.standard_normal(30)
    y, z = rng.standard_normal(12), rng.standard_normal(12)
    full = evaluate(make_metrics(data), x, y, z, 60)
    metrics = make_metrics(data)
    metrics.only(("value",))
    lean = evaluate(metrics, x, y, z, 60)
    skipped = {"grad_norm2", "train_error", "val_error", "test_error",
               "test_error_iterate"}
    assert set(full) - set(lean) == skipped
    assert lean["diverged"] == 0
    for key in lean:
        assert lean[key] == full[key] or (np.isnan(lean[key])
                                          and np.isnan(full[key])), key
    calls = []
    hvp = metrics.exact.P.hvp
    metrics.exact.P.hvp = lambda v: calls.append(1) or hvp(v)
    metrics.only(("val_error", "grad_norm2"))
    again = evaluate(metrics, x, y, z, 60)
    assert calls == []  # the same x: the last solves, the cross term only
    assert (again["val_error"], again["grad_norm2"]) == \
        (full["val_error"], full["grad_norm2"])
    assert "test_error" not in again
    metrics.only(None)
    assert set(evaluate(metrics, x, y, z, 60)) == set(full)
    with pytest.raises(ValueError, match="columns: unknown.*optional"):
        metrics.only(("value", "test_eror"))


def test_solves_warm_started_at_a_solution_take_no_newton_step():
    data = glm_data("datacleaning", n=25, m=30, p=4, C=3, seed=5)
    ex = GLMExact("datacleaning", data)
    x = np.random.default_rng(5).standard_normal(30)
    answer = ex.solve(x)
    saved = ex.solutions()
    ex.reset()
    ex.solve(x + 1.0)  # elsewhere
    ex.warm_start(*saved)
    again = ex.solve(x)
    assert ex.status["newton_steps"] == 0
    for a, b in zip(answer[:2], again[:2]):
        assert np.linalg.norm(a - b) <= 1e-9 * np.linalg.norm(a)
