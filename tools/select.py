"""Rank the configurations of a benchopt sweep and write the best as a run
config.

    python -m tools.select outputs/<run>.parquet [--metric objective_value]
        [--criterion final|auc|reach] [--axis time|n_samples|epochs]
        [--budget B] [--threshold T] [--log] [--maximize]
        [--dataset SUBSTRING] [--top K] [--write configs/best.yml]

A *configuration* is one solver name with its parameters (benchopt's
``solver_name``, e.g. ``SPABA[p=0.01,step_size=0.1,...]``) on one dataset;
its *runs* are the repetitions (``idx_rep``).  Each run gets a score:

- ``final``: the metric at the last evaluation with ``axis <= budget`` (the
  last evaluation when no budget is given);
- ``auc``: the mean of the metric over ``[0, budget]`` of the axis, the
  curve held constant between evaluations and after its last one (a run
  that stopped because it converged keeps its final value); with
  ``--log``, the mean of log10 of the metric (for metrics spanning
  decades, such as ``objective_grad_norm2``);
- ``reach``: the first axis value at which the metric is at or below
  ``--threshold`` (at or above with ``--maximize``), ``inf`` if never
  within the budget.

Runs that diverged (``objective_diverged = 1`` at any point, or a
non-finite score) are excluded; a configuration all of whose runs diverged
is listed as diverged.  Ranked by ``objective_grad_norm2`` (stationarity),
a run with a saturated x within the budget (``objective_x_saturated`` > 0,
where grad H vanishes by round-off) is excluded too and counted apart.
Configurations are ranked by the median of their runs' scores (lower is
better unless ``--maximize``; ``reach`` is always lower-is-better) and
printed with the spread over repetitions (min, max).
Each line also gives, where the results have them, the median test error
(%) of y*(x) (``test``, the quality of x) and of the solver's own y
(``own y``, the model a user who takes the solver's output gets), at the
run's last evaluation within the budget; below each dataset's ranking, the
reference results the runs carry (``objective_ref_*``: x0, x*, the oracle
weights, the best single regularisation value, ...), H and test error.
``--write PATH`` writes a benchopt run config with the dataset and the best
configuration of each solver, which ``benchopt run . --config PATH`` runs
as is; it refuses a PATH that is the results file, and writes atomically;
when every run diverged there is nothing to select, and it says so.
"""
import argparse
import math
import sys

import numpy as np
import pandas as pd

from benchmark_utils.reference_columns import (NAMES, reference_names,
                                               reference_value)
from tools import results_file
from tools.arguments import positive_number, refuse_inputs

AXES = {"time": "time", "n_samples": "objective_n_samples",
        "epochs": "objective_epochs"}
CRITERIA = ("final", "auc", "reach")
RUN_COLUMNS = ("dataset_name", "solver_name", "idx_rep")
# Metrics that measure stationarity: a run whose scored point has a
# saturated x (``objective_x_saturated`` > 0, metrics.saturation), where
# grad H vanishes by round-off, is not ranked by them.
STATIONARITY = ("objective_grad_norm2",)
# (table column, metric column): test errors (%) read beside the score
ERRORS = (("test", "objective_test_error"),
          ("own", "objective_test_error_iterate"))


def load(path, axis="time"):
    """The results table of a benchopt run (parquet or csv), checked for
    the columns a ranking needs (a clear error naming the file)."""
    return results_file.read_checked(
        path, list(RUN_COLUMNS) + [AXES[axis]], "tools.select")


def errors_at(run, axis, budget=None):
    """{table column: test error (%)} at the run's last evaluation with
    ``axis <= budget`` (its last one without a budget)."""
    run = run.sort_values(axis, kind="stable")
    if budget is not None:
        run = run[run[axis] <= budget]
    out = {}
    for key, col in ERRORS:
        v = (pd.to_numeric(run[col], errors="coerce").to_numpy(dtype=float)
             if col in run and len(run) else np.array([]))
        out[key] = 100 * float(v[-1]) if v.size else math.nan
    return out


def is_saturated(run, axis, budget=None):
    """Whether a point of the run within the budget has a saturated x
    (``objective_x_saturated`` > 0): its ``grad_norm2`` vanishes by
    round-off there and cannot be read as stationarity."""
    if "objective_x_saturated" not in run:
        return False
    if budget is not None:
        run = run[run[axis] <= budget]
    values = pd.to_numeric(run["objective_x_saturated"], errors="coerce")
    return bool((values > 0).any())


def run_score(run, metric, criterion, axis, budget=None, threshold=None,
              log=False, maximize=False):
    """Score of one run (its rows, in evaluation order)."""
    run = run.sort_values(axis, kind="stable")
    t = run[axis].to_numpy(dtype=float)
    v = run[metric].to_numpy(dtype=float)
    if budget is not None:
        keep = t <= budget
        t, v = t[keep], v[keep]
    if t.size == 0:
        return math.nan
    if criterion == "final":
        return float(v[-1])
    if criterion == "reach":
        hit = v >= threshold if maximize else v <= threshold
        return float(t[np.argmax(hit)]) if hit.any() else math.inf
    # auc: step curve held after each evaluation, over [t0, budget]
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.log10(v)
    end = budget if budget is not None else t[-1]
    if end <= t[0]:
        return float(v[0])
    edges = np.append(t, end)
    widths = np.diff(edges)
    return float(np.sum(v * widths) / (end - t[0]))


def score_table(df, metric, criterion="final", axis="time", budget=None,
                threshold=None, log=False, maximize=False):
    """One row per (dataset, configuration): median score, spread, runs
    kept and runs excluded as diverged, rank within its dataset."""
    if df.empty:
        raise SystemExit("no results to rank (0 rows)")
    if metric not in df.columns:
        metrics = sorted(c for c in df.columns if c.startswith("objective_"))
        raise SystemExit(f"unknown metric {metric!r}; the results have "
                         f"{metrics}")
    col = AXES[axis]
    if col not in df.columns:
        raise SystemExit(f"the results have no {col!r} column (--axis "
                         f"{axis})")
    rows = []
    for (data, solver), conf in df.groupby(["dataset_name", "solver_name"],
                                           sort=False):
        scores, diverged, saturated, errors = [], 0, 0, []
        for _, run in conf.groupby("idx_rep"):
            if metric in STATIONARITY and is_saturated(run, col, budget):
                saturated += 1
                continue
            flag = run.get("objective_diverged")
            s = run_score(run, metric, criterion, col, budget, threshold,
                          log, maximize)
            if (flag is not None and (flag == 1).any()) or not (
                    math.isfinite(s) or (criterion == "reach"
                                         and s == math.inf)):
                diverged += 1
                continue
            scores.append(s)
            errors.append(errors_at(run, col, budget))
        row = dict(
            dataset=data, solver=solver, name=solver.split("[")[0],
            median=float(np.median(scores)) if scores else math.nan,
            min=min(scores) if scores else math.nan,
            max=max(scores) if scores else math.nan,
            runs=len(scores), diverged=diverged, saturated=saturated)
        for key, _ in ERRORS:
            values = [e[key] for e in errors if math.isfinite(e[key])]
            row[key] = float(np.median(values)) if values else math.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    better_high = maximize and criterion != "reach"
    key = table["median"] * (-1.0 if better_high else 1.0)
    table["_key"] = key.fillna(math.inf)
    table = table.sort_values(["dataset", "_key"], kind="stable")
    table["rank"] = table.groupby("dataset").cumcount() + 1
    table.loc[table["runs"] == 0, "rank"] = 0
    return table.drop(columns="_key").reset_index(drop=True)


def best_per_solver(table):
    """The best configuration of each solver name (runs > 0)."""
    ok = table[table["runs"] > 0]
    return ok.groupby(["dataset", "name"], sort=False).head(1)


def write_config(path, table, n_repetitions=None, extra=None):
    """A benchopt run config: the dataset and each solver's best
    configuration (benchopt's own names, which its parser reads back)."""
    best = best_per_solver(table)
    if best.empty:
        raise SystemExit(nothing_ranked(table))
    datasets = best["dataset"].unique()
    if len(datasets) != 1:
        raise SystemExit(
            f"the results hold {len(datasets)} datasets; choose one with "
            f"--dataset (one of: {', '.join(datasets)})")
    lines = ["# Written by `python -m tools.select`: the best configuration",
             "# of each solver in the sweep.", "dataset:",
             f"  - {_quote(datasets[0])}", "solver:"]
    lines += [f"  - {_quote(s)}" for s in best["solver"]]
    if n_repetitions is not None:
        lines.append(f"n-repetitions: {int(n_repetitions)}")
    for key, value in (extra or {}).items():
        lines.append(f"{key}: {value}")
    results_file.write_text(path, "\n".join(lines) + "\n")


def nothing_ranked(table):
    """Why no configuration of ``table`` can be selected: every run
    diverged (or, ranked by stationarity, had a saturated x), with how
    many runs of which solvers."""
    diverged, saturated = int(table["diverged"].sum()), int(
        table["saturated"].sum())
    solvers = ", ".join(dict.fromkeys(table["name"]))
    datasets = ", ".join(dict.fromkeys(table["dataset"]))
    runs = diverged + saturated
    what = (f"every run diverged ({diverged} runs" if not saturated else
            f"no run can be ranked ({diverged} diverged, {saturated} with a "
            "saturated x, not ranked by stationarity, of "
            f"{runs} runs")
    return (f"{what} of {len(table)} configurations of {solvers} on "
            f"{datasets}): nothing to select, no run config written")


def _quote(name):
    return "'" + name.replace("'", "''") + "'"


def _excluded_text(row):
    """``diverged (2 runs)``-style text of a row's excluded runs."""
    parts = [f"{what} ({n} runs)" for what, n in (
        ("diverged", row.diverged),
        ("saturated x, not ranked by stationarity",
         getattr(row, "saturated", 0))) if n]
    return ", ".join(parts)


def _errors_text(row):
    """`` test 22.5 %, own y 29.4 %`` (what the results have)."""
    parts = [f"{name} {getattr(row, key):.1f} %"
             for key, name in (("test", "test"), ("own", "own y"))
             if math.isfinite(getattr(row, key, math.nan))]
    return ("  " + ", ".join(parts)) if parts else ""


def reference_text(df):
    """{dataset: [lines]}: the reference results of each dataset, median
    over the repetitions."""
    out = {}
    for data, d in df.groupby("dataset_name", sort=False):
        lines = []
        for name in reference_names(d):
            h = reference_value(d, name, "objective_value")
            err = reference_value(d, name, "objective_test_error")
            text = f"  ref  H {h:.6g}" if math.isfinite(h) else "  ref"
            if math.isfinite(err):
                text += f", test {100 * err:.1f} %"
            lines.append(f"{text}  {NAMES[name]}")
        out[data] = lines
    return out


def format_table(table, top=None, metric="", criterion="", references=None):
    out = []
    for data, rows in table.groupby("dataset", sort=False):
        out.append(f"\n{data}  ({criterion} of {metric}; median over "
                   "repetitions, [min, max])")
        shown = rows if top is None else pd.concat(
            [rows[rows["rank"] > 0].head(top), rows[rows["rank"] == 0]])
        for r in shown.itertuples():
            excluded = _excluded_text(r)
            if r.runs == 0:
                out.append(f"   -  {excluded}  {r.solver}")
                continue
            div = f", {excluded}" if excluded else ""
            out.append(f"  {r.rank:2d}  {r.median:.6g}  [{r.min:.3g}, "
                       f"{r.max:.3g}]  ({r.runs} runs{div}){_errors_text(r)}"
                       f"  {r.solver}")
        out += (references or {}).get(data, [])
    return "\n".join(out)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m tools.select", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", help="benchopt results (.parquet or .csv)")
    p.add_argument("--metric", default="objective_value")
    p.add_argument("--criterion", choices=CRITERIA, default="final")
    p.add_argument("--axis", choices=sorted(AXES), default="time")
    p.add_argument("--budget", type=positive_number("--budget"),
                   default=None,
                   help="the end of the axis read (a finite number > 0)")
    p.add_argument("--threshold", type=float, default=None)
    p.add_argument("--log", action="store_true",
                   help="auc of log10(metric)")
    p.add_argument("--maximize", action="store_true")
    p.add_argument("--dataset", default=None,
                   help="keep the datasets whose name contains this")
    p.add_argument("--top", type=int, default=None)
    p.add_argument("--write", metavar="PATH", default=None,
                   help="write the best configuration of each solver as a "
                   "benchopt run config")
    p.add_argument("--n-repetitions", type=int, default=None,
                   help="n-repetitions of the written config")
    args = p.parse_args(argv)
    if args.criterion == "reach" and args.threshold is None:
        p.error("--criterion reach needs --threshold")
    if args.criterion == "auc" and args.budget is None:
        p.error("--criterion auc needs --budget (the end of the area)")
    refuse_inputs(p, {"--write": args.write},
                  {"the results file": args.results})
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    df = load(args.results, args.axis)
    if args.dataset is not None:
        df = df[df["dataset_name"].str.contains(args.dataset, regex=False)]
        if df.empty:
            raise SystemExit(f"no dataset name contains {args.dataset!r}")
    table = score_table(df, args.metric, args.criterion, args.axis,
                        args.budget, args.threshold, args.log, args.maximize)
    print(format_table(table, args.top, args.metric, args.criterion,
                       reference_text(df)))
    if args.write:
        write_config(args.write, table, args.n_repetitions)
        print(f"\nrun config written to {args.write}: "
              f"benchopt run . --config {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
