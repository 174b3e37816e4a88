"""``python -m study run`` and ``python -m study add``: the specification
checked whole, the plan, the stopping rule's pieces, and a tiny study run
end to end, resumed, and extended by a solver whose runs pair with the
stored ones."""
import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from study import add, run, spec as study_spec
from study.steps import ROOT, Step, execute

TINY = dict(
    solvers=["SOBA", "SABA"], claims=None, work=None,
    tuning=dict(splits=1, evals=2, seed=0, first=["defaults"], round=2,
                max_rounds=2),
    confirmation=dict(seed=4, splits=2), comparison=dict(repetitions=3),
    tasks=dict(bc=dict(dataset="breast_cancer", epochs=2, trials=3,
                       comparisons=[dict(name="bc", seed=1,
                                         results=None)])))
CLAIMS = dict(baselines=["SOBA"], claims=[dict(
    name="SABA ahead of SOBA", tasks="^breast_cancer", a="SABA", b="SOBA")])


def write_spec(tmp_path, body):
    path = tmp_path / "spec.yml"
    path.write_text(yaml.safe_dump(body))
    return path


def tiny(tmp_path):
    (tmp_path / "claims.yml").write_text(yaml.safe_dump(CLAIMS))
    body = yaml.safe_load(yaml.safe_dump(TINY))
    body["claims"] = str(tmp_path / "claims.yml")
    body["work"] = str(tmp_path / "work")
    body["tasks"]["bc"]["comparisons"][0]["results"] = str(
        tmp_path / "stored_bc.parquet")
    return body


def test_the_stored_spec_reads_and_names_every_stored_file():
    spec = study_spec.load()
    assert spec.tasks and spec.solvers
    for task in spec.tasks.values():
        for key in ("record", "holdout", "confirmation", "config"):
            assert (ROOT / task.stored[key]).is_file(), (task.name, key)
        for c in task.comparisons:
            assert (ROOT / c.results).is_file(), c.name
    # every stored comparison is read by the verdicts or marked apart
    stored = sorted(p.relative_to(ROOT).as_posix()
                    for p in (ROOT / "study" / "data").glob("study_*.parquet"))
    named = sorted(c.results for t in spec.tasks.values()
                   for c in t.comparisons)
    assert stored == named


def test_a_bad_spec_is_refused_whole_naming_each_problem(tmp_path):
    body = tiny(tmp_path)
    body["quantity"] = 1
    body["solvers"] = ["SOBA", "SABAA"]
    body["tuning"]["max_round"] = 3
    body["tasks"]["bc"]["ranges"] = {"p": "0.1:2", "step_sise": "1:2"}
    body["tasks"]["bc"]["epochs"] = float("nan")
    body["tasks"]["bc"]["stored"] = {"record": "nowhere.json"}
    with pytest.raises(study_spec.SpecError) as err:
        study_spec.load(write_spec(tmp_path, body))
    text = str(err.value)
    for part in ("unknown key 'quantity'", "unknown solver 'SABAA'",
                 "tuning: unknown key 'max_round'", "bc.ranges.step_sise",
                 "tasks.bc.epochs: expected a positive finite number",
                 "'nowhere.json' is not a file"):
        assert part in text, part


def test_the_command_refuses_a_bad_spec_and_a_bad_task(tmp_path):
    path = write_spec(tmp_path, dict(tiny(tmp_path), solvers=["X"]))
    done = subprocess.run([sys.executable, "-m", "study", "run", str(path),
                           "--plan"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 2 and "unknown solver 'X'" in done.stderr
    done = subprocess.run([sys.executable, "-m", "study", "run", "--task",
                           "digit", "--plan"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 2 and "--task: unknown ['digit']" in done.stderr


def test_the_plans_name_every_step_with_its_cost(capsys):
    assert run.main(["--from-stored", "--plan"]) == 0
    text = capsys.readouterr().out
    spec = study_spec.load()
    comparisons = sum(len(t.comparisons) for t in spec.tasks.values())
    assert text.count("python -m benchopt run") == comparisons
    assert text.count("--no-timeout") == comparisons
    assert f"{comparisons + 1} of {comparisons + 1} steps to run" in text \
        or f"{comparisons} steps to run" not in text
    assert add.main(["F2SA", "--plan"]) == 0
    text = capsys.readouterr().out
    assert text.count("F2SA: round 0, tuning to") == len(spec.tasks)
    for task in spec.tasks.values():
        assert f"--trials {task.stored['trials']} " in text
        assert f"tuning to {task.stored['trials']} trials' work" in text
    assert "transferred" not in text  # the other winners' comparison
    assert "about 0:" in text  # the total, under an hour here


def test_widened_ranges_take_only_edges_worth_widening():
    record = {"solvers": {
        "A": {"edges": [{"widen": "outer_ratio=1e-09:1e+05",
                         "flat": False}]},
        "B": {"edges": [{"widen": "R=0.001:1e+05", "flat": True},
                        {"widen": None, "flat": False}]}}}
    ranges, changed = run.widened_ranges(record, {"outer_ratio": "1e-7:1e5"})
    assert changed and ranges == {"outer_ratio": "1e-09:100000"}
    assert run.widened_ranges({"solvers": {"B": record["solvers"]["B"]}},
                              {}) == ({}, False)


def test_a_failing_step_names_itself_and_how_to_resume(tmp_path):
    step = Step("t", "a step", [sys.executable, "-c", "raise SystemExit(3)"],
                [str(tmp_path / "never")])
    with pytest.raises(RuntimeError, match="a step failed .exit 3.; run "
                                           "again to resume"):
        execute([step], out=lambda *_: None)


def test_an_added_solver_is_tuned_in_the_stored_rounds_to_the_stored_work():
    spec = study_spec.load()
    assert add.schedule(spec.tasks["fashion"]) == [20, 30, 40, 50, 60, 70]
    assert add.schedule(spec.tasks["digits"])[-1] == 180
    assert add.schedule(spec.tasks["digits"])[:2] == [40, 60]


def test_config_and_spec_texts_take_a_new_solver():
    text = ('solver:\n  - "SOBA[step_size=1]"  # criterion 1\n'
            '  - "F2SA[step_size=2]"\nseed: 1\n')
    new = add.config_with(text, "F2SA", "F2SA[step_size=3]")
    assert new.count("F2SA") == 1 and "F2SA[step_size=3]" in new
    assert new.index("F2SA") < new.index("seed")
    spec = "solvers: [SPABA, SFFBA,\n          SOBA]\nclaims: x\n"
    out = add.spec_with(spec, "F2SA")
    assert yaml.safe_load(out)["solvers"] == ["SPABA", "SFFBA", "SOBA",
                                              "F2SA"]
    assert add.spec_with(out, "F2SA") == out


def test_a_tiny_study_runs_resumes_and_takes_a_solver(tmp_path, capsys):
    """The protocol on breast_cancer with two solvers and tiny budgets:
    rounds until the stopping rule; run again, nothing runs; then a third
    solver added, its runs on exactly the stored instances and the stored
    solvers' rows untouched."""
    body = tiny(tmp_path)
    path = write_spec(tmp_path, body)
    assert run.main([str(path), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    rounds = yaml.safe_load((tmp_path / "work" / "bc" / "rounds.json")
                            .read_text())
    assert rounds[-1]["changed"] == [] or len(rounds) == 2
    assert ("bc: done after round" in out) == (rounds[-1]["changed"] == [])
    assert "round 0 not the last (the first round)" in out
    assert "SABA ahead of SOBA | h_budget" in (
        tmp_path / "work" / "verdicts.md").read_text()
    assert run.main([str(path), "--jobs", "1"]) == 0
    again = capsys.readouterr().out
    assert "done in" not in again and "done (stored)" in again

    # the run's last round becomes the stored study
    last = rounds[-1]
    shutil.copy(ROOT / last["results"][0], tmp_path / "stored_bc.parquet")
    shutil.copy(ROOT / last["config"], tmp_path / "tuned.yml")
    body["tasks"]["bc"]["stored"] = dict(
        trials=last["trials"], record=last["record"],
        config=str(tmp_path / "tuned.yml"))
    path = write_spec(tmp_path, body)
    before = pd.read_parquet(tmp_path / "stored_bc.parquet")
    assert add.main(["SRBA", "--spec", str(path), "--jobs", "1"]) == 0
    after = pd.read_parquet(tmp_path / "stored_bc.parquet")
    names = after["solver_name"].map(add.base_name)
    keys = ["dataset_name", "base_seed", "idx_rep"]
    assert (set(map(tuple, after[names == "SRBA"][keys].to_numpy()))
            == set(map(tuple, before[keys].to_numpy())))
    kept = after[names != "SRBA"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept[before.columns], before)
    assert "SRBA[" in (tmp_path / "tuned.yml").read_text()
    assert "SRBA" in yaml.safe_load(path.read_text())["solvers"]
    assert (tmp_path / "data" / "added" / "SRBA" / "tune_bc.json.xz").exists()


def test_a_scheduler_address_reaches_the_tunings_and_the_comparisons(
        tmp_path):
    spec = study_spec.load()
    task = spec.tasks["digits"]
    address = "tcp://127.0.0.1:8786"
    steps = run.round_steps(spec, task, 0, 40, {}, "w/digits/tune_s0.db",
                            None, 2, address)
    tune = steps[0].argv
    assert tune[tune.index("--dask-address") + 1] == address
    assert "--jobs" not in tune
    from study.steps import dask_config
    config = dask_config(address, str(tmp_path))
    assert yaml.safe_load(open(config)) == dict(backend="dask",
                                                dask_address=address)
    _, compare = run.comparison_steps(spec, task, "c.yml", "w", 2,
                                      parallel_config=config)
    argv = compare[0].argv
    assert argv[argv.index("--parallel-config") + 1] == config


def test_an_interrupted_step_does_not_run_on(tmp_path, monkeypatch):
    """An interrupt of the command reaches the step it runs: no step goes
    on after the command has ended."""
    import os
    import signal
    import threading
    import time
    marker, ready = tmp_path / "ended", tmp_path / "ready"
    code = ("import signal, sys, time\n"
            "def stop(*_):\n"
            f"    open({str(marker)!r}, 'w').write('stopped')\n"
            "    sys.exit(130)\n"
            "signal.signal(signal.SIGINT, stop)\n"
            f"open({str(ready)!r}, 'w').write('ready')\n"
            "time.sleep(60)\n")
    step = Step("t", "a long step", [sys.executable, "-c", code],
                [str(tmp_path / "never")])

    def interrupt():  # this process only, once the step is listening
        while not ready.exists():
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        execute([step], out=lambda *_: None)
    assert marker.read_text() == "stopped"


def test_a_specs_datasets_are_named_as_their_results_name_them():
    import pandas as pd
    spec = study_spec.load()
    for name in ("Simulated", "digits", "fashion"):
        task = spec.tasks[name]
        named = set(run.task_datasets(task))
        stored = set()
        for c in task.comparisons:
            stored |= set(pd.read_parquet(ROOT / c.results, columns=[
                "dataset_name"])["dataset_name"].unique())
        assert named == stored, name


def test_the_stopping_rule_reads_the_sides_on_the_held_out_splits(
        tmp_path):
    def solver(value):
        return {"confirmed": None if value is None else {"held_out": value}}
    path = tmp_path / "confirm.json"
    path.write_text(json.dumps({"solvers": {
        "A": solver(1.0), "B": solver(2.0), "C": solver(0.5),
        "D": solver(3.0), "E": solver(None)}}))
    claims = {"baselines": ["B", "C", "D"], "claims": [
        dict(name="A ahead of B", a="A", b="B"),
        dict(name="B ahead of A", a="B", b="A"),
        dict(name="A best", a="A", b="rival"),
        dict(name="A best but C", a="A", b="rival", **{"except": ["C"]}),
        dict(name="A beats baselines", a="A", b="baselines"),
        dict(name="E ahead", a="E", b="A"),
        dict(name="clip", a="A", b="A[R=inf]")]}
    assert run.held_out_cells(str(path), claims) == {
        "A ahead of B": "a", "B ahead of A": "b", "A best": "b",
        "A best but C": "a", "A beats baselines": "a"}


def test_a_comparison_with_its_own_config_runs_on_its_own_dataset():
    """The C_r = 0.2 winners transferred to C_r = 0.02 run on the
    comparison's dataset, not on the one their config was tuned on."""
    spec = study_spec.load()
    task = spec.tasks["fashion_l2"]
    found, steps = run.comparison_steps(spec, task, "c.yml", "w", 2)
    by_name = {c.name: step for (c, _), step in zip(found, steps)}
    argv = by_name["fashion_l2_p9_transferred"].argv
    assert argv[argv.index("--config") + 1] == \
        "study/configs/tuned_fashion_splits_30trials.yml"
    assert argv[argv.index("-d") + 1] == \
        "mnist[variant=fashion,ratio=0.9,l2_reg=0.02]"
    # the task's own winners on its own dataset need no -d
    assert "-d" not in by_name["fashion_l2_p9"].argv
