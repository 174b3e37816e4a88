"""tools.tune's work budget, edges, adequacy and splits: every solver is
charged the epochs its trials ran, pruned and diverged ones included, and
never ranked past its budget; a winner on the edge of its range is said
with the range that widens it; a solver still improving at the end of its
budget is flagged; a trial scored on several splits averages them
(docs/comparisons.md "The budget: equal work", "Is the tuning done?" and
"Several splits")."""
import json
import math
from datetime import datetime, timedelta

import numpy as np
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from bench_helpers import SMALL
from tools.tune import adequacy, cli, edges, report, work
from tools.tune.progress import TrialProgress
from tools.tune.study import Settings

T0 = datetime(2025, 1, 1)
STABLE = ["--range", "step_size=0.01:1", "--range", "outer_ratio=0.1:10",
          "--range", "z_ratio=0.1:10"]


def _settings(trials=3, epochs=2.0, evals=4, budget="work"):
    return Settings(dataset="D", solvers=["A", "B"], trials=trials,
                    epochs=epochs, storage="unused.db", evals=evals,
                    budget=budget)


def _trial(number, state, reports=0, diverged=False, seconds=1.0):
    attrs = {"excluded": "diverged at 1 epochs: H is nan"} if diverged \
        else {}
    end = None if state == TrialState.RUNNING else \
        T0 + timedelta(seconds=seconds)
    return FrozenTrial(
        number=number, state=state,
        value=1.0 if state == TrialState.COMPLETE else None, values=None,
        datetime_start=T0, datetime_complete=end,
        params={"step_size": 0.1},
        distributions={"step_size": FloatDistribution(0.01, 1)},
        user_attrs=attrs, system_attrs={},
        intermediate_values={k: 1.0 for k in range(1, reports + 1)},
        trial_id=number)


def test_each_trial_is_charged_the_points_it_reached():
    s = _settings()  # 4 points over 2 epochs: 0.5 epochs a point
    complete = _trial(0, TrialState.COMPLETE, reports=4)
    pruned = _trial(1, TrialState.PRUNED, reports=1)
    diverged = _trial(2, TrialState.PRUNED, reports=2, diverged=True)
    running = _trial(3, TrialState.RUNNING, reports=3)
    failed = _trial(4, TrialState.FAIL)
    assert [work.charged(t, s) for t in
            (complete, pruned, diverged, running, failed)] == [
        2.0, 0.5, 1.5, 0.0, 0.0]
    trials = [complete, pruned, diverged, running, failed]
    assert work.spent(trials, s) == (4.0, 1)
    # 6 epochs less 4 charged less a full trial reserved for the running
    assert work.room(trials, s) == 0.0
    assert not work.fits(trials, s)
    assert work.fits(trials[:3], s) and work.trials_left(trials[:3], s) == 4
    assert work.budget_epochs(s) == 6.0


def test_a_solver_is_ranked_on_the_trials_within_its_budget():
    s = _settings()
    counted = [_trial(0, TrialState.PRUNED, reports=1),
               _trial(1, TrialState.COMPLETE, reports=4),
               _trial(2, TrialState.COMPLETE, reports=4),
               _trial(3, TrialState.PRUNED, reports=1),
               _trial(4, TrialState.PRUNED, reports=1)]
    # 0.5 + 2 + 2 + 0.5 = 5 <= 6, then 5.5 <= 6; 3 trials of 2 would be 6
    assert [t.number for t in work.ranked(counted, s)] == [0, 1, 2, 3, 4]
    assert [t.number for t in work.ranked(counted + [
        _trial(5, TrialState.COMPLETE, reports=4)], s)] == [0, 1, 2, 3, 4]
    assert [t.number for t in report.ranked_trials(
        counted, _settings(budget="trials"))] == [0, 1, 2]


def test_the_progress_counts_epochs_under_the_work_budget():
    trials = {"A": [_trial(0, TrialState.COMPLETE, reports=4, seconds=4),
                    _trial(1, TrialState.PRUNED, reports=2, seconds=2)],
              "B": [_trial(0, TrialState.RUNNING)]}
    line = TrialProgress(_settings(), start=0.0).line(trials, now=10.0)
    # 3 of 12 epochs in 6 s: 2 s an epoch, 9 epochs left
    assert line == ("  epochs 3 of 12 (all solvers), elapsed 0:00:10, "
                    "about 0:00:18 left")


def _argv(storage, trials, *extra, solvers="SPABA,SOBA", ranges=STABLE):
    return ["--dataset", SMALL, "--solvers", solvers, "--trials",
            str(trials), "--epochs", "2", "--evals", "4", "--storage",
            str(storage), *ranges, "--first", "none", *extra]


@pytest.mark.parametrize("extra", [(), ("--jobs", "2")])
def test_every_solver_spends_its_budget_and_no_more(
        tmp_path, capsys, extra):
    storage = tmp_path / "t.db"
    assert cli.main(_argv(storage, 8, *extra)) == 0
    rec = json.loads(storage.with_suffix(".json").read_text())
    assert rec["budget"]["kind"] == "work"
    assert rec["budget"]["epochs_per_solver"] == 16.0
    for name, s in rec["solvers"].items():
        rows = [r for r in s["all_trials"] if r["ranked"]]
        charged = math.fsum(r["charged_epochs"] for r in rows)
        assert charged == pytest.approx(s["work"]["charged_epochs"])
        # within one trial of the budget, never over it
        assert 16.0 - 2.0 < charged <= 16.0 + 1e-9, name
        for r in rows:
            reach = 4 if r["state"] == "complete" else None
            if reach:
                assert r["charged_epochs"] == 2.0
            # the solver drew what it was charged, and at most one
            # iteration more a point (SPABA's can be a full pass)
            assert r["epochs_drawn"] >= r["charged_epochs"] - 1e-9
            assert r["epochs_drawn"] <= r["charged_epochs"] + 1.0
        # a pruned trial frees its unspent epochs for more trials
        pruned = sum(r["state"] == "pruned" for r in rows)
        assert pruned > 0 and s["trials"] > 8, name
    out = capsys.readouterr().out
    assert "epochs charged" in out and "epochs " in out


def test_diverged_trials_are_charged_where_they_were_caught(tmp_path):
    storage = tmp_path / "t.db"
    cli.main(_argv(storage, 3, "--pruner", "none", solvers="SOBA",
                   ranges=[]))
    s = json.loads(storage.with_suffix(".json").read_text())["solvers"][
        "SOBA"]
    diverged = [r for r in s["all_trials"] if r["excluded"]]
    assert diverged and all(0 < r["charged_epochs"] < 2.0 for r in
                            diverged)
    # their unspent epochs ran more trials than the 3 a trials budget runs
    assert s["trials"] > 3
    assert s["work"]["charged_epochs"] <= 6.0 + 1e-9


RANGE = {"outer_ratio": dict(low=1e-5, high=1e5, integer=False),
         "p": dict(low=1e-3, high=1.0, integer=False),
         "n_inner_steps": dict(low=1, high=20, integer=True),
         "period": dict(low=8, high=1024, integer=True),
         "step_size": dict(low=1e-3, high=1e5, integer=False)}


def test_a_winner_on_an_edge_is_said_with_the_range_that_widens_it():
    found = edges.edges(dict(outer_ratio=2e-5, p=0.984, n_inner_steps=1,
                             period=1000, step_size=0.3), RANGE)
    by = {e["parameter"]: e for e in found}
    assert set(by) == {"outer_ratio", "p", "n_inner_steps", "period"}
    assert by["outer_ratio"]["side"] == "low"
    assert by["outer_ratio"]["widen"] == "outer_ratio=1e-07:100000"
    assert by["p"]["widen"] is None and "probability" in by["p"]["reason"]
    assert by["n_inner_steps"]["widen"] is None
    assert by["period"]["widen"] == "period=8:4096"
    assert not edges.done(found)
    assert edges.done([by["p"], by["n_inner_steps"]])
    lines = edges.edge_lines("SOBA", found)
    assert any("--range outer_ratio=1e-07:100000" in line for line in lines)
    assert any("cannot be widened: p = 1 is a limit" in line
               for line in lines)
    # half a decade inside the 10-decade outer_ratio range is no edge
    assert edges.edges(dict(outer_ratio=1e-4), RANGE) == []


def test_an_edge_is_flat_when_a_trial_away_from_it_scores_as_well():
    best = dict(outer_ratio=2e-5)
    # 1e-3 lies 2 decades (20 % of the width) from the floor
    trials = [(best, 1.0), (dict(outer_ratio=1e-3), 1.0005),
              (dict(outer_ratio=3e-5), 1.2)]
    [edge] = edges.edges(best, RANGE, trials)
    assert edge["flat"] and edges.done([edge])
    assert "flat: a trial away from it scored within 0.1%" in \
        edges.edge_lines("SOBA", [edge])[0]
    # only trials near the floor score as well: not flat, widen it
    trials[1] = (dict(outer_ratio=1e-3), 1.01)
    [edge] = edges.edges(best, RANGE, trials)
    assert not edge["flat"] and not edges.done([edge])


def _rows(criteria, charged=1.0):
    return [dict(number=i, ranked=True, charged_epochs=charged,
                 criterion=c) for i, c in enumerate(criteria)]


def test_a_solver_still_improving_at_the_end_is_flagged():
    flat = adequacy.best_so_far(_rows([2.0, 1.0, None, 1.5, 1.2, 1.1,
                                       1.3, 1.05]))
    assert flat == [(1.0, 2.0), (2.0, 1.0), (3.0, 1.0), (4.0, 1.0),
                    (5.0, 1.0), (6.0, 1.0), (7.0, 1.0), (8.0, 1.0)]
    assert adequacy.improvement(flat) == 0.0
    assert not adequacy.still_improving(flat)
    late = adequacy.best_so_far(_rows([2.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                       0.99, 1.2]))
    # the best at 6 of 8 epochs is 1.0, at the end 0.99
    assert adequacy.improvement(late) == pytest.approx(0.01)
    assert adequacy.still_improving(late)
    assert not adequacy.still_improving(late, tolerance=0.02)
    # rows past the budget do not enter
    rows = _rows([2.0, 1.0]) + [dict(number=2, ranked=False,
                                     charged_epochs=1.0, criterion=0.1)]
    assert adequacy.best_so_far(rows)[-1] == (2.0, 1.0)


def test_the_adequacy_command_reads_a_record(tmp_path, capsys):
    rec = dict(dataset="D", metric="value", solvers=dict(
        A=dict(trials=8, all_trials=_rows([2.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                                           0.99, 1.2]),
               work=dict(charged_epochs=8.0, budget_epochs=8.0)),
        B=dict(trials=2, all_trials=_rows([3.0, 3.0], charged=4.0),
               work=dict(charged_epochs=8.0, budget_epochs=8.0))))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    figure = tmp_path / "a.svg"
    assert adequacy.main([str(path), "--figure", str(figure)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A ") and out[0].endswith("still improving")
    assert "8 of 8 epochs" in out[0] and "best 0.99" in out[0]
    assert not out[1].endswith("still improving")
    assert figure.read_text().lstrip().startswith("<?xml")
    with pytest.raises(SystemExit):
        adequacy.main([str(tmp_path / "missing.json")])
    assert "not a readable tuning record" in capsys.readouterr().err


def test_a_trial_on_several_splits_averages_each_split(monkeypatch):
    from tools.tune import run
    one, two = run.Runner(SMALL), run.Runner(SMALL, splits=2)
    values = dict(step_size=0.1, outer_ratio=1.0, z_ratio=1.0)
    reports = []
    c1, p1 = one.run("SOBA", values, 2.0, 4)
    c2, p2 = two.run("SOBA", values, 2.0, 4,
                     report=lambda *a: reports.append(a))
    # the first split is the one-split trial's, bit for bit; the second
    # is another split and starting point
    assert p2[:4] == p1 and p2[4:] != p1
    assert not np.array_equal(two.splits[1].objective.problem.Xg,
                              one.objective.problem.Xg)
    assert c2 == pytest.approx(sum(p2) / 8, rel=1e-15)
    assert c2 == pytest.approx((c1 + sum(p2[4:]) / 4) / 2, rel=1e-14)
    # steps and epochs count every split so far
    assert [r[0] for r in reports] == list(range(1, 9))
    assert reports[3][2] == pytest.approx(2.0, abs=0.2)
    assert reports[7][2] == pytest.approx(4.0, abs=0.4)
    assert two.drawn == pytest.approx(reports[7][2])
    with pytest.raises(ValueError, match="--splits must be an integer"):
        run.Runner(SMALL, splits=0)


def test_the_splits_enter_the_budget_the_record_and_the_signature(
        tmp_path, capsys):
    storage, config = tmp_path / "t.db", tmp_path / "best.yml"
    argv = _argv(storage, 2, "--splits", "2", "--write", str(config),
                 solvers="SOBA")
    assert cli.main(argv) == 0
    rec = json.loads(storage.with_suffix(".json").read_text())
    assert rec["budget"]["splits"] == 2
    assert rec["budget"]["epochs_per_solver"] == 8.0
    assert "on each of 2 splits" in rec["criterion"]
    s = rec["solvers"]["SOBA"]
    assert s["work"]["charged_epochs"] <= 8.0 + 1e-9
    assert all(r["charged_epochs"] == 4.0 for r in s["all_trials"]
               if r["state"] == "complete")
    # the comparison runs on splits the trials were not scored on
    assert f"seed: {report.COMPARISON_SEED}" in config.read_text()
    assert report.COMPARISON_SEED != 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli.main(_argv(storage, 2, solvers="SOBA"))
    assert "splits" in capsys.readouterr().err
