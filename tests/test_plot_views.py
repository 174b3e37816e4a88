"""The benchmark's plot kinds (plots/, benchmark_utils/plot_views.py): no
mismatched x/y on NaN metrics, quantile bands, metric-named labels, views
on metrics a dataset lacks, and `benchopt plot --no-html` on a real run
(one PDF per plot, full and distinct names)."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from benchmark_utils import plot_views as pv

ROOT = Path(__file__).resolve().parents[1]
SIM = "Simulated[n=10,z_star_norm=0.5]"
SIM2 = "Simulated[n=10,z_star_norm=0.7]"
DIG = "digits[l2_reg=0.2]"
OBJ = "Bilevel Optimization"


class _Plot:
    """The part of benchopt.BasePlot that pv.curves uses."""

    def get_style(self, label):
        return {"color": (0, 0, 0, 1), "marker": 0}


def _results():
    """Two Simulated datasets and digits; SABA converges (repetition 2 stops
    early), SPABA's repetition 1 diverges at its second evaluation."""
    rows = []
    for data in (SIM, SIM2, DIG):
        sim = data.startswith("Simulated")
        for solver in ("SABA[step_size=0.1]", "SPABA[step_size=30]"):
            for rep in range(3):
                stops = np.arange(3 if rep == 2 else 5)
                g = 10.0 ** -(2.0 * stops + rep)
                div = np.zeros(len(stops), int)
                if solver.startswith("SPABA") and rep == 1:
                    g[1:] = np.inf
                    div[1] = 1
                    stops = stops[:2]
                    g, div = g[:2], div[:2]
                sub = np.where(np.isfinite(g), g / 2, np.nan)
                rows.append(pd.DataFrame(dict(
                    dataset_name=data, objective_name=OBJ,
                    solver_name=solver, idx_rep=rep, stop_val=stops,
                    time=(stops + 1) * 10.0 ** stops * 1e-3,
                    objective_grad_norm2=g,
                    objective_suboptimality=sub if sim else np.nan,
                    objective_test_error=np.nan if sim else 0.3,
                    objective_n_samples=stops * 1000,
                    objective_epochs=stops * 2.0,
                    objective_diverged=div)))
    return pd.concat(rows, ignore_index=True)


def test_curves_have_matching_finite_points_and_bands():
    df = _results()
    for metric in ("objective_grad_norm2", "objective_suboptimality"):
        for axis in ("Time", "Epochs", "Samples"):
            traces = pv.curves(_Plot(), df, pv.safe_name(SIM), OBJ,
                               metric, axis)
            assert len(traces) == 2
            for t in traces:
                n = len(t["x"])
                assert n and len(t["y"]) == n
                assert len(t["y_low"]) == len(t["y_high"]) == n
                for k in ("x", "y", "y_low", "y_high"):
                    assert np.isfinite(t[k]).all()
                assert (np.array(t["y_low"]) <= np.array(t["y"])).all()
                assert (np.array(t["y"]) <= np.array(t["y_high"])).all()


def test_median_and_quantiles_over_repetitions():
    df = _results()
    saba, spaba = pv.curves(_Plot(), df, pv.safe_name(SIM), OBJ,
                            "objective_grad_norm2", "Epochs")
    assert saba["label"] == "SABA"
    assert spaba["label"] == "SPABA (diverged)"
    # SABA at evaluation 0: 1, 0.1, 0.01 over the repetitions.
    assert saba["x"][0] == 0.0
    np.testing.assert_allclose(
        [saba["y"][0], saba["y_low"][0], saba["y_high"][0]],
        [0.1, np.quantile([1, .1, .01], .2), np.quantile([1, .1, .01], .8)])
    # Repetition 2 converged after evaluation 2: it keeps its last value.
    np.testing.assert_allclose(saba["y"][4], np.median([1e-8, 1e-9, 1e-6]))
    # SPABA's diverged repetition is missing after it diverged, not held.
    assert len(spaba["x"]) == 5
    np.testing.assert_allclose(spaba["y"][4], np.median([1e-8, 1e-6]))


def test_metric_nan_or_absent_on_a_dataset_gives_no_curve():
    df = _results()
    for data, metric in ((SIM, "objective_test_error"),
                         (DIG, "objective_suboptimality")):
        assert pv.curves(_Plot(), df, pv.safe_name(data), OBJ, metric,
                         "Time") == []
        meta = pv.metadata(df, pv.safe_name(data), OBJ, metric, "Time")
        assert "no finite" in meta["title"]
    assert len(pv.curves(_Plot(), df, pv.safe_name(DIG), OBJ,
                         "objective_test_error", "Time")) == 2
    # A Simulated-only run has no test_error column: the views' metrics
    # are still offered, with no curve.
    sim = df[df.dataset_name == SIM].drop(columns="objective_test_error")
    assert "objective_test_error" in pv.metric_options(sim)
    assert pv.curves(_Plot(), sim, pv.safe_name(SIM), OBJ,
                     "objective_test_error", "Time") == []


def test_labels_and_log_scales():
    df = _results()
    meta = pv.metadata(df, pv.safe_name(SIM), OBJ, "objective_grad_norm2",
                       "Time")
    assert meta["ylabel"] == "‖∇H(x)‖²" and meta["xlabel"] == "Time (s)"
    assert meta["scale"] == "loglog"  # time and values span decades
    meta = pv.metadata(df, pv.safe_name(SIM), OBJ, "objective_grad_norm2",
                       "Epochs")
    assert meta["scale"] == "semilog-y"  # epochs 2..8: one decade
    assert meta["xlabel"].startswith("Epochs")
    assert SIM in meta["title"].replace("\n", "")
    meta = pv.metadata(df, pv.safe_name(DIG), OBJ, "objective_test_error",
                       "Time")
    assert meta["ylabel"] == "test error" and meta["scale"] == "semilog-x"
    options = pv.metric_options(df)
    assert "objective_n_samples" not in options
    assert "objective_diverged" not in options


def test_benchopt_keys_give_full_distinct_file_names():
    """benchopt names a --no-html figure Path(key).with_suffix('.pdf'),
    key = plot name + option values joined by '_'."""
    from benchopt.benchmark import Benchmark
    df = _results()
    keys = []
    ours = yaml.safe_load((ROOT / "config.yml").read_text())["plots"]
    plots = [p for p in Benchmark(str(ROOT)).get_plots()
             if p._get_name() in ours]
    assert len(plots) == len(ours)
    for plot in plots:
        plot._check()
        data, options = plot._get_all_plots(df)
        keys += list(data)
        for d in options["dataset"]:
            assert "." not in d and pv.real_name(d) in (SIM, SIM2, DIG)
    names = [Path(k).with_suffix(".pdf").name for k in keys]
    assert len(set(names)) == len(names)
    assert all(n[:-4] == k for n, k in zip(names, keys))


def test_config_views_use_our_kinds_once():
    config = yaml.safe_load((ROOT / "config.yml").read_text())
    kinds = config["plots"]
    assert len(kinds) == len(set(kinds))
    assert not {"objective_curve", "suboptimality_curve"} & set(kinds)
    for name, view in config["plot_configs"].items():
        assert view["plot_kind"] in kinds, name
        column = view[f"{view['plot_kind']}_objective_column"]
        assert column in pv.VIEW_METRICS, name


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("benchopt") is None,
                    reason="the benchopt command is not installed")
def test_benchopt_plot_no_html_on_a_run_with_a_diverged_solver(tmp_path):
    """A diverging (SPABA, step 30) and a converging solver on Simulated,
    then `benchopt plot --no-html`: exits 0 and writes one PDF per plot
    with full, distinct names.  Runs in a copy of the benchmark (numba's
    cache copied along) so that outputs/ stays untouched."""
    bench = tmp_path / "bench"
    skip = {".git", "outputs", "__cache__", ".pytest_cache", "data"}
    shutil.copytree(ROOT, bench, ignore=lambda d, names: [
        n for n in names if Path(d) == ROOT and n in skip])
    data = "Simulated[n=200,m=300,dim_x=5,dim_y=10]"
    run = subprocess.run(
        ["benchopt", "run", ".", "-d", data, "-s",
         "SPABA[step_size=[0.1,30]]", "-s", "SABA", "-n", "6", "--timeout", "20",
         "--no-plot", "--output", "t"],
        cwd=bench, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    df = pd.read_parquet(bench / "outputs" / "t.parquet")
    assert df["objective_diverged"].max() == 1  # step 30 diverged
    plot = subprocess.run(
        ["benchopt", "plot", ".", "-f", "outputs/t.parquet", "--no-html",
         "--no-display"], cwd=bench, capture_output=True, text=True,
        timeout=600, env={**os.environ, "MPLBACKEND": "Agg"})
    assert plot.returncode == 0, plot.stdout[-2000:] + plot.stderr[-2000:]
    pdfs = sorted(p.name for p in (bench / "outputs").glob("*.pdf"))
    metrics = pv.metric_options(df)
    expected = {f"{kind}_{pv.safe_name(d)}_{pv.safe_name(o)}_{m}_{axis}.pdf"
                for d in df["dataset_name"].unique()
                for o in df["objective_name"].unique() for m in metrics
                for kind, axes in (("metric_vs_time", ["Time"]),
                                   ("metric_vs_samples",
                                    ["Epochs", "Samples"]))
                for axis in axes}
    assert set(pdfs) == expected
    assert all((bench / "outputs" / p).stat().st_size > 1000 for p in pdfs)
    assert any("z_star_norm=0\u20245" in p for p in pdfs)

    # The HTML page: every view of config.yml points to a plot of the page.
    page = subprocess.run(
        ["benchopt", "plot", ".", "-f", "outputs/t.parquet", "--no-display"],
        cwd=bench, capture_output=True, text=True, timeout=600)
    assert page.returncode == 0, page.stdout[-2000:] + page.stderr[-2000:]
    html = (bench / "outputs" / "benchmark_bilevel_t.html").read_text(
        encoding="utf-8")
    plots = json.loads(re.search(r"window\._plots = (\{.*?\});\n",
                                 html).group(1))
    views = yaml.safe_load((ROOT / "config.yml").read_text())["plot_configs"]
    dataset = pv.safe_name(df["dataset_name"].iloc[0])
    objective = pv.safe_name(df["objective_name"].iloc[0])
    for name, view in views.items():
        kind = view["plot_kind"]
        assert f'<option value="{name}">' in html
        axis = view.get(f"{kind}_X_axis", "Time")
        column = view[f"{kind}_objective_column"]
        key = "_".join([kind, dataset, objective, column, axis])
        assert key in plots[kind], name
        curves = plots[kind][key]["data"]
        labels = [c["label"] for c in curves]
        if column in ("objective_test_error",
                      "objective_test_error_iterate"):
            assert curves == []  # Simulated has no test error
        elif column == "objective_value":  # and the lines of x0 and x*
            assert len(curves) == 5 and labels[3:] == [
                "reference: centre of the x0 draw",
                "reference: x* (minimiser of H)"]
            assert curves[4]["y"][0] == df["objective_ref_x_star_value"][0]
        else:
            assert len(curves) == 3, name


def test_own_iterate_view_and_reference_lines():
    df = _results()
    dig = df["dataset_name"] == DIG
    df.loc[dig, "objective_test_error_iterate"] = 0.45
    df.loc[dig, "objective_ref_x0_test_error"] = 0.25
    df.loc[dig, "objective_ref_weights_oracle_test_error"] = 0.125
    df.loc[dig, "objective_ref_weights_oracle_value"] = 0.5
    metrics = pv.metric_options(df)
    assert "objective_test_error_iterate" in metrics
    assert not [m for m in metrics if "_ref_" in m]  # lines, not views
    traces = pv.curves(_Plot(), df, pv.safe_name(DIG), OBJ,
                       "objective_test_error_iterate", "Time")
    solvers = [t for t in traces if not t["label"].startswith("reference")]
    refs = {t["label"]: t for t in traces if t not in solvers}
    assert {t["y"][0] for t in solvers} == {0.45}
    assert sorted(refs) == ["reference: centre of the x0 draw",
                            "reference: oracle weights (clean labels)"]
    line = refs["reference: centre of the x0 draw"]
    xs = [x for t in solvers for x in t["x"]]
    assert line["x"] == [min(xs), max(xs)] and line["y"] == [0.25, 0.25]
    assert pv.metadata(df, pv.safe_name(DIG), OBJ,
                       "objective_test_error_iterate", "Time")["ylabel"] \
        == "test error of the solver's own y"
    # no reference of the metric on Simulated: solver curves only
    traces = pv.curves(_Plot(), df, pv.safe_name(SIM), OBJ,
                       "objective_grad_norm2", "Time")
    assert not [t for t in traces if t["label"].startswith("reference")]
