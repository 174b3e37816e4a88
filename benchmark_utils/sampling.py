"""Minibatch sampling: uniform, without replacement within a batch, seeded.

Scheme (docs/algorithms.md §2, "Choice"): each part (UL samples ``[n]``, LL samples
``[m]``) keeps a persistent permutation ``perm``; a batch of size ``b`` is drawn
by ``b`` steps of a partial Fisher-Yates shuffle of ``perm`` and is
``perm[:b]``.  Whatever the current order of ``perm``, the result is a uniformly
random ``b``-subset, independent across iterations given the generator.
"""
import numpy as np
from numba import njit

from .rng import randint, uniform


@njit(cache=True)
def draw_batch(state, perm, b):
    """Shuffle the first ``b`` slots of ``perm`` in place; the batch is
    ``perm[:b]``."""
    n = perm.shape[0]
    for t in range(b):
        r = t + randint(state, n - t)
        tmp = perm[t]
        perm[t] = perm[r]
        perm[r] = tmp


@njit(cache=True)
def draw_coin(state):
    """The PAGE coin of one iteration: a fresh uniform on [0, 1)."""
    return uniform(state)


def identity_perm(n):
    return np.arange(n, dtype=np.int64)
