"""Each task's final tuning, from its record: the work every solver got,
the ranges searched where they differ from ``tools.tune``'s defaults
(``tools.tune.space.RANGES``), and the command that tunes it that way.

    python -m study.tunings study/data/tune_*.json.xz

A tuning of the study ran in rounds, each continuing the last
(``--continue-from``) with more trials' work, in ranges widened where a
winner sat on an edge; the record of the last round holds every round's
trials, and its ranges are the last round's.  The earlier rounds' records
are in the repository's history.
"""
import argparse
import math

from tools.tune.record_file import read_json
from tools.tune.space import RANGES


def widened(rec):
    """``{parameter: (low, high)}``: the ranges of a record's solvers that
    differ from the defaults (one per parameter: ``--range`` sets it for
    every solver that has it)."""
    out = {}
    for solver in rec["solvers"].values():
        for name, space in solver.get("space", {}).items():
            default = RANGES.get(name)
            bounds = (space["low"], space["high"])
            if default is None or bounds != (default.low, default.high):
                if out.setdefault(name, bounds) != bounds:
                    raise ValueError(f"{rec['dataset']}: {name} searched "
                                     f"in {out[name]} and {bounds}")
    return out


def _num(value):
    """A bound as a command writes it: 1e5, 1e-7, 0.5, 80."""
    exponent = math.log10(value) if value > 0 else 0.0
    if exponent.is_integer() and abs(exponent) >= 3:
        return f"1e{int(exponent)}"
    return f"{value:g}"


def _range(name, bounds):
    return f"--range {name}={_num(bounds[0])}:{_num(bounds[1])}"


def command(rec, path):
    """The ``tools.tune`` command of a record's final round."""
    b = rec["budget"]
    words = [f"python -m tools.tune --dataset \"{rec['dataset']}\" "
             f"--solvers $ALL --trials {b['trials']} --epochs "
             f"{b['epochs']:g} --evals {b['evals']} --splits {b['splits']}"]
    ranges = " ".join(_range(n, r) for n, r in sorted(widened(rec).items()))
    words += [ranges] if ranges else []
    words.append(f"--record {path}")
    return " \\\n    ".join(words)


def markdown(records):
    """A table of the tasks' final tunings, then their commands."""
    lines = ["| task | trials' work | epochs | splits | epochs per solver | "
             "ranges widened | wall time (s) |",
             "|---|---|---|---|---|---|---|"]
    solvers = None
    for path, rec in records:
        b = rec["budget"]
        ranges = ", ".join(f"{n} {_num(lo)} to {_num(hi)}" for n, (lo, hi)
                           in sorted(widened(rec).items())) or "—"
        lines.append(f"| {rec['dataset']} | {b['trials']} | {b['epochs']:g} "
                     f"| {b['splits']} | {b['epochs_per_solver']:g} | "
                     f"{ranges} | {rec.get('elapsed_seconds', 0):.0f} |")
        names = ",".join(rec["solvers"])
        solvers = names if solvers in (None, names) else "differ"
    lines += ["", "```bash"]
    if solvers and solvers != "differ":
        lines.append(f"ALL={solvers}")
    lines += [command(rec, path) for path, rec in records]
    lines.append("```")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.tunings",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("records", nargs="+", help="tuning records (JSON)")
    args = p.parse_args(argv)
    try:
        records = [(path, read_json(path)) for path in args.records]
        print(markdown(records))
    except (OSError, ValueError, KeyError) as err:
        p.error(f"not a readable tuning record ({err})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
