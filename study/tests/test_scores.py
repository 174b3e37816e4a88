"""study.scores: the normalized scores, their IQM, the stratified
bootstrap, the probability of improvement and the area under the
performance profile, against hand computations; the command on the
stored results."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import trim_mean

from study import paired, scores, verdicts


# IQM ------------------------------------------------------------------

@pytest.mark.parametrize("values, expected", [
    ([10, 1, 3, 2], 2.5),              # n = 4: g = 1, mean of 2, 3
    ([7, 1, 2, 3, 4, 5, 6], 4.0),      # n = 7: g = 1, mean of 2..6
    (list(range(1, 11)), 5.5),         # n = 10: g = 2, mean of 3..8
    ([1, 2, 3, 4, np.nan, 100], 3.0),  # NaN left out: n = 5, g = 1
])
def test_iqm_by_hand(values, expected):
    assert scores.iqm(values) == pytest.approx(expected)


@pytest.mark.parametrize("n", [4, 7, 10, 40])
def test_iqm_is_scipys_trimmed_mean(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 3)) ** 3
    assert scores.iqm(x, axis=0) == pytest.approx(trim_mean(x, 0.25, axis=0))
    assert scores.iqm(x.T, axis=1) == pytest.approx(
        trim_mean(x, 0.25, axis=0))


def test_iqm_of_nothing_is_nan():
    assert math.isnan(scores.iqm([np.nan, np.nan]))


# normalized scores ------------------------------------------------------

def _runs():
    """Three instances of one task: x0 = 10 on each.
    p0: SOBA 4 (best), SABA 10 (x0), MRBO 7, TTSA diverged, SPABA stopped,
        SPABA[R=inf] 1 (an ablation variant: not in the best).
    p1: SOBA 2 (best), SABA 16 (worse than x0), MRBO 10, TTSA diverged.
    p2: nobody improves on x0 (best 10): dropped."""
    rows = []

    def run(rep, solver, value, how="grid"):
        rows.append(dict(dataset="task[a=1]", solver=solver, rep=rep, seed=1,
                         h_budget=value, how=how, x0_h=10.0))
    run(0, "SOBA[step_size=1]", 4.0)
    run(0, "SABA[step_size=1]", 10.0)
    run(0, "MRBO[step_size=1]", 7.0)
    run(0, "TTSA[step_size=1]", 1e9, "diverged")
    run(0, "SPABA[R=1]", np.nan, "stopped")
    run(0, "SPABA[R=inf]", 1.0)
    run(1, "SOBA[step_size=1]", 2.0)
    run(1, "SABA[step_size=1]", 16.0)
    run(1, "MRBO[step_size=1]", 10.0)
    run(1, "TTSA[step_size=1]", np.nan, "diverged")
    run(1, "SPABA[R=1]", 6.0)
    for solver in ("SOBA[step_size=1]", "SABA[step_size=1]",
                   "MRBO[step_size=1]", "TTSA[step_size=1]", "SPABA[R=1]"):
        run(2, solver, 10.0 + len(solver) % 3)
    return pd.DataFrame(rows)


def test_normalized_scores_by_hand():
    found = scores.normalized_scores(_runs(), "h_budget")
    s = found.scores
    assert "SPABA[R=inf]" not in s
    p0, p1 = ("task[a=1]", 1, 0), ("task[a=1]", 1, 1)
    assert s.loc[p0, "SOBA"] == 1.0            # the best
    assert s.loc[p0, "SABA"] == 0.0            # x0's value
    assert s.loc[p0, "MRBO"] == pytest.approx(0.5)  # (10 - 7) / (10 - 4)
    assert s.loc[p0, "TTSA"] == 0.0            # floor: min(0, worst 0)
    assert math.isnan(s.loc[p0, "SPABA"])      # stopped: missing
    assert s.loc[p1, "SABA"] == pytest.approx(-0.75)  # (10 - 16) / 8
    assert s.loc[p1, "TTSA"] == pytest.approx(-0.75)  # floor: the worst
    assert s.loc[p1, "SPABA"] == pytest.approx(0.5)
    assert s.loc[p1, "MRBO"] == 0.0
    assert list(found.dropped) == [("task[a=1]", 1, 2)]
    assert s.loc[("task[a=1]", 1, 2)].isna().all()
    assert found.stopped.sum().to_dict() == dict(
        MRBO=0, SABA=0, SOBA=0, SPABA=1, TTSA=0)
    assert found.diverged["TTSA"].tolist() == [True, True, False]
    assert found.diverged.to_numpy().sum() == 2


def test_a_diverged_run_never_scores_above_x0_nor_a_finished_run():
    found = scores.normalized_scores(_runs(), "h_budget")
    s, gone = found.scores.to_numpy(), found.diverged.to_numpy()
    for row, lost in zip(s, gone):
        if lost.any():
            assert (row[lost] <= 0).all()
            assert (row[lost][:, None] <= row[~lost][None, :]
                    ).all(where=~np.isnan(row[~lost])[None, :])


def test_x0_must_be_one_value_per_instance():
    runs = _runs()
    runs.loc[0, "x0_h"] = 11.0
    with pytest.raises(ValueError, match="x0_h varies"):
        scores.normalized_scores(runs, "h_budget")


# stratified bootstrap ---------------------------------------------------

STRATA = np.array(["a"] * 3 + ["b"] * 7)


def test_resamples_never_mix_strata():
    drawn = scores.stratified_bootstrap(STRATA, resamples=500, seed=3)
    assert drawn.shape == (500, 10)
    assert (STRATA[drawn] == STRATA).all()
    assert ((STRATA[drawn] == "a").sum(axis=1) == 3).all()
    assert ((STRATA[drawn] == "b").sum(axis=1) == 7).all()
    # with replacement: some resample repeats an instance
    assert any(len(set(row)) < 10 for row in drawn)


def test_same_seed_same_resamples():
    one = scores.stratified_bootstrap(STRATA, 100, 7)
    assert (one == scores.stratified_bootstrap(STRATA, 100, 7)).all()
    assert (one != scores.stratified_bootstrap(STRATA, 100, 8)).any()


def test_a_constant_stratum_has_a_zero_width_interval():
    values = np.full(6, 0.25)
    estimate, low, high = scores.bootstrap_interval(
        lambda x: x.mean(axis=-1), values, np.zeros(6), resamples=300)
    assert estimate == low == high == 0.25


def test_each_stratum_keeps_its_values():
    # stratum a: 0, 0, 0; stratum b: 1 .. 7: the mean of a resample is
    # at least 3 * 0 + 7 * 1 over 10 and at most 7 * 7 over 10
    values = np.array([0.0] * 3 + list(range(1, 8)), dtype=float)
    estimate, low, high = scores.bootstrap_interval(
        lambda x: x.mean(axis=-1), values, STRATA, resamples=2000, seed=0)
    assert estimate == pytest.approx(2.8)
    assert 0.7 <= low < estimate < high <= 4.9


# probability of improvement --------------------------------------------

def test_probability_of_improvement_extremes():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    strata = np.array([0, 0, 1, 1])
    assert scores.probability_of_improvement(a, a - 1, strata) == 1.0
    assert scores.probability_of_improvement(a, a + 1, strata) == 0.0
    assert scores.probability_of_improvement(a, a, strata) == 0.5


def test_probability_of_improvement_averages_the_tasks():
    # task x: win, tie, loss (and an unpaired instance) -> 0.5;
    # task y: win -> 1; mean of the tasks 0.75 (pooled it would be 0.625)
    a = np.array([1.0, 2.0, 3.0, np.nan, 5.0])
    b = np.array([0.0, 2.0, 4.0, 1.0, 1.0])
    strata = np.array(["x", "x", "x", "x", "y"])
    assert scores.probability_of_improvement(a, b, strata) == 0.75
    # resamples along the first axis
    both = scores.probability_of_improvement(np.stack([a, b]),
                                             np.stack([b, a]), strata)
    assert both == pytest.approx([0.75, 0.25])


def test_rivals_are_named_per_task_split_where_they_differ():
    picked = {"mnist[l2_reg=0.2,ratio=0.5]": "A",
              "mnist[l2_reg=0.2,ratio=0.7]": "A",
              "mnist[l2_reg=0.02,ratio=0.9]": "B", "digits[ratio=0.5]": "C"}
    assert scores.rival_text(picked) == (
        "mnist[l2_reg=0.2]: A; mnist[l2_reg=0.02]: B; digits: C")


# area under the performance profile -------------------------------------

def test_profile_area_by_hand():
    work = pd.DataFrame({"fast": [1.0, 0.5, 3.0], "other": [1.0, 1.0, np.inf]})
    area = scores.profile_area(work, ratio_max=16)
    assert area["fast"] == 1.0
    # ratios 1, 2, inf: rho = 1/3 on log2 r in [0, 1), 2/3 on [1, 4]
    assert area["other"] == pytest.approx((1 / 3 * 1 + 2 / 3 * 3) / 4)


def test_profile_area_is_the_integral_of_the_profile():
    rng = np.random.default_rng(0)
    work = pd.DataFrame(rng.uniform(0.1, 2, (30, 4)) ** 3,
                        columns=list("abcd"))
    work.iloc[::5, 1] = np.inf
    area = scores.profile_area(work, ratio_max=8)
    log2_r = (np.arange(30000) + 0.5) / 30000 * 3  # midpoints on [0, 3]
    rho = paired.performance_profile(work, 2.0 ** log2_r)
    assert area.to_numpy() == pytest.approx(rho.mean().to_numpy(), abs=1e-3)


# the command on the stored results --------------------------------------

def test_the_command_names_every_solver_and_is_deterministic(capsys):
    assert scores.main([]) == 0
    first = capsys.readouterr().out
    assert scores.main([]) == 0
    assert capsys.readouterr().out == first
    _, runs, _ = scores._read(scores.SCORED)
    names = {verdicts.label(s) for s in runs["solver"]}
    names = {s for s in names if "[" not in s}
    assert len(names) >= 10
    table = first.split("\n\n")[0]
    rows = [line.split(" | ")[0].lstrip("| ") for line in
            table.splitlines()[2:]]
    assert sorted(rows) == sorted(names)
    for solver in scores.PNPBO:
        assert f"| {solver} | " in first.split("\n\n")[1]
    assert scores.CAVEAT in first
    assert "2000 resamples" in first and "default_rng(0)" in first


@pytest.mark.parametrize("argv, option", [
    (["--resamples", "0"], "--resamples"),
    (["--resamples", "many"], "--resamples"),
    (["--ratio", "1"], "--ratio"),
    (["--ratio", "inf"], "--ratio"),
    (["--seed", "-1"], "--seed"),
])
def test_bad_options_are_named(capsys, argv, option):
    with pytest.raises(SystemExit) as exc:
        scores.main(argv)
    assert exc.value.code != 0
    err = capsys.readouterr().err
    assert option in err
