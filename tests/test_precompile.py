"""The kernels a run needs compile ahead, in parallel processes
(``benchmark_utils/precompile.py``): which kernels a solver, a command line
or a config needs; that only missing ones start, outside the current
request; the child processes' queue; and, slow, two kernels compiled in
parallel into an empty cache that a later ``compile_for`` loads without
compiling."""
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import click
import numpy as np
import pytest
from benchopt.cli.main import run as benchopt_run
from bench_helpers import ROOT, dataset

from benchmark_utils import engine, precompile
from benchmark_utils.precompile import Kernel

QUICK = os.path.join(ROOT, "configs", "quick.yml")
PRESETS = ["SPABA", "SFFBA", "MSEBA", "MA-SABA", "SRMBA", "SRBA", "SABA",
           "SOBA", "MA-SOBA"]
# the quick config's kernels, in the order its runs meet them
QUICK_KERNELS = [Kernel("core", "quadratic"),
                 Kernel("metrics", "multiclass"),
                 Kernel("core", "datacleaning"),
                 Kernel("core", "logreg"),
                 Kernel("core", "multilogreg")]


# --------------------------------------------------------------------------
# Which kernels
# --------------------------------------------------------------------------
def test_a_solver_needs_the_kernel_of_its_kind_and_family():
    assert precompile.kernel_for("SPABA", np.float64, "logreg") == \
        Kernel("core", "logreg", "float64")
    assert precompile.kernel_for("PnPBO", np.float32, "multilogreg") == \
        Kernel("core", "multilogreg", "float32")
    inner = precompile.kernel_for("StocBiO", "float64", "quadratic")
    assert inner == Kernel("baselines", "quadratic", "float64", "stocBiO")
    # the algorithms of a family share its loop: one kernel
    for name in ("AmIGO", "BSA", "TTSA"):
        assert precompile.kernel_for(name, "float64", "quadratic") == inner
    assert precompile.kernel_for("MRBO", "float64", "quadratic") == Kernel(
        "baselines", "quadratic", "float64", "SUSTAIN")
    # Python-side kinds compile nothing
    assert precompile.kernel_for("ImplicitGD") is None
    assert precompile.kernel_for("Optuna") is None


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="dtype must be one of"):
        precompile.kernel_for("SPABA", "float16")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        precompile.kernel_for("NoSuchSolver")
    with pytest.raises(ValueError, match="task must be one of"):
        precompile.kernel_for("SPABA", "float64", "svm")


def test_kernels_come_once_in_the_order_the_runs_meet_them():
    data = [("quadratic", "float64"), ("datacleaning", "float64"),
            ("logreg", "float64"), ("multilogreg", "float64")]
    assert precompile.kernels_for(PRESETS, data) == QUICK_KERNELS
    baselines = precompile.kernels_for(
        ["SOBA", "StocBiO", "AmIGO", "BSA", "TTSA", "MRBO", "ImplicitGD"],
        [("quadratic", "float64"), ("quadratic", "float32")])
    assert baselines == [
        Kernel("core", "quadratic"),
        Kernel("baselines", "quadratic", "float64", "stocBiO"),
        Kernel("baselines", "quadratic", "float64", "SUSTAIN"),
        Kernel("core", "quadratic", "float32"),
        Kernel("baselines", "quadratic", "float32", "stocBiO"),
        Kernel("baselines", "quadratic", "float32", "SUSTAIN")]
    # the metrics' passes serve both multiclass tasks: one kernel, first
    assert precompile.kernels_for(["SOBA"], [
        ("logreg", "float64"), ("multilogreg", "float32"),
        ("datacleaning", "float64")]) == [
        Kernel("core", "logreg"), Kernel("metrics", "multiclass"),
        Kernel("core", "multilogreg", "float32"),
        Kernel("core", "datacleaning")]


@pytest.mark.parametrize("params, dtypes", [
    ({}, ["float64"]),
    ({"ratio": [0.5]}, ["float64"]),
    ({"dtype": "float32"}, ["float32"]),
    ({"dtype": ["float32", "float64", "float32"]}, ["float32", "float64"]),
    ({"n, dtype": [(10, "float32"), (20, "float64")]},
     ["float32", "float64"]),
    ({"dtype": ["float16"]}, []),  # the dataset's own check names it
])
def test_a_dataset_gives_its_feature_dtypes(params, dtypes):
    assert precompile.dataset_dtypes(params) == dtypes


def command(*args):
    """click's context of ``benchopt run ROOT *args``, as benchopt parses
    it (parameters and where each comes from)."""
    return benchopt_run.make_context("run", [ROOT, *args])


@pytest.mark.parametrize("args, kernels", [
    (["--config", QUICK], QUICK_KERNELS),
    # options on the command line replace the config's
    (["--config", QUICK, "-s", "MRBO", "-d", "wine"],
     [Kernel("metrics", "multiclass"),
      Kernel("baselines", "multilogreg", "float64", "SUSTAIN")]),
    (["-d", "covtype[dtype=[float32,float64]]", "-s", "SPABA[p=0.1]",
      "-s", "ImplicitGD"],
     [Kernel("metrics", "multiclass"),
      Kernel("core", "multilogreg", "float32"),
      Kernel("core", "multilogreg", "float64")]),
    (["-d", "breast_cancer", "-d", "Simulated[n=200,m=300]", "-s", "VRBO",
      "-f", "SOBA"],
     [Kernel("baselines", "logreg", "float64", "VRBO"),
      Kernel("core", "logreg"),
      Kernel("baselines", "quadratic", "float64", "VRBO"),
      Kernel("core", "quadratic")]),
])
def test_the_kernels_of_a_benchopt_command(args, kernels):
    with command(*args) as context:
        assert precompile.run_context() is context
        assert precompile.kernels_of_command(context) == kernels


def test_only_benchopt_run_has_a_command_to_read():
    assert precompile.run_context() is None
    with click.Command("run").make_context("run", []):
        assert precompile.run_context() is None


def test_every_dataset_states_the_task_of_its_arrays():
    offline = {"Simulated": dict(n=40, m=50), "digits": {},
               "breast_cancer": {}, "wine": {}}
    for name, params in offline.items():
        instance = dataset(name, **params)
        assert instance.get_data()["task"] == type(instance).task, name
    rng = np.random.default_rng(0)
    downloads = {
        "covtype": (dict(n_train=40, n_val=15, n_test=15), dict(
            X=rng.integers(-200, 4000, (70, 54)), y=np.arange(70) % 7)),
        "ijcnn1": (dict(n_train=None, n_val=None), dict(
            X_train=rng.uniform(-1, 1, (40, 22)),
            y_train=rng.choice([-1.0, 1.0], 40),
            X_test=rng.uniform(-1, 1, (25, 22)),
            y_test=rng.choice([-1.0, 1.0], 25))),
        "mnist": (dict(n_train=16, n_val=8, n_test=10), dict(
            X_train=rng.integers(0, 256, (30, 784)).astype(np.uint8),
            y_train=(np.arange(30) % 10).astype(np.uint8),
            X_test=rng.integers(0, 256, (12, 784)).astype(np.uint8),
            y_test=(np.arange(12) % 10).astype(np.uint8))),
    }
    for name, (params, arrays) in downloads.items():
        instance = dataset(name, **params)
        instance._arrays = lambda arrays=arrays: arrays  # no file needed
        assert instance.get_data()["task"] == type(instance).task, name


# --------------------------------------------------------------------------
# What a run starts
# --------------------------------------------------------------------------
class FakeBackground:
    """Records what a command starts; children never run."""
    made = []

    def __init__(self, kernels, workers, command=None):
        self.kernels, self.workers = list(kernels), workers
        self.taken, self.waited = [], []
        FakeBackground.made.append(self)

    def take(self, kernel):
        self.taken.append(kernel)
        return kernel == Kernel("core", "logreg")  # not started yet

    def wait(self, kernel=None):
        self.waited.append(kernel)
        return True

    def close(self):
        pass


@pytest.fixture
def recorded(monkeypatch):
    """``engine.compile_for``'s calls, the backgrounds made, and no
    process started."""
    calls = []
    FakeBackground.made = []
    monkeypatch.setattr(engine, "compile_for",
                        lambda *args: calls.append(args) or True)
    monkeypatch.setattr(precompile, "Background", FakeBackground)
    monkeypatch.setattr(precompile, "usable_cores", lambda: 3)
    monkeypatch.setattr(precompile.atexit, "register", lambda f: None)
    return calls


def test_outside_benchopt_run_a_request_compiles_its_kernel_only(recorded):
    assert precompile.compile_for_run("SPABA", np.float64, "logreg")
    assert recorded == [("SPABA", np.float64, "logreg")]
    assert FakeBackground.made == []


def test_a_command_starts_the_missing_kernels_but_the_requested_one(
        recorded, monkeypatch, capsys):
    cached = Kernel("core", "datacleaning")
    monkeypatch.setattr(precompile, "is_ready", lambda k: k == cached)
    with command("--config", QUICK):
        precompile.compile_for_run("SPABA", np.float64, "quadratic")
        [background] = FakeBackground.made
        # the requested kernel compiles here; the cached one nowhere; the
        # longest first, the metrics' passes (the Objective compiles them
        # here) last
        assert background.kernels == [
            Kernel("core", "multilogreg"), Kernel("core", "logreg"),
            Kernel("metrics", "multiclass")]
        assert background.workers == 2  # the cores less the run's
        said = capsys.readouterr().out
        assert "compiling 3 numba kernels in 2 background processes" in said
        assert ("here: the single-loop core for the quadratic task "
                "(float64 features)") in said
        # later requests: planned once; one not started yet is taken back
        # and compiled here, a running one waited for, then loaded
        precompile.compile_for_run("SOBA", np.float64, "logreg")
        precompile.compile_for_run("SABA", np.float64, "multilogreg")
        precompile.compile_for_run("ImplicitGD", np.float64, "multilogreg")
        assert len(FakeBackground.made) == 1
        assert background.taken == [Kernel("core", "logreg"),
                                    Kernel("core", "multilogreg")]
        assert background.waited == [Kernel("core", "multilogreg")]
    assert [c[0] for c in recorded] == ["SPABA", "SOBA", "SABA",
                                        "ImplicitGD"]


def test_a_warm_command_starts_nothing(recorded, monkeypatch, capsys):
    monkeypatch.setattr(precompile, "is_ready", lambda k: True)
    with command("--config", QUICK):
        precompile.compile_for_run("SPABA", np.float64, "quadratic")
        precompile.compile_for_run("SOBA", np.float64, "logreg")
    assert FakeBackground.made == [] and len(recorded) == 2
    assert capsys.readouterr().out == ""


def test_a_command_that_cannot_be_read_compiles_on_first_use(
        recorded, monkeypatch, capsys):
    def unreadable(context):
        raise KeyError("solver")
    monkeypatch.setattr(precompile, "kernels_of_command", unreadable)
    with command("--config", QUICK):
        precompile.compile_for_run("SPABA", np.float64, "quadratic")
        precompile.compile_for_run("SOBA", np.float64, "logreg")
    assert FakeBackground.made == [] and len(recorded) == 2
    said = capsys.readouterr().out
    assert said.count("could not be listed (KeyError('solver'))") == 1


# --------------------------------------------------------------------------
# The child processes
# --------------------------------------------------------------------------
def exits(codes, gate=None):
    """A child command per kernel: wait for file ``gate`` (kernel "a"),
    then exit with ``codes[kernel.task]``."""
    wait = ("import os, sys, time\n"
            "while not os.path.exists(sys.argv[2]): time.sleep(0.01)\n")

    def command(kernel):
        code = f"import sys; print('broken', file=sys.stderr); " \
               f"sys.exit({codes[kernel.task]})"
        if kernel.task == "a":
            code = wait + code.replace("; ", "\n")
        return [sys.executable, "-c", code, "-", str(gate)]
    return command


def test_children_run_in_order_and_a_queued_kernel_is_taken_back(
        tmp_path):
    a, b, c = (Kernel("core", t) for t in "abc")
    gate = tmp_path / "go"
    background = precompile.Background(
        [a, b, c, a], workers=1,
        command=exits(dict(a=0, b=3, c=0), gate))
    assert background.kernels == [a, b, c]
    assert background.take(c)  # the one process is busy with a
    assert not background.take(c)
    gate.touch()
    assert background.wait(a) and not background.wait(b)
    assert background.wait(c)  # taken: nothing to wait for
    assert set(background.seconds) == {a}
    assert set(background.failed) == {b}
    assert background.failed[b] == "broken"
    background.close()


def test_closing_stops_the_children(tmp_path):
    a, b = Kernel("core", "a"), Kernel("core", "b")
    background = precompile.Background(
        [a, b], workers=1, command=exits(dict(a=0, b=0), tmp_path / "never"))
    background.close()  # at exit: a killed, b never started
    assert not background.wait(a)
    assert b not in background.seconds


def test_children_take_the_longest_first_and_the_metrics_last():
    kernels = [Kernel("metrics", "multiclass"), Kernel("core", "quadratic"),
               Kernel("core", "logreg"),
               Kernel("baselines", "logreg", "float64", "VRBO"),
               Kernel("core", "multilogreg"), Kernel("core", "datacleaning")]
    # 10, 12, 20, 30, 30 s (the specs' compile_seconds): ties in the run's order
    assert precompile.queue_order(kernels) == [
        Kernel("core", "multilogreg"), Kernel("core", "datacleaning"),
        Kernel("baselines", "logreg", "float64", "VRBO"),
        Kernel("core", "logreg"), Kernel("core", "quadratic"),
        Kernel("metrics", "multiclass")]


def test_the_announcement_says_what_and_about_how_long():
    kernels = [Kernel("core", "datacleaning"), Kernel("core", "quadratic"),
               Kernel("core", "logreg")]
    # 30 s | 10 + 12 s on two processes; their sum on one
    assert precompile.estimate_seconds(kernels, 2) == 30
    assert precompile.estimate_seconds(kernels, 1) == 52
    text = precompile.announcement(kernels, 2)
    assert text.startswith("compiling 3 numba kernels in 2 background "
                           "processes")
    assert "about 30 s" in text
    for kernel in kernels:
        assert f"\n    {kernel.describe()}" in text


def test_the_entry_point_reads_patterns_as_benchopt_run(tmp_path):
    config = tmp_path / "c.yml"
    config.write_text("dataset: wine\nsolver: [SOBA]\nforce-solver: MRBO\n")

    def patterns(*argv):
        return precompile.patterns(precompile._options(list(argv)))
    assert patterns("--config", str(config)) == (["SOBA", "MRBO"], ["wine"])
    assert patterns("--config", str(config), "-s", "SABA", "-d",
                    "digits") == (["SABA"], ["digits"])
    assert patterns() == ([], [])
    with pytest.raises(SystemExit):
        precompile._options(["--workers", "0"])


# --------------------------------------------------------------------------
# Two kernels in parallel into an empty cache
# --------------------------------------------------------------------------
CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from benchmark_utils import engine, precompile
from benchmark_utils.precompile import Kernel
kernels = [Kernel("core", "quadratic"), Kernel("core", "logreg")]
before = [precompile.is_ready(k) for k in kernels]
seconds = precompile.precompile(kernels, workers=2, say=None)
after = [precompile.is_ready(k) for k in kernels]
again = precompile.precompile(kernels, workers=2, say=None)
for task in ("quadratic", "logreg"):
    engine.compile_for("SPABA", "float64", task)
stats = engine.run_iterations.stats
print(json.dumps(dict(
    before=before, after=after, compiled=sorted(k.task for k in seconds),
    held=[precompile.is_ready(k) for k in kernels],
    again=len(again), misses=sum(stats.cache_misses.values()),
    hits=sum(stats.cache_hits.values()))))
"""


@pytest.mark.slow
def test_two_kernels_compile_in_parallel_then_load_from_the_cache(
        tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", CHILD, ROOT], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = SimpleNamespace(**json.loads(proc.stdout.strip().splitlines()[-1]))
    assert out.before == [False, False]
    assert out.compiled == ["logreg", "quadratic"]  # two child processes
    assert out.after == [True, True]
    assert out.again == 0  # nothing left to compile
    # this process compiled nothing: both loaded from numba's cache
    assert out.misses == 0 and out.hits == 2
    assert out.held == [True, True]
