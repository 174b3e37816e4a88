"""A scratch on the stack for the batch kernels.

The core compiles without numba's runtime (``refcount.NO_REFCOUNT``), which
cannot hand out an array it did not receive, so a kernel that needs a few
contiguous buffers (a transposed tile of logits, a column of margins) gets
them as a raw pointer to ``SCRATCH`` float64 on its own stack frame, read
and written as ``buf[i]``: no allocation, nothing to free.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

TILE = 64  # samples per tile of a batch kernel
MAX_C = 16  # rows per sample a tile holds (classes, or margins and exps)
SCRATCH = TILE * (MAX_C + 2)  # a tile's (MAX_C + 2) x TILE numbers
LANES = 16  # class rows of a transposed block (batch_products.lanes)
WIDE = 128 * LANES  # a (p < 128) x LANES transposed block


@intrinsic
def stack_scratch(typingctx):
    """Pointer to ``SCRATCH`` float64 on the caller's stack (an ``alloca``
    in its entry block)."""
    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, ir.DoubleType(), size=SCRATCH)
    return types.CPointer(types.float64)(), codegen


@intrinsic
def wide_scratch(typingctx):
    """Pointer to ``WIDE`` float64 on the caller's stack."""
    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, ir.DoubleType(), size=WIDE)
    return types.CPointer(types.float64)(), codegen
