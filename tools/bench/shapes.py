"""Problems the bench runs on, and the configs and runs of the presets
and of the baseline solvers.

Every problem is a dataset dict of the contract of docs/architecture.md turned into the
core's ``Problem`` by ``problem.problem_from_data``; runs start from
``problem.starting_point`` (the Objective's starting point).

* ``quadratic``: the Simulated problem, d_x = d_y = ``dim``, n = m;
* real shapes (``SHAPE_SPECS``), seeded random data of the exact sizes
  (standard normal features, uniformly random labels):

  - ijcnn1: task ``logreg``, 49 990 training / 91 701 validation rows, 22
    features, labels -1 / +1;
  - covtype: task ``multilogreg``, 7 classes, 371 847 / 92 962 rows (and
    116 203 test rows), 54 features;
  - mnist: task ``datacleaning``, 10 classes, C_r = 0.2, 20 000 / 5 000 rows
    (and 10 000 test rows), 784 features;

* ``fashion``: real Fashion-MNIST hyper-cleaning (the mnist dataset's
  defaults), for the metric evaluation only.
"""
import numpy as np

from .settings import STEP_SIZE

SHAPES = ("quadratic", "ijcnn1", "covtype", "mnist")
# The real datasets' tasks and sizes (rows of X_train / X_val / X_test).
SHAPE_SPECS = {
    "ijcnn1": dict(task="logreg", n_features=22, n_train=49990, n_val=91701,
                   n_test=None, params={}),
    "covtype": dict(task="multilogreg", n_features=54, n_train=371847,
                    n_val=92962, n_test=116203, params=dict(n_classes=7)),
    "mnist": dict(task="datacleaning", n_features=784, n_train=20000,
                  n_val=5000, n_test=10000,
                  params=dict(n_classes=10, l2_reg=0.2)),
}
ARRAYS = ("X_train", "y_train", "X_val", "y_val", "X_test", "y_test")


# --------------------------------------------------------------------------
# Dataset dicts
# --------------------------------------------------------------------------
def quadratic_data(dim, n, seed=0):
    """The Simulated quadratic dataset with d_x = d_y = dim and n = m."""
    from benchmark_utils.simulated import make_quadratic
    return make_quadratic(n=n, m=n, dim_x=dim, dim_y=dim, seed=seed)


def shape_labels(rng, spec, n):
    """``n`` random labels of a shape's task: -1.0 / +1.0 (logreg), else
    classes 0..C-1 stored as float64 (multilogreg, datacleaning)."""
    if spec["task"] == "logreg":
        return 2.0 * rng.integers(0, 2, n) - 1.0
    return rng.integers(0, spec["params"]["n_classes"], n).astype(np.float64)


def shape_data(shape, seed=0):
    """Dataset dict (test set not drawn yet) of seeded random data of
    ``shape``'s sizes: N(0, 1) features, uniform labels."""
    spec = SHAPE_SPECS[shape]
    rng = np.random.default_rng([seed, 0])
    data = dict(task=spec["task"], X_test=None, y_test=None,
                **spec["params"])
    for part in ("train", "val"):
        n = spec["n_" + part]
        data["X_" + part] = rng.standard_normal((n, spec["n_features"]))
        data["y_" + part] = shape_labels(rng, spec, n)
    return data


def add_test_set(data, shape, seed=0):
    """Draw the test set of ``shape`` into ``data`` (ijcnn1: the validation
    set, as the dataset does: LIBSVM ships no third set)."""
    spec = SHAPE_SPECS[shape]
    if spec["n_test"] is None:
        data["X_test"], data["y_test"] = data["X_val"], data["y_val"]
        return
    rng = np.random.default_rng([seed, 1])
    data["X_test"] = rng.standard_normal((spec["n_test"],
                                          spec["n_features"]))
    data["y_test"] = shape_labels(rng, spec, spec["n_test"])


def fashion_data():
    """The mnist dataset's default hyper-cleaning task (20 000 / 5 000 /
    10 000, ratio 0.5) on real Fashion-MNIST, from Debian's
    ``dataset-fashion-mnist`` or the ``fashion_mnist`` folder of
    ``data_paths`` (no download)."""
    from benchmark_utils.data import mnist
    folders = mnist.default_folders("fashion", None)
    arrays = mnist.load_mnist("fashion", folders, cache_dir=None,
                              download=False)
    data = mnist.mnist_task(arrays, n_train=20000, n_val=5000,
                            n_test=10000, ratio=0.5, seed=0)
    data.pop("y_train_clean", None)
    data.pop("corruption_ratio", None)
    return data


# --------------------------------------------------------------------------
# Problems, configs and runs (the core's public API)
# --------------------------------------------------------------------------
def task_params(data):
    """The task parameters of a dataset dict (everything but the task and
    the arrays)."""
    return {k: v for k, v in data.items() if k != "task" and k not in ARRAYS}


def problem_of(data):
    """The core's ``Problem`` of a dataset dict (arrays shared; the test
    set is the metrics' business, not the problem's)."""
    from benchmark_utils.problem import problem_from_data
    return problem_from_data(data["task"], data["X_train"], data["y_train"],
                             data["X_val"], data["y_val"],
                             **task_params(data))


def data_rows(data):
    """(number of samples, bytes of rows) of the training + validation
    sets: what one full pass reads."""
    return (len(data["X_train"]) + len(data["X_val"]),
            data["X_train"].nbytes + data["X_val"].nbytes)


def baseline_names():
    """Names of the baseline solvers (``algorithms.BASELINES``: StocBiO,
    AmIGO, ...), which the bench accepts beside the presets."""
    from benchmark_utils.algorithms import BASELINES
    return tuple(BASELINES)


def is_baseline(name):
    """Whether ``name`` is a baseline solver (not a PnPBO preset)."""
    return name in baseline_names()


def make_config(name, batch_size, step_size=STEP_SIZE, n=None, m=None,
                **overrides):
    """``algorithms.config_of`` of solver ``name`` at its defaults with the
    bench's batch and step size and the ``overrides`` (e.g. ``sampling``);
    ``n``, ``m`` (the problem's UL / LL samples) set VRBO's restart
    period."""
    from benchmark_utils.algorithms import config_of
    sizes = None if n is None or m is None else (n, m)
    return config_of(name, sizes=sizes, batch_size=batch_size,
                     step_size=step_size, **overrides)


def problem_config(problem, name, batch_size, **kwargs):
    """``make_config`` with the sizes of ``problem`` (n, m)."""
    return make_config(name, batch_size, n=problem.n, m=problem.m, **kwargs)


def make_run(problem, config, seed=0):
    """A fresh run of ``config`` (``algorithms.run_of``) from the
    Objective's starting point of ``seed`` (``problem.starting_point``)."""
    from benchmark_utils.algorithms import run_of
    from benchmark_utils.problem import starting_point
    return run_of(problem, config, *starting_point(problem, seed), seed)


def warm_core(baselines=(), dtype="float64", task="quadratic"):
    """Compile the core for ``task`` or load it from numba's cache, as a
    solver's warm-up does (``engine.compile_for``), for features of
    ``dtype``; also the loops of the baseline solvers named in
    ``baselines`` (benchopt names; ``True``: every family)."""
    from benchmark_utils.engine import (compile_baselines, compile_core,
                                        compile_for)
    compile_core(dtype, task)
    if baselines is True:
        compile_baselines(dtype, task)
        return
    for name in baselines or ():
        compile_for(name, dtype, task)
