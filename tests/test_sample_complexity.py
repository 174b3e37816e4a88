"""tools/sample_complexity: the exponent fit, the runner to eps,
"not reached" on a too small budget, and a budget that is no finite
number > 0 refused."""
import math

import numpy as np
import pytest

from tools.sample_complexity import (THEORY, fit_exponent, main,
                                     median_samples, one_run, run_to_eps,
                                     summarize, theory_config)


@pytest.mark.parametrize("a", [0.5, 2 / 3, 1.0])
def test_fit_exponent_exact_power_law(a):
    sizes = [500, 1000, 2000, 4000, 8000]
    samples = [3.7 * s ** a for s in sizes]
    slope, const = fit_exponent(sizes, samples)
    assert slope == pytest.approx(a, abs=1e-10)
    assert math.exp(const) == pytest.approx(3.7, rel=1e-8)


def test_fit_exponent_skips_missing():
    sizes = [100, 200, 400, 800]
    samples = [10 * s ** 0.5 for s in sizes]
    samples[1] = None
    assert fit_exponent(sizes, samples)[0] == pytest.approx(0.5)
    lone = fit_exponent(sizes, [1, None, None, None])
    assert all(math.isnan(v) for v in lone)


def test_theory_config():
    N = 400
    kw = theory_config("SPABA", N)
    assert kw["batch_size"] == 20 and kw["p"] == pytest.approx(20 / 420)
    kw = theory_config("SFFBA", N)
    assert kw["rho_bar"] == pytest.approx(1 / 40)
    kw = theory_config("MSEBA", N)
    assert {"p", "rho_bar"} <= set(kw)
    assert theory_config("MA-SABA", 1000)["batch_size"] == 100
    kw = theory_config("SABA", 1000, saba_c=5.0)
    assert kw["batch_size"] == 1
    assert kw["step_size"] == pytest.approx(0.05)
    with pytest.raises(ValueError):
        theory_config("SOBA", N)


def _tiny_run(solver, N=200, seed=0):
    from benchmark_utils.exact_quadratic import QuadraticExact
    from benchmark_utils.algorithms import PnPBORun, config_of
    from benchmark_utils.simulated import make_quadratic
    from benchmark_utils.problem import problem_from_data, starting_point

    data = make_quadratic(n=N // 2, m=N // 2, dim_x=3, dim_y=5, seed=seed)
    exact = QuadraticExact(**data)
    problem = problem_from_data(**data)
    x0, y0, z0 = starting_point(problem, seed)
    cfg = config_of(solver, **theory_config(solver, N))
    run = PnPBORun(problem, cfg, x0, y0, z0, seed)

    def g2(x):
        g = exact.grad(x)
        return float(g @ g)
    return run, g2


def test_runner_reaches_eps_with_consistent_counts():
    run, g2 = _tiny_run("SPABA")
    eps = 1e-3 * g2(run.x)
    out = run_to_eps(run, g2, eps, chunk=5, max_samples=10 ** 7)
    assert out["status"] == "reached"
    assert out["samples"] == run.n_samples == out["n_samples"] > 0
    assert g2(run.x) <= eps
    assert out["grad_norm2"] == pytest.approx(g2(run.x))


def test_runner_first_check_below_eps():
    # The count is the first check below eps: one chunk earlier, not yet.
    run, g2 = _tiny_run("SFFBA")
    eps = 1e-3 * g2(run.x)
    out = run_to_eps(run, g2, eps, chunk=3, max_samples=10 ** 7)
    assert out["status"] == "reached"
    again, _ = _tiny_run("SFFBA")
    again.run(out["iterations"] - 3)
    assert g2(again.x) > eps
    again.run(3)
    assert again.n_samples == out["samples"]


def test_runner_not_reached_on_small_budget():
    run, g2 = _tiny_run("MA-SABA")
    out = run_to_eps(run, g2, 1e-30, chunk=2, max_samples=500)
    assert out["status"] == "not reached"
    assert out["samples"] is None
    assert 500 <= out["n_samples"] == run.n_samples
    assert median_samples([out, out, dict(samples=10)]) is None


def test_one_run_and_summary():
    res = {s: {N: [one_run(s, N, 0, 1e-2, dim_x=3, dim_y=5, budget=100)]
               for N in (200, 400)} for s in ("SPABA", "SABA")}
    for s in res:
        for N in res[s]:
            r = res[s][N][0]
            assert r["status"] == "reached"
            assert r["samples"] == r["n_samples"]
    table, fits = summarize(res, (200, 400))
    assert "fitted exponent" in table
    for s, (a, _, meds) in fits.items():
        assert np.isfinite(a) and len(meds) == 2
        assert f"{THEORY[s]:.2f}" in table


def test_divergence_is_reported():
    # SABA's step 5 N^(-2/3) is too large at N = 100 (0.23): it explodes.
    r = one_run("SABA", 100, 0, 1e-2, dim_x=3, dim_y=5, budget=100)
    assert r["status"] == "diverged" and r["samples"] is None


@pytest.mark.parametrize("budget", ["-1", "0", "nan", "inf"])
def test_a_budget_is_a_finite_number_of_epochs(capsys, budget):
    with pytest.raises(SystemExit) as exc:
        main(["--quick", "--budget", budget])
    assert exc.value.code == 2
    assert (f"--budget must be a finite number > 0, got '{budget}'"
            in capsys.readouterr().err)
