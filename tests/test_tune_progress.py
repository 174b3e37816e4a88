"""tools.tune's progress line: trials done of the total over all solvers,
the time elapsed and an estimate of the time left from the mean trial time
and the parallel workers (docs/comparisons.md "Parallel")."""
import re
from datetime import datetime, timedelta

import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from bench_helpers import SMALL
from tools.tune import cli
from tools.tune.progress import TrialProgress, time_left
from tools.tune.study import Settings

T0 = datetime(2025, 1, 1)


def _trial(number, state, seconds=None):
    end = None if seconds is None else T0 + timedelta(seconds=seconds)
    return FrozenTrial(
        number=number, state=state,
        value=1.0 if state == TrialState.COMPLETE else None,
        values=None, datetime_start=T0, datetime_complete=end,
        params={"step_size": 0.1},
        distributions={"step_size": FloatDistribution(0.01, 1)},
        user_attrs={}, system_attrs={}, intermediate_values={},
        trial_id=number)


def _trials():
    """Budget 3 per solver: A has 2 counted trials (2 s and 4 s) and one
    running, B one counted (6 s) and one failed (not counted): 3 of 6
    done, a mean of 4 s, 1 trial left for A and 2 for B."""
    return {"A": [_trial(0, TrialState.COMPLETE, 2),
                  _trial(1, TrialState.PRUNED, 4),
                  _trial(2, TrialState.RUNNING)],
            "B": [_trial(0, TrialState.COMPLETE, 6),
                  _trial(1, TrialState.FAIL, 50)]}


def _settings():
    return Settings(dataset="D", solvers=["A", "B"], trials=3, epochs=1.0,
                    storage="unused.db", budget="trials")


def test_time_left():
    assert time_left(4.0, 3, 1, 1) == 12.0
    assert time_left(4.0, 3, 2, 1) == 6.0
    # one study's trials run one after another: at least its own
    assert time_left(4.0, 3, 2, 2) == 8.0
    assert time_left(4.0, 0, 2, 0) == 0.0


@pytest.mark.parametrize("parallel, per_study, left", [
    (1, False, "0:00:12"),   # 3 trials of 4 s in a row
    (2, False, "0:00:06"),   # --jobs 2: any worker takes any trial
    (2, True, "0:00:08"),    # a cluster: B's 2 trials run in a row
    (8, False, "0:00:04"),   # more workers than trials: one trial's time
])
def test_the_line_counts_every_solver(parallel, per_study, left):
    progress = TrialProgress(_settings(), parallel, per_study=per_study,
                             start=100.0)
    assert progress.line(_trials(), now=131.0) == (
        f"  trials 3 of 6 (all solvers), elapsed 0:00:31, about {left} "
        "left")


def test_no_estimate_before_a_trial_counts():
    progress = TrialProgress(_settings(), start=0.0)
    trials = {"A": [_trial(0, TrialState.RUNNING)], "B": []}
    assert progress.line(trials, now=3.0) == (
        "  trials 0 of 6 (all solvers), elapsed 0:00:03")
    with pytest.raises(ValueError, match="parallel must be >= 1"):
        TrialProgress(_settings(), 0)


def test_a_study_past_its_budget_counts_its_budget():
    trials = {"A": [_trial(i, TrialState.COMPLETE, 1) for i in range(5)],
              "B": []}
    line = TrialProgress(_settings(), start=0.0).line(trials, now=10.0)
    assert line == ("  trials 3 of 6 (all solvers), elapsed 0:00:10, "
                    "about 0:00:03 left")


def test_the_tuning_prints_its_progress_after_each_trial(tmp_path, capsys):
    argv = ["--dataset", SMALL, "--solvers", "SPABA,SOBA", "--trials", "2",
            "--epochs", "1", "--evals", "2", "--storage",
            str(tmp_path / "t.db"), "--range", "step_size=0.01:1",
            "--budget", "trials"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    done = re.findall(r"trials (\d) of 4 \(all solvers\), elapsed "
                      r"\d:\d\d:\d\d, about \d:\d\d:\d\d left", out)
    assert done == ["1", "2", "3", "4"]
    assert out.count(" trial ") == 4
