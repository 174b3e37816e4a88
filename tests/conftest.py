import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from benchmark_utils.simulated import make_quadratic  # noqa: E402
from benchmark_utils.problem import (  # noqa: E402
    problem_from_data, starting_point)


def problem_of(data):
    """The core's Problem of a dataset dict (the Objective's builder,
    ``problem.problem_from_data``)."""
    return problem_from_data(**data)


def start_point(data, seed=0):
    """The Objective's starting point of a dataset dict from ``seed``
    (``problem.starting_point``; quadratic: x0, y0 ~ N(0, I), z0 ~ N(0, 0.01
    I / d_y))."""
    return starting_point(problem_of(data), seed)


@pytest.fixture(scope="session")
def small_data():
    """A small quadratic problem: n = 40 UL, m = 50 LL samples."""
    return make_quadratic(n=40, m=50, dim_x=3, dim_y=4, seed=3)


@pytest.fixture(scope="session")
def conv_data():
    """The convergence-test problem: n = 300, m = 400, d_x = 5, d_y = 10."""
    return make_quadratic(n=300, m=400, dim_x=5, dim_y=10, seed=1)


def glm_data(task, n=30, m=40, p=5, C=3, seed=0):
    """A small random dataset dict of a logistic task (docs/architecture.md,
    "Contracts")."""
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


def fd_grad(fun, u, h=1e-5):
    """Central finite-difference gradient of a scalar function."""
    g = np.zeros_like(u)
    for k in range(u.size):
        e = np.zeros_like(u)
        e[k] = h
        g[k] = (fun(u + e) - fun(u - e)) / (2 * h)
    return g


def kernel_dirs(problem, part, q, x, y, z):
    """(D^x, D^y, D^z) contribution of one sample ("f": UL, "g": LL) from
    the core's coefficient and apply kernels."""
    from benchmark_utils.tasks import dispatch
    kf, kg = problem.n_coef
    K = np.zeros((1, kf if part == "f" else kg))
    out = (np.zeros(problem.dim_x), np.zeros(problem.dim_y),
           np.zeros(problem.dim_y))
    idx = np.array([q])
    X, yv = (problem.Xf, problem.yf) if part == "f" else \
        (problem.Xg, problem.yg)
    level = dispatch.F if part == "f" else dispatch.G
    dispatch.coef(problem.code, level, X, yv, problem.params, idx, 0, 1,
                  (x, y, z), K)
    dispatch.apply(problem.code, level, X, yv, problem.params, idx, 0, 1,
                   (K, K, K), out)
    return out


@pytest.fixture(autouse=True)
def numba_cache_location_kept():
    """Fails a test that leaves ``NUMBA_CACHE_DIR`` or numba's
    ``CACHE_DIR`` changed (and restores them): every later subprocess of
    its worker (``benchopt run``, the tools) would compile from an empty
    cache, and its kernels in this process would be cached elsewhere."""
    from numba.core import config
    from benchmark_utils.numba_cache import CACHE_ENV
    before = os.environ.get(CACHE_ENV), config.CACHE_DIR
    yield
    after = os.environ.get(CACHE_ENV), config.CACHE_DIR
    if after != before:
        if before[0] is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = before[0]
        config.CACHE_DIR = before[1]
        pytest.fail(f"the test left numba's cache location changed "
                    f"({CACHE_ENV}, numba's CACHE_DIR: {before} before, "
                    f"{after} after)", pytrace=False)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: end-to-end runs and cold compiles (the full suite "
        "runs them; `-m \"not slow\"` is the day-to-day lane, docs/tests.md)")
