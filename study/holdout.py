"""Does a tuning's late improvement hold on splits it was not scored on?

The adequacy rule (``adequacy.still_improving``) flags a solver whose best
criterion fell by more than 0.1 % over the last quarter of its budget.
On a few fixed splits, part of such a fall can be selection among noisy
evaluations: a configuration that scores a little better on those splits
and no better on others.  This command scores, for each flagged solver,
the best trial by three quarters of the epochs charged (``before``) and
the final best (``after``) again, on ``--splits`` splits of another
benchopt seed (``--seed``: splits, corruptions and starting points the
tuning never saw), with the record's epochs, evaluation points and
criterion, and compares the two falls, each relative to ``after``'s
criterion on its splits:

    python -m study.holdout study/data/tune_breast_cancer.json.xz \\
        --out study/data/holdout_breast_cancer.json      # runs the solvers
    python -m study.holdout --show study/data/holdout_*.json

The outcome of a solver: ``holds`` when ``after`` is better held out by
more than the rule's 0.1 %, ``reverses`` when it is worse by more than
that, ``within 0.1 %`` otherwise, and ``after diverges`` when the final
best diverges on a held-out split (the earlier one is the safer winner).
A late fall that does not hold is not a reason to tune longer: the
comparison's winner would not be better in expectation.
"""
import argparse
import json
import math
import sys
import time

from study import record_inputs as inputs
from tools.arguments import refuse_inputs
from tools.tune.adequacy import IMPROVING, LAST, best_so_far
from tools.tune.run import Diverged

HOLDOUT_SEED = 4  # not the tuning's (0) nor the study's comparisons' (1-3)


def before_and_after(solver_record, last=LAST):
    """``(before, after)``: the record rows of the best ranked trial by
    ``1 - last`` of the epochs charged and of the final best; ``before``
    is None when no trial had completed by then."""
    rows = sorted((r for r in solver_record["all_trials"] if r.get("ranked")),
                  key=lambda r: r["number"])
    points = best_so_far(rows)
    if not points:
        return None, None
    cut = (1 - last) * points[-1][0]
    best, before, after = math.inf, None, None
    for row, (charged, _) in zip(rows, points):
        if row.get("criterion") is not None and row["criterion"] < best:
            best, after = row["criterion"], row
        if charged <= cut:
            before = after
    return before, after


def relative_fall(before, after):
    """``(before - after) / |after|``; inf when only ``before`` is not
    finite, nan when ``after`` is not."""
    if not math.isfinite(after):
        return math.nan
    if not math.isfinite(before):
        return math.inf
    return (before - after) / max(abs(after), 1e-300)


def held_out_fall(held_before, held_after):
    """``relative_fall`` of the two held-out criteria (None for a
    diverged run: an earlier one diverging is an infinite fall), None
    when the final best diverged."""
    if held_after is None:
        return None
    return relative_fall(math.inf if held_before is None else held_before,
                         held_after)


def outcome(held_before, held_after, tolerance=IMPROVING):
    """The verdict on a late fall from its two held-out criteria (None
    for a diverged run)."""
    fall = held_out_fall(held_before, held_after)
    if fall is None:
        return "after diverges"
    if fall > tolerance:
        return "holds"
    if fall < -tolerance:
        return "reverses"
    return f"within {tolerance:.1%}"


def _score(runner, solver, parameters, record):
    """The criterion of ``parameters`` on the runner's splits, or None
    with the reason when it diverges."""
    budget = record["budget"]
    try:
        criterion, _ = runner.run(solver, parameters, budget["epochs"],
                                  budget["evals"], record.get("metric",
                                                              "value"))
    except Diverged as err:
        return None, (f"diverged on split {err.split} at "
                      f"{err.split_epochs:.3g} epochs: {err.reason}")
    return criterion, None


def holdout(record, solvers, seed=HOLDOUT_SEED, splits=None, runner=None,
            path=None):
    """The held-out comparison of ``before`` and ``after`` of each of
    ``solvers`` (a dict, written as the ``--out`` JSON; ``path``, the
    record's file, is kept in it)."""
    from tools.tune.run import Runner

    splits = splits or record["budget"].get("splits", 1)
    runner = runner or Runner(record["dataset"], splits, seed)
    out = dict(record=path, record_dataset=record["dataset"],
               trials=record["budget"].get("trials"), seed=seed,
               splits=splits,
               epochs=record["budget"]["epochs"],
               evals=record["budget"]["evals"],
               metric=record.get("metric", "value"), solvers={})
    t0 = time.perf_counter()
    for solver in solvers:
        before, after = before_and_after(record["solvers"][solver])
        if after is None or before is None or before is after:
            out["solvers"][solver] = dict(
                outcome="no late fall" if after is not None else
                "no complete trial")
            continue
        rows = {}
        for name, row in (("before", before), ("after", after)):
            held, why = _score(runner, solver, row["parameters"], record)
            rows[name] = dict(trial=row["number"],
                              criterion=row["criterion"],
                              parameters=row["parameters"],
                              held_out=held, diverged=why)
        held = (rows["before"]["held_out"], rows["after"]["held_out"])
        out["solvers"][solver] = dict(
            **rows,
            fall=relative_fall(before["criterion"], after["criterion"]),
            held_out_fall=held_out_fall(*held), outcome=outcome(*held))
    out["elapsed_seconds"] = round(time.perf_counter() - t0, 1)
    return out


def _pct(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return "∞" if value == math.inf else f"{100 * value:+.2f} %"


def _criterion(row, key):
    value = row.get(key)
    return "diverged" if value is None else f"{value:.4g}"


def markdown(results):
    """One Markdown table over ``results`` (the ``--out`` JSONs), a row
    per solver with a late fall."""
    head = ("| task | solver | trials (before → after) | criterion before "
            "→ after | fall | held out: before → after | held-out fall | "
            "outcome |\n|---|---|---|---|---|---|---|---|")
    rows = []
    for res in results:
        task = res["record_dataset"]
        for solver, s in res["solvers"].items():
            if "after" not in s:
                rows.append(f"| {task} | {solver} | — | — | — | — | — | "
                            f"{s['outcome']} |")
                continue
            b, a = s["before"], s["after"]
            rows.append(
                f"| {task} | {solver} | {b['trial']} → {a['trial']} | "
                f"{b['criterion']:.4g} → {a['criterion']:.4g} | "
                f"{_pct(s['fall'])} | {_criterion(b, 'held_out')} → "
                f"{_criterion(a, 'held_out')} | {_pct(s['held_out_fall'])} "
                f"| {s['outcome']} |")
    count = {}
    for res in results:
        for s in res["solvers"].values():
            count[s["outcome"]] = count.get(s["outcome"], 0) + 1
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(count.items()))
    seeds = sorted({(r["seed"], r["splits"]) for r in results})
    where = "; ".join(f"{n} splits of seed {s}" for s, n in seeds)
    return "\n".join([head, *rows, "",
                      f"Held out on {where}; {summary}."])


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.holdout",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("inputs", nargs="+", metavar="FILE",
                   help="a tuning's JSON record (or, with --show, the "
                        "--out JSONs to tabulate)")
    p.add_argument("--solvers", help="comma-separated (default: the "
                                     "record's solvers still improving)")
    p.add_argument("--seed", type=int, default=HOLDOUT_SEED,
                   help="benchopt's seed of the held-out splits (default: "
                        "%(default)s; the tuning scores seed 0's)")
    p.add_argument("--splits", type=int,
                   help="held-out splits (default: the record's)")
    p.add_argument("--out", metavar="PATH", help="write the results here "
                                                 "(JSON)")
    p.add_argument("--show", action="store_true",
                   help="print the table of --out JSONs, running nothing")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    refuse_inputs(p, {"--out": args.out},
                  {"the input" if args.show else "the tuning record":
                   args.inputs})
    record, loaded = inputs.read(p, args.inputs, args.show, "seed")
    if record is None:
        print(markdown(loaded))
        return 0
    improving = [s for s, r in record["solvers"].items()
                 if r.get("adequacy", {}).get("still_improving")]
    solvers = inputs.solvers(p, record, args.solvers, improving)
    if args.splits is not None and args.splits < 1:
        p.error(f"--splits must be an integer >= 1, got {args.splits}")
    result = holdout(record, solvers, args.seed, args.splits,
                     path=args.inputs[0])
    table = markdown([result])
    print(table)
    if args.out:
        from tools.tune.report import write_atomic
        write_atomic(args.out, json.dumps(result, indent=1) + "\n")
        print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
