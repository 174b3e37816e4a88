"""Full-data passes of the weighted softmax cross-entropy, for the exact
metrics of the multiclass tasks (``exact_glm``).

For rows a_j of ``A``, labels b_j, sample weights w_j and a class-major
``W`` (C x p), logits u_j = W a_j and probabilities s_j = softmax(u_j):

    ce_grad_pass:  L = sum_j w_j CE_j,   G = sum_j w_j (s_j - e_{b_j}) a_j^T,
                   S[j] = s_j;
    ce_hvp_pass:   out = sum_j w_j (diag(s_j) - s_j s_j^T)(V a_j) a_j^T,

each in one pass over ``A`` (a row is read once and serves every class),
so that a Newton or CG iteration on MNIST-sized data streams the 125 MB of
pixels once instead of twice, as ``A @ V.T`` then ``R.T @ A`` would.
Four rows share each load of a class row; for rows of at least
``PAIR_MIN_P`` features two class rows share each load of a data row.
Each pass is the sum, in a fixed order, of ``CHUNKS`` passes over fixed
row ranges, run on ``pass_threads()`` threads: the cores a sequential
run's solver leaves idle while it waits for its metrics, one in a worker
of ``benchopt run -j N`` or of dask (their launchers set
``OMP_NUM_THREADS``), so that a metric evaluation never competes with the
other runs for the cores; the result is bitwise the same on any number of
threads.  A pass over a small ``A`` (digits, wine) runs the same chunks on
the calling thread (``*_serial``): waking the thread pool would cost more
than the pass (``grad_pass``, ``hvp_pass`` choose).
"""
import os

import numba
import numpy as np
from numba import prange

from .numba_cache import njit

THREADS_ENV = "BILEVEL_METRIC_THREADS"
# numba's own thread pool, unless the user chose one: its waiting threads
# sleep, where GNU OpenMP's spin, which made two threads slower than one
# on a loaded 2-core machine (docs/performance.md "Exact metrics").
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"
# Every pass sums CHUNKS partial passes over fixed row ranges, in order:
# its result is bitwise the same on any number of threads.
CHUNKS = 4

_FAST = {"reassoc", "contract", "nsz"}

# Rows shorter than this take one class row at a time (covtype, p = 54: the
# pair loop's remainders cost more than the loads it saves).
PAIR_MIN_P = 128


@njit(cache=True, fastmath=_FAST, inline="always")
def _dots(A, j, nr, W, U):
    """U[t, c] = W[c] . A[j + t] for t < nr (nr = 4 or 1)."""
    C, p = W.shape
    c = 0
    if nr == 4:
        a0, a1, a2, a3 = A[j], A[j + 1], A[j + 2], A[j + 3]
        if p >= PAIR_MIN_P:
            while c + 2 <= C:
                w, v = W[c], W[c + 1]
                s0 = s1 = s2 = s3 = t0 = t1 = t2 = t3 = 0.0
                for k in range(p):
                    x0, x1, x2, x3 = a0[k], a1[k], a2[k], a3[k]
                    s0 += w[k] * x0
                    s1 += w[k] * x1
                    s2 += w[k] * x2
                    s3 += w[k] * x3
                    t0 += v[k] * x0
                    t1 += v[k] * x1
                    t2 += v[k] * x2
                    t3 += v[k] * x3
                U[0, c], U[1, c], U[2, c], U[3, c] = s0, s1, s2, s3
                U[0, c + 1], U[1, c + 1] = t0, t1
                U[2, c + 1], U[3, c + 1] = t2, t3
                c += 2
        while c < C:
            w = W[c]
            s0 = s1 = s2 = s3 = 0.0
            for k in range(p):
                s0 += w[k] * a0[k]
                s1 += w[k] * a1[k]
                s2 += w[k] * a2[k]
                s3 += w[k] * a3[k]
            U[0, c], U[1, c], U[2, c], U[3, c] = s0, s1, s2, s3
            c += 1
    else:
        a0 = A[j]
        for c in range(C):
            w = W[c]
            s0 = 0.0
            for k in range(p):
                s0 += w[k] * a0[k]
            U[0, c] = s0


@njit(cache=True, fastmath=_FAST, inline="always")
def _outer(A, j, nr, H, out):
    """out[c] += sum_{t < nr} H[t, c] A[j + t]."""
    C, p = out.shape
    c = 0
    if nr == 4:
        a0, a1, a2, a3 = A[j], A[j + 1], A[j + 2], A[j + 3]
        if p >= PAIR_MIN_P:
            while c + 2 <= C:
                o, q = out[c], out[c + 1]
                h0, h1, h2, h3 = H[0, c], H[1, c], H[2, c], H[3, c]
                g0, g1 = H[0, c + 1], H[1, c + 1]
                g2, g3 = H[2, c + 1], H[3, c + 1]
                for k in range(p):
                    x0, x1, x2, x3 = a0[k], a1[k], a2[k], a3[k]
                    o[k] += h0 * x0 + h1 * x1 + h2 * x2 + h3 * x3
                    q[k] += g0 * x0 + g1 * x1 + g2 * x2 + g3 * x3
                c += 2
        while c < C:
            o = out[c]
            h0, h1, h2, h3 = H[0, c], H[1, c], H[2, c], H[3, c]
            for k in range(p):
                o[k] += h0 * a0[k] + h1 * a1[k] + h2 * a2[k] + h3 * a3[k]
            c += 1
    else:
        a0 = A[j]
        for c in range(C):
            o = out[c]
            h0 = H[0, c]
            for k in range(p):
                o[k] += h0 * a0[k]


@njit(cache=True, fastmath=_FAST)
def _grad_rows(A, labels, W, wts, S, G, lo, hi):
    """Rows lo..hi-1 of ``ce_grad_pass``: their loss, G of their terms."""
    C = W.shape[0]
    G[:] = 0.0
    U = np.empty((4, C))
    loss = 0.0
    j = lo
    while j < hi:
        nr = 4 if j + 4 <= hi else 1
        _dots(A, j, nr, W, U)
        for t in range(nr):
            umax = U[t, 0]
            for c in range(1, C):
                umax = max(umax, U[t, c])
            tot = 0.0
            for c in range(C):
                e = np.exp(U[t, c] - umax)
                S[j + t, c] = e
                tot += e
            lab = labels[j + t]
            wt = wts[j + t]
            loss += wt * (umax + np.log(tot) - U[t, lab])
            inv = 1.0 / tot
            for c in range(C):
                s = S[j + t, c] * inv
                S[j + t, c] = s
                U[t, c] = wt * (s - (1.0 if c == lab else 0.0))
        _outer(A, j, nr, U, G)
        j += nr
    return loss


@njit(cache=True, fastmath=_FAST)
def _hvp_rows(A, S, wts, V, out, lo, hi):
    """Rows lo..hi-1 of ``ce_hvp_pass``."""
    C = V.shape[0]
    out[:] = 0.0
    U = np.empty((4, C))
    j = lo
    while j < hi:
        nr = 4 if j + 4 <= hi else 1
        _dots(A, j, nr, V, U)
        for t in range(nr):
            su = 0.0
            for c in range(C):
                su += S[j + t, c] * U[t, c]
            wt = wts[j + t]
            for c in range(C):
                U[t, c] = wt * S[j + t, c] * (U[t, c] - su)
        _outer(A, j, nr, U, out)
        j += nr


@njit(cache=True)  # no fastmath: the order written is the order computed
def _tree_sum(values):
    """The sum of ``values`` as a balanced tree, (v0 + v1) + (v2 + v3) for
    four: the order the threaded pass's compiled reduction of its chunks'
    losses took, written out so that both builds compute it."""
    buf = values.copy()
    n = buf.shape[0]
    while n > 1:
        half = n // 2
        for i in range(half):
            buf[i] = buf[2 * i] + buf[2 * i + 1]
        if n % 2:
            buf[half] = buf[n - 1]
        n = half + n % 2
    return buf[0]


@njit(cache=True, fastmath=_FAST, parallel=True)
def ce_grad_pass(A, labels, W, wts, S, G):
    """Return sum_j w_j CE_j; G = sum_j w_j (s_j - e_{b_j}) a_j^T,
    S[j] = s_j (softmax shifted by the max logit: no overflow)."""
    m = A.shape[0]
    parts = np.empty((CHUNKS,) + G.shape)
    losses = np.empty(CHUNKS)
    for k in prange(CHUNKS):
        losses[k] = _grad_rows(A, labels, W, wts, S, parts[k],
                               (m * k) // CHUNKS, (m * (k + 1)) // CHUNKS)
    G[:] = parts[0]
    for k in range(1, CHUNKS):  # a fixed order: any number of threads
        G += parts[k]
    return _tree_sum(losses)


@njit(cache=True, fastmath=_FAST, parallel=True)
def ce_hvp_pass(A, S, wts, V, out):
    """out = sum_j w_j (diag(s_j) - s_j s_j^T)(V a_j) a_j^T."""
    m = A.shape[0]
    parts = np.empty((CHUNKS,) + out.shape)
    for k in prange(CHUNKS):
        _hvp_rows(A, S, wts, V, parts[k], (m * k) // CHUNKS,
                  (m * (k + 1)) // CHUNKS)
    out[:] = parts[0]
    for k in range(1, CHUNKS):
        out += parts[k]


@njit(cache=True, fastmath=_FAST)
def ce_grad_pass_serial(A, labels, W, wts, S, G):
    """``ce_grad_pass`` on the calling thread: the same chunks summed in
    the same order (bitwise the same result), without waking numba's
    thread pool, which costs more than a pass over a small ``A``."""
    m = A.shape[0]
    parts = np.empty((CHUNKS,) + G.shape)
    losses = np.empty(CHUNKS)
    for k in range(CHUNKS):
        losses[k] = _grad_rows(A, labels, W, wts, S, parts[k],
                               (m * k) // CHUNKS, (m * (k + 1)) // CHUNKS)
    G[:] = parts[0]
    for k in range(1, CHUNKS):
        G += parts[k]
    return _tree_sum(losses)


@njit(cache=True, fastmath=_FAST)
def ce_hvp_pass_serial(A, S, wts, V, out):
    """``ce_hvp_pass`` on the calling thread (bitwise the same result)."""
    m = A.shape[0]
    parts = np.empty((CHUNKS,) + out.shape)
    for k in range(CHUNKS):
        _hvp_rows(A, S, wts, V, parts[k], (m * k) // CHUNKS,
                  (m * (k + 1)) // CHUNKS)
    out[:] = parts[0]
    for k in range(1, CHUNKS):
        out += parts[k]


# Passes over fewer entries than this run on the calling thread: waking
# the pool costs more than splitting saves (0.19 ms a call against 3 us
# for a pass over wine; and a thread waiting for a busy core's sibling
# dominates on a loaded machine).
PARALLEL_MIN = 2_000_000


def is_large(A, n_classes):
    """Whether passes over ``A`` (``n_classes`` classes) run threaded."""
    return A.shape[0] * A.shape[1] * n_classes >= PARALLEL_MIN


def grad_pass(A, labels, W, wts, S, G):
    """``ce_grad_pass`` on ``pass_threads()`` threads for a large ``A``,
    on the calling thread for a small one; the same result either way."""
    if is_large(A, W.shape[0]):
        numba.set_num_threads(pass_threads())
        return ce_grad_pass(A, labels, W, wts, S, G)
    return ce_grad_pass_serial(A, labels, W, wts, S, G)


def hvp_pass(A, S, wts, V, out):
    """``ce_hvp_pass`` on ``pass_threads()`` threads for a large ``A``,
    on the calling thread for a small one; the same result either way."""
    if is_large(A, V.shape[0]):
        numba.set_num_threads(pass_threads())
        ce_hvp_pass(A, S, wts, V, out)
    else:
        ce_hvp_pass_serial(A, S, wts, V, out)


def pass_threads():
    """Threads of a metric pass: ``$BILEVEL_METRIC_THREADS``; else the
    launcher's share of the cores, ``$OMP_NUM_THREADS`` (joblib's workers
    of ``benchopt run -j N`` and dask's get 1); else every core this
    process may use (a sequential run: its solver waits meanwhile)."""
    for name in (THREADS_ENV, "OMP_NUM_THREADS"):
        value = os.environ.get(name)
        if value:
            try:
                n = int(value)
            except ValueError:
                n = 0
            if n < 1:
                raise ValueError(f"{name} must be an integer >= 1, got "
                                 f"{value!r}")
            return min(n, numba.config.NUMBA_NUM_THREADS)
    return min(len(os.sched_getaffinity(0)), numba.config.NUMBA_NUM_THREADS)


THREADED, SERIAL = "threaded", "serial"  # the two builds of each pass


def variants_for(n_classes, *features):
    """The builds that passes over these feature arrays run (``is_large``)."""
    return tuple(sorted({THREADED if is_large(A, n_classes) else SERIAL
                         for A in features}))


def warm_up(variants=(THREADED, SERIAL)):
    """Compile (or load from numba's cache) the passes of ``variants`` on
    a tiny problem, so that the first metric evaluation of a run does not
    pay for it: both on float64 features, the Hessian-vector one on
    float32 features too (``exact_glm``'s rounded products)."""
    unknown = set(variants) - {THREADED, SERIAL}
    if unknown:
        raise ValueError(f"variants must be among {THREADED!r} and "
                         f"{SERIAL!r}, got {sorted(unknown)}")
    A = np.ones((5, 2))
    S = np.empty((5, 2))
    G = np.empty((2, 2))
    passes = {THREADED: (ce_grad_pass, ce_hvp_pass),
              SERIAL: (ce_grad_pass_serial, ce_hvp_pass_serial)}
    for variant in variants:
        grad, hvp = passes[variant]
        grad(A, np.zeros(5, dtype=np.int64), G, np.ones(5), S, G.copy())
        hvp(A, S, np.ones(5), G, np.empty((2, 2)))
        hvp(A.astype(np.float32), S, np.ones(5), G, np.empty((2, 2)))
