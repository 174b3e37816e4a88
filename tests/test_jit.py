"""The core's loops compile without numba's reference counting
(``jit.refcount``): what that switch promises and the helper it needs."""
import numpy as np
import pytest
from numba import njit
from numba.core.errors import NumbaError

from benchmark_utils.core import oracles, single_loop
from benchmark_utils.families import loop as baseline_loop
from benchmark_utils.jit.refcount import NO_REFCOUNT, copy_into

# Every function a loop calls per iteration with records of arrays.
LOOPS = [single_loop.single_loop, oracles.level_mean, oracles.reg_at,
         oracles.grad_x_g]


def test_numba_has_the_switch():
    # numba 0.68 (requirements.txt) has it: the loops are compiled without
    # the runtime, not silently with it.
    assert NO_REFCOUNT == {"_nrt": False}


@pytest.mark.parametrize("fn", LOOPS, ids=lambda f: f.__name__)
def test_loops_compile_without_refcounts(fn):
    assert fn.targetoptions.get("_nrt") is False


def test_the_baseline_family_loop_compiles_without_refcounts():
    """``family_loop`` is an overload (the family chosen by its marker's
    type): its implementation is compiled with the options it declares."""
    from numba.core.registry import cpu_target
    typing = cpu_target.typing_context
    typing.refresh()  # overloads are registered on first use
    fnty = typing.resolve_value_type(
        baseline_loop.family_loop)
    (template,) = fnty.templates
    assert template._jit_options.get("_nrt") is False


def _allocates(n):
    return np.zeros(n).sum()


def _slice_copy(dst, src):
    dst[:] = src


def test_allocation_is_refused_at_compile_time():
    # "Nothing is allocated inside the loop" is checked by the compiler:
    # the same bodies compile with the runtime and not without.
    a, b = np.zeros(3), np.ones(3)
    assert njit(_allocates)(3) == 0.0
    njit(_slice_copy)(a, b)
    with pytest.raises(NumbaError):
        njit(**NO_REFCOUNT)(_allocates)(3)
    with pytest.raises(NumbaError, match="NRT required"):
        njit(**NO_REFCOUNT)(_slice_copy)(a, b)


def test_copy_into_is_slice_assignment():
    @njit(**NO_REFCOUNT)
    def copy(dst, src):
        copy_into(dst, src)

    src = np.random.default_rng(0).standard_normal(7)
    dst = np.zeros(7)
    copy(dst, src)
    assert np.array_equal(dst, src)
    # the arrays stay usable from Python (no reference was dropped)
    assert dst.base is None and np.isfinite(dst).all()
