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

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ..numba_cache import njit


# --------------------------------------------------------------------------
# exp that LLVM can vectorise (glibc's ``exp`` is a scalar call)
# --------------------------------------------------------------------------
@intrinsic
def _pow2(typingctx, k):
    """2.0**k for an int64 k in [-1022, 1023], written into the exponent
    bits."""
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        bits = builder.shl(builder.add(args[0], ir.Constant(i64, 1023)),
                           ir.Constant(i64, 52))
        return builder.bitcast(bits, ir.DoubleType())
    return types.float64(types.int64), codegen


_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 to 32 bits (k * _LN2_HI exact)
_LN2_LO = 1.90821492927058770002e-10
_X_MIN = -745.5  # below: e^x rounds to 0
_X_MAX = 710.0  # above: e^x overflows to inf


@njit(cache=True, inline="always", fastmath={"contract"})
def exp_vec(x):
    """e^x, within 1 ulp of glibc's ``exp`` (90 % bit-equal,
    tests/test_stable.py), with no call, so that a loop of them
    vectorises.

    Cody-Waite reduction x = k ln 2 + r, |r| <= ln 2 / 2 (ln 2 split in a
    32-bit head, so k ln2_hi is exact, and a tail), e^r by its Taylor
    polynomial of degree 13 (Horner; the remainder is below 2^-60), and
    2^k as two powers of two so that results down to the subnormals, and
    up to the overflow to inf, are reached. NaN stays NaN."""
    if x < _X_MIN:
        x = _X_MIN
    if x > _X_MAX:
        x = _X_MAX
    kf = math.floor(x * _INV_LN2 + 0.5)
    r = (x - kf * _LN2_HI) - kf * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    if kf != kf:  # NaN input
        return p
    k = np.int64(kf)
    half = k >> 1
    return p * _pow2(half) * _pow2(k - half)


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
