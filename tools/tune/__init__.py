"""Tune every solver with the same budget: one Optuna study per (dataset,
solver), kept in a database so that an interrupted tuning resumes.

    python -m tools.tune --dataset "mnist[variant=fashion]" \
        --solvers SPABA,SOBA --trials 30 --epochs 1 \
        --storage outputs/tune_fashion.db [--jobs 2 | --dask-workers 2 | \
        --dask-address tcp://HOST:8786] [--seed 0] \
        [--evals 10] [--metric value] [--pruner hyperband] \
        [--range step_size=1e-3:10] [--fix R=tuned] [--fail-running] \
        [--continue-from outputs/older.db] \
        [--write configs/tuned_fashion.yml] [--record PATH]

Every solver gets the work of ``--trials`` trials of ``--epochs`` epochs
(each trial charged the epochs it ran, pruned and diverged ones
included: ``work``; ``--budget trials`` counts trials instead) over its
own search space (``space``); each trial runs the solver in-process as
``benchopt run`` would (``run``) and is scored on the validation side:
the mean of H(x) = f(x, y*(x)) on the validation samples at ``--evals``
points over the budget.  Diverged runs are excluded, never ranked.  The
record of the studies goes to the storage's name with ``.json``;
``--write`` writes a benchopt run config of each solver's best
configuration, every solver evaluated on the Objective's grid of
``eval_epochs``, and the ``TUNED`` entry of ``benchmark_utils/tuned.py``
is printed and recorded (docs/comparisons.md, "Tune every solver with the
same budget").  A trial stopped by Ctrl-C is resumed in place by the
next invocation.  ``--continue-from`` starts new studies with the trials
of an older storage's, made in narrower ranges (``carry``).

After each trial the progress over all solvers is printed: trials done
of the total, the time elapsed and an estimate of the time left.

Modules: ``space`` (the ranges), ``run`` (one trial), ``study`` (storage,
settings, budget, sampler, pruner), ``workers`` (the trial loop, parallel
processes), ``cluster`` (the studies as tasks of a dask cluster),
``progress`` (the progress line), ``report`` (record, config, entry),
``work`` (the budget in epochs), ``edges`` (winners on the edge of their
range), ``carry`` (continuing in wider ranges), ``adequacy`` (best so far
against the epochs, ``python -m tools.tune.adequacy``), ``cli`` (the
command, ``__main__``).
"""
