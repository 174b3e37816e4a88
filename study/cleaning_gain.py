"""Where hyper-cleaning matters: test errors of the reference weights on
the ``mnist`` dataset's hyper-cleaning task, over C_r and p~.

    python -m study.cleaning_gain --variant fashion --ratio 0.5,0.7,0.9 \\
        --l2-reg 0.2,0.02,0.002 --splits 5 \\
        [--n-train N --n-val N --n-test N --base-seed S]

For each C_r (``l2_reg``), p~ (``ratio``) and split r (the dataset's split
in repetition r of ``benchopt run --seed S``), builds the task as the
dataset does (``data.mnist.mnist_task``; default sizes ``data/sizes.py``,
local files only) and scores its sample-weight references as the metrics
do (``reference_results.GLMReferences`` on ``exact_glm.GLMExact``).
Prints a Markdown table, one row per (C_r, p~): median [min, max] over
the splits of the test error (%) of y*(x) with every weight 1, with the
oracle weights (1 on the labels the corruption left unchanged, 0 on the
others), of the model of the validation samples alone, and of the gain
(all weights 1 minus oracle weights, per split).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

from benchmark_utils.data import mnist, sizes
from benchmark_utils.exact_glm import GLMExact
from benchmark_utils.metrics import blas_limit
from benchmark_utils.reference_results import GLMReferences
from tools.z_radius import benchopt_seeds

REPO = Path(__file__).resolve().parents[1]
# the table's columns: reference result -> header
COLUMNS = {"weights_one": "all weights 1", "weights_oracle": "oracle weights",
           "val_only": "validation only", "gain": "gain (1 - oracle)"}


def folders(variant):
    """Where the images of ``variant`` are read: the benchmark's
    ``data/<key>`` folder, then Debian's package for Fashion-MNIST."""
    if variant not in mnist.VARIANTS:
        raise ValueError(f"--variant must be one of {mnist.VARIANTS}, got "
                         f"{variant!r}")
    local = REPO / "data" / mnist.DATA_PATHS_KEYS[variant]
    return mnist.default_folders(variant, local)


def load_arrays(variant):
    """The parsed images of ``variant`` from local files (no download)."""
    return mnist.load_mnist(variant, folders(variant), cache_dir=None,
                            download=False)


def split_errors(arrays, l2_reg, ratio, seed, n_train, n_val, n_test):
    """Test errors (%) of one split: y*(x) at every weight 1, at the oracle
    weights, the validation-only model, and the gain (first minus second)."""
    data = mnist.mnist_task(arrays, n_train=n_train, n_val=n_val,
                            n_test=n_test, ratio=ratio, seed=seed,
                            l2_reg=l2_reg)
    with blas_limit(), np.errstate(over="ignore", divide="ignore"):
        exact = GLMExact(data["task"], data, products="float32")
        ref = GLMReferences(exact, data).sample_weights()
    out = {name: 100 * ref[f"ref_{name}_test_error"]
           for name in list(COLUMNS)[:3]}
    out["gain"] = out["weights_one"] - out["weights_oracle"]
    return out


def gain_rows(arrays, l2_regs, ratios, splits, base_seed=0,
              n_sizes=sizes.MNIST, log=None):
    """One row per (C_r, p~): its per-split errors (``split_errors``) over
    the dataset seeds of repetitions 0..splits-1."""
    rows = []
    for l2_reg in l2_regs:
        for ratio in ratios:
            per_split = []
            for rep in range(splits):
                start = time.perf_counter()
                seed = benchopt_seeds(rep, base_seed)[0]
                per_split.append(split_errors(arrays, l2_reg, ratio, seed,
                                              *n_sizes))
                if log is not None:
                    print(f"C_r={l2_reg:g} p~={ratio:g} split {rep}: "
                          f"{time.perf_counter() - start:.1f} s", file=log,
                          flush=True)
            rows.append(dict(l2_reg=l2_reg, ratio=ratio, splits=per_split))
    return rows


def cell(values):
    """``median [min, max]`` of ``values``, one decimal."""
    return (f"{np.median(values):.1f} [{np.min(values):.1f}, "
            f"{np.max(values):.1f}]")


def table(rows):
    """The Markdown table of ``gain_rows``'s rows: medians [min, max] of the
    test errors (%) over the splits."""
    lines = ["| C_r | p~ | " + " | ".join(COLUMNS.values()) + " |",
             "|---|---|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = [cell([s[name] for s in row["splits"]]) for name in COLUMNS]
        lines.append(f"| {row['l2_reg']:g} | {row['ratio']:g} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_numbers(text, option, allowed, ok):
    """The comma-separated numbers of ``option``, each finite and ``ok``
    (``allowed`` says which values are)."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or not all(np.isfinite(v) and ok(v) for v in values):
        raise ValueError(f"{option} must be comma-separated numbers "
                         f"{allowed}, got {text!r}")
    return values


def parse_count(text, option, high, low=1):
    """The integer ``text`` of ``option`` if it is in ``low``..``high``."""
    value = int(text) if str(text).strip().isdigit() else low - 1
    if not low <= value <= high:
        raise ValueError(f"{option} must be an integer in {low}..{high}, "
                         f"got {text!r}")
    return value


def main(argv=None):
    """Parse the options, print the variant, sizes and splits, then the
    table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="fashion")
    parser.add_argument("--ratio", default="0.5,0.7,0.9")
    parser.add_argument("--l2-reg", default="0.2")
    parser.add_argument("--splits", default="5")
    parser.add_argument("--base-seed", default="0")
    for name, default in zip(("train", "val", "test"), sizes.MNIST):
        parser.add_argument(f"--n-{name}", default=str(default))
    args = parser.parse_args(argv)
    try:  # bad values: one line naming the option (exit code 2)
        folders(args.variant)
        ratios = parse_numbers(args.ratio, "--ratio", "in [0, 1]",
                               lambda v: 0 <= v <= 1)
        l2_regs = parse_numbers(args.l2_reg, "--l2-reg", "> 0",
                                lambda v: v > 0)
        splits = parse_count(args.splits, "--splits", 10 ** 6)
        base_seed = parse_count(args.base_seed, "--base-seed", 2 ** 32,
                                low=0)
        n_train = parse_count(args.n_train, "--n-train",
                              mnist.N_TRAIN_IMAGES - 1)
        n_val = parse_count(args.n_val, "--n-val",
                            mnist.N_TRAIN_IMAGES - n_train)
        n_test = parse_count(args.n_test, "--n-test", mnist.N_TEST_IMAGES)
    except ValueError as err:
        parser.error(str(err))
    arrays = load_arrays(args.variant)
    print(f"{mnist.PRETTY[args.variant]}, n_train / n_val / n_test = "
          f"{n_train} / {n_val} / {n_test}: test error (%), median [min, "
          f"max] over {splits} splits (repetitions 0..{splits - 1} of "
          f"--seed {base_seed})\n")
    rows = gain_rows(arrays, l2_regs, ratios, splits, base_seed,
                     (n_train, n_val, n_test), log=sys.stderr)
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
