"""The problem handle the Objective gives to solvers: task code and arrays.

Dataset contract (DESIGN.md): ``task`` and ``X_train, y_train`` (LL samples,
``g``), ``X_val, y_val`` (UL samples, ``f``), optional ``X_test, y_test``,
plus task parameters.  Arrays are stored C-contiguous float64, rows = samples.
"""
from dataclasses import dataclass

import numpy as np

from .problems import n_coef, task_code


@dataclass(frozen=True)
class Problem:
    """A finite-sum bilevel problem ready for the numba core.

    ``Xf, yf``: UL (validation) samples, ``n`` of them; ``Xg, yg``: LL
    (training) samples, ``m`` of them; ``params``: float64 task parameters;
    ``dim_x``, ``dim_y``: sizes of x and y (z has the size of y).
    """
    task: str
    Xf: np.ndarray
    yf: np.ndarray
    Xg: np.ndarray
    yg: np.ndarray
    params: np.ndarray
    dim_x: int
    dim_y: int

    @property
    def code(self):
        return task_code(self.task)

    @property
    def n(self):
        return self.Xf.shape[0]

    @property
    def m(self):
        return self.Xg.shape[0]

    @property
    def n_coef(self):
        return n_coef(self.code, self.params)


def as_array(a, ndim):
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.ndim != ndim:
        raise ValueError(f"expected a {ndim}-d array, got shape {a.shape}")
    return a


def make_problem(task, X_train, y_train, X_val, y_val, params, dim_x, dim_y):
    task_code(task)  # validates the name
    return Problem(task, as_array(X_val, 2), as_array(y_val, 1),
                   as_array(X_train, 2), as_array(y_train, 1),
                   as_array(params, 1), int(dim_x), int(dim_y))
