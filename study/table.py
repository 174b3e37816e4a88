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
counts in ``diverged``; never its starting H).  A repetition that stopped
more than ``NEAR`` epochs before the budget, or before the end (the
target of its last point, ``end_of``), without diverging and not by its
stopping rule (benchopt's ``--timeout``, its ``-n`` cap:
``budget_reading.stop_cause``) is not read there: its configuration's
cells there say so ("— (stopped at 5.33 ep., timeout)"), and a footnote
counts such runs. Rows are sorted by H at the
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
from tools.arguments import positive_number
from study.budget_reading import (DIVERGED, EPOCHS, NEAR, grid_step,
                                  is_far, read_at, read_before,
                                  read_end, read_past, sound_points,
                                  stop_cause)
from tools.tune.report import CALLS_AT_BUDGET, CALLS_AT_END

RUN = ["dataset_name", "solver_name", "idx_rep"]
NEEDED = RUN + ["objective_epochs", "objective_value"]
# (table key, metric column, scale)
QUALITIES = (("h", "objective_value", 1.0),
             ("err", "objective_test_error", 100.0),
             ("own", "objective_test_error_iterate", 100.0))


# where a run is read at the budget (study.budget_reading): read_at,
# read_before, read_past
SIDES = {"at": read_at, "before": read_before, "past": read_past}


def end_of(df, budget):
    """The epochs the runs of ``df`` (results of one grid) were to end at:
    the target of their last point, callback call ``CALLS_AT_END`` of the
    Objective's grid, or off a grid ``CALLS_AT_END / CALLS_AT_BUDGET``
    times ``budget`` (the tuning's budget at call ``CALLS_AT_BUDGET``)."""
    step = grid_step(df)
    if step is None:
        return budget * CALLS_AT_END / CALLS_AT_BUDGET
    return CALLS_AT_END * step


def _longest(df, keys):
    """{objective name: the most points of any run of it} (key None when
    the results do not name their objective)."""
    by = ["objective_name"] if "objective_name" in df else []
    sizes = df.groupby(by + keys, sort=False).size()
    if not by:
        return {None: int(sizes.max())}
    return {name: int(n) for name, n in
            sizes.groupby(level=0, sort=False).max().items()}


def run_rows(df, budget, side="at", end=None):
    """One row per run: the qualities at the budget and at the end, the
    epochs read, how (``grid``, ``interpolated``, ``held``, ``diverged``,
    ``before``, ``past``, ``stopped``; ``how_end``: ``held``,
    ``diverged``, ``stopped``).  ``side``: where a run read more than
    ``NEAR`` epochs from the budget is read (``SIDES``): ``at`` the budget
    (``read_at``), its last evaluation ``before`` it, or its first
    ``past`` it; with ``end``, the epochs the runs were to end at
    (``end_of``), a run whose last evaluation is more than ``NEAR`` past
    ``end`` is read at its last at or before it when ``side`` is
    ``before``.  ``far``: the run reads differently on another side
    (``budget_reading.is_far``, or its end that far past ``end``).

    A run that did not diverge and whose last evaluation is more than
    ``NEAR`` before the budget (or before ``end``, when given) has no
    value there unless its stopping rule ended it (``stopped``, with
    ``cause``, its ``budget_reading.stop_cause``, and ``stopped_at``, the
    epochs of its last point)."""
    if side not in SIDES:
        raise ValueError(f"the budget reading must be one of "
                         f"{', '.join(SIDES)}, got {side!r}")
    step = grid_step(df)
    columns = [c for _, c, _ in QUALITIES]
    rows = []
    # results of several seeds: a run is also told by benchopt's seed
    keys = RUN + ["base_seed"] if "base_seed" in df else RUN
    longest = _longest(df, keys)
    target = budget if end is None else max(budget, end)
    for key, run in df.groupby(keys, sort=False):
        data, solver, rep = key[:3]
        sound, diverged_at = sound_points(run)
        stopped_at = float(sound[EPOCHS].iloc[-1]) if len(sound) \
            else np.nan
        # why it ended, where it ended before a reading's target
        cause = ""
        if np.isfinite(diverged_at):
            cause = DIVERGED
        elif stopped_at < target - NEAR:
            name = run["objective_name"].iloc[0] \
                if "objective_name" in run else None
            cause = stop_cause(run, longest[name])
        at = SIDES[side](run, budget, columns, step, cause=cause)
        last = read_end(run, columns, end, cause=cause)
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
                   epochs_end=last.epochs, how_end=last.how, cause=cause,
                   stopped_at=stopped_at,
                   # its reading can differ before and past the budget
                   far=is_far(at, budget) or end_far)
        for key, col, scale in QUALITIES:
            row[f"{key}_budget"] = scale * at.values.get(col, np.nan)
            row[f"{key}_end"] = scale * last.values.get(col, np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def read_runs(df, budget):
    """``run_rows`` of the results of each grid (``objective_name``) at
    ``budget``, each with the end its runs were to reach (``end_of``)."""
    parts = (df.groupby("objective_name", sort=False)
             if "objective_name" in df else [(None, df)])
    return pd.concat([run_rows(part, budget, end=end_of(part, budget))
                      for _, part in parts], ignore_index=True)


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
        stopped = conf["how"] == "stopped"
        stopped_end = conf["how_end"] == "stopped"
        row = dict(dataset=data, solver=solver, runs=len(conf),
                   diverged=int(conf["diverged"].sum()),
                   diverged_at=med(conf["diverged_at"]),
                   diverged_by_budget=int((conf["how"] == "diverged").sum()),
                   interpolated=int((conf["how"] == "interpolated").sum()),
                   epochs_read=med(conf.loc[~stopped, "epochs_read"]),
                   epochs_end=med(conf.loc[~stopped_end, "epochs_end"]),
                   # the runs stopped before each reading: (epochs, cause)
                   stops_budget=_stops(conf[stopped]),
                   stops_end=_stops(conf[stopped_end]))
        for key, _, _ in QUALITIES:
            # not over the configuration's repetitions: no value
            row[f"{key}_budget"] = np.nan if stopped.any() else \
                med(conf[f"{key}_budget"])
            row[f"{key}_end"] = np.nan if stopped_end.any() else \
                med(conf[f"{key}_end"])
        out.append(row)
    table = pd.DataFrame(out)
    return table.sort_values(["dataset", "h_budget"], kind="stable",
                             na_position="last")


def _stops(runs):
    """[(epochs, cause)] of ``runs`` (rows of ``run_rows``), in epochs
    order."""
    return sorted(zip(runs["stopped_at"].astype(float), runs["cause"]))


def stop_text(stops, runs):
    """A cell of a configuration with runs stopped before its reading
    (``stops``, of its ``runs``): "— (stopped at 5.33 ep., timeout)" (its
    one run), "— (2 of 10 stopped at 5.33, 7.4 ep., timeout)"."""
    causes = list(dict.fromkeys(c for _, c in stops))
    parts = []
    for cause in causes:
        at = ", ".join(f"{e:.3g}" for e, c in stops if c == cause)
        parts.append(f"{at} ep." + (f", {cause}" if cause else ""))
    head = "stopped at " if runs == 1 else \
        f"{len(stops)} of {runs} stopped at "
    return f"— ({head}{'; '.join(parts)})"


def stop_note(table, budget):
    """The footnote of the tables' runs stopped before a reading, or
    None."""
    n_budget = sum(len(s) for s in table["stops_budget"])
    n_end = sum(len(s) for s in table["stops_end"])
    if not n_budget and not n_end:
        return None
    # a run stopped before the earlier reading also stopped before the
    # later: the longer list of each configuration has every one
    causes = pd.Series([c or "cause not in the results"
                        for b, e in zip(table["stops_budget"],
                                        table["stops_end"])
                        for _, c in (b if len(b) > len(e) else e)])
    said = ", ".join(f"{c}: {n}" for c, n in causes.value_counts().items())
    runs = "run" if n_budget == 1 else "runs"
    return (f"\n— (stopped at …): {n_budget} {runs} stopped more than "
            f"{NEAR:g} epochs before {budget:g} epochs and {n_end} before "
            "the end (the target of their last point) without diverging, "
            f"not by their stopping rule ({said}); a "
            "configuration with such a run has no value at that reading "
            "(the median of its other repetitions would not be over the "
            "same splits), and its epochs are those of its other runs. A "
            "timeout is benchopt's --timeout (100 s by default; the study's "
            "configs set no-timeout), max runs its -n cap: the run's last "
            "point came before the reading")


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
            budget_cells = [_budget_cell(r.h_budget, '.3f', interp),
                            _budget_cell(r.err_budget, '.1f', interp),
                            _budget_cell(r.own_budget, '.1f', interp)]
            end_cells = [_num(r.h_end, '.3f'), _num(r.err_end, '.1f'),
                         _num(r.own_end, '.1f')]
            if r.stops_budget:
                budget_cells = [stop_text(r.stops_budget, r.runs), "—", "—"]
            if r.stops_end:
                end_cells = [stop_text(r.stops_end, r.runs), "—", "—"]
            div = (f"{r.diverged} of {r.runs}"
                   + (f", at {r.diverged_at:.3g} epochs" if r.diverged
                      else ""))
            if r.diverged_by_budget:
                div += f" ({r.diverged_by_budget} by {budget:g} epochs)"
            read = ("interpolated" if interp and r.interpolated == r.runs
                    - r.diverged_by_budget - len(r.stops_budget)
                    else _num(r.epochs_read, ".4g")
                    + (f" ({r.interpolated} interpolated)" if interp
                       else ""))
            lines.append(
                f"| {names[r.solver]} | " + " | ".join(budget_cells)
                + f" | {read} | " + " | ".join(end_cells)
                + f" | {_num(r.epochs_end, '.3g')} | {div} |")
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
    stopped = stop_note(table, budget)
    if stopped:
        lines.append(stopped)
    return "\n".join(lines)


def parse_label(text):
    key, _, name = text.rpartition("=")
    if not key or not name:
        raise argparse.ArgumentTypeError(
            f"--label wants PATTERN=TEXT (e.g. '^SFFBA.*R=inf=clipping "
            f"off'), got "
            f"{text!r}")
    try:
        re.compile(key)
    except re.error as err:
        raise argparse.ArgumentTypeError(
            f"--label {text!r}: its PATTERN {key!r} is not a regular "
            f"expression ({err})") from None
    return key, name


def load(paths):
    """The results files, each checked for the columns the table needs."""
    return pd.concat([results_file.read_checked(p, NEEDED,
                                                "study.table")
                      for p in paths], ignore_index=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m study.table",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--budget", type=positive_number("--budget"),
                        required=True,
                        help="epochs of the first columns (a finite number "
                             "> 0)")
    parser.add_argument("--label", type=parse_label, action="append",
                        default=[])
    args = parser.parse_args(argv)
    df = load(args.results)
    runs = read_runs(df, args.budget)
    print(markdown(summary(runs), args.budget, args.label,
                   reference_rows(df), far_readings(runs)))


if __name__ == "__main__":
    main()
