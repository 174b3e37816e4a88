"""How the core's loops are compiled: without numba's reference counting.

numba counts references to every array with an atomic increment and
decrement (its runtime, NRT), emitted each time an array or a record of
arrays is bound to a name: the records (``records``) hold up to 16 arrays,
every block inlined into a loop binds them again, and the counts cost about
2.3 us per iteration of the single loop (85 % of an iteration at batch 1;
SOBA on IJCNN1 at batch 64 went from 5.97 to 4.05 us; docs/performance.md).
The loops allocate nothing (every array belongs to the run's records, which
Python keeps alive for the whole call), so they need no counts:
``NO_REFCOUNT`` compiles a function without the runtime, and numba then
refuses at compile time anything that would allocate in it (an allocation
needs the runtime), which turns the core's "nothing is allocated inside the
loop" into a checked property.

``_nrt`` is numba's own (internal) switch for this, the one its test-suite
uses; where a numba version does not have it, ``NO_REFCOUNT`` is empty and
the loops compile as before (same iterates, slower).

``copy_into`` replaces ``dst[:] = src`` in these functions: numba's slice
assignment between arrays reserves a temporary copy in case they overlap,
which needs the runtime.
"""
from ..numba_cache import njit


def _has_nrt_switch():
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:  # pragma: no cover - numba layout changed
        return False
    return hasattr(CPUTargetOptions, "_nrt")


NO_REFCOUNT = {"_nrt": False} if _has_nrt_switch() else {}


@njit(cache=True, inline="always")
def copy_into(dst, src):
    """``dst[:] = src`` for 1-d arrays of the same length, element by
    element (no temporary)."""
    for c in range(dst.shape[0]):
        dst[c] = src[c]
