"""tools.tune --continue-from: a study widened on a new storage starts with
the old study's trials, unchanged but for their ranges, and the budget
counts them (docs/comparisons.md, "Is the tuning done?")."""
import json

import optuna
import pytest

from bench_helpers import SMALL
from tools.tune import cli
from tools.tune.study import study_name

NARROW = ["--range", "step_size=0.01:1", "--range", "outer_ratio=0.1:10",
          "--range", "z_ratio=0.1:10"]
WIDE = ["--range", "step_size=0.01:1", "--range", "outer_ratio=1e-3:10",
        "--range", "z_ratio=0.1:10"]


def _argv(storage, trials, ranges, *extra, epochs="2"):
    return ["--dataset", SMALL, "--solvers", "SOBA", "--trials",
            str(trials), "--epochs", epochs, "--evals", "4", "--storage",
            str(storage), *ranges, "--first", "none", *extra]


def _trials(storage):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna.load_study(study_name=study_name(SMALL, "SOBA"),
                             storage=f"sqlite:///{storage}").get_trials()


@pytest.fixture
def old(tmp_path):
    storage = tmp_path / "old.db"
    assert cli.main(_argv(storage, 2, NARROW)) == 0
    return storage


def test_a_widened_study_continues_with_the_old_trials(tmp_path, old):
    new = tmp_path / "new.db"
    assert cli.main(_argv(new, 4, WIDE, "--continue-from", str(old))) == 0
    before, after = _trials(old), _trials(new)
    assert len(after) > len(before)
    for a, b in zip(before, after):
        assert (b.number, b.state, b.params, b.values) == (
            a.number, a.state, a.params, a.values)
        assert b.intermediate_values == a.intermediate_values
        assert b.user_attrs == a.user_attrs
        assert b.system_attrs == a.system_attrs
        assert b.duration == a.duration  # the progress's rate reads it
        # the values are read on the new, wider range
        assert b.distributions["outer_ratio"].low == 1e-3
        assert a.distributions["outer_ratio"].low == 0.1
    rec = json.loads(new.with_suffix(".json").read_text())
    soba = rec["solvers"]["SOBA"]
    # the budget counts the old trials: 4 trials of 2 epochs in all
    assert 8.0 - 2.0 < soba["work"]["charged_epochs"] <= 8.0 + 1e-9
    assert rec["continued_from"] == str(old)
    old_rec = json.loads(old.with_suffix(".json").read_text())
    assert rec["elapsed_seconds"] > old_rec["elapsed_seconds"]
    # rerun: the study has trials, nothing is copied again
    assert cli.main(_argv(new, 4, WIDE, "--continue-from", str(old))) == 0
    assert len(_trials(new)) == len(after)


@pytest.mark.parametrize("ranges, extra, says", [
    (["--range", "step_size=0.01:1", "--range", "outer_ratio=0.5:10",
      "--range", "z_ratio=0.1:10"], (), "is not inside"),
    (WIDE, ("--epochs", "3"), "other settings (epochs"),
])
def test_only_a_wider_range_may_continue(tmp_path, old, capsys, ranges,
                                         extra, says):
    argv = _argv(tmp_path / "new.db", 4, ranges, "--continue-from",
                 str(old))
    if extra:
        argv[argv.index("--epochs") + 1] = extra[1]
    with pytest.raises(SystemExit) as err:
        cli.main(argv)
    assert err.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("which, says", [
    ("same", "is --storage itself"), ("missing", "no such file")])
def test_continue_from_names_a_wrong_storage(tmp_path, old, capsys, which,
                                             says):
    given = old if which == "same" else tmp_path / "none.db"
    with pytest.raises(SystemExit) as err:
        cli.main(_argv(old, 4, WIDE, "--continue-from", str(given)))
    assert err.value.code == 2
    assert says in capsys.readouterr().err


def test_continue_from_a_storage_without_the_study(tmp_path, old, capsys):
    argv = _argv(tmp_path / "new.db", 4, WIDE, "--continue-from", str(old))
    argv[argv.index("--solvers") + 1] = "SABA"
    with pytest.raises(SystemExit) as err:
        cli.main(argv)
    assert err.value.code == 2
    assert "has no study" in capsys.readouterr().err
