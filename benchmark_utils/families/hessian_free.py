"""The Hessian-free families (docs/baselines.md §3.10, 3.11): BOME's
value-function step and PZOBO's zeroth-order hypergradient, both from
gradients of f and g only.  One outer iteration k at u_k = (x_k, y_k),
with beta_k, alpha_k the y and x steps:

BOME (Ye, Liu, Wright, Stone, Liu, "BOME! Bilevel optimization made easy:
a simple first-order approach", NeurIPS 2022, Alg. 1), on the value-function
constraint q(x, y) = g(x, y) - g(x, y-hat) <= 0:

    J_1..J_T fresh: y-hat = T steps y <- y - beta_k grad_y g_{J_t}(x_k, y)
                    from y_k
    I fresh:  grad f = (grad_x f_I, grad_y f_I)(x_k, y_k)
    J fresh:  grad q = (grad_x g_J(x_k, y_k) - grad_x g_J(x_k, y-hat),
                        grad_y g_J(x_k, y_k))
    phi_k = eta |grad q|^2;  lambda_k = max(phi_k - <grad f, grad q>, 0)
                                        / |grad q|^2   (0 if grad q = 0)
    (x, y)_{k+1} = (x_k, y_k) - (alpha_k, beta_k) * (grad f + lambda_k grad q)

PZOBO (Sow, Ji, Liang, "On the convergence theory for Hessian-free bilevel
algorithms", NeurIPS 2022, Alg. 1; minibatches as in its stochastic form):

    J_1..J_T fresh: y_{k+1} = the T steps above from y_k, recorded
    I fresh:  d = grad_x f_I(x_k, y_{k+1}),  r = grad_y f_I(x_k, y_{k+1})
    j = 1..Q: u_j ~ N(0, I) (the run's generator, rng.normal);
              y^T(x_k + mu u_j) = the same T steps from y_k on J_1..J_T;
              delta_j = (y^T(x_k + mu u_j) - y_{k+1}) / mu
    x_{k+1} = x_k - alpha_k (d + (1/Q) sum_j <delta_j, r> u_j)

Full batches (``BConfig.batch`` 0, ``batch_size="full"``): every batch is
its whole level and nothing is drawn.  The reported z stays z_0: neither
method estimates z*(x).
"""

from typing import NamedTuple

import numpy as np

from ..jit.refcount import NO_REFCOUNT, copy_into
from ..numba_cache import njit
from ..core.oracles import grad_x_g, reg_at
from ..core.records import F, G, N_SAMPLES
from ..core.rng import normal
from ..core.solves import NEUMANN, fresh, grad_y_g, keep, ul_pass
from ..core.schedule import schedule
from . import Family, Parameter

# BOME's phi_k: eta |grad q|^2 only; eta (g(x_k, y_k) - g(x_k, y-hat))
# needs values of g, which the core's oracles do not compute.
CHOICE_PHI = ("grad_norm",)


class BomeParams(NamedTuple):
    storm_a: float  # eta, the weight of phi_k (the parameter eta fills it)


class BomeState(NamedTuple):
    yhat: np.ndarray   # y after T steps from y_k
    steps: np.ndarray  # (T, b) int64: the batches J_1..J_T
    lam: np.ndarray    # (1,) the last lambda_k


class PzoboParams(NamedTuple):
    mu: float                # the perturbation radius
    n_gaussian_vectors: int  # Q Gaussian directions per outer iteration


class PzoboState(NamedTuple):
    ystart: np.ndarray  # y_k
    yhat: np.ndarray    # y^T(x_k + mu u_j)
    xpert: np.ndarray   # x_k + mu u_j
    gauss: np.ndarray   # u_j
    steps: np.ndarray   # (T, b) int64: the batches J_1..J_T


def _steps(config, dims):
    return np.zeros((int(config.n_inner_steps), dims.batch), dtype=np.int64)


def bome_state(config, dims, y0):
    return BomeState(yhat=np.zeros(dims.dy), steps=_steps(config, dims),
                     lam=np.zeros(1))


def pzobo_state(config, dims, y0):
    return PzoboState(ystart=y0.copy(), yhat=np.zeros(dims.dy),
                      xpert=np.zeros(dims.dx), gauss=np.zeros(dims.dx),
                      steps=_steps(config, dims))


@njit(cache=True, inline="always")
def batch(stream, level, b, blocks):
    """``(ids, count)``: a fresh batch of ``b`` samples of ``level``, or
    the whole level when ``b`` is 0 (full batches)."""
    if b == 0:
        return level.ident, level.N
    return fresh(stream, level, b, blocks), b


@njit(cache=True, inline="always")
def draw_steps(stream, level, b, blocks, T, steps):
    """The batches J_1..J_T of T steps, drawn in order into the rows of
    ``steps``; none with full batches."""
    if b > 0:
        for t in range(T):
            keep(steps[t], fresh(stream, level, b, blocks), b)


@njit(cache=True, **NO_REFCOUNT)
def gd_steps(model, levels, stream, T, beta, x, y, b, steps, work):
    """``y <- y - beta grad_y g_{J_t}(x, y)``, t < T, in place, on the
    recorded batches ``steps[t]`` (the whole LL level when ``b`` is 0):
    the T steps can be run again from another start on the same batches
    (PZOBO)."""
    level = levels[G]
    for t in range(T):
        if b == 0:
            ids, count = level.ident, level.N
        else:
            ids, count = steps[t], b
        grad_y_g(model, levels, stream, ids, count, x, y, work.gy, work)
        for c in range(y.shape[0]):
            y[c] -= beta * work.gy[c]


@njit(cache=True, inline="always")
def grad_f(model, levels, stream, ids, count, x, y, fx, fy, work):
    """``fx = grad_x f_I(x, y)`` (with the UL x-regularisation), ``fy =
    grad_y f_I(x, y)``: one UL call."""
    ul_pass(model, levels, stream, ids, count, (x, y), (fx, fy), work)
    reg_at(model, x, y, work.zero, work.rx, work.ry, work.rz, True)
    for c in range(fx.shape[0]):
        fx[c] += work.rx[c]


@njit(cache=True, inline="always")
def bome_iteration(model, levels, iterates, work, cfg, stream, k):
    b = cfg.batch
    blocks = cfg.blocks
    T = cfg.n_inner
    x, y, yhat = iterates.x, iterates.y, work.own.yhat
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    copy_into(yhat, y)
    draw_steps(stream, levels[G], b, blocks, T, work.own.steps)
    gd_steps(model, levels, stream, T, beta_k, x, yhat, b, work.own.steps,
             work)
    fx, fy, qx, qy = work.ux, work.r, work.d, work.gy2
    ids, count = batch(stream, levels[F], b, blocks)
    grad_f(model, levels, stream, ids, count, x, y, fx, fy, work)
    ids, count = batch(stream, levels[G], b, blocks)
    qx[:] = 0.0
    grad_x_g(model, levels, stream, ids, count, x, y, 1.0, qx, work.rx)
    grad_x_g(model, levels, stream, ids, count, x, yhat, -1.0, qx, work.rx)
    grad_y_g(model, levels, stream, ids, count, x, y, qy, work)
    # grad_x g_J and grad_y g_J at (x_k, y_k) are one oracle call
    # (docs/baselines.md §1): counted once
    stream.counters[N_SAMPLES] -= count
    norm2 = 0.0
    dot = 0.0
    for c in range(x.shape[0]):
        norm2 += qx[c] * qx[c]
        dot += fx[c] * qx[c]
    for c in range(y.shape[0]):
        norm2 += qy[c] * qy[c]
        dot += fy[c] * qy[c]
    lam = 0.0
    if norm2 > 0.0:
        lam = max(cfg.own.storm_a * norm2 - dot, 0.0) / norm2
    work.own.lam[0] = lam
    for c in range(x.shape[0]):
        x[c] -= alpha_k * (fx[c] + lam * qx[c])
    for c in range(y.shape[0]):
        y[c] -= beta_k * (fy[c] + lam * qy[c])


@njit(cache=True, inline="always")
def pzobo_iteration(model, levels, iterates, work, cfg, stream, k):
    b = cfg.batch
    blocks = cfg.blocks
    T = cfg.n_inner
    x, y = iterates.x, iterates.y
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    own = work.own
    y0, u, xp, yp = own.ystart, own.gauss, own.xpert, own.yhat
    copy_into(y0, y)
    draw_steps(stream, levels[G], b, blocks, T, own.steps)
    gd_steps(model, levels, stream, T, beta_k, x, y, b, own.steps, work)
    d, r = work.d, work.r
    ids, count = batch(stream, levels[F], b, blocks)
    grad_f(model, levels, stream, ids, count, x, y, d, r, work)
    mu = cfg.own.mu
    n_dirs = cfg.own.n_gaussian_vectors
    scale = 1.0 / (mu * n_dirs)
    for _ in range(n_dirs):
        for c in range(x.shape[0]):
            u[c] = normal(stream.rng)
            xp[c] = x[c] + mu * u[c]
        copy_into(yp, y0)
        gd_steps(model, levels, stream, T, beta_k, xp, yp, b, own.steps,
                 work)
        s = 0.0
        for c in range(y.shape[0]):
            s += (yp[c] - y[c]) * r[c]
        s *= scale
        for c in range(x.shape[0]):
            d[c] += s * u[c]
    for c in range(x.shape[0]):
        x[c] -= alpha_k * d[c]


# storm_a is BOME's eta: the baselines' parameter ``eta`` fills it
# (algorithms/table.py, BASELINE.renames)
VALUE_FUNCTION = Family(
    marker="ValueFunction", label="value-function", iteration=bome_iteration,
    algorithms={"BOME": NEUMANN},
    parameters={
        "storm_a": Parameter(0.5, "positive",
                             "eta, the weight of phi_k (Ye et al., 2022)"),
        "choice_phi": Parameter(
            "grad_norm",
            ("choice", CHOICE_PHI, " (phi = eta (g(x, y) - g(x, y-hat)) "
             "needs values of g, which the core does not compute)"),
            "phi_k: eta |grad q|^2"),
    },
    params=BomeParams, state=bome_state)

ZEROTH_ORDER = Family(
    marker="ZerothOrder", label="zeroth-order", iteration=pzobo_iteration,
    algorithms={"PZOBO": NEUMANN},
    parameters={
        "mu": Parameter(0.1, "positive", "the perturbation radius mu"),
        "n_gaussian_vectors": Parameter(
            10, ("integer", 1), "Q, Gaussian directions per outer "
            "iteration"),
    },
    params=PzoboParams, state=pzobo_state)
