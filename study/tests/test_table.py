"""study.table: medians over repetitions read at one epoch budget
(the grid point, or interpolated and marked), at the end, with the own
iterate's test error and the reference rows; diverged repetitions have no
value at a budget they did not reach, nor repetitions stopped before it
(by a timeout, by benchopt's -n cap), told from the results; clear errors
on results it cannot read."""
import numpy as np
import pandas as pd
import pytest

from study import table as study_table
from study.budget_reading import (CONVERGED, DIVERGED, MAX_RUNS,
                                  NO_PROGRESS, TIMEOUT, grid_step, read_at,
                                  read_before, read_past, stop_cause)

DATA = "mnist[ratio=0.5]"


def _point(solver, rep, epochs, value, err=0.2, own=0.3, diverged=0,
           **extra):
    return dict(dataset_name=DATA, solver_name=solver, idx_rep=rep,
                objective_epochs=float(epochs), objective_value=value,
                objective_test_error=err, objective_test_error_iterate=own,
                objective_diverged=diverged, **extra)


def _runs():
    rows = []
    # SOBA: two sound repetitions, points at 0, 1, 2, 3 epochs
    for rep, scale in ((0, 1.0), (1, 2.0)):
        for e in range(4):
            rows.append(_point("SOBA[a=1]", rep, e, scale * (4 - e),
                               err=0.1 * scale, own=0.3 * scale))
    # SPABA: repetition 0 diverges at its point at 2 epochs
    for rep in (0, 1):
        for e in range(4):
            bad = rep == 0 and e >= 2
            rows.append(_point("SPABA[R=inf]", rep, e,
                               np.nan if bad else 1.0 - 0.1 * e,
                               diverged=int(bad)))
    return pd.DataFrame(rows)


def test_medians_at_the_budget_and_at_the_end():
    table = study_table.summary(study_table.run_rows(_runs(), budget=2.0))
    soba = table[table.solver == "SOBA[a=1]"].iloc[0]
    # H at 2 epochs: 2 and 4, median 3; at the end (3 epochs): 1 and 2
    assert soba.h_budget == pytest.approx(3.0)
    assert soba.h_end == pytest.approx(1.5)
    assert soba.err_budget == pytest.approx(15.0)
    assert soba.own_budget == pytest.approx(45.0)
    assert (soba.diverged, soba.runs) == (0, 2)
    spaba = table[table.solver == "SPABA[R=inf]"].iloc[0]
    # repetition 0 diverged at 2 epochs, at the budget: no value there;
    # repetition 1: 0.8 at 2 epochs and 0.7 at the end
    assert spaba.h_budget == pytest.approx(0.8)
    assert spaba.diverged_by_budget == 1
    assert spaba.h_end == pytest.approx(0.8)
    assert (spaba.diverged, spaba.diverged_at) == (1, 2.0)
    # sorted by H at the budget, the lowest first
    assert list(table.solver) == ["SPABA[R=inf]", "SOBA[a=1]"]


def test_a_run_diverged_before_the_budget_is_not_read_at_its_start():
    # diverged at 0.5 epochs: the old table reported its starting H 9.0
    df = pd.DataFrame([_point("SABA[s=1]", 0, 0, 9.0),
                       _point("SABA[s=1]", 0, 0.5, np.nan, diverged=1),
                       _point("SABA[s=1]", 1, 0, 9.0),
                       _point("SABA[s=1]", 1, 4, 3.0)])
    table = study_table.summary(study_table.run_rows(df, budget=4.0))
    assert table.iloc[0].h_budget == pytest.approx(3.0)
    all_diverged = df[df.idx_rep == 0]
    table = study_table.summary(study_table.run_rows(all_diverged, 4.0))
    assert np.isnan(table.iloc[0].h_budget)


def test_budget_read_on_the_grid_and_interpolated_off_it():
    run = pd.DataFrame([_point("A", 0, e, v) for e, v in
                        ((0, 5.0), (6.87, 3.0), (10.31, 1.0))])
    # no common grid: interpolated at 10 epochs between 6.87 and 10.31
    got = read_at(run, 10.0, ["objective_value"])
    assert got.how == "interpolated" and got.epochs == 10.0
    w = (10 - 6.87) / (10.31 - 6.87)
    assert got.values["objective_value"] == pytest.approx(3 - 2 * w)
    # on a grid of 0.5 epochs: the grid point at 10.31, not 6.87's value
    got = read_at(run, 10.0, ["objective_value"], step=0.5)
    assert (got.how, got.epochs) == ("grid", 10.31)
    assert got.values["objective_value"] == 1.0
    named = pd.DataFrame({"objective_name":
                          ["Bilevel Optimization[eval_epochs=0.5]"]})
    assert grid_step(named) == 0.5
    assert grid_step(pd.DataFrame({"objective_name": ["B"]})) is None


def test_stored_study_is_read_at_the_budget_not_before():
    # every run of the stored wine comparison that reached 50 epochs is
    # read at its first point at or past them, or interpolated at 50
    # (never at an earlier point)
    df = study_table.load(["study/data/study_wine.parquet"])
    runs = study_table.run_rows(df, 50.0)
    reached = runs[runs.how.isin(["grid", "interpolated"])]
    assert len(reached) > 100
    assert (reached.epochs_read >= 50.0 - 1e-9).all()
    assert (reached.loc[reached.how == "interpolated", "epochs_read"]
            == 50.0).all()
    for _, run in reached.iterrows():
        points = df[(df.solver_name == run.solver)
                    & (df.idx_rep == run.rep)]["objective_epochs"]
        before = points[points < 50.0 - 1e-9]
        # no evaluation lies between the budget and the point read
        assert not ((points > 50.0 + 1e-9)
                    & (points < run.epochs_read - 1e-9)).any()
        assert before.empty or before.max() < 50.0


def test_configurations_of_one_solver_are_distinct_rows(tmp_path, capsys):
    df = pd.DataFrame([_point(f"SOBA[step_size={s},z=1]", 0, e, v / s)
                       for s in (1, 2) for e, v in ((0, 4.0), (2, 2.0))])
    path = tmp_path / "r.parquet"
    df.to_parquet(path)
    study_table.main([str(path), "--budget", "2"])
    out = capsys.readouterr().out
    assert "| SOBA step_size=1 | 2.000 |" in out
    assert "| SOBA step_size=2 | 1.000 |" in out


def test_markdown_names_rows_labels_and_reference_rows(tmp_path, capsys):
    df = _runs().assign(objective_ref_x0_value=4.5,
                        objective_ref_x0_test_error=0.25,
                        objective_ref_weights_oracle_value=0.5,
                        objective_ref_weights_oracle_test_error=0.125)
    path = tmp_path / "r.parquet"
    df.to_parquet(path)
    study_table.main([str(path), "--budget", "2", "--label",
                      r"^SPABA.*R=inf=clipping off"])
    out = capsys.readouterr().out
    assert "| SPABA (clipping off) | 0.800 | 20.0 | 30.0 | 2 |" in out
    assert "| SOBA | 3.000 | 15.0 | 45.0 | 2 | 1.500 |" in out
    assert "1 of 2, at 2 epochs (1 by 2 epochs)" in out
    assert "| reference: centre of the x0 draw | 4.500 | 25.0 |" in out
    assert "| reference: oracle weights (clean labels) | 0.500 | 12.5 |" \
        in out
    with pytest.raises(SystemExit):
        study_table.main([str(path), "--budget", "2", "--label", "nolabel"])


def test_simulated_empty_and_foreign_results_say_what_is_missing(
        tmp_path, capsys):
    sim = pd.DataFrame([dict(dataset_name="Simulated", solver_name="SABA",
                             idx_rep=0, objective_epochs=float(e),
                             objective_value=4.0 - e,
                             objective_diverged=0) for e in range(3)])
    path = tmp_path / "sim.parquet"
    sim.to_parquet(path)
    study_table.main([str(path), "--budget", "1"])
    assert "| SABA | 3.000 | — | — | 1 | 2.000 | — | — |" in \
        capsys.readouterr().out
    empty = tmp_path / "empty.parquet"
    sim.iloc[:0].to_parquet(empty)
    with pytest.raises(SystemExit, match="empty.parquet: no results"):
        study_table.main([str(empty), "--budget", "1"])
    other = tmp_path / "other.parquet"
    pd.DataFrame({"solver_name": ["x"], "objective_loss": [1.0]}).to_parquet(
        other)
    with pytest.raises(SystemExit, match="other.parquet: missing the "
                       "column.*dataset_name.*objective_epochs"):
        study_table.main([str(other), "--budget", "1"])


def test_a_reading_far_from_the_budget_is_listed_with_its_step():
    # A: points every 0.1 epochs, read at 2.0; B: an iteration of 0.8
    # epochs crosses the budget, read at 2.4 (0.4 past it)
    rows = [_point("A", 0, 0.1 * k, 5.0 - 0.1 * k) for k in range(31)]
    rows += [_point("B", 0, e, 5.0 - e) for e in (0.0, 0.8, 1.6, 2.4, 3.2)]
    runs = study_table.run_rows(pd.DataFrame(rows), 2.0)
    b = runs[runs["solver"] == "B"].iloc[0]
    assert b["gap"] == pytest.approx(0.4) and b["iteration"] == \
        pytest.approx(0.8)
    assert runs[runs["solver"] == "A"].iloc[0]["gap"] < 1e-9
    far = study_table.far_readings(runs)
    assert [s for s, _, _ in far[DATA]] == ["B"]
    text = study_table.markdown(study_table.summary(runs), 2.0, far=far)
    assert "Read more than 0.25 epochs from 2 epochs" in text
    assert "B 0.40 (step 0.80)" in text


def _long_iteration():
    # a grid of 1 epoch; one iteration draws a full pass from 9.6 to 10.6
    name = "Bilevel Optimization[eval_epochs=1.0]"
    return pd.DataFrame([_point("SPABA[p=0.1]", 0, e, v, objective_name=name)
                         for e, v in ((0, 5.0), (9.1, 3.0), (9.6, 2.5),
                                      (10.6, 1.0), (11.1, 0.9))])


def test_a_run_far_from_the_budget_is_read_on_either_side_of_it():
    run, cols = _long_iteration(), ["objective_value"]
    # at the budget: 10.6 is within a grid step of 10 epochs
    at = read_at(run, 10.0, cols, step=1.0)
    assert (at.how, at.epochs, at.values["objective_value"]) == \
        ("grid", 10.6, 1.0)
    # 0.6 epochs past the budget, more than NEAR: the iterate that used at
    # most the budget is the one at 9.6 epochs; past it, 10.6's
    before = read_before(run, 10.0, cols, step=1.0)
    assert (before.how, before.epochs) == ("before", 9.6)
    assert before.values["objective_value"] == 2.5
    past = read_past(run, 10.0, cols, step=1.0)
    assert (past.how, past.epochs, past.values["objective_value"]) == \
        ("past", 10.6, 1.0)
    # off the grid the reading is interpolated; before and past bracket it
    inter = read_at(run, 10.0, cols)
    assert inter.how == "interpolated"
    assert 1.0 < inter.values["objective_value"] < 2.5
    assert read_before(run, 10.0, cols).values["objective_value"] == 2.5
    assert read_past(run, 10.0, cols).values["objective_value"] == 1.0
    # within NEAR of the budget all three readings agree
    for read in (read_at, read_before, read_past):
        got = read(run, 9.5, cols, step=1.0)
        assert (got.how, got.epochs) == ("grid", 9.6)
    assert grid_step(run) == 1.0


def test_a_run_diverged_in_the_bracket_has_no_reading_on_either_side():
    run = _long_iteration()
    run.loc[run.objective_epochs == 10.6, ["objective_value",
                                           "objective_diverged"]] = \
        [np.nan, 1]
    for read in (read_at, read_before, read_past):
        assert read(run, 10.0, ["objective_value"], 1.0).how == "diverged"


def test_run_rows_reads_the_side_it_is_told_and_the_end_before_its_target():
    df = _long_iteration()
    at = study_table.run_rows(df, 10.0).iloc[0]
    assert (at.h_budget, at.h_end, at.epochs_end) == (1.0, 0.9, 11.1)
    # the runs were to end at 10.3 epochs: 11.1 and 10.6 are more than
    # NEAR past it, the iterate that used at most 10.3 epochs is 9.6's
    before = study_table.run_rows(df, 10.0, "before", end=10.3).iloc[0]
    assert (before.how, before.h_budget) == ("before", 2.5)
    assert (before.h_end, before.epochs_end) == (2.5, 9.6)
    past = study_table.run_rows(df, 10.0, "past", end=10.3).iloc[0]
    assert (past.h_budget, past.h_end) == (1.0, 0.9)
    with pytest.raises(ValueError, match="budget reading must be one of "
                                         "at, before, past, got 'after'"):
        study_table.run_rows(df, 10.0, "after")


# benchopt's scheduled callback calls with --max-runs 12: the budget (10
# epochs) at call 63 of a grid of 10/63 epochs, the end at call 94
CALLS = (0, 1, 2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94)
GRID = f"Bilevel Optimization[eval_epochs={10 / 63!r}]"


def _scheduled(solver, rep, calls=CALLS, value=lambda c: 5.0 - c / 50,
               **extra):
    """A run evaluated at ``calls`` of the grid of 10/63 epochs, its H
    ``value(call)``, its gradient decreasing (never converged)."""
    return [_point(solver, rep, c * 10 / 63, value(c), stop_val=c,
                   objective_grad_norm2=1.0 / (1 + c),
                   objective_n_samples=100 * c, objective_name=GRID,
                   **extra) for c in calls]


def _stopped_comparison():
    """SOBA and SPABA, two repetitions each, run to the end; SPABA's
    repetition 1 stopped at 5.3 epochs (the deadline's evaluation, at call
    34: off benchopt's schedule), and SABA's repetition 0 ended by its
    stopping rule (H flat for 5 points: no progress) at call 28."""
    rows = []
    for rep in (0, 1):
        rows += _scheduled("SOBA[a=1]", rep)
        rows += _scheduled("SABA[a=1]", rep, value=(
            (lambda c: 5.0 - min(c, 4) / 50) if rep == 0 else
            (lambda c: 5.0 - c / 50)),
            calls=CALLS[:10] if rep == 0 else CALLS)
    rows += _scheduled("SPABA[p=0.1]", 0)
    rows += [r for r in _scheduled("SPABA[p=0.1]", 1) if r["stop_val"] <= 28]
    rows.append(_point("SPABA[p=0.1]", 1, 5.3, 4.3, stop_val=34,
                       objective_grad_norm2=0.03,
                       objective_n_samples=3400, objective_name=GRID))
    return pd.DataFrame(rows)


def test_why_a_run_ended_is_told_from_its_results():
    df = _stopped_comparison()

    def run(solver, rep):
        return df[(df.solver_name == solver) & (df.idx_rep == rep)]
    # the deadline's evaluation is off benchopt's schedule: a timeout
    assert stop_cause(run("SPABA[p=0.1]", 1)) == TIMEOUT
    # the benchmark's rule, replayed on its points, ended it
    assert stop_cause(run("SABA[a=1]", 0)) == NO_PROGRESS
    # all 13 points: benchopt's -n cap, when it is the most of its results
    full = run("SOBA[a=1]", 0)
    assert stop_cause(full, longest=13) == MAX_RUNS
    assert stop_cause(full) == ""  # the results do not tell
    # on schedule with fewer points than the others: benchopt's timeout
    # check at an evaluation is all that ends a run there
    assert stop_cause(full[full.stop_val <= 42], longest=13) == TIMEOUT
    converged = full.assign(objective_grad_norm2=np.where(
        full.stop_val == 94, 1e-25, 1.0))
    assert stop_cause(converged, longest=13) == CONVERGED
    flagged = full.assign(objective_diverged=(full.stop_val == 94) * 1)
    assert stop_cause(flagged) == DIVERGED


def test_a_run_stopped_before_the_budget_is_not_read_there():
    df = _stopped_comparison()
    assert study_table.end_of(df, 10.0) == pytest.approx(94 * 10 / 63)
    runs = study_table.read_runs(df, 10.0)
    spaba = runs[(runs.solver == "SPABA[p=0.1]") & (runs.rep == 1)].iloc[0]
    # stopped at 5.3 of 10 epochs: no value at 10, nor at the end
    assert (spaba.how, spaba.how_end, spaba.cause) == \
        ("stopped", "stopped", TIMEOUT)
    assert spaba.stopped_at == pytest.approx(5.3)
    assert np.isnan(spaba.h_budget) and np.isnan(spaba.h_end)
    # ended by its stopping rule before the budget: its last value holds
    saba = runs[(runs.solver == "SABA[a=1]") & (runs.rep == 0)].iloc[0]
    assert (saba.how, saba.cause) == ("held", NO_PROGRESS)
    assert saba.h_budget == pytest.approx(5.0 - 4 / 50)
    # run to the end: read at the budget's grid point and at the end
    soba = runs[(runs.solver == "SOBA[a=1]") & (runs.rep == 0)].iloc[0]
    assert (soba.how, soba.how_end, soba.cause) == ("grid", "held", "")
    table = study_table.summary(runs)
    row = table[table.solver == "SPABA[p=0.1]"].iloc[0]
    # not a median of the other repetition alone
    assert np.isnan(row.h_budget) and np.isnan(row.h_end)
    assert row.stops_budget == [(5.3, TIMEOUT)]
    text = study_table.markdown(table, 10.0)
    line = [r for r in text.splitlines() if r.startswith("| SPABA")][0]
    assert line.startswith("| SPABA | — (1 of 2 stopped at 5.3 ep., "
                           "timeout) | — | — |")
    assert "— (1 of 2 stopped at 5.3 ep., timeout) | — | — | 14.9 |" \
        in line  # the end, and the other run's epochs there
    assert ("1 run stopped more than 0.25 epochs before 10 epochs and 1 "
            "before the end") in text and "(timeout: 1)" in text
    assert study_table.stop_text([(5.3, TIMEOUT)], 1) == \
        "— (stopped at 5.3 ep., timeout)"
    assert study_table.stop_text([(5.3, TIMEOUT), (6.7, MAX_RUNS)], 3) == \
        "— (2 of 3 stopped at 5.3 ep., timeout; 6.7 ep., max runs)"


def test_a_budget_past_the_grids_last_point_is_not_reached():
    # a comparison run with -n 10: every run ends at call 42 (6.67
    # epochs), before the budget of 10 epochs: benchopt's -n cap
    df = pd.DataFrame(_scheduled("SOBA[a=1]", 0, CALLS[:11])
                      + _scheduled("SOBA[a=1]", 1, CALLS[:11]))
    runs = study_table.read_runs(df, 10.0)
    assert (runs.how == "stopped").all() and (runs.cause == MAX_RUNS).all()
    assert "(max runs: 2)" in study_table.markdown(
        study_table.summary(runs), 10.0)
    # read at 6 epochs, they reached it
    assert (study_table.run_rows(df, 6.0).how == "interpolated").all()


def test_the_table_command_says_a_run_stopped(tmp_path, capsys):
    path = tmp_path / "r.parquet"
    _stopped_comparison().to_parquet(path)
    study_table.main([str(path), "--budget", "10"])
    out = capsys.readouterr().out
    assert "| SPABA | — (1 of 2 stopped at 5.3 ep., timeout) |" in out
    assert "| SOBA | 3.740 |" in out  # 5 - 63 / 50, call 63
