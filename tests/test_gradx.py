"""The F2SA oracle grad_x g (Kwon et al., ICML 2023): ``dispatch.gradx_g``
(data part, c sum_t grad_x G_{idx[start + t]}, added) and
``dispatch.reg_gradx`` (exact regularisation, written) against central
finite differences of plain NumPy transcriptions of each task's g."""
import numpy as np
import pytest

from benchmark_utils.tasks import dispatch
from benchmark_utils.simulated import make_quadratic
from conftest import fd_grad, glm_data, problem_of

TASKS = ("quadratic", "logreg", "multilogreg", "datacleaning")


def problem(task):
    if task == "quadratic":
        return problem_of(make_quadratic(n=40, m=50, dim_x=3, dim_y=4,
                                         seed=3))
    return problem_of(glm_data(task))


def _lse(u):
    mx = u.max(axis=1, keepdims=True)
    return (mx + np.log(np.exp(u - mx).sum(axis=1, keepdims=True)))[:, 0]


def _ce(P, J, y):
    """CE(W a_j, b_j) for j in J, W = y reshaped (C, p) class-major."""
    p, C = int(P.params[0]), int(P.params[1])
    W = y.reshape(C, p)
    u = P.Xg[J] @ W.T
    return _lse(u) - u[np.arange(len(J)), P.yg[J].astype(int)]


def g_batch(P, J, x, y):
    """(1/|J|) sum_{j in J} G_j(x, y) + R(x, y), from the task definitions
    (the module docstrings), in NumPy."""
    if P.task == "quadratic":
        dy = int(P.params[1])
        ridge = P.params[2]
        A, Cm = P.Xg[J, :dy], P.Xg[J, dy:]
        r = A @ y - Cm @ x - P.yg[J]
        return np.mean(0.5 * r ** 2) + 0.5 * ridge * y @ y
    if P.task == "logreg":
        margin = P.yg[J] * (P.Xg[J] @ y)
        return (np.mean(np.logaddexp(0.0, -margin))
                + 0.5 * np.sum(np.exp(x) * y ** 2))
    if P.task == "multilogreg":
        p, C = int(P.params[0]), int(P.params[1])
        W = y.reshape(C, p)
        return (np.mean(_ce(P, J, y))
                + np.sum(np.exp(x) * np.sum(W ** 2, axis=1)))
    if P.task == "datacleaning":
        sig = 1.0 / (1.0 + np.exp(-x[J]))
        return np.mean(sig * _ce(P, J, y)) + P.params[2] * y @ y
    raise AssertionError(P.task)


def point(P, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(P.dim_x), rng.standard_normal(P.dim_y)


def batch_idx(P, seed=0):
    """An index array of 2 m entries (a permutation, then random draws with
    repetitions): slices of it include repeated samples."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(P.m),
                           rng.integers(0, P.m, P.m)]).astype(np.int64)


def gradx(P, idx, start, count, x, y, c, ox=None):
    ox = np.zeros(P.dim_x) if ox is None else ox
    dispatch.gradx_g(P.code, P.Xg, P.yg, P.params, idx, start, count, x, y,
                     c, ox)
    return ox


@pytest.mark.parametrize("task", TASKS)
def test_gradx_matches_finite_differences(task):
    P = problem(task)
    x, y = point(P)
    idx = batch_idx(P)
    for start, count in ((0, P.m), (P.m - 7, 19), (5, 1)):
        J = idx[start:start + count]
        ox = gradx(P, idx, start, count, x, y, 1.0 / count)
        rx = np.full(P.dim_x, np.nan)
        dispatch.reg_gradx(P.code, P.params, x, y, rx)
        assert np.all(np.isfinite(rx)), "reg_gradx writes every entry"
        fd = fd_grad(lambda u: g_batch(P, J, u, y), x.copy())
        np.testing.assert_allclose(ox + rx, fd, rtol=1e-6,
                                   atol=1e-9 * max(1.0, np.abs(fd).max()))
        if task in ("quadratic", "datacleaning"):
            assert np.any(ox != 0), "the data part depends on x"
        else:
            assert np.all(ox == 0), "the data part has no x"


@pytest.mark.parametrize("task", TASKS)
def test_weight_scales_linearly_and_output_is_added_to(task):
    P = problem(task)
    x, y = point(P, 1)
    idx = batch_idx(P, 1)
    one = gradx(P, idx, 3, 17, x, y, 1.0)
    np.testing.assert_allclose(gradx(P, idx, 3, 17, x, y, 2.5), 2.5 * one,
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gradx(P, idx, 3, 17, x, y, -0.3), -0.3 * one,
                               rtol=1e-13, atol=1e-15)
    assert np.all(gradx(P, idx, 3, 17, x, y, 0.0) == 0)
    base = np.random.default_rng(2).standard_normal(P.dim_x)
    added = gradx(P, idx, 3, 17, x, y, 1.0, base.copy())
    np.testing.assert_allclose(added, base + one, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("task", TASKS)
def test_start_and_count_select_the_slice(task):
    P = problem(task)
    x, y = point(P, 2)
    idx = batch_idx(P, 2)
    start, count = 11, 23
    J = np.ascontiguousarray(idx[start:start + count])
    got = gradx(P, idx, start, count, x, y, 0.7)
    ref = gradx(P, J, 0, count, x, y, 0.7)
    np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-15)
    # one sample at a time, in any order, adds up to the same
    ref1 = np.zeros(P.dim_x)
    for j in J[::-1]:
        gradx(P, np.array([j], dtype=np.int64), 0, 1, x, y, 0.7, ref1)
    np.testing.assert_allclose(got, ref1, rtol=1e-12, atol=1e-14)
    assert np.all(gradx(P, idx, start, 0, x, y, 0.7) == 0), "count = 0"
    if task == "datacleaning":  # only the coordinates of the slice move
        outside = np.setdiff1d(np.arange(P.m), J)
        assert np.all(got[outside] == 0) and np.all(got[np.unique(J)] != 0)


@pytest.mark.parametrize("task", TASKS)
def test_two_halves_add_up_to_the_whole(task):
    P = problem(task)
    x, y = point(P, 3)
    idx = batch_idx(P, 3)
    start, count, half = 4, 30, 13
    whole = gradx(P, idx, start, count, x, y, 1.0 / count)
    parts = gradx(P, idx, start, half, x, y, 1.0 / count)
    gradx(P, idx, start + half, count - half, x, y, 1.0 / count, parts)
    np.testing.assert_allclose(parts, whole, rtol=1e-12, atol=1e-15)


def test_datacleaning_cross_entropy_is_stable():
    """Logits in the thousands: the per-sample loss stays finite and equals
    the max-shifted NumPy value."""
    P = problem("datacleaning")
    x, y = point(P, 4)
    y *= 1e3
    idx = np.arange(P.m, dtype=np.int64)
    ox = gradx(P, idx, 0, P.m, x, y, 1.0)
    sig = 1.0 / (1.0 + np.exp(-x))
    ref = sig * (1.0 - sig) * _ce(P, idx, y)
    assert np.all(np.isfinite(ox))
    np.testing.assert_allclose(ox, ref, rtol=1e-10)
