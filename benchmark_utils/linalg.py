"""Small dense kernels shared by the per-sample oracles (numba, float64).

``dot`` may reassociate its sum (``fastmath`` reassoc/contract only, never
``nnan``/``ninf``, so NaN and inf still propagate and are detected) so that
LLVM vectorises it; results stay deterministic for a given machine.
"""
from numba import njit

_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, fastmath=_FAST)
def dot(u, off, v, length):
    """``sum_k u[off + k] * v[k]`` for ``k < length``."""
    s = 0.0
    for k in range(length):
        s += u[off + k] * v[k]
    return s


@njit(cache=True, fastmath=_FAST)
def axpy(a, u, off, out, length):
    """``out[k] += a * u[off + k]`` for ``k < length``."""
    for k in range(length):
        out[k] += a * u[off + k]
