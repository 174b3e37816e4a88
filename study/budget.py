"""The study's protocol rerun as if each task's tuning had stopped at a
share of its work:

    python -m study budget 0.25 [--task NAME ...] [--plan] [--jobs 2]
        [--work DIR] [--store]

On each task (or those of ``--task``), for every solver whose winner
at that share (``study.budget_curve.run_at``: the trials drawn within
the share of its work, in the order the sampler drew them, then the
first of them by criterion that the stored confirmation did not see
diverge held out) is not the stored one: its tuning record cut to those
trials, its winner confirmed on the study's held-out splits
(``study.confirm --reuse`` the stored confirmation: a trial it ran is
not run again), then run on exactly the stored comparisons' instances.
The other solvers' stored runs stand for theirs: their winner is the
same.  ``--store`` writes the new runs (the columns the verdicts read)
to ``study/data/budget/SHARE/``; ``study.budget.results(share)``
gives the comparisons at that share, stored runs replaced by them.

Every step resumes from the files under ``--work``; ``--plan`` prints
the steps and their estimated cost and runs nothing.
"""
import argparse
import copy
import json
from pathlib import Path

import pandas as pd
import yaml

from study import budget_curve as curve
from study import spec as study_spec
from study.run import comparison_steps
from study.sensitivity import sources, winner
from study.steps import ROOT, Step, checked_arguments, execute, guarded, \
    plan_lines, python, study_arguments
from tools.tune.record_file import read_json
from tools.tune.report import write_atomic

STORE = ROOT / "study" / "data" / "budget"
# what --store keeps of the new runs: the run's keys, its grid and the
# metrics the verdicts, tables and reference lines read (study.table,
# study.budget_reading), not the solvers' parameters one by one, the
# inner problems' diagnostics nor the machine's description
KEYS = ("dataset_name", "solver_name", "idx_rep", "base_seed",
        "objective_name", "p_obj_eval_epochs", "stop_val")
METRICS = ("objective_value", "objective_test_error",
           "objective_test_error_iterate", "objective_epochs",
           "objective_diverged", "objective_x_saturated",
           "objective_grad_norm2", "objective_n_samples")


def kept(df):
    """The columns of ``df`` that --store keeps."""
    return [c for c in df if c in KEYS or c in METRICS
            or c.startswith("objective_ref_")]


def folder_of(share):
    """The name of a share's folder: ``0.25`` -> ``q25``."""
    return f"q{round(share * 100):02d}"


def cut(record, solvers, share):
    """``record`` with only ``solvers``, each holding only its trials
    drawn within ``share`` of its work (``budget_curve.drawn`` order and
    charging) and ``best`` its best complete one there."""
    out = copy.deepcopy(record)
    budget = curve.budget_of(record)
    kept = {}
    for solver in solvers:
        srec = out["solvers"][solver]
        rows = [row for row, (work, _, _) in zip(
            curve.ranked_rows(record, solver), curve.drawn(record, solver))
            if curve._within(work, share, budget)]
        numbers = {row["number"] for row in rows}
        srec["all_trials"] = [t for t in srec["all_trials"]
                              if t["number"] in numbers]
        at = curve.winner_at(record, solver, share)
        srec["best"] = None if at.row is None else dict(
            trial=at.row["number"], criterion=at.row["criterion"],
            parameters=at.row["parameters"])
        kept[solver] = srec
    out["solvers"] = kept
    out["budget_share"] = share
    return out


def changed(task, share, spec_path=study_spec.SPEC):
    """``[(record path, confirmation path, [solvers])]``: per tuning
    record of ``task`` (the stored one, then each added solver's), the
    solvers whose winner at ``share`` is not the stored one."""
    out = []
    for record_path, confirm_path in sources(task, spec_path):
        record = read_json(record_path)
        confirmation = (json.loads(Path(confirm_path).read_text())
                        if confirm_path else None)
        names = []
        for solver in record["solvers"]:
            used, _ = winner(record, solver, confirmation)
            run = curve.run_at(record, solver, confirmation, share)
            if run.row is None:
                continue
            if used is None or run.row["number"] != used["number"]:
                names.append(solver)
        if names:
            out.append((record_path, confirm_path, names))
    return out


def task_steps(spec, task, share, work, jobs, write=True):
    """The steps of ``task`` at ``share``: for each record with changed
    solvers, the confirmation of their winners in its cut (``cut``,
    written under ``work`` unless ``write`` is false: a plan writes
    nothing) and their runs on the comparisons' instances; and
    ``[(comparison, [(new results, solvers)])]``."""
    steps, runs = [], {}
    base = f"{work}/budget/{folder_of(share)}/{task.name}"
    for k, (record_path, confirm_path, names) in enumerate(
            changed(task.name, share)):
        folder = f"{base}/r{k}"
        record = f"{folder}/tune.json"
        if write and not (ROOT / record).exists():
            text = json.dumps(cut(read_json(record_path), names, share))
            write_atomic(ROOT / record, text + "\n")
        argv = ["--solvers", ",".join(names), "--seed",
                spec.confirmation["seed"], "--splits",
                spec.confirmation["splits"], "--jobs", jobs, "--out",
                f"{folder}/confirm.json", "--write", f"{folder}/tuned.yml"]
        if confirm_path:
            argv += ["--reuse", Path(confirm_path).relative_to(ROOT)]
        steps.append(Step(task.name, "winners confirmed",
                          python("study.confirm", record, *argv),
                          [f"{folder}/confirm.json", f"{folder}/tuned.yml"],
                          task.cost.get("confirmation", 0.0) * len(names)))
        found, more = comparison_steps(spec, task, f"{folder}/tuned.yml",
                                       folder, jobs, solvers=tuple(names))
        steps += more
        for comparison, path in found:
            runs.setdefault(comparison.name, (comparison, []))[1].append(
                (path, names))
    return steps, list(runs.values())


def replaced(stored, new):
    """The stored results with the runs of the solvers of ``new``
    (``[(results, solvers)]``) replaced by those."""
    from study.add import base_name
    old = pd.read_parquet(stored)
    keys = ["dataset_name", "base_seed", "idx_rep"]
    have = set(map(tuple, old[keys].drop_duplicates().to_numpy()))
    drop, frames = set(), []
    for path, names in new:
        df = pd.read_parquet(path)
        runs = set(map(tuple, df[keys].drop_duplicates().to_numpy()))
        if not runs <= have:
            raise RuntimeError(f"{path}: runs on instances the stored "
                               f"results {stored} do not hold: "
                               f"{sorted(runs - have)}")
        frames.append(df)
        drop |= set(names)
    keep = old[~old["solver_name"].map(base_name).isin(drop)]
    return pd.concat([keep, *frames], ignore_index=True)


def store(share, comparisons, out=print):
    """The new runs of ``comparisons`` (``[(comparison, [(results,
    solvers)])]``), their ``KEPT`` columns, to ``STORE/SHARE/NAME``."""
    folder = STORE / folder_of(share)
    folder.mkdir(parents=True, exist_ok=True)
    for comparison, new in comparisons:
        frames = [pd.read_parquet(p) for p, _ in new]
        write_kept(pd.concat(frames, ignore_index=True),
                   folder / f"{comparison.name}.parquet", out)


def write_kept(df, path, out=print):
    """The ``kept`` columns of the runs ``df`` written to ``path``."""
    df = df[kept(df)]
    df.to_parquet(path, compression="zstd", index=False)
    out(f"{path.relative_to(ROOT)}: {len(df)} rows of "
        f"{df['solver_name'].nunique()} solvers")


def results(share, spec_path=study_spec.SPEC):
    """``{comparison: results}``: every stored comparison with the runs
    stored at ``share`` in place of its solvers' (a comparison without
    any is the stored one)."""
    from study.add import base_name
    spec = study_spec.load(spec_path)
    folder = STORE / folder_of(share)
    out = {}
    for task in spec.tasks.values():
        for c in task.comparisons:
            stored = ROOT / c.results
            new = folder / f"{c.name}.parquet"
            if not new.exists():
                out[c.name] = pd.read_parquet(stored)
                continue
            df = pd.read_parquet(new)
            names = set(df["solver_name"].map(base_name))
            old = pd.read_parquet(stored)
            keep = old[~old["solver_name"].map(base_name).isin(names)]
            out[c.name] = pd.concat([keep, df], ignore_index=True)
    return out


def stored_shares():
    """The shares with runs stored under ``STORE``, in order."""
    return sorted(int(p.name[1:]) / 100 for p in STORE.glob("q[0-9]*")
                  if p.is_dir())


def covered(share):
    """The comparisons (names) with runs stored at ``share``."""
    return {p.stem for p in (STORE / folder_of(share)).glob("*.parquet")}


def verdicts_of(frames, names, claims=None):
    """``study.verdicts.verdict_tables`` of the comparisons ``names``,
    their results ``frames`` ({name: results}); a claim read on none of
    them is left out."""
    from study import verdicts as sv
    with open(claims or sv.CLAIMS) as handle:
        spec = sv.check_claims(yaml.safe_load(handle))
    read = [frames[n] for n in sorted(names) if n in frames]
    return sv.verdict_tables(sv.readings(pd.concat(read, ignore_index=True)),
                             spec)


def stored_results():
    """``{comparison: its stored results}`` of the study's comparisons."""
    spec = study_spec.load(study_spec.SPEC)
    return {c.name: pd.read_parquet(ROOT / c.results)
            for task in spec.tasks.values() for c in task.comparisons}


def verdict_columns(columns, names=None):
    """A claim per row (its primary reading), a column per ``columns``
    entry ``(head, {comparison: results})`` read on the comparisons
    ``names`` (or ``(head, results, names)``, its own): the verdict's
    mark, the median of d and its interval; a claim whose verdict
    differs between the columns is marked; and the claims that moved."""
    from study.summary import HEAD, cell, primary_readings
    found = [verdicts_of(c[1], c[2] if len(c) > 2 else names)
             for c in columns]
    primary = {}
    for tables in found:
        primary.update(primary_readings(tables))
    lines = ["| claim | reading | n | " + " | ".join(c[0] for c in columns)
             + " |", "|---|---|---|" + "---|" * len(columns)]
    moved = []
    for name, reading in primary.items():
        cells, seen, counts = [], set(), []
        for tables in found:
            table = tables.get(reading)
            row = None if table is None else table[table["name"] == name]
            if row is None or not len(row):
                cells.append("—")
                continue
            r = row.iloc[0]
            counts.append(str(int(r["n"])))
            seen.add(r["verdict"])
            cells.append(cell(r["verdict"], float(r["median"]),
                              float(r["ci_low"]), float(r["ci_high"])))
        if len(seen) > 1:
            moved.append(name)
        n = " / ".join(dict.fromkeys(counts)) or "—"
        lines.append(f"| {name}{' (moves)' if len(seen) > 1 else ''} | "
                     f"{HEAD[reading]} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines), moved, len(primary)


LEGEND = ("✓ holds, ✗ does not hold, ? inconclusive, ≠ the tasks "
          "disagree; the median of d = A − B over the instances and its "
          "interval, as in the verdicts; Holm's correction over the claims "
          "read here.")


def show(shares=None):
    """Each claim's verdict (its primary reading) at every stored share
    and at the full budget, on the comparisons run at every share (the
    others' solvers were not all run there: their claims are left out,
    and the full budget's column is read on the same comparisons)."""
    shares = list(stored_shares() if shares is None else shares)
    if not shares:
        return "No runs at a share of the tuning work are stored."
    names = set.intersection(*(covered(s) for s in shares))
    columns = [(curve.label(s), results(s)) for s in shares]
    columns.append(("full budget", stored_results()))
    text, moved, total = verdict_columns(columns, names)
    return "\n".join([
        text, "", f"{len(moved)} of {total} verdicts read here differ "
        "between the shares of the tuning work; read on the comparisons "
        f"{', '.join(sorted(names))}, each with the winners of that share "
        "of the work (tuned, then confirmed on the held-out splits as the "
        "protocol says). " + LEGEND])


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study budget",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("share", type=curve._share, nargs="?",
                   help="the share of each solver's tuning work, in (0, 1]")
    p.add_argument("--show", action="store_true",
                   help="print each claim's verdict at every stored share "
                        "and at the full budget, running nothing")
    p.add_argument("--spec", default=str(study_spec.SPEC))
    study_arguments(p, "the run's files")
    p.add_argument("--store", action="store_true",
                   help="write the new runs to study/data/budget/")
    args = p.parse_args(argv)
    if args.show:
        print(show())
        return 0
    if args.share is None:
        p.error("give the SHARE of the work to run at (or --show)")
    spec, tasks, work = checked_arguments(p, args)
    steps, comparisons = [], []
    for task in tasks:
        more, runs = task_steps(spec, task, args.share, work, args.jobs,
                                write=not args.plan)
        steps += more
        comparisons += runs
    if args.plan:
        print("\n".join(plan_lines(steps)))
        return 0
    code = guarded(lambda: execute(steps))
    if code:
        return code
    merged = [(c, [(ROOT / p, names) for p, names in new])
              for c, new in comparisons]
    for comparison, new in merged:
        df = replaced(ROOT / comparison.results, new)
        path = ROOT / work / "budget" / folder_of(args.share) / \
            f"study_{comparison.name}.parquet"
        df.to_parquet(path)
        count = sum(pd.read_parquet(p)["solver_name"].nunique()
                    for p, _ in new)
        print(f"{path}: the stored comparison with {count} solvers' runs at "
              f"{args.share:g} of the work")
    if args.store:
        store(args.share, merged)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
