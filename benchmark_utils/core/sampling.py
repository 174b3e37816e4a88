"""Minibatch sampling, seeded: ``uniform`` (default) or ``blocks``.

Scheme (docs/algorithms.md §2, "Choice"): each part (UL samples ``[n]``, LL samples
``[m]``) keeps a persistent permutation ``perm``; a batch of size ``b`` is drawn
by ``b`` steps of a partial Fisher-Yates shuffle of ``perm`` and is
``perm[:b]``.  Whatever the current order of ``perm``, the result is a uniformly
random ``b``-subset, independent across iterations given the generator.

``blocks`` (docs/algorithms.md §2, "Contiguous blocks"): the rows of each
level are permuted once at the start of a run (``order``); a batch is ``b``
consecutive entries of that order on the circle, from a uniformly random
start: ``order[(s + t) mod N]``, ``t < b``.  Every sample has inclusion
probability ``b / N``; ``b <= N`` distinct entries, so no sample appears twice
in a batch (the wrap-around block is the end of the order followed by its
beginning, not a short block).
"""
import numpy as np

from ..numba_cache import njit
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
def draw_block(state, order, perm, b):
    """A uniformly random start ``s`` on the circular ``order``; the batch
    ``perm[:b]`` is ``order[(s + t) mod N]`` for ``t < b``."""
    n = order.shape[0]
    s = randint(state, n)
    for t in range(b):
        q = s + t
        if q >= n:
            q -= n
        perm[t] = order[q]


@njit(cache=True)
def draw_coin(state):
    """The PAGE coin of one iteration: a fresh uniform on [0, 1)."""
    return uniform(state)


def identity_perm(n):
    return np.arange(n, dtype=np.int64)
