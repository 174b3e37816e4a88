"""Step sizes and the finiteness test, shared by the single loop
(``steps``) and the baselines' families: a leaf module (it imports no
other block), so that an edit of the estimators or of the single loop's
steps leaves the families' compiled code in numba's cache."""

from ..numba_cache import njit


@njit(cache=True)
def schedule(c, e, k):
    """Step size ``c / (k + 1)^e`` (constant when ``e = 0``)."""
    if e == 0.0:
        return c
    return c / (k + 1.0) ** e


@njit(cache=True, inline="always")
def not_finite(v):
    """Whether ``v`` is inf or NaN (then ``v - v`` is NaN): a comparison
    whose OR over a vector the compiler vectorises, where a running sum (a
    serial chain of additions without fastmath) took about 8 us per
    iteration over MNIST's 20 000-dimensional x."""
    return (v - v) != 0.0
