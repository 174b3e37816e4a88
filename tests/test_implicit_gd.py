"""ImplicitGD (``algorithms/implicit.py``, docs/baselines.md §3): gradient
descent on H with y*(x), z*(x) solved by the exact metrics' solvers.

* Against a plain NumPy transcription written from the equations
  (``_reference``: Newton with the dense Hessian of the per-sample
  derivatives of ``reference.py`` for y*, a dense solve for z*, the
  hypergradient grad_x f - hess_xy g z*): x, y, z to 1e-12 relative, on
  the quadratic and the three logistic tasks.
* On the quadratic, the closed form of gradient descent on H:
  x_{k+1} - x* = (I - alpha hess H)(x_k - x*).
* The exact sample counts of the module's docstring; bad parameters named
  with their allowed values; a huge step ends the run as diverged; the
  solver API runs it (nothing compiled) and converges on Simulated.
"""
import re

import numpy as np
import pytest

from bench_helpers import solver_class
from benchmark_utils.algorithms import config_of, run_of
from benchmark_utils.algorithms.implicit import ImplicitRun
from benchmark_utils.engine import compile_for
from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.metrics import evaluate, make_metrics
from benchmark_utils.simulated import make_quadratic
from conftest import glm_data, problem_of, start_point
from reference_baselines import BatchOracle


def _reference(data, x0, step, n_iter):
    """x_k, y*(x_{k-1}), z*(x_{k-1}) of ``n_iter`` steps of gradient
    descent on H, every quantity from the per-sample derivatives."""
    O = BatchOracle(data)
    I, J = np.arange(O.n), np.arange(O.m)
    eye = np.eye(O.dy)
    x, y = np.array(x0, dtype=float), np.zeros(O.dy)
    out = []
    for _ in range(n_iter):
        for _ in range(100):  # Newton: g is strongly convex in y
            H = np.column_stack([O.hvp(J, x, y, e) for e in eye])
            step_y = np.linalg.solve(H, O.grad_y_g(J, x, y))
            y = y - step_y
            if np.linalg.norm(step_y) <= 1e-15 * max(1.0, np.linalg.norm(y)):
                break
        H = np.column_stack([O.hvp(J, x, y, e) for e in eye])
        z = np.linalg.solve(H, O.grad_y_f(I, x, y))
        x = x - step * O.phi(I, J, x, y, z)  # grad_x f - hess_xy g z
        out.append((x.copy(), y.copy(), z.copy()))
    return out


def _run(data, n_iter, **params):
    problem = problem_of(data)
    x0, y0, z0 = start_point(data, 2)
    cfg = config_of("ImplicitGD", sizes=(problem.n, problem.m), **params)
    run = run_of(problem, cfg, x0, y0, z0, 0)
    assert isinstance(run, ImplicitRun)
    states = []
    for _ in range(n_iter):
        run.run(1)
        assert not run.diverged
        states.append((run.x.copy(), run.y.copy(), run.z.copy(),
                       run.n_samples))
    return run, states, x0


@pytest.mark.parametrize("task, step", [
    ("quadratic", 1.0), ("logreg", 10.0), ("multilogreg", 10.0),
    ("datacleaning", 10.0)])
def test_matches_transcription(small_data, task, step):
    data = small_data if task == "quadratic" else glm_data(task)
    _, states, x0 = _run(data, 6, step_size=step, tol=1e-13)
    ref = _reference(data, x0, step, 6)
    for k, (got, want) in enumerate(zip(states, ref)):
        for name, a, b in zip("xyz", got, want):
            scale = max(1.0, np.linalg.norm(b))
            np.testing.assert_allclose(
                a / scale, b / scale, rtol=1e-12, atol=1e-12,
                err_msg=f"{task}: {name} at iteration {k}")


def test_quadratic_is_gradient_descent_on_h(small_data):
    """x_k - x* = (I - alpha hess H)^k (x_0 - x*) (H is quadratic)."""
    E = QuadraticExact(**small_data)
    alpha, K = 1.5, 10
    _, states, x0 = _run(small_data, K, step_size=alpha)
    M = np.eye(E.dim_x) - alpha * E.hess_H
    e = x0 - E.x_star
    for x, _, _, _ in states:
        e = M @ e
        np.testing.assert_allclose(x - E.x_star, e, rtol=0, atol=1e-12)


def test_quadratic_counts(small_data):
    """2m + n per iteration, m once for the set-up (n = 40, m = 50)."""
    n, m = 40, 50
    _, states, _ = _run(small_data, 5)
    assert [s[3] for s in states] == [m + k * (2 * m + n)
                                      for k in range(1, 6)]


@pytest.mark.parametrize("task", ["logreg", "multilogreg", "datacleaning"])
def test_glm_counts_are_the_solves_passes(task):
    """m per value-gradient, Hessian-vector product, preconditioner (one
    per Newton step, one for z*) and cross term, n per UL gradient, m once
    for the set-up: from ``GLMExact``'s own counters of each solve."""
    data = glm_data(task)
    problem = problem_of(data)
    n, m = problem.n, problem.m
    x0, y0, z0 = start_point(data, 2)
    run = run_of(problem, config_of("ImplicitGD", step_size=10.0), x0, y0,
                 z0, 0)
    expected = m
    for _ in range(4):
        run.run(1)
        st = run.solves.exact.status
        expected += m * (st["g_evals"] + st["hvps"] + st["newton_steps"]
                         + 1 + 1) + n
        assert run.n_samples == expected


def test_starts_and_warm_starts_the_glm_solves():
    """The first y* solve starts from y0 (fewer Newton steps than from 0
    when y0 is y*(x0)); the next ones from the previous solution."""
    data = glm_data("logreg")
    problem = problem_of(data)
    x0, _, z0 = start_point(data, 2)
    ys = make_metrics(data).exact.solve(x0)[0]
    steps = []
    for y0 in (np.zeros_like(ys), ys):
        run = run_of(problem, config_of("ImplicitGD", step_size=1e-3), x0,
                     y0, z0, 0)
        run.run(1)
        steps.append(run.solves.exact.status["newton_steps"])
    assert steps[1] < steps[0], steps
    run.run(1)  # tiny x step from a solved point: at most one step
    assert run.solves.exact.status["newton_steps"] <= 1


# --------------------------------------------------------------------------
# The solver API
# --------------------------------------------------------------------------
N, M = 200, 300


@pytest.fixture(scope="module")
def api():
    data = make_quadratic(n=N, m=M, dim_x=5, dim_y=10, seed=0)
    return data, problem_of(data), start_point(data, seed=0)


# One step per callback call: a step counts 2m + n (the first m more).
STEP_EPOCHS = (2 * M + N) / (N + M)


def _solve(api, allowed, eval_epochs=STEP_EPOCHS, **params):
    _, problem, (x0, y0, z0) = api
    solver = solver_class("ImplicitGD").get_instance(**params)
    solver.set_objective(problem, x0, y0, z0, 0, eval_epochs=eval_epochs)
    calls = iter(range(allowed))
    solver.run(lambda: next(calls, None) is not None)
    return solver, solver.get_result()


def test_solver_converges_on_simulated(api):
    """At the default step (1), |grad H|^2 falls by 1e-20 in 80
    iterations (H's Hessian in [0.34, 0.48] here); nothing is compiled."""
    assert compile_for("ImplicitGD") is False
    metrics = make_metrics(api[0])
    _, problem, (x0, y0, z0) = api
    g0 = evaluate(metrics, x0, y0, z0, 0)["grad_norm2"]
    solver, res = _solve(api, 80)
    out = evaluate(metrics, **res)
    assert solver.state.iteration == 80
    assert out["grad_norm2"] < 1e-20 * g0
    assert out["n_samples"] == M + 80 * (2 * M + N)
    assert out["inner_gap"] < 1e-20 and out["diverged"] == 0


def test_huge_step_ends_as_diverged(api):
    solver, res = _solve(api, 500, step_size=1e3)
    assert res["diverged"] is True
    k = solver.state.iteration
    assert k < 500
    assert evaluate(make_metrics(api[0]), **res)["diverged"] == 1
    solver.state.run(10)
    assert solver.state.iteration == k


# (parameter, bad value, message): every parameter of the solver
_BAD = [
    ("step_size", 0, "step_size must be a finite number > 0, got 0"),
    ("step_size", "abc", "step_size must be a finite number > 0, got "
     "'abc'"),
    ("exponent_x", 2, "exponent_x must be in [0, 1], got 2"),
    ("tol", 0, "tol must be in (0, 1), got 0"),
    ("tol", 1.0, "tol must be in (0, 1), got 1.0"),
    ("tol", float("nan"), "tol must be in (0, 1), got nan"),
    ("random_state", -1, "random_state must be an integer >= 0 or None, "
     "got -1"),
]


@pytest.mark.parametrize("key, value, message", _BAD)
def test_bad_value_is_refused_naming_it(api, key, value, message):
    _, problem, (x0, y0, z0) = api
    solver = solver_class("ImplicitGD").get_instance(**{key: value})
    with pytest.raises(ValueError, match=re.escape(message)):
        solver.set_objective(problem, x0, y0, z0, 0)


def test_every_parameter_has_a_bad_value_case():
    assert set(solver_class("ImplicitGD").parameters) == \
        {key for key, _, _ in _BAD}
