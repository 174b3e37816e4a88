"""``study.cleaning_gain``: its test errors are the reference results the
Objective computes, its gain is the difference of its columns, its table
has one row per (C_r, p~), and bad options are named (docs/datasets.md,
"Where cleaning matters")."""
import re

import numpy as np
import pytest

from benchmark_utils.data import mnist
from benchmark_utils.metrics import make_metrics
from study import cleaning_gain
from tools.z_radius import benchopt_seeds

SMALL = (300, 100, 100)  # the mnist dataset's test sizes
FASHION = cleaning_gain.folders("fashion")
needs_fashion = pytest.mark.skipif(
    not mnist.local_copy_available("fashion", FASHION),
    reason=f"Fashion-MNIST is not installed in {FASHION[-1]} (Debian's "
           "dataset-fashion-mnist): the mnist dataset cannot run offline")


@pytest.fixture(scope="module")
def small_run():
    """The command on the small task, C_r = 0.2, p~ = 0.5 and 0.9, one
    split: the images, its rows and its printed table."""
    arrays = cleaning_gain.load_arrays("fashion")
    rows = cleaning_gain.gain_rows(arrays, (0.2,), (0.5, 0.9), 1,
                                   n_sizes=SMALL)
    return arrays, rows, cleaning_gain.table(rows)


@needs_fashion
def test_errors_are_the_objectives_references(small_run):
    arrays, rows, _ = small_run
    row = rows[1]
    assert (row["l2_reg"], row["ratio"]) == (0.2, 0.9)
    data = mnist.mnist_task(arrays, *SMALL, ratio=0.9, l2_reg=0.2,
                            seed=benchopt_seeds(0)[0])
    ref = make_metrics(data).references()
    for name in ("weights_one", "weights_oracle", "val_only"):
        assert row["splits"][0][name] == pytest.approx(
            100 * ref[f"ref_{name}_test_error"], abs=1e-9)
    # at p~ = 0.9 the oracle weights beat every weight 1 on this split
    assert row["splits"][0]["gain"] > 5


@needs_fashion
def test_gain_is_the_difference_of_the_columns(small_run):
    _, rows, table = small_run
    for row, line in zip(rows, table.splitlines()[2:], strict=True):
        split = row["splits"][0]
        assert split["gain"] == split["weights_one"] - \
            split["weights_oracle"]
        medians = [float(c.split(" [")[0]) for c in line.split(" | ")[2:]]
        one, oracle, _, gain = medians
        assert gain == pytest.approx(one - oracle, abs=0.11)  # rounding
    # the validation-only model does not depend on p~: same split and C_r
    assert rows[0]["splits"][0]["val_only"] == \
        rows[1]["splits"][0]["val_only"]


def test_one_row_per_pair(monkeypatch):
    calls = []

    def fake(arrays, l2_reg, ratio, seed, n_train, n_val, n_test):
        calls.append((l2_reg, ratio, seed, n_train, n_val, n_test))
        return dict(weights_one=30.0, weights_oracle=20.0, val_only=19.0,
                    gain=10.0)
    monkeypatch.setattr(cleaning_gain, "split_errors", fake)
    rows = cleaning_gain.gain_rows(None, (0.2, 0.02, 0.002), (0.5, 0.9), 3,
                                   base_seed=1, n_sizes=SMALL)
    lines = cleaning_gain.table(rows).splitlines()
    assert len(lines) == 2 + 6  # header, rule, one row per (C_r, p~)
    assert [line.split(" | ")[:2] for line in lines[2:]] == [
        [f"| {c}", p] for c in ("0.2", "0.02", "0.002")
        for p in ("0.5", "0.9")]
    # every (C_r, p~) on the splits of repetitions 0..2 of --seed 1
    seeds = [benchopt_seeds(r, 1)[0] for r in range(3)]
    assert calls == [(c, p, s) + SMALL for c in (0.2, 0.02, 0.002)
                     for p in (0.5, 0.9) for s in seeds]
    assert len(set(seeds)) == 3


def test_cells_are_median_min_max():
    rows = [dict(l2_reg=0.02, ratio=0.9, splits=[
        dict(weights_one=w, weights_oracle=o, val_only=v, gain=w - o)
        for w, o, v in ((40.0, 20.0, 18.0), (30.0, 25.0, 19.5),
                        (50.0, 21.0, 17.0))])]
    line = cleaning_gain.table(rows).splitlines()[-1]
    assert line == ("| 0.02 | 0.9 | 40.0 [30.0, 50.0] | 21.0 [20.0, 25.0] "
                    "| 18.0 [17.0, 19.5] | 20.0 [5.0, 29.0] |")
    assert np.median([20.0, 5.0, 29.0]) != 40.0 - 21.0  # per-split gains


@pytest.mark.parametrize("argv, message", [
    (["--variant", "kmnist"], r"--variant must be one of \('mnist', "),
    (["--ratio", "0.5,1.5"], r"--ratio must be .* in \[0, 1\], got '0.5,1"),
    (["--l2-reg", "0"], r"--l2-reg must be .* > 0, got '0'"),
    (["--l2-reg", "nan"], r"--l2-reg must be"),
    (["--splits", "two"], r"--splits must be an integer in 1\.\."),
    (["--n-train", "59000", "--n-val", "2000"],
     r"--n-val must be an integer in 1\.\.1000, got '2000'"),
    (["--n-test", "0"], r"--n-test must be an integer in 1\.\.10000"),
])
def test_bad_options_are_named(argv, message, capsys):
    # one line naming the option, no traceback (argparse's exit code 2)
    with pytest.raises(SystemExit) as err:
        cleaning_gain.main(argv)
    assert err.value.code == 2
    assert re.search(message, capsys.readouterr().err)
