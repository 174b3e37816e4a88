"""The untuned track: every solver at its own defaults (the values the
benchmark's solvers take without a parameter, docs/algorithms.md),
compared on exactly the stored comparisons' instances, as a user who
tunes nothing would run them:

    python -m study untuned [--task NAME ...] [--plan] [--jobs 2]
        [--work DIR] [--store]
    python -m study untuned --show

Each task's stored run config (its grid of evaluations, dataset and
seed) with every solver line reduced to the solver's name runs each
comparison of the task (an ablation's variants at the defaults too; a
comparison with a config of its own, such as winners transferred from
another task, is no comparison of defaults and is left out).  No
confirmation: a default that diverges is what that user gets, read as
the worst value.  ``--store`` writes the runs (the columns the verdicts
read) to ``study/data/untuned/``; ``--show`` prints each claim's verdict
at the defaults beside the tuned one, on the comparisons run at the
defaults, and how many runs diverged per solver.
"""
import argparse
import re

import pandas as pd

from study import budget
from study import spec as study_spec
from study.run import comparison_steps
from study.steps import ROOT, checked_arguments, execute, guarded, \
    plan_lines, study_arguments
from tools.tune.report import write_atomic

STORE = ROOT / "study" / "data" / "untuned"
# a solver line of a run config: its name, then its parameters
LINE = re.compile(r'^(\s*-\s*)"([A-Za-z0-9-]+)\[[^"]*\]"(.*)$')


def defaults_config(text):
    """A run config's text with every solver line ``- "NAME[...]"``
    reduced to ``- "NAME"`` (its defaults), comments after it dropped,
    and a note on top; ``(text, solvers)``."""
    lines, solvers = [], []
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            solvers.append(match[2])
            line = f'{match[1]}"{match[2]}"'
        lines.append(line)
    if not solvers:
        raise ValueError("the run config names no solver with parameters")
    note = ("# The untuned track (python -m study untuned): the stored run "
            "config with\n# every solver at its own defaults.\n")
    return note + "\n".join(lines) + "\n", solvers


def task_steps(spec, task, work, jobs, write=True):
    """The comparisons of ``task`` at the defaults (their config written
    under ``work`` unless ``write`` is false) and ``[(comparison,
    results)]``."""
    folder = f"{work}/untuned/{task.name}"
    config = f"{folder}/defaults.yml"
    stored = (ROOT / task.stored["config"]).read_text()
    text, solvers = defaults_config(stored)
    if write and not (ROOT / config).exists():
        write_atomic(ROOT / config, text)
    found, steps = comparison_steps(spec, task, config, folder, jobs,
                                    solvers=tuple(solvers))
    return steps, found


def results():
    """``{comparison: its runs at the defaults}`` stored."""
    return {p.stem: pd.read_parquet(p) for p in sorted(STORE.glob(
        "*.parquet"))}


def diverged_table(frames):
    """A row per solver: its runs at the defaults and how many diverged,
    over ``frames`` ({comparison: results})."""
    from study.verdicts import label
    rows = {}
    for df in frames.values():
        keys = ["dataset_name", "base_seed", "idx_rep", "solver_name"]
        flags = pd.to_numeric(df["objective_diverged"],
                              errors="coerce").fillna(0) > 0
        runs = df.assign(flag=flags).groupby(keys)["flag"].any()
        for (_, _, _, solver), flag in runs.items():
            row = rows.setdefault(label(solver), [0, 0])
            row[0] += 1
            row[1] += int(flag)
    lines = ["| solver | runs | diverged |", "|---|---|---|"]
    lines += [f"| {s} | {n} | {d} |" for s, (n, d) in rows.items()]
    return "\n".join(lines)


def show():
    """Each claim's verdict at the defaults and tuned, on the
    comparisons run at the defaults; the runs that diverged."""
    frames = results()
    if not frames:
        return "No runs at the defaults are stored."
    names = set(frames)
    text, moved, total = budget.verdict_columns(
        [("defaults", frames), ("tuned", budget.stored_results())], names)
    return "\n".join([
        text, "", f"{len(moved)} of {total} verdicts read here differ "
        "between the defaults and the tuned winners; read on the "
        f"comparisons {', '.join(sorted(names))}. " + budget.LEGEND, "",
        "**Runs at the defaults that diverged** (a diverged run counts as "
        "the worst value)", "", diverged_table(frames)])


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study untuned",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", default=str(study_spec.SPEC))
    study_arguments(p, "the run's files")
    p.add_argument("--store", action="store_true",
                   help="write the runs to study/data/untuned/")
    p.add_argument("--show", action="store_true",
                   help="print the verdicts at the defaults beside the "
                        "tuned ones, running nothing")
    args = p.parse_args(argv)
    if args.show:
        print(show())
        return 0
    spec, tasks, work = checked_arguments(p, args)
    steps, found = [], []
    for task in tasks:
        more, runs = task_steps(spec, task, work, args.jobs,
                                write=not args.plan)
        steps += more
        found += runs
    if args.plan:
        print("\n".join(plan_lines(steps)))
        return 0
    code = guarded(lambda: execute(steps))
    if code or not args.store:
        return code
    STORE.mkdir(parents=True, exist_ok=True)
    for comparison, path in found:
        budget.write_kept(pd.read_parquet(ROOT / path),
                          STORE / f"{comparison.name}.parquet")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
