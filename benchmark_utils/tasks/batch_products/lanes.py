"""Batch products over short rows (p < BLOCK_MIN_P: covtype's 54
features) with at most LANES = 16 class rows: the class rows as vector
lanes.

One pass over the features per four samples (for the products, per four
features) adds a broadcast data value times 16 class values, with no
remainder loop and no horizontal sum; one class row at a time, a loop
over 54 features would be six vectors, a scalar remainder of six and a
horizontal sum for each class row and four samples.  Each lane sums over
k (over t) in order, as written: no reassociation, so float32 and float64
features give the same sums.

The lane loops are written with four statements per lane and 16 literal
lanes (``_lanes4_halves``): LLVM then vectorises them as two 8-wide
vectors.  A lane loop of one statement, or of 8 lanes, is unrolled first
and left scalar.

With at most 8 class rows (covtype's UL pass and its y-only LL passes, 7
rows) half of the lanes would be empty, and an empty lane costs as much
as a used one: the two 8-wide halves then serve two different data values
(the dots: samples t..t+3 in lanes 0-7, t+4..t+7 in lanes 8-15, the class
rows copied into both halves; the products: eight features per pass over
the samples).  Each lane still sums in the same order, so the numbers are
bitwise those of the four-sample (four-feature) passes.  Two points'
class rows side by side in the lanes (``batch_class_dots2``,
``batch_add_outer_pair``) read the batch's rows once for both.  Figures:
docs/performance.md.
"""
from ...jit.prefetch import prefetch_row
from ...jit.scratch import LANES, TILE, WIDE, stack_scratch, wide_scratch
from ...numba_cache import njit
from .common import BLOCK_MIN_P

assert BLOCK_MIN_P * LANES <= WIDE  # a short-row W^T fits the wide scratch


@njit(cache=True, inline="always")
def _zero(buf, n):
    """``buf[:n] = 0`` (a scratch pointer)."""
    for i in range(n):
        buf[i] = 0.0


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
def _rows_into_lanes(Wt, L, lane, W, n, p):
    """Rows c < n of W (length p each) into lanes ``lane + c`` of ``Wt``
    (p x L)."""
    for c in range(n):
        for k in range(p):
            Wt[k * L + lane + c] = W[c * p + k]


@njit(cache=True, inline="always")
def _transpose_rows(Wt, L, lane, A, B, R, p, C):
    """Rows r < R of ``[A; B]`` (A's C rows, then B's) into lanes ``lane +
    r`` of ``Wt`` (p x L)."""
    _rows_into_lanes(Wt, L, lane, A, min(R, C), p)
    _rows_into_lanes(Wt, L, lane + C, B, R - C, p)


@njit(cache=True, fastmath={"contract"})
def class_dots_lanes(X, idx, start, count, p, C, stack, stack2):
    """``K[t, r] = <row r of [A; B], X[idx[start + t]]>`` for r < R, and
    ``K2[t, r] = <row r of [A2; B2], ...>`` for r < R2 (``stack = (A, B,
    R, K)``, ``stack2 = (A2, B2, R2, K2)``: a second point on
    the same rows, in lanes R to R + R2 - 1; R2 = 0 for none), R + R2 <=
    LANES, through W^T (p x LANES, zero in unused lanes) in a stack
    scratch.  With R + R2 <= 8 the rows are copied into lanes 8-15 too and
    a pass over k serves eight samples."""
    A, B, R, K = stack
    A2, B2, R2, K2 = stack2
    L = 16
    halves = R + R2 <= 8
    G = 8 if halves else 4  # samples per pass over k
    hs = 4 if halves else 0  # lanes 8-15 take samples t + hs..
    Wt = wide_scratch()
    acc = stack_scratch()
    _zero(Wt, p * L)
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
        _zero(acc, 4 * L)
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


@njit(cache=True, inline="always")
def _features_pass(acc, Kt, X, idx, q0, nt, kb, h):
    """One pass over the tile's samples ``idx[q0 + t]``, t < nt, for the
    features from kb: lanes 0-7 take features kb..kb+3, lanes 8-15 kb+h..
    kb+h+3 (h = 0: the same four)."""
    for t in range(nt):
        xr = X[idx[q0 + t]]
        _lanes4_halves(acc, Kt, t * 16, xr[kb], xr[kb + 1], xr[kb + 2],
                       xr[kb + 3], xr[kb + h], xr[kb + h + 1], xr[kb + h + 2],
                       xr[kb + h + 3])


@njit(cache=True, inline="always")
def _lanes_into_rows(acc, C, n2, p, kb, j0, j1, out1, out2):
    """Add the sums of features ``kb + j``, j0 <= j < j1, to the class rows:
    lanes c < C to ``out1``, lanes C + c (c < n2) to ``out2`` (feature j's
    lanes start at ``(j % 4) 16 + 8 (j // 4)``, as ``_lanes4_halves``
    writes them)."""
    for j in range(j0, j1):
        a = (j % 4) * 16 + 8 * (j // 4)
        for c in range(C):
            out1[c * p + kb + j] += acc[a + c]
        for c in range(n2):
            out2[c * p + kb + j] += acc[a + C + c]


@njit(cache=True, fastmath={"contract"})
def add_outer_lanes(X, idx, start, count, p, C, first, second):
    """``add_outer_rowwise`` (``out1[c p + k] += s1 sum_t K1[t, off1 + c]
    X[q_t, k]`` for ``first = (K1, off1, s1, out1)``, the same for
    ``second`` unless its ``s2 = 0``) with the C (2C)
    coefficients of a sample as lanes: per tile of TILE samples, the
    scaled coefficients (TILE x LANES) in a stack scratch, then four
    features at a time (eight when at most 8 lanes are used: features k..
    k+3 in lanes 0-7, k+4..k+7 in lanes 8-15), a sum over the tile's
    samples per lane."""
    K1, off1, s1, out1 = first
    K2, off2, s2, out2 = second
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
                # the two groups written out: a helper changed the pass's code
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
                                   4 if halves else 0, Kt, acc, (out1, out2))
                break
            j0 = k - kb
            _zero(acc, 4 * L)
            if halves:  # a constant offset in each copy of the pass
                _features_pass(acc, Kt, X, idx, start + t0, nt, kb, 4)
            else:
                _features_pass(acc, Kt, X, idx, start + t0, nt, kb, 0)
            _lanes_into_rows(acc, C, n2, p, kb, j0, G, out1, out2)
            k = kb + G


@njit(cache=True, fastmath={"contract"})
def _outer_lanes_short(X, idx, start, t0, nt, p, C, n2, h, Kt, acc, outs):
    """``add_outer_lanes``' step for a row of p < G features (each lane's
    sum over the tile's samples, in order; feature indices clamped to the
    row; lanes 8-15 take features h.., the same as lanes 0-7 when h = 0)."""
    q = p - 1
    _zero(acc, 4 * 16)
    for t in range(nt):
        xr = X[idx[start + t0 + t]]
        _lanes4_halves(acc, Kt, t * 16, xr[0], xr[min(1, q)], xr[min(2, q)],
                       xr[min(3, q)], xr[min(h, q)], xr[min(h + 1, q)],
                       xr[min(h + 2, q)], xr[min(h + 3, q)])
    out1, out2 = outs
    _lanes_into_rows(acc, C, n2, p, 0, 0, p, out1, out2)
