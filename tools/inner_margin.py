"""How far each run's own y and z went from y*(x), z*(x): the margin of the
lost-inner-iterate rule (``metrics.lost_inner``, docs/metrics.md
"Divergence").

    python -m tools.inner_margin outputs/quick.parquet [more.parquet ...]

For every run (dataset, solver configuration, repetition) of benchopt
results, the largest ratio over its points of

    r_y = inner_gap / max(inner_gap at the first point, ||y*(x)||^2)
    r_z = implicit_gap / max(implicit_gap at the first point, ||z*(x)||^2)

(r_z only for solvers whose z is an iterate, ``Algorithm.z_role``), the
ratio the rule compares with ``LOST``; and whether the run was flagged.
Results without the ``y_star_norm2`` / ``z_star_norm2`` columns (stored
before they existed) use the first point's gap alone, which bounds the
ratio from above; the table says so.  The last lines give the margin: the
largest ratio of a run the rule leaves alone, and the smallest ratio at
which a run was flagged by it.
"""
import argparse
import sys

import numpy as np
import pandas as pd

from benchmark_utils.algorithms.table import ALGORITHMS
from benchmark_utils.metrics import LOST

RUN = ["dataset_name", "solver_name", "idx_rep"]


def z_role(solver_name):
    """``Algorithm.z_role`` of a benchopt solver name ('SOBA[...]')."""
    base = solver_name.split("[", 1)[0]
    entry = ALGORITHMS.get(base)
    return entry.z_role if entry is not None else "iterate"


def _ratio(run, gap, size):
    """The rule's ratio at each point of ``run`` (sorted by samples)."""
    g = run[f"objective_{gap}"].to_numpy(dtype=float)
    scale = np.full_like(g, g[0])
    column = f"objective_{size}"
    if column in run:
        scale = np.fmax(scale, run[column].to_numpy(dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return g / np.maximum(scale, np.finfo(float).tiny)


def run_margins(df):
    """One row per run: its largest ratio (r_y, r_z), the epochs of its
    first point above ``LOST`` (where the rule flags it; NaN: never) with
    the ratio there, and the epochs of the flag the results carry."""
    rows = []
    for (data, solver, rep), run in df.groupby(RUN, sort=False):
        run = run.sort_values("objective_n_samples")
        epochs = run["objective_epochs"].to_numpy(dtype=float)
        flags = run["objective_diverged"].to_numpy() == 1
        r_y = _ratio(run, "inner_gap", "y_star_norm2")
        r_z = (_ratio(run, "implicit_gap", "z_star_norm2")
               if z_role(solver) == "iterate" else np.full_like(r_y, np.nan))
        ratio = np.fmax(np.nan_to_num(r_y, nan=0.0, posinf=np.inf),
                        np.nan_to_num(r_z, nan=0.0, posinf=np.inf))
        above = ratio > LOST
        first = int(np.argmax(above)) if above.any() else None
        rows.append(dict(
            dataset=data, solver=solver, rep=rep,
            r_y=float(np.nanmax(r_y)) if np.isfinite(r_y).any() else np.nan,
            r_z=float(np.nanmax(r_z)) if np.isfinite(r_z).any() else np.nan,
            rule_epochs=epochs[first] if first is not None else np.nan,
            rule_ratio=ratio[first] if first is not None else np.nan,
            flag_epochs=epochs[int(np.argmax(flags))] if flags.any()
            else np.nan))
    return pd.DataFrame(rows)


def margin_lines(rows, exact_scale):
    """The summary: the rule's line against the runs on either side."""
    out = [f"rule: ratio > LOST = {LOST:.0e}"
           + ("" if exact_scale else
              " (ratios against the first point's gap only: upper bounds)")]
    alone = rows[rows["rule_epochs"].isna()]
    hit = rows[rows["rule_epochs"].notna()]
    if len(alone):
        largest = np.fmax(alone["r_y"].fillna(0), alone["r_z"].fillna(0))
        i = int(np.argmax(largest.to_numpy()))
        out.append(f"runs the rule leaves alone: {len(alone)}; largest "
                   f"ratio {largest.iloc[i]:.3g} ({alone['solver'].iloc[i]} "
                   f"on {alone['dataset'].iloc[i]})")
    if len(hit):
        out.append(f"runs the rule flags: {len(hit)}, at "
                   f"{hit['rule_epochs'].min():.3g} to "
                   f"{hit['rule_epochs'].max():.3g} epochs, ratio there "
                   f"{hit['rule_ratio'].min():.3g} to "
                   f"{hit['rule_ratio'].max():.3g}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tools.inner_margin", description=__doc__.split(
            "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="benchopt .parquet or "
                        ".csv results")
    args = parser.parse_args(argv)
    frames = []
    for path in args.results:
        try:
            frames.append(pd.read_parquet(path) if path.endswith(".parquet")
                          else pd.read_csv(path))
        except (OSError, ValueError) as e:
            sys.exit(f"{path}: cannot read it as benchopt results ({e})")
    df = pd.concat(frames, ignore_index=True)
    needed = RUN + ["objective_n_samples", "objective_inner_gap",
                    "objective_implicit_gap", "objective_diverged",
                    "objective_epochs"]
    missing = [c for c in needed if c not in df]
    if missing or df.empty:
        sys.exit(f"{', '.join(args.results)}: not this benchmark's results "
                 f"(missing columns {missing})" if missing else
                 f"{', '.join(args.results)}: no result rows")
    rows = run_margins(df)
    short = rows.assign(solver=rows["solver"].str.slice(0, 48),
                        dataset=rows["dataset"].str.slice(0, 24))
    with pd.option_context("display.width", 200, "display.max_rows", None):
        print(short.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    for line in margin_lines(rows, "objective_y_star_norm2" in df):
        print(line)


if __name__ == "__main__":
    main()
