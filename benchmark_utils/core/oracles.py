"""Batch oracles of the baselines (docs/baselines.md §1): weighted means of
one level's directions on a set of samples at one point, the exact
regularisation parts, and the x-gradient of g (F2SA, BOME).

Every oracle of stocBiO, AmIGO, BSA, TTSA, SUSTAIN, MRBO, VRBO, FSLA and
F2SA is one call of ``level_mean`` (or, for the same batch at two points,
of ``level_mean2``) at a point ``at = (x, y, w)`` (``w`` in the z slot),
with its weights ``c = (c_x, c_y, c_z)`` on the three directions and its
outputs ``out = (o_x, o_y, o_z)``, plus the exact parts of ``reg_at``:

    UL pass at (x, y):       c_x = 1: mean_I grad_x F_i   (D^x, f-part)
                             c_z = -1: mean_I grad_y F_i  (D^z, f-part)
    LL pass at (x, y, w):    c_y = 1: mean_J grad_y G_j   (D^y)
                             c_z = 1: mean_J hess_yy G_j w (D^z, g-part)
                             c_x = 1: -mean_J hess_xy G_j w (D^x, g-part)

so that ``grad_y g_J = level_mean(c_y = 1) + ry``, ``H_J w = level_mean(c_z
= 1) + rz(w)`` and the hypergradient ``Phi_{I,J}(x, y, s) = grad_x f_I -
X_J s`` is the two passes' D^x plus ``rx(x, y, s)``.  A zero weight makes
the kernels skip that output where they can.

These are plain (not inlined) compiled functions: each is compiled once and
called from every block of the baseline families, so its kernel tree is
built once (an inlined pass copies every task's kernels into each call
site).  ``passes.full_pass`` is the single-loop family's own pass.
"""

from ..jit.refcount import NO_REFCOUNT
from ..numba_cache import njit
from ..tasks.dispatch import apply, apply2, coef, coef2, gradx_g, reg, \
    reg_gradx, reg_yz
from .records import B_CUR, B_CX, B_CY, B_CZ, B_DX, B_DY, B_DZ, B_PREV, \
    N_SAMPLES


@njit(cache=True, inline="always")
def _weighted(K, count, wx, wy, wz, CX, CY, CZ):
    """``C_d[t] = w_d K[t]`` for the first ``count`` samples (the weights
    of the three directions on one point's coefficients)."""
    for t in range(count):
        for k in range(K.shape[1]):
            v = K[t, k]
            CX[t, k] = wx * v
            CY[t, k] = wy * v
            CZ[t, k] = wz * v


@njit(cache=True, **NO_REFCOUNT)
def level_mean(part, model, levels, stream, ids, count, at, c, out):
    """Add ``c_d * mean_{q in ids[:count]} D^d_q(x, y, w)`` (data parts of
    level ``part``: 0 UL f, 1 LL g; ``at = (x, y, w)``) to ``o_d`` of ``out
    = (o_x, o_y, o_z)`` for d = x, y, z, chunk by chunk.  One call is one
    batch-oracle call: it counts ``count`` sample evaluations, whichever
    outputs it merges (docs/baselines.md §1)."""
    cx, cy, cz = c
    stream.counters[N_SAMPLES] += count
    level = levels[part]
    S = level.S
    Kc = S[B_CUR]
    CX = S[B_CX]
    CY = S[B_CY]
    CZ = S[B_CZ]
    ch = S.shape[1]
    inv = 1.0 / count
    wx, wy, wz = cx * inv, cy * inv, cz * inv
    for start in range(0, count, ch):
        c = min(ch, count - start)
        coef(model.task, part, level.X, level.yv, model.params, ids, start, c,
             at, Kc)
        _weighted(Kc, c, wx, wy, wz, CX, CY, CZ)
        apply(model.task, part, level.X, level.yv, model.params, ids, start, c,
              (CX, CY, CZ), out)


@njit(cache=True, **NO_REFCOUNT)
def level_mean2(part, model, levels, stream, ids, count, at, at2, c, out,
                out2):
    """``level_mean`` at two points on the same samples (a joint
    evaluation, docs/baselines.md §2): at ``at`` into ``out`` and at
    ``at2`` into ``out2``, the coefficients of both points from one
    ``coef2`` pass over the rows (logreg reads each row once).  Two
    batch-oracle calls: it counts ``2 count``."""
    cx, cy, cz = c
    stream.counters[N_SAMPLES] += 2 * count
    level = levels[part]
    S = level.S
    Kc = S[B_CUR]
    Kp = S[B_PREV]
    CX = S[B_CX]
    CY = S[B_CY]
    CZ = S[B_CZ]
    ch = S.shape[1]
    inv = 1.0 / count
    wx, wy, wz = cx * inv, cy * inv, cz * inv
    DX = S[B_DX]
    DY = S[B_DY]
    DZ = S[B_DZ]
    for start in range(0, count, ch):
        c = min(ch, count - start)
        coef2(model.task, part, level.X, level.yv, model.params, ids, start, c,
              at, at2, Kc, Kp)
        _weighted(Kc, c, wx, wy, wz, CX, CY, CZ)
        _weighted(Kp, c, wx, wy, wz, DX, DY, DZ)
        apply2(model.task, part, level.X, level.yv, model.params, ids,
               start, c, (CX, CY, CZ), out, (DX, DY, DZ), out2)


@njit(cache=True, **NO_REFCOUNT)
def reg_at(model, x, y, w, rx, ry, rz, with_x):
    """Exact deterministic parts at ``(x, y)`` with ``w`` in the z slot
    (written): ``rx = grad_x f_reg - hess_xy R w`` (only ``with_x``; a y
    step or an HVP needs none: on MNIST its 20 000 zeros cost 1.5-2 us a
    call), ``ry = grad_y R``, ``rz = hess_yy R w``."""
    if with_x:
        reg(model.task, model.params, x, y, w, rx, ry, rz)
    else:
        reg_yz(model.task, model.params, x, y, w, ry, rz)


@njit(cache=True, **NO_REFCOUNT)
def grad_x_g(model, levels, stream, ids, count, x, y, c, ox, rx):
    """``ox += c * grad_x g_J(x, y)`` = c (mean_J grad_x G_j + grad_x R)
    (F2SA, BOME), counting ``count``; ``rx`` is scratch."""
    stream.counters[N_SAMPLES] += count
    level = levels[1]
    gradx_g(model.task, level.X, level.yv, model.params, ids, 0, count, x, y,
            c / count, ox)
    reg_gradx(model.task, model.params, x, y, rx)
    for k in range(ox.shape[0]):
        ox[k] += c * rx[k]
