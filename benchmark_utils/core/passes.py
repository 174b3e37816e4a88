"""Passes over the samples of one level (UL f or LL g) at given points.

Directions of a sample are linear maps of its coefficients (``tasks``):
``coef`` computes ``k_q(x, y, z)``, ``apply`` adds ``L_q(C_q)`` to the three
outputs (D^x, D^y, D^z).  Any vector can stand in the z slot (the point only
fixes where the coefficients are taken), so the same passes give
Hessian-vector products of other vectors.

    full_pass     mean_{q in ids} of the directions at (x, y, z): an exact
                  full pass (ids = 0..N-1, PnPBO's grad(u_k)) or a large
                  batch; optionally stores the coefficients in the table.
    sampled_pass  one minibatch at u_k = (x, y, z) and optionally at
                  u_{k-1} = (xp, yp, zp) of the run's iterates:
                  e_d += mean_q L_q(W[d,0] k_q(u_k) + W[d,1] k_q(u_{k-1})
                                     + W[d,2] T_q)
                  into the work directions (ex, ey, ez) for the three
                  directions d (the linear rules of ``estimators``), then,
                  with a table, the update T_q <- k_q(u_k) and, with
                  ``apply_delta``, the T-bar increment
                  Tbar_d += mean... L_q(k_q(u_k) - T_q) / N (tmask[d])
                  into (tbx, tby, tbz).

Each kernel has one call site (callers loop over the two levels, and
``sampled_pass`` over the two points and the two outputs): numba inlines
callees, and every extra call site of a kernel multiplies the compile time.
"""

from ..jit.prefetch import prefetch_labels, prefetch_rows
from ..numba_cache import njit
from ..tasks.dispatch import apply, coef, coef2
from .records import B_CUR, B_CX, B_CY, B_CZ, B_DX, B_DY, B_DZ, B_PREV


@njit(cache=True, inline="always")
def full_pass(part, model, level, ids, count, point, out, fill):
    """Add ``mean_{q in ids[:count]}`` of the directions of level ``part``
    (record ``level``) at ``point = (x, y, z)`` to ``out = (ox, oy, oz)``,
    chunk by chunk; with ``fill`` store the coefficients in the table (full
    initialisation of SAGA/ZeroSARAH)."""
    S = level.S
    T = level.T
    K = S.shape[2]
    Kc = S[B_CUR]
    C = S[B_CX]
    ch = S.shape[1]
    inv = 1.0 / count
    for start in range(0, count, ch):
        c = min(ch, count - start)
        coef(model.task, part, level.X, level.yv, model.params, ids, start, c,
             point, Kc)
        for t in range(c):
            for k in range(K):
                C[t, k] = Kc[t, k] * inv
        apply(model.task, part, level.X, level.yv, model.params, ids, start, c,
              (C, C, C), out)
        if fill:
            for t in range(c):
                for k in range(K):
                    T[ids[start + t], k] = Kc[t, k]


@njit(cache=True, inline="always")
def sampled_pass(part, model, level, b, iterates, work, W, need_prev,
                 with_table, apply_delta, tmask):
    """One minibatch ``level.cur[:b]`` of level ``part`` at the
    ``iterates`` (u_k, and u_{k-1} when ``need_prev``) into the directions
    of the ``work`` record, after a prefetch of the next batch
    ``level.perm[:b]`` (see module
    docstring for what it adds).  The directions asked for are the rows of
    ``W`` that are not zero (a zero row adds nothing).  ``with_table``:
    the batch reads the level's table and writes k_q(u_k) into it."""
    S = level.S
    T = level.T
    X = level.X
    yv = level.yv
    idx = level.cur
    nidx = level.perm
    K = S.shape[2]
    Kc = S[B_CUR]
    Kp = S[B_PREV]
    invb = 1.0 / b
    invN = 1.0 / level.N
    # Look-ahead: the next batch's rows, labels and table lines are
    # requested now; they arrive while this batch is computed.
    prefetch_rows(X, nidx, b)
    prefetch_labels(yv, nidx, b)
    if with_table:
        prefetch_rows(T, nidx, b)
    point = (iterates.x, iterates.y, iterates.z)
    if need_prev:
        coef2(model.task, part, X, yv, model.params, idx, 0, b, point,
              (iterates.xp, iterates.yp, iterates.zp), Kc, Kp)
    else:
        coef(model.task, part, X, yv, model.params, idx, 0, b, point, Kc)
    for t in range(b):
        q = idx[t]
        for c in range(K):
            tq = T[q, c] if with_table else 0.0
            kp = Kp[t, c] if need_prev else 0.0
            kc = Kc[t, c]
            for d in range(3):
                S[B_CX + d, t, c] = (W[d, 0] * kc + W[d, 1] * kp
                                     + W[d, 2] * tq) * invb
            if with_table:
                if apply_delta:
                    delta = (kc - tq) * invN
                    for d in range(3):
                        S[B_DX + d, t, c] = delta * tmask[d]
                T[q, c] = kc
    for which in range(2 if with_table and apply_delta else 1):
        if which == 0:
            apply(model.task, part, X, yv, model.params, idx, 0, b,
                  (S[B_CX], S[B_CY], S[B_CZ]), (work.ex, work.ey, work.ez))
        else:
            apply(model.task, part, X, yv, model.params, idx, 0, b,
                  (S[B_DX], S[B_DY], S[B_DZ]), (work.tbx, work.tby, work.tbz))
