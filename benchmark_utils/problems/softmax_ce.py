"""Pieces of the softmax cross-entropy on a class-major y: per-sample
coefficients (``grad_coef``, ``hvp_coef_label``) and the batch products
(``batch_class_dots``, ``batch_add_outer2``).

The model is ``y = vec(W)`` with ``W`` of shape (C, p) stored class-major:
``y[c * p + k]`` is the weight of feature k for class c (the math's
(features x classes) matrix, transposed so that each class is a contiguous
row and every loop below is a vectorisable length-p loop).  For a sample
(a, b): logits u = W a, probabilities s = softmax(u),

    grad_W CE = (s - e_b) a^T,
    hess_WW CE [V] = (diag(s) - s s^T)(V a) a^T.

The batch products take four samples per pass over W (or over the output),
so each load of a large W (MNIST: 7840 numbers) serves four rows; their
inner loops run over row views indexed from 0, which numba vectorises.
"""
from numba import njit

from .stable import softmax_row

_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True)
def grad_coef(K, t, off, C, label):
    """Logits in ``K[t, off:off+C]`` -> ``s - e_label``; return log-sum-exp
    (so that CE = lse - u_label)."""
    lse = softmax_row(K, t, off, C)
    K[t, off + label] -= 1.0
    return lse


@njit(cache=True)
def hvp_coef_label(K, t, off_g, off_v, C, label):
    """``K[t, off_g:off_g+C] = s - e_label``, ``K[t, off_v:off_v+C] = v``
    -> ``K[t, off_v:off_v+C] = s * v - s (s.v)``."""
    sv = 0.0
    for c in range(C):
        s = K[t, off_g + c] + (1.0 if c == label else 0.0)
        sv += s * K[t, off_v + c]
    for c in range(C):
        s = K[t, off_g + c] + (1.0 if c == label else 0.0)
        K[t, off_v + c] = s * (K[t, off_v + c] - sv)


@njit(cache=True, fastmath=_FAST)
def batch_class_dots(X, idx, start, count, W, p, C, K, off):
    """``K[t, off + c] = sum_k W[c p + k] X[idx[start + t], k]`` for the
    whole batch, four samples at a time: each load of W serves four rows
    (W of MNIST, 7840 numbers, would otherwise stream from L2 per sample)."""
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
def batch_add_outer2(X, idx, start, count, p, C, K1, off1, s1, out1,
                     K2, off2, s2, out2):
    """``out1[c p + k] += s1 sum_t K1[t, off1 + c] X[q_t, k]`` and the same
    for ``out2``, four samples at a time (each output load/store serves four
    rows).  ``out2`` may be ``out1`` with ``s2 = 0`` for a single output."""
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
