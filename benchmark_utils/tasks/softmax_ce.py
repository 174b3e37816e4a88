"""The softmax cross-entropy of the multiclass tasks on a class-major y:
the softmax of a batch's logits and the per-sample coefficients of the
gradient (``batch_grad_coef``) and of a Hessian-vector product
(``hvp_coef_label``).

The model is ``y = vec(W)`` with ``W`` of shape (C, p) stored class-major:
``y[c * p + k]`` is the weight of feature k for class c (the math's
(features x classes) matrix, transposed so that each class is a contiguous
row).  For a sample (a, b): logits u = W a, probabilities s = softmax(u),

    grad_W CE = (s - e_b) a^T,
    hess_WW CE [V] = (diag(s) - s s^T)(V a) a^T.

So a batch's gradient and Hessian-vector product are the coefficients
``s - e_b`` and ``(diag(s) - s s^T) V a`` (computed here) applied to the
rows by the loss-independent products of ``batch_products`` (the logits
``W a`` and ``V a`` are class dots, the sums over the batch outer
products).
"""
from ..jit.scratch import MAX_C, TILE, stack_scratch
from ..numba_cache import njit
from .stable import exp_vec, softmax_row


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
