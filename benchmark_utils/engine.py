"""Algorithm 1 (PnPBO) of the PnPBO paper: one numba loop for every preset.

One iteration ``k`` (ALGORITHMS.md §2), all estimates formed at the same
point ``u_k = (x_k, y_k, z_k)``:

    sample I_k, J_k;   (PAGE coin first, when a PAGE module is present)
    vhat^x = A(...),  v^x = vhat^x  or  (1 - rho) v^x + rho vhat^x  (MA)
    v^y = B(...),  v^z = C(...)
    x <- x - alpha_k v^x,  y <- y - beta_k v^y,  z <- Clip(z - gamma_k v^z; R)

with step sizes ``c / (k + 1)^e``.  The estimators are the linear rules of
``estimators.rule``; the data part of each direction is estimated, the
deterministic regularisation part is added exactly at ``u_k``.  The loop stops
early, with ``counters[STATUS] = DIVERGED``, as soon as an iterate is not
finite.  Nothing is allocated inside the loop.
"""
import math

import numpy as np
from numba import njit

from .estimators import clip_norm, moving_average, rule, PAGE
from .prefetch import prefetch_labels, prefetch_rows
from .problems.dispatch import apply_f, apply_g, coef_f, coef_g, reg
from .sampling import draw_batch, draw_coin

# counters slots (AHEAD: the next iteration's coin and batches are drawn)
K_ITER, N_SAMPLES, STATUS, AHEAD = 0, 1, 2, 3
RUNNING, DIVERGED = 0, 1
# iconf slots
I_INIT_FULL, I_MA, I_LARGE_BATCH, I_BATCH = 0, 1, 2, 3
# fconf slots
F_ALPHA, F_BETA, F_GAMMA, F_EX, F_EY, F_EZ, F_RHO, F_R = range(8)
# Batch buffers (per part), shape (N_BUF, chunk, K): coefficients at u_k and
# u_{k-1}, the three directions' combined coefficients, the table deltas.
B_CUR, B_PREV, B_CX, B_CY, B_CZ, B_DX, B_DY, B_DZ = range(8)
N_BUF = 8
CHUNK = 256  # samples per chunk of a full pass


@njit(cache=True, inline="always")
def _coef(is_f, task, X, yv, params, idx, start, count, x, y, z, K):
    if is_f:
        coef_f(task, X, yv, params, idx, start, count, x, y, z, K)
    else:
        coef_g(task, X, yv, params, idx, start, count, x, y, z, K)


@njit(cache=True, inline="always")
def _apply(is_f, task, X, yv, params, idx, start, count, Cx, Cy, Cz,
           ox, oy, oz):
    if is_f:
        apply_f(task, X, yv, params, idx, start, count, Cx, Cy, Cz,
                ox, oy, oz)
    else:
        apply_g(task, X, yv, params, idx, start, count, Cx, Cy, Cz,
                ox, oy, oz)


@njit(cache=True, inline="always")
def _mean_pass(is_f, task, X, yv, params, idx, count, x, y, z,
               ox, oy, oz, S, fill, T):
    """Add ``mean_{q in idx[:count]}`` of the directions of this part at
    ``(x, y, z)`` to ``ox, oy, oz``, chunk by chunk; optionally store the
    coefficients in the table ``T`` (full initialisation)."""
    K = S.shape[2]
    Kc = S[B_CUR]
    C = S[B_CX]
    ch = S.shape[1]
    inv = 1.0 / count
    for start in range(0, count, ch):
        c = min(ch, count - start)
        _coef(is_f, task, X, yv, params, idx, start, c, x, y, z, Kc)
        for t in range(c):
            for k in range(K):
                C[t, k] = Kc[t, k] * inv
        _apply(is_f, task, X, yv, params, idx, start, c, C, C, C,
               ox, oy, oz)
        if fill:
            for t in range(c):
                for k in range(K):
                    T[idx[start + t], k] = Kc[t, k]


@njit(cache=True, inline="always")
def _batch_pass(is_f, task, X, yv, params, idx, nidx, b, N, x, y, z, xp,
                yp, zp, W, need_prev, read_table, upd_table, apply_delta,
                tmask, T, ex, ey, ez, tbx, tby, tbz, S):
    """One minibatch ``idx[:b]`` of one part (f if ``is_f``): coefficients at
    u_k (and u_{k-1}), after a prefetch of the rows ``nidx[:b]`` of the
    next iteration's batch, then ``e_d += mean_q L_q(W[d,0] k_cur + W[d,1] k_prev +
    W[d,2] T_q)`` for each direction d; for memory methods also
    ``Tbar_d += L_q(k_cur - T_q) / N`` (``tmask[d]``: d keeps a table; only
    with ``apply_delta``, see ``_tbar_from_batch``) and ``T_q <- k_cur``.
    Each kernel has one call site (in loops over the points and the
    outputs): numba inlines callees, and every extra call site of a kernel
    multiplies the compile time."""
    K = S.shape[2]
    Kc = S[B_CUR]
    Kp = S[B_PREV]
    invb = 1.0 / b
    invN = 1.0 / N
    # Look-ahead: the next batch's rows, labels and table lines are
    # requested now; they arrive while this batch is computed.
    prefetch_rows(X, nidx, b)
    prefetch_labels(yv, nidx, b)
    if read_table:
        prefetch_rows(T, nidx, b)
    for which in range(2 if need_prev else 1):
        if which == 0:
            _coef(is_f, task, X, yv, params, idx, 0, b, x, y, z, Kc)
        else:
            _coef(is_f, task, X, yv, params, idx, 0, b, xp, yp, zp, Kp)
    for t in range(b):
        q = idx[t]
        for c in range(K):
            tq = T[q, c] if read_table else 0.0
            kp = Kp[t, c] if need_prev else 0.0
            kc = Kc[t, c]
            for d in range(3):
                S[B_CX + d, t, c] = (W[d, 0] * kc + W[d, 1] * kp
                                     + W[d, 2] * tq) * invb
            if upd_table:
                if apply_delta:
                    delta = (kc - tq) * invN
                    for d in range(3):
                        S[B_DX + d, t, c] = delta * tmask[d]
                T[q, c] = kc
    for which in range(2 if upd_table and apply_delta else 1):
        if which == 0:
            _apply(is_f, task, X, yv, params, idx, 0, b, S[B_CX], S[B_CY],
                   S[B_CZ], ex, ey, ez)
        else:
            _apply(is_f, task, X, yv, params, idx, 0, b, S[B_DX], S[B_DY],
                   S[B_DZ], tbx, tby, tbz)


@njit(cache=True)
def run_iterations(task, Xf, yf, Xg, yg, params,
                   kinds, eparams, iconf, fconf, n_iter,
                   x, y, z, xp, yp, zp, ex, ey, ez, vx, rx, ry, rz,
                   fx, fy, fz, tbx, tby, tbz, Tf, Tg, Sf, Sg,
                   perm_f, perm_g, perm_fl, perm_gl, ident_f, ident_g,
                   cur_f, cur_g, coin_ahead, rng, counters, rules):
    """Run ``n_iter`` PnPBO iterations in place (see module docstring).

    ``kinds``/``eparams``: estimator code and parameter for x, y, z.
    ``iconf = [init_full, ma, large_batch (0: exact full), batch_size]``,
    ``fconf = [alpha, beta, gamma, e_x, e_y, e_z, rho, R]``.
    ``counters = [k, n_samples, status, ahead]``; ``rules`` is a (3, 7)
    work array.

    Look-ahead: iteration k draws iteration k+1's PAGE coin and batches
    (into ``coin_ahead[0]`` and ``perm_f[:b], perm_g[:b]``) once its own
    random draws are done, so that the next batch's rows are prefetched
    while this one is computed; its own batch is then in ``cur_f, cur_g``.
    The generator's stream is consumed in the same order as without
    look-ahead (coin_k, I_k, J_k, large batches of k, coin_{k+1}, ...), so
    iterates do not depend on it nor on how runs are chunked.
    """
    n = Xf.shape[0]
    m = Xg.shape[0]
    b = iconf[I_BATCH]
    init_full = iconf[I_INIT_FULL] != 0
    ma_on = iconf[I_MA] != 0
    B = iconf[I_LARGE_BATCH]
    Bf = n if (B <= 0 or B >= n) else B
    Bg = m if (B <= 0 or B >= m) else B
    large = Bf < n or Bg < m
    alpha = fconf[F_ALPHA]
    beta = fconf[F_BETA]
    gamma = fconf[F_GAMMA]
    rho = fconf[F_RHO]
    R = fconf[F_R]
    any_page = False
    for d in range(3):
        if kinds[d] == PAGE:
            any_page = True
    W = np.zeros((3, 3))
    tmask = np.zeros(3)
    evec = (ex, ey, ez)
    fvec = (fx, fy, fz)
    tvec = (tbx, tby, tbz)

    for _ in range(n_iter):
        k = counters[K_ITER]
        if counters[AHEAD] != 0:
            coin = coin_ahead[0]
        else:
            coin = draw_coin(rng) if any_page else 1.0
            draw_batch(rng, perm_f, b)
            draw_batch(rng, perm_g, b)
        for t in range(b):
            cur_f[t] = perm_f[t]
            cur_g[t] = perm_g[t]

        any_full = False
        any_table = False
        for d in range(3):
            rule(kinds[d], eparams[d], k, coin, init_full, rules[d])
            if rules[d, 0] != 0.0:
                any_full = True
            tmask[d] = rules[d, 6]
            if rules[d, 6] != 0.0:
                any_table = True
        fill = k == 0 and init_full and (
            _has_table(kinds[0]) or _has_table(kinds[1])
            or _has_table(kinds[2]))

        # Full (or large-batch) evaluation at u_k into fx, fy, fz.
        if any_full or fill:
            fx[:] = 0.0
            fy[:] = 0.0
            fz[:] = 0.0
            exact = fill or not large
            if not exact:
                draw_batch(rng, perm_fl, Bf)
                draw_batch(rng, perm_gl, Bg)
            for part in range(2):  # one call site (see _batch_pass)
                is_f = part == 0
                if exact:
                    ids = ident_f if is_f else ident_g
                    cnt = n if is_f else m
                else:
                    ids = perm_fl if is_f else perm_gl
                    cnt = Bf if is_f else Bg
                _mean_pass(is_f, task, Xf if is_f else Xg,
                           yf if is_f else yg, params, ids, cnt, x, y, z,
                           fx, fy, fz, Sf if is_f else Sg, fill,
                           Tf if is_f else Tg)
                counters[N_SAMPLES] += cnt
            if fill:
                for d in range(3):
                    tvec[d][:] = fvec[d]

        # Look-ahead draws of iteration k+1 (after every draw of this one).
        coin_ahead[0] = draw_coin(rng) if any_page else 1.0
        draw_batch(rng, perm_f, b)
        draw_batch(rng, perm_g, b)
        counters[AHEAD] = 1

        # Minibatch part: e_d <- c_v e_d + a_bar Tbar_d, then the fused pass.
        batch_f = False
        batch_g = False
        prev_f = False
        prev_g = False
        for d in range(3):
            full_d = rules[d, 0] != 0.0
            for c in range(3):
                W[d, c] = 0.0 if full_d else rules[d, 2 + c]
            if not full_d:
                batch_g = True
                if rules[d, 3] != 0.0:
                    prev_g = True
                if d != 1:  # D^y has no f-part
                    batch_f = True
                    if rules[d, 3] != 0.0:
                        prev_f = True
                _carry(evec[d], tvec[d], rules[d, 1], rules[d, 5])
        tab_f = any_table and (tmask[0] != 0.0 or tmask[2] != 0.0)
        # SAGA-form tables (every table direction has W[d] = (a, 0, -a)):
        # T-bar's update is b / (a N) times the batch part the pass adds to
        # e_d, so it is taken from e_d (snapshots in f_d, unused by a
        # non-full direction) instead of a second pass over the rows.
        saga_form = any_table
        for d in range(3):
            if tmask[d] != 0.0 and not (W[d, 1] == 0.0 and W[d, 0] != 0.0
                                        and W[d, 2] == -W[d, 0]):
                saga_form = False
        if saga_form:
            for d in range(3):
                if tmask[d] != 0.0:
                    fvec[d][:] = evec[d]
        for part in range(2):  # one call site (see _batch_pass)
            is_f = part == 0
            if not (batch_f if is_f else batch_g):
                continue
            prev = prev_f if is_f else prev_g
            tab = tab_f if is_f else any_table
            N = n if is_f else m
            _batch_pass(is_f, task, Xf if is_f else Xg, yf if is_f else yg,
                        params, cur_f if is_f else cur_g,
                        perm_f if is_f else perm_g, b, N,
                        x, y, z, xp, yp, zp, W, prev, tab, tab,
                        not saga_form, tmask, Tf if is_f else Tg,
                        ex, ey, ez, tbx, tby, tbz, Sf if is_f else Sg)
            counters[N_SAMPLES] += b * (2 if prev else 1)
            if saga_form:
                for d in range(3):
                    if tmask[d] != 0.0:
                        _tbar_from_batch(tvec[d], evec[d], fvec[d],
                                         b / (W[d, 0] * N))
        for d in range(3):
            if rules[d, 0] != 0.0:
                evec[d][:] = fvec[d]

        # Exact deterministic parts at u_k, MA on x, then the three steps
        # (one pass over x: d_x is the training-set size on hyper-cleaning).
        reg(task, params, x, y, z, rx, ry, rz)
        a_k = _schedule(alpha, fconf[F_EX], k)
        b_k = _schedule(beta, fconf[F_EY], k)
        g_k = _schedule(gamma, fconf[F_EZ], k)
        first = k == 0
        total = 0.0
        for c in range(x.shape[0]):
            v = rx[c] + ex[c]
            if ma_on:
                v = moving_average(vx[c], v, rho, first)
            vx[c] = v
            xp[c] = x[c]
            x[c] -= a_k * v
            total += x[c]
        for c in range(y.shape[0]):
            yp[c] = y[c]
            zp[c] = z[c]
            y[c] -= b_k * (ey[c] + ry[c])
            z[c] -= g_k * (ez[c] + rz[c])
            total += y[c] + z[c]
        clip_norm(z, R)
        counters[K_ITER] = k + 1
        if not math.isfinite(total):
            counters[STATUS] = DIVERGED
            break


@njit(cache=True, inline="always")
def _tbar_from_batch(tb, e, snap, scale):
    """``Tbar += scale (e - snap)`` (the batch part a pass added to e, for a
    SAGA-form direction), then ``snap <- e``."""
    for c in range(e.shape[0]):
        tb[c] += scale * (e[c] - snap[c])
        snap[c] = e[c]


@njit(cache=True, inline="always")
def _carry(e, tb, cv, ab):
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


@njit(cache=True)
def _schedule(c, e, k):
    """Step size ``c / (k + 1)^e`` (constant when ``e = 0``)."""
    if e == 0.0:
        return c
    return c / (k + 1.0) ** e


@njit(cache=True)
def _has_table(kind):
    return kind == 1 or kind == 5
