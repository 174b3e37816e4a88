"""The tables of a comparison: each solver's H and test error at a budget
of epochs and at the end of its runs, median over the repetitions.

    python -m tools.study_table outputs/study_fashion.parquet --budget 10

One table per dataset (``dataset_name``): for each configuration, the
median over its repetitions of H(x) (``objective_value``, the validation
loss) and of the test error (%) at the last evaluation within ``--budget``
epochs (``objective_epochs``), then at the run's last evaluation with its
epochs, and how many repetitions diverged (a point flagged ``diverged =
1``).  A diverged repetition counts at the budget only if it had not
diverged by then.  Rows are sorted by H at the budget and named by the solver;
``--label PATTERN=TEXT`` adds ``(TEXT)`` to the name of every
configuration matching the regular expression PATTERN (``--label
"^SFFBA.*R=inf=clipping off"``).
docs/fashion_study.md prints its tables with this command.
"""
import argparse
import re

import numpy as np
import pandas as pd

RUN = ["dataset_name", "solver_name", "idx_rep"]


def run_rows(df, budget):
    """One row per run: H and test error at the budget and at the end."""
    rows = []
    for (data, solver, rep), run in df.groupby(RUN, sort=False):
        run = run.sort_values("objective_epochs")
        flags = run["objective_diverged"].to_numpy()
        diverged = bool((flags == 1).any())
        first_bad = int(np.argmax(flags == 1)) if diverged else len(run)
        sound = run.iloc[:first_bad]
        within = sound[sound["objective_epochs"] <= budget + 1e-9]
        at = within.iloc[-1] if len(within) else None
        end = sound.iloc[-1] if len(sound) else None
        rows.append(dict(
            dataset=data, solver=solver, rep=rep, diverged=diverged,
            diverged_at=(float(run["objective_epochs"].iloc[first_bad])
                         if diverged else np.nan),
            h_budget=np.nan if at is None else at["objective_value"],
            err_budget=(np.nan if at is None
                        else 100 * at["objective_test_error"]),
            h_end=np.nan if end is None else end["objective_value"],
            err_end=(np.nan if end is None
                     else 100 * end["objective_test_error"]),
            epochs_end=np.nan if end is None else end["objective_epochs"]))
    return pd.DataFrame(rows)


def summary(runs):
    """Median over repetitions per (dataset, configuration)."""
    def med(values):
        values = values.dropna()
        return float(values.median()) if len(values) else np.nan
    out = []
    for (data, solver), conf in runs.groupby(["dataset", "solver"],
                                             sort=False):
        out.append(dict(
            dataset=data, solver=solver, runs=len(conf),
            diverged=int(conf["diverged"].sum()),
            diverged_at=med(conf["diverged_at"]),
            h_budget=med(conf["h_budget"]),
            err_budget=med(conf["err_budget"]),
            h_end=med(conf["h_end"]), err_end=med(conf["err_end"]),
            epochs_end=med(conf["epochs_end"])))
    return pd.DataFrame(out).sort_values(["dataset", "h_budget"])


def short_name(solver, labels):
    name = solver.split("[")[0]
    for pattern, text in labels:
        if re.search(pattern, solver):
            name += f" ({text})"
    return name


def _num(value, fmt):
    return "—" if not np.isfinite(value) else format(value, fmt)


def markdown(table, budget, labels=()):
    lines = []
    for data, rows in table.groupby("dataset", sort=False):
        lines += [f"\n{data}\n",
                  f"| solver | H at {budget:g} epochs | test error (%) | "
                  "H at the end | test error (%) | epochs at the end | "
                  "diverged |",
                  "|---|---|---|---|---|---|---|"]
        for r in rows.itertuples():
            div = (f"{r.diverged} of {r.runs}"
                   + (f", at {r.diverged_at:.3g} epochs" if r.diverged
                      else ""))
            lines.append(
                f"| {short_name(r.solver, labels)} | "
                f"{_num(r.h_budget, '.3f')} | {_num(r.err_budget, '.1f')} | "
                f"{_num(r.h_end, '.3f')} | {_num(r.err_end, '.1f')} | "
                f"{_num(r.epochs_end, '.3g')} | {div} |")
    return "\n".join(lines)


def parse_label(text):
    key, _, name = text.rpartition("=")
    if not key or not name:
        raise argparse.ArgumentTypeError(
            f"--label wants PATTERN=TEXT (e.g. '^SFFBA.*R=inf=clipping "
            f"off'), got "
            f"{text!r}")
    return key, name


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--budget", type=float, required=True,
                        help="epochs of the first columns")
    parser.add_argument("--label", type=parse_label, action="append",
                        default=[])
    args = parser.parse_args(argv)
    df = pd.concat([pd.read_parquet(p) if p.endswith(".parquet")
                    else pd.read_csv(p) for p in args.results])
    print(markdown(summary(run_rows(df, args.budget)), args.budget,
                   args.label))


if __name__ == "__main__":
    main()
