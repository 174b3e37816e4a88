"""study.budget: the protocol as if each tuning had stopped at a share of
its work: the record cut to the trials drawn within the share, the
solvers whose winner changes, the stored runs replaced by the new ones
on the same instances, and a plan that runs and writes nothing."""
import os

import pandas as pd
import pytest

from study import budget
from study import budget_curve as curve
from study.sensitivity import sources
from tools.tune.record_file import read_json


@pytest.fixture(scope="module")
def digits():
    record_path, confirm_path = sources("digits")[0]
    return read_json(record_path)


def test_a_cut_record_holds_the_trials_drawn_within_the_share(digits):
    out = budget.cut(digits, ["SFFBA", "SOBA"], 0.25)
    assert list(out["solvers"]) == ["SFFBA", "SOBA"]
    assert out["budget_share"] == 0.25 and out["budget"] == digits["budget"]
    for solver in ("SFFBA", "SOBA"):
        kept = out["solvers"][solver]["all_trials"]
        full = digits["solvers"][solver]["all_trials"]
        # a prefix of the drawn order
        assert [t["number"] for t in kept] == \
            [t["number"] for t in full[:len(kept)]]
        assert 0 < len(kept) < len(full)
        at = curve.winner_at(digits, solver, 0.25)
        assert out["solvers"][solver]["best"]["trial"] == at.row["number"]
        assert out["solvers"][solver]["best"]["criterion"] == min(
            t["criterion"] for t in kept if t["criterion"] is not None)
    # the full share keeps every trial and the record's best
    whole = budget.cut(digits, ["SOBA"], 1.0)["solvers"]["SOBA"]
    assert len(whole["all_trials"]) == len(
        digits["solvers"]["SOBA"]["all_trials"])
    assert whole["best"]["trial"] == digits["solvers"]["SOBA"]["best"][
        "trial"]


def test_the_changed_solvers_are_those_whose_line_changes():
    found = budget.changed("digits", 0.25)
    names = [n for _, _, group in found for n in group]
    _, lines = curve.config_at("digits", 0.25)
    assert sorted(names) == sorted(s for s, _, run in lines
                                   if run.row is not None)
    assert "SPABA" not in names and "TTSA" not in names
    # at the full share no winner changes
    assert budget.changed("digits", 1.0) == []


def _runs(solvers, reps=(0, 1), value=1.0):
    return pd.DataFrame([dict(dataset_name="d", base_seed=1, idx_rep=r,
                              solver_name=f"{s}[step_size=1]",
                              objective_value=value)
                         for s in solvers for r in reps])


def test_new_runs_replace_the_stored_runs_of_their_solvers(tmp_path):
    stored = tmp_path / "stored.parquet"
    _runs(["A", "B", "C"]).to_parquet(stored)
    new = tmp_path / "new.parquet"
    _runs(["B"], value=2.0).to_parquet(new)
    df = budget.replaced(stored, [(new, ["B"])])
    assert sorted(df["solver_name"].str[0].value_counts().items()) == [
        ("A", 2), ("B", 2), ("C", 2)]
    assert (df.loc[df["solver_name"].str[0] == "B",
                   "objective_value"] == 2.0).all()
    # runs on an instance the stored results lack are refused
    _runs(["B"], reps=(0, 5)).to_parquet(new)
    with pytest.raises(RuntimeError, match="do not hold"):
        budget.replaced(stored, [(new, ["B"])])


def test_a_share_without_stored_runs_reads_the_stored_comparisons(
        monkeypatch, tmp_path):
    monkeypatch.setattr(budget, "STORE", tmp_path)
    found = budget.results(0.3)
    stored = pd.read_parquet(os.path.join(
        budget.ROOT, "study", "data", "study_digits.parquet"))
    pd.testing.assert_frame_equal(found["digits"], stored)


def test_the_plan_runs_nothing_and_writes_nothing(tmp_path, capsys):
    assert budget.main(["0.25", "--task", "digits", "--plan", "--work",
                        str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "study.confirm" in out and "--reuse study/data/confirm_digits" \
        in out and "benchopt run" in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, said", [
    (["0"], "in (0, 1]"), (["1.5"], "in (0, 1]"),
    (["0.25", "--task", "digit"], "unknown ['digit']"),
    (["0.25", "--jobs", "0"], "--jobs must be"),
    (["0.25", "--work", "study/data"], "holds the stored study")])
def test_bad_arguments_are_named(argv, said, capsys):
    with pytest.raises(SystemExit) as exc:
        budget.main(argv + (["--plan"] if "--plan" not in argv else []))
    assert exc.value.code == 2
    assert said in capsys.readouterr().err
