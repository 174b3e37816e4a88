"""study.anytime: the targets, the costs at which a run reaches them, the
ECDF and its area on hand-made numbers; on the stored results, the
single-target ECDF equal to study.verdicts' data profile, and the
command (every solver named, deterministic, bad options refused)."""
import contextlib
import io
import re

import numpy as np
import pandas as pd
import pytest

from study import anytime
from study import verdicts as sv
from study.summary import ROOT
from study.table import load

DIGITS = str(ROOT / "study/data/study_digits.parquet")
WINE = str(ROOT / "study/data/study_wine.parquet")
NOCLIP = str(ROOT / "study/data/study_wine_noclip.parquet")


def _run(values, epochs=None, diverged_at=None):
    epochs = np.arange(len(values), dtype=float) if epochs is None \
        else np.asarray(epochs, float)
    return pd.DataFrame({
        "objective_epochs": epochs,
        "objective_value": np.asarray(values, float),
        "objective_diverged": (epochs == diverged_at)
        if diverged_at is not None else np.zeros(len(values), bool)})


def test_targets_go_from_h0_to_the_lowest_level_log_spaced():
    t = anytime.targets(5.0, 1.0, count=31, lowest=1e-3)
    assert len(t) == 31 and t[0] == 5.0
    assert t[-1] == pytest.approx(1.0 + 4.0 * 1e-3, rel=1e-14)
    levels = (t - 1.0) / 4.0
    np.testing.assert_allclose(levels[1:] / levels[:-1], 10 ** -0.1,
                               rtol=1e-12)
    np.testing.assert_allclose(anytime.levels(4, 1e-3),
                               [1, 0.1, 0.01, 0.001], rtol=1e-14)
    assert anytime.levels(4, 1e-3)[-1] == 1e-3
    with pytest.raises(ValueError):
        anytime.levels(3, 1.0)


def test_hitting_costs_of_hand_made_runs():
    runs = {
        # a known curve, not monotone: 10, 5, 7, 4, 2, 1 at epochs 0..5
        "A": _run([10, 5, 7, 4, 2, 1]),
        # diverges at epoch 3 (flagged there): 2 and 1 do not count
        "B": _run([10, 8, 6, 2, 1], diverged_at=3.0),
        # diverged at its first point: reaches nothing
        "C": _run([10, 9], diverged_at=0.0),
    }
    goals = [10.0, 6.0, 5.0, 4.0, 1.5, 0.5]
    costs = anytime.hitting_costs(runs, goals, budget=2.0)
    inf = np.inf
    # A: 10 at 0; 6 and 5 at epoch 1 (5 exactly); 4 at 3; 1.5 at 5
    np.testing.assert_array_equal(costs.loc["A"],
                                  [0, 0.5, 0.5, 1.5, 2.5, inf])
    np.testing.assert_array_equal(costs.loc["B"],
                                  [0, 1.0, inf, inf, inf, inf])
    np.testing.assert_array_equal(costs.loc["C"], [inf] * 6)


def test_the_searchsorted_hits_are_the_first_points_at_or_below():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        values = rng.normal(size=n).round(1)
        epochs = np.cumsum(rng.uniform(0.1, 1, size=n))
        goals = np.sort(rng.normal(size=7).round(1))[::-1]
        got = anytime._hits(epochs, values, goals)
        want = [epochs[np.flatnonzero(values <= g)[0]]
                if (values <= g).any() else np.inf for g in goals]
        np.testing.assert_array_equal(got, want)


def test_ecdf_and_area_of_a_hand_made_cost_matrix():
    inf = np.inf
    costs = pd.DataFrame({"a": [0, 0.5, 1, inf],
                          "b": [2, 2, inf, inf],
                          "c": [0.1, 4, 0.25, inf]})
    grid = [0.25, 0.5, 1, 2]
    found = anytime.ecdf(costs, grid)
    np.testing.assert_array_equal(found["a"], [0.25, 0.5, 0.75, 0.75])
    np.testing.assert_array_equal(found["b"], [0, 0, 0, 0.5])
    np.testing.assert_array_equal(found["c"], [0.5, 0.5, 0.5, 0.5])
    # over log c from 1/4 to 2 (three doublings): a pair reached at c
    # counts log2(2 / max(c, 1/4)) / 3
    areas = anytime.area(costs, 0.25, 2.0)
    assert areas["a"] == pytest.approx((1 + 2 / 3 + 1 / 3 + 0) / 4)
    assert areas["b"] == 0.0
    assert areas["c"] == pytest.approx((1 + 0 + 1 + 0) / 4)
    # the step function integrated numerically on a fine log grid
    fine = np.geomspace(0.25, 2.0, 200001)
    numeric = anytime.ecdf(costs, fine).iloc[:-1].mean()
    np.testing.assert_allclose(numeric, areas, atol=1e-4)


def test_the_cost_grid_holds_the_read_shares():
    grid = anytime.cost_grid(1.5)
    assert grid[0] == 1 / 64 and grid[-1] == 1.5
    for c in anytime.READ:
        assert c in grid
    np.testing.assert_allclose(grid[1:-1] / grid[:-2], 2 ** (1 / 8))


@pytest.fixture(scope="module")
def digits():
    return load([DIGITS])


def test_one_target_is_the_data_profile_of_study_verdicts(digits):
    tables = anytime.cost_table(digits, taus=[0.1])
    assert list(tables) == ["digits"]
    mine = tables["digits"]
    work = sv.work_to_reach(digits, 0.1)
    data, _ = sv.profiles(work)
    found = anytime.ecdf(mine[list(data.columns)], data.index)
    assert len(mine) == len(work) == 10
    np.testing.assert_array_equal(found.to_numpy(), data.to_numpy())
    # and instance by instance, the same costs
    keyed = mine.droplevel("tau")
    keyed.index = list(keyed.index)
    np.testing.assert_array_equal(
        keyed.loc[list(work.index), list(work.columns)].to_numpy(),
        work.to_numpy())


def test_h0_is_the_runs_common_first_value_not_the_draws_centre(digits):
    first = digits.sort_values("objective_epochs", kind="stable") \
        .groupby(["base_seed", "idx_rep", "solver_name"]).first()
    assert (first["objective_epochs"] == 0).all()
    spread = first.groupby(level=[0, 1])["objective_value"].agg(
        lambda v: v.max() - v.min())
    assert (spread == 0).all()  # every solver starts at one H
    # the stored x0 reference is H at the centre of the draw: another H
    assert (first["objective_value"]
            != first["objective_ref_x0_value"]).any()


def test_the_ablations_variants_are_left_out():
    alone = anytime.cost_table(load([WINE]))
    with_them = anytime.cost_table(load([WINE, NOCLIP]))
    assert not any("[" in s for s in with_them["wine"].columns)
    pd.testing.assert_frame_equal(alone["wine"], with_them["wine"])


@pytest.fixture(scope="module")
def command(tmp_path_factory):
    """The command's output on the stored results, twice (the second
    with a figure), and the figure's path."""
    png = tmp_path_factory.mktemp("anytime") / "anytime.png"
    outputs = []
    for argv in ([], ["--figure", str(png)]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert anytime.main(argv) == 0
        outputs.append(out.getvalue())
    return outputs, png


def test_the_command_names_every_solver_in_every_table(command):
    (text, _), _ = command
    solvers = sorted({sv.label(s) for s in load(
        [str(ROOT / r) for r in anytime.RESULTS])["solver_name"]})
    assert len(solvers) == 15 and not any("[" in s for s in solvers)
    tables = text.split("\n\n**")[1:]
    heads = [t.split("**")[0] for t in tables]
    assert heads == ["Simulated", "breast_cancer", "digits", "mnist",
                     "wine", "Pooled over the tasks"]
    for table in tables:
        rows = [r for r in table.splitlines() if r.startswith("| ")][1:]
        assert sorted(r.split(" | ")[0][2:] for r in rows) == solvers
        areas = [float(r.split(" | ")[1].replace("−", "-")) for r in rows]
        assert areas == sorted(areas, reverse=True)
    found = re.search(r"(\d+) instances, (\d+) \(instance, target\) pairs",
                      text)
    assert int(found.group(2)) == 31 * int(found.group(1)) == 31 * 80


def test_the_command_is_deterministic_and_draws_a_png(command):
    (text, again), png = command
    assert again == text + f"\nfigure written to {png}\n"
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert 10_000 < len(data) <= 150_000


@pytest.mark.parametrize("argv, option", [
    (["--targets", "1"], "--targets"),
    (["--targets", "2.5"], "--targets"),
    (["--targets", "many"], "--targets"),
    (["--lowest", "0"], "--lowest"),
    (["--lowest", "1"], "--lowest"),
    (["--lowest", "nan"], "--lowest"),
    (["--lowest", "-0.5"], "--lowest"),
    (["--figure", "out.svg"], "--figure"),
])
def test_bad_options_are_refused_by_name(argv, option, capsys):
    with pytest.raises(SystemExit) as stop:
        anytime.main([DIGITS] + argv)
    assert stop.value.code != 0
    err = capsys.readouterr().err
    assert option in err
    if option == "--targets":
        assert "integer >= 2" in err
    if option == "--lowest":
        assert "(0, 1)" in err


def test_the_figure_never_replaces_an_input(tmp_path, capsys):
    results = tmp_path / "results.png"
    results.write_bytes(b"not to be replaced")
    with pytest.raises(SystemExit) as stop:
        anytime.main([str(results), "--figure", str(results)])
    assert stop.value.code != 0
    assert "--figure" in capsys.readouterr().err
    assert results.read_bytes() == b"not to be replaced"


def test_targets_options_change_the_pairs(capsys):
    assert anytime.main([DIGITS, "--targets", "4", "--lowest", "0.01"]) == 0
    text = capsys.readouterr().out
    assert "4 targets per instance" in text and "to 0.01" in text
    assert "10 instances, 40 (instance, target) pairs" in text
    assert "(1.5 per decade)" in text
