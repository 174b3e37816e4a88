"""The momentum family (docs/baselines.md §3.5, 3.6, 3.8): STORM on the
hypergradient estimated at two points with the same randomness.

MRBO and SUSTAIN (Jacobi: every estimate at u_k = (x_k, y_k)):

    J, I fresh; s, s' = NEU_Q (MRBO) | HIA_Q (SUSTAIN), joint at u_k, u_{k-1}
    G = grad_y g_J(u_k),  D = Phi_{I,J}(u_k, s)   (and G', D' at u_{k-1})
    v^y = G + (1 - a_k)(v^y - G'),  v^x = D + (1 - a_k)(v^x - D')
    (plain estimates at k = 0; u_{-1} := u_0, never zeros)
    x_{k+1} = x_k - alpha_k v^x,  y_{k+1} = y_k - beta_k v^y;  z := s

FSLA (Gauss-Seidel: y, then z at y_{k+1}, then x):

    J1:      y_{k+1} = y_k - beta_k grad_y g_{J1}(x_k, y_k)
    J2, I1:  z_{k+1} = z_k - gamma_k (H_{J2}(x_k, y_{k+1}) z_k
                                      - grad_y f_{I1}(x_k, y_{k+1}))
    I2, J3:  D = Phi(x_k, y_{k+1}, z_{k+1}),  D' = Phi(x_{k-1}, y_k, z_k)
    v^x = D + (1 - a_k)(v^x - D');  x_{k+1} = x_k - alpha_k v^x

with a_k = storm_a / (k + 1)^exp_a.  (Yang, Ji, Liang, NeurIPS 2021, Alg.
1; Khanduri et al., NeurIPS 2021, Alg. 1; Li, Gu, Huang, AAAI 2022, Alg.
1.)
"""

from typing import NamedTuple

from ..core.records import F, G
from ..core.solves import (HIA, NEUMANN, SAMPLED_HESSIANS, WITH_GY,
                           WITHOUT_GY, fresh, grad_y_g, hvp, inverse_hvp,
                           keep, phi, phi2, storm, ul_pass, ul_pass2)
from ..core.schedule import schedule
from ..jit.refcount import copy_into
from ..numba_cache import njit
from . import Family, Parameter


class Params(NamedTuple):
    storm_a: float  # a_k = storm_a / (k + 1)^exponent_a
    exponent_a: float


# the baselines' ``eta`` and ``exponent_eta`` fill these fields
# (algorithms/table.py, BASELINE.renames)
PARAMETERS = {
    "storm_a": Parameter(0.5, "unit", "a in the STORM weight a_k = a / "
                         "(k + 1)^exponent_a"),
    "exponent_a": Parameter(2 / 3, "exponent", "the decay of a_k"),
}


@njit(cache=True, inline="always")
def jacobi_iteration(model, levels, iterates, work, cfg, stream, k):
    """MRBO (B3 joint) and SUSTAIN (B4 joint)."""
    b = cfg.batch
    blocks = cfg.blocks
    x, y = iterates.x, iterates.y
    xp, yp = iterates.xp, iterates.yp
    two = k >= 1
    J = keep(levels[G].cur, fresh(stream, levels[G], b, blocks), b)
    ids = fresh(stream, levels[F], b, blocks)
    if two:
        ul_pass2(model, levels, stream, ids, b, (x, y), (work.ux, work.r),
                 (xp, yp), (work.ux2, work.r2), work)
    else:
        ul_pass(model, levels, stream, ids, b, (x, y), (work.ux, work.r),
                work)
    inverse_hvp(model, levels, stream, cfg, SAMPLED_HESSIANS, two, (x, y),
                (work.r, work.s), (xp, yp), (work.r2, work.s2), work)
    if two:
        phi2(model, levels, stream, J, b, (x, y, work.s),
             (work.ux, work.d, work.gy), (xp, yp, work.s2),
             (work.ux2, work.d2, work.gy2), WITH_GY, cfg.cross, work)
    else:
        phi(model, levels, stream, J, b, (x, y, work.s),
            (work.ux, work.d, work.gy), WITH_GY, cfg.cross, work)
    a_k = schedule(cfg.own.storm_a, cfg.own.exponent_a, k)
    storm(work.vy, work.gy, work.gy2, a_k, not two)
    storm(work.vx, work.d, work.d2, a_k, not two)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    for c in range(x.shape[0]):
        iterates.xp[c] = x[c]
        x[c] -= alpha_k * work.vx[c]
    for c in range(y.shape[0]):
        iterates.yp[c] = y[c]
        y[c] -= beta_k * work.vy[c]
    copy_into(iterates.z, work.s)


@njit(cache=True, inline="always")
def fsla_iteration(model, levels, iterates, work, cfg, stream, k):
    """FSLA; u_{k-1} holds (x_{k-1}, y_k, z_k) when D' is evaluated."""
    b = cfg.batch
    blocks = cfg.blocks
    x, y, z = iterates.x, iterates.y, iterates.z
    first = k == 0
    copy_into(iterates.yp, y)
    copy_into(iterates.zp, z)
    ids = fresh(stream, levels[G], b, blocks)
    grad_y_g(model, levels, stream, ids, b, x, y, work.gy, work)
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    for c in range(y.shape[0]):
        y[c] -= beta_k * work.gy[c]
    J2 = keep(levels[G].cur, fresh(stream, levels[G], b, blocks), b)
    ids = fresh(stream, levels[F], b, blocks)
    ul_pass(model, levels, stream, ids, b, (x, y), (work.ux, work.r), work)
    hvp(model, levels, stream, J2, b, x, y, iterates.zp, work.hv, work)
    gamma_k = schedule(cfg.gamma, cfg.exp_z, k)
    for c in range(z.shape[0]):
        z[c] -= gamma_k * (work.hv[c] - work.r[c])
    ids = fresh(stream, levels[F], b, blocks)
    if first:
        ul_pass(model, levels, stream, ids, b, (x, y), (work.ux, work.r),
                work)
    else:
        ul_pass2(model, levels, stream, ids, b, (x, y), (work.ux, work.r),
                 (iterates.xp, iterates.yp), (work.ux2, work.r2), work)
    ids = fresh(stream, levels[G], b, blocks)
    if first:
        phi(model, levels, stream, ids, b, (x, y, z),
            (work.ux, work.d, work.gy), WITHOUT_GY, cfg.cross, work)
    else:
        phi2(model, levels, stream, ids, b, (x, y, z),
             (work.ux, work.d, work.gy),
             (iterates.xp, iterates.yp, iterates.zp),
             (work.ux2, work.d2, work.gy), WITHOUT_GY, cfg.cross, work)
    a_k = schedule(cfg.own.storm_a, cfg.own.exponent_a, k)
    storm(work.vx, work.d, work.d2, a_k, first)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    for c in range(x.shape[0]):
        iterates.xp[c] = x[c]
        x[c] -= alpha_k * work.vx[c]


JACOBI = Family(
    marker="Jacobi", label="momentum", iteration=jacobi_iteration,
    algorithms={"SUSTAIN": HIA, "MRBO": NEUMANN}, parameters=PARAMETERS,
    params=Params)

GAUSS_SEIDEL = Family(
    marker="GaussSeidel", label="Gauss-Seidel momentum",
    iteration=fsla_iteration, algorithms={"FSLA": NEUMANN},
    parameters=PARAMETERS, params=Params)
