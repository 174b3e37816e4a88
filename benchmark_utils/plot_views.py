"""Curves of the benchmark's own plot kinds (``plots/metric_vs_time.py``,
``plots/metric_vs_samples.py``), kept apart from benchopt so that they can be
tested on a synthetic DataFrame.

Why not benchopt's ``objective_curve``: it pivots by ``stop_val`` and drops
the rows that are NaN, so a run whose metric is NaN somewhere (a diverged
run, or ``test_error`` on Simulated) gives x and y lists of different
lengths and ``benchopt plot --no-html`` crashes ("x and y must have same
first dimension").  Here every curve is built point by point and keeps only
the points whose x, y and band are all finite.

benchopt names each figure of ``benchopt plot --no-html`` by joining the plot
name and its option values, then calls ``Path.with_suffix(".pdf")``, which
cuts the name at its last dot: ``...z_star_norm=0.5]_..._Time`` becomes
``...z_star_norm=0.pdf`` and every figure of that dataset lands in one file.
Our plots therefore offer dataset and objective names with each ``.``
written as ``DOT`` (U+2024, ONE DOT LEADER, which looks the same), and map
them back before selecting rows: file names are complete and distinct.
"""
import warnings

import numpy as np
import pandas as pd

from .reference_columns import is_reference, reference_lines

DOT = "\u2024"

# Columns that are bookkeeping or x axes, not metrics to plot.
NOT_METRICS = ("objective_name", "objective_n_samples", "objective_epochs",
               "objective_diverged")

METRIC_LABELS = {
    "objective_value": "H(x)",
    "objective_grad_norm2": "‖∇H(x)‖²",
    "objective_suboptimality": "H(x) − H(x*)",
    "objective_inner_gap": "‖y − y*(x)‖²",
    "objective_implicit_gap": "‖z − z*(x)‖²",
    "objective_dist_x_star": "‖x − x*‖ / ‖x*‖",
    "objective_train_error": "train error",
    "objective_val_error": "validation error",
    "objective_test_error": "test error",
    "objective_test_error_iterate": "test error of the solver's own y",
    "objective_solve_residual": "residual of the y*, z* solves / tol",
}

X_AXES = {  # option value -> (column, axis label)
    "Time": ("time", "Time (s)"),
    "Epochs": ("objective_epochs", "Epochs (sample evaluations / (n + m))"),
    "Samples": ("objective_n_samples", "Sample evaluations"),
}

# Metrics of config.yml's views: always offered, even when the results lack
# the column (test_error on a Simulated-only run), so that a view never
# points to a plot that does not exist; such a plot has no curve.
VIEW_METRICS = ("objective_value", "objective_grad_norm2",
                "objective_suboptimality", "objective_test_error",
                "objective_test_error_iterate")

# Reference results (``reference_columns``): horizontal lines in shades of
# grey, apart from the solvers' palette.
REFERENCE_COLORS = ((0.15, 0.15, 0.15), (0.4, 0.4, 0.4), (0.6, 0.6, 0.6),
                    (0.3, 0.3, 0.3), (0.5, 0.5, 0.5))
REFERENCE_MARKER = 41  # plotly's "line-ew"

BAND = 0.2  # quantile band over repetitions: 20 % to 80 %


def safe_name(name):
    """A dataset or objective name without ``.`` (see the module doc)."""
    return str(name).replace(".", DOT)


def real_name(name):
    return str(name).replace(DOT, ".")


def dataset_options(df):
    return [safe_name(d) for d in df["dataset_name"].unique()]


def objective_options(df):
    return [safe_name(o) for o in df["objective_name"].unique()]


def metric_options(df):
    """The numeric metric columns of the results (bookkeeping columns such
    as ``objective_n_samples`` or ``objective_diverged`` are x axes or flags,
    and the reference results lines on their metric's plot, not views)."""
    from pandas.api.types import is_numeric_dtype
    cols = [c for c in df.columns
            if c.startswith("objective_") and c not in NOT_METRICS
            and not is_reference(c) and is_numeric_dtype(df[c])]
    return cols + [c for c in VIEW_METRICS if c not in cols]


def metric_label(column):
    return METRIC_LABELS.get(column, column.replace("objective_", ""))


def parse_name(name):
    """``"SPABA[p=0.01,step_size=0.1]"`` -> ("SPABA", {"p": "0.01", ...})."""
    import re
    m = re.fullmatch(r"([^\[]+)(?:\[(.*)\])?", name)
    base, inner = m.group(1), m.group(2) or ""
    params = {}
    for part in re.findall(r"[^,\[\]]+=(?:\[[^\]]*\]|[^,]*)", inner):
        key, value = part.split("=", 1)
        params[key.strip()] = value.strip()
    return base, params


def short_labels(names):
    """Solver name + the parameters that vary among that solver's
    configurations in ``names`` (also ``tools.figures``' labels)."""
    parsed = {n: parse_name(n) for n in names}
    varying = {}
    for base in {b for b, _ in parsed.values()}:
        confs = [p for b, p in parsed.values() if b == base]
        keys = set().union(*confs)
        varying[base] = sorted(k for k in keys
                               if len({c.get(k) for c in confs}) > 1)
    return {n: " ".join([b] + [f"{k}={p.get(k)}" for k in varying[b]])
            for n, (b, p) in parsed.items()}


def select(df, dataset, objective):
    dataset, objective = real_name(dataset), real_name(objective)
    return df[(df["dataset_name"] == dataset)
              & (df["objective_name"] == objective)]


def _finite(values):
    v = np.array(pd.to_numeric(values, errors="coerce"), dtype=float)
    v[~np.isfinite(v)] = np.nan
    return v


def solver_curve(df_s, metric, x_col, band=BAND):
    """Median over repetitions, at each evaluation (``stop_val``), of one
    solver's metric against ``x_col``, with its ``band``–(1 − ``band``)
    quantiles.  Non-finite values (a diverged run, a metric the dataset
    does not have) are missing, never plotted.  A repetition that ended
    before the others without diverging (converged, or stopped) keeps its
    last value for the later evaluations, as benchopt's own curves do; a
    diverged one does not.  Returns x, y, y_low, y_high (equal lengths,
    all finite) and the number of repetitions."""
    d = df_s.assign(_y=_finite(df_s[metric]), _x=_finite(df_s[x_col]))
    by_point = d.groupby(["stop_val", "idx_rep"])
    Y, X = by_point["_y"].last().unstack(), by_point["_x"].last().unstack()
    stops = np.array(sorted(d["stop_val"].unique()))
    Y = Y.reindex(stops)
    X = X.reindex(index=stops, columns=Y.columns)
    diverged = (d.sort_values("stop_val").groupby("idx_rep")
                .apply(_diverged, include_groups=False)
                if "objective_diverged" in d else None)
    for rep in Y.columns:
        last = d.loc[d["idx_rep"] == rep, "stop_val"].max()
        if diverged is not None and diverged.get(rep, False):
            continue
        tail = Y.index > last
        Y.loc[tail, rep] = Y.loc[Y.index <= last, rep].ffill().iloc[-1]
    Yv, Xv = Y.to_numpy(dtype=float), X.to_numpy(dtype=float)
    with warnings.catch_warnings():  # all-NaN rows: NaN, dropped below
        warnings.simplefilter("ignore", RuntimeWarning)
        y = np.nanmedian(Yv, axis=1)
        lo = np.nanquantile(Yv, band, axis=1)
        hi = np.nanquantile(Yv, 1 - band, axis=1)
        x = np.nanmedian(Xv, axis=1)
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(lo) & np.isfinite(hi)
    return x[ok], y[ok], lo[ok], hi[ok], Y.shape[1]


def _diverged(run):
    flag = pd.to_numeric(run["objective_diverged"], errors="coerce")
    return bool((flag.fillna(0) > 0).any())


def curves(plot, df, dataset, objective, metric, x_axis, band=BAND):
    """The scatter traces of one (dataset, objective, metric, x axis):
    one per solver that has a finite point, none when the metric is NaN
    everywhere on the dataset (e.g. suboptimality on a logistic task); then
    the dataset's reference results for the metric, as horizontal lines
    across the solvers' x range (``reference_traces``)."""
    from pandas.api.types import is_numeric_dtype
    if metric not in df or not is_numeric_dtype(df[metric]):
        return []
    x_col = X_AXES[x_axis][0]
    labels = short_labels(list(df["solver_name"].unique()))
    traces = []
    rows = select(df, dataset, objective)
    for solver, df_s in rows.groupby("solver_name", sort=False):
        x, y, lo, hi, n_rep = solver_curve(df_s, metric, x_col, band)
        if not len(x):
            continue
        label = labels[solver]
        style = plot.get_style(label)  # the same colour on every plot
        if "objective_diverged" in df_s and _diverged(df_s):
            label += " (diverged)"
        trace = {"x": x.tolist(), "y": y.tolist(), "label": label, **style}
        if n_rep > 1:
            trace["y_low"], trace["y_high"] = lo.tolist(), hi.tolist()
        traces.append(trace)
    return traces + reference_traces(rows, metric, traces)


def reference_traces(rows, metric, traces):
    """Horizontal lines, labelled ``reference: <name>``, at each reference
    result of ``metric`` that the rows carry (median over repetitions),
    from the smallest to the largest x of ``traces``; none without
    traces."""
    xs = [x for t in traces for x in t["x"]]
    if not xs:
        return []
    lo, hi = min(xs), max(xs)
    return [{"x": [lo, hi], "y": [value, value],
             "label": f"reference: {name}",
             "color": REFERENCE_COLORS[i % len(REFERENCE_COLORS)],
             "marker": REFERENCE_MARKER}
            for i, (name, value) in enumerate(reference_lines(rows, metric))]


def spans_decades(values, decades=2.0):
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    return v.size > 1 and np.log10(v.max() / v.min()) > decades


def wrap(name, width=48):
    """A long parametrised name on several lines, cut after commas."""
    lines, line = [], ""
    for part in name.split(","):
        if line and len(line) + len(part) + 1 > width:
            lines.append(line + ",")
            line = part
        else:
            line = f"{line},{part}" if line else part
    return "\n".join(lines + [line])


def metadata(df, dataset, objective, metric, x_axis):
    """Title, axis labels (the metric's own name) and a scale: log on an
    axis whose positive values span more than two decades."""
    d = select(df, dataset, objective)
    title = f"{real_name(objective)}\n{wrap('Data: ' + real_name(dataset))}"
    ys = _finite(d[metric]) if metric in d else np.array([np.nan])
    if not np.isfinite(ys).any():
        title += f"\n(no finite {metric_label(metric)} on this dataset)"
    xs = _finite(d[X_AXES[x_axis][0]])
    logx, logy = spans_decades(xs), spans_decades(ys)
    scale = {(True, True): "loglog", (True, False): "semilog-x",
             (False, True): "semilog-y", (False, False): "linear"}
    return {"title": title, "xlabel": X_AXES[x_axis][1],
            "ylabel": metric_label(metric), "scale": scale[logx, logy]}
