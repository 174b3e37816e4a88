"""study.holdout: the tuning's late fall scored again on splits it
never saw (docs/comparisons.md "Is the tuning done?")."""
import json
import math

import pytest

from bench_helpers import SMALL
from study import holdout
from tools.tune import cli
from tools.tune.record_file import read_json


def _row(number, charged, criterion, ranked=True):
    return dict(number=number, charged_epochs=charged, criterion=criterion,
                ranked=ranked, parameters=dict(step_size=number))


def test_before_and_after_read_the_best_by_three_quarters():
    rows = [_row(0, 10, 5.0), _row(1, 10, 4.0), _row(2, 10, None),
            _row(3, 10, 4.5), _row(4, 10, 3.0, ranked=False),
            _row(5, 10, 3.5)]
    # ranked epochs 10, 20, 30, 40, 50: three quarters is 37.5, reached
    # after trial 3; the best by then is trial 1, the final best trial 5
    before, after = holdout.before_and_after(dict(all_trials=rows))
    assert (before["number"], after["number"]) == (1, 5)
    # no complete trial by the cut: no "before"
    late = [_row(0, 10, None), _row(1, 30, 2.0)]
    assert holdout.before_and_after(dict(all_trials=late))[0] is None


@pytest.mark.parametrize("held, said", [
    ((1.0, 0.99), "holds"), ((1.0, 1.01), "reverses"),
    ((1.0, 0.9995), "within 0.1%"), ((None, 2.0), "holds"),
    ((1.0, None), "after diverges")])
def test_outcome_against_the_rule_of_adequacy(held, said):
    assert holdout.outcome(*held) == said
    assert holdout.relative_fall(1.1, 1.0) == pytest.approx(0.1)
    assert holdout.relative_fall(math.inf, 1.0) == math.inf


def test_held_out_on_the_tuning_seed_repeats_the_trials(tmp_path, capsys):
    """On the tuning's own splits (seed 0) the held-out criteria are the
    recorded ones, bit for bit; on another seed they differ."""
    storage = tmp_path / "t.db"
    cli.main(["--dataset", SMALL, "--solvers", "SOBA", "--trials", "6",
              "--epochs", "2", "--evals", "3", "--storage", str(storage),
              "--range", "step_size=0.01:1", "--range",
              "outer_ratio=0.1:10", "--range", "z_ratio=0.1:10",
              "--first", "none", "--budget", "trials", "--seed", "3"])
    record = json.loads(storage.with_suffix(".json").read_text())
    rows = record["solvers"]["SOBA"]["all_trials"]
    done = [r for r in rows if r["criterion"] is not None]
    # two complete trials as "before" (the worse, three quarters of the
    # epochs) and "after", whatever TPE drew
    worse, better = sorted(done[:2], key=lambda r: -r["criterion"])
    record["solvers"]["SOBA"]["all_trials"] = [
        dict(worse, number=0, ranked=True, charged_epochs=3.0),
        dict(better, number=1, ranked=True, charged_epochs=1.0)]
    same = holdout.holdout(record, ["SOBA"], seed=0)["solvers"]["SOBA"]
    assert same["before"]["held_out"] == same["before"]["criterion"]
    assert same["after"]["held_out"] == same["after"]["criterion"]
    assert same["held_out_fall"] == same["fall"] > 0
    other = holdout.holdout(record, ["SOBA"], seed=4)
    assert other["seed"] == 4 and other["splits"] == 1
    assert other["solvers"]["SOBA"]["after"]["held_out"] != \
        same["after"]["held_out"]
    # the JSON it writes is what --show tabulates
    out = tmp_path / "h.json"
    out.write_text(json.dumps(other))
    assert holdout.main([str(out), "--show"]) == 0
    table = capsys.readouterr().out
    assert "| SOBA |" in table and "1 splits of seed 4" in table


def test_bad_input_is_named(tmp_path, capsys):
    record = tmp_path / "r.json"
    record.write_text(json.dumps(dict(budget={}, solvers={"SOBA": {}})))
    with pytest.raises(SystemExit) as exit_:
        holdout.main([str(record), "--solvers", "SPABA"])
    assert exit_.value.code == 2
    assert "--solvers: ['SPABA'] not in the record" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        holdout.main([str(record), "--show"])
    assert "--show reads the JSONs this command writes" in \
        capsys.readouterr().err


def test_the_studys_hold_out_checks_are_of_its_records():
    """Each study/data/holdout_*.json compares the trials its record
    names today (a continued tuning makes it stale)."""
    from pathlib import Path
    from bench_helpers import ROOT

    found = sorted(Path(ROOT, "study", "data").glob("holdout_*.json"))
    assert found
    for path in found:
        result = json.loads(path.read_text())
        record = read_json(Path(ROOT, result["record"]))
        assert result["trials"] == record["budget"]["trials"], path.name
        for solver, s in result["solvers"].items():
            if "after" not in s:
                continue
            before, after = holdout.before_and_after(
                record["solvers"][solver])
            assert (s["before"]["trial"], s["after"]["trial"]) == (
                before["number"], after["number"]), (path.name, solver)
            assert s["after"]["criterion"] == after["criterion"]
