"""Gradient descent on H with implicit differentiation and exact solves
(docs/baselines.md §3, "ImplicitGD"; benchmark_bilevel's ``jaxopt_GD``):

    y*(x_k):  grad_y g(x_k, y) = 0
    z*(x_k):  hess_yy g(x_k, y*) z = grad_y f(x_k, y*)
    grad H(x_k) = grad_x f(x_k, y*) - hess_xy g(x_k, y*) z*
    x_{k+1} = x_k - alpha_k grad H(x_k),  alpha_k = step_size / (k + 1)^e

(the implicit function theorem; Pedregosa, ICML 2016, "Hyperparameter
optimization with approximate gradient", here with the systems solved to
a tight tolerance).  Everything is full batch and deterministic, on the
Python side: the solves are those of the exact metrics.  On the logistic
tasks, ``exact_glm.GLMExact``: inexact Newton for y* (|grad_y g| <=
``tol`` max(1, |grad_y g(x, 0)|)) and preconditioned CG for z* (relative
residual <= ``tol``), both warm-started from the previous solution (the
first from the run's y0 and z0).  On the quadratic task the closed forms
of ``exact_quadratic.QuadraticExact`` (a Cholesky factor of the constant
hess_yy g; ``tol`` is not used).  The run reports (x_{k+1}, y*(x_k),
z*(x_k)).

Counting (docs/baselines.md §1): every pass of the solver over a level's
full data counts its size, n (UL) or m (LL).  On the logistic tasks
``exact_glm.CountedPasses`` counts the passes the solves make: each value and
gradient of g (Newton's line search and the tolerance's reference point
included), Hessian-vector product, preconditioner built at a new point
and cross term ``hess_xy g z`` counts m, each gradient of f counts n.  On
the quadratic task the closed forms stand for one LL pass for the right
side of y* (grad_y g(x, 0)), one UL pass (grad_x f and grad_y f at y*)
and one LL pass for the cross term: 2m + n per iteration.  Every task
adds m once, at the first iteration, for setting the solver up (the
quadratic's Hessian factor, the softmax tasks' Gram factor of the
preconditioner; logreg, which has none, alike).
"""
from dataclasses import dataclass

import numpy as np

from .checks import (check_exponent, check_positive, is_number,
                     validated_for)
from .common import steps_until


@dataclass
class ImplicitConfig:
    """ImplicitGD's configuration: the x step ``step_size`` (alpha, not
    divided by an ``outer_ratio``: there is no y step), its decay
    ``exponent_x`` and the solves' tolerance ``tol``."""
    step_size: float = 1.0
    exponent_x: float = 0.0
    tol: float = 1e-10

    def validate(self, n=None, m=None):
        check_positive("step_size", self.step_size)
        check_exponent("exponent_x", self.exponent_x)
        if not (is_number(self.tol) and 0 < self.tol < 1):
            raise ValueError(f"tol must be in (0, 1), got {self.tol!r}")
        return self


class GLMSolves:
    """y*(x), z*(x), grad H(x) of a logistic task (``GLMExact`` with
    ``tol``), warm-started, counted by ``exact_glm.CountedPasses``."""

    def __init__(self, problem, tol, y0, z0):
        from ..exact_glm import CountedPasses, GLMExact
        self.exact = GLMExact(problem.task, problem.oracle_data(), gtol=tol,
                              ztol=tol)
        self.oracle = CountedPasses(self.exact.P, problem.n, problem.m)
        self.exact.P = self.oracle
        self.exact._y = np.array(y0, dtype=np.float64)
        self.exact._z = np.array(z0, dtype=np.float64)

    @property
    def count(self):
        return self.oracle.samples

    def solve(self, x):
        ys, zs, grad, _ = self.exact.solve(x)
        return ys, zs, grad


class QuadraticSolves:
    """y*(x), z*(x), grad H(x) of the quadratic task in closed form
    (``exact_quadratic``), counted as the passes they stand for."""

    def __init__(self, problem, tol, y0, z0):
        from ..tasks.registry import get_task
        self.exact = get_task(problem.task).make_oracle(
            problem.oracle_data())
        self.n, self.m = problem.n, problem.m
        self.count = 0

    def solve(self, x):
        E = self.exact
        ys = E.y_star(x)
        gyf = E.grad_y_f(x, ys)
        zs = E.z_solve(gyf)
        self.count += 2 * self.m + self.n
        return ys, zs, E.grad_x_f(x, ys) + E.K.T @ zs


class ImplicitRun:
    """State of one ImplicitGD run, advanced in place by ``run(n_iter)`` or
    ``run_until(target, max_iter, time_is_up)`` (``common.steps_until``);
    the interface of ``BaselineRun`` (``x, y, z``, ``iteration``,
    ``n_samples``, ``diverged``, ``result()``).  ``seed`` is not used:
    nothing is drawn.  A solve that fails (a non-finite x, a Hessian out
    of float64's range) or a non-finite step ends the run as diverged."""

    def __init__(self, problem, config, x0, y0, z0, seed):
        validated_for(config, problem.n, problem.m)
        self.problem, self.config = problem, config
        self.x, self.y, self.z = (np.array(v, dtype=np.float64)
                                  for v in (x0, y0, z0))
        solves = QuadraticSolves \
            if problem.spec.exact_solves == "closed_form" else GLMSolves
        self.solves = solves(problem, config.tol, self.y, self.z)
        self.setup = 0  # m from the first iteration on (module docstring)
        self.iteration = 0
        self.diverged = False

    @property
    def n_samples(self):
        return int(self.solves.count + self.setup)

    def run(self, n_iter):
        """Advance ``n_iter`` iterations (fewer if the run diverges)."""
        cfg = self.config
        for _ in range(int(n_iter)):
            if self.diverged:
                return
            self.setup = self.problem.m
            alpha = cfg.step_size / (self.iteration + 1.0) ** cfg.exponent_x
            with np.errstate(over="ignore", invalid="ignore"):
                try:
                    ys, zs, grad = self.solves.solve(self.x)
                except (ArithmeticError, ValueError,
                        np.linalg.LinAlgError):
                    self.diverged = True  # reported with NaN metrics
                    return
                self.x = self.x - alpha * grad
            self.y, self.z = ys, zs
            self.iteration += 1
            if not np.all(np.isfinite(self.x)):
                self.diverged = True

    def run_until(self, target, max_iter=None, time_is_up=None):
        """Steps until the sample count reaches ``target``
        (``common.steps_until``)."""
        steps_until(self, target, max_iter, time_is_up)

    def result(self):
        """Copies of the iterates, the sample count and the status."""
        return dict(x=self.x.copy(), y=self.y.copy(), z=self.z.copy(),
                    n_samples=self.n_samples, diverged=self.diverged)
