"""The parts of benchopt's internals the benchmark relies on, checked on the
installed benchopt.

benchopt documents the classes a benchmark subclasses (``BaseObjective``,
``BaseSolver``, ``BaseDataset``, ``StoppingCriterion``) and its command
line; the benchmark also reaches a few names that are private (a leading
underscore) or undocumented, for which benchopt offers nothing public.
They may change in any release, so ``requirements.txt`` pins benchopt to
the releases they were checked on (docs/architecture.md, "benchopt's
internals").  Each test below checks one of them and, when it is gone or
has changed, fails saying which, where the benchmark uses it and the
pinned range.
"""
import inspect
import re
from pathlib import Path

import benchopt
import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from benchmark_utils import progress, solver_base
from benchmark_utils.stopping import ConvergenceCriterion

ROOT = Path(__file__).resolve().parent.parent


def pinned():
    """benchopt's requirement in requirements.txt (``benchopt>=1.10,<1.11``)."""
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if re.match(r"benchopt\b", line):
            return Requirement(line)
    raise AssertionError("requirements.txt names no benchopt requirement")


def gone(name, users, detail=""):
    """The failure message of a private benchopt name ``name`` that the
    installed benchopt lacks (or has changed), used by ``users``."""
    return (f"benchopt {benchopt.__version__} has no usable `{name}`"
            f"{': ' + detail if detail else ''} (used by {users}). The "
            f"benchmark is tested with `{pinned()}` (requirements.txt): "
            "install a benchopt in that range, or port the code above to "
            "this benchopt and widen the pin.")


def check(name, users, condition, detail=""):
    assert condition, gone(name, users, detail)


def attribute(path, users):
    """The object at dotted ``path`` (module, then attributes), or a
    failure naming it."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = __import__(".".join(parts[:cut]), fromlist=["_"])
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError as err:
            pytest.fail(gone(path, users, str(err)))
        return obj
    pytest.fail(gone(path, users, "no such module"))


def test_the_pin_is_an_upper_bounded_range_holding_the_installed_benchopt():
    """The pin states both ends, and the installed benchopt is inside it:
    outside, the private names below are unchecked."""
    spec = pinned().specifier
    assert any(s.operator in ("<", "<=", "==", "~=") for s in spec), (
        f"requirements.txt's `{pinned()}` has no upper bound: benchopt's "
        "private names (tests/test_benchopt_api.py) may change in any "
        "release")
    assert Version(benchopt.__version__) in spec, (
        f"benchopt {benchopt.__version__} is installed, outside "
        f"`{pinned()}` (requirements.txt), the releases the benchmark is "
        "tested with; run this file's checks, then widen the pin")


def test_the_run_generation_counts_the_runs():
    """``_get_all_runs`` (benchopt's own run generation) counts the runs
    of ``benchopt run`` for the progress line's "run k of N"."""
    users = "benchmark_utils/progress.py: count_runs"
    name = "benchopt._generate_runs._get_all_runs"
    params = inspect.signature(attribute(name, users)).parameters
    check(name, users, list(params)[:5] == [
        "benchmark", "solvers", "forced_solvers", "datasets", "objectives"]
        and "terminal" in params, f"signature {list(params)}")


def test_the_runner_function_the_progress_line_looks_for():
    users = "benchmark_utils/progress.py: RUNNER, driven_by_benchopt"
    module, function = progress.RUNNER
    check(f"{module}.{function}", users, callable(
        attribute(f"{module}.{function}", users)))


class _Criterion:
    """A stand-in for a run's stopping criterion: evaluate at call 0, then
    at call 1000, never stop."""

    def init_stop_val(self):
        return 0

    def should_stop(self, stop_val, curve):
        return False, "running", 1000


class _Solver:
    def get_result(self):
        return {}


def test_the_callback_evaluates_at_the_call_it_is_told():
    """``BilevelSolver.run`` reads ``callback.stopping_criterion`` (the
    deadline) and lowers ``callback.next_stopval`` to ``callback.it`` to
    have the iterate at the deadline evaluated at the next call
    (``solver_base._evaluate_at_next_call``); benchopt evaluates when
    ``it == next_stopval``."""
    users = ("benchmark_utils/solver_base.py: _deadline_check, "
             "_evaluate_at_next_call; tests/test_budget.py")
    name = "benchopt.callback._Callback"
    callback_class = attribute(name, users)
    evaluations = []
    crit = _Criterion()
    try:
        callback = callback_class(lambda result: evaluations.append(1) or [
            {"objective_value": 0.0}], _Solver(), {}, crit)
        callback.start()
    except Exception as err:
        pytest.fail(gone(name, users, f"construction failed: {err!r}"))
    for attr in ("it", "next_stopval", "stopping_criterion"):
        check(f"{name}.{attr}", users, hasattr(callback, attr))
    check(f"{name}.stopping_criterion", users,
          callback.stopping_criterion is crit)
    for _ in range(6):
        callback()
    check(f"{name}.next_stopval", users, len(evaluations) == 1
          and callback.it == 6 and callback.next_stopval == 1000,
          "evaluates at call 0, then at next_stopval")
    solver_base._evaluate_at_next_call(callback)
    callback()
    check(f"{name}.next_stopval", users, len(evaluations) == 2,
          "lowering next_stopval to it makes the next call evaluate")


def test_the_criterion_base_class_gives_what_the_rule_reads():
    """``ConvergenceCriterion`` keeps benchopt's x1.5 spacing with ``RHO``
    and ``rho``, and reads ``key_to_monitor_``; ``run_horizon`` computes
    benchopt's schedule from ``RHO``.  benchopt checks ``--timeout`` in
    ``should_stop`` against a deadline set in ``get_runner_instance``,
    before the one ``time_is_up`` reads."""
    users = "benchmark_utils/stopping.py; tools/run_horizon.py"
    rho = attribute("benchopt.stopping_criterion.RHO", users)
    check("benchopt.stopping_criterion.RHO", users, rho == 1.5,
          f"RHO = {rho!r}, the schedule the docs state is x1.5")
    run = ConvergenceCriterion(strategy="callback").get_runner_instance(
        max_runs=10, timeout=0)
    for attr in ("rho", "key_to_monitor_", "timeout"):
        check(f"StoppingCriterion.{attr}", users, hasattr(run, attr))
    assert run.time_is_up()
    _, status, _ = run.should_stop(0, [{"objective_value": 1.0}])
    check("StoppingCriterion.should_stop", users, status == "timeout",
          f"a run past its deadline ends with {status!r}, not 'timeout'")


@pytest.mark.parametrize("path, users", [
    ("benchopt.BaseSolver._set_objective",
     "tools/tune/run.py, tools/run_cost.py, tests (the runner's call)"),
    ("benchopt.BaseSolver._warm_up", "tests/test_budget.py"),
    ("benchopt.BaseSolver._stopping_criterion", "tests/test_budget.py"),
    ("benchopt.BaseObjective._set_dataset",
     "tools/tune/run.py, tools/run_horizon.py, study/reference_table.py, "
     "tests/bench_helpers.py"),
    ("benchopt.utils.parametrized_name_mixin._extract_options",
     "tools/tune/run.py, tools/run_horizon.py, tests/test_tune.py"),
    ("benchopt.utils.parametrized_name_mixin._check_patterns",
     "tests/test_algorithm_table.py, tests/test_from_reference.py"),
    ("benchopt.utils.run_context.RunContext.set_run_context",
     "tools, tests/bench_helpers.py (a run's seeds outside the runner)"),
    ("benchopt.benchmark.get_running_benchmark",
     "benchmark_utils/progress.py, benchmark_utils/precompile.py"),
    ("benchopt.config.get_data_path", "benchmark_utils/data/paths.py"),
])
def test_a_private_name_is_still_there(path, users):
    attribute(path, users)


def test_the_run_command_has_the_options_read_from_its_context():
    """``precompile.run_context`` recognises ``benchopt run`` by click's
    command (name ``run``, callback in ``benchopt.cli.main``), and
    ``progress.run_selection`` reads its options by click's names."""
    users = ("benchmark_utils/precompile.py: run_context; "
             "benchmark_utils/progress.py: run_selection")
    name = "benchopt.cli.main.run"
    command = attribute(name, users)
    check(name, users, command.name == "run"
          and command.callback.__module__ == "benchopt.cli.main",
          "the command's name or module")
    options = {p.name for p in command.params}
    wanted = set(progress.SELECTION) | {"config_file", "benchmark"}
    check(name, users, wanted <= options,
          f"options {sorted(wanted - options)} missing")
