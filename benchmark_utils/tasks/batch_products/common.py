"""What the three strategies of the batch products share: the row length
that tells long rows from short ones, the fastmath flags of the
reassociated sums, and the offsets of a coefficient row's two groups."""
from ...numba_cache import njit

# Rows of at least this many features take the register-blocked kernels
# (``long_rows``); on shorter rows the remainders of the blocked loops cost
# more than the loads that blocking saves (docs/performance.md).
BLOCK_MIN_P = 128

# The long-row and row-wise sums may be reassociated (LLVM vectorises them
# as reductions); the lanes' sums are not (``lanes``).
FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, inline="always")
def row_offsets(C):
    """(0, C): the columns where a coefficient row's y and z groups start,
    both typed int64 (a literal 0 would compile a second specialisation of
    every kernel it is passed to)."""
    return C - C, C
