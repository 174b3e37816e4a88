"""The problem handle the Objective gives to solvers: task code and arrays,
built from a dataset dict (``problem_from_data``, checked first), and the
seeded starting point of a run (``starting_point``), for every task of the
registry (``tasks/registry.py``: each task's ``TaskSpec`` gives its
parameters, dimensions and starting point).

Dataset contract (docs/architecture.md, "Contracts"): ``task`` and
``X_train, y_train`` (LL samples, ``g``), ``X_val, y_val`` (UL samples,
``f``), optional ``X_test, y_test``, plus task parameters.  Arrays are
stored C-contiguous, rows = samples: labels and parameters in float64, the
features ``X`` in float64, or in float32 when the dataset gives them so
(``dtype=float32`` of the real-data datasets).  The arithmetic is float64
either way: a float32 feature converts exactly to float64 as it is loaded,
so a run on float32 features is the float64 run on the same (rounded)
values, with half the memory traffic (docs/datasets.md "Datasets").
"""
from dataclasses import dataclass

import numpy as np

from .tasks import get_task
from .validation import check_data


@dataclass(frozen=True)
class Problem:
    """A finite-sum bilevel problem ready for the numba core.

    ``Xf, yf``: UL (validation) samples, ``n`` of them; ``Xg, yg``: LL
    (training) samples, ``m`` of them; ``params``: float64 task parameters;
    ``dim_x``, ``dim_y``: sizes of x and y (z has the size of y);
    ``task_params``: the dataset's task parameters as ``(name, value)``
    pairs (``problem_from_data``), for the exact oracles.  ``code`` and
    ``n_coef`` come from the task's ``TaskSpec`` (``tasks/registry.py``).
    """
    task: str
    Xf: np.ndarray
    yf: np.ndarray
    Xg: np.ndarray
    yg: np.ndarray
    params: np.ndarray
    dim_x: int
    dim_y: int
    task_params: tuple = ()

    @property
    def spec(self):
        return get_task(self.task)

    @property
    def code(self):
        return self.spec.code

    @property
    def n(self):
        return self.Xf.shape[0]

    @property
    def m(self):
        return self.Xg.shape[0]

    @property
    def n_coef(self):
        return self.spec.n_coef(self.params)

    def oracle_data(self):
        """The dataset dict of the exact oracles (``TaskSpec.make_oracle``,
        ``exact_glm.GLMExact``): train = g, val = f, features in float64
        (the values the core reads), and the task parameters."""
        return dict(task=self.task,
                    X_train=np.asarray(self.Xg, dtype=np.float64),
                    y_train=self.yg,
                    X_val=np.asarray(self.Xf, dtype=np.float64),
                    y_val=self.yf, **dict(self.task_params))


def as_array(a, ndim):
    """A float64 array, C-contiguous and writable (numba compiles another
    specialisation for read-only arrays)."""
    a = np.require(a, dtype=np.float64, requirements=["C", "W"])
    return _check_ndim(a, ndim)


def as_features(a, *others):
    """A 2-d feature array, C-contiguous: float32 kept as float32 when
    ``others`` (the other level's features) are float32 too, any other
    case converted to float64 (the core takes both levels' rows of one
    dtype)."""
    single = all(np.asarray(b).dtype == np.float32 for b in (a,) + others)
    dtype = np.float32 if single else np.float64
    return _check_ndim(np.require(a, dtype=dtype, requirements=["C", "W"]),
                       2)


def _check_ndim(a, ndim):
    if a.ndim != ndim:
        raise ValueError(f"expected a {ndim}-d array, got shape {a.shape}")
    return a


def make_problem(task, X_train, y_train, X_val, y_val, params, dim_x, dim_y,
                 task_params=()):
    """The ``Problem`` of arrays given in the dataset's order: training
    (LL, g) then validation (UL, f), as ``problem_from_data`` and every
    other builder pass them."""
    get_task(task)  # validates the name
    return Problem(task=task,
                   Xg=as_features(X_train, X_val),
                   yg=as_array(y_train, 1),
                   Xf=as_features(X_val, X_train), yf=as_array(y_val, 1),
                   params=as_array(params, 1), dim_x=int(dim_x),
                   dim_y=int(dim_y), task_params=tuple(task_params))


def problem_from_data(task, X_train, y_train, X_val, y_val, X_test=None,
                      y_test=None, **params):
    """The ``Problem`` of a dataset: task parameters and the sizes of x, y
    (the spec's ``problem_params``).

    The dataset is first checked (:func:`validation.check_data`): a bad
    array or parameter raises a ``ValueError`` naming it, before any work.
    quadratic: params [d_x, d_y, ridge, lam]; logreg: [p], x and y in R^p;
    multilogreg: [p, C], x in R^C, y in R^{pC}; datacleaning: [p, C, C_r],
    x in R^m (one weight per training sample), y in R^{pC}.
    """
    spec = get_task(task)  # an unknown task: named with the known ones
    check_data(spec, X_train, y_train, X_val, y_val, X_test, y_test,
               **params)
    vec, dim_x, dim_y = spec.problem_params(X_train, **params)
    return make_problem(task, X_train, y_train, X_val, y_val, vec, dim_x,
                        dim_y, sorted(params.items()))


def starting_point(problem, seed):
    """(x0, y0, z0) drawn from ``seed`` by the task's spec.

    quadratic: x0, y0 ~ N(0, I), z0 ~ N(0, 0.01 I / d_y) (|z0| ~ 0.1, inside
    R = 1).  Logistic tasks: y0 ~ N(0, 1e-4 I), z0 = 0 and x0 = c + 0.1 N(0, I)
    with c = log(0.01) for the regularisation weights (logreg,
    multilogreg) and c = 0 for the sample weights of datacleaning
    (sigma(0) = 1/2).
    """
    rng = np.random.default_rng(seed)
    return get_task(problem.task).starting_point(rng, problem.dim_x,
                                                 problem.dim_y)
