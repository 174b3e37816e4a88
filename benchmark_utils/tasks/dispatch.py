"""Task switch: one entry point per kernel, selecting the task's kernel at
compile time.

The task reaches the core as its marker (``tasks.task_marker``), whose
numba type names the task; each entry point below is a numba ``overload``
that, for that type, inlines the task module's kernel of the same name
(``TASK_MODULES``).  So a function calling them is compiled once per task,
with that task's kernels only: a run on Simulated never compiles the
softmax kernels, and numba caches each task's specialisation on its own.
(numba does not find a function that receives another jitted function as
an argument in its cache in a new process, and it types every branch of a
switch on a run-time code: hence types, not codes or function arguments.)
Called from Python (tests, tools), an entry point takes the task's code or
marker and runs a compiled call of itself.

Calling convention: kernels act on the ``count`` samples ``idx[start:start +
count]`` of one part (UL rows for ``*_f``, LL rows for ``*_g``). ``coef_*``
writes the coefficients of the t-th sample at ``(x, y, z)`` into ``K[t]``;
``apply_*`` adds ``sum_t L_q(Cx[t])`` to ``ox`` (D^x), ``sum_t L_q(Cy[t])``
to ``oy`` (D^y) and ``sum_t L_q(Cz[t])`` to ``oz`` (D^z). An empty (length-0)
vector in the z slot of ``coef_g`` means the pass needs no z-direction: the
kernels then write zero z coefficients without reading z (the baselines' SGD
steps on y). Each is one small loop over the batch: LLVM vectorises such
loops far better than one large fused function, and no array view is made per
sample.

``coef2_*`` write the coefficients at two points on the same samples,
``(x, y, z)`` into ``K`` and ``(xp, yp, zp)`` into ``Kp`` (the single
loop's u_k and u_{k-1}, the baselines' joint evaluations): two ``coef_*``
calls, except for short-row tasks with a two-point kernel of their own
(logreg's ``coef2_*`` reads each row once for both points, which may change
the last bits of the dot products; multilogreg's puts both points' class
rows in one pass of lanes when they fit, with the numbers of two calls).

``apply2_*`` are ``apply_*`` twice on the same samples, ``C*`` into
``o*`` and ``D*`` into ``o*2`` (a joint evaluation's two points): two
calls, except for multilogreg, whose short rows take both points' products
in one pass when each asks for the same single output (same sums).

``gradx_g`` adds ``c sum_t grad_x G_{idx[start + t]}(x, y)`` to ``ox``
(F2SA). ``reg_gradx`` writes grad_x of g's exact regularisation at (x, y)
into ``rx``.
"""
import inspect

from numba.extending import overload

from ..jit.markers import code_of
from ..jit.refcount import NO_REFCOUNT
from ..numba_cache import njit
from . import MODULES, task_marker

# The kernel module of each task code (``tasks.MODULES``, which also tells
# numba's cache that a specialisation on a task depends on that task's
# module only).
TASK_MODULES = dict(enumerate(MODULES))


def kernels_of(task):
    """The kernel module of a task marker's numba type (at compile time)."""
    return TASK_MODULES[code_of(task)]


def coef_f(task, Xf, yf, params, idx, start, count, x, y, z, K):
    """UL coefficients at (x, y, z) into K."""
    _from_python(coef_f, task, Xf, yf, params, idx, start, count, x, y, z, K)


def coef_g(task, Xg, yg, params, idx, start, count, x, y, z, K):
    """LL coefficients at (x, y, z) into K (z of length 0: no z part)."""
    _from_python(coef_g, task, Xg, yg, params, idx, start, count, x, y, z, K)


def coef2_f(task, Xf, yf, params, idx, start, count, x, y, z, xp, yp, zp,
            K, Kp):
    """UL coefficients at two points into K and Kp."""
    _from_python(coef2_f, task,
                 Xf, yf, params, idx, start, count, x, y, z, xp, yp, zp, K,
                 Kp)


def coef2_g(task, Xg, yg, params, idx, start, count, x, y, z, xp, yp, zp,
            K, Kp):
    """LL coefficients at two points into K and Kp."""
    _from_python(coef2_g, task,
                 Xg, yg, params, idx, start, count, x, y, z, xp, yp, zp, K,
                 Kp)


def apply_f(task, Xf, yf, params, idx, start, count, Cx, Cy, Cz,
            ox, oy, oz):
    """Add the UL directions of the coefficients to ox, oy, oz."""
    _from_python(apply_f, task,
                 Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)


def apply_g(task, Xg, yg, params, idx, start, count, Cx, Cy, Cz,
            ox, oy, oz):
    """Add the LL directions of the coefficients to ox, oy, oz."""
    _from_python(apply_g, task,
                 Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz)


def apply2_f(task, Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy,
             oz, Dx, Dy, Dz, ox2, oy2, oz2):
    """``apply_f`` of two sets of coefficients on the same samples."""
    _from_python(apply2_f, task,
                 Xf, yf, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz,
                 Dx, Dy, Dz, ox2, oy2, oz2)


def apply2_g(task, Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy,
             oz, Dx, Dy, Dz, ox2, oy2, oz2):
    """``apply_g`` of two sets of coefficients on the same samples."""
    _from_python(apply2_g, task,
                 Xg, yg, params, idx, start, count, Cx, Cy, Cz, ox, oy, oz,
                 Dx, Dy, Dz, ox2, oy2, oz2)


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


SWITCHES = (coef_f, coef_g, coef2_f, coef2_g, apply_f, apply_g, apply2_f,
            apply2_g, reg, reg_yz, gradx_g, reg_gradx)

# The two-point entries of a task without a kernel of its own: the
# one-point kernel at both points (the arguments of the first call, and
# those of the second, which take their places).
DEFAULTS = {
    "coef2_f": ("coef_f", ("x", "y", "z", "K"), ("xp", "yp", "zp", "Kp")),
    "coef2_g": ("coef_g", ("x", "y", "z", "K"), ("xp", "yp", "zp", "Kp")),
    "apply2_f": ("apply_f", ("Cx", "Cy", "Cz", "ox", "oy", "oz"),
                 ("Dx", "Dy", "Dz", "ox2", "oy2", "oz2")),
    "apply2_g": ("apply_g", ("Cx", "Cy", "Cz", "ox", "oy", "oz"),
                 ("Dx", "Dy", "Dz", "ox2", "oy2", "oz2")),
}


def task_kernel(name, module):
    """(kernel, calls): the njit kernel of a task module for the entry
    point ``name`` and the argument lists it is called with (one call, or
    two for a two-point entry the task has no kernel for)."""
    names = list(inspect.signature(globals()[name]).parameters)[1:]
    kernel = getattr(module, name, None)
    if kernel is not None:
        return kernel, [names]
    if name not in DEFAULTS:
        raise TypeError(f"task module {module.__name__} has no kernel "
                        f"{name}")
    base, first, second = DEFAULTS[name]
    return getattr(module, base), [
        [a for a in names if a not in second],
        [second[first.index(a)] if a in first else a for a in names
         if a not in second]]


# The exact regularisation parts are called once per iteration, between
# blocks inlined into the loop: numba's typed inliner, inlining them there,
# lost the stores of the step that follows (u_{k-1} was never updated), so
# they stay calls.
INLINE = {"reg": "never", "reg_yz": "never", "reg_gradx": "never"}


def _implementation(switch, kernel, calls):
    """The compiled body of ``switch``: the task's ``kernel`` called with
    the argument lists ``calls``.  Written out from the switch's signature
    (numba checks that an overload's implementation has the switch's
    own)."""
    names = list(inspect.signature(switch).parameters)
    lines = [f"        kernel({', '.join(c)})" for c in calls]
    source = (f"def make(kernel):\n"
              f"    def impl({', '.join(names)}):\n"
              + "\n".join(lines) + "\n    return impl\n")
    scope = {}
    exec(source, scope)  # noqa: S102 - built from the signature
    return scope["make"](kernel)


def _register(switch):
    """The overload of ``switch``: for a task marker, that task's kernel
    (called once, or twice for a two-point default), inlined into the
    caller."""
    name = switch.__name__

    def select(*types):
        module = TASK_MODULES[code_of(types[0])]
        return _implementation(switch, *task_kernel(name, module))
    select.__signature__ = inspect.signature(switch)
    inline = INLINE.get(name, "always")
    # a call (not inlined) is compiled like the loops: no reference counts
    overload(switch, inline=inline,
             jit_options=dict(NO_REFCOUNT) if inline == "never" else {})(
        select)


for _switch in SWITCHES:
    _register(_switch)


_PYTHON = {}


def _from_python(switch, task, *args):
    """An entry point called from Python (tests, tools), with a task code
    or marker: a compiled call of it, made once per entry point."""
    name = switch.__name__
    if name not in _PYTHON:
        names = ", ".join(inspect.signature(switch).parameters)
        scope = {"switch": switch}
        exec(f"def call({names}):\n    switch({names})\n", scope)
        _PYTHON[name] = njit(scope["call"])
    _PYTHON[name](task_marker(task), *args)
