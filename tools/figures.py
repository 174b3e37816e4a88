"""Figures in the layout of the PnPBO paper's experiments, from a benchopt
results file, as PNG and PDF, plus a self-contained HTML page that opens
offline (benchopt's own page loads plotly from the internet).

    python -m tools.figures outputs/<run>.parquet [--out figures/]
        [--band 0.2] [--points 200] [--views paper|study]

One figure per dataset, one panel per view that the results support:

- test error vs time (logistic tasks): of y*(x) (``objective_test_error``,
  the quality of x) and of the solver's own y
  (``objective_test_error_iterate``, the model a user gets);
- suboptimality H(x) - H(x*) vs time (where it is known: Simulated);
- ‖∇H‖² vs time, vs sample evaluations and vs epochs.

``--views study`` draws instead the test error and H(x) (the validation
loss) against time and against sample evaluations, and the own y's test
error against sample evaluations (the comparisons of docs/study.md).

The reference results the runs carry (``objective_ref_*``: x0, x*, all
weights 1, the oracle weights, the validation-only model, the best single
regularisation value) are drawn as grey horizontal lines, labelled, on the
panels of H and of the test errors.

Each curve is the median over repetitions with a quantile band
(``--band q``: from q to 1 - q), every run's curve held constant between its
evaluations and read on a common grid of the x axis.  Axes are logarithmic
where the values span more than two decades.  Labels are the solver's name
followed by the parameters that differ between that solver's
configurations in the file (``SPABA step_size=0.05``), so sweep members stay
apart without printing every parameter.  A solver with runs flagged
``objective_diverged`` says so in its label (``(diverged: 1/5 runs)``) and
each such run's curve is drawn up to its last point before the flag, marked
with a cross: its curve stops there, it did not level off (the flagged
point's values, up to 1e300, are not drawn).  Values beyond ``LIMIT`` in
magnitude are not drawn either.
"""
import argparse
import base64
import html
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmark_utils.plot_views import (  # noqa: F401 (re-exported)
    REFERENCE_COLORS, parse_name, short_labels, spans_decades)
from benchmark_utils.reference_columns import reference_lines
from tools.arguments import refuse_inputs

# Largest magnitude drawn: past it matplotlib's log axes and layout overflow
# (a diverged run's H or gradient reaches 1e300).
LIMIT = 1e100

OWN_Y = "test error of the solver's own y"
VIEWS = (  # (metric column, x column, y label, x label)
    ("objective_test_error", "time", "test error", "time (s)"),
    ("objective_test_error_iterate", "time", OWN_Y, "time (s)"),
    ("objective_suboptimality", "time", "H(x) − H(x*)", "time (s)"),
    ("objective_grad_norm2", "time", "‖∇H(x)‖²", "time (s)"),
    ("objective_grad_norm2", "objective_n_samples", "‖∇H(x)‖²",
     "sample evaluations"),
    ("objective_grad_norm2", "objective_epochs", "‖∇H(x)‖²",
     "epochs (samples / (n + m))"),
)
STUDY_VIEWS = (
    ("objective_test_error", "time", "test error", "time (s)"),
    ("objective_test_error", "objective_n_samples", "test error",
     "sample evaluations"),
    ("objective_test_error_iterate", "objective_n_samples", OWN_Y,
     "sample evaluations"),
    ("objective_value", "time", "H(x) (validation loss)", "time (s)"),
    ("objective_value", "objective_n_samples", "H(x) (validation loss)",
     "sample evaluations"),
)
VIEW_SETS = {"paper": VIEWS, "study": STUDY_VIEWS}


def drawn(run, metric, x):
    """The (x, metric) points of one run that are drawn: in x order, up to
    its first point flagged ``objective_diverged`` (excluded), finite and
    at most ``LIMIT`` in magnitude."""
    run = run.sort_values(x, kind="stable")
    if "objective_diverged" in run:
        flag = pd.to_numeric(run["objective_diverged"], errors="coerce")
        bad = (flag.fillna(0) > 0).to_numpy()
        if bad.any():
            run = run.iloc[:int(np.argmax(bad))]
    xs = pd.to_numeric(run[x], errors="coerce").to_numpy(dtype=float)
    ys = pd.to_numeric(run[metric], errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        ok = (np.isfinite(xs) & np.isfinite(ys) & (np.abs(ys) <= LIMIT)
              & (np.abs(xs) <= LIMIT))
    return xs[ok], ys[ok]


def run_curves(df, metric, x):
    """{solver_name: [(x values, metric values) per repetition]}, the
    points of each run that are drawn (``drawn``)."""
    out = {}
    for (solver, _), run in df.groupby(["solver_name", "idx_rep"],
                                       sort=False):
        xs, ys = drawn(run, metric, x)
        if xs.size:
            out.setdefault(solver, []).append((xs, ys))
    return out


def diverged_runs(df):
    """{solver_name: [idx_rep of each run flagged objective_diverged]}."""
    if "objective_diverged" not in df:
        return {}
    out = {}
    flag = pd.to_numeric(df["objective_diverged"], errors="coerce")
    for (solver, rep), f in flag.groupby([df["solver_name"], df["idx_rep"]],
                                         sort=False):
        if (f.fillna(0) > 0).any():
            out.setdefault(solver, []).append(rep)
    return out


def last_point(df, solver, rep, metric, x):
    """The last drawn point of a run (where a diverged run's curve ends),
    or (None, None)."""
    run = df[(df["solver_name"] == solver) & (df["idx_rep"] == rep)]
    xs, ys = drawn(run, metric, x)
    return (xs[-1], ys[-1]) if xs.size else (None, None)


def grid_for(runs, log):
    lo = min(xs[xs > 0].min() if log and (xs > 0).any() else xs.min()
             for rs in runs.values() for xs, _ in rs)
    hi = max(xs.max() for rs in runs.values() for xs, _ in rs)
    return lo, hi


def median_band(curves, grid, band):
    """Median and (band, 1 - band) quantiles over runs of step curves read
    on ``grid`` (a run contributes from its first evaluation to its last)."""
    rows = []
    for xs, ys in curves:
        idx = np.searchsorted(xs, grid, side="right") - 1
        inside = (idx >= 0) & (grid <= xs[-1])
        rows.append(np.where(inside, ys[np.clip(idx, 0, None)], np.nan))
    Y = np.vstack(rows)
    with warnings.catch_warnings():  # all-NaN columns: NaN, no warning
        warnings.simplefilter("ignore", RuntimeWarning)
        med = np.nanmedian(Y, axis=0)
        lo = np.nanquantile(Y, band, axis=0)
        hi = np.nanquantile(Y, 1 - band, axis=0)
    return med, lo, hi


def dataset_figure(df, dataset, band=0.2, points=200, views=VIEWS):
    """The matplotlib figure of one dataset, or None if no view applies."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    views = [v for v in views if v[0] in df.columns
             and np.isfinite(pd.to_numeric(df[v[0]], errors="coerce")
                             .to_numpy(dtype=float)).any()]
    if not views:
        return None
    labels = short_labels(df["solver_name"].unique())
    solvers = list(dict.fromkeys(df["solver_name"]))
    colors = plt.get_cmap("tab20" if len(solvers) > 10 else "tab10")
    diverged = diverged_runs(df)
    fig, axes = plt.subplots(1, len(views), figsize=(4.2 * len(views), 3.6),
                             squeeze=False)
    for ax, (metric, x, ylabel, xlabel) in zip(axes[0], views):
        runs = run_curves(df, metric, x)
        if not runs:
            ax.set_visible(False)
            continue
        all_x = np.concatenate([xs for rs in runs.values() for xs, _ in rs])
        all_y = np.concatenate([ys for rs in runs.values() for _, ys in rs])
        logx = spans_decades(all_x[all_x > 0])
        logy = spans_decades(all_y)
        lo, hi = grid_for(runs, logx)
        grid = (np.geomspace(lo, hi, points) if logx and lo > 0
                else np.linspace(lo, hi, points))
        for i, solver in enumerate(solvers):
            if solver not in runs:
                continue
            med, qlo, qhi = median_band(runs[solver], grid, band)
            color = colors(i % colors.N)
            n_div = len(diverged.get(solver, ()))
            label = labels[solver] + (
                f" (diverged: {n_div}/{len(runs[solver])} runs)"
                if n_div else "")
            ax.plot(grid, med, color=color, label=label, lw=1.6)
            if len(runs[solver]) > 1:
                ax.fill_between(grid, qlo, qhi, color=color, alpha=0.2,
                                lw=0)
            for rep in diverged.get(solver, ()):
                # where each diverged run stopped: its last finite point
                xs, ys = last_point(df, solver, rep, metric, x)
                if xs is not None:
                    ax.plot([xs], [ys], marker="x", ms=7, mew=2,
                            color=color, ls="none")
        for j, (name, value) in enumerate(reference_lines(df, metric)):
            ax.axhline(value, color=REFERENCE_COLORS[j % len(
                REFERENCE_COLORS)], ls=(0, (4, 2 + j)), lw=1.1,
                label=f"reference: {name}")
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    handles, names = {}, []
    for ax in axes[0]:  # every label once, the solvers' first
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in handles:
                handles[n] = h
                names.append(n)
    handles = [handles[n] for n in names]
    fig.legend(handles, names, loc="lower center",
               ncol=min(len(names), 4), fontsize=8, frameon=False)
    fig.suptitle(dataset, fontsize=9)
    fig.tight_layout(rect=(0, 0.08 + 0.04 * (len(names) // 4), 1, 0.95))
    return fig


def slug(name):
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)[:120].strip("_")


def render(results, out, band=0.2, points=200, views=VIEWS):
    """Write one PNG and one PDF per dataset and ``index.html``; return the
    list of PNG paths."""
    df = pd.read_parquet(results) if str(results).endswith(".parquet") \
        else pd.read_csv(results)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pngs, sections = [], []
    import matplotlib.pyplot as plt
    for i, (dataset, d) in enumerate(df.groupby("dataset_name",
                                                sort=False)):
        fig = dataset_figure(d, dataset, band, points, views)
        if fig is None:
            continue
        stem = f"{i:02d}_{slug(dataset)}"
        png, pdf = out / f"{stem}.png", out / f"{stem}.pdf"
        fig.savefig(png, dpi=120)
        fig.savefig(pdf)
        plt.close(fig)
        pngs.append(png)
        data = base64.b64encode(png.read_bytes()).decode()
        sections.append(f"<h2>{html.escape(dataset)}</h2>\n<img alt="
                        f"\"{html.escape(dataset)}\" src=\"data:image/png;"
                        f"base64,{data}\">")
    page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(Path(results).name)}</title><style>body{{font-"
            "family:sans-serif}img{max-width:100%}</style></head><body>"
            f"<h1>{html.escape(Path(results).name)}</h1>\n<p>Median over "
            f"repetitions, band: quantiles {band:g}–{1 - band:g}.</p>\n"
            + "\n".join(sections) + "\n</body></html>\n")
    (out / "index.html").write_text(page)
    return pngs


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m tools.figures", description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="benchopt results (.parquet or .csv)")
    p.add_argument("--out", default="figures", help="output folder")
    p.add_argument("--band", type=float, default=0.2,
                   help="quantile band from q to 1 - q (default 0.2)")
    p.add_argument("--points", type=int, default=200)
    p.add_argument("--views", default="paper", choices=sorted(VIEW_SETS),
                   help="paper: test error, suboptimality, ||grad H||^2; "
                        "study: test error and H vs time and samples")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if not 0 <= args.band < 0.5:
        p.error(f"--band must be in [0, 0.5), got {args.band}")
    if not Path(args.results).is_file():
        p.error(f"no such results file: {args.results}")
    refuse_inputs(p, {"--out": args.out,
                      "--out's page": Path(args.out) / "index.html"},
                  {"the results file": args.results})
    pngs = render(args.results, args.out, args.band, args.points,
                  VIEW_SETS[args.views])
    print(f"{len(pngs)} figures (PNG + PDF) and {Path(args.out) / 'index.html'}"
          " (self-contained, opens offline)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
