"""Per-sample pieces of the softmax cross-entropy on a class-major y.

The model is ``y = vec(W)`` with ``W`` of shape (C, p) stored class-major:
``y[c * p + k]`` is the weight of feature k for class c (the math's
(features x classes) matrix, transposed so that each class is a contiguous
row and every loop below is a vectorisable length-p loop).  For a sample
(a, b): logits u = W a, probabilities s = softmax(u),

    grad_W CE = (s - e_b) a^T,
    hess_WW CE [V] = (diag(s) - s s^T)(V a) a^T.
"""
from numba import njit

from .stable import softmax_row

_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, fastmath=_FAST)
def class_dots(X, q, W, p, C, K, t, off):
    """``K[t, off + c] = sum_k W[c * p + k] X[q, k]`` for each class c."""
    for c in range(C):
        s = 0.0
        base = c * p
        for k in range(p):
            s += W[base + k] * X[q, k]
        K[t, off + c] = s


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
def add_outer(X, q, p, C, K, t, off, scale, out):
    """``out[c * p + k] += scale * K[t, off + c] X[q, k]``."""
    for c in range(C):
        w = scale * K[t, off + c]
        if w != 0.0:
            base = c * p
            for k in range(p):
                out[base + k] += w * X[q, k]


@njit(cache=True, fastmath=_FAST)
def add_outer2(X, q, p, C, K1, off1, K2, off2, t, out1, out2):
    """Two outer products sharing the row read:
    ``out1[c p + k] += K1[t, off1 + c] X[q, k]``,
    ``out2[c p + k] += K2[t, off2 + c] X[q, k]``."""
    for c in range(C):
        w1 = K1[t, off1 + c]
        w2 = K2[t, off2 + c]
        if w1 != 0.0 or w2 != 0.0:
            base = c * p
            for k in range(p):
                a = X[q, k]
                out1[base + k] += w1 * a
                out2[base + k] += w2 * a
