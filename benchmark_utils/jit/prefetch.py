"""Software prefetch of data rows (LLVM's ``llvm.prefetch``) for the numba
core.

A minibatch reads b random rows and labels; without a hint their loads start
only when the kernel reaches them, so the short-row tasks (IJCNN1: 22
features, covtype: 54) wait for DRAM once per group of rows.  The engine
draws the next iteration's batch ahead and prefetches its rows, labels and
table lines while the current batch is computed.

Under ``blocks`` a batch is consecutive rows of the level's permuted copy
(``records.make_levels``): its labels are then prefetched as one range, and
of its rows only the first ``BLOCK_LINES`` cache lines, which starts the
hardware prefetcher on the stream (measured on IJCNN1 / covtype, SOBA,
batch 64, per iteration: every line 4.10 / 28.3 us, the first 48 lines
3.58 / 28.9 us, none 3.73 / 29.4 us; docs/performance.md).  Consecutive is
recognised from the indices (last - first = count - 1), so the choice needs
no flag; a uniform batch that happens to pass the test only gets another
hint.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..numba_cache import njit

LINE = 8  # float64 numbers per 64-byte cache line
MAX_ROW = 128  # rows longer than this are left to the hardware prefetcher
BLOCK_LINES = 48  # lines hinted at the start of a batch of consecutive rows


def _prefetch_codegen(context, builder, signature, args):
    """Emit ``llvm.prefetch`` (read, locality 3: keep in all levels, data
    cache) of the element ``args[0][args[1:]]``."""
    aty = signature.args[0]
    a = context.make_array(aty)(context, builder, args[0])
    ptr = cgutils.get_item_pointer(context, builder, aty, a, list(args[1:]),
                                   wraparound=False, boundscheck=False)
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty,
                                        "llvm.prefetch.p0i8")
    builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                      ir.Constant(i32, 3), ir.Constant(i32, 1)])
    return context.get_dummy_value()


@intrinsic
def _prefetch(typingctx, arr, i, j):
    """Hint the cache line of ``arr[i, j]`` (2-d array) into all levels."""
    return types.void(arr, i, j), _prefetch_codegen


@intrinsic
def _prefetch1(typingctx, arr, i):
    """Hint the cache line of ``arr[i]`` (1-d array) into all levels."""
    return types.void(arr, i), _prefetch_codegen


@njit(cache=True, inline="always")
def _consecutive(idx, count):
    """Whether ``idx[:count]`` are consecutive rows (a ``blocks`` batch that
    does not wrap around the end of the order)."""
    return idx[count - 1] - idx[0] == count - 1


@njit(cache=True, inline="always")
def prefetch_labels(yv, idx, count):
    """Prefetch the labels ``yv[idx[:count]]`` (one range when the indices
    are consecutive)."""
    if _consecutive(idx, count):
        for off in range(0, count, LINE):
            _prefetch1(yv, idx[0] + off)
        return
    for t in range(count):
        _prefetch1(yv, idx[t])


@njit(cache=True, inline="always")
def prefetch_rows(X, idx, count):
    """Prefetch the rows ``X[idx[:count]]`` (each of their cache lines; the
    first ``BLOCK_LINES`` when they are consecutive rows), when rows are at
    most ``MAX_ROW`` numbers long."""
    p = X.shape[1]
    if p > MAX_ROW:
        return
    if _consecutive(idx, count):
        first = idx[0]
        for off in range(0, min(count * p, BLOCK_LINES * LINE), LINE):
            _prefetch(X, first, off)
        return
    for t in range(count):
        prefetch_row(X, idx[t])


@njit(cache=True, inline="always")
def prefetch_row(X, q):
    """Prefetch every cache line of the row ``X[q]``."""
    p = X.shape[1]
    for k in range(0, p, LINE):
        _prefetch(X, q, k)
    _prefetch(X, q, p - 1)
