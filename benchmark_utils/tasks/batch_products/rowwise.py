"""Batch products one class row at a time, four samples per pass over the
features (then one sample at a time).

Chosen for short rows (p < BLOCK_MIN_P) whose class rows do not fit the
LANES lanes (R > 16: more than 8 classes with a z group, more than 16
without), and for the last 1-7 samples of a long-row batch, too few for
the eight-sample kernels of ``long_rows``.  Each sum is one loop over
the features that LLVM vectorises as a reduction (``FAST``).
"""
from ...numba_cache import njit
from .common import FAST, row_offsets


@njit(cache=True, inline="always")
def class_dots_rowwise(X, idx, start, count, A, B, R, p, C, K):
    """``K[t, r] = <row r of [A; B], X[idx[start + t]]>`` for r < R, the
    rows of A then those of B."""
    on_a, on_b = row_offsets(C)
    _class_dots_rows(X, idx, start, count, A, p, C, K, on_a)
    if R > C:
        _class_dots_rows(X, idx, start, count, B, p, C, K, on_b)


@njit(cache=True, fastmath=FAST)
def _class_dots_rows(X, idx, start, count, W, p, C, K, off):
    """``K[t, off + c] = sum_k W[c p + k] X[idx[start + t], k]``, one class
    row at a time for four samples (the short-row path)."""
    t = 0
    while t + 4 <= count:
        x0 = X[idx[start + t]]
        x1 = X[idx[start + t + 1]]
        x2 = X[idx[start + t + 2]]
        x3 = X[idx[start + t + 3]]
        for c in range(C):
            wc = W[c * p:(c + 1) * p]
            s0 = 0.0
            s1 = 0.0
            s2 = 0.0
            s3 = 0.0
            for k in range(p):
                w = wc[k]
                s0 += w * x0[k]
                s1 += w * x1[k]
                s2 += w * x2[k]
                s3 += w * x3[k]
            K[t, off + c] = s0
            K[t + 1, off + c] = s1
            K[t + 2, off + c] = s2
            K[t + 3, off + c] = s3
        t += 4
    while t < count:
        xr = X[idx[start + t]]
        for c in range(C):
            wc = W[c * p:(c + 1) * p]
            s = 0.0
            for k in range(p):
                s += wc[k] * xr[k]
            K[t, off + c] = s
        t += 1


@njit(cache=True, fastmath=FAST)
def add_outer_rowwise(X, idx, start, count, p, C, first, second):
    """``out1[c p + k] += s1 sum_t K1[t, off1 + c] X[q_t, k]`` for ``first
    = (K1, off1, s1, out1)`` and the same for ``second`` (skipped when its
    ``s2 = 0``), one class row at a time for four samples (the short-row
    path)."""
    K1, off1, s1, out1 = first
    K2, off2, s2, out2 = second
    # out1's and out2's loops written out: a helper changed the compiled code
    t = 0
    while t + 4 <= count:
        x0 = X[idx[start + t]]
        x1 = X[idx[start + t + 1]]
        x2 = X[idx[start + t + 2]]
        x3 = X[idx[start + t + 3]]
        for c in range(C):
            a0 = s1 * K1[t, off1 + c]
            a1 = s1 * K1[t + 1, off1 + c]
            a2 = s1 * K1[t + 2, off1 + c]
            a3 = s1 * K1[t + 3, off1 + c]
            o1 = out1[c * p:(c + 1) * p]
            for k in range(p):
                o1[k] += a0 * x0[k] + a1 * x1[k] + a2 * x2[k] + a3 * x3[k]
            if s2 != 0.0:
                b0 = s2 * K2[t, off2 + c]
                b1 = s2 * K2[t + 1, off2 + c]
                b2 = s2 * K2[t + 2, off2 + c]
                b3 = s2 * K2[t + 3, off2 + c]
                o2 = out2[c * p:(c + 1) * p]
                for k in range(p):
                    o2[k] += (b0 * x0[k] + b1 * x1[k] + b2 * x2[k]
                              + b3 * x3[k])
        t += 4
    while t < count:
        xr = X[idx[start + t]]
        for c in range(C):
            a = s1 * K1[t, off1 + c]
            o1 = out1[c * p:(c + 1) * p]
            for k in range(p):
                o1[k] += a * xr[k]
            if s2 != 0.0:
                b = s2 * K2[t, off2 + c]
                o2 = out2[c * p:(c + 1) * p]
                for k in range(p):
                    o2[k] += b * xr[k]
        t += 1
