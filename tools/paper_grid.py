"""Write a benchopt run config that sweeps the PnPBO paper's step-size grid
(Section 6, "Setting") in this benchmark's parameters.

    python -m tools.paper_grid --dataset ijcnn1 --solvers SPABA,SFFBA,MSEBA \
        [--n-alpha 11] [--n-phi 11] [--n-kappa 11] [--p 0.01,0.1] \
        [--rho-bar 0.1,0.5] [--sampling blocks] [--timeout 600] \
        [--repetitions 5] [--output configs/sweep_ijcnn1.yml]

The paper tunes alpha (x step) over ``n_alpha`` log-spaced values in
[1e-3, 1], phi and kappa over ``n_phi``, ``n_kappa`` log-spaced values in
[1e-5, 1], with beta = alpha / phi (y step) and gamma = alpha / kappa (z
step).  In this benchmark's convention (docs/comparisons.md, "From the paper's grid"):

    step_size = beta = alpha / phi,  outer_ratio = 1 / phi,
    z_ratio = beta / gamma = kappa / phi

so the grid is not a product of our parameters: the config lists one
solver setting per (alpha, phi, kappa) point (times the ``p`` / ``rho_bar``
values of the solvers that have them), which benchopt runs as is.  The full
grid is 1 331 settings per solver and value of p or rho_bar; ``--n-*``
shrink it (``configs/sweep_paper_small.yml`` is ``--n-alpha 3 --n-phi 3
--n-kappa 3`` on offline data).  Rank the results with ``python -m
tools.select``.
"""
import argparse
import itertools
import sys

import numpy as np

ALPHA = (1e-3, 1.0)
PHI = KAPPA = (1e-5, 1.0)
# Parameters of the paper's grid each solver has besides the steps.
EXTRA = {"SPABA": "p", "MSEBA": "p", "SFFBA": "rho_bar"}


def logspace(bounds, n):
    """``n`` log-spaced values over ``bounds`` (the upper bound if n = 1)."""
    lo, hi = bounds
    if n == 1:
        return [hi]
    return [float(v) for v in np.logspace(np.log10(lo), np.log10(hi), n)]


def _fmt(v):
    return f"{v:.6g}"


def settings(solver, alphas, phis, kappas, extra_values, sampling):
    """benchopt solver strings for every point of the grid."""
    extra = EXTRA.get(solver)
    values = extra_values.get(extra, [None]) if extra else [None]
    if solver == "MSEBA":  # PAGE's p and ZeroSARAH's rho_bar
        values = list(itertools.product(extra_values.get("p", [None]),
                                        extra_values.get("rho_bar",
                                                         [None])))
    out = []
    for a, phi, kappa, v in itertools.product(alphas, phis, kappas, values):
        params = dict(step_size=a / phi, outer_ratio=1.0 / phi,
                      z_ratio=kappa / phi)
        if solver == "MSEBA":
            for name, val in zip(("p", "rho_bar"), v):
                if val is not None:
                    params[name] = val
        elif v is not None:
            params[extra] = v
        if sampling:
            params["sampling"] = sampling
        body = ",".join(f"{k}={_fmt(x) if isinstance(x, float) else x}"
                        for k, x in params.items())
        out.append(f"{solver}[{body}]")
    return out


def config_text(args):
    """The YAML run config (written by hand: one quoted string a line)."""
    alphas = logspace(ALPHA, args.n_alpha)
    phis = logspace(PHI, args.n_phi)
    kappas = logspace(KAPPA, args.n_kappa)
    extra_values = {"p": args.p, "rho_bar": args.rho_bar}
    lines = [
        "# The PnPBO paper's step-size grid (Section 6) in this benchmark's",
        "# parameters: step_size = alpha/phi, outer_ratio = 1/phi, z_ratio =",
        "# kappa/phi. Written by:",
        "#   python -m tools.paper_grid " + " ".join(args.argv),
        f"# alpha: {args.n_alpha} log-spaced values in [1e-3, 1]; phi: "
        f"{args.n_phi}, kappa: {args.n_kappa} in [1e-5, 1].",
        "dataset:",
        f'  - "{args.dataset}"',
        "solver:",
    ]
    for solver in args.solvers:
        for s in settings(solver, alphas, phis, kappas, extra_values,
                          args.sampling):
            lines.append(f'  - "{s}"')
    lines += [f"n-repetitions: {args.repetitions}",
              f"max-runs: {args.max_runs}", f"timeout: {args.timeout}", ""]
    return "\n".join(lines)


def _floats(text):
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {text!r}") from None


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tools.paper_grid",
        description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True,
                        help='benchopt dataset selection, e.g. "ijcnn1"')
    parser.add_argument("--solvers", default="SPABA,SFFBA,MSEBA",
                        help="comma-separated PnPBO solvers")
    for name, default in (("alpha", 11), ("phi", 11), ("kappa", 11)):
        parser.add_argument(f"--n-{name}", type=int, default=default)
    parser.add_argument("--p", type=_floats, default=[0.01],
                        help="SPABA/MSEBA's p values (the paper lists 1-p)")
    parser.add_argument("--rho-bar", type=_floats, default=[0.1],
                        help="SFFBA/MSEBA's rho_bar values")
    parser.add_argument("--sampling", choices=("uniform", "blocks", ""),
                        default="blocks")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--max-runs", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--output", "-o", help="file (default: stdout)")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    from benchmark_utils.algorithms import PRESETS
    unknown = [s for s in args.solvers if s not in PRESETS]
    if unknown:
        parser.error(f"unknown solvers {unknown}; the step grid applies to "
                     f"the PnPBO solvers {PRESETS}")
    for name in ("n_alpha", "n_phi", "n_kappa"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    text = config_text(args)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
        n = sum(1 for line in text.splitlines() if line.startswith("  - ")
                ) - 1
        print(f"{n} solver settings written to {args.output}")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
