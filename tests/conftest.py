import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from benchmark_utils.problem import make_problem  # noqa: E402
from benchmark_utils.simulated import make_quadratic  # noqa: E402


def problem_of(data):
    """The core's Problem for a quadratic dataset dict."""
    dx = data["dim_x"]
    dy = data["X_train"].shape[1] - dx
    return make_problem("quadratic", data["X_train"], data["y_train"],
                        data["X_val"], data["y_val"],
                        [dx, dy, data["ridge"], data["lam"]], dx, dy)


def start_point(data, seed=0, z_scale=0.1):
    dx = data["dim_x"]
    dy = data["X_train"].shape[1] - dx
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(dx), rng.standard_normal(dy),
            z_scale * rng.standard_normal(dy) / np.sqrt(dy))


@pytest.fixture(scope="session")
def small_data():
    """A small quadratic problem: n = 40 UL, m = 50 LL samples."""
    return make_quadratic(n=40, m=50, dim_x=3, dim_y=4, seed=3)


@pytest.fixture(scope="session")
def conv_data():
    """The convergence-test problem: n = 300, m = 400, d_x = 5, d_y = 10."""
    return make_quadratic(n=300, m=400, dim_x=5, dim_y=10, seed=1)


def glm_data(task, n=30, m=40, p=5, C=3, seed=0):
    """A small random dataset dict of a logistic task (DESIGN.md contract)."""
    rng = np.random.default_rng(seed)
    data = dict(task=task, X_train=rng.standard_normal((m, p)),
                X_val=rng.standard_normal((n, p)),
                X_test=rng.standard_normal((20, p)))
    for key, size in (("y_train", m), ("y_val", n), ("y_test", 20)):
        if task == "logreg":
            data[key] = rng.choice([-1.0, 1.0], size)
        else:
            data[key] = rng.integers(0, C, size).astype(float)
    if task != "logreg":
        data["n_classes"] = C
    if task == "datacleaning":
        data["l2_reg"] = 0.2
    return data


GLM_TASKS = ("logreg", "multilogreg", "datacleaning")
