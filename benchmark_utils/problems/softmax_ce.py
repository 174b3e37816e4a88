"""Pieces of the softmax cross-entropy on a class-major y: per-sample
coefficients (``batch_grad_coef``, ``hvp_coef_label``) and the batch products
(``batch_class_dots``, ``batch_add_outer2``).

The model is ``y = vec(W)`` with ``W`` of shape (C, p) stored class-major:
``y[c * p + k]`` is the weight of feature k for class c (the math's
(features x classes) matrix, transposed so that each class is a contiguous
row and every loop below is a vectorisable length-p loop).  For a sample
(a, b): logits u = W a, probabilities s = softmax(u),

    grad_W CE = (s - e_b) a^T,
    hess_WW CE [V] = (diag(s) - s s^T)(V a) a^T.

The batch products act on a stack of ``R`` class rows of length p: the C
rows of ``A`` then (``R = 2C``) the C rows of ``B`` -- ``[W]`` for a
gradient, ``[W; Z]`` for a gradient and a Hessian-vector product.  They are
register-blocked: each pass over k serves eight samples and two class rows
(the last 1-7 samples of a batch go one class row at a time, as short
rows do), so every load of a data row serves two class rows and every load
of a class row eight samples (about 0.6 loads per FMA instead of 1.25 with
one class row at a time), and the features go in chunks (``CHUNK_P``) so
that the rows' chunk stays in L1 across the class rows; MNIST runs at
about 85 % of OpenBLAS's float64 GEMM rate.  Inner loops run over views
indexed from 0, which numba vectorises.  Short rows
(p < BLOCK_MIN_P, covtype's 54) with at most LANES = 16 class rows take
the class rows as vector lanes instead (``_class_dots_lanes``,
``_add_outer_lanes``; see there); with at most 8 class rows each half of
the lanes serves its own samples (features), and ``batch_class_dots2``
puts two points' rows side by side in the lanes.
"""

from ..core.jit import NO_REFCOUNT
from ..numba_cache import njit
from ..prefetch import prefetch_row
from .scratch import LANES, MAX_C, TILE, WIDE, stack_scratch, wide_scratch
from .stable import exp_vec, softmax_row

_FAST = {"reassoc", "contract", "nsz"}

# --------------------------------------------------------------------------
# The softmax of a batch, vectorised across samples
# --------------------------------------------------------------------------


@njit(cache=True, fastmath={"contract"})
def batch_softmax(K, count, off, C):
    """Replace ``K[t, off:off + C]`` (logits) by their softmax for every
    t < count, as ``softmax_row`` does row by row (the same max, the same
    sums in the same order, the same divisions) but with the samples as
    vector lanes: a tile of 64 rows is transposed to (C x 64) on the stack,
    so the exponentials (``exp_vec``, within 1 ulp of glibc's) vectorise
    (covtype, C = 7: 0.8 against 1.7 us per 64 rows).  The scratch is a
    raw pointer (``buf[i]``): the core compiles without numba's runtime,
    which cannot hand out an array it did not receive."""
    if C > MAX_C or count < 8:  # short batches: the transposes cost more
        for t in range(count):
            softmax_row(K, t, off, C)
        return
    buf = stack_scratch()  # rows c * TILE + i, then the max, the sum
    mx = TILE * MAX_C
    sm = TILE * (MAX_C + 1)
    for t0 in range(0, count, TILE):
        n = min(TILE, count - t0)
        for c in range(C):
            for i in range(n):
                buf[c * TILE + i] = K[t0 + i, off + c]
        for i in range(n):
            buf[mx + i] = buf[i]
        for c in range(1, C):
            for i in range(n):
                v = buf[c * TILE + i]
                if v > buf[mx + i]:
                    buf[mx + i] = v
        for i in range(n):
            buf[sm + i] = 0.0
        for c in range(C):
            for i in range(n):
                e = exp_vec(buf[c * TILE + i] - buf[mx + i])
                buf[c * TILE + i] = e
                buf[sm + i] += e
        for c in range(C):
            for i in range(n):
                K[t0 + i, off + c] = buf[c * TILE + i] / buf[sm + i]


@njit(cache=True)
def batch_grad_coef(K, count, C, labels, idx, start):
    """Logits in ``K[t, :C]`` -> ``s - e_b`` for the batch's rows t <
    count, b = ``labels[idx[start + t]]`` (the losses themselves are the
    metrics' business: ``exact_kernels``)."""
    batch_softmax(K, count, 0, C)
    for t in range(count):
        K[t, int(labels[idx[start + t]])] -= 1.0


@njit(cache=True, inline="always")
def hvp_coef_label(K, t, off_g, off_v, C, label):
    """``K[t, off_g:off_g+C] = s - e_label``, ``K[t, off_v:off_v+C] = v``
    -> ``K[t, off_v:off_v+C] = s * v - s (s.v)``.  Inlined into the
    per-sample loop of its caller (as a call it took 10 % of MRBO's
    iteration on covtype)."""
    sv = 0.0
    for c in range(C):
        s = K[t, off_g + c] + (1.0 if c == label else 0.0)
        sv += s * K[t, off_v + c]
    for c in range(C):
        s = K[t, off_g + c] + (1.0 if c == label else 0.0)
        K[t, off_v + c] = s * (K[t, off_v + c] - sv)


# Rows shorter than this take the one-class-row-at-a-time kernels: with few
# k iterations the remainders of the blocked loops cost more than the loads
# that blocking saves (covtype, p = 54: 1.5-2x slower blocked; MNIST,
# p = 784: 1.3-1.7x faster blocked).
BLOCK_MIN_P = 128
assert BLOCK_MIN_P * LANES <= WIDE  # a short-row W^T fits the wide scratch


# Long rows, eight samples at a time (``_dots8``): each pass over k serves
# eight samples and two class rows (16 accumulators), so the first pass
# over fresh rows has eight of them in flight instead of four, and the
# features go in chunks of about CHUNK_P so that the eight rows' chunk stays
# in L1 across all the class rows.  MNIST (p = 784, three chunks of 264),
# 64 fresh rows, Zen 4: R = 10 44.4 -> 37.8 us, R = 20 68.7 -> 58.5 us.
CHUNK_P = 272


@njit(cache=True, inline="always")
def _put(K, t, r, v, first):
    """``K[t, r] = v`` on a row's first chunk, ``+= v`` on the others."""
    if first:
        K[t, r] = v
    else:
        K[t, r] += v


@njit(cache=True, fastmath=_FAST, inline="always")
def _dots8x2(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
             first):
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
    _put(K, t, r, s0, first)
    _put(K, t + 1, r, s1, first)
    _put(K, t + 2, r, s2, first)
    _put(K, t + 3, r, s3, first)
    _put(K, t + 4, r, s4, first)
    _put(K, t + 5, r, s5, first)
    _put(K, t + 6, r, s6, first)
    _put(K, t + 7, r, s7, first)
    _put(K, t, r + 1, u0, first)
    _put(K, t + 1, r + 1, u1, first)
    _put(K, t + 2, r + 1, u2, first)
    _put(K, t + 3, r + 1, u3, first)
    _put(K, t + 4, r + 1, u4, first)
    _put(K, t + 5, r + 1, u5, first)
    _put(K, t + 6, r + 1, u6, first)
    _put(K, t + 7, r + 1, u7, first)


@njit(cache=True, fastmath=_FAST, inline="always")
def _dots8x1(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
             first):
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
    _put(K, t, r, s0, first)
    _put(K, t + 1, r, s1, first)
    _put(K, t + 2, r, s2, first)
    _put(K, t + 3, r, s3, first)
    _put(K, t + 4, r, s4, first)
    _put(K, t + 5, r, s5, first)
    _put(K, t + 6, r, s6, first)
    _put(K, t + 7, r, s7, first)


@njit(cache=True, fastmath=_FAST, **NO_REFCOUNT)
def _dots8_rows(x0, x1, x2, x3, x4, x5, x6, x7, W, C, p, k0, n, K, t, col,
                first):
    """One chunk ``[k0, k0 + n)`` of ``K[t + i, col + c] = <W_c, x_i>`` for
    the eight rows, all classes (pairs of class rows, the last alone when
    C is odd).  Not inlined: the rows of A and of B call one compiled copy
    (``t`` and ``col`` arrive as int64 values, see ``_dots8``)."""
    c = 0
    while c + 2 <= C:
        _dots8x2(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
                 first)
        c += 2
    if c < C:
        _dots8x1(x0, x1, x2, x3, x4, x5, x6, x7, W, c, p, k0, n, K, t, col,
                 first)


@njit(cache=True, fastmath=_FAST, inline="always")
def _dots8(X, idx, start, A, B, R, p, C, K, t):
    """``K[t + i, r]`` for the eight samples ``idx[start + t + i]``, r < R,
    chunk by chunk of the features (chunks of equal length, multiples of 8,
    about CHUNK_P)."""
    # int64 values, never literals: _dots8_rows is compiled once, not once
    # per literal (the first t is the literal 0)
    on_a, on_b = row_offsets(C)
    row = t + on_a
    r0 = X[idx[start + t]]
    r1 = X[idx[start + t + 1]]
    r2 = X[idx[start + t + 2]]
    r3 = X[idx[start + t + 3]]
    r4 = X[idx[start + t + 4]]
    r5 = X[idx[start + t + 5]]
    r6 = X[idx[start + t + 6]]
    r7 = X[idx[start + t + 7]]
    nch = (p + CHUNK_P - 1) // CHUNK_P
    ch = ((p + nch - 1) // nch + 7) // 8 * 8
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
def _rowwise_dots(X, idx, start, count, A, B, R, p, C, K):
    on_a, on_b = row_offsets(C)
    _class_dots_rowwise(X, idx, start, count, A, p, C, K, on_a)
    if R > C:
        _class_dots_rowwise(X, idx, start, count, B, p, C, K, on_b)


@njit(cache=True, fastmath=_FAST)
def batch_class_dots(X, idx, start, count, A, B, R, p, C, K):
    """``K[t, r] = <row r of [A; B], X[idx[start + t]]>`` for r < R and the
    whole batch (``R = C``: A only; ``R = 2C``: A then B)."""
    if p < BLOCK_MIN_P:
        if R <= LANES:
            no_rows = R - R  # no second point (int64, as row_offsets)
            _class_dots_lanes(X, idx, start, count, A, B, R, p, C, K, A, B,
                              no_rows, K)
        else:
            _rowwise_dots(X, idx, start, count, A, B, R, p, C, K)
        return
    t = 0
    while t + 8 <= count:
        _dots8(X, idx, start, A, B, R, p, C, K, t)
        t += 8
    if t < count:  # the last 1-7 samples
        _rowwise_dots(X, idx, start + t, count - t, A, B, R, p, C, K[t:])


@njit(cache=True)
def batch_class_dots2(X, idx, start, count, A, B, A2, B2, R, p, C, K, K2):
    """``batch_class_dots`` at two points on the same rows: ``[A; B]`` into
    ``K``, ``[A2; B2]`` into ``K2`` (R rows each).  Short rows whose 2R
    class rows fit the LANES lanes (covtype's 7 + 7 UL rows) take one pass
    for both points, which reads the batch's fresh rows once: in cache it
    is about as fast as two 8-sample passes (3.1 against 3.4 us for 64
    covtype rows, Zen 4), in the engine it saves the second pass over rows
    that are still arriving (SPABA's covtype non-full iteration 31 -> 29
    us, MSEBA 36 -> 34).  Each lane sums in the order of the one-point
    kernel: the numbers are bitwise those of two calls.  Where 2R > LANES
    (covtype's 14 + 14 LL rows), 32 lanes in one pass were tried: the
    lanes are full there and the pass cost as much as two calls (6.6
    against 6.8 us)."""
    if p < BLOCK_MIN_P and 2 * R <= LANES:
        _class_dots_lanes(X, idx, start, count, A, B, R, p, C, K, A2, B2, R,
                          K2)
    else:
        batch_class_dots(X, idx, start, count, A, B, R, p, C, K)
        batch_class_dots(X, idx, start, count, A2, B2, R, p, C, K2)


@njit(cache=True, fastmath=_FAST, inline="always")
def _outer8x2(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, c, p, k0, n, t, col):
    r = col + c
    a0 = s * K[t, r]
    a1 = s * K[t + 1, r]
    a2 = s * K[t + 2, r]
    a3 = s * K[t + 3, r]
    a4 = s * K[t + 4, r]
    a5 = s * K[t + 5, r]
    a6 = s * K[t + 6, r]
    a7 = s * K[t + 7, r]
    b0 = s * K[t, r + 1]
    b1 = s * K[t + 1, r + 1]
    b2 = s * K[t + 2, r + 1]
    b3 = s * K[t + 3, r + 1]
    b4 = s * K[t + 4, r + 1]
    b5 = s * K[t + 5, r + 1]
    b6 = s * K[t + 6, r + 1]
    b7 = s * K[t + 7, r + 1]
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
        oa[k] += (((a0 * u0 + a1 * u1) + (a2 * u2 + a3 * u3))
                  + ((a4 * u4 + a5 * u5) + (a6 * u6 + a7 * u7)))
        ob[k] += (((b0 * u0 + b1 * u1) + (b2 * u2 + b3 * u3))
                  + ((b4 * u4 + b5 * u5) + (b6 * u6 + b7 * u7)))


@njit(cache=True, fastmath=_FAST, inline="always")
def _outer8x1(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, c, p, k0, n, t, col):
    r = col + c
    a0 = s * K[t, r]
    a1 = s * K[t + 1, r]
    a2 = s * K[t + 2, r]
    a3 = s * K[t + 3, r]
    a4 = s * K[t + 4, r]
    a5 = s * K[t + 5, r]
    a6 = s * K[t + 6, r]
    a7 = s * K[t + 7, r]
    oa = O[c * p + k0:c * p + k0 + n]
    for k in range(n):
        oa[k] += (((a0 * x0[k] + a1 * x1[k]) + (a2 * x2[k] + a3 * x3[k]))
                  + ((a4 * x4[k] + a5 * x5[k]) + (a6 * x6[k] + a7 * x7[k])))


@njit(cache=True, fastmath=_FAST, inline="always")
def _outer8_rows(x0, x1, x2, x3, x4, x5, x6, x7, K, s, O, C, p, k0, n, t,
                 col):
    """``O_c += s sum_i K[t + i, col + c] x_i`` on the features ``[k0, k0 +
    n)`` for the eight rows, all classes (pairs, the last alone).  Inlined
    (twice in ``_outer8``): as a call, like ``_dots8_rows``, it cost the
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


@njit(cache=True, fastmath=_FAST, inline="always")
def _outer8(X, idx, start, t, p, C, K1, off1, s1, O1, K2, off2, s2, O2,
            two):
    """The products of the eight samples ``idx[start + t + i]`` into O1
    (and O2 when ``two``), chunk by chunk of the features (as ``_dots8``;
    MNIST, 64 rows in cache, Zen 4: R = 10 26.5 -> 24.7 us, R = 20 50.5 ->
    48.7 against four samples at a time)."""
    r0 = X[idx[start + t]]
    r1 = X[idx[start + t + 1]]
    r2 = X[idx[start + t + 2]]
    r3 = X[idx[start + t + 3]]
    r4 = X[idx[start + t + 4]]
    r5 = X[idx[start + t + 5]]
    r6 = X[idx[start + t + 6]]
    r7 = X[idx[start + t + 7]]
    nch = (p + CHUNK_P - 1) // CHUNK_P
    ch = ((p + nch - 1) // nch + 7) // 8 * 8
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


@njit(cache=True, fastmath=_FAST)
def batch_add_outer(X, idx, start, count, R, p, C, K1, off1, s1, O1, K2,
                    off2, s2, O2):
    """Add ``sum_t coef(t, r) X[idx[start + t]]`` to row r of ``[O1; O2]``
    for r < R, with ``coef(t, r) = s1 K1[t, off1 + r]`` (r < C) or ``s2
    K2[t, off2 + r - C]`` (r >= C)."""
    two = R > C
    s2 = s2 if two else 0.0
    if p < BLOCK_MIN_P:
        if R <= LANES:
            _add_outer_lanes(X, idx, start, count, p, C, K1, off1, s1, O1,
                             K2, off2, s2, O2)
        else:
            _add_outer_rowwise(X, idx, start, count, p, C, K1, off1, s1, O1,
                               K2, off2, s2, O2)
        return
    t = 0
    while t + 8 <= count:
        _outer8(X, idx, start, t, p, C, K1, off1, s1, O1, K2, off2, s2, O2,
                two)
        t += 8
    if t < count:  # the last 1-7 samples
        _add_outer_rowwise(X, idx, start + t, count - t, p, C, K1[t:], off1,
                           s1, O1, K2[t:], off2, s2, O2)


@njit(cache=True)
def batch_add_outer_one(X, idx, start, count, p, C, K, off, s, O):
    """``O_c += s sum_t K[t, off + c] X[idx[start + t]]`` for c < C: one
    group of class rows, for a pass that needs one output only
    (``batch_add_outer`` with R = C)."""
    batch_add_outer(X, idx, start, count, C, p, C, K, off, s, O, K, off,
                    0.0, O)


@njit(cache=True, fastmath=_FAST)
def batch_add_outer_pair(X, idx, start, count, p, C, K1, off1, s, O1, K2,
                         off2, O2):
    """``batch_add_outer_one`` twice on the same rows, ``O1`` from ``K1``
    and ``O2`` from ``K2`` (a joint evaluation's two points): one pass of
    2C lanes when it fits, with the sums of the two separate calls."""
    if p < BLOCK_MIN_P and 2 * C <= LANES:
        _add_outer_lanes(X, idx, start, count, p, C, K1, off1, s, O1, K2,
                         off2, s, O2)
    else:
        batch_add_outer_one(X, idx, start, count, p, C, K1, off1, s, O1)
        batch_add_outer_one(X, idx, start, count, p, C, K2, off2, s, O2)


@njit(cache=True, inline="always")
def row_offsets(C):
    """(0, C): the columns where a coefficient row's y and z groups start,
    both typed int64 (a literal 0 would compile a second specialisation of
    every kernel it is passed to)."""
    return C - C, C


@njit(cache=True)
def any_nonzero(K, count, off, C):
    """Whether ``K[t, off + c]`` is nonzero for some t < count, c < C."""
    for t in range(count):
        for c in range(off, off + C):
            if K[t, c] != 0.0:
                return True
    return False


@njit(cache=True, fastmath=_FAST)
def _class_dots_rowwise(X, idx, start, count, W, p, C, K, off):
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


@njit(cache=True, fastmath=_FAST)
def _add_outer_rowwise(X, idx, start, count, p, C, K1, off1, s1, out1,
                       K2, off2, s2, out2):
    """``out1[c p + k] += s1 sum_t K1[t, off1 + c] X[q_t, k]`` and the same
    for ``out2`` (skipped when ``s2 = 0``), one class row at a time for four
    samples (the short-row path)."""
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


# --------------------------------------------------------------------------
# Short rows (p < BLOCK_MIN_P) with at most LANES class rows: the class rows
# as vector lanes
# --------------------------------------------------------------------------
#
# On covtype (p = 54, C = 7) a loop over k has 54 iterations: six vectors
# and a scalar remainder of six, then a horizontal sum, for each of the 7
# (14) class rows and four samples.  Here the 16 lanes of a vector are the
# class rows instead: one pass over k per four samples (or, for the
# products, per four features) adds a broadcast data value times 16 class
# values, with no remainder and no horizontal sum (64 rows of covtype, R =
# 14: 1.6 against 3.3 us for the dots, 2.2 against 3.9 us for the two
# products).  Each lane sums over k (over t) in order, as written: no
# reassociation, so float32 and float64 features give the same sums.
#
# The lane loops are written with four statements per lane and 16 literal
# lanes: LLVM then vectorises them as two 8-wide vectors.  A lane loop of
# one statement, or of 8 lanes, is unrolled first and left scalar (2-4x
# slower than the loops above).
#
# At most 8 class rows (covtype's UL pass and its y-only LL passes, 7 rows)
# would leave half of the lanes empty, and an empty lane costs as much as a
# used one.  There the two 8-wide halves serve two different data values
# instead (``_lanes4_halves``): the dots take eight samples per pass over k
# (samples t..t+3 in lanes 0-7, t+4..t+7 in lanes 8-15, the class rows
# copied into both halves), the products eight features per pass over the
# samples.  Each lane still sums in the same order, so the numbers are
# bitwise those of the four-sample (four-feature) passes.


@njit(cache=True, inline="always")
def _lanes4_halves(acc, V, v, a0, a1, a2, a3, b0, b1, b2, b3):
    """``acc[i L + r] += V[v + r] a_i`` for lanes r < 8 and ``V[v + r] b_i``
    for lanes 8-15, i < 4: the loop both lane kernels vectorise (16 literal
    lanes, four statements; the selects fold away, each 8-wide half takes
    one broadcast).  With b = a it is the plain 16-lane accumulation (the
    kernels pass the same data to both halves when more than 8 lanes are
    used)."""
    for r in range(16):
        w = V[v + r]
        lo = r < 8
        acc[r] += w * (a0 if lo else b0)
        acc[16 + r] += w * (a1 if lo else b1)
        acc[32 + r] += w * (a2 if lo else b2)
        acc[48 + r] += w * (a3 if lo else b3)


@njit(cache=True, inline="always")
def _transpose_rows(Wt, L, lane, A, B, R, p, C):
    """Rows r < R of ``[A; B]`` (A's C rows, then B's) into lanes ``lane +
    r`` of ``Wt`` (p x L)."""
    for c in range(min(R, C)):
        for k in range(p):
            Wt[k * L + lane + c] = A[c * p + k]
    for c in range(R - C):
        for k in range(p):
            Wt[k * L + lane + C + c] = B[c * p + k]


@njit(cache=True, fastmath={"contract"})
def _class_dots_lanes(X, idx, start, count, A, B, R, p, C, K, A2, B2, R2,
                      K2):
    """``K[t, r] = <row r of [A; B], X[idx[start + t]]>`` for r < R, and
    ``K2[t, r] = <row r of [A2; B2], ...>`` for r < R2 (a second point on
    the same rows, in lanes R to R + R2 - 1; R2 = 0 for none), R + R2 <=
    LANES, through W^T (p x LANES, zero in unused lanes) in a stack
    scratch.  With R + R2 <= 8 the rows are copied into lanes 8-15 too and
    a pass over k serves eight samples."""
    L = 16
    halves = R + R2 <= 8
    G = 8 if halves else 4  # samples per pass over k
    hs = 4 if halves else 0  # lanes 8-15 take samples t + hs..
    Wt = wide_scratch()
    acc = stack_scratch()
    for i in range(p * L):
        Wt[i] = 0.0
    for h in range(0, 16 if halves else 8, 8):
        _transpose_rows(Wt, L, h, A, B, R, p, C)
        _transpose_rows(Wt, L, h + R, A2, B2, R2, p, C)
    t = 0
    while t < count:
        # G samples (the last ones repeated when fewer are left)
        n = min(G, count - t)
        x0 = X[idx[start + t]]
        x1 = X[idx[start + t + min(1, n - 1)]]
        x2 = X[idx[start + t + min(2, n - 1)]]
        x3 = X[idx[start + t + min(3, n - 1)]]
        # the rows two groups ahead, every cache line: a batch drawn just
        # before it is used (the baselines' inner loops) would otherwise
        # wait for memory at every group
        for i in range(t + 2 * G, min(t + 3 * G, count)):
            prefetch_row(X, idx[start + i])
        x4 = X[idx[start + t + min(hs, n - 1)]]
        x5 = X[idx[start + t + min(hs + 1, n - 1)]]
        x6 = X[idx[start + t + min(hs + 2, n - 1)]]
        x7 = X[idx[start + t + min(hs + 3, n - 1)]]
        for r in range(4 * L):
            acc[r] = 0.0
        for k in range(p):
            _lanes4_halves(acc, Wt, k * L, x0[k], x1[k], x2[k], x3[k],
                           x4[k], x5[k], x6[k], x7[k])
        for i in range(n):
            a = (i % 4) * L + 8 * (i // 4)  # sample t + i's lanes
            for r in range(R):
                K[t + i, r] = acc[a + r]
            for r in range(R2):
                K2[t + i, r] = acc[a + R + r]
        t += n


@njit(cache=True, fastmath={"contract"})
def _add_outer_lanes(X, idx, start, count, p, C, K1, off1, s1, out1,
                     K2, off2, s2, out2):
    """``_add_outer_rowwise`` (``out1[c p + k] += s1 sum_t K1[t, off1 + c]
    X[q_t, k]``, the same for ``out2`` unless ``s2 = 0``) with the C (2C)
    coefficients of a sample as lanes: per tile of TILE samples, the
    scaled coefficients (TILE x LANES) in a stack scratch, then four
    features at a time (eight when at most 8 lanes are used: features k..
    k+3 in lanes 0-7, k+4..k+7 in lanes 8-15), a sum over the tile's
    samples per lane."""
    L = 16
    Kt = stack_scratch()  # TILE x L scaled coefficients
    acc = wide_scratch()  # four features x L sums
    n2 = C if s2 != 0.0 else 0
    halves = C + n2 <= 8
    G = 8 if halves else 4  # features per pass over the samples
    for t0 in range(0, count, TILE):
        nt = min(TILE, count - t0)
        for t in range(nt):
            for r in range(L):
                Kt[t * L + r] = 0.0
            for h in range(0, 16 if halves else 8, 8):
                for c in range(C):
                    Kt[t * L + h + c] = s1 * K1[t0 + t, off1 + c]
                for c in range(n2):
                    Kt[t * L + h + C + c] = s2 * K2[t0 + t, off2 + c]
        k = 0
        while k < p:
            # G features from kb (constant offsets from one row pointer:
            # variable ones ran out of registers); the last G of the row
            # when fewer are left, writing only the new ones (j >= j0)
            if k + G <= p:
                kb = k
            elif p >= G:
                kb = p - G
            else:  # a row shorter than G: the clamped features
                _outer_lanes_short(X, idx, start, t0, nt, p, C, n2,
                                   4 if halves else 0, Kt, acc, out1, out2)
                break
            j0 = k - kb
            for r in range(4 * L):
                acc[r] = 0.0
            if halves:
                for t in range(nt):
                    xr = X[idx[start + t0 + t]]
                    _lanes4_halves(acc, Kt, t * L, xr[kb], xr[kb + 1],
                                   xr[kb + 2], xr[kb + 3], xr[kb + 4],
                                   xr[kb + 5], xr[kb + 6], xr[kb + 7])
            else:
                for t in range(nt):
                    xr = X[idx[start + t0 + t]]
                    a0 = xr[kb]
                    a1 = xr[kb + 1]
                    a2 = xr[kb + 2]
                    a3 = xr[kb + 3]
                    _lanes4_halves(acc, Kt, t * L, a0, a1, a2, a3, a0, a1,
                                   a2, a3)
            for j in range(j0, G):
                a = (j % 4) * L + 8 * (j // 4)  # feature kb + j's lanes
                for c in range(C):
                    out1[c * p + kb + j] += acc[a + c]
                for c in range(n2):
                    out2[c * p + kb + j] += acc[a + C + c]
            k = kb + G


@njit(cache=True, fastmath={"contract"})
def _outer_lanes_short(X, idx, start, t0, nt, p, C, n2, h, Kt, acc, out1,
                       out2):
    """``_add_outer_lanes``' step for a row of p < G features (each lane's
    sum over the tile's samples, in order; feature indices clamped to the
    row; lanes 8-15 take features h.., the same as lanes 0-7 when h = 0)."""
    q = p - 1
    for r in range(4 * 16):
        acc[r] = 0.0
    for t in range(nt):
        xr = X[idx[start + t0 + t]]
        _lanes4_halves(acc, Kt, t * 16, xr[0], xr[min(1, q)], xr[min(2, q)],
                       xr[min(3, q)], xr[min(h, q)], xr[min(h + 1, q)],
                       xr[min(h + 2, q)], xr[min(h + 3, q)])
    for j in range(p):
        a = (j % 4) * 16 + 8 * (j // 4)
        for c in range(C):
            out1[c * p + j] += acc[a + c]
        for c in range(n2):
            out2[c * p + j] += acc[a + C + c]
