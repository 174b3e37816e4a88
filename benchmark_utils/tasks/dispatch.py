"""Task switch: one entry point per kernel, selecting the task's kernel at
compile time.

The task reaches the core as its marker (``tasks.task_marker``), whose
numba type names the task; each entry point below is a numba ``overload``
that, for that type, inlines the task module's kernel (``TASK_MODULES``).
So a function calling them is compiled once per task, with that task's
kernels only: a run on Simulated never compiles the softmax kernels, and
numba caches each task's specialisation on its own.  (numba does not find a
function that receives another jitted function as an argument in its cache
in a new process, and it types every branch of a switch on a run-time code:
hence types, not codes or function arguments.)  Called from Python (tests,
tools), an entry point takes the task's code or marker and runs a compiled
call of itself.

Calling convention.  A pass acts on the ``count`` samples ``idx[start:start
+ count]`` of one level ``part`` (``F``: the UL rows of f, ``G``: the LL
rows of g), whose data rows are ``X`` and labels ``labels``; the entry
point calls the task's kernel of that level (``coef_f`` or ``coef_g``, ...):

    coef    the coefficients k_q of the t-th sample at ``point = (x, y, z)``
            into ``K[t]``.  An empty (length-0) z means the pass needs no
            z-direction: the kernels then write zero z coefficients without
            reading z (the baselines' SGD steps on y).
    apply   adds sum_t L_q(Cx[t]) to ox (D^x), sum_t L_q(Cy[t]) to oy
            (D^y) and sum_t L_q(Cz[t]) to oz (D^z), for the coefficients
            ``coefs = (Cx, Cy, Cz)`` and the outputs ``out = (ox, oy,
            oz)``.
    coef2   ``coef`` at two points on the same samples, ``point`` into
            ``K`` and ``point_p`` into ``Kp`` (the single loop's u_k and
            u_{k-1}, the baselines' joint evaluations).
    apply2  ``apply`` twice on the same samples, ``coefs`` into ``out``
            and ``coefs2`` into ``out2``.

Each kernel is one small loop over the batch: LLVM vectorises such loops far
better than one large fused function, and no array view is made per sample.
A task without a two-point kernel of its own gets two one-point calls; a
short-row task may read each row once for both points (logreg's ``coef2_*``,
which may change the last bits of the dot products; multilogreg's puts both
points' class rows in one pass of lanes when they fit, and its ``apply2_*``
both points' products when each asks for the same single output, with the
numbers of two calls).

    reg        the exact regularisation parts of D^x, D^y, D^z at (x, y, z)
    reg_yz     those of D^y and D^z only
    gradx_g    adds c sum_t grad_x G_{idx[start + t]}(x, y) to ox (F2SA)
    reg_gradx  grad_x of g's exact regularisation at (x, y) into rx
"""
from numba.extending import overload

from ..jit.markers import code_of
from ..jit.refcount import NO_REFCOUNT
from ..numba_cache import njit
from . import MODULES, task_marker

# The kernel module of each task code (``tasks.MODULES``, which also tells
# numba's cache that a specialisation on a task depends on that task's
# module only).
TASK_MODULES = dict(enumerate(MODULES))

# The level of a pass, as ``core.records.F`` and ``G``.
F, G = 0, 1


def kernels_of(task):
    """The kernel module of a task marker's numba type (at compile time)."""
    return TASK_MODULES[code_of(task)]


def level_kernels(module, name):
    """The kernels ``<name>_f`` and ``<name>_g`` of a task module."""
    try:
        return getattr(module, name + "_f"), getattr(module, name + "_g")
    except AttributeError:
        raise TypeError(f"task module {module.__name__} has no kernels "
                        f"{name}_f and {name}_g") from None


def has_two_point_kernels(module, name):
    """Whether a task module has its own ``coef2_*`` / ``apply2_*``."""
    return hasattr(module, name + "_f") and hasattr(module, name + "_g")


def coef(task, part, X, labels, params, idx, start, count, point, K):
    """The coefficients of level ``part`` at ``point`` into K."""
    _from_python(coef, task, part, X, labels, params, idx, start, count,
                 point, K)


def coef2(task, part, X, labels, params, idx, start, count, point, point_p,
          K, Kp):
    """The coefficients of level ``part`` at two points into K and Kp."""
    _from_python(coef2, task, part, X, labels, params, idx, start, count,
                 point, point_p, K, Kp)


def apply(task, part, X, labels, params, idx, start, count, coefs, out):
    """Add the directions of level ``part`` of ``coefs`` to ``out``."""
    _from_python(apply, task, part, X, labels, params, idx, start, count,
                 coefs, out)


def apply2(task, part, X, labels, params, idx, start, count, coefs, out,
           coefs2, out2):
    """``apply`` of two sets of coefficients on the same samples."""
    _from_python(apply2, task, part, X, labels, params, idx, start, count,
                 coefs, out, coefs2, out2)


def reg(task, params, x, y, z, rx, ry, rz):
    """The exact regularisation parts of D^x, D^y, D^z at (x, y, z)."""
    _from_python(reg, task, params, x, y, z, rx, ry, rz)


def reg_yz(task, params, x, y, z, ry, rz):
    """Those of D^y and D^z only."""
    _from_python(reg_yz, task, params, x, y, z, ry, rz)


def gradx_g(task, Xg, yg, params, idx, start, count, x, y, c, ox):
    """Add c sum_t grad_x G_t(x, y) to ox (F2SA)."""
    _from_python(gradx_g, task,
                 Xg, yg, params, idx, start, count, x, y, c, ox)


def reg_gradx(task, params, x, y, rx):
    """grad_x of g's exact regularisation at (x, y) into rx."""
    _from_python(reg_gradx, task, params, x, y, rx)


SWITCHES = (coef, coef2, apply, apply2, reg, reg_yz, gradx_g, reg_gradx)


# The level entries: the task's kernel of the pass's level, inlined into
# the caller; a task without two-point kernels gets two one-point calls.

@overload(coef, inline="always")
def _coef(task, part, X, labels, params, idx, start, count, point, K):
    on_f, on_g = level_kernels(kernels_of(task), "coef")

    def impl(task, part, X, labels, params, idx, start, count, point, K):
        if part == F:
            on_f(X, labels, params, idx, start, count, point, K)
        else:
            on_g(X, labels, params, idx, start, count, point, K)
    return impl


@overload(coef2, inline="always")
def _coef2(task, part, X, labels, params, idx, start, count, point, point_p,
           K, Kp):
    module = kernels_of(task)
    if has_two_point_kernels(module, "coef2"):
        on_f, on_g = level_kernels(module, "coef2")

        def impl(task, part, X, labels, params, idx, start, count, point,
                 point_p, K, Kp):
            if part == F:
                on_f(X, labels, params, idx, start, count, point, point_p,
                     K, Kp)
            else:
                on_g(X, labels, params, idx, start, count, point, point_p,
                     K, Kp)
        return impl
    on_f, on_g = level_kernels(module, "coef")

    def twice(task, part, X, labels, params, idx, start, count, point,
              point_p, K, Kp):
        if part == F:
            on_f(X, labels, params, idx, start, count, point, K)
            on_f(X, labels, params, idx, start, count, point_p, Kp)
        else:
            on_g(X, labels, params, idx, start, count, point, K)
            on_g(X, labels, params, idx, start, count, point_p, Kp)
    return twice


@overload(apply, inline="always")
def _apply(task, part, X, labels, params, idx, start, count, coefs, out):
    on_f, on_g = level_kernels(kernels_of(task), "apply")

    def impl(task, part, X, labels, params, idx, start, count, coefs, out):
        if part == F:
            on_f(X, labels, params, idx, start, count, coefs, out)
        else:
            on_g(X, labels, params, idx, start, count, coefs, out)
    return impl


@overload(apply2, inline="always")
def _apply2(task, part, X, labels, params, idx, start, count, coefs, out,
            coefs2, out2):
    module = kernels_of(task)
    if has_two_point_kernels(module, "apply2"):
        on_f, on_g = level_kernels(module, "apply2")

        def impl(task, part, X, labels, params, idx, start, count, coefs,
                 out, coefs2, out2):
            if part == F:
                on_f(X, labels, params, idx, start, count, coefs, out,
                     coefs2, out2)
            else:
                on_g(X, labels, params, idx, start, count, coefs, out,
                     coefs2, out2)
        return impl
    on_f, on_g = level_kernels(module, "apply")

    def twice(task, part, X, labels, params, idx, start, count, coefs, out,
              coefs2, out2):
        if part == F:
            on_f(X, labels, params, idx, start, count, coefs, out)
            on_f(X, labels, params, idx, start, count, coefs2, out2)
        else:
            on_g(X, labels, params, idx, start, count, coefs, out)
            on_g(X, labels, params, idx, start, count, coefs2, out2)
    return twice


# The exact parts and the F2SA oracle: the task's kernel of the same name.
# The exact regularisation parts are called once per iteration, between
# blocks inlined into the loop: numba's typed inliner, inlining them there,
# lost the stores of the step that follows (u_{k-1} was never updated), so
# they stay calls, compiled like the loops (no reference counts).
_CALLED = dict(inline="never", jit_options=dict(NO_REFCOUNT))


@overload(reg, **_CALLED)
def _reg(task, params, x, y, z, rx, ry, rz):
    kernel = kernels_of(task).reg

    def impl(task, params, x, y, z, rx, ry, rz):
        kernel(params, x, y, z, rx, ry, rz)
    return impl


@overload(reg_yz, **_CALLED)
def _reg_yz(task, params, x, y, z, ry, rz):
    kernel = kernels_of(task).reg_yz

    def impl(task, params, x, y, z, ry, rz):
        kernel(params, x, y, z, ry, rz)
    return impl


@overload(reg_gradx, **_CALLED)
def _reg_gradx(task, params, x, y, rx):
    kernel = kernels_of(task).reg_gradx

    def impl(task, params, x, y, rx):
        kernel(params, x, y, rx)
    return impl


@overload(gradx_g, inline="always")
def _gradx_g(task, Xg, yg, params, idx, start, count, x, y, c, ox):
    kernel = kernels_of(task).gradx_g

    def impl(task, Xg, yg, params, idx, start, count, x, y, c, ox):
        kernel(Xg, yg, params, idx, start, count, x, y, c, ox)
    return impl


# The entry points called from Python (tests, tools): one compiled call of
# each, cached on disk like the loops (one specialisation per task and
# argument types), so that a new process loads it instead of compiling it.
@njit(cache=True)
def _coef_py(task, part, X, labels, params, idx, start, count, point, K):
    coef(task, part, X, labels, params, idx, start, count, point, K)


@njit(cache=True)
def _coef2_py(task, part, X, labels, params, idx, start, count, point,
              point_p, K, Kp):
    coef2(task, part, X, labels, params, idx, start, count, point, point_p,
          K, Kp)


@njit(cache=True)
def _apply_py(task, part, X, labels, params, idx, start, count, coefs, out):
    apply(task, part, X, labels, params, idx, start, count, coefs, out)


@njit(cache=True)
def _apply2_py(task, part, X, labels, params, idx, start, count, coefs, out,
               coefs2, out2):
    apply2(task, part, X, labels, params, idx, start, count, coefs, out,
           coefs2, out2)


@njit(cache=True)
def _reg_py(task, params, x, y, z, rx, ry, rz):
    reg(task, params, x, y, z, rx, ry, rz)


@njit(cache=True)
def _reg_yz_py(task, params, x, y, z, ry, rz):
    reg_yz(task, params, x, y, z, ry, rz)


@njit(cache=True)
def _gradx_g_py(task, Xg, yg, params, idx, start, count, x, y, c, ox):
    gradx_g(task, Xg, yg, params, idx, start, count, x, y, c, ox)


@njit(cache=True)
def _reg_gradx_py(task, params, x, y, rx):
    reg_gradx(task, params, x, y, rx)


_PYTHON = {"coef": _coef_py, "coef2": _coef2_py, "apply": _apply_py,
           "apply2": _apply2_py, "reg": _reg_py, "reg_yz": _reg_yz_py,
           "gradx_g": _gradx_g_py, "reg_gradx": _reg_gradx_py}


def _from_python(switch, task, *args):
    """An entry point called from Python (tests, tools), with a task code
    or marker: its compiled call (``_PYTHON``)."""
    _PYTHON[switch.__name__](task_marker(task), *args)
