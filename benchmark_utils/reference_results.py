"""Reference results of a dataset: what "good" means on its task, each
computed exactly once and stored with every evaluation of a run as the
constant metric columns ``ref_<name>_<quantity>``.

Each reference is a point x with the exact y*(x) (the closed form on
Simulated, ``exact_glm.GLMExact`` on the logistic tasks), scored as the
metrics score a solver's x: ``value`` = H(x), and on the logistic tasks the
train / validation / test error of y*(x).

- every task: ``x0``, the centre of the starting-point draw (the runs start
  at x0 plus a small Gaussian draw, ``tasks/spec.py``): c 1 with c = 0
  (datacleaning, sigma = 1/2), log(0.01) (logreg, multilogreg), x = 0
  (quadratic);
- ``quadratic``: ``x_star``, the minimiser of H in closed form;
- ``datacleaning``: ``weights_one`` (every sample weight sigma(x_j) = 1,
  the exact limit x = +inf), ``weights_oracle`` (weight 1 on the training
  samples whose label the corruption left unchanged, 0 on the others:
  x_j = +inf or -inf) and ``val_only``, the same model and regulariser
  trained on the validation samples alone, solved exactly (its H is its
  own training loss);
- ``logreg``, ``multilogreg``: ``best_scalar``, the best single
  regularisation value, x = c 1 with c minimising H(c 1): H on the
  integer grid c = -14, ..., 6, then a bounded Brent search
  (``scipy.optimize.minimize_scalar``) on [c_best - 1, c_best + 1] to
  1e-3; ``ref_best_scalar_c`` is the c found (a c at an end of the grid
  means that H still decreases past it).
"""
import warnings

import numpy as np
from scipy.optimize import minimize_scalar

QUANTITIES = ("value", "train_error", "val_error", "test_error")
SCALAR_GRID = np.arange(6.0, -14.5, -1.0)  # strong to weak: warm starts
SCALAR_XATOL = 1e-3

# A task's references, in order, are its spec's ``references``: "x0", and
# "x_star" (closed form), "best_scalar" (a scalar regularisation) or
# "weights_one", "weights_oracle", "val_only" (sample weights).


class _Centre:
    """A generator whose normal draws are 0: a task's ``starting_point``
    drawn with it gives the centre of its draw."""

    @staticmethod
    def standard_normal(size):
        return np.zeros(size)


def start_centre(task, dim_x, dim_y):
    """x at the centre of the task's starting-point draw."""
    from .tasks.registry import get_task
    return get_task(task).starting_point(_Centre(), dim_x, dim_y)[0]


def reference_keys(task, has_test=True):
    """The metric columns of ``task``'s references (without values)."""
    from .tasks.registry import get_task
    spec = get_task(task)
    keys = []
    for name in spec.references:
        quantities = (("value",) if spec.exact_solves == "closed_form"
                      else QUANTITIES if has_test else QUANTITIES[:3])
        keys += [f"ref_{name}_{q}" for q in quantities]
        if name == "best_scalar":
            keys.append("ref_best_scalar_c")
    return keys


def quadratic_references(exact, task):
    """x0 (= 0) and x* of the quadratic ``task``, from its closed forms
    (``exact_quadratic.QuadraticExact``)."""
    x0 = start_centre(task, exact.dim_x, exact.dim_y)
    return {"ref_x0_value": exact.value(x0),
            "ref_x_star_value": float(exact.value_star)}


class GLMReferences:
    """The references of a logistic task, on its exact solver ``exact``
    (a ``GLMExact``; its warm start is reset after use) and the dataset
    dict ``data``."""

    def __init__(self, exact, data):
        self.exact, self.data = exact, data
        self.task = data["task"]
        self.sets = [(data["X_train"], data["y_train"]),
                     (data["X_val"], data["y_val"])]
        if data.get("X_test") is not None:
            self.sets.append((data["X_test"], data["y_test"]))

    def scores(self, name, x, exact=None):
        """``ref_<name>_*``: H(x) and the errors of y*(x)."""
        exact = self.exact if exact is None else exact
        ys = exact.y_star(x)
        value = exact.P.f_grad(ys)[0]
        out = {f"ref_{name}_value": float(value)}
        for q, (X, lab) in zip(QUANTITIES[1:], self.sets):
            out[f"ref_{name}_{q}"] = exact.P.error(X, lab, ys)
        return out

    def compute(self):
        P = self.exact.P
        from .tasks.registry import get_task
        names = get_task(self.task).references
        out = self.scores("x0", start_centre(self.task, P.dim_x, P.dim_y))
        if "weights_one" in names:
            out |= self.sample_weights()
        if "best_scalar" in names:
            out |= self.best_scalar()
        self.exact.reset()
        return out

    def sample_weights(self):
        """Every sample weight 1, the clean samples' only (the corrupted
        ones' 0), and the model of the validation samples alone."""
        m = self.data["X_train"].shape[0]
        out = self.scores("weights_one", np.full(m, np.inf))
        clean = self.data.get("y_train_clean")
        if clean is None:
            out |= {k: np.nan for k in reference_keys(self.task)
                    if k.startswith("ref_weights_oracle")}
        else:
            kept = np.asarray(clean) == np.asarray(self.data["y_train"])
            out |= self.scores("weights_oracle",
                               np.where(kept, np.inf, -np.inf))
        return out | self.val_only()

    def val_only(self):
        """The model trained on the validation samples alone: the task's
        oracle with the validation set as its training set, every weight
        1; scored on the original sets (train error on the corrupted
        labels, as the metrics score it)."""
        from .exact_glm import GLMExact
        data = dict(self.data, X_train=self.data["X_val"],
                    y_train=self.data["y_val"])
        exact = GLMExact(self.task, data)
        n = self.data["X_val"].shape[0]
        ys = exact.y_star(np.full(n, np.inf))
        out = {"ref_val_only_value": float(exact.P.f_grad(ys)[0])}
        for q, (X, lab) in zip(QUANTITIES[1:], self.sets):
            out[f"ref_val_only_{q}"] = exact.P.error(X, lab, ys)
        return out

    def best_scalar(self):
        """The best x = c 1 (see the module doc)."""
        exact, dim_x = self.exact, self.exact.P.dim_x

        def h(c):
            try:
                ys = exact.y_star(np.full(dim_x, c))
            except (ArithmeticError, ValueError, np.linalg.LinAlgError):
                exact.reset()
                return np.inf
            return float(exact.P.f_grad(ys)[0])

        with warnings.catch_warnings():  # a missed tolerance on the way
            warnings.simplefilter("ignore", RuntimeWarning)
            values = [h(c) for c in SCALAR_GRID]
            best = SCALAR_GRID[int(np.nanargmin(values))]
            res = minimize_scalar(h, bounds=(best - 1.0, best + 1.0),
                                  method="bounded",
                                  options={"xatol": SCALAR_XATOL})
        c = float(res.x) if res.fun <= np.nanmin(values) else float(best)
        out = self.scores("best_scalar", np.full(dim_x, c))
        out["ref_best_scalar_c"] = c
        return out


def glm_references(exact, data):
    """The references of a logistic task (see the module doc); NaN, with a
    warning, where a solve fails."""
    keys = reference_keys(data["task"], data.get("X_test") is not None)
    try:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = GLMReferences(exact, data).compute()
    except (ArithmeticError, ValueError, np.linalg.LinAlgError) as e:
        exact.reset()
        warnings.warn(f"reference results not computed ({type(e).__name__}"
                      f": {e}); their columns are NaN", RuntimeWarning,
                      stacklevel=2)
        out = {}
    return {k: out.get(k, np.nan) for k in keys}
