"""The baseline solvers (StocBiO, AmIGO, BSA, TTSA, SUSTAIN, MRBO, VRBO,
FSLA, F2SA, ITD, BOME, PZOBO) through benchopt's solver API, and their
convergence on a small Simulated problem (docs/baselines.md §1 for the
counts).

* At their defaults each runs, after callback call c, up to the first
  outer iteration whose sample count reaches the grid's c eval_epochs
  (n + m), with the sample count of §1 (exactly, or within the bounds of
  the drawn HIA truncations for BSA, TTSA and SUSTAIN), under ``uniform``
  and ``blocks`` sampling; the same seed gives the same bytes.
* Bad values are refused by ``set_objective`` with a ValueError naming the
  parameter; VRBO's ``period_frac`` reaches the period once the problem is
  known; FSLA's ``storm_a=None`` takes ``step_size``.
* A huge step ends the run cleanly, reported as diverged.
* Convergence: |grad H|^2 (the benchmark's exact metric) falls below a
  stated fraction of its start within a stated budget; constant steps stall
  at a floor (stocBiO, AmIGO: sampling noise; VRBO: Neumann truncation
  bias); BSA, TTSA and FSLA keep decreasing; F2SA's multiplier grows as its
  schedule says.

The core-level transcription and identities are in tests/test_baselines.py.
"""
import math
import re

import numpy as np
import pytest

from bench_helpers import solver_class
from benchmark_utils.algorithms import (BASELINES, BaselineConfig,
                                        BaselineRun, config_of)
from benchmark_utils.metrics import evaluate, make_metrics
from benchmark_utils.simulated import make_quadratic
from conftest import problem_of, start_point

NAMES = list(BASELINES)
# Deterministic sample counts (§1); BSA, TTSA, SUSTAIN draw HIA's p
RANDOM_COUNT = ("BSA", "TTSA", "SUSTAIN")
N, M = 200, 300  # the solver-API problem: VRBO's default period is 3


@pytest.fixture(scope="module")
def api():
    """(data, Problem, starting point) of the solver-API tests."""
    data = make_quadratic(n=N, m=M, dim_x=5, dim_y=10, seed=0)
    return data, problem_of(data), start_point(data, seed=0)


class Callback:
    """benchopt's callback, faked: True for the first ``allowed`` calls."""

    def __init__(self, allowed):
        self.allowed, self.calls = allowed, 0

    def __call__(self):
        self.calls += 1
        return self.calls <= self.allowed


# 40 epochs (20 000 samples) per call: one to fourteen outer iterations,
# VRBO's first restart (7 epochs) and a few more included
API_EPOCHS = 40.0


def _solve(name, api, allowed=3, seed=0, eval_epochs=API_EPOCHS,
           **params):
    """One run through the solver API on the grid of ``eval_epochs``;
    (solver, callback, result)."""
    _, problem, (x0, y0, z0) = api
    solver = solver_class(name).get_instance(**params)
    solver.set_objective(problem, x0, y0, z0, seed, eval_epochs=eval_epochs)
    callback = Callback(allowed)
    solver.run(callback)
    return solver, callback, solver.get_result()


def _count_bounds(name, K, n, m, b=64, T=10, Q=10, Tz=10, period=None):
    """(lowest, highest) sample count of K outer iterations (§1); equal
    for the deterministic ones, HIA's p ranging over {0..Q-1} otherwise
    (PZOBO: Q Gaussian directions)."""
    corr = 2 * b + 2 * (1 + Q) * b  # a joint Neumann evaluation pair
    if name in ("BOME", "PZOBO"):
        c = K * ((T + 3) * b if name == "BOME" else ((Q + 1) * T + 1) * b)
        return c, c
    if name in ("StocBiO", "AmIGO"):
        inner = Q if name == "StocBiO" else Tz
        c = K * (b + (T + inner + 1) * b)
        return c, c
    if name == "MRBO":
        c = (b + (1 + Q) * b) + (K - 1) * corr
        return c, c
    if name == "VRBO":
        restarts = -(-K // period)  # at k = 0, q, 2q, ...
        c = K * (T + 1) * corr + restarts * (n + (1 + Q) * m)
        return c, c
    if name == "FSLA":
        c = (2 * b + 3 * b) + (K - 1) * (3 * b + 4 * b)
        return c, c
    if name == "F2SA":
        c = K * (T + 1) * (b + 2 * b)
        return c, c
    if name == "ITD":
        c = K * (2 * T + 1) * b
        return c, c
    if name == "BSA":
        low, p_terms = K * (b + (T + 1) * b), K * b
    elif name == "TTSA":
        low, p_terms = K * (b + 2 * b), K * b
    else:  # SUSTAIN: k = 0 evaluates one point, then two (shared p)
        low, p_terms = (b + b) + (K - 1) * (2 * b + 2 * b), \
            b + (K - 1) * 2 * b
    return low, low + (Q - 1) * p_terms


def _assert_counts(name, solver, result, allowed):
    """The run stopped at the first outer iteration K whose count reaches
    the grid's target for ``allowed`` calls, with §1's count of K."""
    K = solver.state.iteration
    target = solver.grid_target(allowed)
    low, high = _count_bounds(name, K, N, M, period=solver.cfg.period)
    n = result["n_samples"]
    assert low <= n <= high, (name, n, low, high)
    if low == high:
        assert n == low
    else:
        assert (n - low) % 64 == 0 and n > low  # p > 0 drawn at least once
    assert n >= target
    if K > 1:  # K - 1 iterations did not reach it
        assert _count_bounds(name, K - 1, N, M,
                             period=solver.cfg.period)[0] < target


@pytest.mark.parametrize("name", NAMES)
def test_defaults_run_with_the_section5_counts(api, name):
    """Up to the grid's target of 3 calls (60 000 samples), each outer
    iteration with §1's count (StocBiO,
    AmIGO 1408; MRBO 1536 (768 at k = 0); VRBO 16 896 + 3 500 per restart,
    every 3 iterations here; FSLA 448 (320); F2SA 2112; BOME 832; PZOBO
    7104; BSA, TTSA, SUSTAIN between the bounds of p in {0..9}); finite
    iterates."""
    solver, callback, res = _solve(name, api, allowed=3)
    assert callback.calls == 4  # the 4th call ends the run
    _assert_counts(name, solver, res, 3)
    assert not res["diverged"]
    for key in "xyz":
        assert np.all(np.isfinite(res[key])), key
    out = evaluate(make_metrics(api[0]), **res)
    assert out["diverged"] == 0 and np.isfinite(out["grad_norm2"])


@pytest.mark.parametrize("name", NAMES)
def test_blocks_sampling_runs(api, name):
    """sampling="blocks": same counts, finite, a different path than
    uniform from the same seed."""
    solver, _, res = _solve(name, api, allowed=2, sampling="blocks")
    _assert_counts(name, solver, res, 2)
    assert solver.state.orders is not None
    for key in "xyz":
        assert np.all(np.isfinite(res[key])), key
    _, _, uni = _solve(name, api, allowed=2)
    assert not np.array_equal(res["x"], uni["x"])


@pytest.mark.parametrize("sampling", ["uniform", "blocks"])
@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_bytes(api, name, sampling):
    """Two runs with the same seed: identical bytes; another seed: another
    path. A second run() of the same instance starts afresh."""
    solver, _, a = _solve(name, api, seed=5, sampling=sampling)
    _, _, b = _solve(name, api, seed=5, sampling=sampling)
    _, _, c = _solve(name, api, seed=6, sampling=sampling)
    for key in "xyz":
        assert a[key].tobytes() == b[key].tobytes(), key
    assert a["n_samples"] == b["n_samples"]
    assert not np.array_equal(a["x"], c["x"])
    solver.run(Callback(3))
    again = solver.get_result()
    for key in "xyz":
        assert again[key].tobytes() == a[key].tobytes(), key


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------
# (parameter, bad value, message) for every baseline that has the parameter
_BAD = [
    ("step_size", 0, "step_size must be a finite number > 0, got 0"),
    ("step_size", -1, "step_size must be a finite number > 0, got -1"),
    ("step_size", "abc", "step_size must be a finite number > 0, got 'abc'"),
    ("outer_ratio", -1.0, "outer_ratio must be a finite number > 0, got "
     "-1.0"),
    ("z_ratio", 0.0, "z_ratio must be a finite number > 0, got 0.0"),
    ("exponent_x", 2, "exponent_x must be in [0, 1], got 2"),
    ("exponent_y", -0.5, "exponent_y must be in [0, 1], got -0.5"),
    ("sampling", "foo", "sampling must be one of ['blocks', 'uniform'], "
     "got 'foo'"),
    ("batch_size", 250, "batch_size must be at most the number of samples: "
     "batch_size=250 > n (UL samples)=200"),
    ("batch_size", 2.5, "batch_size must be an integer >= 1, got 2.5"),
    ("n_inner_steps", 0, "n_inner_steps must be an integer >= 1, got 0"),
    ("n_inner_steps", 2.5, "n_inner_steps must be an integer >= 1, got "
     "2.5"),
    ("n_z_steps", 0, "n_z_steps must be an integer >= 1, got 0"),
    # renamed parameters are named as the user set them
    ("n_shia_steps", -1, "n_shia_steps must be an integer >= 0, got -1"),
    ("n_shia_steps", 2.5, "n_shia_steps must be an integer >= 0, got 2.5"),
    ("n_hia_steps", 0, "n_hia_steps must be an integer >= 1, got 0"),
    ("eta", 1.5, "eta must be in (0, 1], got 1.5"),
    ("eta", 0, "eta must be in (0, 1], got 0"),
    ("eta", None, "eta must be in (0, 1], got None"),
    ("exponent_eta", 2, "exponent_eta must be in [0, 1], got 2"),
    ("exponent_yz", 2, "exponent_yz must be in [0, 1], got 2"),
    ("period_frac", 0, "period_frac must be a finite number > 0, got 0"),
    ("period_frac", math.nan, "period_frac must be a finite number > 0, "
     "got nan"),
    ("storm_a", 1.5, "storm_a must be in (0, 1], got 1.5"),
    ("storm_a", 0.0, "storm_a must be in (0, 1], got 0.0"),
    ("exponent_a", 2, "exponent_a must be in [0, 1], got 2"),
    ("lmbda0", 0, "lmbda0 must be a finite number > 0, got 0"),
    ("lmbda0", math.inf, "lmbda0 must be a finite number > 0, got inf"),
    ("delta_lmbda", -1, "delta_lmbda must be a finite number >= 0, got -1"),
    ("exponent_w", 2, "exponent_w must be in [0, 1], got 2"),
    ("exponent_delta", -1, "exponent_delta must be in [0, 1], got -1"),
    ("random_state", -1, "random_state must be an integer >= 0 or None, "
     "got -1"),
    ("warm_start", 1, "warm_start must be one of [True, False], got 1"),
    ("warm_start", "no", "warm_start must be one of [True, False], got "
     "'no'"),
    ("choice_phi", "value", "choice_phi must be one of ['grad_norm'], got "
     "'value'"),
    ("mu", 0, "mu must be a finite number > 0, got 0"),
    ("mu", -0.1, "mu must be a finite number > 0, got -0.1"),
    ("n_gaussian_vectors", 0, "n_gaussian_vectors must be an integer >= 1, "
     "got 0"),
    ("n_gaussian_vectors", 1.5, "n_gaussian_vectors must be an integer >= "
     "1, got 1.5"),
]
# BOME's eta weighs its phi_k: any finite eta > 0 (Ye et al., 2022), not
# the STORM weight's (0, 1]
_BAD_OWN = {
    ("BOME", "eta"): [
        (0, "eta must be a finite number > 0, got 0"),
        (None, "eta must be a finite number > 0, got None"),
        (float("inf"), "eta must be a finite number > 0, got inf")],
}


def _bad_cases():
    for name in NAMES:
        params = solver_class(name).parameters
        for key, value, message in _BAD:
            if (name, key) in _BAD_OWN:
                continue
            if key in params:
                extra = {}
                if name == "FSLA" and key == "step_size":
                    extra = dict(storm_a=0.5)  # storm_a=None: see below
                yield pytest.param(name, {key: value, **extra}, message,
                                   id=f"{name}-{key}={value!r}")
    for (name, key), cases in _BAD_OWN.items():
        for value, message in cases:
            yield pytest.param(name, {key: value}, message,
                               id=f"{name}-{key}={value!r}")


@pytest.mark.parametrize("name, params, message", list(_bad_cases()))
def test_bad_value_is_refused_naming_it(api, name, params, message):
    _, problem, (x0, y0, z0) = api
    solver = solver_class(name).get_instance(**params)
    with pytest.raises(ValueError, match=re.escape(message)):
        solver.set_objective(problem, x0, y0, z0, 0)


def test_every_baseline_parameter_has_a_bad_value_case():
    keys = {key for key, _, _ in _BAD}
    for name in NAMES:
        assert set(solver_class(name).parameters) <= keys, name


@pytest.mark.parametrize("name, params, message", [
    ("StocBiO", dict(n_shia_steps=-1), "n_shia_steps must be"),
    ("VRBO", dict(n_shia_steps=-1), "n_shia_steps must be"),
    ("MRBO", dict(n_shia_steps=-1), "n_shia_steps must be"),
    ("BSA", dict(n_hia_steps=0), "n_hia_steps must be"),
    ("TTSA", dict(n_hia_steps=0), "n_hia_steps must be"),
    ("SUSTAIN", dict(n_hia_steps=0), "n_hia_steps must be"),
    ("SUSTAIN", dict(eta=1.5), "eta must be in (0, 1]"),
    ("MRBO", dict(eta=1.5), "eta must be in (0, 1]"),
    ("MRBO", dict(exponent_eta=2), "exponent_eta must be in [0, 1]"),
    ("FSLA", dict(exponent_yz=2), "exponent_yz must be in [0, 1]"),
])
def test_renamed_parameter_error_names_the_solver_parameter(
        api, name, params, message):
    _, problem, (x0, y0, z0) = api
    solver = solver_class(name).get_instance(**params)
    with pytest.raises(ValueError, match=re.escape(message)):
        solver.set_objective(problem, x0, y0, z0, 0)


def test_fsla_bad_step_size_is_named_before_storm_a(api):
    _, problem, (x0, y0, z0) = api
    solver = solver_class("FSLA").get_instance(step_size=0)
    with pytest.raises(ValueError,
                       match=re.escape("step_size must be a finite number")):
        solver.set_objective(problem, x0, y0, z0, 0)


@pytest.mark.parametrize("batch_size", [0, "abc"])
def test_vrbo_bad_batch_size_is_a_value_error(api, batch_size):
    _, problem, (x0, y0, z0) = api
    solver = solver_class("VRBO").get_instance(batch_size=batch_size)
    with pytest.raises(ValueError, match="batch_size must be an integer"):
        solver.set_objective(problem, x0, y0, z0, 0)


@pytest.mark.parametrize("period_frac, batch_size, period", [
    (0.5, 64, 3),      # int(500 * 0.5 / 64) = int(3.9)
    (2.0, 16, 62),     # int(62.5)
    (1e-3, 64, 1),     # int(0.0078) = 0 -> at least 1
])
def test_vrbo_period_frac_reaches_the_period(api, period_frac, batch_size,
                                             period):
    _, problem, (x0, y0, z0) = api
    solver = solver_class("VRBO").get_instance(
        period_frac=period_frac, batch_size=batch_size)
    # before the problem is known: the default period (validation only)
    assert solver.config().period == BaselineConfig.period
    solver.set_objective(problem, x0, y0, z0, 0)
    assert period == max(1, int((N + M) * period_frac / batch_size))
    assert solver.config().period == period
    assert solver.cfg.period == period
    assert solver.state.cfg.own.period == period  # what the engine runs


def test_fsla_storm_a_none_takes_step_size(api):
    _, problem, (x0, y0, z0) = api
    for step in (0.1, 0.7, 1.0):
        solver = solver_class("FSLA").get_instance(step_size=step)
        assert solver.config().storm_a == step
        solver.set_objective(problem, x0, y0, z0, 0)
        assert solver.state.cfg.own.storm_a == step
    explicit = solver_class("FSLA").get_instance(step_size=0.1, storm_a=0.3)
    assert explicit.config().storm_a == 0.3
    # step_size > 1 is fine with an explicit storm_a
    big = solver_class("FSLA").get_instance(step_size=2.0, storm_a=0.3)
    big.set_objective(problem, x0, y0, z0, 0)
    assert big.cfg.storm_a == 0.3 and big.cfg.step_size == 2.0


def test_fsla_step_above_one_needs_storm_a(api):
    _, problem, (x0, y0, z0) = api
    solver = solver_class("FSLA").get_instance(step_size=2.0)
    message = ("storm_a must be in (0, 1] (storm_a=None takes step_size, "
               "here 2.0); set storm_a explicitly")
    with pytest.raises(ValueError, match=re.escape(message)):
        solver.config()
    with pytest.raises(ValueError, match=re.escape(message)):
        solver.set_objective(problem, x0, y0, z0, 0)


# --------------------------------------------------------------------------
# Divergence
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name, step", [("StocBiO", 50.0)] + [
    (name, 1e3) for name in NAMES])
def test_huge_step_stops_cleanly_as_diverged(api, name, step):
    """The run stops at the first non-finite state inside a chunk, without
    raising; the next callback evaluates it (the Objective reports
    diverged = 1) and run() returns; the state no longer moves.
    (FSLA with step 10 or 50 and F2SA with step 10 stay finite, at 1e235
    and 1e49: left to the metrics' overflow check, tests/test_divergence.)
    """
    params = dict(step_size=step)
    if name == "FSLA":
        params["storm_a"] = 0.5
    allowed = 50
    solver, callback, res = _solve(name, api, allowed=allowed, **params)
    assert res["diverged"] is True
    k = solver.state.iteration
    assert callback.calls <= 6  # stopped long before the 50 allowed
    assert solver.state.n_samples < solver.grid_target(callback.calls)
    assert not all(np.all(np.isfinite(res[key])) for key in "xyz")
    # VRBO can overflow in z only; then the Objective's value is finite
    out = evaluate(make_metrics(api[0]), **res)
    assert out["diverged"] == 1
    assert out["n_samples"] == res["n_samples"] > 0
    solver.state.run(100)
    assert solver.state.iteration == k


# --------------------------------------------------------------------------
# Convergence on Simulated: conv_data, n = 300, m = 400,
# d_x = 5, d_y = 10 (Hg's eigenvalues in [0.1, 1]); start and run seed 0.
# --------------------------------------------------------------------------
N_TOTAL = 700  # n + m: one epoch
EVERY = 10     # epochs between two evaluations of |grad H|^2

# name: (parameters other than the defaults, epochs, bound on the mean of
# |grad H(x)|^2 / |grad H(x0)|^2 over the last fifth of the evaluations);
# observed: seed 0 (range over run seeds 0-4), each at least ~10x below its
# bound (|grad H(x0)|^2 = 0.47).
CONVERGENCE = {
    # constant step 0.1: a noise floor from ~300 epochs on
    # (test_constant_step_floors)
    "StocBiO": ({}, 2000, 3e-2),   # 2.1e-3 (1.7e-3..2.4e-3)
    "AmIGO": ({}, 2000, 3e-2),     # 2.2e-3 (1.4e-3..2.6e-3)
    # decaying steps: still decreasing at the end (KEEPS_DECREASING)
    "BSA": ({}, 10_000, 2e-3),     # 6.4e-5 (6.4e-5..1.5e-4)
    "TTSA": ({}, 10_000, 6e-3),    # 4.0e-4 (4.0e-4..6.2e-4)
    "SUSTAIN": ({}, 2000, 3e-3),   # 3.0e-4 (9.1e-5..3.0e-4)
    "MRBO": ({}, 2000, 2e-2),      # 1.5e-3 (1.1e-3..1.8e-3)
    # constant step 0.1, period 5 outer iterations (~25 epochs each,
    # restarts included): still decreasing (4.5e-4 over epochs 2000-4000)
    # towards its bias floor (test_constant_step_floors, at step 1)
    "VRBO": ({}, 10_000, 1e-3),    # 6.8e-5 (6.8e-5..6.8e-5)
    "FSLA": ({}, 10_000, 2e-3),    # 1.3e-4 (9.1e-5..1.7e-4)
    # F2SA's default step 0.01 is the paper's slow design (test_f2sa_
    # defaults): step tuned to 0.5, default decays and lambda schedule
    "F2SA": (dict(step_size=0.5), 4000, 1e-2),  # 5.1e-4 (3.6e-4..8.6e-4)
    # constant step 0.1: a noise floor, as stocBiO's
    "ITD": ({}, 2000, 3e-2),       # 1.4e-3 (1.3e-3..3.7e-3)
    # constant step 0.1: BOME at a noise floor from ~500 epochs on (batch
    # 256: 3.9e-4); PZOBO still decreasing (mid fifth 1.5e-2)
    "BOME": ({}, 2000, 3e-2),      # 2.4e-3 (1.8e-3..2.8e-3)
    "PZOBO": ({}, 2000, 3e-2),     # 2.2e-3 (1.0e-3..2.2e-3)
}
# Decaying steps keep decreasing: last fifth below the second fifth / 3
# (seed 0: BSA 27x, TTSA 21x, SUSTAIN 20x, MRBO 20x, FSLA 12x; at least 10x
# over seeds 0-4).
KEEPS_DECREASING = ("BSA", "TTSA", "SUSTAIN", "MRBO", "FSLA")


def _trajectory(data, name, params, epochs, seed=0):
    """|grad H(x)|^2 / |grad H(x0)|^2 every EVERY epochs of a run of
    ``name`` (its defaults updated by ``params``) on ``data``, and the
    run."""
    problem = problem_of(data)
    x0, y0, z0 = start_point(data, seed=0)
    cfg = config_of(name, sizes=(problem.n, problem.m), **params)
    run = BaselineRun(problem, cfg, x0, y0, z0, seed)
    metrics = make_metrics(data)

    def grad_norm2():
        return evaluate(metrics, run.x, run.y, run.z, run.n_samples,
                        run.diverged)["grad_norm2"]

    g0 = grad_norm2()
    ratios = []
    for k in range(1, epochs // EVERY + 1):
        while run.n_samples < k * EVERY * N_TOTAL:
            run.run(1)
            assert not run.diverged, (name, run.iteration)
        ratios.append(grad_norm2() / g0)
    return np.array(ratios), run


def _windows(ratios):
    """Mean ratio over the second fifth and over the last fifth."""
    n = len(ratios) // 5
    return ratios[n:2 * n].mean(), ratios[-n:].mean()


@pytest.mark.parametrize("name", NAMES)
def test_convergence_on_simulated(conv_data, name):
    params, epochs, bound = CONVERGENCE[name]
    ratios, run = _trajectory(conv_data, name, params, epochs)
    assert run.n_samples >= epochs * N_TOTAL
    mid, late = _windows(ratios)
    print(f"{name}: mid {mid:.2e}, late {late:.2e} (bound {bound:.0e})")
    assert late < bound, f"{name}: late |grad H|^2 ratio {late:.2e}"
    assert np.all(ratios < 1.5), name  # no transient blow-up
    if name in KEEPS_DECREASING:
        assert late < mid / 3, (name, mid, late)


def test_constant_step_floors(conv_data):
    """stocBiO and AmIGO (constant step 0.1, 2000 epochs) stall at a noise
    floor: the last fifth is within 3x of the second fifth (seed 0: 2.1e-3
    against 2.5e-3 and 2.2e-3 against 2.3e-3), and batch 256 lowers the
    floor (2.1e-3 -> 1.1e-4 and 2.2e-3 -> 8.0e-5, 19x and 27x; asserted
    3x), whereas a longer Neumann series or linear-system loop does not
    (Q or T_z = 100: same floor, not asserted). VRBO at step 1 (3000
    epochs) stalls at the bias of its Neumann truncation, (1 - eta
    lambda_min)^(Q+1) = 0.9^11 on the slowest direction of z*: flat
    (second and last fifths within 20%), 3.4e-6 on every seed (asserted in
    [1e-7, 1e-4]); Q = 20 lowers it to 2.5e-7 (13x; asserted 4x)."""
    floors = {}
    for name, params in (("StocBiO", {}), ("AmIGO", {}),
                         ("StocBiO", dict(batch_size=256)),
                         ("AmIGO", dict(batch_size=256))):
        ratios, _ = _trajectory(conv_data, name, params, 2000)
        mid, late = _windows(ratios)
        floors[name, params.get("batch_size", 64)] = late
        if not params:  # batch 64: flat; batch 256 still decreases
            assert mid / 3 < late < 3 * mid, (name, mid, late)
    for name in ("StocBiO", "AmIGO"):
        assert floors[name, 256] < floors[name, 64] / 3, floors
    vrbo = {}
    for Q in (10, 20):
        ratios, _ = _trajectory(conv_data, "VRBO",
                                dict(step_size=1.0, n_shia_steps=Q), 3000)
        mid, late = _windows(ratios)
        vrbo[Q] = late
        if Q == 10:
            assert abs(late / mid - 1) < 0.2, (mid, late)  # flat
            assert 1e-7 < late < 1e-4, late
    assert vrbo[20] < vrbo[10] / 4, vrbo


def test_f2sa_defaults(conv_data):
    """F2SA at its defaults (step 0.01, decays 5/7 (x, y), 4/7 (w); lambda_{k
    +1} = lambda_k + 0.1 / (k + 1)^(6/7)) promises a slow, steady decrease
    while lambda grows: over 2000 epochs (663 iterations) every fifth's mean
    ratio is below the previous one (seed 0: 0.95, 0.92, 0.90, 0.89, 0.88),
    the last ratio is 0.87 (asserted < 0.95), and lambda_K is its schedule
    (2.13, to 1e-12)."""
    ratios, run = _trajectory(conv_data, "F2SA", {}, 2000)
    fifths = [chunk.mean() for chunk in np.array_split(ratios, 5)]
    assert all(b < a for a, b in zip(fifths, fifths[1:])), fifths
    assert ratios[-1] < 0.95, ratios[-1]
    K = run.iteration
    lam = 1.0 + sum(0.1 / (k + 1) ** (6 / 7) for k in range(K))
    assert run.work.own.lam[0] == pytest.approx(lam, rel=1e-12)
    assert run.work.own.lam[0] > 2.0


@pytest.mark.parametrize("name", ["PZOBO", "BOME"])
def test_a_misspelt_full_batch_names_full(name):
    with pytest.raises(ValueError, match=r"batch_size must be an integer >= "
                       r"1 or 'full' \(every sample\), got 'ful'"):
        config_of(name, batch_size="ful")
