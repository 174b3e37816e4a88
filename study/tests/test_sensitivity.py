"""study.sensitivity: the envelope, the width of the region within x % of
the winner on made-up criteria whose answer is known, the reading of a
record's trials and winner, the table and figure of a stored task
(digits, the smallest), and the command's refusals."""
import math
import os

import pytest

from study import sensitivity as sens

# |log10 theta - 2| within 5 % of the gain of 1 + (.)^2 over a start at 2
BOWL = math.sqrt(0.05)


def _bowl(step=0.01, low=0.0, high=4.0):
    """theta on a grid of log10 theta, criterion 1 + (log10 theta - 2)^2."""
    n = round((high - low) / step)
    x = [low + i * step for i in range(n + 1)]
    return [10.0 ** v for v in x], [1 + (v - 2) ** 2 for v in x]


def test_the_envelope_keeps_the_lowest_criterion_of_each_bin():
    theta = [1.0, 1.5, 2.0, 10.0, 12.0, 1000.0, 0.5]
    crit = [3.0, 2.0, 5.0, 4.0, 1.0, 7.0, 6.0]
    bins = sens.envelope(theta, crit, 0.25)
    # log10: 0, .18 | .30 | 1, 1.08 | 3 | -.30 (bin -2: [-0.5, -0.25))
    assert [(round(math.log10(b.low), 6), b.best, b.n, b.at)
            for b in bins] == [(-0.5, 6.0, 1, 0.5), (0.0, 2.0, 2, 1.5),
                               (0.25, 5.0, 1, 2.0), (1.0, 1.0, 2, 12.0),
                               (3.0, 7.0, 1, 1000.0)]
    assert bins[1].high == pytest.approx(10 ** 0.25)
    # one bin of a decade holds 1, 1.5, 2 and 0.5's is below
    wide = sens.envelope(theta, crit, 1.0)
    assert [(b.best, b.n) for b in wide] == [
        (6.0, 1), (2.0, 3), (1.0, 2), (7.0, 1)]


def test_a_linear_envelope_bins_in_the_parameters_units():
    bins = sens.envelope([0.1, 0.2, 0.6, 0.65, 0.9], [4, 3, 2, 5, 1], 0.5,
                         log=False)
    assert [(b.low, b.high, b.best, b.n, b.at) for b in bins] == [
        (0.0, 0.5, 3, 2, 0.2), (0.5, 1.0, 1, 3, 0.9)]
    with pytest.raises(ValueError, match="bin_width"):
        sens.envelope([1.0], [1.0], 0)


@pytest.mark.parametrize("step", [0.01, 0.05])
def test_the_width_of_a_quadratic_bowl_is_two_root_005_decades(step):
    theta, crit = _bowl(step)
    plain = sens.width_within(theta, crit, 1.0, 1.05)
    assert plain.width == pytest.approx(2 * BOWL, abs=2 * step)
    assert plain.width <= 2 * BOWL + 1e-9
    assert plain.n == 2 * math.floor(BOWL / step + 1e-9) + 1
    assert plain.low == pytest.approx(10 ** (2 - BOWL), rel=0.15)
    region = sens.region(theta, crit, 100.0, 1.0, 1.05)
    assert (region.width, region.n) == (plain.width, plain.n)
    # 10 % is 2 root 0.1 decades
    wider = sens.region(theta, crit, 100.0, 1.0, 1.10)
    assert wider.width == pytest.approx(2 * math.sqrt(0.1), abs=2 * step)


def test_a_lone_good_trial_far_away_stretches_the_plain_span_only():
    theta, crit = _bowl(0.05)
    theta, crit = theta + [1e7], crit + [1.0]
    assert sens.width_within(theta, crit, 1.0, 1.05).width == pytest.approx(
        7 - (2 - 0.2), abs=0.06)
    assert sens.region(theta, crit, 100.0, 1.0, 1.05).width == pytest.approx(
        0.4, abs=1e-9)


def test_the_region_crosses_two_empty_bins_not_three():
    # good trials at log10 theta 0, then one past a gap of 2 or 3 bins
    for gap, joined in ((2, True), (3, False)):
        far = 0.25 * (gap + 1) + 0.1
        theta = [1.0, 10 ** 0.1, 10 ** far]
        region = sens.region(theta, [1.0, 1.01, 1.02], 1.0, 1.0, 1.05)
        assert region.n == (3 if joined else 2)
        assert region.width == pytest.approx(far if joined else 0.1)
    # a bin above the limit ends it, however good the bins beyond
    region = sens.region([1.0, 2.0, 4.0], [1.0, 1.2, 1.0], 1.0, 1.0,
                         1.05)
    assert (region.width, region.n) == (0.0, 1)


def test_the_limit_is_a_share_of_the_gain_over_the_start():
    assert sens.limit_of(1.0, 0.05, 2.0) == pytest.approx(1.05)
    assert sens.limit_of(1.16, 0.1, 1.66) == pytest.approx(1.21)
    with pytest.raises(ValueError, match="no gain"):
        sens.limit_of(1.0, 0.05, 1.0)


def test_a_tasks_start_is_the_mean_first_h_of_its_comparisons():
    import pandas as pd
    df = pd.read_parquet(os.path.join(
        sens.ROOT, "study", "data", "study_digits.parquet"))
    first = df[df["objective_epochs"] == 0].groupby(
        ["base_seed", "idx_rep"])["objective_value"]
    # every solver of an instance starts from the same H
    assert (first.nunique() == 1).all()
    mean = first.first().mean()
    assert sens.start("digits") == pytest.approx(mean, rel=1e-12)


def test_a_linear_parameters_width_is_in_its_units():
    theta = [i / 1000 for i in range(1001)]
    crit = [1 + 20 * (t - 0.5) ** 2 for t in theta]
    # within 5 %: |theta - 0.5| <= root(0.05 / 20) = 0.05
    plain = sens.width_within(theta, crit, 1.0, 1.05, log=False)
    assert plain.width == pytest.approx(0.1, abs=0.002)
    region = sens.region(theta, crit, 0.5, 1.0, 1.05, 1 / 24, log=False)
    assert region.width == pytest.approx(0.1, abs=0.002)
    assert sens.span([0.2, 0.9, 0.5], log=False) == pytest.approx(0.7)
    assert sens.span([0.01, 100.0]) == pytest.approx(4.0)


@pytest.mark.parametrize("crit, best", [([1.0, 0.0], 1.0),
                                        ([1.0, -2.0], 1.0),
                                        ([1.0, 2.0], -1.0),
                                        ([1.0, math.nan], 1.0)])
def test_a_criterion_that_is_no_positive_loss_is_refused(crit, best):
    with pytest.raises(ValueError, match="positive loss"):
        sens.width_within([1.0, 2.0], crit, best, 1.05)
    with pytest.raises(ValueError, match="positive loss"):
        sens.region([1.0, 2.0], crit, 1.0, best, 1.05)


def _record():
    space = {"step_size": {"low": 1e-3, "high": 1e3, "integer": False},
             "p": {"low": 0.0, "high": 1.0, "integer": False}}

    def row(number, state, criterion=None, step=1.0, p=0.5,
            excluded=None):
        return dict(number=number, state=state, criterion=criterion,
                    parameters={"step_size": step, "p": p}, ranked=True,
                    excluded=excluded)
    trials = [row(0, "complete", 2.0, 3.0), row(1, "complete", 1.0, 10.0),
              row(2, "pruned"), row(3, "pruned", step=1e3),
              row(4, "pruned", step=1e-3, excluded="diverged at 2 epochs"),
              row(5, "fail"), row(6, "complete", 3.0, 100.0),
              {**row(7, "complete", 0.5, 0.1), "ranked": False}]
    return {"solvers": {"A": dict(space=space, fixed={}, all_trials=trials,
                                  best={"trial": 1, "criterion": 1.0})}}


def test_trials_are_read_by_state_and_ranked_only():
    found = sens.trials(_record(), "A")
    assert {k: [r["number"] for r in v] for k, v in found.items()} == {
        "complete": [0, 1, 6], "pruned": [2, 3], "diverged": [4],
        "other": [5]}


def test_the_winner_is_the_confirmed_trial():
    record = _record()
    assert sens.winner(record, "A") == (record["solvers"]["A"]
                                        ["all_trials"][1], None)
    confirmation = {"solvers": {"A": {"confirmed": {
        "trial": 0, "rank": 2, "parameters": {"step_size": 3.0,
                                              "p": 0.5}}}}}
    row, note = sens.winner(record, "A", confirmation)
    assert row["number"] == 0 and "rank 2 confirmed" in note
    assert "trial 1" in note
    confirmation["solvers"]["A"]["confirmed"]["parameters"]["p"] = 0.4
    with pytest.raises(ValueError, match="other parameters"):
        sens.winner(record, "A", confirmation)
    kept = {"solvers": {"A": {"confirmed": None, "tried": [{}]}}}
    row, note = sens.winner(record, "A", kept)
    assert row["number"] == 1 and "none confirmed" in note


def test_a_solvers_reading_on_a_made_up_record():
    out = sens.solver_sensitivity(_record(), "A", h0=2.0)
    step, p = out["parameters"]["step_size"], out["parameters"]["p"]
    assert out["counts"] == {"complete": 3, "pruned": 2, "diverged": 1,
                             "other": 1}
    assert step["log"] and not p["log"]
    # searched over every trial with parameters: 1e-3 to 1e3
    assert step["searched"] == pytest.approx(6.0)
    assert step["space"] == pytest.approx(6.0)
    assert step["diverged"] == [1e-3]
    # within 5 % of the gain 2 - 1: up to 1.05, trial 1 alone
    assert (step["width"], step["n"], step["at"]) == (0.0, 1, 10.0)
    # the loss of trial 0 is 2: within 100 % of the gain, trials 0 and 1
    # (two empty
    # bins between them)
    wide = sens.solver_sensitivity(_record(), "A", h0=2.0, within=1.0)
    assert wide["parameters"]["step_size"]["width"] == pytest.approx(
        math.log10(10 / 3))
    assert wide["parameters"]["step_size"]["n"] == 2


@pytest.fixture(scope="module")
def digits():
    return sens.sensitivity("digits")


def test_every_digits_solver_gets_a_row_and_widths_within_its_span(digits):
    record = sens._read(sens.ROOT / sens.tasks()["digits"][0])
    added = sorted(p.parent.name
                   for p in sens.ADDED.glob("*/tune_digits.json.xz"))
    solvers = [s["solver"] for s in digits]
    assert solvers == list(record["solvers"]) + added
    text = sens.table("digits")
    rows = [line for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| solver")]
    assert [r.split(" | ")[0][2:] for r in rows] == solvers
    for s in digits:
        best = s["winner"]["criterion"]
        assert s["parameters"], s["solver"]
        for name, p in s["parameters"].items():
            assert 0 <= p["width"] <= p["searched"] + 1e-12, (s, name)
            assert p["plain"].width >= p["width"] - 1e-12
            assert p["n"] >= 1
            assert p["low"] <= p["at"] <= p["high"], (s["solver"], name)
            assert min(b.best for b in p["envelope"]) <= best
            assert s["winner"]["parameters"][name] == p["at"]
    assert "Read from" in text and "complete trials" in text


def test_the_figure_is_a_small_png(tmp_path):
    path = tmp_path / "sub" / "digits.png"
    sens.figure("digits", path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) < 100_000


def test_the_command_prints_every_task_asked(capsys):
    assert sens.main(["digits", "wine"]) == 0
    out = capsys.readouterr().out
    assert "### digits" in out and "### wine" in out
    assert "### fashion" not in out
    assert out.count("\nWidth: ") == 2
    assert sens.main(["digits", "--plain", "--within", "0.1",
                      "--near", "10"]) == 0
    again = capsys.readouterr().out
    assert "within 10%" in again and "factor 10" in again


@pytest.mark.parametrize("argv, words", [
    (["nope"], ["unknown task nope", "digits", "fashion_l2"]),
    (["--within", "1.5"], ["--within", "(0, 1)"]),
    (["--within", "0"], ["--within"]),
    (["--within", "x"], ["--within"]),
    (["--near", "0.5"], ["--near"]),
    (["--figure", "f.png"], ["--figure", "exactly one TASK", "got 0"]),
    (["digits", "wine", "--figure", "f.png"], ["--figure", "got 2"]),
    (["digits", "--figure", "f.pdf"], ["--figure", "PNG"]),
])
def test_bad_arguments_are_refused_naming_the_option(argv, words, capsys,
                                                     tmp_path):
    argv = [str(tmp_path / a) if a.startswith("f.") else a for a in argv]
    with pytest.raises(SystemExit) as stop:
        sens.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err
    assert not any(p.name.startswith("f.") for p in tmp_path.iterdir())


def test_an_input_is_never_overwritten(capsys):
    record = str(sens.ROOT / sens.tasks()["digits"][0])
    before = os.stat(record).st_mtime_ns
    with pytest.raises(SystemExit) as stop:
        sens.main(["digits", "--figure", record])
    assert stop.value.code == 2
    assert "--figure" in capsys.readouterr().err
    assert os.stat(record).st_mtime_ns == before
