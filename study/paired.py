"""Paired verdicts on claims "solver A is lower than solver B on Q" over
independent instances (one instance: a task, a corruption level and a
repetition, with its own data split and starting point), and the
performance and data profiles of a set of solvers over the instances.

    from study.paired import RULE, verdict_table, markdown
    print(RULE)
    print(markdown(verdict_table([dict(name="SPABA < SOBA on H", a=h_spaba,
                                       b=h_soba, claimed_sign=-1)])))
"""
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

LEVEL = 0.95
ALPHA = 0.05
RULE = (
    "For each claim \"A is lower than B\" (or higher), d = A - B is taken "
    "on every instance where both values exist; its median is reported "
    f"with a {LEVEL:.0%} percentile bootstrap interval over instances, "
    "and its two-sided Wilcoxon signed-rank p-value is adjusted by Holm's "
    "step-down method over its family (below). A claim "
    "holds when the median of d has the claimed sign and the adjusted "
    f"p-value is below {ALPHA}; it does not hold when the adjusted p-value "
    f"is below {ALPHA} and the median has the opposite sign; otherwise it "
    "is inconclusive (too few instances or too small an effect to tell).")
POOLING_RULE = (
    "A claim read on the instances of several tasks (a dataset's name "
    "before \"[\": Fashion-MNIST's levels are one task, digits another) "
    "is also read task by task: its median d on each task is printed, and "
    "a pooled verdict that holds or does not hold stands only where no "
    "task's median d has the opposite sign; where one has, the verdict "
    "is \"tasks disagree\": the pooled test would hide a reversal.")

MULTIPLICITY_RULE = (
    "Each claim is decided by one primary reading, named in the claims "
    "file (H at the tuning budget: the quantity every solver was tuned "
    "on); its p-value is adjusted over the "
    "primary readings of every claim, and only that reading gives the "
    "claim's verdict. Its other readings are secondary: their p-values are "
    "adjusted over every secondary reading of every claim, and they are "
    "reported as evidence beside the verdict, never as one.")

VERDICTS = ("holds", "does not hold", "inconclusive", "tasks disagree")


class Paired(NamedTuple):
    d: np.ndarray
    n: int
    dropped: int


@dataclass
class Claim:
    name: str
    a: np.ndarray
    b: np.ndarray
    claimed_sign: int = -1


def _vector(name, values):
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape "
                         f"{values.shape}")
    return values


def _differences(d):
    d = _vector("d", d)
    if np.isnan(d).any():
        raise ValueError("d must not contain NaN (paired_difference drops "
                         "the instances where a value is missing)")
    return d


def _level(name, value):
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value}")


def paired_difference(a, b):
    """d_i = a_i - b_i over the instances i where both are not NaN and
    not both infinite of one sign (two failed runs: no order between
    them); returns ``Paired(d, n, dropped)`` with n = len(d) and
    ``dropped`` the number of instances left out."""
    a, b = _vector("a", a), _vector("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length, got {a.size} "
                         f"and {b.size}")
    with np.errstate(invalid="ignore"):  # inf - inf: no order
        d = a - b
    d = d[~np.isnan(d)]
    return Paired(d, int(d.size), int(a.size - d.size))


def median_ci(d, level=LEVEL, resamples=10_000, seed=0):
    """The median of d and the percentile bootstrap interval for it (Efron
    & Tibshirani 1993, "An Introduction to the Bootstrap", ch. 13): the
    instances are drawn with replacement ``resamples`` times, and (low,
    high) are the (1 - level)/2 and (1 + level)/2 quantiles of the
    medians of the resamples. Returns (median, low, high)."""
    d = _differences(d)
    _level("level", level)
    if int(resamples) != resamples or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got "
                         f"{resamples}")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, d.size, size=(int(resamples), d.size))
    with np.errstate(invalid="ignore"):  # -inf and inf in the middle: nan
        medians = np.median(d[draws], axis=1)
        centre = float(np.median(d))
    # order statistics, not interpolated: a diverged run's inf stays inf
    low = np.nanquantile(medians, (1 - level) / 2, method="lower")
    high = np.nanquantile(medians, (1 + level) / 2, method="higher")
    return centre, float(low), float(high)


EXACT_UP_TO = 50  # instances: the exact null distribution up to here


def wilcoxon_p(d):
    """Two-sided p-value of the Wilcoxon (1945, "Individual comparisons by
    ranking methods") signed-rank test of "d is symmetric about 0", with
    T+ = sum of the ranks of |d_i| over the d_i > 0.

    Up to ``EXACT_UP_TO`` instances, the exact null distribution of T+
    given the ranks (``_exact_p``): tied |d_i| take their mean rank and
    zeros are ranked with the others, then left out of T+ (Pratt 1959),
    so that p does not jump when a small difference becomes exactly zero;
    with n = 5 the smallest p is 2/32 = 0.0625, with n = 10 it is 2/1024,
    ties or not.  Beyond, the normal approximation with the same
    treatment of ties and zeros (scipy's ``zero_method="pratt"``).  All
    differences zero gives p = 1."""
    d = _differences(d)
    if not d.any():
        return 1.0
    if d.size <= EXACT_UP_TO:
        return _exact_p(d)
    return float(stats.wilcoxon(d, zero_method="pratt",
                                method="approx").pvalue)


def _exact_p(d):
    """The exact two-sided p of T+ under the null that each nonzero d_i
    is positive or negative with probability 1/2, given the (mid)ranks of
    |d| (zeros ranked, Pratt): the distribution of sum_i r_i B_i,
    B_i ~ Bernoulli(1/2), built by convolution on the half-integer grid
    of the ranks; p = P(|T - E T| >= |t - E T|)."""
    ranks = stats.rankdata(np.abs(d))
    twice = np.rint(2 * ranks[d != 0]).astype(int)  # midranks: halves
    mass = np.zeros(int(twice.sum()) + 1)
    mass[0] = 1.0
    for r in twice:  # r >= 2: ranks start at 1
        mass[r:] = 0.5 * mass[r:] + 0.5 * mass[:-r]
        mass[:r] *= 0.5
    observed = int(twice[d[d != 0] > 0].sum())
    centre = twice.sum() / 2
    grid = np.arange(mass.size)
    far = np.abs(grid - centre) >= abs(observed - centre) - 1e-9
    return float(min(1.0, mass[far].sum()))


def holm(pvalues):
    """Holm (1979, "A simple sequentially rejective multiple test
    procedure") adjusted p-values, in the order given: with p_(1) <= ...
    <= p_(m) sorted, p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))."""
    p = _vector("pvalues", pvalues)
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError(f"pvalues must be in [0, 1], got {p.tolist()}")
    order = np.argsort(p, kind="stable")
    m = p.size
    scaled = (m - np.arange(m)) * p[order]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return adjusted


def verdict(d, claimed_sign, adjusted_p, alpha=ALPHA):
    """``RULE``: "holds" if sign(median d) = claimed_sign and adjusted_p <
    alpha, "does not hold" if adjusted_p < alpha and sign(median d) =
    -claimed_sign, "inconclusive" otherwise (claimed_sign = -1: A lower
    than B)."""
    return decide(np.median(_differences(d)), claimed_sign, adjusted_p,
                  alpha)


def decide(median, claimed_sign, adjusted_p, alpha=ALPHA):
    """``verdict`` from the median of d alone."""
    if claimed_sign not in (-1, 1):
        raise ValueError(f"claimed_sign must be -1 (A lower than B) or 1 "
                         f"(A higher than B), got {claimed_sign}")
    _level("alpha", alpha)
    if not 0 <= adjusted_p <= 1:
        raise ValueError(f"adjusted_p must be in [0, 1], got {adjusted_p}")
    sign = np.sign(median)
    if adjusted_p < alpha and sign == claimed_sign:
        return "holds"
    if adjusted_p < alpha and sign == -claimed_sign:
        return "does not hold"
    return "inconclusive"


def pooled_verdict(found, median, task_medians):
    """``POOLING_RULE``: the pooled verdict ``found`` (``verdict``, whose
    median d is ``median``), or "tasks disagree" when it holds or does
    not hold and one of ``task_medians`` (the median d of each task) has
    the sign opposite to ``median``'s."""
    if found not in VERDICTS:
        raise ValueError(f"found must be one of {VERDICTS}, got {found!r}")
    sign = np.sign(median)
    if found in ("holds", "does not hold") and any(
            np.sign(m) == -sign for m in task_medians):
        return "tasks disagree"
    return found


def verdict_table(claims, level=LEVEL, alpha=ALPHA, seed=0):
    """One row per claim (a ``Claim`` or a dict with its fields): n,
    dropped, median of d = a - b with its bootstrap interval
    (``median_ci``), Wilcoxon p (``wilcoxon_p``), Holm's p over all the
    claims given (``holm``) and the verdict (``verdict``)."""
    if len(claims) == 0:
        raise ValueError("claims must be a non-empty list of claims")
    rows = []
    for claim in claims:
        if isinstance(claim, dict):
            claim = Claim(**claim)
        pairs = paired_difference(claim.a, claim.b)
        if pairs.n == 0:
            raise ValueError(f"claims: {claim.name!r} has no instance where "
                             f"both a and b are known")
        median, low, high = median_ci(pairs.d, level, seed=seed)
        rows.append(dict(name=claim.name, n=pairs.n, dropped=pairs.dropped,
                         median=median, ci_low=low, ci_high=high,
                         p=wilcoxon_p(pairs.d), d=pairs.d,
                         sign=claim.claimed_sign))
    table = pd.DataFrame(rows)
    table["p_holm"] = holm(table["p"].to_numpy())
    table["verdict"] = [verdict(row.d, row.sign, row.p_holm, alpha)
                        for row in table.itertuples()]
    return table.drop(columns=["d", "sign"])[
        ["name", "n", "dropped", "median", "ci_low", "ci_high", "p",
         "p_holm", "verdict"]]


def tasks_text(medians):
    """{task: (median d, instances)} as "digits 0.1554 (10); mnist
    -0.09399 (30)", "" for none (a claim read on one task)."""
    return "; ".join(f"{task} {median:.4g} ({n})"
                     for task, (median, n) in medians.items())


def _cell(column, value):
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return tasks_text(value)
    if column in ("n", "dropped"):
        return str(int(value))
    if column in ("p", "p_holm"):
        return f"{value:.3g}"
    return f"{value:.4g}"


def markdown(table):
    """``table`` (from ``verdict_table``) as a Markdown table: counts as
    integers, p-values with 3 significant digits, the others with 4."""
    lines = ["| " + " | ".join(map(str, table.columns)) + " |",
             "|" + "---|" * len(table.columns)]
    for _, row in table.iterrows():
        lines.append("| " + " | ".join(_cell(column, row[column])
                                       for column in table.columns) + " |")
    return "\n".join(lines)


def _solver_table(name, table):
    if not isinstance(table, pd.DataFrame) or table.size == 0:
        raise ValueError(f"{name} must be a non-empty DataFrame, one row "
                         f"per instance and one column per solver")
    return table.to_numpy(dtype=float)


def _fractions(values, thresholds, like, index_name):
    """Fraction of the rows of ``values`` at or below each threshold."""
    thresholds = _vector(index_name + "s", thresholds)
    within = values[None, :, :] <= thresholds[:, None, None]
    return pd.DataFrame(within.mean(axis=1), columns=like.columns,
                        index=pd.Index(thresholds, name=index_name))


def performance_profile(costs, taus):
    """Dolan & Moré (2002, "Benchmarking optimization software with
    performance profiles"): with r_ps = c_ps / min_s' c_ps' the ratio of
    solver s on instance p, rho_s(tau) = |{p : r_ps <= tau}| / n_p.
    ``costs``: instances x solvers, lower is better, NaN or inf = failed
    (never counted). Returns taus x solvers."""
    values = _solver_table("costs", costs)
    finite = np.isfinite(values)
    if (values[finite] <= 0).any():
        raise ValueError("costs must be positive where finite (ratios need "
                         "them): shift them first, e.g. H minus a lower "
                         "bound of H")
    values = np.where(finite, values, np.inf)
    with np.errstate(invalid="ignore"):  # inf / inf: all solvers failed
        ratios = values / values.min(axis=1, keepdims=True)
    return _fractions(ratios, taus, costs, "tau")


def data_profile(work_to_reach, budgets):
    """Moré & Wild (2009, "Benchmarking derivative-free optimization
    algorithms"): d_s(b) = |{p : t_ps <= b}| / n_p, with t_ps the work
    (sample evaluations, in epochs) solver s needed to reach the tolerance
    on instance p (NaN or inf = never). ``work_to_reach``: instances x
    solvers. Returns budgets x solvers."""
    values = _solver_table("work_to_reach", work_to_reach)
    if (values[np.isfinite(values)] < 0).any():
        raise ValueError("work_to_reach must be >= 0 where finite")
    return _fractions(values, budgets, work_to_reach, "budget")
