"""Sample-complexity experiment on Simulated: samples to reach
``|grad H(x_k)|^2 <= eps`` as ``N = n + m`` grows.

The PnPBO paper (Table 1; the reference is in docs/algorithms.md)
states

* SPABA, SFFBA, MSEBA: O(N + N^{1/2} eps^{-1})  (Theorems thsffba, thmseba),
* MA-SABA:             O(N^{2/3} eps^{-1}),
* SABA:                O(N^{2/3} eps^{-1}) under C^{2,2}/C^{3,3} smoothness
  (Dagreou et al. 2022; O(N eps^{-1}) under C^{1,1}/C^{2,2} only; the
  quadratic Simulated problem is smooth to every order, so 2/3 applies).

Each solver runs with the parameters its theorem prescribes
(``theory_config``):

* SPABA, SFFBA, MSEBA: batch ``b = round(sqrt(N))``; PAGE probability
  ``p = b / (N + b)`` (SPABA, MSEBA; Theorem thmseba); ZeroSARAH momentum
  ``rho_bar = b / (2N) = 1 / (2 sqrt(N))`` (SFFBA, MSEBA; Theorems thsffba,
  thmseba); constant steps, independent of N.
* MA-SABA: batch ``b = round(N^{2/3})``, constant steps, constant MA weight
  ``rho`` (the preset's 0.1).
* SABA: batch 1 with constant steps scaled as ``N^{-2/3}`` (Dagreou et al.
  2022, Theorem 2: ``rho = c N^{-2/3}``), i.e.
  ``step_size = saba_c * N^{-2/3}``.

The theorems' constants (L^H, mu, c_beta, ...) are not computable here, so
the step constants are FIXED across sizes: ``step_size`` (beta) =
``--step`` (0.1), ``outer_ratio = z_ratio = 1`` (alpha = gamma = beta), and
SABA's ``saba_c`` (``--saba-c``, 5).  The data are
``make_quadratic(n=N//2, m=N - N//2, dim_x, dim_y, seed)``; seed s draws the
data, the starting point and the run.

``eps`` is ABSOLUTE (``|grad H(x_k)|^2`` from the closed form of
``exact_quadratic``, not relative to the start).  The exact gradient is
checked ``--checks`` times per epoch's worth of samples (an epoch: N
samples), so a count is exact up to N / checks samples; the count is the
run's ``n_samples`` at the first check below eps (the initial full pass of
``init="full"`` included).  A run that spends ``--budget`` epochs (budget x
N samples) without reaching eps is "not reached"; a non-finite or exploding
gradient is "diverged".

The exponent is the least-squares slope of log(samples) on log(N), per
solver, on the median over seeds (sizes where the median is not reached are
left out of the fit).

Command of the committed figure (docs/figures/sample_complexity.png)::

    python -m tools.sample_complexity \\
        --sizes 1000,2000,4000,8000,16000,32000,64000 --eps 1e-7 --seeds 5 \\
        --out docs/figures/sample_complexity.png

(the defaults: about 25 s on 2 cores once numba's cache is warm, plus about
45 s of compilation on a cold cache); ``--quick`` runs a small variant
(3 sizes, 1 seed, eps 1e-4).
"""
import argparse
import math
import sys
import time

import numpy as np

from tools.arguments import positive_number

THEORY = {"SPABA": 0.5, "SFFBA": 0.5, "MSEBA": 0.5, "MA-SABA": 2 / 3,
          "SABA": 2 / 3}
SOLVERS = tuple(THEORY)
DEFAULT_SIZES = (1000, 2000, 4000, 8000, 16000, 32000, 64000)
QUICK_SIZES = (500, 1000, 2000)
EXPLODE = 1e12          # |grad H|^2 above EXPLODE * max(1, start): diverged


def theory_config(solver, N, step=0.1, saba_c=5.0):
    """``config_of`` keyword arguments (besides the preset) of ``solver``
    at size ``N = n + m``, as its theorem prescribes (module docstring)."""
    if solver not in THEORY:
        raise ValueError(f"solver must be one of {list(THEORY)}, "
                         f"got {solver!r}")
    kw = dict(step_size=step, outer_ratio=1.0, z_ratio=1.0)
    if solver in ("SPABA", "SFFBA", "MSEBA"):
        b = max(1, round(math.sqrt(N)))
        kw["batch_size"] = b
        if solver in ("SPABA", "MSEBA"):
            kw["p"] = b / (N + b)
        if solver in ("SFFBA", "MSEBA"):
            kw["rho_bar"] = b / (2 * N)
    elif solver == "MA-SABA":
        kw["batch_size"] = max(1, round(N ** (2 / 3)))
    else:  # SABA
        kw["batch_size"] = 1
        kw["step_size"] = saba_c * N ** (-2 / 3)
    return kw


def run_to_eps(run, grad_norm2, eps, chunk, max_samples):
    """Advance ``run`` by ``chunk`` iterations at a time until
    ``grad_norm2(run.x) <= eps`` (checked at the start too).

    Returns a dict: ``samples`` (the run's ``n_samples`` at the first check
    below ``eps``; ``None`` if not reached), ``status`` ("reached", "not
    reached": ``n_samples`` passed ``max_samples``, or "diverged"),
    ``n_samples`` (at the stop), ``grad_norm2`` (last value) and
    ``iterations``.
    """
    chunk = max(1, int(chunk))
    g2 = g_start = float(grad_norm2(run.x))
    status = None
    while True:
        if not math.isfinite(g2) or g2 > EXPLODE * max(1.0, g_start) \
                or run.diverged:
            status = "diverged"
            break
        if g2 <= eps:
            status = "reached"
            break
        if run.n_samples >= max_samples:
            status = "not reached"
            break
        run.run(chunk)
        g2 = float(grad_norm2(run.x))
    return dict(samples=run.n_samples if status == "reached" else None,
                status=status, n_samples=run.n_samples, grad_norm2=g2,
                iterations=run.iteration)


def fit_exponent(sizes, samples):
    """Least-squares fit ``log(samples) = a log(size) + c``: ``(a, c)``.

    Pairs whose sample count is ``None``, non-finite or <= 0 are left out;
    ``(nan, nan)`` with fewer than two distinct sizes left."""
    pts = [(float(s), float(v)) for s, v in zip(sizes, samples)
           if v is not None and math.isfinite(v) and v > 0]
    if len({s for s, _ in pts}) < 2:
        return math.nan, math.nan
    lx = np.log([s for s, _ in pts])
    ly = np.log([v for _, v in pts])
    a, c = np.polyfit(lx, ly, 1)
    return float(a), float(c)


def one_run(solver, N, seed, eps, dim_x=10, dim_y=20, step=0.1,
            saba_c=5.0, budget=300, checks=20):
    """Samples of ``solver`` to reach ``eps`` on Simulated of size ``N``
    (``run_to_eps``'s dict, plus the config's keyword arguments)."""
    from benchmark_utils.exact_quadratic import QuadraticExact
    from benchmark_utils.algorithms import PnPBORun, config_of
    from benchmark_utils.simulated import make_quadratic
    from benchmark_utils.problem import problem_from_data, starting_point

    n = N // 2
    data = make_quadratic(n=n, m=N - n, dim_x=dim_x, dim_y=dim_y, seed=seed)
    exact = QuadraticExact(**data)
    problem = problem_from_data(**data)
    x0, y0, z0 = starting_point(problem, seed)
    kw = theory_config(solver, N, step=step, saba_c=saba_c)
    cfg = config_of(solver, **kw)
    run = PnPBORun(problem, cfg, x0, y0, z0, seed)

    def grad_norm2(x):
        g = exact.grad(x)
        return g @ g

    chunk = max(1, round(N / (checks * kw["batch_size"])))
    out = run_to_eps(run, grad_norm2, eps, chunk, budget * N)
    out["config"] = kw
    return out


def median_samples(results):
    """Median over seeds of the sample counts (a ``not reached`` run counts
    as +inf); ``None`` when the median is not finite."""
    vals = [math.inf if r["samples"] is None else r["samples"]
            for r in results]
    med = float(np.median(vals))
    return med if math.isfinite(med) else None


def experiment(sizes, solvers, eps, seeds, log=None, **kwargs):
    """``{solver: {N: [one_run dict per seed]}}``."""
    res = {}
    for solver in solvers:
        res[solver] = {}
        for N in sizes:
            res[solver][N] = []
            for seed in range(seeds):
                t = time.perf_counter()
                r = one_run(solver, N, seed, eps, **kwargs)
                res[solver][N].append(r)
                if log is not None:
                    log(f"{solver:8s} N={N:6d} seed={seed}: {r['status']}"
                        f" samples={r['n_samples']} "
                        f"({time.perf_counter() - t:.1f}s)")
    return res


def summarize(res, sizes):
    """(table text, ``{solver: (exponent, constant, medians)}``)."""
    fits = {}
    head = f"{'N = n+m':>8s} | " + " | ".join(f"{s:>12s}" for s in res)
    lines = [head, "-" * len(head)]
    for solver in res:
        meds = [median_samples(res[solver][N]) for N in sizes]
        a, c = fit_exponent(sizes, meds)
        fits[solver] = (a, c, meds)
    for i, N in enumerate(sizes):
        cells = []
        for solver in res:
            med = fits[solver][2][i]
            n_ok = sum(r["samples"] is not None for r in res[solver][N])
            tag = "" if n_ok == len(res[solver][N]) else \
                f" ({n_ok}/{len(res[solver][N])})"
            txt = "not reached" if med is None else f"{med:.3g}{tag}"
            cells.append(f"{txt:>12s}")
        lines.append(f"{N:>8d} | " + " | ".join(cells))
    lines.append("")
    lines.append(f"{'solver':8s} | fitted exponent | theory")
    for solver, (a, _, _) in fits.items():
        fitted = "n/a" if math.isnan(a) else f"{a:.2f}"
        lines.append(f"{solver:8s} | {fitted:>15s} | "
                     f"{THEORY[solver]:.2f}")
    return "\n".join(lines), fits


def plot(fits, sizes, eps, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    grid = np.geomspace(min(sizes), max(sizes), 50)
    for i, (solver, (a, c, meds)) in enumerate(fits.items()):
        color = f"C{i}"
        pts = [(N, v) for N, v in zip(sizes, meds) if v is not None]
        if pts:
            ax.plot(*zip(*pts), "o", color=color)
        if not math.isnan(a):
            ax.plot(grid, np.exp(c) * grid ** a, "-", color=color,
                    label=f"{solver}: slope {a:.2f} "
                          f"(theory {THEORY[solver]:.2f})")
        else:
            ax.plot([], [], "o", color=color, label=f"{solver}: no fit")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N = n + m")
    ax.set_ylabel(f"samples to |grad H|^2 <= {eps:g} (median)")
    ax.set_title("Simulated: sample complexity vs N")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def _ints(text):
    return tuple(int(v) for v in text.split(",") if v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=_ints, default=None,
                    help="N = n + m, comma-separated")
    ap.add_argument("--eps", type=float, default=None,
                    help="absolute target on |grad H|^2 (1e-7)")
    ap.add_argument("--solvers", default=",".join(SOLVERS))
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--dim-x", type=int, default=10)
    ap.add_argument("--dim-y", type=int, default=20)
    ap.add_argument("--step", type=float, default=0.1,
                    help="constant beta (alpha = gamma = beta)")
    ap.add_argument("--saba-c", type=float, default=5.0,
                    help="SABA step = saba_c * N^(-2/3)")
    ap.add_argument("--budget", type=positive_number("--budget"),
                    default=300,
                    help="sample budget in epochs (x N), a finite number > 0")
    ap.add_argument("--checks", type=int, default=20,
                    help="gradient checks per epoch")
    ap.add_argument("--out", default="docs/figures/sample_complexity.png")
    ap.add_argument("--quick", action="store_true",
                    help="3 small sizes, 1 seed, eps 1e-4")
    args = ap.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    eps = args.eps if args.eps is not None else (1e-4 if args.quick
                                                 else 1e-7)
    seeds = args.seeds or (1 if args.quick else 5)
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    for s in solvers:
        if s not in THEORY:
            ap.error(f"unknown solver {s!r}; choose among {list(THEORY)}")
    t0 = time.perf_counter()
    res = experiment(sizes, solvers, eps, seeds,
                     log=lambda msg: print(msg, file=sys.stderr, flush=True),
                     dim_x=args.dim_x, dim_y=args.dim_y, step=args.step,
                     saba_c=args.saba_c, budget=args.budget,
                     checks=args.checks)
    table, fits = summarize(res, sizes)
    print(f"eps = {eps:g} (absolute), seeds = {seeds}, budget = "
          f"{args.budget:g} epochs; median samples over seeds "
          f"((k/s): k of s seeds reached)")
    print(table)
    if args.out:
        plot(fits, sizes, eps, args.out)
        print(f"figure: {args.out}")
    print(f"time: {time.perf_counter() - t0:.1f}s")
    return res, fits


if __name__ == "__main__":
    main()
