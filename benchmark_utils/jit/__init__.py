"""numba extensions of the compiled core: how it is compiled and the few
low-level pieces numba does not provide.

    refcount.py  NO_REFCOUNT, the options that compile the loops without
                 numba's reference counting (so that nothing can allocate
                 in them), and copy_into, the copy between arrays such code
                 needs instead of ``dst[:] = src``
    prefetch.py  software prefetch (LLVM's ``llvm.prefetch``) of a batch's
                 rows and labels: prefetch_rows, prefetch_labels,
                 prefetch_row
    scratch.py   float64 buffers on the caller's stack for the batch
                 kernels (stack_scratch, wide_scratch) and their sizes
                 (TILE, MAX_C, LANES, WIDE)
    markers.py   make_markers: values whose numba type names them (a
                 task, a baseline family), for selection at compile time

The package's own njit and its cache are in ``numba_cache``.
"""
