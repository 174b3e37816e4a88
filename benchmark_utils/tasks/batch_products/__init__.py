"""The batch products of the multiclass tasks: class dots and outer-product
accumulation over a stack of class rows, whatever the loss.

A model ``y = vec(W)`` with ``W`` of shape (C, p) is stored class-major:
``y[c * p + k]`` is the weight of feature k for class c, so that each
class is a contiguous row and every loop is a vectorisable length-p loop.
The products act on a stack of ``R`` class rows of length p: the C rows
of ``A`` then (``R = 2C``) the C rows of ``B`` -- ``[W]`` for a gradient,
``[W; Z]`` for a gradient and a Hessian-vector product -- and on a
batch's rows a_t = ``X[idx[start + t]]``:

    batch_class_dots      K[t, r] = <row r of [A; B], a_t>,  r < R
    batch_class_dots2     the same at two points, on the same rows
    batch_add_outer       row r of [O1; O2] += sum_t coef(t, r) a_t, the
                          coefficients of two groups of C rows, each a
                          tuple ``(K, off, s, O)``: coef(t, c) =
                          s K[t, off + c] into O_c
    batch_add_outer_one   one group of C rows: O_c += s sum_t K[t, off + c] a_t
    batch_add_outer_pair  one group each at two points, on the same rows
    any_nonzero           whether a group of coefficients has a nonzero
    row_offsets           (0, C), the coefficient groups' columns, as int64

Each entry takes one of three strategies, one module each, by the row
length p and the number of class rows (figures: docs/performance.md):

    p >= BLOCK_MIN_P             ``long_rows``: eight samples x two class
                                 rows per pass, in feature chunks (MNIST)
    p < BLOCK_MIN_P, R <= LANES  ``lanes``: the class rows as vector lanes
                                 (covtype)
    p < BLOCK_MIN_P, R > LANES   ``rowwise``: one class row at a time, four
                                 samples per pass (also a long-row batch's
                                 last 1-7 samples)
"""
from ...jit.scratch import LANES
from ...numba_cache import njit
from .common import BLOCK_MIN_P, FAST, row_offsets
from .lanes import add_outer_lanes, class_dots_lanes
from .long_rows import add_outer8, class_dots8
from .rowwise import add_outer_rowwise, class_dots_rowwise

__all__ = ["BLOCK_MIN_P", "any_nonzero", "batch_add_outer",
           "batch_add_outer_one", "batch_add_outer_pair", "batch_class_dots",
           "batch_class_dots2", "row_offsets"]


@njit(cache=True, fastmath=FAST)
def batch_class_dots(X, idx, start, count, A, B, R, p, C, K):
    """``K[t, r] = <row r of [A; B], X[idx[start + t]]>`` for r < R and the
    whole batch (``R = C``: A only; ``R = 2C``: A then B)."""
    if p < BLOCK_MIN_P:
        if R <= LANES:
            no_rows = R - R  # no second point (int64, as row_offsets)
            class_dots_lanes(X, idx, start, count, p, C, (A, B, R, K),
                             (A, B, no_rows, K))
        else:
            class_dots_rowwise(X, idx, start, count, A, B, R, p, C, K)
        return
    t = 0
    while t + 8 <= count:
        class_dots8(X, idx, start, A, B, R, p, C, K, t)
        t += 8
    if t < count:  # the last 1-7 samples
        class_dots_rowwise(X, idx, start + t, count - t, A, B, R, p, C,
                           K[t:])


@njit(cache=True)
def batch_class_dots2(X, idx, start, count, R, p, C, stack, stack2):
    """``batch_class_dots`` at two points on the same rows: ``stack = (A,
    B, K)``, the rows of ``[A; B]`` into ``K``, and ``stack2 = (A2, B2,
    K2)`` likewise (R rows each), with the numbers of two calls.  Short
    rows whose 2R class rows fit the LANES lanes (covtype's 7 + 7 UL rows)
    take one pass for both points, which reads the batch's fresh rows
    once; where 2R > LANES (covtype's 14 + 14 LL rows) one pass of 32 lanes
    costs as much as two calls."""
    A, B, K = stack
    A2, B2, K2 = stack2
    if p < BLOCK_MIN_P and 2 * R <= LANES:
        class_dots_lanes(X, idx, start, count, p, C, (A, B, R, K),
                         (A2, B2, R, K2))
    else:
        batch_class_dots(X, idx, start, count, A, B, R, p, C, K)
        batch_class_dots(X, idx, start, count, A2, B2, R, p, C, K2)


@njit(cache=True, fastmath=FAST)
def batch_add_outer(X, idx, start, count, R, p, C, first, second):
    """Add ``sum_t coef(t, r) X[idx[start + t]]`` to row r of ``[O1; O2]``
    for r < R, with ``coef(t, r) = s1 K1[t, off1 + r]`` (r < C) or ``s2
    K2[t, off2 + r - C]`` (r >= C); ``first = (K1, off1, s1, O1)``,
    ``second = (K2, off2, s2, O2)``."""
    two = R > C
    K1, off1, s1, O1 = first
    K2, off2, s2, O2 = second
    s2 = s2 if two else 0.0
    if p < BLOCK_MIN_P:
        if R <= LANES:
            add_outer_lanes(X, idx, start, count, p, C, first,
                            (K2, off2, s2, O2))
        else:
            add_outer_rowwise(X, idx, start, count, p, C, first,
                              (K2, off2, s2, O2))
        return
    t = 0
    while t + 8 <= count:
        add_outer8(X, idx, start, t, p, C, first, (K2, off2, s2, O2), two)
        t += 8
    if t < count:  # the last 1-7 samples
        add_outer_rowwise(X, idx, start + t, count - t, p, C,
                          (K1[t:], off1, s1, O1), (K2[t:], off2, s2, O2))


@njit(cache=True)
def batch_add_outer_one(X, idx, start, count, p, C, K, off, s, O):
    """``O_c += s sum_t K[t, off + c] X[idx[start + t]]`` for c < C: one
    group of class rows, for a pass that needs one output only
    (``batch_add_outer`` with R = C)."""
    batch_add_outer(X, idx, start, count, C, p, C, (K, off, s, O),
                    (K, off, 0.0, O))


@njit(cache=True, fastmath=FAST)
def batch_add_outer_pair(X, idx, start, count, p, C, first, second):
    """``batch_add_outer_one`` twice on the same rows, for the groups
    ``first = (K1, off1, s1, O1)`` and ``second = (K2, off2, s2, O2)`` (a
    joint evaluation's two points): one pass of 2C lanes when it fits,
    with the sums of the two separate calls."""
    if p < BLOCK_MIN_P and 2 * C <= LANES:
        add_outer_lanes(X, idx, start, count, p, C, first, second)
    else:
        K1, off1, s1, O1 = first
        K2, off2, s2, O2 = second
        batch_add_outer_one(X, idx, start, count, p, C, K1, off1, s1, O1)
        batch_add_outer_one(X, idx, start, count, p, C, K2, off2, s2, O2)


@njit(cache=True)
def any_nonzero(K, count, off, C):
    """Whether ``K[t, off + c]`` is nonzero for some t < count, c < C."""
    for t in range(count):
        for c in range(off, off + C):
            if K[t, c] != 0.0:
                return True
    return False
