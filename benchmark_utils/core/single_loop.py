"""The single-loop family: PnPBO (the PnPBO paper, Algorithm 1) and every
preset of it (SOBA, SABA, MA-SABA, SRBA, SRMBA, SPABA, SFFBA, MSEBA).

One iteration k, all estimates formed at the same point u_k = (x_k, y_k,
z_k) (docs/algorithms.md §2):

    draw the coin, I_k, J_k                                    (draw)
    rules of the three estimators                              (estimators)
    full or large-batch pass at u_k for the full directions    (passes)
    draw iteration k+1's coin and batches (look-ahead)         (draw)
    e_d <- c_v e_d + a_bar Tbar_d, then the minibatch pass at u_k
    (and u_{k-1}) for the other directions, tables and Tbar    (passes)
    exact regularisation at u_k; MA on x; the three steps; Clip (steps)

counting the sample evaluations as it goes (counting).  The run stops early,
with ``counters[STATUS] = DIVERGED``, as soon as an iterate is not finite,
and at the end of the first iteration whose sample count reaches the
caller's target (a point of the Objective's grid of sample evaluations,
docs/metrics.md).
Nothing is allocated inside the loop.  The baselines' eight families
(``families``) are compositions of the same blocks, each block
keeping one call site of each kernel.
"""

from ..jit.refcount import NO_REFCOUNT, copy_into
from ..numba_cache import njit
from ..tasks.dispatch import reg
from .counting import count_batch, count_full
from .draw import draw_ahead, draw_large, take
from .estimators import (IS_FULL, PAGE, batch_weights, has_table,
                         iteration_rules, saga_form, tbar_from_batch)
from .passes import full_pass, sampled_pass
from .records import DIVERGED, F, G, K_ITER, N_SAMPLES, STATUS
from .steps import take_steps


@njit(cache=True, **NO_REFCOUNT)
def single_loop(model, levels, iterates, work, cfg, stream, n_iter, target):
    """Run iterations in place on the records (``records``) until the end of
    the first one whose sample count ``counters[N_SAMPLES]`` is at least
    ``target``, at most ``n_iter`` of them (fewer if the run diverges)."""
    counters = stream.counters
    kinds = cfg.kinds
    b = cfg.batch
    n = levels[F].N
    m = levels[G].N
    B = cfg.large_batch
    Bf = n if (B <= 0 or B >= n) else B
    Bg = m if (B <= 0 or B >= m) else B
    sizes = (Bf, Bg)
    large = Bf < n or Bg < m
    any_page = False
    for d in range(3):
        if kinds[d] == PAGE:
            any_page = True
    rules = work.rules
    W = work.W
    tmask = work.tmask
    evec = (work.ex, work.ey, work.ez)
    fvec = (work.fx, work.fy, work.fz)
    tvec = (work.tbx, work.tby, work.tbz)
    x, y, z = iterates.x, iterates.y, iterates.z

    for _ in range(n_iter):
        k = counters[K_ITER]
        coin = take(stream, levels, b, any_page, cfg.blocks)
        any_full, full_f, any_table = iteration_rules(cfg, k, coin, rules,
                                                      tmask)
        fill = k == 0 and cfg.init_full and (
            has_table(kinds[0]) or has_table(kinds[1])
            or has_table(kinds[2]))

        # Full (or large-batch) evaluation at u_k into f, for the levels the
        # full directions need (fill implies a full table direction).
        done_f = False
        done_g = False
        if any_full or fill:
            work.fx[:] = 0.0
            work.fy[:] = 0.0
            work.fz[:] = 0.0
            exact = fill or not large
            if not exact:
                draw_large(stream, levels, sizes, cfg.blocks)
            for part in range(2):  # one call site (see passes)
                if part == F and not full_f:
                    continue  # only y is full: D^y has no UL part
                level = levels[part]
                cnt = level.N if exact else sizes[part]
                full_pass(part, model, level,
                          level.ident if exact else level.perm_large, cnt,
                          (x, y, z), (work.fx, work.fy, work.fz), fill)
                count_full(counters, cnt)
            done_f = exact and full_f
            done_g = exact
            if fill:
                for d in range(3):
                    copy_into(tvec[d], fvec[d])

        draw_ahead(stream, levels, b, any_page, cfg.blocks)

        # Minibatch part: e_d <- c_v e_d + a_bar Tbar_d, then the fused pass.
        batch_f, batch_g, prev_f, prev_g = batch_weights(rules, W, evec,
                                                         tvec)
        tab_f = any_table and (tmask[0] != 0.0 or tmask[2] != 0.0)
        # SAGA-form tables: T-bar's update is taken from the batch part of
        # e_d (snapshots in f_d, unused by a non-full direction) instead of
        # a second pass over the rows.
        sf = saga_form(W, tmask)
        if sf:
            for d in range(3):
                if tmask[d] != 0.0:
                    copy_into(fvec[d], evec[d])
        for part in range(2):  # one call site (see passes)
            is_f = part == F
            if not (batch_f if is_f else batch_g):
                continue
            prev = prev_f if is_f else prev_g
            tab = tab_f if is_f else any_table
            level = levels[part]
            sampled_pass(part, model, level, b, iterates, work, W, prev,
                         tab, not sf, tmask)
            count_batch(counters, b, done_f if is_f else done_g, prev)
            if sf:
                for d in range(3):
                    if tmask[d] != 0.0:
                        tbar_from_batch(tvec[d], evec[d], fvec[d],
                                        b / (W[d, 0] * level.N))
        for d in range(3):
            if rules[d, IS_FULL] != 0.0:
                copy_into(evec[d], fvec[d])

        # Exact deterministic parts at u_k, MA on x, the three steps.
        reg(model.task, model.params, x, y, z, work.rx, work.ry, work.rz)
        finite = take_steps(cfg, iterates, work, k)
        counters[K_ITER] = k + 1
        if not finite:
            counters[STATUS] = DIVERGED
            break
        if counters[N_SAMPLES] >= target:
            break


@njit(cache=True)
def run_iterations(model, levels, iterates, work, cfg, stream, n_iter,
                   target):
    """Entry point from Python: iterations in place on the run's records up
    to the first whose sample count reaches ``target``, at most ``n_iter``
    (the loop itself is compiled without reference counts, which an entry
    that receives Python's arrays needs)."""
    single_loop(model, levels, iterates, work, cfg, stream, n_iter, target)
