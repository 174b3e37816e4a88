"""Part 5: time of one exact metric evaluation, cold and warm."""
import statistics
import time

from .settings import SHAPE_STEP_SIZE


def metric_figures(data, problem, seed=0, n_warm=3, solver="SABA",
                   step_size=SHAPE_STEP_SIZE, iterations=128):
    """``make_metrics(data)``, then one cold evaluation at the Objective's
    starting point (Newton-CG and CG from zeros) and ``n_warm`` warm ones,
    each after ``iterations`` more iterations of ``solver`` (a step of the
    run between two evaluations), each timed on its own.

    Newton steps, Hessian-vector products and the solves' residuals come
    from the exact oracle's ``status``; ``tol_met`` says whether every
    evaluation met both tolerances (``solve_residual <= 1``).
    """
    from benchmark_utils.metrics import evaluate, make_metrics
    from benchmark_utils.problem import starting_point

    from .shapes import make_config, make_run
    x, y, z = starting_point(problem, seed)
    t0 = time.perf_counter()
    metrics = make_metrics(data)
    res = dict(make_metrics_s=time.perf_counter() - t0, solver=solver,
               step_size=step_size, iterations=iterations)
    run = make_run(problem, make_config(solver, 64, step_size=step_size),
                   seed)
    evals = []
    for k in range(n_warm + 1):
        if k:
            run.run(iterations)
            x, y, z = run.x, run.y, run.z
        t0 = time.perf_counter()
        values = evaluate(metrics, x, y, z, 0)
        st = dict(metrics.exact.status)
        evals.append(dict(s=time.perf_counter() - t0,
                          newton_steps=st["newton_steps"], hvps=st["hvps"],
                          residual=float(st["residual"]),
                          value=values["value"],
                          grad_norm2=values["grad_norm2"]))
    warm = evals[1:]
    res["cold"] = evals[0]
    res["warm"] = warm
    res["cold_s"] = evals[0]["s"]
    res["warm_s"] = statistics.median(e["s"] for e in warm)
    res["warm_max_s"] = max(e["s"] for e in warm)
    res["tol_met"] = all(e["residual"] <= 1.0 for e in evals)
    return res
