"""Read-only, non-contiguous and pandas inputs (docs/datasets.md "Datasets", a
user's own dataset): the Objective hands the core and the metrics
C-contiguous, writable numpy arrays, so numba never compiles another
specialisation on a run's clock and a pandas Series never reaches the
metrics."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from bench_helpers import ROOT, benchmark
from benchmark_utils import engine
from benchmark_utils.data.storage import owned_arrays
from benchmark_utils.algorithms import PnPBORun, config_of
from benchmark_utils.engine import compile_core
from benchmark_utils.problem import starting_point
from conftest import glm_data


def read_only(data, tmp_path):
    """``data`` with X_train memory-mapped read-only, X_val a read-only
    copy, y_train a pandas Series (pandas >= 3: read-only values) and
    y_val a broadcast view where that is possible."""
    out = dict(data)
    path = tmp_path / "X_train.npy"
    np.save(path, data["X_train"])
    out["X_train"] = np.load(path, mmap_mode="r")
    X_val = data["X_val"].copy()
    X_val.flags.writeable = False
    out["X_val"] = X_val
    out["y_train"] = pd.Series(data["y_train"])
    if np.all(data["y_val"] == data["y_val"][0]):
        out["y_val"] = np.broadcast_to(data["y_val"][:1], data["y_val"].shape)
    return out


@pytest.mark.parametrize("task", ["quadratic", "multilogreg"])
def test_the_objective_owns_writable_contiguous_arrays(task, tmp_path,
                                                       small_data):
    data = small_data if task == "quadratic" else glm_data(task)
    given = read_only(data, tmp_path)
    assert not given["X_train"].flags.writeable
    objective = benchmark().get_benchmark_objective().get_instance()
    objective.set_data(**given)
    p = objective.problem
    for a in (p.Xf, p.yf, p.Xg, p.yg, p.params):
        assert a.flags.writeable and a.flags.c_contiguous
    # the metrics get numpy arrays too (a Series used to reach them)
    x0, y0, z0 = starting_point(p, 0)
    out = objective.evaluate_result(x0, y0, z0, 0)
    assert out["diverged"] == 0 and np.isfinite(out["value"])
    # the core runs on them without compiling another specialisation (of
    # the task's own core: read-only arrays would type apart from it)
    compile_core(engine.feature_dtype(p), task)
    before = len(engine.run_iterations.signatures)
    PnPBORun(p, config_of("SPABA", batch_size=4), x0, y0, z0, 0).run(3)
    assert len(engine.run_iterations.signatures) == before


def test_owned_arrays_copy_only_what_needs_it():
    a = np.ones((3, 2))
    ro = np.ones((3, 2))
    ro.flags.writeable = False
    out = owned_arrays(dict(X_train=a, X_val=ro, y_val=np.ones(6)[::2],
                            n_classes=3))
    assert out["X_train"] is a  # already writable and contiguous
    assert out["X_val"].flags.writeable and out["X_val"] is not ro
    assert out["y_val"].flags.c_contiguous
    assert out["n_classes"] == 3


DATASET = '''
import numpy as np
from benchopt import BaseDataset

from benchmark_utils.data import small


class Dataset(BaseDataset):
    """digits hyper-cleaning with read-only arrays, as pandas>=3 and
    np.load(mmap_mode="r") give them."""
    name = "readonly_digits"
    parameters = {}

    def get_data(self):
        data = small.digits_task(ratio=0.5, seed=0)
        for key in ("X_train", "y_train", "X_val", "y_val", "X_test",
                    "y_test"):
            data[key] = np.ascontiguousarray(data[key])
            data[key].flags.writeable = False
        return data
'''


def test_a_read_only_dataset_gets_every_curve_under_a_short_timeout(
        tmp_path):
    """A user's dataset of read-only arrays, --timeout 5: every solver (a
    single-loop one and a baseline) gets a curve, not the 2 points of a
    compile inside the budget."""
    bench = tmp_path / "bench"
    bench.mkdir()
    for name in ("objective.py", "config.yml"):
        shutil.copy(os.path.join(ROOT, name), bench / name)
    shutil.copytree(os.path.join(ROOT, "solvers"), bench / "solvers")
    (bench / "datasets").mkdir()
    (bench / "datasets" / "readonly_digits.py").write_text(
        textwrap.dedent(DATASET))
    os.symlink(os.path.join(ROOT, "benchmark_utils"),
               bench / "benchmark_utils")
    out = tmp_path / "res.parquet"
    cmd = [sys.executable, "-m", "benchopt", "run", str(bench),
           "-d", "readonly_digits", "-s", "SPABA", "-s", "StocBiO",
           "-n", "8", "--timeout", "5", "--no-plot", "--no-html",
           "--no-cache", "--output", str(out)]
    env = dict(os.environ, BENCHOPT_RAISE_ON_ERROR="true")
    proc = subprocess.run(cmd, cwd=bench, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    df = pd.read_parquet(out)
    counts = df.groupby(df.solver_name.str.split("[").str[0]).size()
    assert set(counts.index) == {"SPABA", "StocBiO"}
    assert (counts >= 5).all(), counts
