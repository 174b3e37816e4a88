"""Building blocks of the baselines (docs/baselines.md §2), on the batch
oracles of ``oracles``: fresh batches, the lower-level SGD loop (B1), SGD on
the linear system (B2), the truncated Neumann series (B3), Ghadimi and
Wang's random-truncation estimator (B4), one or two points with the same
randomness (joint mode), and the hypergradient assembly (B5).

    B1  y^{t+1} = y^t - beta grad_y g_{J_t}(x, y^t),  t < T
    B2  z^{t+1} = z^t - gamma (H_{J_t}(x, y) z^t - r),  t < T_z
    B3  w_0 = r, w_q = w_{q-1} - gamma H_{J_q} w_{q-1}, s = gamma sum_{q<=Q} w_q
    B4  p ~ U{0..Q-1}, w_0 = r, w_i = w_{i-1} - gamma H_{J_i} w_{i-1},
        s = Q gamma w_p
    B5  Phi_{I,J}(x, y, s) = grad_x f_I(x, y) - X_J(x, y) s

(Ji, Yang, Liang, ICML 2021, Alg. 3 for B3; Ghadimi and Wang, arXiv
1802.02246, for B4; Arbel and Mairal, ICLR 2022, Alg. 3 for B2.)  Every
block is inlined into its family; the oracles it calls are compiled once.
"""

from ..jit.prefetch import prefetch_labels, prefetch_rows
from ..jit.refcount import NO_REFCOUNT, copy_into
from ..numba_cache import njit
from .rng import randint
from .sampling import draw_batch, draw_block
from .oracles import level_mean, level_mean2, reg_at
from .records import F, G, N_SAMPLES

NEUMANN, HIA, SGD_Z = 0, 1, 2  # inverse-Hessian solvers (BConfig.solver)
# Named flags of inverse_hvp and phi: a call site says what it asks for.
SAMPLED_HESSIANS, FULL_HESSIANS = False, True  # batches or the full LL pass
ONE_POINT, TWO_POINTS = False, True  # joint mode: also at the second point
WITHOUT_GY, WITH_GY = False, True  # phi also returns grad_y g_J(x, y)


@njit(cache=True, inline="always")
def fresh(stream, level, b, blocks):
    """A fresh batch of ``b`` samples of the level record ``level``
    (uniform subset, or a contiguous block of its order):
    ``level.perm[:b]``, returned, its rows (short rows, ``prefetch``) and
    labels requested from memory at once."""
    if blocks:
        draw_block(stream.rng, level.order, level.perm, b)
    else:
        draw_batch(stream.rng, level.perm, b)
    prefetch_rows(level.X, level.perm, b)
    prefetch_labels(level.yv, level.perm, b)
    return level.perm


@njit(cache=True, inline="always")
def keep(dst, ids, b):
    """Copy a batch to ``dst`` (``level.cur``: kept while the level draws
    others; ``work.jbuf``: a multi-step block's current batch)."""
    for t in range(b):
        dst[t] = ids[t]
    return dst


@njit(cache=True, inline="always")
def step_batch(stream, level, b, blocks, q, n_steps, work):
    """The batch of step ``q`` of a block of ``n_steps`` fresh batches on
    the level record ``level``, with look-ahead: step 0 draws its own, and
    every step draws the next one before it is computed, so that its rows
    arrive during the computation.  The generator gives the batches in the same
    order as drawing each at its step (nothing else draws in between)."""
    if q == 0:
        fresh(stream, level, b, blocks)
    ids = keep(work.jbuf, level.perm, b)
    if q + 1 < n_steps:
        fresh(stream, level, b, blocks)
    return ids


@njit(cache=True, inline="always")
def grad_y_g(model, levels, stream, ids, b, x, y, out, work):
    """``out = grad_y g_J(x, y)`` (data mean + grad_y R); no vector in the
    z slot, so the kernels skip the z coefficients."""
    out[:] = 0.0
    level_mean(G, model, levels, stream, ids, b, (x, y, work.none),
               (0.0, 1.0, 0.0), (work.tx, out, work.tz))
    reg_at(model, x, y, y, work.rx, work.ry, work.rz, False)
    for k in range(out.shape[0]):
        out[k] += work.ry[k]


@njit(cache=True, inline="always")
def hvp(model, levels, stream, ids, b, x, y, v, out, work):
    """``out = H_J(x, y) v`` (data mean + hess_yy R v)."""
    out[:] = 0.0
    level_mean(G, model, levels, stream, ids, b, (x, y, v), (0.0, 0.0, 1.0),
               (work.tx, work.ty, out))
    reg_at(model, x, y, v, work.rx, work.ry, work.rz, False)
    for k in range(out.shape[0]):
        out[k] += work.rz[k]


@njit(cache=True, inline="always")
def ul_pass(model, levels, stream, ids, b, at, into, work):
    """One UL call at ``at = (x, y)``: into ``(ux, r)``, ``ux = mean_I
    grad_x F_i`` (data part; the UL regularisation comes with ``rx`` in
    ``phi``) and ``r = grad_y f_I(x, y)``."""
    x, y = at
    ux, r = into
    ux[:] = 0.0
    r[:] = 0.0
    level_mean(F, model, levels, stream, ids, b, (x, y, y), (1.0, 0.0, -1.0),
               (ux, work.ty, r))


@njit(cache=True, inline="always")
def phi(model, levels, stream, ids, b, at, into, with_gy, cross, work):
    """B5, one LL call at ``at = (x, y, s)`` (``s`` in the z slot), into
    ``(ux, d, gy)``: ``d = ux - X_J s + rx(x, y, s)`` (= Phi_{I,J}(x, y,
    s) with ``ux`` from the UL call) and, ``with_gy``, ``gy = grad_y
    g_J(x, y)`` from the same call (same batch, point and vector: one
    call, docs/baselines.md §1).  Without ``cross`` (the task's g data
    part has no x) and without ``with_gy``, the data part of X_J s is
    zero: the call is counted (as every call, docs/baselines.md §1), not
    computed."""
    x, y, s = at
    ux, d, gy = into
    copy_into(d, ux)
    if with_gy:
        gy[:] = 0.0
    if with_gy or cross:
        level_mean(G, model, levels, stream, ids, b, at,
                   (1.0, 1.0 if with_gy else 0.0, 0.0),
                   (d, gy if with_gy else work.ty, work.tz))
    else:
        stream.counters[N_SAMPLES] += b
    reg_at(model, x, y, s, work.rx, work.ry, work.rz, True)
    for k in range(d.shape[0]):
        d[k] += work.rx[k]
    if with_gy:
        for k in range(gy.shape[0]):
            gy[k] += work.ry[k]


# Joint evaluations (docs/baselines.md §2): the same batch at u_k and at
# u_{k-1}, the coefficients of both points from one pass over the rows
# (``level_mean2``); each output as the one-point block above gives it.

@njit(cache=True, inline="always")
def hvp2(model, levels, stream, ids, b, at, out, at2, out2, work):
    """``out = H_J(x, y) v`` and ``out2 = H_J(x2, y2) v2`` (``at = (x, y,
    v)``, ``at2 = (x2, y2, v2)``)."""
    out[:] = 0.0
    out2[:] = 0.0
    level_mean2(G, model, levels, stream, ids, b, at, at2, (0.0, 0.0, 1.0),
                (work.tx, work.ty, out), (work.tx, work.ty, out2))
    for pt in range(2):
        o = out if pt == 0 else out2
        x, y, v = at if pt == 0 else at2
        reg_at(model, x, y, v, work.rx, work.ry, work.rz, False)
        for k in range(o.shape[0]):
            o[k] += work.rz[k]


@njit(cache=True, inline="always")
def ul_pass2(model, levels, stream, ids, b, at, into, at2, into2, work):
    """``ul_pass`` at ``at = (x, y)`` into ``into = (ux, r)`` and at
    ``at2`` into ``into2``."""
    x, y = at
    x2, y2 = at2
    ux, r = into
    ux2, r2 = into2
    ux[:] = 0.0
    r[:] = 0.0
    ux2[:] = 0.0
    r2[:] = 0.0
    level_mean2(F, model, levels, stream, ids, b, (x, y, y), (x2, y2, y2),
                (1.0, 0.0, -1.0), (ux, work.ty, r), (ux2, work.ty, r2))


@njit(cache=True, inline="always")
def phi2(model, levels, stream, ids, b, at, into, at2, into2, with_gy, cross,
         work):
    """``phi`` at ``at = (x, y, s)`` into ``into = (ux, d, gy)`` and at
    ``at2`` into ``into2``."""
    ux, d, gy = into
    ux2, d2, gy2 = into2
    copy_into(d, ux)
    copy_into(d2, ux2)
    if with_gy:
        gy[:] = 0.0
        gy2[:] = 0.0
    if with_gy or cross:
        level_mean2(G, model, levels, stream, ids, b, at, at2,
                    (1.0, 1.0 if with_gy else 0.0, 0.0),
                    (d, gy if with_gy else work.ty, work.tz),
                    (d2, gy2 if with_gy else work.ty, work.tz))
    else:
        stream.counters[N_SAMPLES] += 2 * b
    for pt in range(2):
        dd = d if pt == 0 else d2
        gg = gy if pt == 0 else gy2
        x, y, s = at if pt == 0 else at2
        reg_at(model, x, y, s, work.rx, work.ry, work.rz, True)
        for k in range(dd.shape[0]):
            dd[k] += work.rx[k]
        if with_gy:
            for k in range(gg.shape[0]):
                gg[k] += work.ry[k]


@njit(cache=True, **NO_REFCOUNT)
def sgd_y(model, levels, stream, T, beta, x, y, b, blocks, work):
    """B1: ``T`` SGD steps on y at fixed x, a fresh LL batch each."""
    for q in range(T):
        ids = step_batch(stream, levels[G], b, blocks, q, T, work)
        grad_y_g(model, levels, stream, ids, b, x, y, work.gy, work)
        for k in range(y.shape[0]):
            y[k] -= beta * work.gy[k]


@njit(cache=True, **NO_REFCOUNT)
def sgd_z(model, levels, stream, Tz, gamma, x, y, z, r, b, blocks, work):
    """B2: ``T_z`` SGD steps on 1/2 z^T H z - r^T z, warm-started at z, a
    fresh LL batch each."""
    for q in range(Tz):
        ids = step_batch(stream, levels[G], b, blocks, q, Tz, work)
        hvp(model, levels, stream, ids, b, x, y, z, work.hv, work)
        for k in range(z.shape[0]):
            z[k] -= gamma * (work.hv[k] - r[k])


@njit(cache=True, **NO_REFCOUNT)
def inverse_hvp(model, levels, stream, cfg, full, two, at, rs, at2, rs2, work):
    """B3 (``cfg.solver`` NEUMANN) or B4 (HIA): ``s ~ H(x, y)^{-1} r`` at
    ``at = (x, y)`` with ``rs = (r, s)`` and, ``two`` (TWO_POINTS), ``s2 ~
    H(x2, y2)^{-1} r2`` at ``at2`` with ``rs2 = (r2, s2)``, with the same
    randomness (joint mode: one truncation level p and the same batches at
    both points).  ``full`` (FULL_HESSIANS): every Hessian is the full LL
    pass (deterministic B3, VRBO's restarts).  B4 draws p before its
    batches."""
    x, y = at
    x2, y2 = at2
    r, s = rs
    r2, s2 = rs2
    hia = cfg.solver == HIA
    gamma = cfg.gamma
    Q = cfg.Q
    level = levels[G]
    b = cfg.batch
    n_steps = randint(stream.rng, Q) if hia else Q
    w1, w2 = work.w1, work.w2
    dy = r.shape[0]
    for k in range(dy):
        w1[k] = r[k]
        s[k] = gamma * r[k]
    if two:
        for k in range(dy):
            w2[k] = r2[k]
            s2[k] = gamma * r2[k]
    for q in range(n_steps):
        if full:
            ids = level.ident
            cnt = level.N
        else:
            ids = step_batch(stream, level, b, cfg.blocks, q, n_steps, work)
            cnt = b
        if two:  # joint: the same batch at both points, one pass
            hvp2(model, levels, stream, ids, cnt, (x, y, w1), work.hv,
                 (x2, y2, w2), work.tz, work)
            for k in range(dy):
                w2[k] -= gamma * work.tz[k]
                s2[k] += gamma * w2[k]
        else:
            hvp(model, levels, stream, ids, cnt, x, y, w1, work.hv, work)
        for k in range(dy):
            w1[k] -= gamma * work.hv[k]
            s[k] += gamma * w1[k]
    if hia:
        scale = Q * gamma
        for k in range(dy):
            s[k] = scale * w1[k]
        if two:
            for k in range(dy):
                s2[k] = scale * w2[k]


@njit(cache=True, inline="always")
def storm(v, new, old, a, first):
    """STORM (docs/baselines.md B6): ``v = new + (1 - a)(v - old)``; the
    plain estimate ``new`` at the first iteration."""
    if first:
        for k in range(v.shape[0]):
            v[k] = new[k]
    else:
        c = 1.0 - a
        for k in range(v.shape[0]):
            v[k] = new[k] + c * (v[k] - old[k])
