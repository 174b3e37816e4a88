"""tools.study_table: medians over repetitions at an epoch budget and at
the end, diverged repetitions counted and cut where they diverged."""
import numpy as np
import pandas as pd
import pytest

from tools import study_table

DATA = "mnist[ratio=0.5]"


def _runs():
    rows = []
    # SOBA: two sound repetitions, points at 0, 1, 2, 3 epochs
    for rep, scale in ((0, 1.0), (1, 2.0)):
        for e in range(4):
            rows.append(dict(dataset_name=DATA, solver_name="SOBA[a=1]",
                             idx_rep=rep, objective_epochs=float(e),
                             objective_value=scale * (4 - e),
                             objective_test_error=0.1 * scale,
                             objective_diverged=0))
    # SPABA: repetition 0 diverges at its point at 2 epochs
    for rep in (0, 1):
        for e in range(4):
            bad = rep == 0 and e >= 2
            rows.append(dict(dataset_name=DATA, solver_name="SPABA[R=inf]",
                             idx_rep=rep, objective_epochs=float(e),
                             objective_value=np.nan if bad else 1.0 - 0.1 * e,
                             objective_test_error=0.2,
                             objective_diverged=int(bad)))
    return pd.DataFrame(rows)


def test_medians_at_the_budget_and_at_the_end():
    table = study_table.summary(study_table.run_rows(_runs(), budget=2.0))
    soba = table[table.solver == "SOBA[a=1]"].iloc[0]
    # H at 2 epochs: 2 and 4, median 3; at the end (3 epochs): 1 and 2
    assert soba.h_budget == pytest.approx(3.0)
    assert soba.h_end == pytest.approx(1.5)
    assert soba.err_budget == pytest.approx(15.0)
    assert (soba.diverged, soba.runs) == (0, 2)
    spaba = table[table.solver == "SPABA[R=inf]"].iloc[0]
    # repetition 0 is cut before its diverged point: 0.9 at 1 epoch;
    # repetition 1: 0.8 at 2 epochs and 0.7 at the end
    assert spaba.h_budget == pytest.approx(0.85)
    assert spaba.h_end == pytest.approx(0.8)
    assert (spaba.diverged, spaba.diverged_at) == (1, 2.0)
    # sorted by H at the budget, the lowest first
    assert list(table.solver) == ["SPABA[R=inf]", "SOBA[a=1]"]


def test_markdown_names_rows_and_labels_configurations(tmp_path, capsys):
    path = tmp_path / "r.parquet"
    _runs().to_parquet(path)
    study_table.main([str(path), "--budget", "2", "--label",
                      r"^SPABA.*R=inf=clipping off"])
    out = capsys.readouterr().out
    assert "| SPABA (clipping off) | 0.850 |" in out
    assert "| SOBA | 3.000 | 15.0 | 1.500 |" in out
    assert "1 of 2, at 2 epochs" in out
    with pytest.raises(SystemExit):
        study_table.main([str(path), "--budget", "2", "--label", "nolabel"])
