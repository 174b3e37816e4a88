"""``tools.run_cost``: the solvers' own time of a results file (each run's
last ``time``, summed over runs) and the arguments it adds."""
from pathlib import Path

import pandas as pd

from tools.run_cost import _with_output, solver_time


def test_solver_time_sums_each_runs_last_time(tmp_path):
    rows = [("SOBA", 0, t) for t in (0.0, 1.0, 2.5)] + \
        [("SABA", 0, t) for t in (0.0, 4.0)] + [("SABA", 1, 3.0)]
    df = pd.DataFrame(rows, columns=["solver_name", "idx_rep", "time"])
    df["dataset_name"] = "d"
    df["objective_name"] = "o"
    df.to_parquet(tmp_path / "r.parquet")
    assert solver_time(tmp_path / "r.parquet") == (2.5 + 4.0 + 3.0, 6)


def test_the_command_gets_no_plot_and_its_own_output(tmp_path):
    argv, out = _with_output(["benchopt", "run", "."], tmp_path)
    assert argv[-3:] == ["--no-plot", "--output",
                         str(tmp_path / "run_cost")]
    assert out == tmp_path / "run_cost.parquet"
    given = ["benchopt", "run", ".", "--no-plot", "--output", "x.parquet"]
    assert _with_output(given, tmp_path) == (given, Path("x.parquet"))
