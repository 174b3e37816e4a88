"""Batch products over long rows (p >= BLOCK_MIN_P: MNIST's 784
features), register-blocked: each pass over the features serves eight
samples and two class rows of the stack ``[A; B]``.

Every load of a data row then serves two class rows and every load of a
class row eight samples (about 0.6 loads per FMA instead of 1.25 one class
row at a time), and eight fresh rows are read side by side, which is what
bounds a pass over rows that are not in cache yet.  The features go in
chunks of equal length, multiples of 8, about ``CHUNK_P``, so that the
eight rows' chunk stays in L1 across all the class rows.  The eight
samples are eight named variables (``x0``..``x7``, their sums ``s0``..``s7``)
so that their pointers and sums stay in registers; inner loops run over
views indexed from 0, which numba vectorises.  A batch's last 1-7 samples
go one class row at a time (``rowwise``): the entries of the package
run ``class_dots8`` and ``add_outer8`` over the batch's groups of eight
samples and hand the rest to ``rowwise``.  Chosen for p >= BLOCK_MIN_P:
below it the blocked loops' remainders cost more than the loads they save
(figures: docs/performance.md).
"""
from ...jit.refcount import NO_REFCOUNT
from ...numba_cache import njit
from .common import FAST, row_offsets

# The feature chunks' length, about (MNIST's 784 features: three of 264).
CHUNK_P = 272


@njit(cache=True, inline="always")
def _chunk_len(p):
    """The length of the feature chunks: equal, multiples of 8, about
    CHUNK_P."""
    nch = (p + CHUNK_P - 1) // CHUNK_P
    return ((p + nch - 1) // nch + 7) // 8 * 8


@njit(cache=True, inline="always")
def _put8(K, t, r, first, s0, s1, s2, s3, s4, s5, s6, s7):
    """``K[t + i, r] = s_i`` on a row's first chunk, ``+= s_i`` on the
    others (i < 8)."""
    if first:
        K[t, r] = s0
        K[t + 1, r] = s1
        K[t + 2, r] = s2
        K[t + 3, r] = s3
        K[t + 4, r] = s4
        K[t + 5, r] = s5
        K[t + 6, r] = s6
        K[t + 7, r] = s7
    else:
        K[t, r] += s0
        K[t + 1, r] += s1
        K[t + 2, r] += s2
        K[t + 3, r] += s3
        K[t + 4, r] += s4
        K[t + 5, r] += s5
        K[t + 6, r] += s6
        K[t + 7, r] += s7


@njit(cache=True, fastmath=FAST, inline="always")
def _dots8x2(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
             first):
    """``K[t + i, col + c + j] (+)= <W_{c+j}, x_i>`` on one chunk, for the
    pair of class rows c, c + 1 (j < 2) and the eight rows (i < 8)."""
    wa = W[c * p + k0:c * p + k0 + n]
    wb = W[(c + 1) * p + k0:(c + 1) * p + k0 + n]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    u0 = u1 = u2 = u3 = u4 = u5 = u6 = u7 = 0.0
    for k in range(n):
        a0 = x0[k]
        a1 = x1[k]
        a2 = x2[k]
        a3 = x3[k]
        a4 = x4[k]
        a5 = x5[k]
        a6 = x6[k]
        a7 = x7[k]
        w = wa[k]
        s0 += w * a0
        s1 += w * a1
        s2 += w * a2
        s3 += w * a3
        s4 += w * a4
        s5 += w * a5
        s6 += w * a6
        s7 += w * a7
        w = wb[k]
        u0 += w * a0
        u1 += w * a1
        u2 += w * a2
        u3 += w * a3
        u4 += w * a4
        u5 += w * a5
        u6 += w * a6
        u7 += w * a7
    r = col + c
    _put8(K, t, r, first, s0, s1, s2, s3, s4, s5, s6, s7)
    _put8(K, t, r + 1, first, u0, u1, u2, u3, u4, u5, u6, u7)


@njit(cache=True, fastmath=FAST, inline="always")
def _dots8x1(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
             first):
    """``_dots8x2`` for the last class row alone (odd C)."""
    # a copy of the loop: _dots8x2 under a flag vectorised it otherwise
    wa = W[c * p + k0:c * p + k0 + n]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for k in range(n):
        w = wa[k]
        s0 += w * x0[k]
        s1 += w * x1[k]
        s2 += w * x2[k]
        s3 += w * x3[k]
        s4 += w * x4[k]
        s5 += w * x5[k]
        s6 += w * x6[k]
        s7 += w * x7[k]
    r = col + c
    _put8(K, t, r, first, s0, s1, s2, s3, s4, s5, s6, s7)


@njit(cache=True, fastmath=FAST, **NO_REFCOUNT)
def _dots8_rows(x0, x1, x2, x3, x4, x5, x6, x7, W, C, p, k0, n, K, t, col,
                first):
    """One chunk ``[k0, k0 + n)`` of ``K[t + i, col + c] = <W_c, x_i>`` for
    the eight rows, all classes (pairs of class rows, the last alone when
    C is odd).  Not inlined: the rows of A and of B call one compiled copy
    (``t`` and ``col`` arrive as int64 values, see ``class_dots8``)."""
    c = 0
    while c + 2 <= C:
        _dots8x2(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
                 first)
        c += 2
    if c < C:
        _dots8x1(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
                 first)


@njit(cache=True, fastmath=FAST, inline="always")
def class_dots8(X, idx, start, A, B, R, p, C, K, t):
    """``K[t + i, r]`` for the eight samples ``idx[start + t + i]``, r < R,
    chunk by chunk of the features (chunks of equal length, multiples of 8,
    about CHUNK_P)."""
    # int64 values, never literals: _dots8_rows is compiled once, not once
    # per literal (the first t is the literal 0)
    on_a, on_b = row_offsets(C)
    row = t + on_a
    # eight named rows: a helper returning them as a tuple changed the code
    r0 = X[idx[start + t]]
    r1 = X[idx[start + t + 1]]
    r2 = X[idx[start + t + 2]]
    r3 = X[idx[start + t + 3]]
    r4 = X[idx[start + t + 4]]
    r5 = X[idx[start + t + 5]]
    r6 = X[idx[start + t + 6]]
    r7 = X[idx[start + t + 7]]
    ch = _chunk_len(p)
    for k0 in range(0, p, ch):
        n = min(ch, p - k0)
        x0 = r0[k0:k0 + n]
        x1 = r1[k0:k0 + n]
        x2 = r2[k0:k0 + n]
        x3 = r3[k0:k0 + n]
        x4 = r4[k0:k0 + n]
        x5 = r5[k0:k0 + n]
        x6 = r6[k0:k0 + n]
        x7 = r7[k0:k0 + n]
        first = k0 == 0
        _dots8_rows(x0, x1, x2, x3, x4, x5, x6, x7, A, C, p, k0, n, K, row,
                    on_a, first)
        if R > C:
            _dots8_rows(x0, x1, x2, x3, x4, x5, x6, x7, B, C, p, k0, n, K,
                        row, on_b, first)


@njit(cache=True, inline="always")
def _coefs8(K, t, r, s):
    """The eight samples' scaled coefficients ``s K[t + i, r]``."""
    return (s * K[t, r], s * K[t + 1, r], s * K[t + 2, r], s * K[t + 3, r],
            s * K[t + 4, r], s * K[t + 5, r], s * K[t + 6, r],
            s * K[t + 7, r])


@njit(cache=True, inline="always")
def _sum8(a0, a1, a2, a3, a4, a5, a6, a7, u0, u1, u2, u3, u4, u5, u6, u7):
    """``sum_i a_i u_i`` as a balanced tree (three dependent adds, not
    eight)."""
    return (((a0 * u0 + a1 * u1) + (a2 * u2 + a3 * u3))
            + ((a4 * u4 + a5 * u5) + (a6 * u6 + a7 * u7)))


@njit(cache=True, fastmath=FAST, inline="always")
def _outer8x2(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, c, p, k0, n, t, col):
    """``O_{c+j} += s sum_i K[t + i, col + c + j] x_i`` on one chunk, for
    the pair of class rows c, c + 1 (j < 2) and the eight rows (i < 8)."""
    r = col + c
    a0, a1, a2, a3, a4, a5, a6, a7 = _coefs8(K, t, r, s)
    b0, b1, b2, b3, b4, b5, b6, b7 = _coefs8(K, t, r + 1, s)
    oa = O[c * p + k0:c * p + k0 + n]
    ob = O[(c + 1) * p + k0:(c + 1) * p + k0 + n]
    for k in range(n):
        u0 = x0[k]
        u1 = x1[k]
        u2 = x2[k]
        u3 = x3[k]
        u4 = x4[k]
        u5 = x5[k]
        u6 = x6[k]
        u7 = x7[k]
        oa[k] += _sum8(a0, a1, a2, a3, a4, a5, a6, a7,
                       u0, u1, u2, u3, u4, u5, u6, u7)
        ob[k] += _sum8(b0, b1, b2, b3, b4, b5, b6, b7,
                       u0, u1, u2, u3, u4, u5, u6, u7)


@njit(cache=True, fastmath=FAST, inline="always")
def _outer8x1(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, c, p, k0, n, t, col):
    """``_outer8x2`` for the last class row alone (odd C)."""
    a0, a1, a2, a3, a4, a5, a6, a7 = _coefs8(K, t, col + c, s)
    oa = O[c * p + k0:c * p + k0 + n]
    for k in range(n):
        # written out: through _sum8 float32 rows convert in another order
        oa[k] += (((a0 * x0[k] + a1 * x1[k]) + (a2 * x2[k] + a3 * x3[k]))
                  + ((a4 * x4[k] + a5 * x5[k]) + (a6 * x6[k] + a7 * x7[k])))


@njit(cache=True, fastmath=FAST, inline="always")
def _outer8_rows(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, C, p, k0, n, t,
                 col):
    """``O_c += s sum_i K[t + i, col + c] x_i`` on the features ``[k0, k0 +
    n)`` for the eight rows, all classes (pairs, the last alone).  Inlined
    (twice in ``add_outer8``): as a call, like ``_dots8_rows``, it cost the
    MNIST iterations more than the compile it saved
    (docs/architecture.md, "Compile time")."""
    c = 0
    while c + 2 <= C:
        _outer8x2(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, c, p, k0, n, t,
                  col)
        c += 2
    if c < C:
        _outer8x1(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, c, p, k0, n, t,
                  col)


@njit(cache=True, fastmath=FAST, inline="always")
def add_outer8(X, idx, start, t, p, C, first, second, two):
    """The products of the eight samples ``idx[start + t + i]`` for the
    group ``first = (K1, off1, s1, O1)`` (and ``second`` when ``two``),
    chunk by chunk of the features (as ``class_dots8``)."""
    K1, off1, s1, O1 = first
    K2, off2, s2, O2 = second
    # eight named rows: a helper returning them as a tuple changed the code
    r0 = X[idx[start + t]]
    r1 = X[idx[start + t + 1]]
    r2 = X[idx[start + t + 2]]
    r3 = X[idx[start + t + 3]]
    r4 = X[idx[start + t + 4]]
    r5 = X[idx[start + t + 5]]
    r6 = X[idx[start + t + 6]]
    r7 = X[idx[start + t + 7]]
    ch = _chunk_len(p)
    for k0 in range(0, p, ch):
        n = min(ch, p - k0)
        x0 = r0[k0:k0 + n]
        x1 = r1[k0:k0 + n]
        x2 = r2[k0:k0 + n]
        x3 = r3[k0:k0 + n]
        x4 = r4[k0:k0 + n]
        x5 = r5[k0:k0 + n]
        x6 = r6[k0:k0 + n]
        x7 = r7[k0:k0 + n]
        _outer8_rows(x0, x1, x2, x3, x4, x5, x6, x7, K1, s1, O1, C, p, k0, n,
                     t, off1)
        if two:
            _outer8_rows(x0, x1, x2, x3, x4, x5, x6, x7, K2, s2, O2, C, p, k0,
                         n, t, off2)
