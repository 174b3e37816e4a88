"""Was the budget enough?  Each solver's best-so-far criterion against the
epochs its trials were charged (``work``), read from a tuning's record,
and a flag for a solver still improving at the end of its budget.

    python -m tools.tune.adequacy outputs/tune_fashion.json \
        [--markdown] [--figure docs/figures/tune_adequacy.svg]

prints one line per solver (a Markdown table with ``--markdown``, the
winners' edges too) (trials, epochs charged of the budget, best
criterion, its improvement over the last quarter of the epochs charged,
and ``still improving`` when that improvement exceeds ``IMPROVING`` of
the best, relative) and draws the curves, one per solver, when
``--figure`` is given.  Only the ranked trials (within the budget) enter.
"""
import argparse
import math
import sys

from tools.arguments import refuse_inputs

from .record_file import read_json

IMPROVING = 1e-3  # relative improvement in the last quarter that flags
LAST = 0.25  # the share of the epochs charged read as "the end"


def best_so_far(rows):
    """``[(epochs charged so far, best criterion so far)]`` over the
    ranked trials of a solver's record rows (by number), one point per
    trial; the best is inf until a trial completes."""
    points, total, best = [], 0.0, math.inf
    for row in sorted(rows, key=lambda r: r["number"]):
        if not row.get("ranked"):
            continue
        total += row.get("charged_epochs") or 0.0
        if row.get("criterion") is not None:
            best = min(best, row["criterion"])
        points.append((total, best))
    return points


def improvement(points, last=LAST):
    """How much the best fell over the last ``last`` share of the epochs
    charged: the best at ``(1 - last)`` of the total minus the final
    best (inf when no trial had completed by then, nan without
    points)."""
    if not points:
        return math.nan
    total, final = points[-1]
    before = [b for e, b in points if e <= (1 - last) * total]
    start = before[-1] if before else math.inf
    return start - final


def still_improving(points, tolerance=IMPROVING, last=LAST):
    """Whether the best fell by more than ``tolerance`` (relative to the
    final best) over the last ``last`` of the epochs charged."""
    if not points or not math.isfinite(points[-1][1]):
        return False
    gain = improvement(points, last)
    return gain > tolerance * max(abs(points[-1][1]), 1e-300)


def adequacy(srec):
    """The adequacy entry of a solver's record."""
    points = best_so_far(srec["all_trials"])
    gain = improvement(points)
    return dict(best_so_far=[[round(e, 6), b] for e, b in points],
                improvement_last_quarter=gain if math.isfinite(gain)
                else None,
                still_improving=still_improving(points))


def lines(rec):
    """One line per solver of a record."""
    out = []
    for solver, s in rec["solvers"].items():
        points = best_so_far(s["all_trials"])
        work = s.get("work", {})
        best = points[-1][1] if points else math.inf
        gain = improvement(points)
        flag = "  still improving" if still_improving(points) else ""
        spent = (f"{work['charged_epochs']:g} of "
                 f"{work['budget_epochs']:g} epochs"
                 if work else f"{s['trials']} trials")
        out.append(f"{solver:8s} {s['trials']:3d} trials, {spent}, best "
                   f"{best:.6g}, last quarter {gain:+.3g}{flag}")
    return out


def markdown(rec):
    """A Markdown table of a record: per solver, its trials, the epochs
    charged of its budget, complete / pruned / diverged trials, the best
    criterion, its fall over the last quarter, whether it is still
    improving, and the best's parameters on an edge of their range."""
    lines = ["| solver | trials | epochs charged | complete / pruned / "
             "diverged | best criterion | fall in the last quarter | still "
             "improving | on an edge |", "|---|---|---|---|---|---|---|---|"]
    for solver, s in rec["solvers"].items():
        points = best_so_far(s["all_trials"])
        best = points[-1][1] if points else math.inf
        gain = improvement(points)
        work = s.get("work", {})
        spent = (f"{work['charged_epochs']:g} of {work['budget_epochs']:g}"
                 if work else "—")
        edges = ", ".join(
            f"{e['parameter']} {e['side']}" + (
                " (flat)" if e.get("flat") else
                "" if e["widen"] else " (a limit)")
            for e in s.get("edges", [])) or "—"
        lines.append(
            f"| {solver} | {s['trials']} | {spent} | {s['complete']} / "
            f"{s['pruned']} / {s['diverged']} | {best:.4g} | {gain:.3g} | "
            f"{'yes' if still_improving(points) else 'no'} | {edges} |")
    if rec.get("elapsed_seconds") is not None:
        lines += ["", f"Wall time of the tuning: {rec['elapsed_seconds']:.0f}"
                  " s (every invocation of it, `elapsed_seconds`)."]
    return "\n".join(lines)


def figure(rec, path):
    """Each solver's best-so-far criterion against the epochs charged,
    written to ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colours = plt.get_cmap("tab20").colors  # 14 solvers: one colour each
    for i, (solver, s) in enumerate(rec["solvers"].items()):
        points = [(e, b) for e, b in best_so_far(s["all_trials"])
                  if math.isfinite(b)]
        if not points:
            continue
        style = "--" if still_improving(points) else "-"
        ax.step(*zip(*points), style, where="post", label=solver,
                color=colours[i % len(colours)])
    ax.set_xlabel("epochs charged to the solver's trials")
    ax.set_ylabel(f"best criterion so far ({rec.get('metric', 'value')})")
    ax.set_title(f"{rec['dataset'].partition('[')[0]}: the best so far "
                 "(dashed: still improving)", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.tune.adequacy",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("record", help="a tuning's JSON record")
    p.add_argument("--markdown", action="store_true",
                   help="print a Markdown table")
    p.add_argument("--figure", metavar="PATH",
                   help="draw the curves to this file (.svg, .png)")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    refuse_inputs(p, {"--figure": args.figure},
                  {"the record": args.record})
    try:
        rec = read_json(args.record)
        print(markdown(rec) if args.markdown else "\n".join(lines(rec)))
    except (OSError, ValueError, KeyError) as err:
        p.error(f"{args.record}: not a readable tuning record ({err})")
    if args.figure:
        figure(rec, args.figure)
        print(f"figure written to {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
