"""tools.tune: equal budgets per solver, resuming an interrupted tuning,
diverged trials excluded, the written run config and TUNED entry, bad
input named (docs/comparisons.md "Tune every solver with the same
budget")."""
import json
import math
import os
import signal
import subprocess
import sys
import warnings

import optuna
import pytest
import yaml
from benchopt.utils.parametrized_name_mixin import _extract_options
from optuna.trial import TrialState

from bench_helpers import (ROOT, SMALL, objective_for,
                           solver_class)
from tools import paper_grid
from tools.tune import cli, report, run, space, study as tstudy, workers

SOLVERS = "SPABA,SOBA"
# steps where these solvers run on SMALL (the default ranges, the paper's
# grid, are mostly divergent: a few trials could all be excluded)
STABLE = ["--range", "step_size=0.01:1", "--range", "outer_ratio=0.1:10",
          "--range", "z_ratio=0.1:10"]


def _argv(storage, trials, *extra, solvers=SOLVERS, epochs="2",
          ranges=STABLE, first="none", budget="trials"):
    """The command line of a small tuning; ``first="none"``: every trial
    drawn by TPE (the known-good first trials have their own tests);
    ``budget="trials"``: a budget in trials (the work budget has its own
    tests)."""
    return ["--dataset", SMALL, "--solvers", solvers, "--trials",
            str(trials), "--epochs", epochs, "--evals", "4",
            "--storage", str(storage), *ranges, "--first", first,
            "--budget", budget, *extra]


def _studies(storage, argv):
    settings = cli.settings_of(cli.parser().parse_args(argv))
    store = tstudy.open_storage(str(storage))
    return {s: tstudy.load_study(store, settings, s)
            for s in settings.solvers}


def _trials(study_):
    return sorted(study_.get_trials(deepcopy=False), key=lambda t: t.number)


def _record(storage):
    return json.loads(storage.with_suffix(".json").read_text())


def _count_runs(monkeypatch):
    calls = []
    original = run.Runner.run

    def counted(self, name, values, *args, **kwargs):
        calls.append((name, dict(values)))
        return original(self, name, values, *args, **kwargs)

    monkeypatch.setattr(run.Runner, "run", counted)
    return calls


def test_end_to_end_equal_budgets_and_written_config(tmp_path, capsys):
    storage, config = tmp_path / "t.db", tmp_path / "best.yml"
    assert cli.main(_argv(storage, 3, "--write", str(config))) == 0
    rec = _record(storage)
    assert rec["budget"] == dict(trials=3, epochs=2.0, evals=4, splits=1,
                                 kind="trials", epochs_per_solver=6.0)
    for name in ("SPABA", "SOBA"):
        s = rec["solvers"][name]
        assert s["space"]["step_size"]["high"] == 1
        # every solver: the same number of counted trials, the same budget
        assert (s["trials"], s["budget"], s["in_storage"]) == (3, 3, 3)
        assert s["complete"] + s["pruned"] + s["diverged"] == 3
        assert s["best"] is not None and math.isfinite(
            s["best"]["criterion"])
        assert len(s["all_trials"]) == 3
        # a trial's seconds: its solver's loop, then the metric points
        assert 0.0 < s["solver_seconds"] < s["wall_seconds"]
        assert all(0.0 < t["solver_seconds"] < t["seconds"]
                   for t in s["all_trials"])
    assert "value" == rec["metric"] and "validation" in rec["criterion"]
    # the TUNED entry is Python that tuned.py can hold
    entry = eval("{" + rec["tuned_entry"] + "}")
    assert set(entry["Simulated"]) == {"SPABA", "SOBA"}
    said = capsys.readouterr().out
    assert "TUNED entry" in said and "s: trials " in said
    # the config: dataset, one configuration per solver, 5 repetitions,
    # and its values reach the solvers unchanged
    conf = yaml.safe_load(config.read_text())
    assert conf["dataset"] == [SMALL] and conf["n-repetitions"] == 5
    assert "tools.tune" in config.read_text()
    objective = objective_for(dict(n=200, m=300, dim_x=5, dim_y=10))
    assert conf["max-runs"] == report.MAX_RUNS
    # bounded by max-runs, never cut short by benchopt's default timeout
    assert conf["no-timeout"] is True
    # the Objective's grid puts callback call 63 at the tuning's 2 epochs
    # for every solver; no solver line sets eval_freq
    assert conf["objective"] == [
        f"Bilevel Optimization[eval_epochs={2.0 / 63!r}]"]
    assert report.CALLS_AT_BUDGET * report.eval_epochs(2.0) == 2.0
    assert report.OBJECTIVE == objective.name
    assert "eval_freq" not in config.read_text()
    for spec in conf["solver"]:
        name, _, params = _extract_options(spec)
        best = rec["solvers"][name]["best"]["parameters"]
        params = {k: v[0] if isinstance(v, list) else v
                  for k, v in params.items()}
        assert params == pytest.approx(best)
        solver = solver_class(name).get_instance(**params)
        solver.set_objective(**objective.get_objective())
        for key, value in best.items():
            assert getattr(solver.cfg, key) == pytest.approx(value), key


def test_resume_runs_only_the_remaining_trials(tmp_path, monkeypatch):
    storage = tmp_path / "t.db"
    calls = _count_runs(monkeypatch)
    cli.main(_argv(storage, 2))
    first = {s: [(t.number, t.params, t.datetime_start)
                 for t in _trials(st)]
             for s, st in _studies(storage, _argv(storage, 2)).items()}
    assert len(calls) == 4  # 2 solvers x 2 trials
    first_elapsed = _record(storage)["elapsed_seconds"]
    cli.main(_argv(storage, 4))
    assert len(calls) == 8  # only the 2 missing trials of each solver
    # the record's wall time is the whole tuning's, both invocations
    assert _record(storage)["elapsed_seconds"] > first_elapsed
    for name, st in _studies(storage, _argv(storage, 4)).items():
        trials = _trials(st)
        assert len(trials) == 4
        assert all(t.state in tstudy.COUNTED for t in trials)
        assert [(t.number, t.params, t.datetime_start)
                for t in trials[:2]] == first[name]
    # a rerun with the budget reached runs nothing
    cli.main(_argv(storage, 4))
    assert len(calls) == 8
    # and the resumed studies drew what an uninterrupted run draws
    fresh = tmp_path / "fresh.db"
    cli.main(_argv(fresh, 4))
    resumed = _studies(storage, _argv(storage, 4))
    for name, st in _studies(fresh, _argv(fresh, 4)).items():
        assert [t.params for t in _trials(st)] == \
            [t.params for t in _trials(resumed[name])]


def _interrupt_at(monkeypatch, run_index, step):
    """Ctrl-C inside the ``run_index``-th run (from 1), at its evaluation
    point ``step``, after the point is reported (mid-trial)."""
    original = run.Runner.run
    calls = []

    def interrupted(self, name, values, epochs, n_evals, metric="value",
                    report=None):
        calls.append(1)
        here = len(calls)

        def stopping(at, value, epochs):
            report(at, value, epochs)
            if here == run_index and at == step:
                raise KeyboardInterrupt
        return original(self, name, values, epochs, n_evals, metric,
                        stopping)

    monkeypatch.setattr(run.Runner, "run", interrupted)
    return calls


def _history(storage, argv):
    """Every trial of every study: what a resumed tuning must repeat."""
    return {s: [(t.number, t.state, t.params, t.value,
                 t.intermediate_values, t.user_attrs.get("excluded"))
                for t in _trials(st)]
            for s, st in _studies(storage, argv).items()}


def _clock(storage, argv):
    return _studies(storage, argv)["SPABA"].user_attrs[tstudy.CLOCK]


def _interrupt_heartbeat(monkeypatch, index):
    """Ctrl-C while the ``index``-th trial (from 1) starts its heartbeat,
    before its run (after its thread started)."""
    original = workers.Heartbeat.__enter__
    beats = []

    def interrupted(self):
        beats.append(self)
        original(self)
        if len(beats) == index:
            raise KeyboardInterrupt
        return self

    monkeypatch.setattr(workers.Heartbeat, "__enter__", interrupted)
    return _count_runs(monkeypatch), beats


def _interrupt_drawing(monkeypatch, index):
    """A real SIGINT as the ``index``-th parameter (from 1) is drawn, under
    Python's own handler whatever an earlier test of the process left."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    original = optuna.trial.Trial.suggest_float
    draws = []

    def interrupted(self, *args, **kwargs):
        draws.append(1)
        if len(draws) == index:
            os.kill(os.getpid(), signal.SIGINT)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(optuna.trial.Trial, "suggest_float", interrupted)
    return _count_runs(monkeypatch)


@pytest.mark.parametrize("suffix, where", [
    (".db", "mid-trial"), (".log", "mid-trial"), (".db", "at its start"),
    (".log", "drawing")])
def test_an_interrupted_tuning_resumes_to_the_uninterrupted_trials(
        tmp_path, monkeypatch, capsys, suffix, where):
    """Ctrl-C in a trial (in its run, or as it starts): the trial stays
    running, marked interrupted; the rerun runs it again in place, then
    the rest, and the studies hold what an uninterrupted tuning holds
    (pruning included); the interrupted invocation's time is kept."""
    storage, fresh = tmp_path / f"t{suffix}", tmp_path / f"fresh{suffix}"
    argv = _argv(storage, 6, "--evals", "9")
    fresh_argv = _argv(fresh, 6, "--evals", "9")
    cli.main(fresh_argv)
    beats = []
    if where == "mid-trial":
        calls = _interrupt_at(monkeypatch, 8, 3)  # SOBA's 2nd trial
    elif where == "drawing":
        # its 2nd parameter (6 trials of SPABA's 5, 1 of SOBA's 3 before)
        calls = _interrupt_drawing(monkeypatch, 6 * 5 + 3 + 2)
    else:
        calls, beats = _interrupt_heartbeat(monkeypatch, 8)
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == cli.INTERRUPTED_EXIT
    assert "interrupted" in capsys.readouterr().err
    for beat in beats:
        beat.stop.set()  # the thread of the trial interrupted at its start
    soba = _trials(_studies(storage, argv)["SOBA"])
    assert [t.state for t in soba] == [TrialState.COMPLETE,
                                       TrialState.RUNNING]
    assert soba[1].user_attrs[tstudy.INTERRUPTED] is True
    assert sorted(soba[1].intermediate_values) == (
        [1, 2, 3] if where == "mid-trial" else [])
    if where == "drawing":  # all of its parameters drawn, or none
        assert len(soba[1].params) == 3
    first = _clock(storage, argv)
    assert len(first) == 1 and list(first.values())[0] > 0
    cli.main(argv)
    # the interrupted trial again, 4 more
    assert len(calls) == (8 if where == "mid-trial" else 7) + 5
    resumed = _history(storage, argv)
    assert resumed == _history(fresh, fresh_argv)
    states = [t[1] for trials in resumed.values() for t in trials]
    assert TrialState.PRUNED in states and TrialState.COMPLETE in states
    rec = _record(storage)
    assert rec["solvers"]["SOBA"]["failed"] == 0
    assert rec["solvers"]["SOBA"]["trials"] == 6
    # both invocations' wall time
    clock = _clock(storage, argv)
    assert len(clock) == 2 and set(first) < set(clock)
    assert rec["elapsed_seconds"] == pytest.approx(sum(clock.values()),
                                                   abs=2e-3)


def test_ctrl_c_while_the_clock_is_saved_ends_in_one_line(
        tmp_path, monkeypatch, capsys):
    """A Ctrl-C while the invocation's wall time is saved (after a trial,
    and again on the way out): one line saying the tuning was interrupted
    and that the same command resumes it, exit code 130; the same command
    then finishes the tuning."""
    storage = tmp_path / "t.db"
    argv = _argv(storage, 2, solvers="SOBA")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "save_clock", interrupted)
    with pytest.raises(SystemExit) as exc:
        try:
            cli.main(argv)
        except KeyboardInterrupt:
            pytest.fail("the Ctrl-C ended in a traceback")
    assert exc.value.code == 130
    err = capsys.readouterr().err
    assert err == (f"python -m tools.tune: interrupted: the finished trials "
                   f"are kept in --storage {storage}, and the trials stopped "
                   "are run again first: run the same command to resume the "
                   "tuning\n")
    monkeypatch.undo()
    assert cli.main(argv) == 0
    assert _record(storage)["solvers"]["SOBA"]["trials"] == 2


def test_a_range_outside_a_parameters_domain_is_refused(tmp_path, capsys):
    """Both bounds of a --range go through the solvers' own check before
    any trial: p beyond 1 would end the tuning at the first trial that
    draws it."""
    storage = tmp_path / "t.db"
    with pytest.raises(SystemExit) as exc:
        cli.main(_argv(storage, 2, ranges=STABLE + ["--range", "p=0.1:2"]))
    assert exc.value.code == 2
    assert ("--range p=0.1:2: SPABA refuses p=2 (p must be in (0, 1], got "
            "2.0)") in capsys.readouterr().err
    assert not storage.exists()
    # every default range holds for every solver that searches it
    space.check_ranges(space.SOLVERS, space.RANGES)


def test_a_diverging_configuration_is_excluded(tmp_path):
    storage = tmp_path / "t.db"
    argv = _argv(storage, 3, "--pruner", "none", solvers="SOBA", ranges=[])
    soba = _studies(storage, argv)["SOBA"]
    soba.enqueue_trial(dict(step_size=1e5, outer_ratio=1.0, z_ratio=1.0))
    soba.enqueue_trial(dict(step_size=0.1, outer_ratio=1.0, z_ratio=1.0))
    cli.main(argv + ["--write", str(tmp_path / "best.yml")])
    huge = _trials(soba)[0]
    assert huge.user_attrs["parameters"]["step_size"] == 1e5
    assert huge.state == TrialState.PRUNED
    assert huge.user_attrs["excluded"].startswith("diverged at")
    assert huge.constraints == {"diverged": 1.0}
    s = _record(storage)["solvers"]["SOBA"]
    assert s["diverged"] >= 1 and s["best"]["trial"] != 0
    assert s["best"]["parameters"]["step_size"] < 1e5
    assert "step_size=100000" not in (tmp_path / "best.yml").read_text()


def test_trials_past_the_budget_are_refused(tmp_path):
    storage = tmp_path / "t.db"
    argv = _argv(storage, 2, solvers="SOBA")
    soba = _studies(storage, argv)["SOBA"]
    with pytest.warns(UserWarning, match="Heartbeat"):
        soba.ask(), soba.ask()  # two trials running elsewhere
        third = soba.ask()
    with pytest.raises(workers.OverBudget):
        workers._check_budget(third, cli.settings_of(
            cli.parser().parse_args(argv)))
    assert "over budget" in third.user_attrs["excluded"]
    # their process is gone: --fail-running frees their slots
    todo, _ = tstudy.prepare(cli.settings_of(cli.parser().parse_args(argv)),
                             fail_all_running=True)
    assert todo == {"SOBA": 2}


def test_slots_hand_out_each_trial_once():
    slots = workers.Slots({"A": 2, "B": 0})
    assert [slots.take("A") for _ in range(3)] == [True, True, False]
    assert not slots.take("B")
    stopped = workers.Slots({"A": 2}, stop=lambda: True)
    assert not stopped.take("A")


def _what_ran(storage, argv):
    """Per solver, each trial's number, state, parameters, criterion,
    reports and attributes (but its times)."""
    return {name: [(t.number, t.state, t.params, t.value,
                    t.intermediate_values,
                    {k: v for k, v in t.user_attrs.items()
                     if k not in ("seconds", "solver_seconds")})
                   for t in _trials(st)]
            for name, st in _studies(storage, argv).items()}


@pytest.mark.parametrize("budget", ["trials", "work"])
def test_parallel_workers_hold_what_one_worker_holds(tmp_path, budget):
    """Two workers share the studies, one process per study: each study
    holds, trial for trial and bit for bit, what one worker's holds."""
    parallel, sequential = tmp_path / "p.db", tmp_path / "s.db"
    cli.main(_argv(parallel, 4, "--jobs", "2", budget=budget))
    cli.main(_argv(sequential, 4, budget=budget))
    want = _what_ran(sequential, _argv(sequential, 4))
    assert _what_ran(parallel, _argv(parallel, 4)) == want
    if budget == "trials":
        for trials in want.values():
            assert len(trials) == 4
            assert all(t[1] in tstudy.COUNTED for t in trials)


def test_another_budget_on_the_same_study_is_refused(tmp_path, capsys):
    storage = tmp_path / "t.db"
    cli.main(_argv(storage, 1, solvers="SOBA"))
    with pytest.raises(SystemExit):
        cli.main(_argv(storage, 1, solvers="SOBA", epochs="3"))
    assert "epochs" in capsys.readouterr().err


@pytest.mark.parametrize("change, named", [
    (["--solvers", "SPABA,Nope"], "--solvers"),
    (["--solvers", "PnPBO"], "--solvers"),
    (["--trials", "0"], "--trials"),
    (["--epochs", "-1"], "--epochs"),
    (["--jobs", "x"], "--jobs"),
    (["--metric", "test_error"], "--metric"),
    (["--range", "step_size=1:0.1"], "--range"),
    (["--range", "nope=1:2"], "--range"),
    (["--fix", "rho_bar=0.5"], "--fix"),
    (["--pruner", "median"], "--pruner"),
])
def test_bad_input_names_the_parameter(tmp_path, capsys, change, named):
    argv = _argv(tmp_path / "t.db", 2)
    for i in range(0, len(change), 2):
        if change[i] in argv:
            argv[argv.index(change[i]) + 1] = change[i + 1]
        else:
            argv += change[i:i + 2]
    with pytest.raises(SystemExit):
        cli.main(argv)
    err = capsys.readouterr().err
    assert named in err
    if named == "--solvers":
        assert "allowed" in err and "SABA" in err


def test_bad_storage_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(_argv(tmp_path / "t.txt", 1))
    assert "--storage" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(_argv("postgresql://host/db", 1))
    assert "--record" in capsys.readouterr().err


def test_a_metric_the_dataset_lacks_is_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main(_argv(tmp_path / "t.db", 1, "--metric", "val_error"))
    assert "allowed here: ['value', 'grad_norm2']" in capsys.readouterr().err


def test_log_metric_criterion(tmp_path):
    storage = tmp_path / "t.db"
    cli.main(_argv(storage, 2, "--metric", "objective_grad_norm2",
                   solvers="SOBA"))
    rec = _record(storage)
    assert rec["metric"] == "grad_norm2" and "log10" in rec["criterion"]
    best = rec["solvers"]["SOBA"]["best"]
    trial = rec["solvers"]["SOBA"]["all_trials"][best["trial"]]
    assert trial["criterion"] == best["criterion"]
    assert math.isfinite(best["criterion"])


def test_spaces_cover_the_paper_grid_and_follow_the_table():
    alpha, phi, kappa = paper_grid.ALPHA, paper_grid.PHI, paper_grid.KAPPA
    r = space.RANGES
    # step_size = alpha/phi, outer_ratio = 1/phi, z_ratio = kappa/phi
    assert r["step_size"].low <= alpha[0] / phi[1]
    assert r["step_size"].high >= alpha[1] / phi[0]
    assert r["outer_ratio"].low <= 1e-5 and r["outer_ratio"].high >= 1e5
    assert r["z_ratio"].low <= kappa[0] / phi[1]
    assert r["z_ratio"].high >= kappa[1] / phi[0]
    assert r["p"].low <= 1e-3 and r["rho_bar"].low <= 1e-2
    assert set(space.solver_space("SPABA")) == {
        "step_size", "outer_ratio", "z_ratio", "p", "R"}
    assert set(space.solver_space("SOBA")) == {
        "step_size", "outer_ratio", "z_ratio"}  # no clipping: no R
    assert set(space.solver_space("MRBO")) == {
        "step_size", "outer_ratio", "z_ratio", "eta", "n_shia_steps"}
    assert set(space.solver_space("F2SA")) == {
        "step_size", "outer_ratio", "n_inner_steps", "lmbda0",
        "delta_lmbda"}
    assert "R" not in space.solver_space("SPABA", fixed={"R": "tuned"})
    narrowed = space.solver_space(
        "SOBA", ranges=dict([space.parse_range("step_size=0.01:1")]))
    assert narrowed["step_size"] == space.Range(0.01, 1.0)
    # every searched parameter is one the solver's configuration takes
    for name in space.SOLVERS:
        for key in space.solver_space(name):
            assert key in solver_class(name).parameters


def test_values_are_rounded_to_what_the_config_repeats():
    st = optuna.create_study()
    trial = st.ask()
    values = space.suggest(trial, space.solver_space("SRBA"))
    assert isinstance(values["period"], int)
    assert all(float(f"{v:.3g}") == v for v in values.values())


@pytest.mark.slow
def test_written_config_runs_in_benchopt(tmp_path):
    storage, config = tmp_path / "t.db", tmp_path / "best.yml"
    cli.main(_argv(storage, 3, "--write", str(config)))
    out = tmp_path / "res.parquet"
    proc = subprocess.run(
        [sys.executable, "-m", "benchopt", "run", ROOT, "--config",
         # no --timeout: the config says no-timeout (benchopt refuses both)
         str(config), "-r", "1", "-n", "3", "--no-plot",
         "--no-html", "--no-cache", "--output", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    import pandas as pd
    names = set(pd.read_parquet(out)["solver_name"])
    assert {n.split("[")[0] for n in names} == {"SPABA", "SOBA"}


def test_random_full_passes_do_not_overshoot_the_budget():
    """A PAGE run (SPABA, a full pass with probability p) is advanced to
    each point within one iteration's samples: its budget is the others'
    (a chunk sized on a stretch without full passes would run many epochs
    past it)."""
    runner = run.Runner(SMALL)
    N = runner.n_samples
    # rare full passes of N samples between iterations of a few samples
    solver = runner.solver("SPABA", dict(p=0.01, batch_size=1,
                                         step_size=0.01, outer_ratio=1.0))
    state = solver.state
    for step in range(1, 9):
        target = N * 20 * step / 8
        run._advance(state, target)
        # one iteration draws at most a full pass of both levels and
        # its batches
        assert target <= state.n_samples <= target + N + 4


def _prepare_together(settings, barrier, rounds, queue):
    """A spawned process: ``rounds`` times, create the studies of a new
    SQLite storage at the same moment as the other process."""
    errors = []
    for i in range(rounds):
        barrier.wait()
        try:
            tstudy.prepare(tstudy.Settings(**{
                **settings.__dict__,
                "storage": settings.storage.replace(".db", f"{i}.db")}))
        except Exception as err:  # noqa: BLE001 - reported to the test
            errors.append(f"{type(err).__name__}: {err}"[:300])
    queue.put(errors)


def test_processes_starting_together_on_a_new_storage(tmp_path):
    """Two processes creating one new SQLite storage and its studies at
    once: both go on (the creation is retried when they collide)."""
    import multiprocessing
    context = multiprocessing.get_context("spawn")
    settings = cli.settings_of(cli.parser().parse_args(
        _argv(tmp_path / "t.db", 2, solvers="SPABA,SABA,SOBA")))
    barrier, queue = context.Barrier(2), context.Queue()
    procs = [context.Process(target=_prepare_together,
                             args=(settings, barrier, 6, queue))
             for _ in range(2)]
    for p in procs:
        p.start()
    errors = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
    assert errors == [[], []]
    assert [p.exitcode for p in procs] == [0, 0]
    for i in range(6):
        store = tstudy.open_storage(str(tmp_path / f"t{i}.db"))
        assert sorted(s.study_name.split(" | ")[1] for s in
                      store.get_all_studies()) == ["SABA", "SOBA", "SPABA"]


@pytest.mark.parametrize("option", ["--write", "--record"])
def test_an_output_on_the_storage_is_refused(tmp_path, capsys, option):
    """``--write``/``--record`` naming the storage (directly or through a
    symbolic link) would replace the tuning database: refused before
    anything is written."""
    storage = tmp_path / "t.db"
    cli.main(_argv(storage, 1, solvers="SOBA"))
    before = storage.read_bytes()
    link = tmp_path / "link.yml"
    link.symlink_to(storage)
    for target in (storage, link, tmp_path / "." / "t.db"):
        with pytest.raises(SystemExit) as exc:
            cli.main(_argv(storage, 2, option, str(target), solvers="SOBA"))
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert (f"{option} {target} is the file of --storage ({storage}): "
                "writing it would replace the tuning database") in err
        assert storage.read_bytes() == before
    # the record and the run config on one file
    with pytest.raises(SystemExit):
        cli.main(_argv(storage, 2, "--record", str(tmp_path / "o.json"),
                       "--write", str(tmp_path / "o.json"), solvers="SOBA"))
    assert "--write" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()
    with pytest.raises(SystemExit):
        cli.main(_argv(storage, 2, option, str(tmp_path), solvers="SOBA"))
    assert f"{option} {tmp_path} is a folder" in capsys.readouterr().err
    assert len(_trials(_studies(storage, _argv(storage, 1, solvers="SOBA"))[
        "SOBA"])) == 1


def test_outputs_are_written_atomically(tmp_path, monkeypatch):
    """A write that fails half-way leaves the old file and no temporary
    one."""
    out = tmp_path / "best.yml"
    out.write_text("old\n")
    out.chmod(0o640)
    report.write_atomic(out, "new\n")
    assert out.read_text() == "new\n" and (out.stat().st_mode & 0o777) \
        == 0o640

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        report.write_atomic(out, "newer\n")
    assert out.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.yml"]


def _storage_error(capsys, storage, *extra):
    with pytest.raises(SystemExit) as exc:
        cli.main(_argv(storage, 1, *extra, solvers="SOBA"))
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"python -m tools.tune: error: --storage "
                          f"{storage}: ")
    return err


def test_an_unusable_storage_is_named_in_one_line(tmp_path, capsys):
    folder = tmp_path / "folder.db"
    folder.mkdir()
    assert "is a folder; give a file" in _storage_error(capsys, folder)
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(bytes(range(256)) * 20)
    assert ("is not a readable Optuna SQLite database (file is not a "
            "database); restore it, or move it away") in _storage_error(
                capsys, corrupt)
    journal = tmp_path / "t.log"
    cli.main(_argv(journal, 1, solvers="SOBA"))
    with open(journal, "a") as f:
        f.write('{"op_code": 5, "worker_id": \n')
    assert "is not a readable Optuna journal file" in _storage_error(
        capsys, journal)
    # a database opened read-only: the cause is named (not "invalid data
    # in the commit")
    good = tmp_path / "good.db"
    cli.main(_argv(good, 1, solvers="SOBA"))
    read_only = f"sqlite:///file:{good}?mode=ro&uri=true"
    err = _storage_error(capsys, read_only, "--trials", "2", "--record",
                         str(tmp_path / "r.json"))
    assert ("cannot be written (attempt to write a readonly database); "
            "make the file and its folder writable") in err
    assert "invalid data" not in err


@pytest.mark.parametrize("fix, expected", [
    ("step_size=-1", "--fix step_size=-1: SOBA refuses it (step_size must "
                     "be a finite number > 0, got -1)"),
    ("batch_size=full", "--fix batch_size=full: SPABA refuses it "
                        "(batch_size must be an integer >= 1, got 'full')"),
])
def test_fixed_values_are_checked_before_any_trial(tmp_path, capsys, fix,
                                                   expected):
    storage = tmp_path / "t.db"
    solvers = "SPABA" if "batch" in fix else "SOBA"
    ranges = [] if "step_size" in fix else STABLE
    with pytest.raises(SystemExit) as exc:
        cli.main(_argv(storage, 2, "--fix", fix, solvers=solvers,
                       ranges=ranges))
    assert exc.value.code == 2
    assert expected in capsys.readouterr().err
    assert not storage.exists()  # no study, no failed trial


def test_another_seed_on_resume_is_refused(tmp_path, capsys):
    storage = tmp_path / "t.db"
    cli.main(_argv(storage, 1, "--seed", "3", solvers="SOBA"))
    with pytest.raises(SystemExit):
        cli.main(_argv(storage, 2, "--seed", "4", solvers="SOBA"))
    assert ("--seed 4: the study 'Simulated[n=200,m=300,dim_x=5,dim_y=10] "
            f"| SOBA' in {storage} was made with --seed 3; rerun with "
            "--seed 3") in capsys.readouterr().err
    assert _record(storage)["sampler"].endswith("seed 3")
    cli.main(_argv(storage, 2, "--seed", "3", solvers="SOBA"))
    assert _record(storage)["solvers"]["SOBA"]["trials"] == 2


def test_a_trial_flagged_diverged_is_excluded(tmp_path, monkeypatch):
    """A point whose metrics carry ``diverged = 1`` (here: the Objective
    finds the solver's own y far from y*(x)) ends the trial as diverged:
    counted in the budget, never ranked, reported."""
    runner = run.Runner(SMALL)
    current = {}
    solver = runner.solver

    def remember(name, values, split=None):
        current.update(values)
        return solver(name, values, split)

    evaluate = runner.objective.evaluate_result

    def flagged(**result):
        out = evaluate(**result)
        if current.get("step_size") == 0.5 and result["n_samples"] > 0:
            warnings.warn(f"diverged at {result['n_samples']} sample "
                          "evaluations: the solver's own y has left y*(x); "
                          "the run ends here", RuntimeWarning)
            out = {**out, "diverged": 1}
        return out

    monkeypatch.setattr(runner, "solver", remember)
    monkeypatch.setattr(runner.objective, "evaluate_result", flagged)
    monkeypatch.setattr(cli, "Runner", lambda spec, splits: runner)
    storage = tmp_path / "t.db"
    argv = _argv(storage, 3, "--pruner", "none", solvers="SOBA")
    soba = _studies(storage, argv)["SOBA"]
    for step in (0.1, 0.5, 0.2):
        soba.enqueue_trial(dict(step_size=step, outer_ratio=1.0,
                                z_ratio=1.0))
    cli.main(argv + ["--write", str(tmp_path / "best.yml")])
    flagged_trial = _trials(soba)[1]
    assert flagged_trial.state == TrialState.PRUNED
    assert flagged_trial.user_attrs["excluded"] == (
        "diverged at 0.512 epochs: the solver's own y has left y*(x)")
    s = _record(storage)["solvers"]["SOBA"]
    assert (s["trials"], s["complete"], s["diverged"]) == (3, 2, 1)
    assert s["best"]["trial"] in (0, 2)
    assert "step_size=0.5" not in (tmp_path / "best.yml").read_text()


def test_a_trial_scores_the_same_whatever_ran_before_it():
    """The exact solves of a logistic task are warm-started: every trial
    starts them from the starting point's solutions (never from another
    trial's), so a resumed trial, the first of its process, scores what it
    scored after others, bit for bit."""
    first = run.Runner("breast_cancer")
    alone = first.run("SOBA", dict(step_size=0.5, outer_ratio=1.0,
                                   z_ratio=1.0), 2.0, 3)
    second = run.Runner("breast_cancer")
    second.run("SOBA", dict(step_size=0.05, outer_ratio=0.1, z_ratio=1.0),
               2.0, 3)
    after = second.run("SOBA", dict(step_size=0.5, outer_ratio=1.0,
                                    z_ratio=1.0), 2.0, 3)
    assert after == alone


@pytest.mark.parametrize("dataset", ["digits", "wine", "breast_cancer"])
def test_a_trial_scored_by_h_solves_to_the_criterion_tolerances(
        dataset, monkeypatch):
    """H and the validation error depend on y*(x) alone: a trial scored by
    H solves to ``CRITERION_TOLERANCES``, scores within 1e-9 (relative) of
    the same trial at the benchmark's tolerances with fewer Hessian-vector
    products (a third fewer on digits, hyper-cleaning as Fashion-MNIST),
    and leaves the reference results at the benchmark's; ``grad_norm2``
    keeps the benchmark's tolerances."""
    from benchmark_utils.exact_glm import GLMExact
    products = []
    solve = GLMExact.solve

    def counted(self, x, **kwargs):
        out = solve(self, x, **kwargs)
        products.append(self.status["hvps"])
        return out

    monkeypatch.setattr(GLMExact, "solve", counted)
    values = dict(step_size=0.5, outer_ratio=1.0, z_ratio=1.0)
    runner = run.Runner(dataset)
    metrics = runner.objective.metrics
    loose, _ = runner.run("SOBA", values, 2.0, 3)
    assert (metrics.exact.gtol, metrics.exact.ztol) == \
        run.CRITERION_TOLERANCES["value"] == (1e-9, 1e-3)
    # the points' products (the starting point's apart)
    loose_products, products[:] = sum(products[1:]), []
    monkeypatch.setitem(run.CRITERION_TOLERANCES, "value", (1e-10, 1e-12))
    tight, _ = runner.run("SOBA", values, 2.0, 3)
    assert abs(loose - tight) <= 1e-9 * abs(tight)
    tight_products = sum(products[1:])
    assert loose_products < tight_products
    if dataset == "digits":
        assert loose_products <= 2 / 3 * tight_products
    fresh = run.Runner(dataset).objective.metrics
    assert (fresh.exact.gtol, fresh.exact.ztol) == (1e-10, 1e-12)
    assert metrics.references() == fresh.references()
    runner.run("SOBA", values, 2.0, 3, metric="grad_norm2")
    assert (metrics.exact.gtol, metrics.exact.ztol) == (1e-10, 1e-12)


# --------------------------------------------------------------------------
# Known-good first trials
# --------------------------------------------------------------------------
def test_a_new_study_runs_the_known_good_points_first(tmp_path, capsys):
    """The sweep's winner (``TUNED``), then the solver's defaults, are a
    new study's first trials, completed by the defaults and rounded as a
    drawn value; a rerun queues nothing more; the best trial is never
    above them."""
    from benchmark_utils.algorithms import defaults
    from benchmark_utils.tuned import TUNED
    storage = tmp_path / "t.db"
    argv = _argv(storage, 3, first="sweep,defaults")
    cli.main(argv)
    said = capsys.readouterr().out
    assert "  SOBA: first trials sweep, defaults" in said
    studies = _studies(storage, argv)
    for solver in ("SPABA", "SOBA"):
        trials = _trials(studies[solver])
        space_ = cli.settings_of(cli.parser().parse_args(argv)).space(solver)
        sweep = {k: TUNED["Simulated"][solver].get(k, defaults(solver)[k])
                 for k in space_}
        own = {k: defaults(solver)[k] for k in space_}
        assert [t.user_attrs.get("first") for t in trials] == \
            ["sweep", "defaults", None]
        assert trials[0].user_attrs["parameters"] == \
            {k: float(v) for k, v in sweep.items()}
        assert trials[1].user_attrs["parameters"] == \
            {k: float(v) for k, v in own.items()}
        rec = _record(storage)["solvers"][solver]
        assert [t["first"] for t in rec["all_trials"]] == \
            ["sweep", "defaults", None]
        best = rec["best"]["criterion"]
        firsts = [t.value for t in trials[:2] if t.value is not None]
        assert firsts and best <= min(firsts)
    assert "(first: sweep)" in said and "(first: defaults)" in said
    # a budget below the known points: the first ones only
    small = tmp_path / "small.db"
    cli.main(_argv(small, 1, solvers="SOBA", first="sweep,defaults"))
    assert ("  SOBA: no defaults trial: over the budget of 1 trials"
            in capsys.readouterr().out)
    [only] = _trials(_studies(small, _argv(small, 1, solvers="SOBA"))["SOBA"])
    assert only.user_attrs["first"] == "sweep"
    cli.main(_argv(storage, 5, first="sweep,defaults"))  # two more each
    for st in _studies(storage, argv).values():
        trials = _trials(st)
        assert len(trials) == 5
        assert sum("first" in t.user_attrs for t in trials) == 2


def test_a_known_point_outside_its_range_is_said_and_not_run(tmp_path,
                                                             capsys):
    storage = tmp_path / "t.db"
    narrow = ["--range", "step_size=0.01:0.5", "--range",
              "outer_ratio=0.1:10", "--range", "z_ratio=0.1:10"]
    cli.main(_argv(storage, 1, solvers="SOBA", ranges=narrow,
                   first="sweep,defaults"))
    said = capsys.readouterr().out
    assert ("  SOBA: no sweep trial: step_size = 1 lies outside its range "
            "[0.01, 0.5] (--range to widen it)") in said
    [trial] = _trials(_studies(storage, _argv(storage, 1, solvers="SOBA",
                                              ranges=narrow))["SOBA"])
    assert trial.user_attrs["first"] == "defaults"


def test_first_names_the_allowed_sources():
    from tools.tune.first import check_first, first_points
    with pytest.raises(ValueError, match=r"--first: each of \['sweep', "
                                         r"'defaults'\]"):
        check_first(["sweep", "grid"])
    with pytest.raises(ValueError, match="at most once"):
        check_first(["sweep", "sweep"])
    assert check_first([]) == ()
    # a dataset without a sweep: the defaults only, and the reason said
    points, skipped = first_points(
        "SOBA", space.solver_space("SOBA"), "covtype-unknown")
    assert [s for s, _ in points] == ["defaults"]
    assert skipped == [("sweep", "no sweep of SOBA on covtype-unknown")]


def test_a_config_is_a_first_point(tmp_path, capsys):
    """``--first config=PATH``: the solver's line of a run config is its
    study's first trial, with that source in the trial and the record; a
    solver the config lacks is said; a missing or solver-less config is
    refused naming --first."""
    from tools.tune.first import config_values

    config = tmp_path / "winners.yml"
    config.write_text("solver:\n"
                      "  - \"SOBA[step_size=0.0512,outer_ratio=0.37,"
                      "z_ratio=2.5]\"  # criterion 1\n")
    storage = tmp_path / "t.db"
    source = f"config={config}"
    cli.main(_argv(storage, 2, solvers="SOBA,SABA", first=source))
    said = capsys.readouterr().out
    assert f"  SOBA: first trial {source}" in said
    assert f"  SABA: no {source} trial: SABA is not in {config}" in said
    studies = _studies(storage, _argv(storage, 2, solvers="SOBA,SABA"))
    first = _trials(studies["SOBA"])[0]
    assert first.user_attrs["first"] == source
    assert first.params == {"step_size": 0.0512, "outer_ratio": 0.37,
                            "z_ratio": 2.5}
    assert all("first" not in t.user_attrs
               for t in _trials(studies["SABA"]))
    assert _record(storage)["solvers"]["SOBA"]["all_trials"][0][
        "first"] == source
    config_values.cache_clear()
    for text, named in [(None, "no such file"),
                        ("objective: []\n", "no 'solver:' list")]:
        bad = tmp_path / f"bad{len(named)}.yml"
        if text is not None:
            bad.write_text(text)
        with pytest.raises(SystemExit) as exit_:
            cli.main(_argv(tmp_path / "u.db", 1, solvers="SOBA",
                           first=f"config={bad}"))
        assert exit_.value.code == 2
        assert f"--first: config={bad}: {named}" in capsys.readouterr().err
    assert not (tmp_path / "u.db").exists()
