"""Is a tuning's winner stable where the comparison runs it?

A trial is ranked only if it diverged on none of the tuning's splits over
the tuning's epochs.  The comparison then runs each winner on splits the
trials never saw (benchopt's ``--seed`` of the run config) and for
``HORIZON`` times as long (its last point).  A search that rewards speed
ends at the edge of stability, the longest steps that survive a few
splits; such a winner can diverge on others or after the budget (on
breast_cancer, 569 samples, 31 of 140 comparison runs of the five-split
winners).  This command confirms each winner before any comparison: it
runs the solver's complete ranked trials, in order of criterion, on
``--splits`` splits (10, as many as the study's comparisons
repeat) of another benchopt seed (``holdout.HOLDOUT_SEED``,
neither the tuning's nor the comparisons'), over ``HORIZON`` times the
tuning's epochs, and takes the first that diverges on none of them.  The
order is the tuning's criterion; the held-out splits decide stability
only, so no test split and no comparison split enters the choice:

    python -m study.confirm study/data/tune_breast_cancer_5splits.json.xz \\
        --out study/data/confirm_breast_cancer_5splits.json \\
        --write study/configs/tuned_breast_cancer_5splits.yml
    python -m study.confirm --show study/data/confirm_*.json

A solver none of whose first ``--candidates`` trials is confirmed keeps
its tuning winner, flagged in the table and in the run config.

``--reuse OLD.json`` takes each trial's held-out outcome from an earlier
confirmation with the same settings (dataset, seed, splits, epochs,
points, metric) where it ran the same parameters, and runs only the
trials it did not: after a tuning is continued, only the new candidates
run.  The outcomes are the same as a fresh run's (every held-out run is
deterministic), so the results are too.
"""
import argparse
import concurrent.futures
import json
import math
import multiprocessing
import os
import sys
import time

from study import record_inputs as inputs
from study.holdout import HOLDOUT_SEED
from tools.arguments import refuse_inputs
from tools.tune.report import HORIZON, config_text, write_atomic
from tools.tune.run import Diverged

CANDIDATES = 40  # trials tried per solver before giving up
SPLITS = 10  # held-out splits: as many as a study's comparison repeats


def candidates(solver_record, limit=CANDIDATES):
    """The first ``limit`` complete ranked trials of a solver's record,
    best criterion first (ties by trial number)."""
    rows = [r for r in solver_record["all_trials"]
            if r.get("ranked") and r.get("criterion") is not None]
    return sorted(rows, key=lambda r: (r["criterion"], r["number"]))[:limit]


def horizon_of(record):
    """``(epochs, evals)`` of a confirmation run: ``HORIZON`` times the
    tuning's epochs, with its points as far apart as the tuning's."""
    budget = record["budget"]
    return (HORIZON * budget["epochs"],
            math.ceil(HORIZON * budget["evals"]))


def settings_of(record, seed, splits):
    """What a held-out outcome depends on besides a trial's parameters."""
    epochs, evals = horizon_of(record)
    return dict(record_dataset=record["dataset"], seed=seed, splits=splits,
                epochs=epochs, evals=evals,
                metric=record.get("metric", "value"))


def known_outcomes(old, settings):
    """{solver: {parameters key: (held_out, diverged)}} of an earlier
    confirmation ``old`` (its ``--out`` dict) made with ``settings``; a
    ValueError naming the setting that differs."""
    for key, value in settings.items():
        if old.get(key) != value:
            raise ValueError(
                f"--reuse: the earlier confirmation has {key} = "
                f"{old.get(key)!r}, this one {value!r}; its outcomes do not "
                "apply")
    return {solver: {_key(t["parameters"]): (t["held_out"], t["diverged"])
                     for t in res["tried"]}
            for solver, res in old["solvers"].items()}


def _needs_a_run(rows, known):
    """Whether ``rows`` (best first) reach a trial ``known`` lacks before
    one known to diverge on no split."""
    for row in rows:
        outcome = known.get(_key(row["parameters"]))
        if outcome is None:
            return True
        if outcome[1] is None:
            return False
    return False


def _key(parameters):
    return json.dumps(parameters, sort_keys=True)


def confirm(record, solvers, seed=HOLDOUT_SEED, splits=SPLITS,
            limit=CANDIDATES, runner=None, path=None, log=None, jobs=1,
            reuse=None):
    """Each of ``solvers``' confirmed winner (a dict, written as the
    ``--out`` JSON; ``path``, the record's file, is kept in it);
    ``log(text)``, if given, is told each run as it starts and ends.
    With ``jobs`` > 1 the solvers run in that many processes, each with
    its own runner, the results the same (every run's exact solves start
    from the split's own starting solutions, ``run.Runner.run``).
    ``reuse``, an earlier confirmation's dict: the outcomes of the
    parameters it ran are taken from it (``known_outcomes``)."""
    epochs, evals = horizon_of(record)
    metric = record.get("metric", "value")
    if runner is not None:
        splits = len(runner.splits)
    settings = settings_of(record, seed, splits)
    known = {} if reuse is None else known_outcomes(reuse, settings)
    known = {s: known.get(s, {}) for s in solvers}
    rows = {s: candidates(record["solvers"][s], limit) for s in solvers}
    todo = [s for s in solvers if _needs_a_run(rows[s], known[s])]
    t0 = time.perf_counter()
    # the solvers decided by known outcomes alone need no runner
    results = {s: confirm_solver(None, s, rows[s], epochs, evals, metric,
                                 log, known[s])
               for s in solvers if s not in todo}
    if jobs > 1 and len(todo) > 1:
        found, splits = _in_processes(
            record["dataset"], splits, seed, {s: rows[s] for s in todo},
            (epochs, evals, metric), jobs=jobs, say=log is not None,
            known=known)
        results.update(found)
    elif todo:
        if runner is None:
            from tools.tune.run import Runner

            runner = Runner(record["dataset"], splits, seed)
        splits = len(runner.splits)
        results.update({s: confirm_solver(runner, s, rows[s], epochs, evals,
                                          metric, log, known[s])
                        for s in todo})
    out = dict(record=path, record_dataset=record["dataset"], seed=seed,
               splits=splits, epochs=epochs, evals=evals,
               tuning_epochs=record["budget"]["epochs"], metric=metric,
               candidates=limit, solvers={s: results[s] for s in solvers})
    out["elapsed_seconds"] = round(time.perf_counter() - t0, 1)
    return out


def confirm_solver(runner, solver, rows, epochs, evals, metric, log=None,
                   known=None):
    """The first of ``rows`` (trial rows, best first) whose run of
    ``epochs`` (``evals`` points) diverges on none of the runner's
    splits: ``{tried, confirmed, rank, outcome}``; ``known``, {parameters
    key: (held_out, diverged)} taken instead of running."""
    tried, chosen = [], None
    for rank, row in enumerate(rows, start=1):
        start = time.perf_counter()
        outcome = (known or {}).get(_key(row["parameters"]))
        if outcome is not None:
            held, why = outcome
            how = "reused"
        else:
            if log is not None:
                log(f"  {solver}: rank {rank}, trial {row['number']}, on "
                    f"{len(runner.splits)} splits ...")
            held, why = _held_out(runner, solver, row["parameters"],
                                  epochs, evals, metric)
            how = f"{time.perf_counter() - start:.1f} s"
        if log is not None:
            said = f"held out {held:.4g}" if why is None else why
            log(f"    {solver}: rank {rank}, trial {row['number']}: "
                f"{said} ({how})")
        tried.append(dict(rank=rank, trial=row["number"],
                          criterion=row["criterion"],
                          parameters=row["parameters"],
                          held_out=held, diverged=why))
        if why is None:
            chosen = tried[-1]
            break
    result = dict(tried=tried, confirmed=chosen,
                  rank=None if chosen is None else chosen["rank"],
                  outcome=_outcome(chosen, len(rows)))
    if log is not None:
        log(f"{solver}: {result['outcome']}")
    return result


def _held_out(runner, solver, parameters, epochs, evals, metric):
    """``(held-out criterion, None)``, or ``(None, why it diverged)``."""
    try:
        held, _ = runner.run(solver, parameters, epochs, evals, metric)
    except Diverged as err:
        return None, (f"diverged on split {err.split} at "
                      f"{err.split_epochs:.3g} epochs: {err.reason}")
    return held, None


_RUNNER = None  # a worker process's runner


def _start_worker(dataset, splits, seed, threads):
    """A worker's runner, its metric passes on its share of the cores."""
    global _RUNNER
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    from tools.tune.run import Runner

    _RUNNER = Runner(dataset, splits, seed)


def _work(solver, rows, horizon, say, known):
    """A worker's ``confirm_solver``, printing its runs when ``say``."""
    return (confirm_solver(_RUNNER, solver, rows, *horizon,
                           log=_say if say else None, known=known),
            len(_RUNNER.splits))


def _in_processes(dataset, splits, seed, rows, horizon, jobs, say,
                  known=None):
    """``confirm_solver`` of each solver of ``rows`` in ``jobs`` spawned
    processes, each printing its runs when ``say``, with its ``known``
    outcomes: ``({solver: result}, splits)``."""
    known = known or {}
    context = multiprocessing.get_context("spawn")
    threads = max(1, len(os.sched_getaffinity(0)) // jobs)
    with concurrent.futures.ProcessPoolExecutor(
            jobs, mp_context=context, initializer=_start_worker,
            initargs=(dataset, splits, seed, threads)) as pool:
        futures = {s: pool.submit(_work, s, r, horizon, say,
                                  known.get(s, {}))
                   for s, r in rows.items()}
        done = {s: f.result() for s, f in futures.items()}
    return ({s: r for s, (r, _) in done.items()},
            next(iter(done.values()))[1])


def _outcome(chosen, n_rows):
    if n_rows == 0:
        return "no complete trial"
    if chosen is None:
        return (f"none of the best {n_rows} confirmed: the tuning's "
                "winner kept")
    if chosen["rank"] == 1:
        return "winner confirmed"
    return f"rank {chosen['rank']} confirmed"


def _say(text):
    print(text, flush=True)


def _criterion(value):
    return "diverged" if value is None else f"{value:.4g}"


def markdown(results):
    """One Markdown table over ``results`` (the ``--out`` JSONs), a row
    per solver: its tuning winner, held out, and the trial confirmed."""
    head = ("| task | solver | winner: trial, criterion | held out | "
            "confirmed: rank, trial, criterion | outcome |\n"
            "|---|---|---|---|---|---|")
    rows, count = [], {}
    for res in results:
        for solver, s in res["solvers"].items():
            key = ("winner confirmed" if s["rank"] == 1 else
                   "another confirmed" if s["rank"] else "none confirmed")
            count[key] = count.get(key, 0) + 1
            if not s["tried"]:
                rows.append(f"| {res['record_dataset']} | {solver} | — | — "
                            f"| — | {s['outcome']} |")
                continue
            first, c = s["tried"][0], s["confirmed"]
            held = (_criterion(first["held_out"]) if first["diverged"] is None
                    else first["diverged"].partition(":")[0])
            rows.append(
                f"| {res['record_dataset']} | {solver} | {first['trial']}, "
                f"{first['criterion']:.4g} | {held} | "
                + ("—" if c is None else
                   f"{c['rank']}, {c['trial']}, {c['criterion']:.4g}")
                + f" | {s['outcome']} |")
    where = "; ".join(sorted({
        f"{r['splits']} splits of seed {r['seed']} over {r['epochs']:g} "
        f"epochs ({r['epochs'] / r['tuning_epochs']:g} x the tuning's)"
        for r in results}))
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(count.items()))
    return "\n".join([head, *rows, "", f"Held out on {where}; {summary}."])


def read_reuse(p, path, settings):
    """The earlier confirmation of ``--reuse path``, checked to be one
    made with ``settings`` (``known_outcomes``); else the command ends
    through ``p``, naming the file and what it should be."""
    expected = ("expected the JSON object that python -m study.confirm "
                "--out writes")
    reuse = inputs.read_one(p, path, "--reuse", expected)
    if not isinstance(reuse, dict) or "solvers" not in reuse \
            or "candidates" not in reuse:
        got = (f"an object with the keys {sorted(reuse)[:8]}"
               if isinstance(reuse, dict) else f"a JSON {_kind(reuse)}")
        p.error(f"--reuse {path}: not a confirmation ({expected}, with "
                f"'solvers' and 'candidates'; got {got})")
    try:
        known_outcomes(reuse, settings)
    except ValueError as err:
        p.error(f"{err} (--reuse {path})")
    except (KeyError, TypeError, AttributeError) as err:
        p.error(f"--reuse {path}: not a confirmation ({expected}; "
                f"{type(err).__name__}: {err})")
    return reuse


def _kind(value):
    return {list: "list", str: "string", int: "number", float: "number",
            bool: "boolean", type(None): "null"}.get(type(value),
                                                     type(value).__name__)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.confirm",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("inputs", nargs="+", metavar="FILE",
                   help="a tuning's JSON record (or, with --show, the "
                        "--out JSONs to tabulate)")
    p.add_argument("--solvers", help="comma-separated (default: every "
                                     "solver of the record)")
    p.add_argument("--seed", type=int, default=HOLDOUT_SEED,
                   help="benchopt's seed of the held-out splits (default: "
                        "%(default)s; the tuning scores seed 0's, the "
                        "study's comparisons seeds 1 to 3)")
    p.add_argument("--splits", type=int, default=SPLITS,
                   help="held-out splits (default: %(default)s, the "
                        "study's repetitions of each comparison)")
    p.add_argument("--candidates", type=int, default=CANDIDATES,
                   help="trials tried per solver, best first (default: "
                        "%(default)s)")
    p.add_argument("--jobs", type=int, default=1,
                   help="processes, each confirming its share of the "
                        "solvers (the results do not depend on it)")
    p.add_argument("--out", metavar="PATH", help="write the results here "
                                                 "(JSON)")
    p.add_argument("--write", metavar="PATH",
                   help="write the run config of the confirmed winners")
    p.add_argument("--show", action="store_true",
                   help="print the table of --out JSONs, running nothing")
    p.add_argument("--reuse", metavar="OLD.json",
                   help="an earlier confirmation (its --out) with the same "
                        "settings: the trials it ran are not run again")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    refuse_inputs(p, {"--out": args.out, "--write": args.write},
                  {"the input" if args.show else "the tuning record":
                   args.inputs, "--reuse": args.reuse})
    record, loaded = inputs.read(p, args.inputs, args.show, "candidates")
    if record is None:
        print(markdown(loaded))
        return 0
    solvers = inputs.solvers(p, record, args.solvers,
                             list(record["solvers"]))
    for name in ("splits", "candidates", "jobs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            p.error(f"--{name} must be an integer >= 1, got {value}")
    reuse = None
    if args.reuse:
        reuse = read_reuse(p, args.reuse, settings_of(record, args.seed,
                                                      args.splits))
    epochs, _ = horizon_of(record)
    print(f"confirming {len(solvers)} winners of {args.inputs[0]} over "
          f"{epochs:g} epochs on held-out splits (seed {args.seed}) ...",
          flush=True)
    result = confirm(record, solvers, args.seed, args.splits,
                     args.candidates, path=args.inputs[0], log=_say,
                     jobs=args.jobs, reuse=reuse)
    print(markdown([result]))
    if args.out:
        write_atomic(args.out, json.dumps(result, indent=1) + "\n")
        print(f"written to {args.out}")
    if args.write:
        write_atomic(args.write, config_text(record, args.inputs[0],
                                             confirmed=result))
        print(f"run config written to {args.write}: benchopt run . "
              f"--config {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
