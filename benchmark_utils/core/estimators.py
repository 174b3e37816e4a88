"""Stochastic estimators of docs/algorithms.md §3 as linear update rules.

Every estimator in the table is, at iteration ``k``, either a *full*
evaluation ``v_k = grad(u_k)`` (PAGE with probability ``p``, SARAH every
``period`` iterations, the ``full`` initialisations) or the linear recursion

    v_k = c_v v_{k-1} + mean_{q in P} L_q(a_cur k_q(u_k) + a_prev k_q(u_{k-1})
                                         + a_tab T_q) + a_bar Tbar

followed, for memory methods, by ``T_q <- k_q(u_k)`` for ``q in P``
(``k_q`` are per-sample coefficients, see ``tasks``).  ``rule`` fills
the seven named slots ``IS_FULL, C_V, A_CUR, A_PREV, A_TAB, A_BAR,
UPD_TABLE``:

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
Table bookkeeping next to the rule: ``carry`` applies the batch-free part
``c_v v_{k-1} + a_bar Tbar``; ``saga_form`` / ``tbar_from_batch`` update
Tbar (``Tbar += mean... L_q(k_q(u_k) - T_q) / N``) from the batch part of v
when every table direction has the SAGA form.
References: SAGA (Defazio et al. 2014), SARAH (Nguyen et al. 2017), STORM
(Cutkosky & Orabona 2019), PAGE (Li et al. 2021), ZeroSARAH (Li et al. 2021).
"""
import math

from ..numba_cache import njit


SGD, SAGA, SARAH, STORM, PAGE, ZEROSARAH = 0, 1, 2, 3, 4, 5
NAMES = {"sgd": SGD, "saga": SAGA, "sarah": SARAH, "storm": STORM,
         "page": PAGE, "zerosarah": ZEROSARAH}
UNBIASED = {SGD, SAGA}
WITH_TABLE = {SAGA, ZEROSARAH}
_TABLE_KINDS = tuple(sorted(WITH_TABLE))  # a constant numba can iterate
# The parameter each estimator reads: its name (a field of PnPBOConfig)
# and its values (``"unit"``: in (0, 1]; ``"integer"``: an integer >= 1).
# The numeric configuration holds them in one array, ``theta[kind]``.
PARAMETERS = {SARAH: ("period", "integer"), STORM: ("storm_a", "unit"),
              PAGE: ("p", "unit"), ZEROSARAH: ("rho_bar", "unit")}
PARAM_NAME = {kind: PARAMETERS[kind][0] if kind in PARAMETERS else None
              for kind in NAMES.values()}
# Slots of a rule.
IS_FULL, C_V, A_CUR, A_PREV, A_TAB, A_BAR, UPD_TABLE = range(7)
N_RULE = 7


@njit(cache=True)
def rule(kind, k, coin, init_full, theta, out):
    """Fill ``out[:N_RULE]`` with the update rule of estimator ``kind`` at
    iteration ``k`` (see module docstring); each estimator reads its own
    parameter ``theta[kind]`` (``PARAMETERS``: p of PAGE, rho_bar of
    ZeroSARAH, a of STORM, the period of SARAH)."""
    out[IS_FULL] = 0.0
    out[C_V] = 0.0
    out[A_CUR] = 1.0
    out[A_PREV] = 0.0
    out[A_TAB] = 0.0
    out[A_BAR] = 0.0
    out[UPD_TABLE] = 0.0
    if kind == SGD:
        return
    if kind == SAGA:
        if k == 0 and init_full:
            out[IS_FULL] = 1.0
        else:
            out[A_TAB] = -1.0
            out[A_BAR] = 1.0
            out[UPD_TABLE] = 1.0
        return
    if kind == SARAH:
        if k % int(theta[SARAH]) == 0:
            out[IS_FULL] = 1.0
        else:
            out[C_V] = 1.0
            out[A_PREV] = -1.0
        return
    if kind == STORM:
        if k == 0:
            if init_full:
                out[IS_FULL] = 1.0
        else:
            storm_a = theta[STORM]
            out[C_V] = 1.0 - storm_a
            out[A_PREV] = -(1.0 - storm_a)
        return
    if kind == PAGE:
        if k == 0 or coin < theta[PAGE]:
            out[IS_FULL] = 1.0
        else:
            out[C_V] = 1.0
            out[A_PREV] = -1.0
        return
    if kind == ZEROSARAH:
        if k == 0:
            if init_full:
                out[IS_FULL] = 1.0
            else:
                out[UPD_TABLE] = 1.0
        else:
            rho_bar = theta[ZEROSARAH]
            out[C_V] = 1.0 - rho_bar
            out[A_PREV] = -(1.0 - rho_bar)
            out[A_TAB] = -rho_bar
            out[A_BAR] = rho_bar
            out[UPD_TABLE] = 1.0
        return


@njit(cache=True)
def has_table(kind):
    """Whether estimator ``kind`` keeps a coefficient table (WITH_TABLE)."""
    for t in _TABLE_KINDS:
        if kind == t:
            return True
    return False


@njit(cache=True, inline="always")
def carry(e, tb, cv, ab):
    """``e <- cv e + ab Tbar`` (the part of a linear rule that does not
    depend on the batch), without a pass when it is the identity."""
    if ab == 0.0:
        if cv == 0.0:
            e[:] = 0.0
        elif cv != 1.0:
            for c in range(e.shape[0]):
                e[c] *= cv
    else:
        for c in range(e.shape[0]):
            e[c] = cv * e[c] + ab * tb[c]


@njit(cache=True, inline="always")
def saga_form(W, tmask):
    """Whether every table direction d has batch weights ``W[d] = (a, 0,
    -a)``: then T-bar's increment ``mean... L_q(k_q(u_k) - T_q) / N`` is
    ``b / (a N)`` times the batch part the pass adds to ``e_d``
    (``tbar_from_batch``), and no second pass over the rows is needed."""
    any_table = False
    for d in range(3):
        if tmask[d] != 0.0:
            any_table = True
            if not (W[d, 1] == 0.0 and W[d, 0] != 0.0
                    and W[d, 2] == -W[d, 0]):
                return False
    return any_table


@njit(cache=True, inline="always")
def tbar_from_batch(tb, e, snap, scale):
    """``Tbar += scale (e - snap)`` (the batch part a pass added to e, for a
    SAGA-form direction), then ``snap <- e``."""
    for c in range(e.shape[0]):
        tb[c] += scale * (e[c] - snap[c])
        snap[c] = e[c]


@njit(cache=True, inline="always")
def moving_average(v_prev, vhat, rho, first):
    """MA of PnPBO line 5, one coordinate: ``(1 - rho) v_prev + rho vhat``;
    ``vhat`` at the first iteration (``v_{-1} := vhat_0``, docs/algorithms.md
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


@njit(cache=True, inline="always")
def iteration_rules(cfg, k, coin, rules, tmask):
    """The rules of the three directions at iteration ``k`` into ``rules``
    (one row each) and ``tmask`` (directions that update a table); returns
    ``(any_full, full_f, any_table)``: whether a direction is a full
    evaluation, whether one with a UL part (x or z; D^y has none) is, and
    whether a table is updated."""
    any_full = False
    full_f = False
    any_table = False
    for d in range(3):
        rule(cfg.kinds[d], k, coin, cfg.init_full, cfg.theta, rules[d])
        if rules[d, IS_FULL] != 0.0:
            any_full = True
            if d != 1:
                full_f = True
        tmask[d] = rules[d, UPD_TABLE]
        if rules[d, UPD_TABLE] != 0.0:
            any_table = True
    return any_full, full_f, any_table


@njit(cache=True, inline="always")
def batch_weights(rules, W, evec, tvec):
    """Weights ``W[d] = (a_cur, a_prev, a_tab)`` of the minibatch pass (0
    for a full direction) and ``e_d <- c_v e_d + a_bar Tbar_d`` for the
    others; returns which levels need a batch and which at u_{k-1}:
    ``(batch_f, batch_g, prev_f, prev_g)`` (D^y has no UL part)."""
    batch_f = False
    batch_g = False
    prev_f = False
    prev_g = False
    for d in range(3):
        full_d = rules[d, IS_FULL] != 0.0
        for c in range(3):
            W[d, c] = 0.0 if full_d else rules[d, A_CUR + c]
        if not full_d:
            batch_g = True
            if rules[d, A_PREV] != 0.0:
                prev_g = True
            if d != 1:
                batch_f = True
                if rules[d, A_PREV] != 0.0:
                    prev_f = True
            carry(evec[d], tvec[d], rules[d, C_V], rules[d, A_BAR])
    return batch_f, batch_g, prev_f, prev_g
