"""study.budget_curve: the drawn-order winner at a share of the budget
and the protocol's winner there on a made-up record whose answers are
known by hand, the expected best of k draws against brute force and a
Monte-Carlo, the full budget's winner against every stored record's
best, the configs of a share's winners on digits, and the command's
output, figure and refusals."""
import itertools
import math
import random
import re

import pytest
import yaml

from study import budget_curve as bc
from study.sensitivity import sources, tasks, winner
from tools.tune.report import solver_string

INF = math.inf
# (number, state, criterion, charged epochs, excluded); budget 100
TRIALS = [
    (0, "complete", 5.0, 10, None),    # work 10
    (1, "pruned", None, 4, None),      # 14
    (2, "complete", 3.0, 10, None),    # 24
    (3, "pruned", None, 6, "diverged on split 0 at 6 epochs"),  # 30
    (4, "complete", 4.0, 10, None),    # 40
    (5, "complete", 2.0, 10, None),    # 50
    (6, "pruned", None, 2, None),      # 52
    (7, "complete", 2.0, 10, None),    # 62: ties 5, drawn later
    (8, "complete", 1.5, 10, None),    # 72
    (9, "pruned", None, 8, None),      # 80
    (10, "complete", 1.0, 10, None),   # 90
]


def _row(number, state, criterion, charged, excluded, ranked=True):
    return dict(number=number, state=state, criterion=criterion,
                charged_epochs=charged, excluded=excluded, ranked=ranked,
                parameters={"step_size": 0.1 * (number + 1)},
                first=number == 0)


def _record():
    rows = [_row(*t) for t in TRIALS]
    # a trial beyond the budget, not ranked: never read
    rows.append(_row(11, "complete", 0.5, 10, None, ranked=False))
    random.Random(0).shuffle(rows)  # the order is the trials' numbers
    return {"budget": {"kind": "work", "epochs": 10.0, "splits": 1,
                       "evals": 5, "epochs_per_solver": 100.0},
            "criterion": "made up", "dataset": "made",
            "solvers": {"A": {"all_trials": rows, "best": {
                "trial": 10, "criterion": 1.0,
                "parameters": {"step_size": 1.1}}}}}


def _confirmation(tried, candidates=40):
    """A confirmation of solver A: ``tried`` [(trial, diverged)], the
    first that did not diverge confirmed."""
    record = _record()
    rows = {r["number"]: r for r in record["solvers"]["A"]["all_trials"]}
    entry = {"tried": [dict(trial=t, diverged=d) for t, d in tried]}
    for rank, (t, d) in enumerate(tried, 1):
        if d is None:
            entry.update(rank=rank, outcome="confirmed", confirmed=dict(
                trial=t, rank=rank, criterion=rows[t]["criterion"],
                parameters=rows[t]["parameters"]))
            break
    return {"candidates": candidates, "seed": 4, "splits": 10,
            "epochs": 15.0, "solvers": {"A": entry}}


@pytest.mark.parametrize("share, number, criterion, trials", [
    (0.05, None, INF, 0), (0.1, 0, 5.0, 1), (0.2, 0, 5.0, 2),
    (0.25, 2, 3.0, 3), (0.45, 2, 3.0, 5), (0.5, 5, 2.0, 6),
    (0.6, 5, 2.0, 7), (0.65, 5, 2.0, 8), (0.75, 8, 1.5, 9),
    (0.85, 8, 1.5, 10), (0.9, 10, 1.0, 11), (1.0, 10, 1.0, 11)])
def test_the_winner_at_a_share_is_the_best_of_the_trials_drawn_within(
        share, number, criterion, trials):
    at = bc.winner_at(_record(), "A", share)
    assert (None if at.row is None else at.row["number"]) == number
    assert at.criterion == criterion
    assert at.trials == trials
    assert at.share == share


def test_the_drawn_order_and_the_share_a_trial_was_drawn_at():
    record = _record()
    points = bc.drawn(record, "A")
    assert [p[0] for p in points] == [10, 14, 24, 30, 40, 50, 52, 62, 72,
                                      80, 90]
    assert [p[2] and p[2]["number"] for p in points] == [
        0, 0, 2, 2, 2, 5, 5, 5, 8, 8, 10]
    assert bc.drawn_share(record, "A", 8) == pytest.approx(0.72)
    assert bc.drawn_share(record, "A", 11) is None  # not ranked
    # the curve on the grid: 33 shares from 1/16 to 1, never rising
    assert len(bc.GRID) == 33 and bc.GRID[0] == 1 / 16 and bc.GRID[-1] == 1
    values = [at.criterion for at in bc.curve(record, "A")]
    assert values[0] == INF and values[-1] == 1.0
    assert all(a >= b for a, b in zip(values, values[1:]))


def test_a_record_without_a_work_budget_is_refused():
    record = _record()
    record["budget"] = {"kind": "trials", "trials": 10, "epochs": 10.0}
    with pytest.raises(ValueError, match="work budget"):
        bc.winner_at(record, "A", 0.5)


def test_the_protocols_winner_skips_the_trials_seen_to_diverge_held_out():
    record = _record()
    # the best (10) diverged held out, 8 confirmed: the used winner
    conf = _confirmation([(10, "diverged on split 3"), (8, None)])
    used, note = winner(record, "A", conf)
    assert used["number"] == 8 and "rank 2" in note
    full = bc.run_at(record, "A", conf, 1.0)
    assert (full.row["number"], full.status, full.rank) == (8, "confirmed",
                                                            2)
    # at 1/2 (trials 0..5): 5 is the best and was never run held out
    half = bc.run_at(record, "A", conf, 0.5)
    assert (half.row["number"], half.status, half.rank) == (5, "unchecked",
                                                            1)
    # had 5 diverged held out, the next by criterion: 2
    conf5 = _confirmation([(10, "d"), (5, "d"), (8, None)])
    half = bc.run_at(record, "A", conf5, 0.5)
    assert (half.row["number"], half.status, half.rank) == (2, "unchecked",
                                                            2)
    assert bc.run_at(record, "A", conf5, 0.25).row["number"] == 2
    # every candidate diverged (one candidate tried): the tuning's kept
    kept = bc.run_at(record, "A", _confirmation([(5, "d")], 1), 0.5)
    assert (kept.row["number"], kept.status) == (5, "kept")
    # no confirmation: the tuning's winner; no complete trial: none
    assert bc.run_at(record, "A", None, 0.75).row["number"] == 8
    assert bc.run_at(record, "A", None, 0.75).status == "tuning"
    assert bc.run_at(record, "A", conf, 0.05).row is None


def test_a_solvers_reading_counts_its_trials_and_reads_its_shares():
    record = _record()
    conf = _confirmation([(10, "diverged"), (8, None)])
    s = bc.solver_reading(record, "A", conf)
    assert s["counts"] == dict(complete=7, pruned=3, diverged=1)
    assert s["trials"] == 11
    assert {w: at.row["number"] for w, at in s["at"].items()} == {
        0.25: 2, 0.5: 5, 1.0: 10}
    assert s["used"]["number"] == 8 and s["used_share"] == 0.72
    assert {w: e[0] for w, e in s["expected"].items()} == {
        0.25: 3, 0.5: 6, 1.0: 11}  # k = 2.75, 5.5, 11 rounded


def _brute(values, k):
    """The expected lowest of k draws given a finite one, and the chance
    of none, over all len(values)^k draws."""
    finite, none = [], 0
    for draw in itertools.product(values, repeat=k):
        low = min(draw)
        if math.isfinite(low):
            finite.append(low)
        else:
            none += 1
    n = len(values) ** k
    return sum(finite) / len(finite), none / n


@pytest.mark.parametrize("values", [
    [3.0, 1.0, 4.0, 2.0], [3.0, 1.0, INF, 2.0], [INF, 7.0, INF, 2.0],
    [2.0, 2.0, 5.0, 1.0]])
def test_the_expected_minimum_equals_brute_force(values):
    for k in (1, 2, 3):
        got, p_none = bc.expected_min(values, k)
        want, want_none = _brute(values, k)
        assert got == pytest.approx(want, rel=1e-12)
        assert p_none == pytest.approx(want_none, rel=1e-12)


def test_the_expected_minimum_of_4_values_and_3_draws_by_hand():
    # min of 3 draws of 1..4: P(min >= i) = ((5 - i)/4)^3
    got, p_none = bc.expected_min([4.0, 2.0, 1.0, 3.0], 3)
    assert got == pytest.approx(sum(((5 - i) / 4) ** 3
                                    for i in range(1, 5)))  # 100/64
    assert got == pytest.approx(100 / 64) and p_none == 0.0
    # with one inf: none in 1/64 of the draws
    got, p_none = bc.expected_min([INF, 2.0, 1.0, 3.0], 3)
    assert p_none == pytest.approx(1 / 64)
    assert got == pytest.approx((1 * 37 + 2 * 19 + 3 * 7) / 63)


def test_the_expected_minimum_agrees_with_a_monte_carlo():
    rng = random.Random(3)
    values = [rng.uniform(1, 2) for _ in range(12)] + [INF] * 5
    k, runs = 4, 200_000
    found = []
    for _ in range(runs):
        low = min(rng.choice(values) for _ in range(k))
        if math.isfinite(low):
            found.append(low)
    got, p_none = bc.expected_min(values, k)
    mean = sum(found) / len(found)
    sd = math.sqrt(sum((x - mean) ** 2 for x in found) / len(found))
    assert abs(got - mean) < 4 * sd / math.sqrt(len(found))
    assert p_none == pytest.approx((5 / 17) ** 4)
    assert (runs - len(found)) / runs == pytest.approx(p_none, abs=0.002)


def test_the_expected_minimum_at_its_limits():
    values = [3.0, 1.0, INF, 2.0, INF, 6.0]
    # one draw: the mean of the finite values (given a finite one)
    assert bc.expected_min(values, 1) == (pytest.approx(3.0),
                                          pytest.approx(2 / 6))
    assert bc.expected_min([3.0, 1.0, 2.0], 1)[0] == pytest.approx(2.0)
    # many draws: the lowest
    assert bc.expected_min(values, 5000)[0] == pytest.approx(1.0)
    assert bc.expected_min(values, 5000)[1] < 1e-300
    # more draws never worse
    e = [bc.expected_min(values, k)[0] for k in range(1, 30)]
    assert all(a >= b for a, b in zip(e, e[1:]))
    # nothing finite: inf, surely none
    assert bc.expected_min([INF, None], 3) == (INF, 1.0)
    for bad in (0, 1.5, -2):
        with pytest.raises(ValueError, match="k must be"):
            bc.expected_min(values, bad)
    with pytest.raises(ValueError, match="nan"):
        bc.expected_min([1.0, math.nan], 2)


def test_the_gain_lost_is_clipped_to_0_1():
    assert bc.gain_lost(1.5, 1.0, 3.0) == (0.25, False)
    assert bc.gain_lost(4.0, 1.0, 3.0) == (1.0, True)
    assert bc.gain_lost(INF, 1.0, 3.0) == (1.0, True)
    with pytest.raises(ValueError, match="no gain"):
        bc.gain_lost(1.0, 3.0, 3.0)


def _stored():
    for task in tasks():
        for record_path, confirm_path in sources(task):
            yield task, bc._read(record_path), bc._confirmation(confirm_path)


def test_the_full_budgets_winner_is_every_stored_records_best():
    count = 0
    for task, record, confirmation in _stored():
        for solver, body in record["solvers"].items():
            at = bc.winner_at(record, solver, 1.0)
            assert at.row["number"] == body["best"]["trial"], (task, solver)
            assert at.criterion == body["best"]["criterion"]
            assert at.trials == len(bc.ranked_rows(record, solver))
            # the protocol at the full budget: the used (confirmed) winner
            used, _ = winner(record, solver, confirmation)
            assert bc.run_at(record, solver, confirmation, 1.0).row[
                "number"] == used["number"], (task, solver)
            # and E best of N at least the lowest, falling with k
            s = bc.solver_reading(record, solver, confirmation)
            e = [s["expected"][w][1] for w in (0.25, 0.5, 1.0)]
            assert e[0] >= e[1] >= e[2] >= at.criterion
            count += 1
    assert count == 90  # 6 tasks x 15 solvers


def test_the_tables_of_digits():
    found = bc.reading("digits")
    text = bc.table("digits", found=found)
    rows = {ln.split(" | ")[0][2:]: ln for ln in text.splitlines()
            if ln.startswith("| ") and not ln.startswith("| solver")}
    assert len(rows) == 15
    # TTSA's winner (93) was drawn within a quarter: the same throughout
    assert rows["TTSA"] == ("| TTSA | 93 (1.181) | 93 (1.181) | 93 (1.181) "
                            "| 93, 0.24 | used | used |")
    # SPABA's winner is its first trial, drawn at 60 of 10 800 epochs
    assert "| 0, 0.0056 |" in rows["SPABA"]
    assert rows["MRBO"].startswith("| MRBO | 91 (1.302) ≠ 0.77 % | "
                                   "109 (1.299) | 109 (1.299) |")
    assert "at 1/4 13 of 15" in text and "at 1/2 12 of 15" in text
    expected = bc.expected_table("digits", found=found)
    assert "| TTSA | 494 (95 / 379 / 20) |" in expected
    assert "1.1812 (k=494) | 1.1812 |" in expected


def _lines(text):
    return {m[1].split("[")[0]: m[0] for m in
            re.finditer(r'^  - "(.*?)".*$', text, re.M)}


def test_the_config_of_the_quarters_winners_on_digits(tmp_path, capsys):
    out = tmp_path / "quarter.yml"
    assert bc.main(["digits", "--write-config", "0.25", str(out)]) == 0
    printed = capsys.readouterr().out
    stored_path = bc.stored_config("digits")
    stored, written = stored_path.read_text(), out.read_text()
    config = yaml.safe_load(written)
    assert config["dataset"] == yaml.safe_load(stored)["dataset"]
    assert config["objective"] == yaml.safe_load(stored)["objective"]
    assert len(config["solver"]) == 15
    old, new = _lines(stored), _lines(written)
    changed = [s for s in old if old[s] != new[s]]
    assert set(changed) == {
        "SFFBA", "MSEBA", "MA-SABA", "SRMBA", "SOBA", "MA-SOBA", "SABA",
        "SRBA", "StocBiO", "AmIGO", "SUSTAIN", "MRBO", "F2SA"}
    assert f"changed: {', '.join(changed)}" in printed
    for record_path, confirm_path in sources("digits"):
        record = bc._read(record_path)
        confirmation = bc._confirmation(confirm_path)
        for solver in record["solvers"]:
            run = bc.run_at(record, solver, confirmation, 0.25)
            at = bc.winner_at(record, solver, 0.25)
            # no winner on digits diverged held out: the quarter's winner
            assert run.row["number"] == at.row["number"]
            assert f'"{solver_string(solver, at.row["parameters"])}"' in \
                new[solver]
    assert new["MRBO"].startswith(
        '  - "MRBO[step_size=0.323,outer_ratio=10.8,z_ratio=5.94e-05,'
        'eta=0.988,n_shia_steps=2]"  # criterion 1.30224; not run on')
    # every line not changed, and every other line, byte for byte
    kept = [ln for ln in stored.splitlines() if not any(
        ln.startswith(f'  - "{s}[') for s in changed)]
    assert [ln for ln in written.splitlines() if ln in kept] == kept
    # at the full budget nothing changes: the stored config, a note on top
    text, none = bc.config_at("digits", 1.0)
    assert none == [] and text.endswith(stored) and text != stored


@pytest.mark.parametrize("target", [
    "study/configs/tuned_digits.yml", "study/data/tune_digits.json.xz",
    "study/data/confirm_digits.json", "study/study.yml",
    "study/data/added/F2SA/tune_digits.json.xz"])
def test_the_config_refuses_to_overwrite_an_input(target, capsys):
    before = (bc.ROOT / target).read_bytes()
    with pytest.raises(SystemExit) as err:
        bc.main(["digits", "--write-config", "0.25", str(bc.ROOT / target)])
    assert err.value.code == 2
    assert "--write-config" in capsys.readouterr().err
    assert (bc.ROOT / target).read_bytes() == before


def test_the_command_reads_every_task_and_draws_a_small_png(tmp_path,
                                                            capsys):
    assert bc.main([]) == 0
    out = capsys.readouterr().out
    for task in tasks():
        assert f"### {task} (" in out
    assert out.count("Winners that change") == 6
    assert out.count("E best of k") == 6
    figure = tmp_path / "digits.png"
    assert bc.main(["digits", "--shares", "1/4,0.5", "--figure",
                    str(figure)]) == 0
    again = capsys.readouterr().out
    # deterministic: digits' part the same
    assert again.split("\n\nfigure written")[0] in out
    data = figure.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) < 120_000


@pytest.mark.parametrize("argv, message", [
    (["mnist"], "unknown task mnist; the tasks are fashion, digits"),
    (["digits", "--shares", "0"], "--shares must be shares"),
    (["digits", "--shares", "0.25,1.5"], "--shares must be shares"),
    (["digits", "--shares", "half"], "--shares must be shares"),
    (["digits", "--write-config", "0", "x.yml"], "--write-config SHARE"),
    (["digits", "--write-config", "1.01", "x.yml"], "--write-config SHARE"),
    (["--write-config", "0.25", "x.yml"], "--write-config reads one task"),
    (["digits", "wine", "--figure", "x.png"], "--figure reads one task"),
    (["--figure", "x.png"], "--figure reads one task"),
    (["digits", "--figure", "x.svg"], "--figure x.svg: the figure is a PNG"),
    (["digits", "--figure", "same.png", "--write-config", "0.5",
      "same.png"], "--write-config same.png is also --figure"),
])
def test_bad_arguments_are_refused_with_the_option_named(argv, message,
                                                         capsys):
    with pytest.raises(SystemExit) as err:
        bc.main(argv)
    assert err.value.code == 2
    assert message in capsys.readouterr().err
