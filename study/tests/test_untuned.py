"""study.untuned: every solver at its defaults on the stored instances:
the run config reduced to the solvers' names, the diverged runs counted,
a plan that runs and writes nothing."""
import os

import pandas as pd
import pytest

from study import untuned

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_a_run_config_keeps_its_grid_and_loses_its_parameters():
    text = open(os.path.join(ROOT, "study", "configs",
                             "tuned_wine.yml")).read()
    out, solvers = untuned.defaults_config(text)
    assert solvers[:3] == ["SPABA", "SFFBA", "MSEBA"] and "F2SA" in solvers
    assert '  - "SPABA"' in out.splitlines() or '- "SPABA"' in out
    assert "step_size=" not in out
    # the grid, the dataset and the seed are the stored config's
    for line in text.splitlines():
        if line.startswith(("seed:", "- Bilevel", '  - "Bilevel')) or \
                "eval_epochs" in line and not line.startswith("#"):
            assert line in out.splitlines()
    with pytest.raises(ValueError, match="names no solver"):
        untuned.defaults_config("solver:\n  - SPABA\n")


def test_the_runs_that_diverged_are_counted_per_solver():
    def run(solver, rep, flags):
        return pd.DataFrame(dict(
            dataset_name="d", base_seed=1, idx_rep=rep,
            solver_name=f"{solver}[R=1]", objective_diverged=flags))
    frames = {"a": pd.concat([run("A", 0, [0, 0]), run("A", 1, [0, 1]),
                              run("B", 0, [0, 0])]),
              "b": run("B", 0, [1.0, float("nan")])}
    table = untuned.diverged_table(frames).splitlines()
    assert table[2:] == ["| A | 2 | 1 |", "| B | 2 | 1 |"]


def test_the_plan_runs_nothing_and_writes_nothing(tmp_path, capsys):
    assert untuned.main(["--task", "wine", "--plan", "--work",
                         str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "defaults.yml" in out and "wine_noclip" in out
    assert list(tmp_path.iterdir()) == []


def test_nothing_stored_is_said(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(untuned, "STORE", tmp_path)
    assert untuned.main(["--show"]) == 0
    assert "No runs at the defaults" in capsys.readouterr().out


@pytest.mark.parametrize("argv, said", [
    (["--task", "wines"], "unknown ['wines']"),
    (["--jobs", "0"], "--jobs must be")])
def test_bad_arguments_are_named(argv, said, capsys):
    with pytest.raises(SystemExit) as exc:
        untuned.main(argv + ["--plan"])
    assert exc.value.code == 2
    assert said in capsys.readouterr().err
