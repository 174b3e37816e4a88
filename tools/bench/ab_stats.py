"""Statistics of an A/B of two builds (``python -m tools.bench.ab``).

On a shared 2-core machine one timing moves by +-20 % from one minute to
the next, so a single new / old figure cannot tell a 10 % slip from noise.
Each round times both builds back to back on the same iterations, so the
machine's drift is shared within the pair: the per-round paired log-ratio
``log(t_new / t_old)`` varies little within one pair of processes.  But a
process keeps a speed of its own for its whole life (the same build, two
processes: up to 40 % apart on one cell, steady over 18 minutes), so the
unit of replication is the pair of processes: ``process_log_ratios`` takes
the median of each pair's rounds, and the estimate is the median over the
pairs (robust against a process that drew a bad placement), with a
distribution-free interval:

* ``sign_interval``: the order statistics of the sign test, an exact
  (at least ``level``) interval for the median of any continuous
  distribution; deterministic;
* ``bootstrap_interval``: the percentile bootstrap of the median (seeded).

``verdict`` reads an interval against a band (+-3 %) and a largest useful
width (6 %).  No numba and no timing (Python and NumPy only), so the tests
check it on synthetic samples.
"""
import math
from dataclasses import dataclass

import numpy as np

BAND = 0.03        # "same" means within +-3 %
MAX_WIDTH = 0.06   # an interval wider than this decides nothing
SLIP = 0.05        # the rule: no cell more than 5 % slower
METHODS = ("sign", "bootstrap")


def paired_log_ratios(new_times, old_times):
    """``log(new / old)`` of each round's pair of times (seconds of the
    same iterations on each side); every time must be positive."""
    if len(new_times) != len(old_times):
        raise ValueError(f"new_times and old_times differ in length "
                         f"({len(new_times)} != {len(old_times)})")
    out = []
    for new, old in zip(new_times, old_times):
        if not (new > 0 and old > 0):
            raise ValueError(f"times must be positive, got new={new!r}, "
                             f"old={old!r}")
        out.append(math.log(new / old))
    return out


def process_log_ratios(new_rounds, old_rounds):
    """One log-ratio per pair of processes: the median of its rounds'
    paired log-ratios (``new_rounds[g][r]``, ``old_rounds[g][r]``: seconds
    of round ``r`` of the ``g``-th pair)."""
    if len(new_rounds) != len(old_rounds):
        raise ValueError(f"new_rounds and old_rounds differ in processes "
                         f"({len(new_rounds)} != {len(old_rounds)})")
    return [median(paired_log_ratios(new, old))
            for new, old in zip(new_rounds, old_rounds)]


def median(values):
    """Median of a non-empty sequence (mean of the two middle values for
    an even count)."""
    xs = sorted(values)
    if not xs:
        raise ValueError("median of an empty sample")
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else 0.5 * (xs[mid - 1] + xs[mid])


def _binom_cdf(k, n):
    """P(Binomial(n, 1/2) <= k)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n


def sign_rank(n, level=0.95):
    """The 1-based rank ``k`` such that ``[x_(k), x_(n+1-k)]`` covers the
    median with probability at least ``level`` (largest such ``k``); 0 when
    ``n`` is too small for any interval of that level."""
    _check_level(level)
    alpha = 1.0 - level
    k = 0
    while k + 1 <= n // 2 and 2.0 * _binom_cdf(k, n) <= alpha:
        k += 1
    return k


def sign_interval(values, level=0.95):
    """Distribution-free interval of the median (sign-test inversion):
    ``(-inf, inf)`` when there are too few values for ``level``."""
    xs = sorted(values)
    k = sign_rank(len(xs), level)
    if k == 0:
        return -math.inf, math.inf
    return xs[k - 1], xs[len(xs) - k]


def bootstrap_interval(values, level=0.95, resamples=2000, seed=0):
    """Percentile bootstrap interval of the median (``resamples`` seeded
    draws with replacement)."""
    _check_level(level)
    xs = np.asarray(values, dtype=float)
    if len(xs) < 2:
        return -math.inf, math.inf
    rng = np.random.default_rng(seed)
    meds = np.sort(np.median(
        xs[rng.integers(0, len(xs), size=(resamples, len(xs)))], axis=1))
    tail = (1.0 - level) / 2.0
    lo = meds[int(math.floor(tail * (resamples - 1)))]
    hi = meds[int(math.ceil((1.0 - tail) * (resamples - 1)))]
    return float(lo), float(hi)


def _check_level(level):
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


@dataclass(frozen=True)
class Estimate:
    """A cell's new / old ratio: median of the paired ratios, its
    interval, how many paired log-ratios are behind it and their spread
    (their median absolute deviation, as a ratio: 0.05 is +-5 %)."""
    ratio: float
    low: float
    high: float
    n: int
    spread: float

    @property
    def width(self):
        """Relative width of the interval, ``high / low - 1``."""
        if not math.isfinite(self.high) or self.low <= 0:
            return math.inf
        return self.high / self.low - 1.0


def estimate(log_ratios, method="sign", level=0.95, seed=0):
    """The ``Estimate`` of a cell from its paired log-ratios (one per set
    of processes; ``method``: "sign" or "bootstrap")."""
    xs = list(log_ratios)
    if not xs:
        raise ValueError("no rounds to estimate from")
    if method == "sign":
        lo, hi = sign_interval(xs, level)
    elif method == "bootstrap":
        lo, hi = bootstrap_interval(xs, level, seed=seed)
    else:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    mid = median(xs)
    mad = median(abs(x - mid) for x in xs)
    return Estimate(ratio=math.exp(mid), low=math.exp(lo),
                    high=math.exp(hi), n=len(xs),
                    spread=math.exp(mad) - 1.0)


def verdict(est, band=BAND, max_width=MAX_WIDTH):
    """The reading of an ``Estimate``.

    "slower" / "faster": the whole interval lies beyond ``1 +- band``;
    "same within +-3 %": the whole interval lies within it; otherwise
    "undecided", because the interval is wider than ``max_width`` (more
    processes narrow it) or, narrow, straddles an edge of the band.  A narrow
    interval on one side of 1 that touches the band still says "slower" /
    "faster" (by less than the band: the text gives the interval).
    """
    lo, hi = est.low, est.high
    pct = round(100 * band)
    if lo > 1.0 + band:
        return "slower"
    if hi < 1.0 / (1.0 + band):
        return "faster"
    if lo >= 1.0 / (1.0 + band) and hi <= 1.0 + band:
        return f"same within ±{pct} %"
    if est.width > max_width:
        return (f"undecided: CI width {_pct(est.width)} > "
                f"{round(100 * max_width)} %, run more processes")
    if lo > 1.0:
        return "slower"
    if hi < 1.0:
        return "faster"
    return (f"undecided: CI {lo:.3f}-{hi:.3f} crosses the ±{pct} % "
            "edge, run more processes")


def _pct(x):
    return "inf" if not math.isfinite(x) else f"{100 * x:.1f} %"


def slipped(est, limit=SLIP):
    """Whether the cell is surely more than ``limit`` slower (its interval
    excludes ``1 + limit``): what the rule forbids."""
    return est.low > 1.0 + limit
