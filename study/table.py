"""The tables of a comparison: each configuration's H, test error of y*(x)
and test error of its own y, at a budget of epochs and at the end of its
runs, median over the repetitions, with the dataset's reference results.

    python -m study.table outputs/study_fashion.parquet --budget 10

One table per dataset (``dataset_name``). For each configuration, the
median over its repetitions of

- H(x) (``objective_value``, the validation loss) and the test error (%)
  of y*(x) (``objective_test_error``): the quality of x;
- the test error (%) of the solver's own y (``objective_test_error_iterate``):
  the model a user who takes the solver's output gets;

read at ``--budget`` epochs (``study.budget_reading``: the grid point when
the results are on a common grid, with the epochs it read; interpolated
linearly in epochs, and marked ``*``, when they are not), then at the
run's last evaluation, with its epochs, and how many repetitions diverged.
A repetition that diverged at or before the budget has no value there (it
counts in ``diverged``; never its starting H). Rows are sorted by H at the
budget and named by the solver with the parameters that differ between its
configurations (``plot_views.short_labels``); ``--label PATTERN=TEXT`` adds
``(TEXT)`` to every configuration matching the regular expression PATTERN
(``--label "^SFFBA.*R=inf=clipping off"``). Below the configurations, the
reference results the runs carry (``reference_results``: x0, x*, all
weights 1, the oracle weights, the validation-only model, the best single
regularisation value), median over the repetitions.
Results without a test error (Simulated) print ``—`` in those columns.
Below a table, the configurations with a run read more than ``NEAR``
epochs from the budget: where one iteration draws more than that (small
datasets, inner loops), no evaluation can come closer.
docs/study.md prints its tables with this command.
"""
import argparse
import re

import numpy as np
import pandas as pd

from benchmark_utils.plot_views import short_labels
from benchmark_utils.reference_columns import (NAMES, reference_names,
                                               reference_value)
from tools import results_file
from study.budget_reading import (NEAR, grid_step, is_far, read_at,
                                  read_before, read_end, read_past)

RUN = ["dataset_name", "solver_name", "idx_rep"]
NEEDED = RUN + ["objective_epochs", "objective_value"]
# (table key, metric column, scale)
QUALITIES = (("h", "objective_value", 1.0),
             ("err", "objective_test_error", 100.0),
             ("own", "objective_test_error_iterate", 100.0))


# where a run is read at the budget (study.budget_reading): read_at,
# read_before, read_past
SIDES = {"at": read_at, "before": read_before, "past": read_past}


def run_rows(df, budget, side="at", end=None):
    """One row per run: the qualities at the budget and at the end, the
    epochs read, how (``grid``, ``interpolated``, ``held``, ``diverged``,
    ``before``, ``past``).  ``side``: where a run read more than ``NEAR``
    epochs from the budget is read (``SIDES``): ``at`` the budget
    (``read_at``), its last evaluation ``before`` it, or its first
    ``past`` it; with ``end``, the epochs the runs were to end at, a run
    whose last evaluation is more than ``NEAR`` past ``end`` is read at
    its last at or before it when ``side`` is ``before``.  ``far``: the
    run reads differently on another side (``budget_reading.is_far``, or
    its end that far past ``end``)."""
    if side not in SIDES:
        raise ValueError(f"the budget reading must be one of "
                         f"{', '.join(SIDES)}, got {side!r}")
    step = grid_step(df)
    columns = [c for _, c, _ in QUALITIES]
    rows = []
    # results of several seeds: a run is also told by benchopt's seed
    keys = RUN + ["base_seed"] if "base_seed" in df else RUN
    for key, run in df.groupby(keys, sort=False):
        data, solver, rep = key[:3]
        at = SIDES[side](run, budget, columns, step)
        last = read_end(run, columns)
        end_far = end is not None and last.how == "held" \
            and last.epochs > end + NEAR
        if side == "before" and end_far:
            last = read_before(run, end, columns, step)
        flags = pd.to_numeric(run.get("objective_diverged", pd.Series(
            dtype=float)), errors="coerce").fillna(0)
        diverged = bool((flags > 0).any())
        gap, iteration = distance_to(run, budget, at.how)
        row = dict(dataset=data, solver=solver, rep=rep,
                   seed=key[3] if len(key) > 3 else None, diverged=diverged,
                   gap=gap, iteration=iteration,
                   diverged_at=(float(run.loc[flags > 0, "objective_epochs"]
                                      .min()) if diverged else np.nan),
                   how=at.how, epochs_read=at.epochs,
                   epochs_end=last.epochs,
                   # its reading can differ before and past the budget
                   far=is_far(at, budget) or end_far)
        for key, col, scale in QUALITIES:
            row[f"{key}_budget"] = scale * at.values.get(col, np.nan)
            row[f"{key}_end"] = scale * last.values.get(col, np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def distance_to(run, budget, how):
    """``(gap, iteration)`` of a run read at ``budget`` (``how``): the
    epochs from the budget to its nearest evaluation, and the smallest
    step between two of its evaluations (at least one iteration's draw);
    NaN for a run that did not reach the budget."""
    if how not in ("grid", "interpolated", "before", "past"):
        return np.nan, np.nan
    epochs = np.sort(pd.to_numeric(run["objective_epochs"], errors="coerce")
                     .dropna().to_numpy(dtype=float))
    steps = np.diff(epochs)
    steps = steps[steps > 0]
    return (float(np.min(np.abs(epochs - budget))),
            float(steps.min()) if steps.size else np.nan)


def far_readings(runs, near=NEAR):
    """{dataset: [(solver, largest gap, smallest iteration)]}: the
    configurations with a run read farther than ``near`` epochs from the
    budget, largest gap first."""
    out = {}
    far = runs[runs["gap"] > near]
    for (data, solver), conf in far.groupby(["dataset", "solver"],
                                            sort=False):
        out.setdefault(data, []).append(
            (solver, float(conf["gap"].max()),
             float(runs.loc[(runs["dataset"] == data)
                            & (runs["solver"] == solver),
                            "iteration"].min())))
    return {d: sorted(v, key=lambda t: -t[1]) for d, v in out.items()}


def summary(runs):
    """Median over repetitions per (dataset, configuration)."""
    def med(values):
        values = pd.to_numeric(values, errors="coerce").dropna()
        return float(values.median()) if len(values) else np.nan
    out = []
    for (data, solver), conf in runs.groupby(["dataset", "solver"],
                                             sort=False):
        row = dict(dataset=data, solver=solver, runs=len(conf),
                   diverged=int(conf["diverged"].sum()),
                   diverged_at=med(conf["diverged_at"]),
                   diverged_by_budget=int((conf["how"] == "diverged").sum()),
                   interpolated=int((conf["how"] == "interpolated").sum()),
                   epochs_read=med(conf["epochs_read"]),
                   epochs_end=med(conf["epochs_end"]))
        for key, _, _ in QUALITIES:
            row[f"{key}_budget"] = med(conf[f"{key}_budget"])
            row[f"{key}_end"] = med(conf[f"{key}_end"])
        out.append(row)
    table = pd.DataFrame(out)
    return table.sort_values(["dataset", "h_budget"], kind="stable",
                             na_position="last")


def reference_rows(df):
    """{dataset: [(reference, H, test error (%))]}, median over the
    repetitions, from the results' ``objective_ref_*`` columns."""
    out = {}
    for data, d in df.groupby("dataset_name", sort=False):
        out[data] = [(NAMES[name],
                      reference_value(d, name, "objective_value"),
                      100 * reference_value(d, name, "objective_test_error"))
                     for name in reference_names(d)]
    return out


def row_names(solvers, labels):
    """Distinct names: the solver, the parameters that differ between its
    configurations, then the ``--label`` texts that match."""
    names = short_labels(list(solvers))
    for solver in names:
        for pattern, text in labels:
            if re.search(pattern, solver):
                names[solver] += f" ({text})"
    return names


def _num(value, fmt):
    return "—" if not np.isfinite(value) else format(value, fmt)


def _budget_cell(value, fmt, interpolated):
    return _num(value, fmt) + ("*" if interpolated and np.isfinite(value)
                               else "")


def markdown(table, budget, labels=(), references=None, far=None):
    """The tables, one per dataset; ``*`` marks interpolated readings;
    below each, the configurations read far from the budget (``far``,
    ``far_readings``)."""
    lines, any_interpolated = [], False
    for data, rows in table.groupby("dataset", sort=False):
        names = row_names(rows["solver"], labels)
        lines += [f"\n{data}\n",
                  f"| solver | H at {budget:g} epochs | test error (%) | "
                  "own y's test error (%) | epochs read | H at the end | "
                  "test error (%) | own y's test error (%) | epochs at the "
                  "end | diverged |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows.itertuples():
            interp = r.interpolated > 0
            any_interpolated |= interp
            div = (f"{r.diverged} of {r.runs}"
                   + (f", at {r.diverged_at:.3g} epochs" if r.diverged
                      else ""))
            if r.diverged_by_budget:
                div += f" ({r.diverged_by_budget} by {budget:g} epochs)"
            read = ("interpolated" if interp and r.interpolated == r.runs
                    - r.diverged_by_budget else _num(r.epochs_read, ".4g")
                    + (f" ({r.interpolated} interpolated)" if interp
                       else ""))
            lines.append(
                f"| {names[r.solver]} | "
                f"{_budget_cell(r.h_budget, '.3f', interp)} | "
                f"{_budget_cell(r.err_budget, '.1f', interp)} | "
                f"{_budget_cell(r.own_budget, '.1f', interp)} | {read} | "
                f"{_num(r.h_end, '.3f')} | {_num(r.err_end, '.1f')} | "
                f"{_num(r.own_end, '.1f')} | {_num(r.epochs_end, '.3g')} | "
                f"{div} |")
        for name, h, err in (references or {}).get(data, ()):
            lines.append(f"| reference: {name} | {_num(h, '.3f')} | "
                         f"{_num(err, '.1f')} | — | — | — | — | — | — | — |")
        coarse = (far or {}).get(data)
        if coarse:
            lines.append(
                f"\nRead more than {NEAR:g} epochs from {budget:g} epochs, "
                "the largest distance over the runs: the iteration that "
                "crossed the budget drew that much (an inner loop, a full "
                "pass; in parentheses the smallest step between two "
                "evaluations): " + "; ".join(
                    f"{names.get(s, s)} {g:.2f} (step {i:.2f})"
                    for s, g, i in coarse))
    if any_interpolated:
        lines.append(f"\n\\* interpolated linearly in epochs at {budget:g} "
                     "epochs: no evaluation at the budget (results not on "
                     "a common grid, or a budget between its points)")
    return "\n".join(lines)


def parse_label(text):
    key, _, name = text.rpartition("=")
    if not key or not name:
        raise argparse.ArgumentTypeError(
            f"--label wants PATTERN=TEXT (e.g. '^SFFBA.*R=inf=clipping "
            f"off'), got "
            f"{text!r}")
    return key, name


def load(paths):
    """The results files, each checked for the columns the table needs."""
    return pd.concat([results_file.read_checked(p, NEEDED,
                                                "study.table")
                      for p in paths], ignore_index=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--budget", type=float, required=True,
                        help="epochs of the first columns")
    parser.add_argument("--label", type=parse_label, action="append",
                        default=[])
    args = parser.parse_args(argv)
    df = load(args.results)
    runs = run_rows(df, args.budget)
    print(markdown(summary(runs), args.budget, args.label,
                   reference_rows(df), far_readings(runs)))


if __name__ == "__main__":
    main()
