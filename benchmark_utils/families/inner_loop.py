"""The inner-loop family (docs/baselines.md §3.1-3.4): stocBiO, AmIGO, BSA,
TTSA.  One outer iteration k at x_k:

    y_{k+1} = B1: T SGD steps on y at x_k (TTSA: T = 1)
    I fresh:  u = grad_x f_I(x_k, y_{k+1}),  r = grad_y f_I(x_k, y_{k+1})
    s = B3 NEU_Q (stocBiO) | B4 HIA_Q (BSA, TTSA) | z_{k+1} = B2 (AmIGO,
        warm-started at z_k)
    J' fresh: d = u - X_{J'}(x_k, y_{k+1}) s          (B5)
    x_{k+1} = x_k - alpha_k d;   reported z := s (AmIGO: z_{k+1})

(Ji, Yang, Liang, ICML 2021, Alg. 2; Arbel and Mairal, ICLR 2022, Alg. 1;
Ghadimi and Wang, arXiv 1802.02246, Alg. 2; Hong, Wai, Wang, Yang, SIAM J.
Optim. 2023, Alg. 1.)
"""

from typing import NamedTuple

from ..core.records import F, G
from ..core.solves import (HIA, NEUMANN, ONE_POINT, SAMPLED_HESSIANS, SGD_Z,
                           WITHOUT_GY, fresh, inverse_hvp, phi, sgd_y, sgd_z,
                           ul_pass)
from ..core.schedule import schedule
from ..jit.refcount import copy_into
from ..numba_cache import njit
from . import Family, Parameter


class Params(NamedTuple):
    n_z_steps: int  # AmIGO's linear-system steps T_z


@njit(cache=True, inline="always")
def inner_iteration(model, levels, iterates, work, cfg, stream, k):
    b = cfg.batch
    blocks = cfg.blocks
    x, y, z = iterates.x, iterates.y, iterates.z
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    sgd_y(model, levels, stream, cfg.n_inner, beta_k, x, y, b, blocks, work)
    ids = fresh(stream, levels[F], b, blocks)
    ul_pass(model, levels, stream, ids, b, (x, y), (work.ux, work.r), work)
    if cfg.solver == SGD_Z:
        sgd_z(model, levels, stream, cfg.own.n_z_steps, cfg.gamma, x, y, z, work.r, b,
              blocks, work)
    else:
        inverse_hvp(model, levels, stream, cfg, SAMPLED_HESSIANS,
                    ONE_POINT, (x, y), (work.r, work.s), (x, y),
                    (work.r2, work.s2), work)
        copy_into(z, work.s)
    ids = fresh(stream, levels[G], b, blocks)
    phi(model, levels, stream, ids, b, (x, y, z), (work.ux, work.d, work.gy),
        WITHOUT_GY, cfg.cross, work)
    for c in range(x.shape[0]):
        x[c] -= alpha_k * work.d[c]


FAMILY = Family(
    marker="Inner", label="inner-loop", iteration=inner_iteration,
    algorithms={"stocBiO": NEUMANN, "AmIGO": SGD_Z, "BSA": HIA,
                "TTSA": HIA},
    parameters={
        "n_z_steps": Parameter(10, ("integer", 1),
                               "T_z, AmIGO's linear-system steps"),
    },
    params=Params)
