"""How large is ||z*(x)|| on a dataset? The clipping radius R from the data.

    python -m tools.z_radius wine breast_cancer digits [--seed 0]

The clipped solvers keep z in the ball of radius R; the PnPBO paper's
analysis takes R = C^f / mu, an upper bound of ||z*(x)|| over the iterates
(z*(x) = [hess_yy g]^{-1} grad_y f at y*(x)).  When R < ||z*(x)|| they
converge to a biased point.  This tool follows exact hypergradient descent
on H(x) = f(x, y*(x)) from the Objective's starting point x0 (step doubled
after a decrease of H, halved and retried after an increase) with the
exact metrics' solves (``benchmark_utils.exact_glm``), until
||grad H||^2 <= ``--rtol`` x its first value or ``--max-iter`` steps, and
prints ||z*(x)|| at x0, at the last point and its largest value on the
path, and the suggested radius ``R = 2 x max ||z*||`` rounded up to one
significant digit.  ``benchmark_utils/tuned.py`` records the values it gave
(the ``R`` of each dataset's tuned settings).

The small datasets only (the ones scikit-learn ships), split with
``--seed``: by default the seed benchopt's datasets get with benchopt's
default ``--seed`` (``get_seed(use_repetition=False)`` = 123370572), so the
split of a ``benchopt run``.  Another split can change ||z*|| a lot where
H has no minimiser (wine: its validation split may be separable, x -> -inf
and ||z*|| grows without bound; try ``--seed 1``).
"""
import argparse
import math

import numpy as np

from benchmark_utils.data import small
from benchmark_utils.metrics import make_metrics
from benchmark_utils.problem import problem_from_data, starting_point

# The seed benchopt 1.10 gives a dataset's get_seed(use_repetition=False)
# under its default --seed (RunContext(base_seed="0").get_seed("Dataset")).
BENCHOPT_SPLIT_SEED = 123370572

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
    parser.add_argument("--seed", type=int, default=BENCHOPT_SPLIT_SEED)
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--max-iter", type=int, default=2000)
    args = parser.parse_args(argv)
    print("| dataset | ||z*(x0)|| | ||z*|| last | max on path | H0 -> H "
          "| |grad H|^2 / first | steps | R = 2 max, rounded up |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        out = z_star_path(DATASETS[name](args.seed), args.seed, args.rtol,
                          args.max_iter)
        print(f"| {name} | {out['first']:.3g} | {out['last']:.3g} | "
              f"{out['max']:.3g} | {out['H0']:.4f} -> {out['H']:.4f} | "
              f"{out['grad_norm2'] / out['grad_norm2_0']:.1e} | "
              f"{out['iterations']} | {round_up(2 * out['max']):g} |")


if __name__ == "__main__":
    main()
