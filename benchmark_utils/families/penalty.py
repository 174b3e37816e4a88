"""The penalty family (docs/baselines.md §3.9): F2SA (Kwon, Kwon, Wright,
Nowak, ICML 2023, Alg. 1), first-order only.  With the penalised lower
level copy y (``work.own.ypen``), the lower-level copy w (reported as y) and the
multiplier lambda_k:

    T times:  J_t, J'_t, I_t fresh
        y <- y - beta_k (grad_y f_{I_t}(x_k, y) + lambda_k grad_y g_{J_t}(x_k, y))
        w <- w - beta^w_k grad_y g_{J'_t}(x_k, w)
    I, J1, J2 fresh:
        d = grad_x f_I(x_k, y) + lambda_k (grad_x g_{J1}(x_k, y)
                                           - grad_x g_{J2}(x_k, w))
    x_{k+1} = x_k - alpha_k d;  reported (x_{k+1}, w, z := lambda_k (w - y))
    lambda_{k+1} = lambda_k + delta_k

lambda_k (w - y) estimates z*(x) (on a quadratic lambda (y*_lambda - y*)
-> -z*), so F2SA gets a meaningful implicit gap.
"""

from typing import NamedTuple

import numpy as np

from ..numba_cache import njit
from ..core.oracles import grad_x_g, level_mean, reg_at
from ..core.records import F, G
from ..core.solves import NEUMANN, fresh, grad_y_g, keep
from ..core.schedule import not_finite, schedule
from . import Family, Parameter


class Params(NamedTuple):
    delta_lmbda: float     # delta_k = delta_lmbda / (k + 1)^exponent_delta
    exponent_w: float      # beta^w_k = beta / (k + 1)^exponent_w
    exponent_delta: float


class State(NamedTuple):
    ypen: np.ndarray  # the penalised lower-level copy y
    lam: np.ndarray   # (1,) the multiplier lambda_k


def state(config, dims, y0):
    """y starts at y0, lambda at lambda_0."""
    return State(ypen=y0.copy(), lam=np.full(1, float(config.lmbda0)))


@njit(cache=True, inline="always")
def own_finite(own):
    bad = False
    for c in range(own.ypen.shape[0]):
        bad |= not_finite(own.ypen[c])
    return not bad


@njit(cache=True, inline="always")
def f2sa_iteration(model, levels, iterates, work, cfg, stream, k):
    b = cfg.batch
    blocks = cfg.blocks
    x, wy, yp = iterates.x, iterates.y, work.own.ypen
    lam = work.own.lam[0]
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    betaw_k = schedule(cfg.beta, cfg.own.exponent_w, k)
    dy = wy.shape[0]
    for _ in range(cfg.n_inner):
        J = keep(levels[G].cur, fresh(stream, levels[G], b, blocks), b)
        Jw = fresh(stream, levels[G], b, blocks)
        grad_y_g(model, levels, stream, Jw, b, x, wy, work.gy2, work)
        I = fresh(stream, levels[F], b, blocks)
        # grad_y f_I (the f-part of D^z is -grad_y F) + lambda grad_y g_J
        work.hv[:] = 0.0
        level_mean(F, model, levels, stream, I, b, (x, yp, yp),
                   (0.0, 0.0, -1.0), (work.tx, work.ty, work.hv))
        level_mean(G, model, levels, stream, J, b, (x, yp, work.none),
                   (0.0, lam, 0.0), (work.tx, work.hv, work.tz))
        reg_at(model, x, yp, yp, work.rx, work.ry, work.rz, False)
        for c in range(dy):
            yp[c] -= beta_k * (work.hv[c] + lam * work.ry[c])
            wy[c] -= betaw_k * work.gy2[c]
    I = fresh(stream, levels[F], b, blocks)
    work.d[:] = 0.0
    level_mean(F, model, levels, stream, I, b, (x, yp, yp), (1.0, 0.0, 0.0),
               (work.d, work.ty, work.tz))
    # rx: the UL x-regularisation
    reg_at(model, x, yp, work.zero, work.rx, work.ry, work.rz, True)
    for c in range(x.shape[0]):
        work.d[c] += work.rx[c]
    J1 = keep(levels[G].cur, fresh(stream, levels[G], b, blocks), b)
    J2 = fresh(stream, levels[G], b, blocks)
    grad_x_g(model, levels, stream, J1, b, x, yp, lam, work.d, work.rx)
    grad_x_g(model, levels, stream, J2, b, x, wy, -lam, work.d, work.rx)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    for c in range(x.shape[0]):
        x[c] -= alpha_k * work.d[c]
    for c in range(dy):
        iterates.z[c] = lam * (wy[c] - yp[c])
    work.own.lam[0] = lam + schedule(cfg.own.delta_lmbda,
                                     cfg.own.exponent_delta, k)


FAMILY = Family(
    marker="Penalty", label="penalty", iteration=f2sa_iteration,
    algorithms={"F2SA": NEUMANN},
    parameters={
        "lmbda0": Parameter(1.0, "positive", "the multiplier lambda_0"),
        "delta_lmbda": Parameter(0.1, "nonnegative",
                                 "delta in delta_k = delta / (k + 1)^"
                                 "exponent_delta"),
        "exponent_w": Parameter(4 / 7, "exponent",
                                "the decay of the w step beta^w_k"),
        "exponent_delta": Parameter(6 / 7, "exponent",
                                    "the decay of delta_k"),
    },
    params=Params, state=state, finite=own_finite)
