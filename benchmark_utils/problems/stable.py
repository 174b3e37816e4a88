"""Numerically stable scalar pieces of the logistic and softmax losses.

    phi(t)   = log(1 + e^{-t})              (logistic loss of the margin t)
    phi'(t)  = -sigma(-t) = -1 / (1 + e^t)
    phi''(t) = sigma(t) sigma(-t)
    sigma(u) = 1 / (1 + e^{-u})
    softmax with the max shifted out.

Every branch only exponentiates non-positive numbers, so nothing overflows
for any finite input.
"""
import math

from numba import njit


@njit(cache=True, inline="always")
def sigmoid(u):
    if u >= 0.0:
        return 1.0 / (1.0 + math.exp(-u))
    e = math.exp(u)
    return e / (1.0 + e)


@njit(cache=True, inline="always")
def logistic_loss(t):
    """phi(t) = log(1 + exp(-t))."""
    if t >= 0.0:
        return math.log1p(math.exp(-t))
    return -t + math.log1p(math.exp(t))


@njit(cache=True, inline="always")
def logistic_d1_d2(t):
    """(phi'(t), phi''(t)) with a single exponential, e = exp(-|t|)."""
    e = math.exp(-abs(t))
    inv = 1.0 / (1.0 + e)
    s_pos = inv          # sigma(|t|)
    s_neg = e * inv      # sigma(-|t|)
    d1 = -s_neg if t >= 0.0 else -s_pos   # -sigma(-t)
    return d1, s_pos * s_neg


@njit(cache=True, inline="always")
def softmax_row(K, t, off, C):
    """Replace ``K[t, off:off + C]`` (logits) by their softmax (max shifted
    out)."""
    mx = K[t, off]
    for c in range(1, C):
        if K[t, off + c] > mx:
            mx = K[t, off + c]
    s = 0.0
    for c in range(C):
        e = math.exp(K[t, off + c] - mx)
        K[t, off + c] = e
        s += e
    for c in range(C):
        K[t, off + c] /= s
