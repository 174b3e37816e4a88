"""The steps of a study's command (``python -m study run``, ``add``):
each a command a user could type, the files that say it is done, and an
estimate of its wall time.  A step whose outputs all exist is done and
skipped, so an interrupted command, run again, resumes where it stopped
(the step in flight resumes by itself: a tuning from its storage, a
comparison from benchopt's cache).
"""
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmark_utils.progress import clock_text

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Step:
    """One command of a study: ``argv`` run from the repository's root;
    done when every path of ``outputs`` exists."""
    task: str
    what: str
    argv: list
    outputs: list
    estimate: float = 0.0
    before: object = field(default=None, repr=False)  # a callable, run first

    def done(self):
        return all((ROOT / p).exists() for p in self.outputs)

    def text(self):
        """The command as a user types it (``python``, not this
        interpreter's path)."""
        argv = ["python" if a == sys.executable else a for a in self.argv]
        return " ".join(shlex.quote(str(a)) for a in argv)


def python(module, *args):
    """The argv of ``python -m module args``."""
    return [sys.executable, "-m", module, *map(str, args)]


def benchopt_run(config, results, seed, repetitions, jobs, dataset=None,
                 parallel_config=None):
    """``benchopt run`` of a study comparison: no timeout (a run cut short
    would not reach its readings), no plot, results to ``results``; its
    runs on a dask cluster with ``parallel_config``."""
    argv = python("benchopt", "run", ".", "--config", config)
    if dataset:
        argv += ["-d", dataset]
    if parallel_config:
        argv += ["--parallel-config", parallel_config]
    return argv + ["--seed", str(seed), "-r", str(repetitions), "-j",
                   str(jobs), "--no-plot", "--no-timeout", "--output",
                   str(results)]


def _call(argv):
    """Run ``argv`` from the repository's root; on an interrupt of this
    process alone (a terminal's Ctrl-C reaches both), pass it on and wait,
    so that no step runs on after the command ended."""
    child = subprocess.Popen(argv, cwd=ROOT)
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
        raise


def dask_config(address, folder):
    """A benchopt parallel config that runs on the scheduler at
    ``address`` (written under ``folder``), or None without one."""
    if not address:
        return None
    path = f"{folder}/parallel_dask.yml"
    (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
    (ROOT / path).write_text(f"backend: dask\ndask_address: {address}\n")
    return path


def plan_lines(steps):
    """The plan: one line per step, done or to run, with its estimate,
    and the total left."""
    lines, left = [], 0.0
    for i, step in enumerate(steps, 1):
        done = step.done()
        if not done:
            left += step.estimate
        state = "done" if done else f"~{clock_text(step.estimate)}"
        lines.append(f"[{i}/{len(steps)}] {step.task}: {step.what} "
                     f"({state})\n    {step.text()}")
    lines.append(f"{sum(not s.done() for s in steps)} of {len(steps)} "
                 f"steps to run, about {clock_text(left)} on the machine "
                 "the estimates come from (the stored records' and the "
                 "spec's costs: a 2 vCPU AMD EPYC)")
    return lines


def execute(steps, out=print):
    """Run every step not done, in order, printing progress and the time
    left; stop at the first failure (``RuntimeError`` naming the step and
    its command)."""
    left = sum(s.estimate for s in steps if not s.done())
    start = time.monotonic()
    for i, step in enumerate(steps, 1):
        if step.done():
            out(f"[{i}/{len(steps)}] {step.task}: {step.what}: done "
                "(stored)")
            continue
        out(f"[{i}/{len(steps)}] {step.task}: {step.what} (~"
            f"{clock_text(step.estimate)}; about {clock_text(left)} left)"
            f"\n    {step.text()}", )
        if step.before is not None:
            step.before()
        t0 = time.monotonic()
        code = _call([str(a) for a in step.argv])
        if code != 0:
            raise RuntimeError(
                f"{step.task}: {step.what} failed (exit {code}); run again "
                f"to resume, or run it alone:\n    {step.text()}")
        missing = [p for p in step.outputs if not (ROOT / p).exists()]
        if missing:
            raise RuntimeError(f"{step.task}: {step.what} wrote no "
                               f"{', '.join(map(str, missing))}")
        left = max(0.0, left - step.estimate)
        out(f"    done in {clock_text(time.monotonic() - t0)} "
            f"({clock_text(time.monotonic() - start)} since the start)")


def study_arguments(parser, what):
    """The options every study command that runs steps takes: ``--task``,
    ``--plan``, ``--jobs``, ``--work`` (``what``: the files under it)."""
    parser.add_argument("--task", action="append", default=[],
                        help="this task only (repeatable)")
    parser.add_argument("--plan", action="store_true",
                        help="print the steps and their estimated cost only")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", help=f"folder of {what} (default: the "
                                       "spec's work)")


def checked_arguments(parser, args):
    """``(spec, tasks, work)`` of a study command's ``--spec`` (or
    ``spec``), ``--task``, ``--jobs`` and ``--work``, each checked: a bad
    one stops the command through ``parser.error``, naming it."""
    from study import spec as study_spec
    try:
        spec = study_spec.load(args.spec)
    except study_spec.SpecError as err:
        parser.error(str(err))
    if args.jobs < 1:
        parser.error(f"--jobs must be an integer >= 1, got {args.jobs}")
    unknown = [t for t in args.task if t not in spec.tasks]
    if unknown:
        parser.error(f"--task: unknown {unknown}; the spec's tasks are "
                     f"{', '.join(spec.tasks)}")
    work = args.work or spec.work
    if Path(work).resolve() == (ROOT / "study" / "data").resolve():
        parser.error("--work: study/data holds the stored study; give "
                     "another folder")
    return spec, [spec.tasks[t] for t in (args.task or spec.tasks)], work


def guarded(action):
    """The exit code of ``action()``: 0, 1 when a step failed (its
    message printed), 130 when interrupted (how to resume printed)."""
    try:
        action()
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: run the same command again to resume",
              file=sys.stderr)
        return 130
    return 0
