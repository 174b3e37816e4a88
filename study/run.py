"""Run a study as its specification says (study/protocol.md):

    python -m study run [study/study.yml] [--task NAME ...] [--plan]
        [--from-stored] [--jobs 2] [--dask-address tcp://HOST:8786]
        [--work DIR]

For each task, in rounds: tune every solver with the same work
(``tools.tune``), check its late falls on held-out splits
(``study.holdout``), confirm the winners on other held-out splits
(``study.confirm``), compare them on the independent instances
(``benchopt run``, no timeout), read the task's verdicts.  The stopping
rule is applied here, on the confirmation's held-out splits alone: a
task is done when no winner sits on an edge of its range that can be
widened (``tools.tune.edges``) and its last round moved no claim that
reads the task to the other side on the held-out splits (which of ``a``
and ``b`` has the lower held-out criterion, ``held_out_cells``); else the
next round adds ``round`` trials' work, the ranges widened where a
winner sat on an edge (a new storage, continued from the last).  The
comparisons' instances are touched once, by the last round's winners;
then the verdicts of every task, and what differs from the stored ones.

``--from-stored`` runs the stored winners (each task's ``stored.config``)
on the comparisons again and reads the verdicts (about 3 h on 2 cores;
one task alone with ``--task``).  ``--plan`` prints the steps with their
estimated cost and runs nothing.  Every step resumes from what is stored
under ``--work`` (default: the spec's ``work``): an interrupted command,
run again, loses at most the trial or run in flight.  Nothing under
study/data is written: the results stay under ``--work``.
"""
import argparse
import json
import re
import sys
from pathlib import Path

import yaml

from study import spec as study_spec
from study.steps import ROOT, Step, benchopt_run, checked_arguments, \
    dask_config, execute, plan_lines, python
from tools.tune.edges import widenable
from tools.tune.record_file import read_json


def stored_record(task):
    path = task.stored.get("record")
    return None if path is None else read_json(ROOT / path)


def tuning_seconds(task, solvers, trials, jobs):
    """Estimated wall seconds of ``trials`` trials' work of ``solvers``:
    the stored record's seconds per trial's work of a solver (its mean
    over the record's solvers for one it lacks), over ``jobs``."""
    record = stored_record(task)
    if record is None:
        return 0.0
    per = {s: r["wall_seconds"] / record["budget"]["trials"]
           for s, r in record["solvers"].items()}
    mean = sum(per.values()) / max(len(per), 1)
    return sum(per.get(s, mean) for s in solvers) * trials / jobs


def tune_argv(task, solvers, trials, ranges, storage, record, jobs,
              continue_from=None, dask_address=None):
    """``python -m tools.tune`` of one round of ``task``."""
    argv = python("tools.tune", "--dataset", task.dataset, "--solvers",
                  ",".join(solvers), "--trials", trials, "--epochs",
                  f"{task.epochs:g}", "--splits", task.splits, "--evals",
                  task.evals, "--seed", task.seed, "--first",
                  ",".join(task.first), "--storage", storage, "--record",
                  record)
    for name, text in sorted(ranges.items()):
        argv += ["--range", f"{name}={text}"]
    if continue_from:
        argv += ["--continue-from", continue_from]
    if dask_address:
        argv += ["--dask-address", dask_address]
    else:
        argv += ["--jobs", jobs]
    return argv


def comparison_steps(spec, task, config, folder, jobs, solvers=(),
                     parallel_config=None):
    """The steps of every comparison of ``task`` with the winners of
    ``config``, results under ``folder``: ``[(comparison, results)]``
    and the steps.  With ``solvers`` (``config`` holds only them: a
    solver added to the study), a comparison of other winners (its own
    ``config``) is left out and an ablation keeps the named solvers among
    them."""
    steps, results = [], []
    n = len(solvers) or len(spec.solvers)
    for c in task.comparisons:
        own = c.config not in (None, task.stored.get("config"))
        run_config = config
        if c.ablation is not None:
            names = [s for s in c.ablation["solvers"]
                     if not solvers or s in solvers]
            if not names:
                continue
            run_config = f"{folder}/{c.name}.yml"
            sets = [a for k, v in sorted(c.ablation["set"].items())
                    for a in ("--set", f"{k}={v}")]
            steps.append(Step(task.name, f"ablation config {c.name}",
                              python("study.ablation", config, "--solvers",
                                     ",".join(names), *sets, "--out",
                                     run_config), [run_config]))
        elif own:
            if solvers:
                continue
            run_config = c.config
        out = f"{folder}/{c.name}.parquet"
        # a config of its own names the dataset it was tuned on, not
        # the comparison's: the comparison's is given on the command line
        dataset = c.dataset if own or c.dataset != task.dataset else None
        steps.append(Step(
            task.name, f"comparison {c.name}",
            benchopt_run(run_config, out, c.seed, spec.repetitions, jobs,
                         dataset, parallel_config),
            [out], task.cost.get("comparison", 0.0) * n))
        results.append((c, out))
    return results, steps


def claims_of(spec, datasets):
    """The claims file, only its claims whose tasks match a dataset of
    ``datasets`` (benchopt dataset names)."""
    claims = yaml.safe_load((ROOT / spec.claims).read_text())
    claims["claims"] = [c for c in claims["claims"]
                        if any(re.search(c["tasks"], d) for d in datasets)]
    return claims


def verdict_cells(results, claims):
    """``{"claim | reading": verdict}`` of ``results`` (files)."""
    from study import verdicts as sv
    if not claims["claims"]:
        return {}
    tables = sv.verdict_tables(sv.readings(sv.load(results)), claims)
    return {f"{name} | {quantity}": verdict
            for quantity, table in tables.items()
            for name, verdict in zip(table["name"], table["verdict"])}


def datasets_of(paths):
    import pandas as pd
    return sorted({str(d) for p in paths for d in pd.read_parquet(
        ROOT / p, columns=["dataset_name"])["dataset_name"].unique()})


def widened_ranges(record, ranges):
    """``ranges`` with every edge that can be widened to some gain
    (``tools.tune.edges``) widened, and whether any was."""
    out, changed = dict(ranges), False
    for solver in record["solvers"].values():
        for edge in solver.get("edges") or []:
            if widenable(edge):
                name, text = edge["widen"].split("=", 1)
                low, high = map(float, text.split(":"))
                if name in out:
                    old_low, old_high = map(float, out[name].split(":"))
                    low, high = min(low, old_low), max(high, old_high)
                new = f"{low:g}:{high:g}"
                changed |= out.get(name) != new
                out[name] = new
    return out, changed


def write_json(path, value):
    from tools.tune.report import write_atomic
    write_atomic(ROOT / path, json.dumps(value, indent=1) + "\n")


def dataset_names(datasets):
    """benchopt's names of ``datasets`` (patterns as a spec gives them,
    ``mnist[variant=fashion,ratio=0.9]``): every parameter, its default
    where the pattern gives none, in the order of the results'
    ``dataset_name`` (the names a claim's ``tasks`` reads)."""
    from benchopt.benchmark import Benchmark
    out = []
    for klass, params in Benchmark(str(ROOT)).check_dataset_patterns(
            list(datasets)):
        values = {}
        for k, v in params.items():
            v = v[0] if isinstance(v, list) else v
            # a parameter set together ("n, m": (2000, 2000)) is named
            # one by one
            names = k.split(", ")
            values.update(zip(names, v) if len(names) > 1 else [(k, v)])
        out.append(klass.name + ("[" + ",".join(
            f"{k}={values[k]}" for k in sorted(values)) + "]"
            if values else ""))
    return out


def task_datasets(task):
    """The datasets of ``task``'s comparisons, as benchopt names them."""
    return dataset_names(dict.fromkeys(
        c.dataset or task.dataset for c in task.comparisons))


def held_out_cells(confirmation, claims):
    """``{claim: "a" | "b" | "tie"}``: which side of each claim of
    ``claims`` (the claims file, ``claims_of``) has the lower criterion
    on the held-out splits of ``confirmation`` (``study.confirm``'s
    record: each solver's confirmed winner), ``b`` chosen as the claims
    file says (a rival: the other solver of lowest held-out criterion;
    the baselines: their median); a claim about a variant no
    confirmation runs (``SPABA[R=inf]``) has none."""
    import statistics
    record = json.loads((ROOT / confirmation).read_text())
    scores = {s: (r.get("confirmed") or {}).get("held_out")
              for s, r in record["solvers"].items()}
    scores = {s: v for s, v in scores.items() if v is not None}
    cells = {}
    for claim in claims["claims"]:
        a, b = claim["a"], claim["b"]
        if a not in scores:
            continue
        if b == "rival":
            skip = {a, *claim.get("except", [])}
            others = [s for s in scores if s not in skip]
            if not others:
                continue
            other = min(scores[s] for s in others)
        elif b == "baselines":
            have = [scores[s] for s in claims.get("baselines", [])
                    if s in scores and s != a]
            if not have:
                continue
            other = statistics.median(have)
        elif b in scores:
            other = scores[b]
        else:
            continue
        d = scores[a] - other
        cells[claim["name"]] = "a" if d < 0 else "b" if d > 0 else "tie"
    return cells


def run_task(spec, task, work, jobs, dask_address=None, out=print):
    """Every round of ``task`` until the stopping rule says done (or
    ``max_rounds``), then its comparisons, once, with the last round's
    winners; their ``[(comparison, results)]`` and the rounds.  The rule
    reads the confirmation's held-out splits, never the comparisons'
    instances (``held_out_cells``)."""
    folder = f"{work}/{task.name}"
    trials, ranges, storage_index = task.trials, dict(task.ranges), 0
    previous, rounds, continue_from = None, [], None
    claims = claims_of(spec, task_datasets(task))
    done = False
    for k in range(task.max_rounds):
        storage = f"{folder}/tune_s{storage_index}.db"
        record = f"{folder}/tune_r{k}.json"
        config = f"{folder}/tuned_r{k}.yml"
        steps = round_steps(spec, task, k, trials, ranges, storage,
                            continue_from, jobs, dask_address,
                            trials - (rounds[-1]["trials"] if rounds else 0))
        execute(steps, out)
        cells = held_out_cells(f"{folder}/confirm_r{k}.json", claims)
        rec = read_json(ROOT / record)
        wider, widen = widened_ranges(rec, ranges)
        changed = None if previous is None else sorted(
            c for c in set(cells) | set(previous)
            if cells.get(c) != previous.get(c))
        rounds.append(dict(round=k, trials=trials, ranges=ranges,
                           storage=storage, record=record, config=config,
                           edges_to_widen=widen, held_out=cells,
                           changed=changed))
        write_json(f"{folder}/rounds.json", rounds)
        if changed == [] and not widen:
            out(f"{task.name}: done after round {k} (no edge to widen, no "
                "claim's side changed on the held-out splits)")
            done = True
            break
        reason = ("an edge to widen" if widen else
                  "the first round" if changed is None else
                  f"{len(changed)} claim(s) changed side on the held-out "
                  "splits")
        out(f"{task.name}: round {k} not the last ({reason})")
        previous = cells
        trials += task.round
        if widen:
            continue_from, ranges = storage, wider
            storage_index += 1
        else:
            continue_from = None
    if not done:
        out(f"{task.name}: not done after {task.max_rounds} rounds "
            "(max_rounds): its verdicts are read on the last, flagged so")
    last = rounds[-1]
    results, compare = comparison_steps(
        spec, task, last["config"], f"{folder}/round_{last['round']}", jobs,
        parallel_config=dask_config(dask_address, work))
    execute(compare, out)
    last["results"] = [r for _, r in results]
    write_json(f"{folder}/rounds.json", rounds)
    return results, rounds


def stored_steps(spec, tasks, work, jobs, dask_address=None):
    """Every comparison of ``tasks`` run again from the stored winners."""
    steps, results = [], []
    missing = [t.name for t in tasks if "config" not in t.stored]
    if missing:
        raise RuntimeError(f"--from-stored: tasks {missing} have no "
                           "stored.config (the run config of their winners)")
    for task in tasks:
        found, more = comparison_steps(
            spec, task, task.stored["config"], f"{work}/stored", jobs,
            parallel_config=dask_config(dask_address, work))
        steps += more
        results += found
    return results, steps


def verdict_report(spec, results, stored=True):
    """The verdicts of ``results`` and, beside each, the stored one where
    they differ."""
    files = [r for c, r in results if c.verdicts]
    datasets = datasets_of(files)
    claims = claims_of(spec, datasets)
    now = verdict_cells(files, claims)
    before = {}
    if stored:
        names = {c.name for c, _ in results}
        kept = [c.results for t in spec.tasks.values() for c in t.comparisons
                if c.verdicts and c.name in names]
        if all((ROOT / k).exists() for k in kept):
            before = verdict_cells(kept, claims)
    lines = [f"# Verdicts of {len(files)} results, {len(now)} claim readings",
             ""]
    differ = [c for c in now if before and before.get(c) != now[c]]
    lines.append(f"{len(differ)} of {len(now)} differ from the stored "
                 "study's" if before else "no stored results to compare "
                 "with")
    for cell in sorted(now):
        mark = f" (stored: {before.get(cell, '—')})" if cell in differ \
            else ""
        lines.append(f"- {cell}: {now[cell]}{mark}")
    return "\n".join(lines) + "\n", differ


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study run",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("spec", nargs="?", default=str(study_spec.SPEC))
    p.add_argument("--task", action="append", default=[],
                   help="run this task only (repeatable)")
    p.add_argument("--from-stored", action="store_true",
                   help="compare the stored winners again, no tuning")
    p.add_argument("--plan", action="store_true",
                   help="print the steps and their estimated cost only")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--dask-address", metavar="tcp://HOST:PORT",
                   help="run the tunings' trials and the comparisons' runs "
                        "on this dask scheduler (confirmations and hold-out "
                        "checks stay on this machine, --jobs processes)")
    p.add_argument("--work", help="folder of the run's files (default: "
                                  "the spec's work)")
    args = p.parse_args(argv)
    spec, tasks, work = checked_arguments(p, args)
    try:
        if args.from_stored:
            results, steps = stored_steps(spec, tasks, work, args.jobs,
                                          args.dask_address)
            if args.plan:
                print("\n".join(plan_lines(steps)))
                return 0
            execute(steps)
            text, _ = verdict_report(spec, results)
            path = f"{work}/stored/verdicts.md"
        else:
            if args.plan:
                for task in tasks:
                    print("\n".join(plan_lines(first_round(spec, task, work,
                                                           args.jobs))))
                print("(the rounds after the first depend on the "
                      "stopping rule: each adds `round` trials' work)")
                return 0
            results = []
            for task in tasks:
                found, _ = run_task(spec, task, work, args.jobs,
                                    args.dask_address)
                results += found
            text, _ = verdict_report(spec, results)
            path = f"{work}/verdicts.md"
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: run the same command again to resume",
              file=sys.stderr)
        return 130
    from tools.tune.report import write_atomic
    write_atomic(ROOT / path, text)
    print(text)
    print(f"written to {path}")
    return 0


def round_steps(spec, task, k, trials, ranges, storage, continue_from,
                jobs, dask_address=None, new_trials=None):
    """The tuning, hold-out check and confirmation of round ``k`` of
    ``task`` (files under the spec's work folder of the task)."""
    folder = str(Path(storage).parent)
    record, config = f"{folder}/tune_r{k}.json", f"{folder}/tuned_r{k}.yml"
    confirmation = f"{folder}/confirm_r{k}.json"
    reuse = ["--reuse", f"{folder}/confirm_r{k - 1}.json"] if k else []
    return [
        Step(task.name, f"round {k}: tuning to {trials} trials' work",
             tune_argv(task, spec.solvers, trials, ranges, storage, record,
                       jobs, continue_from, dask_address), [record],
             tuning_seconds(task, spec.solvers, new_trials or trials, jobs)),
        Step(task.name, f"round {k}: late falls on held-out splits",
             python("study.holdout", record, "--out",
                    f"{folder}/holdout_r{k}.json"),
             [f"{folder}/holdout_r{k}.json"], task.cost.get("holdout", 0.0)),
        Step(task.name, f"round {k}: winners confirmed",
             python("study.confirm", record, "--seed",
                    spec.confirmation["seed"], "--splits",
                    spec.confirmation["splits"], "--jobs", jobs, "--out",
                    confirmation, "--write", config, *reuse),
             [confirmation, config],
             task.cost.get("confirmation", 0.0) * len(spec.solvers))]


def first_round(spec, task, work, jobs):
    """The steps of a task's first round, for ``--plan``."""
    folder = f"{work}/{task.name}"
    steps = round_steps(spec, task, 0, task.trials, task.ranges,
                        f"{folder}/tune_s0.db", None, jobs)
    return steps + comparison_steps(spec, task, f"{folder}/tuned_r0.yml",
                                    f"{folder}/round_0", jobs)[1]


if __name__ == "__main__":
    sys.exit(main())
