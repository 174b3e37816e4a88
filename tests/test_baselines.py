"""The baselines of docs/baselines.md (``benchmark_utils.
baselines``) against

* their plain NumPy transcription (tests/reference_baselines.py), iteration
  by iteration on the same generator stream: x, y, z to 1e-12 relative and
  the exact sample count (docs/baselines.md §6), on the quadratic and the
  logistic tasks, under ``uniform`` and ``blocks`` sampling;
* the exact identities of §6 on a full-batch quadratic (batch = n = m, so
  every batch is the whole level in some order): the blocks B1-B4 in closed
  form (tests 1-4), HIA's truncation distribution (test 4, bug 1), the sign
  (6), exact hypergradient descent (7), MRBO/SUSTAIN/VRBO/FSLA/TTSA equal to
  their deterministic schemes (8-12), F2SA's O(1/lambda) bias (13);
* the count formulas of §1 and bitwise reproducibility across chunkings
  and seeds (15).
"""
import numpy as np
import pytest
from types import SimpleNamespace

from benchmark_utils.algorithms import BaselineConfig, BaselineRun
from benchmark_utils.exact_quadratic import QuadraticExact
from benchmark_utils.simulated import make_quadratic
from conftest import glm_data, problem_of, start_point
from reference_baselines import BatchOracle, reference_run

ALGORITHMS = ("stocBiO", "AmIGO", "BSA", "TTSA", "SUSTAIN", "MRBO", "VRBO",
              "FSLA", "F2SA", "BOME", "PZOBO")

# Every field set explicitly; schedules decay (except VRBO's, stocBiO's and
# AmIGO's constant ones) so that each exponent is exercised; z_ratio != 1 and
# outer_ratio != 1 separate eta and alpha from beta.
BASE = dict(step_size=0.1, outer_ratio=2.0, z_ratio=0.8, exponent_x=0.0,
            exponent_y=0.0, exponent_z=0.0, batch_size=8, n_inner_steps=3,
            n_z_steps=3, Q=3, storm_a=0.5, exponent_a=2 / 3, period=3,
            lmbda0=1.0, delta_lmbda=0.1, exponent_w=4 / 7,
            exponent_delta=1 / 7, sampling="uniform")
SCHEDULES = {
    "stocBiO": {}, "AmIGO": {}, "VRBO": {},
    "BSA": dict(exponent_x=0.5, exponent_y=0.5),
    "TTSA": dict(exponent_x=0.6, exponent_y=0.4, Q=4),
    "SUSTAIN": dict(exponent_x=1 / 3, exponent_y=1 / 3, Q=4),
    "MRBO": dict(exponent_x=1 / 3, exponent_y=1 / 3),
    "FSLA": dict(exponent_x=0.5, exponent_y=0.5, exponent_z=0.5,
                 storm_a=0.1, exponent_a=0.5),
    "F2SA": dict(exponent_x=4 / 7, exponent_y=5 / 7),
    "BOME": dict(exponent_x=1 / 3, exponent_y=1 / 3, storm_a=0.7),
    "PZOBO": dict(exponent_x=0.5, exponent_y=0.25, mu=0.05,
                  n_gaussian_vectors=3),
}


def _params(algorithm, **kw):
    p = dict(BASE, algorithm=algorithm)
    p.update(SCHEDULES[algorithm])
    p.update(kw)
    return p


def _pair(data, params, seed, start_seed=2, start=None):
    """The core run and the transcription, same start and seed."""
    x0, y0, z0 = start if start is not None else start_point(data,
                                                             start_seed)
    run = BaselineRun(problem_of(data), BaselineConfig(**params), x0, y0,
                      z0, seed)
    ref = reference_run(data, SimpleNamespace(**params), x0, y0, z0, seed)
    return run, ref


def _compare(data, params, n_iter, seed=7):
    run, ref = _pair(data, params, seed)
    for k in range(n_iter):
        run.run(1)
        ref.run(1)
        assert not run.diverged
        assert run.iteration == k + 1
        for name, a, b in zip("xyz", (run.x, run.y, run.z),
                              (ref.x, ref.y, ref.z)):
            scale = max(1.0, np.linalg.norm(b))
            np.testing.assert_allclose(
                a / scale, b / scale, rtol=1e-12, atol=1e-13,
                err_msg=f"{params['algorithm']}: {name} at iteration {k}")
        assert run.n_samples == ref.n_samples, \
            f"{params['algorithm']}: n_samples at iteration {k}"
    return run, ref


# --------------------------------------------------------------------------
# Transcription agreement (docs/baselines.md §6)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_matches_transcription_quadratic(small_data, algorithm):
    """20 iterations, b = 8, T = Q = 3 (VRBO: restarts at k = 0, 3, 6, ...;
    HIA methods draw several p)."""
    _compare(small_data, _params(algorithm), 20)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_matches_transcription_logreg(algorithm):
    _compare(glm_data("logreg"), _params(algorithm), 15)


@pytest.mark.parametrize("task, algorithm", [
    ("multilogreg", "F2SA"), ("datacleaning", "F2SA"),
    ("multilogreg", "VRBO"), ("datacleaning", "MRBO"),
    ("datacleaning", "BOME"), ("multilogreg", "PZOBO")])
def test_matches_transcription_softmax_tasks(task, algorithm):
    """F2SA's first-order x oracle (e^{x_c}|W_c|^2; sigma'(x_j) CE_j) on
    both softmax tasks (BOME's on hyper-cleaning, whose g has x in its
    data part), two Hessian baselines and PZOBO, one on each (each
    (task, family) pair is a compile of its own; the families' code does
    not depend on the task, which the other tests cover)."""
    _compare(glm_data(task), _params(algorithm, step_size=0.2), 12)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_matches_transcription_blocks(small_data, algorithm):
    """Under ``sampling="blocks"`` (orders drawn first, then a random start
    per batch)."""
    _compare(small_data, _params(algorithm, sampling="blocks"), 15)


@pytest.mark.parametrize("algorithm", ["MRBO", "F2SA"])
def test_matches_transcription_blocks_logreg(algorithm):
    _compare(glm_data("logreg"), _params(algorithm, sampling="blocks"), 12)


def test_transcription_counts_follow_section5(small_data):
    """§1's per-iteration counts against the transcription's counts
    (b = 8, T = Q = T_z = 3; p from the drawn truncations)."""
    b, T, Q, Tz, n, m = 8, 3, 3, 3, 40, 50
    K = 7
    expected = {
        "stocBiO": lambda ps: K * (b + (T + Q + 1) * b),
        "AmIGO": lambda ps: K * (b + (T + Tz + 1) * b),
        "BSA": lambda ps: sum(b + (T + 1 + p) * b for p in ps),
        "TTSA": lambda ps: sum(b + (2 + p) * b for p in ps),
        "SUSTAIN": lambda ps: (b + (1 + ps[0]) * b)
        + sum(2 * b + 2 * (1 + p) * b for p in ps[1:]),
        "MRBO": lambda ps: b + (1 + Q) * b
        + (K - 1) * (2 * b + 2 * (1 + Q) * b),
        # restarts at k = 0, 3, 6
        "VRBO": lambda ps: K * (T + 1) * (2 * b + 2 * (1 + Q) * b)
        + 3 * (n + (1 + Q) * m),
        "FSLA": lambda ps: 5 * b + (K - 1) * 7 * b,
        "F2SA": lambda ps: K * (T + 1) * 3 * b,
        "BOME": lambda ps: K * (T + 3) * b,
        "PZOBO": lambda ps: K * ((3 + 1) * T + 1) * b,  # 3 directions
    }
    for algorithm, formula in expected.items():
        p = _params(algorithm, Q=Q)
        run, ref = _pair(small_data, p, seed=3)
        ref.run(K)
        run.run(K)
        if algorithm in ("BSA", "TTSA", "SUSTAIN"):
            assert len(ref.ps) == K
        assert ref.n_samples == formula(ref.ps), algorithm
        assert run.n_samples == ref.n_samples, algorithm


# --------------------------------------------------------------------------
# Full-batch identities on the quadratic (docs/baselines.md §6)
# --------------------------------------------------------------------------
NB = 30          # n = m = batch: every batch is the whole level


@pytest.fixture(scope="module")
def eq_data():
    """n = m = 30, Hg's spectrum in [0.5, 1] (so beta = eta = 1 contracts
    by 1/2)."""
    return make_quadratic(n=NB, m=NB, dim_x=3, dim_y=4, mu=0.5, cond=2.0,
                          seed=5)


@pytest.fixture(scope="module")
def exact(eq_data):
    return QuadraticExact(**eq_data)


def _full(algorithm, **kw):
    return _params(algorithm, batch_size=NB, **kw)


def _start(eq_data):
    return start_point(eq_data, 1)


def _core(eq_data, params, seed=0, start=None):
    x0, y0, z0 = start if start is not None else _start(eq_data)
    return BaselineRun(problem_of(eq_data), BaselineConfig(**params), x0,
                       y0, z0, seed)


def _close(a, b, rtol=1e-10, what=""):
    scale = max(1.0, np.linalg.norm(b))
    assert np.linalg.norm(np.asarray(a) - b) <= rtol * scale, \
        f"{what}: {a} vs {b}"


def _grad_y_g(E, x, y):
    return E.Hg @ y - E.K @ x - E.k


def _phi(E, x, y, s):
    """Phi_full(x, y, s) = grad_x f - X s, X s = -K^T s."""
    return E.grad_x_f(x, y) + E.K.T @ s


def _neumann(E, r, eta, Q):
    """B3 full: eta sum_{q=0..Q} (I - eta Hg)^q r."""
    w, s = r.copy(), eta * r
    for _ in range(Q):
        w = w - eta * E.Hg @ w
        s = s + eta * w
    return s


def _mpow(M, p):
    return np.linalg.matrix_power(M, p)


def test_b1_b3_stocbio_one_iteration(eq_data, exact):
    """Tests 1 and 3: y_1 - y*(x_0) = (I - beta Hg)^T (y_0 - y*(x_0)); the
    reported z is Hg^{-1}(I - (I - eta Hg)^{Q+1}) r, r = grad_y f(x_0, y_1);
    x_1 = x_0 - alpha (grad_x f - X z); counts n + (T + Q + 1) m."""
    E, I4 = exact, np.eye(4)
    T, Q, beta, eta, alpha = 5, 6, 0.7, 0.7 / 0.8, 0.7 / 2.0
    run = _core(eq_data, _full("stocBiO", step_size=0.7, n_inner_steps=T,
                               Q=Q))
    x0, y0, _ = _start(eq_data)
    run.run(1)
    ys = E.y_star(x0)
    y1 = ys + _mpow(I4 - beta * E.Hg, T) @ (y0 - ys)
    _close(run.y, y1, what="B1")
    r = E.grad_y_f(x0, y1)
    s = np.linalg.solve(E.Hg, (I4 - _mpow(I4 - eta * E.Hg, Q + 1)) @ r)
    _close(run.z, s, what="B3")
    _close(run.x, x0 - alpha * _phi(E, x0, y1, s), what="x_1")
    assert run.n_samples == NB + (T + Q + 1) * NB


def test_b2_amigo_one_iteration(eq_data, exact):
    """Test 2: z_1 - Hg^{-1} r = (I - gamma Hg)^{T_z} (z_0 - Hg^{-1} r),
    warm-started from the given z_0."""
    E, I4 = exact, np.eye(4)
    T, Tz, gamma = 4, 7, 0.7 / 0.8
    run = _core(eq_data, _full("AmIGO", step_size=0.7, n_inner_steps=T,
                               n_z_steps=Tz))
    x0, y0, z0 = _start(eq_data)
    assert np.linalg.norm(z0) > 0
    run.run(1)
    ys = E.y_star(x0)
    y1 = ys + _mpow(I4 - 0.7 * E.Hg, T) @ (y0 - ys)
    _close(run.y, y1, what="B1")
    zs = E.z_solve(E.grad_y_f(x0, y1))
    _close(run.z, zs + _mpow(I4 - gamma * E.Hg, Tz) @ (z0 - zs), what="B2")
    _close(run.x, x0 - 0.35 * _phi(E, x0, y1, run.z), what="x_1")
    assert run.n_samples == NB + (T + Tz + 1) * NB


@pytest.mark.parametrize("algorithm", ["BSA", "TTSA"])
def test_b4_hia_one_iteration(eq_data, exact, algorithm):
    """Test 4: for the drawn p (read from the count b + (T + 1 + p) b, TTSA
    T = 1), s = Q eta (I - eta Hg)^p r; over 20 seeds several p occur."""
    E, I4 = exact, np.eye(4)
    T, Q, eta = 3, 6, 0.7 / 0.8
    T_eff = 1 if algorithm == "TTSA" else T
    seen = set()
    for seed in range(20):
        run = _core(eq_data, _full(algorithm, step_size=0.7,
                                   n_inner_steps=T, Q=Q), seed=seed)
        x0, y0, _ = _start(eq_data)
        run.run(1)
        p, rem = divmod(run.n_samples - NB * (T_eff + 2), NB)
        assert rem == 0 and 0 <= p < Q, run.n_samples
        seen.add(p)
        ys = E.y_star(x0)
        y1 = ys + _mpow(I4 - 0.7 * E.Hg, T_eff) @ (y0 - ys)
        _close(run.y, y1, what="B1")
        r = E.grad_y_f(x0, y1)
        _close(run.z, Q * eta * _mpow(I4 - eta * E.Hg, p) @ r,
               what=f"B4 p={p}")
        _close(run.x, x0 - 0.35 * _phi(E, x0, y1, run.z), what="x_1")
    assert len(seen) >= 3, seen


@pytest.mark.parametrize("algorithm", ["TTSA", "SUSTAIN"])
def test_hia_truncation_redrawn_every_call(small_data, algorithm):
    """Test 4's distribution (catches bug 1, a frozen truncation): over
    3000 iterations with Q = 10, p (read from each iteration's count) takes
    every value 0..9, with frequencies 0.1 and mean 4.5 within 5 standard
    deviations."""
    K, Q, b = 3000, 10, 2
    run = _core(small_data, _params(algorithm, step_size=0.01, batch_size=b,
                                    Q=Q))
    ps = []
    last = 0
    for k in range(K):
        run.run(1)
        inc = run.n_samples - last
        last = run.n_samples
        if algorithm == "TTSA":
            p, rem = divmod(inc - 3 * b, b)
        else:
            p, rem = divmod(inc - (1 if k == 0 else 2) * 2 * b,
                            (1 if k == 0 else 2) * b)
        assert rem == 0 and 0 <= p < Q, (k, inc)
        ps.append(p)
    assert not run.diverged
    ps = np.array(ps)
    freq = np.bincount(ps, minlength=Q) / K
    assert np.all(freq > 0)
    assert np.max(np.abs(freq - 0.1)) < 5 * np.sqrt(0.09 / K)
    assert abs(ps.mean() - (Q - 1) / 2) < 5 * np.sqrt((Q * Q - 1) / 12 / K)


def test_sign_phi_at_exact_solutions_is_grad_h(eq_data, exact):
    """Test 6: Phi_full(x, y*, z*) = +grad H(x), in the transcription's
    oracle and through the core: full-batch stocBiO started at y*(x_0) with
    a converged Neumann series (eta = 1, (1/2)^{Q+1} < 1e-15) steps along
    +grad H(x_0)."""
    E = exact
    x0, _, z0 = _start(eq_data)
    O = BatchOracle(eq_data)
    full = np.arange(NB)
    ys, zs = E.y_star(x0), E.z_star(x0)
    _close(O.phi(full, full, x0, ys, zs), E.grad(x0), rtol=1e-12,
           what="transcription")
    alpha = 0.1
    run = _core(eq_data, _full("stocBiO", step_size=1.0, z_ratio=1.0,
                               outer_ratio=10.0, n_inner_steps=1, Q=60),
                start=(x0, ys, z0))
    run.run(1)
    _close(run.z, zs, rtol=1e-12, what="z*")
    d = (x0 - run.x) / alpha
    _close(d, E.grad(x0), rtol=1e-9, what="grad H")
    assert np.linalg.norm(d + E.grad(x0)) > np.linalg.norm(E.grad(x0))


@pytest.mark.parametrize("algorithm", ["stocBiO", "AmIGO"])
def test_full_batch_long_inner_loops_are_hypergradient_descent(
        eq_data, exact, algorithm):
    """Test 7: beta = eta = gamma = 1 = 1/lambda_max(Hg), T = Q = T_z = 50
    ((1/2)^50 < 1e-14): x_k - x* = (I - alpha hess_H)^k (x_0 - x*) to 1e-9;
    stocBiO and AmIGO then agree with each other."""
    E = exact
    lmax = np.linalg.eigvalsh(E.hess_H).max()
    outer_ratio = 2.0 * lmax              # alpha = 0.5 / lambda_max(hess_H)
    alpha = 1.0 / outer_ratio
    run = _core(eq_data, _full(algorithm, step_size=1.0, z_ratio=1.0,
                               outer_ratio=outer_ratio, n_inner_steps=50,
                               n_z_steps=50, Q=50))
    x0 = _start(eq_data)[0]
    M = np.eye(3) - alpha * E.hess_H
    e0 = x0 - E.x_star
    for k in range(1, 11):
        run.run(1)
        err = run.x - E.x_star - _mpow(M, k) @ e0
        assert np.linalg.norm(err) <= 1e-9 * np.linalg.norm(e0), k
    assert np.linalg.norm(run.x - E.x_star) < 0.2 * np.linalg.norm(e0)


def _deterministic_jacobi(E, x, y, p, K, s_of):
    """y_{k+1} = y_k - beta_k grad_y g(u_k), x_{k+1} = x_k - alpha_k
    Phi(u_k, s(u_k)); yields (x, y, s) after each iteration."""
    for k in range(K):
        beta = p["step_size"] / (k + 1.0) ** p["exponent_y"]
        alpha = p["step_size"] / p["outer_ratio"] / (k + 1.0) ** \
            p["exponent_x"]
        s = s_of(x, y)
        x, y = x - alpha * _phi(E, x, y, s), y - beta * _grad_y_g(E, x, y)
        yield x, y, s


@pytest.mark.parametrize("algorithm", ["MRBO", "SUSTAIN"])
def test_full_batch_storm_is_the_deterministic_scheme(eq_data, exact,
                                                      algorithm):
    """Tests 8 and 9: with full batches STORM is exact by induction (any
    a_k), so MRBO equals y_{k+1} = y_k - beta_k grad_y g(u_k), x_{k+1} = x_k
    - alpha_k Phi(u_k, NEU_Q^full(u_k)), and SUSTAIN with Q = 1 (p = 0, s =
    eta grad_y f) likewise; a zero previous point (bug 5) fails this.
    Counts b + (1 + Q) b, then 2 b + 2 (1 + Q) b (SUSTAIN: p = 0)."""
    E = exact
    Q = 4 if algorithm == "MRBO" else 1
    p = _full(algorithm, step_size=0.5, Q=Q, storm_a=0.3, exponent_a=0.5)
    eta = p["step_size"] / p["z_ratio"]
    Qs = Q if algorithm == "MRBO" else 0
    run = _core(eq_data, p)
    x0, y0, _ = _start(eq_data)

    def s_of(x, y):
        r = E.grad_y_f(x, y)
        return _neumann(E, r, eta, Q) if algorithm == "MRBO" else eta * r
    for k, (x, y, s) in enumerate(_deterministic_jacobi(E, x0, y0, p, 15,
                                                        s_of)):
        run.run(1)
        _close(run.x, x, what=f"x at {k}")
        _close(run.y, y, what=f"y at {k}")
        _close(run.z, s, what=f"z at {k}")
        assert run.n_samples == NB * (2 + Qs) + k * NB * (4 + 2 * Qs)


@pytest.mark.parametrize("period", [3, 100])
def test_full_batch_vrbo_is_exact(eq_data, exact, period):
    """Test 10: full-batch SARAH corrections keep v^y = grad_y g(P), v^x =
    Phi_full(P) at the current point, so VRBO (period 3 or one restart only)
    is x_{k+1} = x_k - alpha Phi(x_k, y_k, NEU^full), then T steps y <- y -
    beta grad_y g(x_{k+1}, y); z = NEU^full at the last point.  Counts:
    (T + 1)(2b + 2(1 + Q) b) per outer iteration, n + (1 + Q) m per
    restart.  (benchmark_bilevel's VRBO fails this, bug 4.)"""
    E = exact
    T, Q = 3, 4
    p = _full("VRBO", step_size=0.5, n_inner_steps=T, Q=Q, period=period)
    eta, beta, alpha = 0.5 / 0.8, 0.5, 0.25
    run = _core(eq_data, p)
    x, y, _ = _start(eq_data)
    restarts = 0
    for k in range(8):
        restarts += k % period == 0
        x = x - alpha * _phi(E, x, y, _neumann(E, E.grad_y_f(x, y), eta, Q))
        for _ in range(T):
            y = y - beta * _grad_y_g(E, x, y)
        run.run(1)
        _close(run.x, x, what=f"x at {k}")
        _close(run.y, y, what=f"y at {k}")
        _close(run.z, _neumann(E, E.grad_y_f(x, y), eta, Q),
               what=f"z at {k}")
        assert run.n_samples == (k + 1) * (T + 1) * NB * (4 + 2 * Q) \
            + restarts * NB * (2 + Q)


def test_full_batch_fsla_is_gauss_seidel(eq_data, exact):
    """Test 11: v^x_k = Phi_full(x_k, y_{k+1}, z_{k+1}) for every k with a_k
    < 1 (storm_a = 0.3), so FSLA is y_{k+1} = y_k - beta_k grad_y g(x_k,
    y_k), z_{k+1} = z_k - gamma_k (Hg z_k - grad_y f(x_k, y_{k+1})), x_{k+1}
    = x_k - alpha_k Phi(x_k, y_{k+1}, z_{k+1}); counts 5b then 7b."""
    E = exact
    p = _full("FSLA", step_size=0.5, storm_a=0.3, exponent_a=0.5,
              exponent_x=0.5, exponent_y=0.5, exponent_z=0.5)
    run = _core(eq_data, p)
    x, y, z = _start(eq_data)
    for k in range(15):
        kk = k + 1.0
        beta = 0.5 / kk ** 0.5
        gamma = 0.5 / 0.8 / kk ** 0.5
        alpha = 0.25 / kk ** 0.5
        y1 = y - beta * _grad_y_g(E, x, y)
        z1 = z - gamma * (E.Hg @ z - E.grad_y_f(x, y1))
        x, y, z = x - alpha * _phi(E, x, y1, z1), y1, z1
        run.run(1)
        _close(run.x, x, what=f"x at {k}")
        _close(run.y, y, what=f"y at {k}")
        _close(run.z, z, what=f"z at {k}")
        assert run.n_samples == 5 * NB + k * 7 * NB


def test_full_batch_ttsa_q1(eq_data, exact):
    """Test 12: TTSA with Q = 1 (p = 0, s = eta grad_y f) is y_{k+1} = y_k
    - beta_k grad_y g(x_k, y_k), x_{k+1} = x_k - alpha_k (grad_x f + K^T
    eta grad_y f) at (x_k, y_{k+1}) (the updated y); counts 3b."""
    E = exact
    p = _full("TTSA", step_size=0.5, Q=1, exponent_x=0.6, exponent_y=0.4)
    eta = 0.5 / 0.8
    run = _core(eq_data, p)
    x, y, _ = _start(eq_data)
    for k in range(15):
        kk = k + 1.0
        y = y - 0.5 / kk ** 0.4 * _grad_y_g(E, x, y)
        s = eta * E.grad_y_f(x, y)
        x = x - 0.25 / kk ** 0.6 * _phi(E, x, y, s)
        run.run(1)
        _close(run.x, x, what=f"x at {k}")
        _close(run.y, y, what=f"y at {k}")
        _close(run.z, s, what=f"z at {k}")
        assert run.n_samples == 3 * NB * (k + 1)


def _f2sa_at(eq_data, E, lam):
    """Full-batch F2SA, fixed lambda (delta_lmbda = 0), constant steps,
    T = 100 inner steps for 50 iterations, x nearly frozen (alpha =
    1e-8): returns x_K, d_K = (x_K - x_{K+1}) / alpha and the reported y
    (= w) and z (= lambda (w - y_pen))."""
    step = 1.0 / (lam + 1.0)              # beta (lambda L_g + L_f) < 2
    alpha = 1e-8
    p = _full("F2SA", step_size=step, outer_ratio=step / alpha, lmbda0=lam,
              delta_lmbda=0.0, n_inner_steps=100, exponent_x=0.0,
              exponent_y=0.0, exponent_w=0.0, exponent_delta=0.0)
    run = _core(eq_data, p)
    run.run(49)
    xK = run.x.copy()
    run.run(1)
    assert run.n_samples == 50 * 101 * 3 * NB
    return xK, (xK - run.x) / alpha, run.y.copy(), run.z.copy()


def test_f2sa_penalty_bias_is_order_one_over_lambda(eq_data, exact):
    """Test 13: w -> y*(x), y_pen -> y*_lambda(x) = y* - (Gbb + lambda
    Hg)^{-1} grad_y f(x, y*), d -> grad L*_lambda = grad_x f(x, y*_lambda) -
    lambda K^T (y*_lambda - y*); |grad L*_lambda - grad H| halves when
    lambda doubles (32 -> 64: ratio 1.98), and lambda (w - y_pen) -> z*(x)
    with an error that halves too."""
    E = exact
    errs, zerrs = [], []
    for lam in (32.0, 64.0):
        x, d, w, z = _f2sa_at(eq_data, E, lam)
        ys = E.y_star(x)
        _close(w, ys, rtol=1e-8, what="w -> y*")
        yl = ys - np.linalg.solve(E.Gbb + lam * E.Hg, E.grad_y_f(x, ys))
        _close(w - z / lam, yl, rtol=1e-9, what="y_pen -> y*_lambda")
        dL = E.grad_x_f(x, yl) - lam * E.K.T @ (yl - ys)
        _close(d, dL, rtol=1e-6, what="d -> grad L*_lambda")
        errs.append(np.linalg.norm(d - E.grad(x)))
        zs = E.z_star(x)
        zerrs.append(np.linalg.norm(z - zs) / np.linalg.norm(zs))
    assert errs[1] < 5e-3 * np.linalg.norm(E.grad(x)), errs
    assert abs(errs[0] / errs[1] - 2.0) < 0.1, errs
    assert zerrs[1] < 0.03, zerrs
    assert abs(zerrs[0] / zerrs[1] - 2.0) < 0.1, zerrs


# --------------------------------------------------------------------------
# Reproducibility (docs/baselines.md §1, "Draws")
# --------------------------------------------------------------------------
def _state(run):
    return (run.x.tobytes(), run.y.tobytes(), run.z.tobytes(),
            run.n_samples, run.iteration)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_bitwise_reproducible_across_chunkings(small_data, algorithm):
    """run(25), 25 x run(1), run(7)+run(7)+run(7)+run(4): identical bytes;
    another seed gives another run."""
    p = _params(algorithm)
    states = []
    for chunks in ([25], [1] * 25, [7, 7, 7, 4]):
        run = _core(small_data, p, seed=11)
        for c in chunks:
            run.run(c)
        states.append(_state(run))
    assert states[0] == states[1] == states[2]
    assert states[0][3] > 0 and not run.diverged
    other = _core(small_data, p, seed=12)
    other.run(25)
    assert other.x.tobytes() != states[0][0]


@pytest.mark.parametrize("task", ["logreg", "multilogreg", "datacleaning"])
def test_b3_full_neumann_is_z_star_on_glm_tasks(task):
    """Test 3 on the logistic tasks: full-batch stocBiO (n = m = batch)
    started at y*(x_0) (exact_glm's Newton solve), one y step (gradient
    ~0), eta = 1/lambda_max(H), Q with (1 - lambda_min/lambda_max)^{Q+1} <
    1e-13: the reported z is exact_glm's CG z*(x_0) and the x step is along
    +grad H(x_0), both to 1e-8."""
    from benchmark_utils.exact_glm import GLMExact
    data = glm_data(task, n=30, m=30, p=4, C=3, seed=1)
    x0, _, z0 = start_point(data, 0)
    if task != "datacleaning":
        x0 = x0 - np.log(0.01) + np.log(0.3)    # regularisation ~0.3
    ys, zs, grad, _ = GLMExact(task, data).solve(x0)
    O = BatchOracle(data)
    full = np.arange(30)
    H = np.array([O.hvp(full, x0, ys, e) for e in np.eye(O.dy)]).T
    lam = np.linalg.eigvalsh((H + H.T) / 2)
    eta = 1.0 / lam.max()
    Q = int(np.ceil(np.log(1e-13) / np.log1p(-lam.min() / lam.max())))
    alpha = 0.01
    run = _core(data, _params("stocBiO", batch_size=30, step_size=0.1,
                              z_ratio=0.1 / eta, outer_ratio=0.1 / alpha,
                              n_inner_steps=1, Q=Q), start=(x0, ys, z0))
    run.run(1)
    _close(run.z, zs, rtol=1e-8, what="z*")
    _close((x0 - run.x) / alpha, grad, rtol=1e-8, what="grad H")
