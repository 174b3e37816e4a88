"""Put a solver into the stored study:

    python -m study add SOLVER [--spec study/study.yml] [--task NAME ...]
        [--plan] [--jobs 2] [--dask-address tcp://HOST:8786] [--work DIR]

On every task of the study (or those of ``--task``), ``SOLVER`` (a
solver of this benchmark that ``tools.tune`` tunes) gets what the
stored solvers got (study/protocol.md): the same work (the trials' work
the task's tuning ended at, ``stored.trials``), in the task's final
ranges (each parameter's widest range among the stored solvers'), the
same first points (``--first``: its defaults, its sweep winner where one
exists), ranges widened where its winner sits on an edge that can be
widened (a new storage continued from the last, the work unchanged);
its winner confirmed on the same held-out splits; then run on exactly
the stored comparisons' instances (the same datasets, seeds and
repetitions: the other solvers' stored runs are reused, not rerun).
Last, its runs go into the stored results (replacing an earlier add of
the same solver), its line into each task's stored run config, its
tuning record and confirmation into study/data/added/, the solver into
the spec's ``solvers``, and the spec's ``pages`` are regenerated.

Every step resumes from the files under ``--work``; ``--plan`` prints the
steps and their estimated cost and runs nothing.
"""
import argparse
import lzma
import re
import sys
from pathlib import Path

from study import spec as study_spec
from study.run import comparison_steps, stored_record, tuning_seconds, \
    tune_argv, widened_ranges
from study.steps import ROOT, Step, dask_config, execute, guarded, \
    plan_lines, python
from tools.tune.record_file import read_json
from tools.tune.report import write_atomic


def final_ranges(record, solver):
    """``{name: "low:high"}``: each parameter of ``solver``'s search space
    at its widest among the stored record's solvers (a parameter the
    record does not search keeps ``tools.tune``'s range)."""
    from tools.tune.space import solver_space
    mine = solver_space(solver)
    out = {}
    for name in mine:
        spaces = [r["space"][name] for r in record["solvers"].values()
                  if name in r.get("space", {})]
        if spaces:
            low = min(s["low"] for s in spaces)
            high = max(s["high"] for s in spaces)
            out[name] = f"{low:g}:{high:g}"
    return out


def schedule(task):
    """The trials' work at the end of each round of an added solver's
    tuning: the task's first round, then ``round`` more each, up to the
    work the stored tuning ended at (``stored.trials``), as the stored
    solvers were tuned in rounds."""
    ends, trials = [], min(task.trials, task.stored["trials"])
    while trials < task.stored["trials"]:
        ends.append(trials)
        trials += task.round
    return ends + [task.stored["trials"]]


def tuning_step(task, solver, folder, jobs, dask_address, k, trials, done,
                ranges, storage, continue_from):
    """Round ``k`` of the solver's tuning on ``task`` (to ``trials``
    trials' work, ``done`` already run) and its record."""
    record = f"{folder}/tune_r{k}.json"
    return record, Step(
        task.name, f"{solver}: round {k}, tuning to {trials} trials' work"
        + (" (ranges widened)" if continue_from else ""),
        tune_argv(task, [solver], trials, ranges, storage, record, jobs,
                  continue_from, dask_address), [record],
        tuning_seconds(task, [solver], trials - done, jobs))


def confirm_step(spec, task, solver, folder, record, jobs):
    return Step(task.name, f"{solver}: winner confirmed",
                python("study.confirm", record, "--solvers", solver,
                       "--seed", spec.confirmation["seed"], "--splits",
                       spec.confirmation["splits"], "--jobs", jobs,
                       "--out", f"{folder}/confirm.json", "--write",
                       f"{folder}/tuned.yml"),
                [f"{folder}/confirm.json", f"{folder}/tuned.yml"],
                task.cost.get("confirmation", 0.0))


def task_plan(spec, task, solver, work, jobs):
    """The steps of ``task`` as far as they can be known before running
    (the rounds of tuning as if no range were widened, confirmation,
    comparisons)."""
    folder = f"{work}/add/{solver}/{task.name}"
    ranges = final_ranges(stored_record(task), solver)
    steps, done = [], 0
    for k, trials in enumerate(schedule(task)):
        record, step = tuning_step(task, solver, folder, jobs, None, k,
                                   trials, done, ranges,
                                   f"{folder}/tune_s0.db", None)
        steps.append(step)
        done = trials
    steps.append(confirm_step(spec, task, solver, folder, record, jobs))
    return steps + comparison_steps(spec, task, f"{folder}/tuned.yml",
                                    folder, jobs, solvers=(solver,))[1]


def run_task(spec, task, solver, work, jobs, dask_address=None, out=print):
    """Tune ``solver`` on ``task`` in rounds (``schedule``), its ranges
    widened between rounds where its winner sits on an edge that can be
    widened (a new storage continued from the last), then confirm and
    compare it; its last record and ``[(comparison, results)]``."""
    folder = f"{work}/add/{solver}/{task.name}"
    ranges = final_ranges(stored_record(task), solver)
    storage, continue_from, done, widen = f"{folder}/tune_s0.db", None, 0, 0
    for k, trials in enumerate(schedule(task)):
        record, step = tuning_step(task, solver, folder, jobs, dask_address,
                                   k, trials, done, ranges, storage,
                                   continue_from)
        execute([step], out)
        done, continue_from = trials, None
        wider, widen = widened_ranges(read_json(ROOT / record), ranges)
        if widen and trials < task.stored["trials"]:
            out(f"{task.name}: {solver}'s winner on an edge: ranges widened "
                f"({', '.join(f'{n}={v}' for n, v in wider.items())})")
            ranges, continue_from = wider, storage
            storage = f"{folder}/tune_s{k + 1}.db"
    if widen:
        out(f"{task.name}: {solver}'s winner is on an edge that could be "
            "widened, with no work left (the stored solvers' tuning would "
            "have gone on): flagged in its record's edges")
    execute([confirm_step(spec, task, solver, folder, record, jobs)], out)
    results, steps = comparison_steps(
        spec, task, f"{folder}/tuned.yml", folder, jobs, solvers=(solver,),
        parallel_config=dask_config(dask_address, work))
    execute(steps, out)
    return record, results


def base_name(solver_name):
    return str(solver_name).split("[", 1)[0]


def merged(stored, new, solver):
    """The stored results without ``solver``'s earlier runs, with its new
    ones (which must be on the stored instances)."""
    from study.budget import replaced
    return replaced(stored, [(new, [solver])])


def config_with(config_text, solver, line):
    """A run config's text with ``solver``'s line replaced by ``line``
    (or added after the last solver line)."""
    lines = config_text.splitlines()
    entry = re.compile(rf'^  - "{re.escape(solver)}(\[.*)?"')
    kept = [ln for ln in lines if not entry.match(ln)]
    last = max(i for i, ln in enumerate(kept) if ln.startswith('  - "'))
    kept.insert(last + 1, f'  - "{line}"  # added by python -m study add')
    return "\n".join(kept) + "\n"


def spec_with(spec_text, solver):
    """The spec's text with ``solver`` in its ``solvers:`` list."""
    match = re.search(r"^solvers: \[([^\]]*)\]", spec_text, re.M | re.S)
    if match is None:  # a block list: "solvers:" then "- NAME" lines
        block = re.search(r"^solvers:\n((?:( *)- .*\n)+)", spec_text, re.M)
        if re.search(rf"^ *- {re.escape(solver)}$", block[1], re.M):
            return spec_text
        return (spec_text[:block.end()] + f"{block[2]}- {solver}\n"
                + spec_text[block.end():])
    names = [s.strip() for s in match[1].replace("\n", " ").split(",")
             if s.strip()]
    if solver in names:
        return spec_text
    names.append(solver)
    body, line = [], "solvers: ["
    for i, name in enumerate(names):
        piece = name + (", " if i < len(names) - 1 else "]")
        if len(line) + len(piece) > 76:
            body.append(line.rstrip())
            line = " " * 10
        line += piece
    body.append(line)
    return spec_text[:match.start()] + "\n".join(body) + \
        spec_text[match.end():]


def store(spec, solver, outcomes, out=print):
    """Write the solver's runs, config lines, record and confirmation
    into the stored study, then regenerate the pages."""
    for task, record, results in outcomes:
        # beside the stored results: study/data/added/SOLVER
        folder = Path(spec.path).parent / "data" / "added" / solver
        (ROOT / folder).mkdir(parents=True, exist_ok=True)
        text = (ROOT / record).read_bytes()
        write_atomic(ROOT / folder / f"tune_{task.name}.json.xz",
                     lzma.compress(text, preset=9))
        confirm = Path(record).parent / "confirm.json"
        write_atomic(ROOT / folder / f"confirm_{task.name}.json",
                     (ROOT / confirm).read_text())
        tuned = (ROOT / Path(record).parent / "tuned.yml").read_text()
        line = next(m[1] for m in re.finditer(r'^  - "(.*?)"', tuned, re.M)
                    if base_name(m[1]) == solver)
        config = ROOT / task.stored["config"]
        write_atomic(config, config_with(config.read_text(), solver, line))
        for comparison, new in results:
            frame = merged(ROOT / comparison.results, ROOT / new, solver)
            frame.to_parquet(ROOT / comparison.results)
            out(f"{comparison.results}: {solver}'s "
                f"{frame['solver_name'].map(base_name).eq(solver).sum()} "
                "rows in")
    path = ROOT / spec.path
    write_atomic(path, spec_with(path.read_text(), solver))
    from study import page
    for name in spec.pages:
        page.main([str(ROOT / name)])
        out(f"{name}: generated blocks rewritten")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study add",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("solver")
    p.add_argument("--spec", default=str(study_spec.SPEC))
    p.add_argument("--task", action="append", default=[])
    p.add_argument("--plan", action="store_true")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--dask-address", metavar="tcp://HOST:PORT")
    p.add_argument("--work")
    args = p.parse_args(argv)
    try:
        spec = study_spec.load(args.spec)
    except study_spec.SpecError as err:
        p.error(str(err))
    from tools.tune.space import SOLVERS
    if args.solver not in SOLVERS:
        p.error(f"SOLVER: unknown {args.solver!r}; allowed (the solvers "
                f"tools.tune tunes): {', '.join(SOLVERS)}")
    if args.jobs < 1:
        p.error(f"--jobs must be an integer >= 1, got {args.jobs}")
    unknown = [t for t in args.task if t not in spec.tasks]
    if unknown:
        p.error(f"--task: unknown {unknown}; the spec's tasks are "
                f"{', '.join(spec.tasks)}")
    missing = [t for t in spec.tasks.values()
               if not {"trials", "record", "config"} <= set(t.stored)]
    if missing:
        p.error(f"tasks {[t.name for t in missing]} have no stored study "
                "(stored: trials, record, config) to add to")
    tasks = [spec.tasks[t] for t in (args.task or spec.tasks)]
    work = args.work or spec.work
    if args.plan:
        steps = [s for t in tasks
                 for s in task_plan(spec, t, args.solver, work, args.jobs)]
        print("\n".join(plan_lines(steps)))
        print("then: its runs, config lines and records stored, the pages "
              "regenerated (seconds)")
        return 0

    def add_everywhere():
        outcomes = []
        for task in tasks:
            record, results = run_task(spec, task, args.solver, work,
                                       args.jobs, args.dask_address)
            outcomes.append((task, record, results))
        store(spec, args.solver, outcomes)

    return guarded(add_everywhere)


if __name__ == "__main__":
    sys.exit(main())
