"""The batch products (``tasks.batch_products``) against plain NumPy: the
short-row kernels (p < BLOCK_MIN_P: class rows as lanes for R <= LANES, one
class row at a time beyond; p = 3 and 6, shorter than a products pass of 4
or 8 features, 13, 54 = covtype, 127 = the widest that fits the lanes'
scratch; C <= 8 takes the halves of the lanes) and the register-blocked
ones (pairs of class rows and a last single one for odd C, eight samples at
a time), with batch sizes that leave 0 to 7 samples outside the
eight-sample groups (those go one class row at a time) and one (70) past a
tile of 64; p = 601 takes three feature chunks (CHUNK_P), the last one
shorter.  Each test runs its whole grid of (C, R, batch size) for one width
and names the failing case."""
import itertools

import numpy as np
import pytest

from benchmark_utils.tasks.batch_products import BLOCK_MIN_P, \
    batch_add_outer, batch_add_outer_one, batch_class_dots, batch_class_dots2

WIDTHS = [3, 6, 13, 54, BLOCK_MIN_P - 1, BLOCK_MIN_P + 3, 601]
COUNTS = [1, 4, 6, 11, 15, 70]


def _stack(A, B, C, p, R):
    rows = [A.reshape(C, p), B.reshape(C, p)]
    return np.vstack(rows)[:R]


def _close(got, want, case):
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13,
                               err_msg=f"case {case}")


@pytest.mark.parametrize("p", WIDTHS)
def test_batch_class_dots_matches_numpy(p):
    for C, two, count in itertools.product([2, 3, 4, 5, 7, 10],
                                           [False, True], COUNTS):
        case = dict(C=C, two=two, count=count, p=p)
        rng = np.random.default_rng(C * 100 + count)
        n = count + 20
        X = rng.standard_normal((n, p))
        A, B = rng.standard_normal(C * p), rng.standard_normal(C * p)
        R = 2 * C if two else C
        idx = rng.permutation(n)
        start = 3
        K = np.full((count, 2 * C + 1), 7.0)
        batch_class_dots(X, idx, start, count, A, B, R, p, C, K)
        rows = X[idx[start:start + count]]
        _close(K[:, :R], rows @ _stack(A, B, C, p, R).T, case)
        assert np.all(K[:, R:] == 7.0), case  # columns past R untouched


@pytest.mark.parametrize("p", WIDTHS)
def test_batch_class_dots2_is_two_calls(p):
    """Two points on the same rows (covtype's u_k and u_{k-1}): bitwise
    the numbers of two ``batch_class_dots`` calls, whether the 2R class
    rows share one pass of lanes (2R <= 16: C = 2, 3, 7, 8 without z; C =
    2, 3 with) or not; columns past R untouched."""
    for C, two, count in itertools.product([2, 3, 7, 8, 10], [False, True],
                                           COUNTS):
        case = dict(C=C, two=two, count=count, p=p)
        rng = np.random.default_rng(C * 1000 + count + p)
        n = count + 20
        X = rng.standard_normal((n, p))
        A, B, A2, B2 = (rng.standard_normal(C * p) for _ in range(4))
        R = 2 * C if two else C
        idx = rng.permutation(n)
        start = 3
        want = [np.full((count, 2 * C + 1), 7.0) for _ in range(2)]
        batch_class_dots(X, idx, start, count, A, B, R, p, C, want[0])
        batch_class_dots(X, idx, start, count, A2, B2, R, p, C, want[1])
        got = [np.full((count, 2 * C + 1), 7.0) for _ in range(2)]
        batch_class_dots2(X, idx, start, count, R, p, C, (A, B, got[0]),
                          (A2, B2, got[1]))
        for g, w in zip(got, want):
            assert g.tobytes() == w.tobytes(), case
        rows = X[idx[start:start + count]]
        _close(got[1][:, :R], rows @ _stack(A2, B2, C, p, R).T, case)


@pytest.mark.parametrize("p", WIDTHS)
def test_batch_add_outer_matches_numpy(p):
    for C, two, count in itertools.product([2, 3, 4, 5, 7, 10],
                                           [False, True], COUNTS):
        case = dict(C=C, two=two, count=count, p=p)
        rng = np.random.default_rng(C * 100 + count + 1)
        n = count + 20
        X = rng.standard_normal((n, p))
        R = 2 * C if two else C
        K1 = rng.standard_normal((count, 2 * C + 1))
        K2 = rng.standard_normal((count, 2 * C + 1))
        s1, s2 = -1.5, 0.25
        O1, O2 = rng.standard_normal(C * p), rng.standard_normal(C * p)
        O1_0, O2_0 = O1.copy(), O2.copy()
        idx = rng.permutation(n)
        start = 2
        batch_add_outer(X, idx, start, count, R, p, C, (K1, 0, s1, O1),
                        (K2, C, s2, O2))
        rows = X[idx[start:start + count]]
        coef = np.hstack([s1 * K1[:, :C], s2 * K2[:, C:2 * C]])[:, :R]
        add = np.zeros((2 * C, p))
        add[:R] = coef.T @ rows
        _close(O1, O1_0 + add[:C].ravel(), case)
        _close(O2, O2_0 + add[C:].ravel(), case)


@pytest.mark.parametrize("p", WIDTHS)
def test_batch_add_outer_one_matches_numpy(p):
    for C, off, count in itertools.product([2, 7, 10, 17], [0, 1], COUNTS):
        case = dict(C=C, off=off, count=count, p=p)
        rng = np.random.default_rng(C * 100 + count + 2)
        n = count + 20
        X = rng.standard_normal((n, p))
        K = rng.standard_normal((count, C + off))
        O = rng.standard_normal(C * p)
        O_0 = O.copy()
        idx = rng.permutation(n)
        batch_add_outer_one(X, idx, 5, count, p, C, K, off, 0.5, O)
        rows = X[idx[5:5 + count]]
        _close(O, O_0 + (0.5 * K[:, off:].T @ rows).ravel(), case)


def test_the_eight_sample_dots_are_never_specialised_on_a_literal():
    """numba compiles a function once per literal argument: a literal
    offset or sample index reaching the eight-sample dots kernel (the first
    t is the literal 0, the rows of A start at offset 0) compiled it four
    times per task.  Called, as the core calls them, with literal
    arguments, they take int64 values only.  (Fresh, uncached copies of
    the products: a cached caller would not type its callees again.)"""
    from numba import njit, types

    from benchmark_utils.tasks import batch_products as bp
    from benchmark_utils.tasks.batch_products import long_rows
    dots = njit(bp.batch_class_dots.py_func)
    outer = njit(bp.batch_add_outer.py_func)

    @njit
    def as_the_core_calls(X, idx, A, B, K, O, R, p, C):
        # sizes as values (they come from the records), the rest literal
        dots(X, idx, 0, 16, A, B, R, p, C, K)
        outer(X, idx, 0, 16, R, p, C, (K, 0, 1.0, O), (K, 3, -1.0, O))

    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 131))
    A, B = rng.standard_normal(3 * 131), rng.standard_normal(3 * 131)
    K = np.zeros((16, 6))
    O = np.zeros(6 * 131)
    as_the_core_calls(X, np.arange(20), A, B, K, O, 6, 131, 3)
    rows = X[:16]
    _close(K, rows @ _stack(A, B, 3, 131, 6).T, "dots")
    assert long_rows._dots8_rows.signatures
    for sig in long_rows._dots8_rows.signatures:
        assert not any(isinstance(a, types.Literal) for a in sig), sig
