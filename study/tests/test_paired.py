"""study.paired: paired differences, the bootstrap interval of the
median, the exact and approximate Wilcoxon p-values, Holm's adjustment,
the three verdicts, the verdict table and its Markdown, the performance
and data profiles, and clear errors on bad input."""
import itertools
import re

import numpy as np
from scipy import stats
import pandas as pd
import pytest

from study import paired as verdicts
from study.paired import (
    RULE, Claim, data_profile, holm, markdown, median_ci,
    paired_difference, performance_profile, verdict, verdict_table,
    wilcoxon_p)


def _exact_two_sided(d):
    """Two-sided signed-rank p by enumerating the 2^n signs of the ranks
    1..n (no ties, no zeros)."""
    d = list(d)
    ranks = {m: r + 1 for r, m in enumerate(sorted(abs(x) for x in d))}
    observed = sum(ranks[abs(x)] for x in d if x > 0)
    n = len(d)
    totals = [sum(r for r, s in zip(range(1, n + 1), signs) if s)
              for signs in itertools.product((0, 1), repeat=n)]
    low = sum(t <= observed for t in totals)
    high = sum(t >= observed for t in totals)
    return min(1.0, 2 * min(low, high) / 2 ** n)


# --- paired differences -------------------------------------------------

def test_paired_difference_drops_nan_and_counts_them():
    a = [1.0, np.nan, 3.0, 4.0, 5.0]
    b = [0.5, 1.0, np.nan, np.nan, 6.0]
    pairs = paired_difference(a, b)
    np.testing.assert_array_equal(pairs.d, [0.5, -1.0])
    assert (pairs.n, pairs.dropped) == (2, 3)
    # two failed runs (inf, inf) cannot be ordered; one can
    pairs = paired_difference([np.inf, np.inf, 1.0], [np.inf, 2.0, 3.0])
    np.testing.assert_array_equal(pairs.d, [np.inf, -2.0])
    assert (pairs.n, pairs.dropped) == (2, 1)


def test_paired_difference_keeps_a_failure_as_inf():
    pairs = paired_difference([np.inf, 1.0], [2.0, 3.0])
    assert pairs.d[0] == np.inf and pairs.n == 2 and pairs.dropped == 0


# --- Wilcoxon -------------------------------------------------------------

def test_wilcoxon_smallest_exact_p_with_5_and_10_pairs():
    assert wilcoxon_p(np.arange(1.0, 6.0)) == 0.0625
    assert wilcoxon_p(-np.arange(1.0, 11.0)) == 2 / 1024 == 0.001953125


@pytest.mark.parametrize("d", [
    [1.5, -0.3, 2.2, 0.7, -1.1, 3.4, 0.2],
    [-0.4, 0.9, -2.5, 1.3, 0.05, -0.6],
    [0.1, 0.2, -0.3, 0.4, 0.5, 0.6, -0.7, 0.8, 0.9],
])
def test_wilcoxon_exact_matches_enumeration(d):
    assert wilcoxon_p(d) == pytest.approx(_exact_two_sided(d), rel=1e-12)


def test_wilcoxon_random_signs_match_enumeration():
    rng = np.random.default_rng(4)
    for _ in range(5):
        d = rng.permutation(np.arange(1.0, 9.0)) * rng.choice([-1, 1], 8)
        assert wilcoxon_p(d) == pytest.approx(_exact_two_sided(d),
                                              rel=1e-12)


def _tied_two_sided(d):
    """Two-sided p by enumerating the signs of the nonzero d's midranks
    (zeros ranked, then left out: Pratt)."""
    ranks = stats.rankdata(np.abs(d))
    r = [x for x, v in zip(ranks, d) if v != 0]
    observed = sum(x for x, v in zip(ranks, d) if v > 0)
    centre = sum(r) / 2
    totals = [sum(x for x, s in zip(r, signs) if s)
              for signs in itertools.product((0, 1), repeat=len(r))]
    far = sum(abs(t - centre) >= abs(observed - centre) - 1e-9
              for t in totals)
    return far / 2 ** len(r)


def test_wilcoxon_all_zero_is_one_and_ties_stay_exact():
    assert wilcoxon_p(np.zeros(7)) == 1.0
    # ties and a zero: midranks 2.5, 4.5, 4.5, 6, 2.5 (the zero ranked 1,
    # then left out); T+ = 17.5 of 20: 6 of the 32 sign patterns are as
    # far from the centre 10
    d = [1.0, 2.0, 2.0, 0.0, 3.0, -1.0]
    assert wilcoxon_p(d) == pytest.approx(6 / 32, rel=1e-12)
    assert wilcoxon_p(d) == pytest.approx(_tied_two_sided(d), rel=1e-12)
    # equal differences never go below the exact minimum 2 / 2^n
    assert wilcoxon_p(np.full(5, -1.0)) == pytest.approx(2 / 32)
    assert wilcoxon_p([-1, -1, -1, -1, -1.5]) == pytest.approx(2 / 32)
    rng = np.random.default_rng(7)
    for _ in range(5):
        d = rng.integers(-3, 4, 9).astype(float)
        assert wilcoxon_p(d) == pytest.approx(_tied_two_sided(d),
                                              rel=1e-12)
    # more than 50 pairs: the approximation, very small for all positive
    assert wilcoxon_p(np.arange(1.0, 61.0)) < 1e-10


# --- Holm -------------------------------------------------------------

def test_holm_hand_example():
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]),
                               [0.03, 0.06, 0.06, 0.02])


def test_holm_is_monotone_in_the_raw_order_and_capped():
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 0.5, 20)
    adjusted = holm(p)
    order = np.argsort(p)
    assert np.all(np.diff(adjusted[order]) >= 0)
    assert np.all(adjusted >= p) and np.all(adjusted <= 1)
    np.testing.assert_allclose(holm([0.6, 0.9, 0.3]), [1.0, 1.0, 0.9])
    assert holm([0.02])[0] == 0.02


# --- bootstrap --------------------------------------------------------

def test_median_ci_reproducible_contains_median_and_narrows():
    rng = np.random.default_rng(2)
    small = rng.normal(1.0, 1.0, 15)
    first = median_ci(small, seed=7)
    assert median_ci(small, seed=7) == first
    assert median_ci(small, seed=8) != first
    median, low, high = first
    assert median == np.median(small)
    assert low <= median <= high and low < high
    large = rng.normal(1.0, 1.0, 1500)
    _, low_large, high_large = median_ci(large, seed=7)
    assert high_large - low_large < (high - low) / 4
    assert low_large < 1.0 < high_large


def test_median_ci_level_widens_and_constant_is_a_point():
    d = np.random.default_rng(3).normal(size=40)
    _, low90, high90 = median_ci(d, level=0.9)
    _, low99, high99 = median_ci(d, level=0.99)
    assert low99 <= low90 and high90 <= high99 and high99 - low99 > 0
    assert median_ci(np.full(9, 2.5)) == (2.5, 2.5, 2.5)


# --- verdicts ---------------------------------------------------------

def test_the_three_verdicts():
    lower = -np.arange(1.0, 11.0)
    assert verdict(lower, -1, 0.01) == "holds"
    assert verdict(-lower, -1, 0.01) == "does not hold"
    assert verdict(-lower, 1, 0.01) == "holds"
    assert verdict(lower, -1, 0.2) == "inconclusive"
    assert verdict(lower, -1, 0.05) == "inconclusive"  # p < alpha, strict
    assert verdict([-1.0, 0.0, 0.0, 1.0], -1, 0.001) == "inconclusive"
    assert verdict(lower, -1, 0.04, alpha=0.01) == "inconclusive"


def test_verdict_table_significant_wrong_sign_does_not_hold():
    rng = np.random.default_rng(5)
    base = rng.normal(size=12)
    claims = [
        dict(name="A lower", a=base - 1.0 - rng.uniform(0, 0.1, 12),
             b=base, claimed_sign=-1),
        Claim(name="A lower, but higher",
              a=np.append(base + 1.0 + rng.uniform(0, 0.1, 12), np.nan),
              b=np.append(base, 0.0), claimed_sign=-1),
        dict(name="no effect", a=base + rng.choice([-1, 1], 12) * 0.1,
             b=base, claimed_sign=-1),
    ]
    table = verdict_table(claims)
    assert list(table.columns) == ["name", "n", "dropped", "median",
                                   "ci_low", "ci_high", "p", "p_holm",
                                   "verdict"]
    assert list(table["verdict"]) == ["holds", "does not hold",
                                      "inconclusive"]
    assert list(table["n"]) == [12, 12, 12]
    assert list(table["dropped"]) == [0, 1, 0]
    assert table["p"][0] == table["p"][1] == 2 / 4096
    np.testing.assert_allclose(table["p_holm"], holm(table["p"]))
    assert table["ci_high"][0] < 0 < table["ci_low"][1]
    text = markdown(table)
    lines = text.splitlines()
    assert lines[0] == ("| name | n | dropped | median | ci_low | ci_high "
                        "| p | p_holm | verdict |")
    assert lines[1] == "|---|---|---|---|---|---|---|---|---|"
    assert len(lines) == 5
    assert "| 12 | 1 |" in lines[3] and "| 0.000488 | 0.00146 |" in lines[3]
    assert lines[3].endswith("| does not hold |")


def test_rule_states_the_four_outcomes():
    assert "holds" in RULE and "does not hold" in RULE
    assert "inconclusive" in RULE and "Holm" in RULE
    assert "tasks disagree" in verdicts.POOLING_RULE
    assert set(verdicts.VERDICTS) == {"holds", "does not hold",
                                      "inconclusive", "tasks disagree"}


@pytest.mark.parametrize("found, median, tasks, expected", [
    # a task reverses the pooled sign: no verdict
    ("holds", -0.06, [0.16, -0.09], "tasks disagree"),
    ("does not hold", 0.2, [0.1, -1e-3], "tasks disagree"),
    # every task on the pooled side, or at zero: the verdict stands
    ("holds", -0.06, [-0.2, -0.01], "holds"),
    ("does not hold", 0.2, [0.0, 0.3], "does not hold"),
    # an inconclusive verdict stays so; one task (no medians): unchanged
    ("inconclusive", -0.06, [0.16, -0.09], "inconclusive"),
    ("holds", -0.06, [], "holds"),
])
def test_a_pooled_verdict_stands_only_where_no_task_reverses_it(
        found, median, tasks, expected):
    assert verdicts.pooled_verdict(found, median, tasks) == expected


def test_pooled_verdict_refuses_an_unknown_verdict():
    with pytest.raises(ValueError, match="found must be one of"):
        verdicts.pooled_verdict("maybe", 0.1, [0.2])


# --- profiles ---------------------------------------------------------

def test_performance_profile_hand_example():
    costs = pd.DataFrame({"A": [1.0, 2.0, np.inf], "B": [2.0, 2.0, 3.0]},
                         index=["p1", "p2", "p3"])
    profile = performance_profile(costs, [1.0, 1.5, 2.0, 100.0])
    assert profile.index.name == "tau"
    np.testing.assert_allclose(profile["A"], [2 / 3, 2 / 3, 2 / 3, 2 / 3])
    np.testing.assert_allclose(profile["B"], [2 / 3, 2 / 3, 1.0, 1.0])


def test_performance_profile_failures_never_count():
    costs = pd.DataFrame({"A": [np.nan, 4.0, np.inf],
                          "B": [np.nan, 1.0, 5.0]})
    profile = performance_profile(costs, [1.0, 4.0, 1e300])
    # instance 0: both failed, no solver solves it at any tau
    np.testing.assert_allclose(profile["A"], [0.0, 1 / 3, 1 / 3])
    np.testing.assert_allclose(profile["B"], [2 / 3, 2 / 3, 2 / 3])


def test_data_profile_hand_example():
    work = pd.DataFrame({"A": [1.0, 3.0, np.nan, 10.0],
                         "B": [2.0, np.inf, 2.0, 2.0]})
    profile = data_profile(work, [0.5, 1.0, 2.0, 5.0, 10.0])
    assert profile.index.name == "budget"
    np.testing.assert_allclose(profile["A"], [0, 0.25, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(profile["B"], [0, 0, 0.75, 0.75, 0.75])


# --- bad input ------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: paired_difference([1.0, 2.0], [1.0]), "same length"),
    (lambda: paired_difference([], []), "a must"),
    (lambda: median_ci([1.0, 2.0], level=1.5), "level must be in (0, 1)"),
    (lambda: median_ci([1.0, 2.0], level=0.0), "level must be in (0, 1)"),
    (lambda: median_ci([1.0, 2.0], resamples=0), "resamples must"),
    (lambda: median_ci([1.0, np.nan]), "d must not contain NaN"),
    (lambda: wilcoxon_p([]), "d must be a non-empty"),
    (lambda: holm([]), "pvalues must be a non-empty"),
    (lambda: holm([0.1, 1.2]), "pvalues must be in [0, 1]"),
    (lambda: verdict([1.0], 0, 0.01), "claimed_sign must be -1"),
    (lambda: verdict([1.0], -1, 0.01, alpha=2), "alpha must be in (0, 1)"),
    (lambda: verdict([1.0], -1, 1.5), "adjusted_p must be in [0, 1]"),
    (lambda: verdict_table([]), "claims must be a non-empty"),
    (lambda: verdict_table([dict(name="x", a=[np.nan], b=[1.0],
                                 claimed_sign=-1)]), "claims: 'x'"),
    (lambda: performance_profile(pd.DataFrame({"A": [1.0, 0.0]}), [1.0]),
     "costs must be positive"),
    (lambda: performance_profile(pd.DataFrame({"A": [1.0, -2.0]}), [1.0]),
     "shift them"),
    (lambda: performance_profile([[1.0]], [1.0]), "costs must be a"),
    (lambda: performance_profile(pd.DataFrame({"A": [1.0]}), []),
     "taus must be a non-empty"),
    (lambda: data_profile(pd.DataFrame({"A": [-1.0]}), [1.0]),
     "work_to_reach must be >= 0"),
    (lambda: data_profile(pd.DataFrame(), [1.0]), "work_to_reach must be"),
    (lambda: data_profile(pd.DataFrame({"A": [1.0]}), [[1.0]]),
     "budgets must be"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=re.escape(name)):
        call()


def test_claimed_sign_error_lists_the_allowed_values():
    with pytest.raises(ValueError, match=r"-1 .* or 1 .*got 2"):
        verdict([1.0], 2, 0.01)
