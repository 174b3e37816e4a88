"""The reference results of a dataset's splits, without running a solver:
the dataset of each repetition drawn as ``benchopt run --seed S`` draws it,
its reference results (``benchmark_utils.reference_results``) and H and
test error at the run's own starting point.

    python -m study.reference_table --dataset "mnist[variant=fashion,ratio=0.9]" \\
        --seed 7 --repetitions 1

One row per repetition, then the median: H and test error (%) of each
reference, and ``start``, the run's starting point x0 (the centre of the
draw plus its Gaussian draw, as every solver of that repetition starts).
The rows are those stored with each run's results (``objective_ref_*``),
so results that predate them (``study/data/*.parquet``) can be completed:
the same ``--seed`` and repetition give the same split.
"""
import argparse
import warnings
from pathlib import Path

import numpy as np
from benchopt.benchmark import Benchmark
from benchopt.utils.run_context import RunContext

from benchmark_utils.reference_columns import NAMES
from tools.tune.run import _instance

ROOT = Path(__file__).resolve().parents[1]


def instance(classes, spec):
    """The benchopt instance of ``spec`` ('NAME[key=value,...]'), as
    ``tools.tune`` builds it; a bad spec ends the command with its
    message."""
    try:
        return _instance(classes, spec, "--dataset")
    except ValueError as e:
        raise SystemExit(str(e)) from None


def split_references(dataset_spec, seed, repetition):
    """{column: value}: the references of one repetition's split, with
    ``start_value`` and ``start_test_error`` at the run's starting point."""
    bench = Benchmark(str(ROOT))
    dataset = instance(bench.get_datasets(), dataset_spec)
    objective = bench.get_benchmark_objective().get_instance()
    RunContext().set_run_context(objective, dataset, "reference",
                                 repetition=repetition, base_seed=seed)
    skip, reason = objective._set_dataset(dataset)
    if skip:
        raise SystemExit(f"--dataset {dataset_spec}: the Objective skips it "
                         f"({reason})")
    metrics = objective.metrics
    out = dict(metrics.references())
    start = objective.get_objective()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        at_start = metrics(start["x0"], start["y0"], start["z0"])
    out["start_value"] = at_start["value"]
    out["start_test_error"] = at_start.get("test_error", np.nan)
    return out


def rows(refs):
    """[(label, H, test error (%))] of one split's references."""
    out = [("the runs' starting point", refs["start_value"],
            100 * refs["start_test_error"])]
    for name, label in NAMES.items():
        if f"ref_{name}_value" in refs:
            out.append((label, refs[f"ref_{name}_value"],
                        100 * refs.get(f"ref_{name}_test_error", np.nan)))
    return out


def markdown(per_rep):
    """The table: one column pair per repetition, then the median."""
    labels = [label for label, _, _ in rows(per_rep[0])]
    head = "| reference | " + " | ".join(
        f"H (rep {r}) | test error (%)" for r in range(len(per_rep)))
    lines = [head + (" | median H | median test error (%) |"
                     if len(per_rep) > 1 else " |"),
             "|---" * (1 + 2 * len(per_rep) + 2 * (len(per_rep) > 1))
             + "|"]
    table = [rows(r) for r in per_rep]
    for i, label in enumerate(labels):
        cells = [f"{t[i][1]:.3f} | {t[i][2]:.2f}" for t in table]
        if len(per_rep) > 1:
            cells.append(f"{np.median([t[i][1] for t in table]):.3f} | "
                         f"{np.median([t[i][2] for t in table]):.2f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.reference_table",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", required=True,
                   help="a benchopt dataset selection, one value per "
                        "parameter")
    p.add_argument("--seed", type=int, default=0,
                   help="benchopt run's --seed (0 when it was not given)")
    p.add_argument("--repetitions", type=int, default=1)
    args = p.parse_args(argv)
    per_rep = [split_references(args.dataset, args.seed, r)
               for r in range(args.repetitions)]
    print(markdown(per_rep))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
