"""The iterative-differentiation family (docs/baselines.md §3): ITD, the
reverse-mode derivative of the upper level through T unrolled gradient
steps on the lower level (Franceschi, Donini, Frasconi, Pontil, ICML 2017,
"Forward and reverse gradient-based hyperparameter optimization", reverse
mode; Grazzi, Franceschi, Pontil, Salzo, ICML 2020, "On the iteration
complexity of hypergradient computation").  One outer iteration k at x_k:

    y_0 = y_k (warm start) or the run's y0;  for t < T, J_t fresh:
        y_{t+1} = y_t - beta_k grad_y g_{J_t}(x_k, y_t)     (y_t, J_t kept)
    I fresh:  d = grad_x f_I(x_k, y_T),  v_T = grad_y f_I(x_k, y_T)
    for t = T-1, ..., 0, on the kept y_t and J_t (one LL call each):
        d   <- d - beta_k hess_xy g_{J_t}(x_k, y_t) v_{t+1}
        v_t  = v_{t+1} - beta_k hess_yy g_{J_t}(x_k, y_t) v_{t+1}
    x_{k+1} = x_k - alpha_k d;  reported y := y_T,
    z := beta_k sum_{t<T} v_{t+1}

d is the exact gradient of x -> f_I(x, y_T(x)) through the T steps on
their batches (the start y_0 held fixed).  With one Hessian H and one
cross term X along the loop, d = grad_x f_I - X z and z = beta_k
sum_{j<T} (I - beta_k H)^j v_T, a Neumann series of T terms that tends to
H^{-1} grad_y f_I: z is ITD's estimate of z*(x).

The forward loop is B1 (``solves.sgd_y``) made of the same blocks
(``step_batch``, ``grad_y_g``) with its iterates and batches kept in
``work.own.ytraj``, ``work.own.steps`` (allocated once per run); the backward
pass is one ``oracles.level_mean`` call per step, whose weights give the
cross term and the Hessian-vector product at once.
"""

from typing import NamedTuple

import numpy as np

from ..jit.refcount import copy_into
from ..numba_cache import njit
from ..core.oracles import level_mean, reg_at
from ..core.records import F, G
from ..core.solves import (NEUMANN, fresh, grad_y_g, keep, step_batch,
                           ul_pass)
from ..core.schedule import schedule
from . import Family, Parameter


class Params(NamedTuple):
    warm_start: bool  # each inner loop starts at y_k (else at the run's y0)


class State(NamedTuple):
    ystart: np.ndarray  # the run's y0
    steps: np.ndarray   # (T, b) int64: the batches J_0..J_{T-1}
    ytraj: np.ndarray   # (T, dim y): the inner iterates y_0..y_{T-1}


def state(config, dims, y0):
    T = int(config.n_inner_steps)
    return State(ystart=y0.copy(),
                 steps=np.zeros((T, dims.batch), dtype=np.int64),
                 ytraj=np.zeros((T, dims.dy)))


@njit(cache=True, inline="always")
def itd_iteration(model, levels, iterates, work, cfg, stream, k):
    b = cfg.batch
    T = cfg.n_inner
    x, y, z = iterates.x, iterates.y, iterates.z
    dx, dy = x.shape[0], y.shape[0]
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    if not cfg.own.warm_start:
        copy_into(y, work.own.ystart)
    for t in range(T):  # forward: B1, keeping y_t and J_t
        ids = step_batch(stream, levels[G], b, cfg.blocks, t, T, work)
        copy_into(work.own.ytraj[t], y)
        keep(work.own.steps[t], ids, b)
        grad_y_g(model, levels, stream, ids, b, x, y, work.gy, work)
        for c in range(dy):
            y[c] -= beta_k * work.gy[c]
    d, v = work.d, work.w1
    ids = fresh(stream, levels[F], b, cfg.blocks)
    ul_pass(model, levels, stream, ids, b, (x, y), (d, v), work)
    # the UL x-regularisation: rx at a zero vector in the z slot
    reg_at(model, x, y, work.zero, work.rx, work.ry, work.rz, True)
    for c in range(dx):
        d[c] += work.rx[c]
    z[:] = 0.0
    # without ``cross`` the data part of hess_xy g is zero: weight 0
    cx = beta_k if cfg.cross else 0.0
    for i in range(T):  # backward, t = T-1..0
        t = T - 1 - i
        yt = work.own.ytraj[t]
        for c in range(dy):
            z[c] += beta_k * v[c]
        work.hv[:] = 0.0
        # d -= beta_k mean_J hess_xy G_j v; hv = mean_J hess_yy G_j v
        level_mean(G, model, levels, stream, work.own.steps[t], b,
                   (x, yt, v), (cx, 0.0, 1.0), (d, work.ty, work.hv))
        # exact parts: rx(v) - rx(0) = -hess_xy R v, rz = hess_yy R v
        reg_at(model, x, yt, v, work.rx, work.ry, work.rz, True)
        reg_at(model, x, yt, work.zero, work.tx, work.ty, work.tz, True)
        for c in range(dx):
            d[c] += beta_k * (work.rx[c] - work.tx[c])
        for c in range(dy):
            v[c] -= beta_k * (work.hv[c] + work.rz[c])
    for c in range(dx):
        x[c] -= alpha_k * d[c]


FAMILY = Family(
    marker="Unrolled", label="iterative-differentiation",
    iteration=itd_iteration,
    algorithms={"ITD": NEUMANN},  # no inverse-Hessian solver: unused
    parameters={
        "warm_start": Parameter(True, "bool",
                                "each inner loop starts at y_k (else at "
                                "the run's y0)"),
    },
    params=Params, state=state)
