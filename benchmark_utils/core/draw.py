"""Random draws of one iteration (PnPBO paper, Algorithm 1, line 3: sample
I_k, J_k; the PAGE coin first when a PAGE module is present).

Every iteration draws, in this order, the coin (a uniform, only when a PAGE
module is present; at k = 0 it is drawn and unused, PAGE being full there),
the UL batch I_k and the LL batch J_k (both, even when a direction needs
only one of them or none: the stream does not depend on which directions
are full), then the large batches of generalized SPABA when a large-batch
full evaluation replaces a full pass.

Look-ahead: once every draw of iteration k is done, iteration k+1's coin and
batches are drawn (``draw_ahead``), so that their rows can be prefetched
while batch k is computed; iteration k+1 then takes them (``take``).  The
generator's stream is consumed in the same order as without look-ahead
(coin_k, I_k, J_k, large batches of k, coin_{k+1}, ...), so iterates do not
depend on it nor on how a run is chunked.

With ``blocks`` (``Config.blocks``), each batch is instead one uniform draw of
a start on the level's circular ``order`` (``sampling.draw_block``), in the
same order of the stream.
"""

from ..numba_cache import njit
from .sampling import draw_batch, draw_block, draw_coin
from .records import AHEAD


@njit(cache=True, inline="always")
def _draw(stream, levels, b, any_page, blocks):
    """The coin (1.0 without a PAGE module), then I (f) and J (g) into
    ``perm[:b]`` of each level."""
    coin = draw_coin(stream.rng) if any_page else 1.0
    for part in range(2):
        level = levels[part]
        if blocks:
            draw_block(stream.rng, level.order, level.perm, b)
        else:
            draw_batch(stream.rng, level.perm, b)
    return coin


@njit(cache=True, inline="always")
def take(stream, levels, b, any_page, blocks):
    """This iteration's coin and batches: the look-ahead ones when the
    previous iteration drew them, else drawn now; the batches are copied to
    ``cur`` (``perm[:b]`` then receives the next batches)."""
    if stream.counters[AHEAD] != 0:
        coin = stream.coin_ahead[0]
    else:
        coin = _draw(stream, levels, b, any_page, blocks)
    for part in range(2):
        level = levels[part]
        for t in range(b):
            level.cur[t] = level.perm[t]
    return coin


@njit(cache=True, inline="always")
def draw_ahead(stream, levels, b, any_page, blocks):
    """Iteration k+1's coin and batches (after every draw of k)."""
    stream.coin_ahead[0] = _draw(stream, levels, b, any_page, blocks)
    stream.counters[AHEAD] = 1


@njit(cache=True, inline="always")
def draw_large(stream, levels, sizes, blocks):
    """Large batches of sizes ``sizes[part]`` into ``perm_large`` (both
    levels drawn, whichever the iteration evaluates; contiguous blocks of
    the order with ``blocks``)."""
    for part in range(2):
        level = levels[part]
        if blocks:
            draw_block(stream.rng, level.order, level.perm_large, sizes[part])
        else:
            draw_batch(stream.rng, level.perm_large, sizes[part])
