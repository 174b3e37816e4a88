"""The A/B of two builds (``python -m tools.bench.ab``): its statistics on
synthetic samples (a known ratio recovered, intervals that cover, the
verdict rule), the order of the sides in a round, the options refused,
and (slow) one side's process answering the protocol.  No timing is
asserted."""
import json
import math
import random
import subprocess
import sys

import pytest

import bench_helpers  # noqa: F401 (puts the repository on sys.path)
from tools.bench import ab, ab_stats
from tools.bench.ab_stats import Estimate


def noisy_log_ratios(ratio, n, seed, spread=0.1, outliers=0.1):
    """Per-round log-ratios around log(ratio): Laplace noise of scale
    ``spread`` and a fraction ``outliers`` of rounds hit by another job
    (one side 30-80 % slower)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        x = math.log(ratio) + rng.choice((-1, 1)) * rng.expovariate(
            1 / spread)
        if rng.random() < outliers:
            x += rng.choice((-1, 1)) * math.log(1.3 + 0.5 * rng.random())
        out.append(x)
    return out


def test_paired_log_ratios_and_their_checks():
    assert ab_stats.paired_log_ratios([2.0, 1.0], [1.0, 1.0]) == [
        pytest.approx(math.log(2.0)), 0.0]
    with pytest.raises(ValueError, match="differ in length"):
        ab_stats.paired_log_ratios([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        ab_stats.paired_log_ratios([0.0], [1.0])


def test_median():
    assert ab_stats.median([3, 1, 2]) == 2
    assert ab_stats.median([4, 1, 3, 2]) == 2.5
    with pytest.raises(ValueError, match="empty"):
        ab_stats.median([])


@pytest.mark.parametrize("n, rank", [(5, 0), (6, 1), (10, 2), (20, 6),
                                     (100, 40)])
def test_sign_rank_matches_the_binomial_tables(n, rank):
    """The largest k with 2 P(Bin(n, 1/2) <= k - 1) <= 5 %."""
    assert ab_stats.sign_rank(n) == rank


def test_sign_interval_too_few_values_is_unbounded():
    assert ab_stats.sign_interval([0.1, 0.2, 0.3]) == (-math.inf, math.inf)


@pytest.mark.parametrize("ratio", [0.9, 1.0, 1.1])
def test_known_ratio_is_recovered(ratio):
    """200 rounds at +-10 % per round with 10 % outliers: the estimate is
    within 2 % of the true ratio and its interval covers it."""
    est = ab_stats.estimate(noisy_log_ratios(ratio, 200, seed=1))
    assert est.n == 200
    assert est.ratio == pytest.approx(ratio, rel=0.02)
    assert est.low <= ratio <= est.high
    assert 0.02 < est.width < 0.06
    assert 0.04 < est.spread < 0.12


@pytest.mark.parametrize("method, at_least", [("sign", 0.94),
                                              ("bootstrap", 0.92)])
def test_intervals_cover_the_true_ratio(method, at_least):
    """Over 300 seeded experiments of 40 rounds the 95 % interval covers
    the true ratio (1.05) at least ``at_least`` of the time (the sign
    test's coverage is exact, at least 95 %; the bootstrap's is
    approximate)."""
    ests = [ab_stats.estimate(noisy_log_ratios(1.05, 40, seed=s), method,
                              seed=s) for s in range(300)]
    cover = sum(e.low <= 1.05 <= e.high for e in ests)
    assert cover / 300 >= at_least
    assert cover / 300 < 1.0


def test_bootstrap_is_seeded():
    xs = noisy_log_ratios(1.0, 50, seed=3)
    assert ab_stats.bootstrap_interval(xs, seed=7) == \
        ab_stats.bootstrap_interval(xs, seed=7)


def test_bad_method_and_level_are_named():
    with pytest.raises(ValueError, match="method must be one of"):
        ab_stats.estimate([0.0, 0.1], method="mean")
    with pytest.raises(ValueError, match="level must be"):
        ab_stats.sign_interval([0.0] * 10, level=95)


def est(ratio, low, high):
    return Estimate(ratio=ratio, low=low, high=high, n=100, spread=0.05)


@pytest.mark.parametrize("ratio, low, high, verdict", [
    (1.00, 0.99, 1.01, "same within ±3 %"),
    (1.00, 0.975, 1.025, "same within ±3 %"),
    (1.10, 1.08, 1.12, "slower"),
    (1.10, 1.02, 1.19, "undecided: CI width 16.7 % > 6 %, run more processes"),
    (0.90, 0.88, 0.92, "faster"),
    (1.00, 0.90, 1.10, "undecided: CI width 22.2 % > 6 %, run more processes"),
    (1.03, 1.01, 1.05, "slower"),
    (0.97, 0.95, 0.99, "faster"),
    (1.02, 0.99, 1.045, "undecided: CI 0.990-1.045 crosses the ±3 % edge, "
     "run more processes"),
])
def test_verdict_rule(ratio, low, high, verdict):
    assert ab_stats.verdict(est(ratio, low, high)) == verdict


def test_unbounded_interval_is_undecided():
    e = est(1.0, 0.0, math.inf)
    assert e.width == math.inf
    assert ab_stats.verdict(e).startswith("undecided: CI width inf")


def test_slip_needs_the_interval_beyond_five_percent():
    assert ab_stats.slipped(est(1.10, 1.06, 1.14))
    assert not ab_stats.slipped(est(1.10, 1.04, 1.16))
    assert not ab_stats.slipped(est(0.9, 0.88, 0.92))


def test_rounds_are_palindromes_that_rotate():
    assert ab.palindrome(("old", "new"), 0) == ["old", "new", "new", "old"]
    assert ab.palindrome(("old", "new"), 1) == ["new", "old", "old", "new"]
    three = [ab.palindrome(("old", "new", "aa"), r) for r in range(6)]
    assert all(o[:3] == o[:2:-1] for o in three)
    # every side takes each of the three positions twice in six rounds
    for side in ("old", "new", "aa"):
        assert sorted(o.index(side) for o in three) == [0, 0, 1, 1, 2, 2]


def test_a_set_of_processes_gives_one_log_ratio():
    """Each set's median paired ratio (a round hit by another job does not
    move it); the rounds pair within their set only."""
    new = [[1.1, 2.2, 5.0], [2.4, 1.2, 1.2]]
    old = [[1.0, 2.0, 1.0], [2.0, 1.0, 1.0]]
    assert ab_stats.process_log_ratios(new, old) == [
        pytest.approx(math.log(1.1)), pytest.approx(math.log(1.2))]
    with pytest.raises(ValueError, match="differ in processes"):
        ab_stats.process_log_ratios(new, old[:1])


def test_estimates_of_every_cell():
    times = {"new": [[[1.1, 2.2], [1.1, 1.1], [1.2, 1.2]]],
             "old": [[[1.0, 2.0], [1.0, 1.0], [1.0, 1.0]]],
             "aa": [[[1.1, 2.2], [1.1, 1.1], [1.2, 1.2]]]}
    ests = ab.estimates(times, ab.pairs_of(times), "sign")
    assert ests[("new", "old")][0].ratio == pytest.approx(1.1)
    assert ests[("new", "old")][0].n == 3
    assert ests[("aa", "new")][0].ratio == pytest.approx(1.0)


@pytest.mark.parametrize("argv, message", [
    (["--old", "HEAD", "--shape", "cifar"], "--shape: unknown"),
    (["--old", "HEAD", "--solvers", "SOBA,Adam"], "--solvers: unknown"),
    (["--old", "HEAD", "--rounds", "0"], "--rounds must be"),
    (["--new", "HEAD"], "--old"),
])
def test_bad_options_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit):
        ab.parse_args(argv)
    assert message in capsys.readouterr().err


def test_unknown_commit_is_named():
    from tools.bench.ab_builds import resolve
    from tools.bench.settings import REPO
    with pytest.raises(ValueError, match="names no commit"):
        resolve(REPO, "no-such-revision-here")


@pytest.mark.slow
def test_a_side_answers_the_protocol():
    """One side's process, in this checkout: a tiny quadratic problem,
    prepared, calibrated and timed; its prints stay off the answers."""
    from tools.bench.settings import REPO
    msgs = [dict(op="prepare", cells=[["quadratic", "SOBA"]],
                 dtype="float64", sampling="blocks", batch_size=8,
                 step_size={"quadratic": 1e-3}, dim=4, n=300, warmup=10),
            dict(op="calibrate", cell=0, target=0.01),
            dict(op="time", cell=0, n_iter=7), dict(op="quit")]
    res = subprocess.run(
        [sys.executable, str(ab.WORKER)], cwd=REPO, capture_output=True,
        text=True, input="".join(json.dumps(m) + "\n" for m in msgs),
        timeout=600)
    assert res.returncode == 0, res.stderr
    answers = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(answers) == 3
    assert answers[1]["n_iter"] >= 1
    assert answers[2]["iters"] == 7
    assert answers[2]["wall"] > 0 and answers[2]["cpu"] > 0
    assert answers[2]["samples"] == 7 * 2 * 8  # SOBA: a UL and an LL batch


def ab_json(path, cells, ratio, sets, commit_new="b" * 40):
    """A ``--json`` file of synthetic sets: new = ratio x old, A/A equal."""
    times = {clock: {side: [[[(ratio if side != "old" else 1.0)
                              * (1 + 0.01 * ((g % 3) - 1))] * 3
                             for g in range(sets)] for _ in cells]
                     for side in ("old", "new", "aa")}
             for clock in ab.CLOCKS}
    times["samples"] = {side: [[[64] * 3] * sets for _ in cells]
                        for side in ("old", "new", "aa")}
    path.write_text(json.dumps(dict(
        started="2026-01-01T00:00:00", unit=ab.UNIT, cells=cells,
        n_iter=[10] * len(cells), times=times,
        builds=dict(old=dict(name="o", commit="a" * 40),
                    new=dict(name="n", commit=commit_new)),
        settings=dict(clock="cpu", ci="sign", rounds=3, chunk=0.05))))
    return str(path)


def test_pooled_runs_add_their_sets_cell_by_cell(tmp_path, capsys):
    one = ab_json(tmp_path / "one.json", [["covtype", "SOBA"],
                                          ["mnist", "SOBA"]], 1.1, 5)
    two = ab_json(tmp_path / "two.json", [["covtype", "SOBA"]], 1.1, 6)
    assert ab.main(["--pool", one, two]) == 0
    out = capsys.readouterr().out
    assert "5-11 sets of processes per cell" in out
    covtype = next(line for line in out.splitlines()
                   if line.startswith("covtype SOBA"))
    assert "1.100" in covtype and " 11 " in covtype and "slower" in covtype
    other = ab_json(tmp_path / "other.json", [["covtype", "SOBA"]], 1.0, 6,
                    commit_new="c" * 40)
    with pytest.raises(ValueError, match="other builds"):
        ab.main(["--pool", one, other])
