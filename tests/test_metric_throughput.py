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
