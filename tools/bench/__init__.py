"""Speed figures of the PnPBO numba core, one row per named solver.

Run from the repository root::

    python -m tools.bench [--solvers SPABA,SOBA,StocBiO] [--dim 100]
        [--n 10000] [--batch-size 64] [--sampling uniform|blocks]
        [--shape quadratic|ijcnn1|covtype|mnist|fashion|all]
        [--metric-only] [--quick] [--skip-compile] [--skip-memory]
        [--steady-only] [--json PATH]
    python -m tools.bench.anchor [--solvers StocBiO,AmIGO,MRBO] [--rounds 2]
    python -m tools.bench.ab --old <commit> [--new <commit>|WORKTREE]
        [--shape covtype,mnist] [--solvers SOBA,SPABA,StocBiO,MRBO]
        [--processes 40] [--rounds 3] [--minutes 20] [--json PATH]
    python -m tools.bench.ab --pool A.json B.json

On the ``Simulated`` quadratic problem (d_x = d_y = ``--dim``, n = m =
``--n``) it measures, for each preset of ``algorithms.PRESETS``:

1. the steady-state time per iteration and per sample evaluation (median of
   several timed chunks of ~0.5 s after a warm-up), and for the presets whose
   iterations mix minibatch steps and occasional full passes (SPABA, MSEBA,
   SRBA) the time of the minibatch ("non-full") iterations alone;
2. the time of one full pass over the n + m samples (SPABA with p = 1) against
   the time numpy takes to stream the same data once from memory;
3. the warm-up time (imports, then compile or cache load) in fresh
   subprocesses, with a cold and with a warm numba cache;
4. the peak resident memory of fresh subprocesses running each solver, and
   of one that only builds the problem.

``--shape`` (``quadratic``: the problem above, the default; ``ijcnn1``,
``covtype``, ``mnist``; ``all``: the four in turn; ``fashion``: real
Fashion-MNIST, part 5 only) runs parts 1 and 2 on problems of the real
datasets' shapes, built from seeded random data of the exact sizes
(``shapes.SHAPE_SPECS``), from the Objective's starting point
(``problem.starting_point``).  On the mnist shape it also measures part 4, and
on every shape

5. the time of one exact metric evaluation (``metrics.evaluate`` on
   ``make_metrics`` of the dataset dict, test set included): a cold one at
   the starting point and three warm ones, each after 128 more iterations
   of SABA (what benchopt's callback sees).  ``--metric-only`` measures only
   this part; ``--shape fashion`` measures it on real Fashion-MNIST
   hyper-cleaning.

Each shape's figures are printed with their targets (``targets.json``), and
a summary of the targets ends the output.  Timings are printed, never
asserted.  ``--steady-only`` measures part 1 alone.

``--solvers`` also takes the baseline solvers (``algorithms.BASELINES``:
StocBiO, AmIGO, BSA, TTSA, SUSTAIN, MRBO, VRBO, FSLA, F2SA), run through
``BaselineRun`` with ``algorithms.config_of`` at their solver defaults,
the bench's batch and step size and ``--sampling``.  Their part 1 is per OUTER
iteration (inner loop, linear-system steps and hypergradient included), with
the samples per iteration and the ns per sample evaluation; table 1b puts
each baseline's ns per sample over SOBA's on the same problem and sampling
(SOBA is measured too when not asked for), against the goal
``baseline_ns_x_soba`` of ``targets.json`` (1.5).  Part 3 (compile probe)
skips the baselines (said in the output); part 4 runs them, loading the
baselines' entry instead of the core's.

``python -m tools.bench.anchor`` (module ``anchor``) compares solvers with
the reference benchmark (benchmark_bilevel, JAX), back to back, round by
round; see its docstring.

Modules, by job: ``settings`` (constants, targets.json), ``shapes``
(problems: the quadratic one, the real shapes, Fashion-MNIST; configs and
runs), ``timing`` (steady state, full pass, numpy stream), ``probes``
(compile and memory subprocesses), ``metric`` (metric evaluation figures),
``report`` (machine info, tables, target checks), ``cli`` (options, main),
``anchor`` (the comparison with the reference benchmark), ``ab`` (an A/B of
two builds: rounds, tables), ``ab_stats`` (its statistics and verdicts),
``ab_builds`` (its git worktrees and numba caches), ``ab_worker`` (one
build's timing process).
Subprocesses import ``tools.bench.probes``, so every module's top level only
imports the standard library and numpy; the core is imported inside the
functions that need it.
"""
