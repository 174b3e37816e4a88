"""benchmark_utils.progress: the line printed after each run of `benchopt
run` ("run k of N, elapsed, about T left"), its count N from the command's
options, and that progress never ends a run (docs/results.md)."""
import os
import re
import subprocess
import sys
import types

import yaml

from bench_helpers import ROOT, benchmark
from benchmark_utils import progress


class FakeClock:
    def __init__(self, *times):
        self.times = list(times)

    def __call__(self):
        return self.times.pop(0)


class FakeContext:
    """click's context as the progress module reads it: ``params`` and
    where each came from (``given``: on the command line)."""

    def __init__(self, given=(), **params):
        self.params = dict(solver=(), force_solver=(), dataset=(),
                           objective=(), n_repetitions=None,
                           config_file=None)
        self.params.update(params)
        self.given = set(given)
        self.command = types.SimpleNamespace(name="run")

    def get_parameter_source(self, name):
        if name not in self.params:
            return None
        kind = "COMMANDLINE" if name in self.given else "DEFAULT"
        return types.SimpleNamespace(name=kind)


def test_clock_text():
    assert progress.clock_text(0) == "0:00:00"
    assert progress.clock_text(59.6) == "0:01:00"
    assert progress.clock_text(3725) == "1:02:05"
    assert progress.clock_text(-3) == "0:00:00"


def test_the_time_left_is_the_mean_run_time_times_the_runs_left():
    p = progress.RunProgress(4, start=100.0, clock=FakeClock(110.0, 116.0,
                                                             130.0, 131.0))
    assert p.run_ended() == "run 1 of 4, elapsed 0:00:10, about 0:00:30 left"
    # 16 s for 2 runs: 8 s a run, 2 left
    assert p.run_ended() == "run 2 of 4, elapsed 0:00:16, about 0:00:16 left"
    assert p.run_ended() == "run 3 of 4, elapsed 0:00:30, about 0:00:10 left"
    assert p.run_ended() == "run 4 of 4, elapsed 0:00:31, about 0:00:00 left"


def test_without_a_total_only_the_count_and_the_time_are_printed():
    p = progress.RunProgress(start=0.0, clock=FakeClock(5.0),
                             where=progress.WORKER)
    assert p.run_ended() == "run 1 in this worker process, elapsed 0:00:05"
    # more runs than counted: the total is dropped, not contradicted
    p = progress.RunProgress(1, start=0.0, clock=FakeClock(1.0, 2.0))
    p.run_ended()
    assert p.run_ended() == "run 2, elapsed 0:00:02"


def test_only_runs_driven_by_benchopts_runner_are_counted():
    assert not progress.driven_by_benchopt()
    # a function named as benchopt's runner, in a module named as its
    namespace = {"__name__": "benchopt.runner", "progress": progress}
    exec("def run_one_to_cvg():\n"
         "    return (lambda: progress.driven_by_benchopt())()\n", namespace)
    assert namespace["run_one_to_cvg"]()
    namespace["__name__"] = "tests.other"
    exec("def run_one_to_cvg():\n"
         "    return progress.driven_by_benchopt()\n", namespace)
    assert not namespace["run_one_to_cvg"]()


def test_the_hook_prints_one_line_per_run(monkeypatch, capsys):
    monkeypatch.setattr(progress, "driven_by_benchopt", lambda frame: True)
    monkeypatch.setattr(progress, "_progress", None)
    monkeypatch.setattr(progress, "make_progress", lambda: (
        progress.RunProgress(2, start=0.0, clock=FakeClock(3.0, 4.0))))
    progress.run_ended()
    progress.run_ended()
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert lines == ["run 1 of 2, elapsed 0:00:03, about 0:00:03 left",
                     "run 2 of 2, elapsed 0:00:04, about 0:00:00 left"]


def test_progress_never_ends_a_run(monkeypatch, capsys):
    def broken():
        raise RuntimeError("no terminal")

    monkeypatch.setattr(progress, "driven_by_benchopt", lambda frame: True)
    monkeypatch.setattr(progress, "_progress", None)
    monkeypatch.setattr(progress, "make_progress", broken)
    progress.run_ended()  # no exception
    assert capsys.readouterr().out == ""
    # outside benchopt's runner (a test, a tool): nothing at all
    monkeypatch.undo()
    monkeypatch.setattr(progress, "_progress", None)
    progress.run_ended()
    assert capsys.readouterr().out == "" and progress._progress is None


def test_a_worker_process_counts_its_own_runs(monkeypatch):
    # no `benchopt run` command in this process: no total
    p = progress.make_progress()
    assert p.total is None and p.where == progress.WORKER
    # a count that fails gives no total, not an error
    monkeypatch.setattr(progress, "_command_context", lambda: FakeContext())
    monkeypatch.setattr(progress, "count_runs", lambda context, bench: 1 / 0)
    p = progress.make_progress()
    assert p.total is None and p.where == ""


def test_the_selection_is_read_as_benchopt_reads_it(tmp_path):
    config = tmp_path / "c.yml"
    config.write_text(yaml.safe_dump({
        "solver": ["SOBA", "SABA"], "dataset": "digits",
        "n-repetitions": 3, "max-runs": 5}))
    context = FakeContext(given={"dataset"}, dataset=("Simulated",),
                          config_file=str(config))
    params = progress.run_selection(context)
    # the command line's dataset wins; the config fills the defaults
    assert params["dataset"] == ("Simulated",)
    assert params["solver"] == ["SOBA", "SABA"]
    assert params["n_repetitions"] == 3
    assert "max_runs" not in params


def test_runs_are_counted_with_benchopts_run_generation(tmp_path):
    bench = benchmark()
    context = FakeContext(
        solver=("SOBA[step_size=[0.05,0.1]]", "SABA"),
        dataset=("Simulated[n=200,m=200]",), n_repetitions=2)
    assert progress.count_runs(context, bench) == (2 + 1) * 2
    # a solver both run and forced is listed twice by benchopt too
    context = FakeContext(solver=("SOBA",), force_solver=("SABA",),
                          dataset=("Simulated", "digits"))
    assert progress.count_runs(context, bench) == 2 * 2 * 1
    # configs/quick.yml: 4 datasets x 9 solvers, 1 repetition
    quick = FakeContext(config_file=f"{ROOT}/configs/quick.yml")
    assert progress.count_runs(quick, bench) == 36


def test_a_benchopt_run_prints_run_k_of_n(tmp_path):
    config = tmp_path / "c.yml"
    config.write_text(yaml.safe_dump({
        "solver": ["SOBA", "SABA"], "n-repetitions": 2}))
    cmd = [sys.executable, "-m", "benchopt", "run", ROOT, "--config",
           str(config), "-d", "Simulated[n=200,m=200,dim_x=3,dim_y=5]",
           "-n", "3", "--no-plot", "--no-html", "--no-cache", "--output",
           str(tmp_path / "res.parquet")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=dict(
                              os.environ, BENCHOPT_RAISE_ON_ERROR="true"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # 2 solvers x 2 repetitions, one line after each run
    lines = re.findall(r"run (\d+) of (\d+), elapsed \d+:\d\d:\d\d, "
                       r"about \d+:\d\d:\d\d left", proc.stdout)
    assert lines == [("1", "4"), ("2", "4"), ("3", "4"), ("4", "4")]
