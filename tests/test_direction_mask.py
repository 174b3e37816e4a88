"""Passes that need one direction only (the baselines' SGD steps on y and
Hessian-vector products, docs/baselines.md §1): an empty vector in the z
slot of ``coef`` (LL level) gives the gradient coefficients of a full call and zero z
coefficients, and ``apply`` with one output's coefficients all zero adds
exactly what the full call adds to the other output and nothing to it."""
import numpy as np
import pytest

from conftest import glm_data, problem_of
from benchmark_utils.tasks import dispatch
from benchmark_utils.tasks.dispatch import G
from benchmark_utils.simulated import make_quadratic

# (task, p): multiclass rows shorter and longer than BLOCK_MIN_P = 128 take
# the row-by-row and the register-blocked kernels
CASES = [("quadratic", None), ("logreg", 5), ("multilogreg", 5),
         ("multilogreg", 130), ("datacleaning", 5), ("datacleaning", 130)]


def _setup(task, p):
    if task == "quadratic":
        data = make_quadratic(n=40, m=50, dim_x=3, dim_y=4, seed=3)
    else:
        data = glm_data(task, p=p, C=4 if task != "logreg" else 3)
    P = problem_of(data)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(P.dim_x)
    y = rng.standard_normal(P.dim_y)
    z = rng.standard_normal(P.dim_y)
    idx = rng.permutation(P.Xg.shape[0])[:11].astype(np.int64)  # a tail
    return P, x, y, z, idx


def _grad_cols(task, P):
    """Columns of the LL coefficients that the y direction reads."""
    C = int(P.params[1]) if task in ("multilogreg", "datacleaning") else 1
    return list(range(C))


@pytest.mark.parametrize("task, p", CASES)
def test_empty_z_slot_gives_the_gradient_coefficients(task, p):
    P, x, y, z, idx = _setup(task, p)
    K = P.n_coef[1]
    full = np.full((len(idx), K), np.nan)
    only = np.full((len(idx), K), np.nan)
    dispatch.coef(P.code, G, P.Xg, P.yg, P.params, idx, 0, len(idx),
                  (x, y, z), full)
    dispatch.coef(P.code, G, P.Xg, P.yg, P.params, idx, 0, len(idx),
                  (x, y, np.zeros(0)), only)
    cols = _grad_cols(task, P)
    np.testing.assert_array_equal(only[:, cols], full[:, cols])
    rest = [c for c in range(K) if c not in cols]
    assert np.all(only[:, rest] == 0.0)


@pytest.mark.parametrize("task, p", CASES)
@pytest.mark.parametrize("which", ["y", "z"])
def test_one_output_pass_adds_exactly_that_output(task, p, which):
    P, x, y, z, idx = _setup(task, p)
    b = len(idx)
    K = np.zeros((b, P.n_coef[1]))
    dispatch.coef(P.code, G, P.Xg, P.yg, P.params, idx, 0, b, (x, y, z), K)
    zero = np.zeros_like(K)
    rng = np.random.default_rng(2)
    start = [rng.standard_normal(d) for d in (P.dim_x, P.dim_y, P.dim_y)]
    both = [v.copy() for v in start]
    dispatch.apply(P.code, G, P.Xg, P.yg, P.params, idx, 0, b, (zero, K, K),
                   tuple(both))
    one = [v.copy() for v in start]
    Cy, Cz = (K, zero) if which == "y" else (zero, K)
    dispatch.apply(P.code, G, P.Xg, P.yg, P.params, idx, 0, b,
                   (zero, Cy, Cz), tuple(one))
    k = 1 if which == "y" else 2
    np.testing.assert_array_equal(one[k], both[k])
    np.testing.assert_array_equal(one[3 - k], start[3 - k])
    np.testing.assert_array_equal(one[0], start[0])
