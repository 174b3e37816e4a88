"""Sample counting (docs/metrics.md "Metrics", docs/algorithms.md §5).

One sample evaluation is all derivatives of one UL or LL sample at one
point, and only what an iteration evaluates counts:

- a full pass over a level at u_k counts its size N (n for UL, m for LL),
  once, and is made only for the levels a full direction needs (D^y has no
  UL part: a full y direction alone evaluates the LL level only); a large
  batch counts its size;
- a minibatch of b samples counts b at u_k, unless an exact full pass
  evaluated the whole level at u_k in the same iteration (its samples are
  then already evaluated there), plus b at u_{k-1} when the rules need the
  previous point (SARAH, PAGE, STORM, ZeroSARAH after k = 0).
"""

from ..numba_cache import njit
from .records import N_SAMPLES


@njit(cache=True, inline="always")
def count_full(counters, size):
    """A full pass (or large batch) of ``size`` samples at u_k."""
    counters[N_SAMPLES] += size


@njit(cache=True, inline="always")
def count_batch(counters, b, level_done, prev):
    """A minibatch of ``b`` samples: at u_k unless ``level_done`` (the
    level had an exact full pass at u_k), and at u_{k-1} if ``prev``."""
    counters[N_SAMPLES] += b * ((0 if level_done else 1) + (1 if prev else 0))
