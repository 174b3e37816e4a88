"""study.confirm: each winner run again on held-out splits over the
comparison's whole run, the first trial that diverges on none taken
(docs/comparisons.md "Is the winner stable?")."""
import json

import pytest

from bench_helpers import SMALL
from study import confirm
from tools.tune import report
from tools.tune.record_file import read_json
from tools.tune.run import Runner


def _row(number, criterion, step_size, ranked=True):
    return dict(number=number, criterion=criterion, ranked=ranked,
                parameters=dict(step_size=step_size, outer_ratio=1.0,
                                z_ratio=1.0))


def _record():
    """SOBA on SMALL: its best trial (step_size 10) diverges within 1.3
    epochs on seed 4's split, the next (step_size 1) does not; trial 3
    scored lowest but lies outside the budget (not ranked)."""
    rows = [_row(0, 0.5, 10.0), _row(1, 1.0, 1.0), _row(2, 2.0, 0.1),
            _row(3, 0.1, 1000.0, ranked=False),
            dict(_row(4, None, 5.0), state="pruned")]
    return dict(dataset=SMALL, metric="value", storage="t.db",
                criterion="mean of H", sampler="TPE", pruner="none",
                budget=dict(trials=4, epochs=2, evals=3, splits=1,
                            kind="trials"),
                solvers={"SOBA": dict(all_trials=rows, best=dict(
                    trial=0, criterion=0.5,
                    parameters=rows[0]["parameters"]))})


def test_candidates_are_the_ranked_complete_trials_best_first():
    rows = confirm.candidates(_record()["solvers"]["SOBA"])
    assert [r["number"] for r in rows] == [0, 1, 2]
    assert [r["number"] for r in confirm.candidates(
        _record()["solvers"]["SOBA"], limit=2)] == [0, 1]


def test_the_horizon_is_the_comparisons_last_point():
    # the run config's last point is at 1.5 budgets; points as far apart
    assert confirm.horizon_of(_record()) == (3.0, 5)
    assert report.HORIZON == 1.5


def test_a_diverging_winner_gives_way_to_the_next(capsys):
    record = _record()
    runner = Runner(SMALL, 1, confirm.HOLDOUT_SEED)
    out = confirm.confirm(record, ["SOBA"], runner=runner)
    soba = out["solvers"]["SOBA"]
    assert (soba["rank"], soba["outcome"]) == (2, "rank 2 confirmed")
    first, second = soba["tried"]
    assert first["held_out"] is None
    assert first["diverged"].startswith("diverged on split 0 at ")
    assert "H rose" in first["diverged"]
    # the confirmed trial's held-out criterion is its run over the horizon
    again, _ = runner.run("SOBA", second["parameters"], 3.0, 5)
    assert second["held_out"] == again and soba["confirmed"] is second
    # the run config takes it, and says why
    text = report.config_text(record, "r.json", confirmed=out)
    assert ('"SOBA[step_size=1,outer_ratio=1,z_ratio=1]"  # criterion 1; '
            "rank 2: the better one diverges held out") in text
    assert "diverges on none of 1 splits of seed 4 over 3 epochs" in \
        " ".join(line.lstrip("# ") for line in text.splitlines())
    # none confirmed among the first one: the winner kept, flagged
    none = confirm.confirm(record, ["SOBA"], limit=1, runner=runner)
    assert none["solvers"]["SOBA"]["confirmed"] is None
    text = report.config_text(record, "r.json", confirmed=none)
    assert ('"SOBA[step_size=10,outer_ratio=1,z_ratio=1]"  # criterion 0.5;'
            " none of the best 1 confirmed: the tuning's winner kept") in text
    table = confirm.markdown([out, none])
    assert "| SOBA | 0, 0.5 | diverged on split 0 at " in table
    assert "another confirmed: 1, none confirmed: 1." in table


def test_the_command_writes_and_shows(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record()))
    out, config = tmp_path / "c.json", tmp_path / "c.yml"
    assert confirm.main([str(path), "--candidates", "2", "--out", str(out),
                         "--write", str(config)]) == 0
    assert "rank 2 confirmed" in capsys.readouterr().out
    assert "SOBA[step_size=1," in config.read_text()
    assert confirm.main([str(out), "--show"]) == 0
    assert "| SOBA | 0, 0.5 |" in capsys.readouterr().out


@pytest.mark.parametrize("args, said", [
    (["--solvers", "SPABA"], "--solvers: ['SPABA'] not in the record"),
    (["--candidates", "0"], "--candidates must be an integer >= 1"),
    (["--show"], "--show reads the JSONs this command writes")])
def test_bad_input_is_named(tmp_path, capsys, args, said):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record()))
    with pytest.raises(SystemExit) as exit_:
        confirm.main([str(path), *args])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("text, said", [
    ('{"solvers": {"SOBA": {"tried": [', "not a readable JSON file "
     "(Expecting value: line 1 column 33 (char 32)); expected the JSON "
     "object that python -m study.confirm --out writes"),
    ("[1, 2]", "not a confirmation (expected the JSON object that python "
     "-m study.confirm --out writes, with 'solvers' and 'candidates'; got "
     "a JSON list)"),
    ('{"solvers": {}}', "not a confirmation (expected the JSON object "
     "that python -m study.confirm --out writes, with 'solvers' and "
     "'candidates'; got an object with the keys ['solvers'])"),
])
def test_a_reuse_file_that_is_no_confirmation_is_named(tmp_path, capsys,
                                                       text, said):
    """--reuse of a truncated JSON file, or of JSON that is no
    confirmation: the file named, and what it should be."""
    path, old = tmp_path / "record.json", tmp_path / "old.json"
    path.write_text(json.dumps(_record()))
    old.write_text(text)
    with pytest.raises(SystemExit) as exit_:
        confirm.main([str(path), "--reuse", str(old)])
    assert exit_.value.code == 2
    assert f"--reuse {old}: {said}" in capsys.readouterr().err


def test_a_record_that_is_no_json_is_named(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record())[:40])
    with pytest.raises(SystemExit) as exit_:
        confirm.main([str(path)])
    assert exit_.value.code == 2
    assert (f"the record {path}: not a readable JSON file"
            in capsys.readouterr().err)


# the study's confirmations, the run configs written from them and the
# comparisons those configs ran (docs/study.md)
STUDY = [("digits", "tuned_digits", "study_digits"),
         ("breast_cancer_5splits", "tuned_breast_cancer_5splits",
          "study_breast_cancer"),
         ("wine", "tuned_wine", "study_wine"),
         ("Simulated", "tuned_Simulated", "study_Simulated"),
         *[("fashion", "tuned_fashion_splits", f"study_fashion_p{level}")
           for level in (5, 7, 9)],
         ("fashion_l2", "tuned_fashion_l2", "study_fashion_l2_p9")]


@pytest.mark.parametrize("confirmed, config, study", STUDY)
def test_the_study_compares_its_confirmed_winners(confirmed, config, study):
    """Each confirmed winner is its config's line and the stored
    comparison's solver, parameter for parameter."""
    import pandas as pd

    root = report.Path(__file__).resolve().parents[2]
    result = json.loads((root / "study" / "data" /
                         f"confirm_{confirmed}.json").read_text())
    text = (root / "study" / "configs" / f"{config}.yml").read_text()
    names = set(pd.read_parquet(root / "study" / "data" / f"{study}.parquet",
                                columns=["solver_name"])["solver_name"])
    for solver, held in result["solvers"].items():
        chosen = held["confirmed"] or held["tried"][0]
        line = report.solver_string(solver, chosen["parameters"])
        assert f'"{line}"' in text, solver
        ran = [n for n in names if n.startswith(f"{solver}[")]
        assert len(ran) == 1, (solver, ran)
        given = dict(item.split("=", 1) for item in
                     ran[0][len(solver) + 1:-1].split(","))
        for key, value in chosen["parameters"].items():
            assert given[key] == report._fmt(value), (solver, key)


def test_two_processes_confirm_what_one_does(tmp_path):
    """--jobs 2 splits the solvers over two processes: the same runs,
    bit for bit."""
    record = _record()
    record["solvers"]["SABA"] = json.loads(json.dumps(
        record["solvers"]["SOBA"]))
    one = confirm.confirm(record, ["SOBA", "SABA"])
    two = confirm.confirm(record, ["SOBA", "SABA"], jobs=2)
    for key in ("solvers", "splits", "epochs", "evals", "seed"):
        assert one[key] == two[key]
    assert one["solvers"]["SABA"]["rank"] == 2


def test_the_studys_confirmations_are_of_its_records():
    """Each study/data/confirm_*.json tried its record's trials as they
    stand today, best first (a continued tuning makes it stale)."""
    root = report.Path(__file__).resolve().parents[2]
    found = sorted((root / "study" / "data").glob("confirm_*.json"))
    assert found
    for path in found:
        result = json.loads(path.read_text())
        record = read_json(root / result["record"])
        assert result["tuning_epochs"] == record["budget"]["epochs"]
        for solver, held in result["solvers"].items():
            rows = confirm.candidates(record["solvers"][solver],
                                      result["candidates"])
            tried = [(t["trial"], t["criterion"]) for t in held["tried"]]
            assert tried == [(r["number"], r["criterion"])
                             for r in rows][:len(tried)], (path.name, solver)
            assert tried[0][0] == record["solvers"][solver]["best"]["trial"]


class _Counting:
    """A runner that counts its runs and refuses the parameters of
    ``refused`` (step sizes)."""

    def __init__(self, runner, refused=()):
        self.runner, self.refused, self.runs = runner, set(refused), []
        self.splits = runner.splits

    def run(self, solver, parameters, *args):
        assert parameters["step_size"] not in self.refused, parameters
        self.runs.append(parameters["step_size"])
        return self.runner.run(solver, parameters, *args)


def test_an_earlier_confirmation_is_reused_trial_by_trial(tmp_path, capsys):
    """--reuse runs only the trials the earlier confirmation did not; the
    results equal a fresh confirmation's."""
    record = _record()
    runner = Runner(SMALL, 1, confirm.HOLDOUT_SEED)
    first = confirm.confirm(record, ["SOBA"], runner=runner)
    # the same record: nothing runs
    counting = _Counting(runner, refused=(10.0, 1.0, 0.1))
    again = confirm.confirm(record, ["SOBA"], reuse=first, runner=counting)
    assert again["solvers"] == first["solvers"] and counting.runs == []
    # a continued tuning found a better trial: only it runs
    rows = record["solvers"]["SOBA"]["all_trials"]
    rows.append(_row(5, 0.4, 0.5))
    counting = _Counting(runner, refused=(10.0, 1.0))
    grown = confirm.confirm(record, ["SOBA"], reuse=first, runner=counting)
    fresh = confirm.confirm(record, ["SOBA"], runner=runner)
    assert counting.runs == [0.5]
    assert grown["solvers"] == fresh["solvers"]
    assert grown["solvers"]["SOBA"]["confirmed"]["trial"] == 5
    # from the command line; other settings are refused, named
    path, old = tmp_path / "record.json", tmp_path / "old.json"
    path.write_text(json.dumps(_record()))
    old.write_text(json.dumps(first))
    assert confirm.main([str(path), "--splits", "1", "--reuse",
                         str(old)]) == 0
    said = capsys.readouterr().out
    assert "SOBA: rank 1, trial 0: diverged on split 0" in said
    assert "(reused)" in said and "on 1 splits ..." not in said
    with pytest.raises(SystemExit):
        confirm.main([str(path), "--splits", "1", "--reuse", str(old),
                      "--seed", "5"])
    assert ("--reuse: the earlier confirmation has seed = 4, this one 5"
            in capsys.readouterr().err)
