"""Stochastic estimators of ALGORITHMS.md §3 as linear update rules.

Every estimator in the table is, at iteration ``k``, either a *full*
evaluation ``v_k = grad(u_k)`` (PAGE with probability ``p``, SARAH every
``period`` iterations, the ``full`` initialisations) or the linear recursion

    v_k = c_v v_{k-1} + mean_{q in P} L_q(a_cur k_q(u_k) + a_prev k_q(u_{k-1})
                                         + a_tab T_q) + a_bar Tbar

followed, for memory methods, by ``T_q <- k_q(u_k)`` for ``q in P``
(``k_q`` are per-sample coefficients, see ``problems``).  ``rule`` returns the
seven numbers ``[is_full, c_v, a_cur, a_prev, a_tab, a_bar, updates_table]``:

    SGD        v_k = grad_P(u_k)                                  [0, 0, 1, 0, 0, 0, 0]
    SAGA       v_k = grad_P(u_k) - mean_P T + Tbar               [0, 0, 1, 0,-1, 1, 1]
    SARAH      v_k = v_{k-1} + grad_P(u_k) - grad_P(u_{k-1})     [0, 1, 1,-1, 0, 0, 0]
    STORM(a)   v_k = grad_P(u_k) + (1-a)(v_{k-1} - grad_P(u_{k-1}))
                                                    [0, 1-a, 1, -(1-a), 0, 0, 0]
    PAGE(p)    full w.p. p, else as SARAH
    ZeroSARAH(rb) v_k = (1-rb)(v_{k-1} - grad_P(u_{k-1})) + grad_P(u_k)
                        + rb (Tbar - mean_P T)
                                          [0, 1-rb, 1, -(1-rb), -rb, rb, 1]

Initialisation (k = 0): SGD minibatch; SAGA and ZeroSARAH ``full`` (tables
filled at u_0, v_0 = grad(u_0)) or ``minibatch`` (T = 0, v_0 = grad_P0(u_0),
then T_q <- k_q(u_0) on P0 -- SAGA's ``zero`` start is the same update);
SARAH and PAGE full; STORM minibatch, or full when ``init_full``.
References: SAGA (Defazio et al. 2014), SARAH (Nguyen et al. 2017), STORM
(Cutkosky & Orabona 2019), PAGE (Li et al. 2021), ZeroSARAH (Li et al. 2021).
"""
import math

from numba import njit

SGD, SAGA, SARAH, STORM, PAGE, ZEROSARAH = 0, 1, 2, 3, 4, 5
NAMES = {"sgd": SGD, "saga": SAGA, "sarah": SARAH, "storm": STORM,
         "page": PAGE, "zerosarah": ZEROSARAH}
UNBIASED = {SGD, SAGA}
WITH_TABLE = {SAGA, ZEROSARAH}
# The parameter each estimator reads from its ``est_param`` slot.
PARAM_NAME = {SGD: None, SAGA: None, SARAH: "period", STORM: "a",
              PAGE: "p", ZEROSARAH: "rho_bar"}


@njit(cache=True)
def rule(kind, param, k, coin, init_full, out):
    """Fill ``out[:7]`` with the update rule of estimator ``kind`` at
    iteration ``k`` (see module docstring)."""
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 1.0
    out[3] = 0.0
    out[4] = 0.0
    out[5] = 0.0
    out[6] = 0.0
    if kind == SGD:
        return
    if kind == SAGA:
        if k == 0 and init_full:
            out[0] = 1.0
        else:
            out[4] = -1.0
            out[5] = 1.0
            out[6] = 1.0
        return
    if kind == SARAH:
        if k % int(param) == 0:
            out[0] = 1.0
        else:
            out[1] = 1.0
            out[3] = -1.0
        return
    if kind == STORM:
        if k == 0:
            if init_full:
                out[0] = 1.0
        else:
            out[1] = 1.0 - param
            out[3] = -(1.0 - param)
        return
    if kind == PAGE:
        if k == 0 or coin < param:
            out[0] = 1.0
        else:
            out[1] = 1.0
            out[3] = -1.0
        return
    if kind == ZEROSARAH:
        if k == 0:
            if init_full:
                out[0] = 1.0
            else:
                out[6] = 1.0
        else:
            out[1] = 1.0 - param
            out[3] = -(1.0 - param)
            out[4] = -param
            out[5] = param
            out[6] = 1.0
        return


@njit(cache=True, inline="always")
def moving_average(v_prev, vhat, rho, first):
    """MA of PnPBO line 5, one coordinate: ``(1 - rho) v_prev + rho vhat``;
    ``vhat`` at the first iteration (``v_{-1} := vhat_0``, ALGORITHMS.md
    §2)."""
    if first:
        return vhat
    return (1.0 - rho) * v_prev + rho * vhat


@njit(cache=True)
def clip_norm(z, R):
    """``Clip(z; R) = min(1, R / |z|) z`` in place (Euclidean norm of the
    whole vector; ``R = inf`` disables it)."""
    if not math.isfinite(R):
        return
    s = 0.0
    for k in range(z.shape[0]):
        s += z[k] * z[k]
    nz = math.sqrt(s)
    if nz > R:
        scale = R / nz
        for k in range(z.shape[0]):
            z[k] *= scale
