"""How large is ||z*(x)|| on a dataset? The clipping radius R from the data.

    python -m tools.z_radius wine breast_cancer digits [--repetitions 5]

The clipped solvers keep z in the ball of radius R; the PnPBO paper's
analysis takes R = C^f / mu, an upper bound of ||z*(x)|| over the iterates
(z*(x) = [hess_yy g]^{-1} grad_y f at y*(x)).  When R < ||z*(x)|| they
converge to a biased point.  This tool follows exact hypergradient descent
on H(x) = f(x, y*(x)) from the Objective's starting point x0 (step doubled
after a decrease of H, halved and retried after an increase) with the
exact metrics' solves (``benchmark_utils.exact_glm``), until
||grad H||^2 <= ``--rtol`` x its first value or ``--max-iter`` steps, and
prints ||z*(x)|| at x0, at the last point and its largest value on the
path.  The suggested radius is ``R = 2 x max ||z*||`` rounded up to one
significant digit, the largest over the repetitions whose descent
converged: where a split has no minimiser of H (wine: a validation split
may be separable, x -> -inf and ||z*|| grows without bound; breast_cancer
too) no finite R bounds z*, and such a repetition is reported but does
not set R.  ``benchmark_utils/tuned.py`` records the values it gave (the
``R`` of each dataset's tuned settings).

The small datasets only (the ones scikit-learn ships), each repetition
with the split and starting point of that repetition of a ``benchopt run
--seed S`` (``--base-seed``, default 0, benchopt's default): one row per
repetition, the first ``--repetitions`` (default 5).
"""
import argparse
import math

import numpy as np
from benchopt.utils.run_context import RunContext

from benchmark_utils.data import small
from benchmark_utils.metrics import make_metrics
from benchmark_utils.problem import problem_from_data, starting_point


def benchopt_seeds(repetition=0, base_seed=0):
    """``(split, start)``: the seeds a dataset's ``get_data`` and the
    Objective's starting point take in repetition ``repetition`` of
    ``benchopt run --seed base_seed`` (``get_seed(use_repetition=True)``)."""
    context = RunContext(base_seed=str(base_seed), repetition=repetition)
    return tuple(context.get_seed(name, use_repetition=True)
                 for name in ("Dataset", "Objective"))


DATASETS = {
    "digits": lambda seed: small.digits_task(0.5, seed=seed),
    "breast_cancer": lambda seed: small.breast_cancer_task(seed=seed),
    "wine": lambda seed: small.wine_task(seed=seed),
}


def round_up(value):
    """``value`` rounded up to one significant digit (54.2 -> 60)."""
    if value <= 0:
        return 0.0
    scale = 10.0 ** math.floor(math.log10(value))
    return math.ceil(value / scale) * scale


def suggested_radius(paths, rtol=1e-6):
    """R = 2 max ||z*|| rounded up, over the ``paths`` (``z_star_path``
    outputs) that converged to ``rtol``; None if none did."""
    bounded = [p["max"] for p in paths
               if p["grad_norm2"] <= rtol * p["grad_norm2_0"]]
    return round_up(2 * max(bounded)) if bounded else None


def z_star_path(data, seed=0, rtol=1e-6, max_iter=2000):
    """||z*(x_k)|| along exact hypergradient descent from the Objective's
    x0; returns a dict of norms, H values and the iteration count."""
    metrics = make_metrics(data)
    exact = metrics.exact
    problem = problem_from_data(**data)
    x, _, _ = starting_point(problem, seed)
    _, zs, grad, value = exact.solve(x)
    norms, values = [np.linalg.norm(zs)], [value]
    g0, lr = float(grad @ grad), 1.0
    it = 0
    for it in range(1, max_iter + 1):
        trial = x - lr * grad
        _, zt, gt, vt = exact.solve(trial)
        if not np.isfinite(vt) or vt > value:
            lr /= 2
            if lr < 1e-12:
                break
            continue
        x, zs, grad, value = trial, zt, gt, vt
        norms.append(np.linalg.norm(zs))
        values.append(value)
        lr *= 2
        if grad @ grad <= rtol * g0:
            break
    return dict(first=norms[0], last=norms[-1], max=max(norms),
                H0=values[0], H=values[-1], grad_norm2=float(grad @ grad),
                grad_norm2_0=g0, iterations=it)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+", choices=sorted(DATASETS))
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--base-seed", type=int, default=0)
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--max-iter", type=int, default=2000)
    args = parser.parse_args(argv)
    print("| dataset | repetition | ||z*(x0)|| | ||z*|| last | max on path "
          "| H0 -> H | |grad H|^2 / first | steps | 2 max, rounded up |")
    print("|---|---|---|---|---|---|---|---|---|")
    radius = {}
    for name in args.datasets:
        paths = []
        for rep in range(args.repetitions):
            split, start = benchopt_seeds(rep, args.base_seed)
            out = z_star_path(DATASETS[name](split), start, args.rtol,
                              args.max_iter)
            paths.append(out)
            print(f"| {name} | {rep} | {out['first']:.3g} | "
                  f"{out['last']:.3g} | {out['max']:.3g} | "
                  f"{out['H0']:.4f} -> {out['H']:.4f} | "
                  f"{out['grad_norm2'] / out['grad_norm2_0']:.1e} | "
                  f"{out['iterations']} | {round_up(2 * out['max']):g} |")
        radius[name] = suggested_radius(paths, args.rtol)
    for name, value in radius.items():
        print(f"{name}: R = {value:g}" if value is not None else
              f"{name}: no repetition converged, no finite R bounds z*")


if __name__ == "__main__":
    main()
