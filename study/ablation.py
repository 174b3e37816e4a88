"""An ablation of a run config: the same objective, datasets, seed and
repetitions, the named solvers at their configured values with one or
more parameters changed (clipping off: ``R=inf``; the moving average
off: ``rho=1``), so that the ablation's runs pair with the config's on
every instance.

    python -m study.ablation study/configs/tuned_wine.yml \
        --solvers SPABA,SFFBA,MSEBA --set R=inf \
        --out study/configs/tuned_wine_noclip.yml

A solver the config does not list, a parameter a solver line does not
set and the solver has no default of, or a value the solver's own
configuration check refuses (``R=-3``), is refused with its name, as is
an ``--out`` that is the config itself.
"""
import argparse

import yaml

from benchmark_utils.algorithms import config_of, defaults
from benchmark_utils.tuned import TUNABLE, is_tuned
from tools.arguments import refuse_inputs
from tools.reference_lines import read_line, values_of, write_line
from tools.tune.report import write_atomic


def ablate(config, solvers, changes):
    """The config's dict with only the lines of ``solvers``, each with
    ``changes`` ({name: value text}) applied."""
    lines = {read_line(line)[0]: line for line in config.get("solver", [])}
    missing = [s for s in solvers if s not in lines]
    if missing:
        raise ValueError(f"--solvers: {missing} not in the config (it "
                         f"lists {sorted(lines)})")
    out = []
    for solver in solvers:
        name, params, warnings = read_line(lines[solver])
        if warnings:
            raise ValueError(f"{solver}: {'; '.join(warnings)}")
        unknown = [k for k in changes if k not in defaults(solver)]
        if unknown:
            raise ValueError(f"--set: {solver} has no parameter {unknown}")
        for key, text in changes.items():
            check_value(solver, key, text)
        out.append(write_line(name, {**params, **changes}))
    return {**config, "solver": out}


def check_value(solver, key, text):
    """A ValueError naming ``--set key=text`` when ``solver``'s own
    configuration check (``algorithms.config_of``, what a run builds)
    refuses a value of ``text`` (one, or each of a list ``[a, b]``);
    ``tuned`` is read from the dataset's entry when the config runs."""
    for value in values_of(text):
        if key in TUNABLE and is_tuned(value):
            continue
        try:
            config_of(solver, **{key: value})
        except ValueError as err:
            raise ValueError(f"--set {key}={text}: {solver} refuses it "
                             f"({err})") from None


def parse_change(text):
    name, sep, value = text.partition("=")
    if not (sep and name and value):
        raise argparse.ArgumentTypeError(
            f"--set wants NAME=VALUE (e.g. R=inf), got {text!r}")
    return name, value


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.ablation",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("config")
    p.add_argument("--solvers", required=True,
                   help="comma-separated solvers of the config")
    p.add_argument("--set", type=parse_change, action="append",
                   required=True, metavar="NAME=VALUE")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    refuse_inputs(p, {"--out": args.out}, {"the config": args.config})
    try:
        with open(args.config) as handle:
            config = yaml.safe_load(handle)
        solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
        changed = ablate(config, solvers, dict(args.set))
    except (OSError, ValueError) as err:
        p.error(str(err))
    note = (f"# {args.config} with {', '.join(solvers)} at "
            + ", ".join(f"{k}={v}" for k, v in args.set)
            + " (python -m study.ablation)\n")
    write_atomic(args.out, note + yaml.safe_dump(changed, sort_keys=False,
                                                 width=1000))
    print(f"written to {args.out}: benchopt run . --config {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
