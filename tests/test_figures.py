"""tools.figures: labels that keep sweep members apart, median and band
over repetitions, one PNG + PDF per dataset (full names) and an offline
page."""
import numpy as np
import pandas as pd

from tools import figures


def test_short_labels_keep_only_varying_parameters():
    names = ["SPABA[p=0.01,step_size=0.1]", "SPABA[p=0.01,step_size=0.05]",
             "SABA[R=inf,step_size=0.1]"]
    labels = figures.short_labels(names)
    assert labels[names[0]] == "SPABA step_size=0.1"
    assert labels[names[1]] == "SPABA step_size=0.05"
    assert labels[names[2]] == "SABA"
    assert figures.parse_name("PnPBO[R=inf,ma=on]") == (
        "PnPBO", {"R": "inf", "ma": "on"})


def test_median_and_band_of_step_curves():
    grid = np.array([0.0, 1.0, 2.0, 3.0])
    curves = [(np.array([0.0, 2.0]), np.array([4.0, 1.0])),
              (np.array([0.0, 1.0, 3.0]), np.array([6.0, 2.0, 0.5])),
              (np.array([0.0, 3.0]), np.array([8.0, 3.0]))]
    med, lo, hi = figures.median_band(curves, grid, 0.0)
    np.testing.assert_allclose(med, [6.0, 4.0, 2.0, 1.75])
    np.testing.assert_allclose(lo, [4.0, 2.0, 1.0, 0.5])
    np.testing.assert_allclose(hi, [8.0, 8.0, 8.0, 3.0])


def _results():
    rows = []
    for data in ("Simulated[n=10]", "digits[l2_reg=0.2,ratio=0.5]"):
        for solver in ("SABA[step_size=0.1]", "SABA[step_size=0.05]"):
            for rep in range(3):
                t = np.array([0.0, 0.01, 0.1, 1.0]) * (1 + rep)
                rows.append(pd.DataFrame(dict(
                    dataset_name=data, solver_name=solver, idx_rep=rep,
                    time=t, objective_grad_norm2=10.0 ** -np.arange(4.0),
                    objective_n_samples=np.arange(4) * 1000,
                    objective_epochs=np.arange(4.0),
                    objective_test_error=[0.5, 0.4, 0.3, 0.3]
                    if data.startswith("digits") else np.nan)))
    return pd.concat(rows)


def test_render_writes_every_dataset_and_an_offline_page(tmp_path):
    path = tmp_path / "run.parquet"
    _results().to_parquet(path)
    pngs = figures.render(path, tmp_path / "figs")
    names = sorted(p.name for p in pngs)
    assert names == ["00_Simulated_n=10.png",
                     "01_digits_l2_reg=0.2_ratio=0.5.png"]
    for png in pngs:
        assert png.stat().st_size > 1000
        assert png.with_name(png.name[:-4] + ".pdf").is_file()
    page = (tmp_path / "figs" / "index.html").read_text()
    assert page.count("data:image/png;base64,") == 2
    assert "http" not in page  # nothing to fetch: opens offline
    fig = figures.dataset_figure(_results().query(
        "dataset_name == 'Simulated[n=10]'"), "Simulated[n=10]")
    axes = [a for a in fig.axes if a.get_visible()]
    # no test error on Simulated: grad_norm2 vs time, samples, epochs
    assert len(axes) == 3
    assert all(a.get_yscale() == "log" for a in axes)


def test_diverged_runs_are_labelled_and_marked_where_they_stop():
    df = _results().query("dataset_name == 'Simulated[n=10]'").copy()
    df["objective_diverged"] = 0
    bad = (df.solver_name == "SABA[step_size=0.1]") & (df.idx_rep == 1)
    last = df[bad].index[-1]
    df.loc[bad & (df.index == last), "objective_diverged"] = 1
    df.loc[bad & (df.index == last), "objective_grad_norm2"] = 1e200
    assert figures.diverged_runs(df) == {"SABA[step_size=0.1]": [1]}
    fig = figures.dataset_figure(df, "Simulated[n=10]")
    labels = fig.legends[0].get_texts()
    assert [t.get_text() for t in labels] == [
        "SABA step_size=0.1 (diverged: 1/3 runs)", "SABA step_size=0.05"]
    for ax in (a for a in fig.axes if a.get_visible()):
        crosses = [ln for ln in ax.get_lines() if ln.get_marker() == "x"]
        assert len(crosses) == 1  # the diverged run's last point before
        assert crosses[0].get_ydata()[0] == 0.01  # its flag (1e200)


def _fig_min2():
    """SABA and BOME[step_size=10] on Simulated[n=200,m=300] (``benchopt
    run`` with ``-n 15 --timeout 10``): BOME's second point is flagged
    with H = 1.7e249."""
    saba = pd.DataFrame(dict(
        time=[4.203e-05, 0.01008, 0.01678, 0.02614, 0.03183, 0.04435,
              0.05506, 0.07192, 0.09277, 0.12],
        objective_n_samples=[0, 16756, 33140, 49524, 65908, 98676, 147828,
                             213364, 311668, 459124],
        objective_value=[2.925, 1.123, 1.029, 1.019, 1.018, 1.018, 1.018,
                         1.018, 1.018, 1.018],
        objective_grad_norm2=[0.4812, 0.02015, 0.001814, 0.0002471,
                              3.879e-05, 1.138e-06, 6.802e-09, 8.083e-12,
                              3.427e-16, 9.569e-23],
        objective_suboptimality=[1.908, 0.1057, 0.01152, 0.001698,
                                 0.0002778, 8.495e-06, 5.19e-08, 6.204e-11,
                                 2.887e-15, -2.22e-16],
        objective_diverged=0, solver_name="SABA[step_size=0.1]"))
    bome = pd.DataFrame(dict(
        time=[4.5e-5, 0.0065], objective_n_samples=[0, 13312],
        objective_value=[2.925, 1.675612e249],
        objective_grad_norm2=[0.481, 3.476517e248],
        objective_suboptimality=[1.91, 1.675612e249],
        objective_diverged=[0, 1], solver_name="BOME[step_size=10]"))
    df = pd.concat([saba, bome], ignore_index=True)
    return df.assign(dataset_name="Simulated[m=300,n=200]", idx_rep=0,
                     objective_epochs=df["objective_n_samples"] / 500)


def test_a_diverged_value_does_not_crash_the_figures(tmp_path):
    path = tmp_path / "fig_min2.parquet"
    _fig_min2().to_parquet(path)
    (png,) = figures.render(path, tmp_path / "figs")  # was OverflowError
    assert png.stat().st_size > 1000
    fig = figures.dataset_figure(_fig_min2(), "Simulated")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "BOME (diverged: 1/1 runs)" in labels
    for ax in (a for a in fig.axes if a.get_visible()):
        ys = np.concatenate([ln.get_ydata() for ln in ax.get_lines()])
        assert np.nanmax(ys) < figures.LIMIT  # 1.7e249 is not drawn
        crosses = [ln for ln in ax.get_lines() if ln.get_marker() == "x"]
        assert len(crosses) == 1 and crosses[0].get_xdata()[0] < 1e-4


def test_own_iterate_panel_and_reference_lines():
    df = _results().query("dataset_name.str.startswith('digits')").copy()
    df["objective_test_error_iterate"] = 0.6
    df["objective_ref_x0_test_error"] = 0.45
    df["objective_ref_val_only_test_error"] = 0.125
    fig = figures.dataset_figure(df, "digits")
    axes = [a for a in fig.axes if a.get_visible()]
    assert [a.get_ylabel() for a in axes[:2]] == [
        "test error", "test error of the solver's own y"]
    for ax in axes[:2]:
        lines = {ln.get_label(): ln for ln in ax.get_lines()}
        x0 = lines["reference: centre of the x0 draw"]
        assert list(x0.get_ydata()) == [0.45, 0.45]
        assert lines["reference: validation-only model"].get_ydata()[0] \
            == 0.125
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels.count("reference: centre of the x0 draw") == 1
    # no reference of the gradient: none on its panels
    assert not [ln for ln in axes[2].get_lines()
                if ln.get_label().startswith("reference")]


def test_study_views_draw_test_error_and_h_against_time_and_samples():
    df = _results().query("dataset_name.str.startswith('digits')").copy()
    df["objective_value"] = 1.0 / (1.0 + df["objective_epochs"])
    fig = figures.dataset_figure(df, "digits", views=figures.STUDY_VIEWS)
    axes = [a for a in fig.axes if a.get_visible()]
    assert [(a.get_ylabel(), a.get_xlabel()) for a in axes] == [
        ("test error", "time (s)"), ("test error", "sample evaluations"),
        ("H(x) (validation loss)", "time (s)"),
        ("H(x) (validation loss)", "sample evaluations")]
