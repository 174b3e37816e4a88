"""tools.select: scores of a run by each criterion, ranking with diverged
runs excluded, and a written run config that benchopt runs as is."""
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from bench_helpers import ROOT
from tools import select

DATA = "Simulated[n=200,m=300,dim_x=2,dim_y=3]"


def _run(solver, rep, times, values, diverged=None, samples=None):
    k = len(times)
    return pd.DataFrame(dict(
        dataset_name=DATA, solver_name=solver, idx_rep=rep,
        time=times, objective_value=values,
        objective_n_samples=samples if samples is not None else
        np.arange(k) * 100, objective_epochs=np.arange(k) / 2,
        objective_diverged=diverged if diverged is not None else [0] * k))


def test_run_scores_by_criterion():
    run = _run("A", 0, [0.0, 1.0, 3.0], [4.0, 2.0, 1.0])
    col = "time"
    assert select.run_score(run, "objective_value", "final", col) == 1.0
    assert select.run_score(run, "objective_value", "final", col,
                            budget=2.0) == 2.0
    # step curve over [0, 4]: 4 on [0,1), 2 on [1,3), 1 on [3,4]
    assert select.run_score(run, "objective_value", "auc", col,
                            budget=4.0) == pytest.approx((4 + 4 + 1) / 4)
    assert select.run_score(run, "objective_value", "auc", col, budget=4.0,
                            log=True) == pytest.approx(
        (math.log10(4) + 2 * math.log10(2) + 0) / 4)
    assert select.run_score(run, "objective_value", "reach", col,
                            threshold=2.0) == 1.0
    assert select.run_score(run, "objective_value", "reach", col,
                            threshold=0.5) == math.inf
    assert select.run_score(run, "objective_value", "reach", col,
                            threshold=3.0, maximize=True) == 0.0


def test_ranking_median_spread_and_diverged_runs():
    df = pd.concat([
        _run("good[s=1]", 0, [0, 1, 2], [3.0, 1.0, 0.5]),
        _run("good[s=1]", 1, [0, 1, 2], [3.0, 1.0, 0.7]),
        _run("good[s=1]", 2, [0, 1, 2], [3.0, 1.0, 0.9]),
        _run("good[s=2]", 0, [0, 1, 2], [3.0, 2.0, 0.1]),
        _run("good[s=2]", 1, [0, 1, 2], [3.0, 2.0, np.nan], [0, 0, 1]),
        _run("bad[s=9]", 0, [0, 1], [3.0, np.inf], [0, 1]),
        _run("other[a=1]", 0, [0, 1, 2], [3.0, 2.0, 0.6]),
    ])
    table = select.score_table(df, "objective_value")
    top = table.iloc[0]
    assert top.solver == "good[s=2]" and top.runs == 1 and top.diverged == 1
    mid = table[table.solver == "good[s=1]"].iloc[0]
    assert mid["median"] == pytest.approx(0.7)
    assert (mid["min"], mid["max"]) == (0.5, 0.9)
    bad = table[table.solver == "bad[s=9]"].iloc[0]
    assert bad.runs == 0 and bad["rank"] == 0
    best = select.best_per_solver(table)
    assert list(best.solver) == ["good[s=2]", "other[a=1]"]
    with pytest.raises(SystemExit, match="unknown metric"):
        select.score_table(df, "objective_nope")


def test_written_config_runs_in_benchopt(tmp_path):
    df = pd.concat([
        _run("SABA[step_size=0.05]", 0, [0, 1, 2], [3.0, 2.0, 1.0]),
        _run("SABA[step_size=0.1]", 0, [0, 1, 2], [3.0, 2.0, 0.5]),
        _run("SOBA[step_size=0.1]", 0, [0, 1, 2], [3.0, 2.0, 0.5]),
    ])
    results = tmp_path / "sweep.parquet"
    df.to_parquet(results)
    config = tmp_path / "best.yml"
    assert select.main([str(results), "--write", str(config)]) == 0
    text = config.read_text()
    assert "SABA[step_size=0.1]" in text and "0.05" not in text
    out = tmp_path / "best_run.parquet"
    proc = subprocess.run(
        [sys.executable, "-m", "benchopt", "run", ROOT, "--config",
         str(config), "-n", "2", "--timeout", "5", "--no-plot", "--no-html",
         "--no-display", "--output", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    ran = pd.read_parquet(out).solver_name.unique()
    assert sorted(s.split("[")[0] for s in ran) == ["SABA", "SOBA"]
    assert all("step_size=0.1" in s for s in ran)


def test_several_datasets_need_a_choice(tmp_path):
    a = _run("SABA[step_size=0.1]", 0, [0, 1], [2.0, 1.0])
    b = a.assign(dataset_name="digits")
    table = select.score_table(pd.concat([a, b]), "objective_value")
    with pytest.raises(SystemExit, match="--dataset"):
        select.write_config(tmp_path / "x.yml", table)


def test_write_refuses_the_results_file_and_writes_atomically(
        tmp_path, monkeypatch, capsys):
    results = tmp_path / "R.parquet"
    _run("SABA[step_size=0.1]", 0, [0, 1], [2.0, 1.0]).to_parquet(results)
    before = results.read_bytes()
    monkeypatch.chdir(tmp_path)
    for same in (str(results), "R.parquet", "./sub/../R.parquet"):
        with pytest.raises(SystemExit) as exc:
            select.main([str(results), "--write", same])
        assert exc.value.code == 2
        assert (f"--write {same} is an input of this command (the results "
                f"file {results}); write elsewhere"
                ) in capsys.readouterr().err
        assert results.read_bytes() == before  # still the results
    config = tmp_path / "best.yml"
    config.write_text("old\n")
    assert select.main(["R.parquet", "--write", str(config)]) == 0
    assert "SABA[step_size=0.1]" in config.read_text()
    # written through a temporary file and os.replace: none is left over
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "R.parquet", "best.yml"]


def test_nothing_to_select_when_every_run_diverged(tmp_path, capsys):
    """Every run diverged: --write says so, with how many runs of which
    solvers, and writes nothing."""
    results, config = tmp_path / "R.parquet", tmp_path / "best.yml"
    pd.concat([_run(solver, rep, [0, 1, 2], [2.0, 1e300, np.nan],
                    diverged=[0, 1, 1])
               for solver in ("SABA[step_size=1e5]", "SOBA[step_size=1e5]",
                              "SOBA[step_size=1e4]")
               for rep in (0, 1)]).to_parquet(results)
    with pytest.raises(SystemExit) as exc:
        select.main([str(results), "--write", str(config)])
    assert str(exc.value.code) == (
        f"every run diverged (6 runs of 3 configurations of SABA, SOBA on "
        f"{DATA}): nothing to select, no run config written")
    assert not config.exists()


@pytest.mark.parametrize("budget", ["-1", "0", "nan", "inf"])
def test_a_budget_is_a_finite_number(tmp_path, capsys, budget):
    results = tmp_path / "R.parquet"
    _run("SABA[step_size=0.1]", 0, [0, 1], [2.0, 1.0]).to_parquet(results)
    with pytest.raises(SystemExit) as exc:
        select.main([str(results), "--budget", budget])
    assert exc.value.code == 2
    assert (f"--budget must be a finite number > 0, got '{budget}'"
            in capsys.readouterr().err)


def test_empty_and_foreign_results_are_named(tmp_path):
    empty = tmp_path / "empty.parquet"
    _run("SABA", 0, [0.0], [1.0]).iloc[:0].to_parquet(empty)
    with pytest.raises(SystemExit, match="empty.parquet: no results"):
        select.main([str(empty)])
    with pytest.raises(SystemExit, match="no results to rank"):
        select.score_table(pd.read_parquet(empty), "objective_value")
    other = tmp_path / "other.parquet"
    pd.DataFrame({"solver_name": ["x"], "loss": [1.0]}).to_parquet(other)
    with pytest.raises(SystemExit, match="other.parquet: missing the "
                       "column.*dataset_name, idx_rep, time"):
        select.main([str(other)])


def test_report_gives_both_test_errors_and_the_references(
        tmp_path, capsys):
    a = _run("SABA[step_size=0.1]", 0, [0, 1, 2], [3.0, 2.0, 1.0]).assign(
        objective_test_error=[0.3, 0.25, 0.2],
        objective_test_error_iterate=[0.9, 0.5, 0.4],
        objective_ref_x0_value=3.0, objective_ref_x0_test_error=0.3,
        objective_ref_weights_oracle_value=0.5,
        objective_ref_weights_oracle_test_error=0.125)
    results = tmp_path / "r.parquet"
    a.to_parquet(results)
    select.main([str(results), "--budget", "1.5"])
    out = capsys.readouterr().out
    # at the last evaluation within the budget: time 1
    assert "(1 runs)  test 25.0 %, own y 50.0 %  SABA[step_size=0.1]" in out
    assert "ref  H 3, test 30.0 %  centre of the x0 draw" in out
    assert "ref  H 0.5, test 12.5 %  oracle weights (clean labels)" in out
