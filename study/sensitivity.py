"""How sensitive is each tuning winner to its parameters?  A reading of
the trials the tuning stored, as DeepOBS's sensitivity plots read the
performance of a tuned optimizer against its learning rate (F. Schneider,
L. Balles, P. Hennig, "DeepOBS: A Deep Learning Optimizer Benchmark
Suite", ICLR 2019).

    python -m study.sensitivity [TASK ...] [--within 0.05]
    python -m study.sensitivity digits --figure sensitivity_digits.png

The trials are a task's stored tuning record's (``stored: record:`` of
study/study.yml) and those of the solvers added later
(study/data/added/SOLVER/tune_TASK.json.xz), the ranked ones (the trials
a solver was ranked on).  Only a complete trial has a criterion (the
record's ``criterion``: the mean validation H at the tuning's points over
its splits, lower is better); a pruned trial has none, nor a diverged
one (pruned with an ``excluded`` reason "diverged ..."): they are
counted, a diverged one drawn as a tick at the top of its panel.

The winner is the confirmed one (``stored: confirmation:``, the first of
the solver's trials, by criterion, that diverged on no held-out split:
``study.confirm``), else the tuning's best; the table marks it ``*``
where the two differ.  Its criterion is ``best``; the trials ranked
above a confirmed winner (lower H, unstable on held-out splits) count as
the tuning scored them: within the limit.

Definitions, for a solver and one of its tuned parameters theta (the
keys of its ``space``; its ``fixed`` parameters are not tuned):

- axis: log10 theta when the space's low bound is > 0 (every parameter
  of the study's records: their ranges span decades, and even p, rho or
  an integer count is searched on (0, 1] or 1..20 where a factor matters
  more than a difference), else theta itself (a "linear" parameter, its
  widths in its own units);
- envelope (the profile of the criterion along theta): for bins of
  ``BIN_DECADES`` (0.25) decades on the axis, anchored at 0 (bin k holds
  k/4 <= log10 theta < (k+1)/4), the lowest criterion of the complete
  trials in the bin; the other parameters are whatever the trial had,
  so the envelope is what theta allows with the others tuned.  Every
  complete trial enters (TPE concentrates them near the winner anyway);
  ``--near F`` keeps, for each theta, only the trials whose other
  log-axis parameters are within a factor F of the winner's (closer to
  a slice through the winner, on fewer trials);
- the limit, "within ``within`` (5 %) of the winner": H <= best +
  within * (H0 - best), H0 the mean H of the task's starting points (the
  first evaluation of its comparisons' runs, ``start``): a share of what
  tuning can gain over doing nothing.  5 % of H itself would say little
  where H has a large floor (on digits the winners' H is about 1.16
  against 1.69 at the start: 5 % of H is 11 % of the gain, and most
  complete trials are within it);
- region within the limit: the contiguous run of envelope bins, from the
  winner's bin outwards, whose envelope is <= the limit; a bin above ends
  the run, and so do more than
  ``GAP`` (2) empty bins in a row (half a decade with no trial: no
  evidence that the region goes on; one empty bin between good ones,
  common where the search was sparse, is no evidence of a hole).  THE
  width is the span (decades: log10 max/min) of the theta of the
  complete trials within the limit inside those bins, with the number of
  those trials.  The plain span of every complete trial within the limit
  (``width_within``, ``--plain``) is read too; it is
  not the width, since a lone good trial decades away, where other
  parameters made up for theta, stretches it over a region that is not
  good;
- searched span: the span of theta over all the solver's trials
  (complete, pruned, diverged): how far the search moved theta.  A width
  close to the searched span says "as wide as was tried", no more; a
  width over a parameter the search hardly moved is no evidence of
  robustness.

The criterion is H, a positive loss; a criterion <= 0 (or not finite) is
refused, as is a start H0 not above the winner's H (no gain to share).
"""
import argparse
import functools
import json
import math
import sys
from collections import namedtuple
from pathlib import Path

import yaml

from study import figure_file
from tools.arguments import refuse_inputs
from tools.tune.record_file import read_json

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "study" / "study.yml"
ADDED = ROOT / "study" / "data" / "added"
BIN_DECADES = 0.25  # envelope bins, decades of log10 theta
GAP = 2  # empty bins a region crosses (half a decade with no trial)
LINEAR_BINS = 24  # envelope bins over a linear parameter's space
WITHIN = 0.05
DPI = 60
PALETTE = 256  # colours of the PNG
DIVERGED = "diverged"  # how a diverged trial's ``excluded`` reason starts

# one envelope bin: its edges (theta units), the lowest criterion in it,
# the number of complete trials in it, the theta of the lowest
Bin = namedtuple("Bin", "low high best n at")
# the region of theta within (1 + within) * best: its width (decades on a
# log axis, units on a linear one), the trials in it, its ends (theta)
Region = namedtuple("Region", "width n low high")


def tasks(spec=SPEC):
    """``{task: (record path, confirmation path or None)}`` of the study's
    ``spec`` (study/study.yml), in its order; paths from the repository's
    root."""
    with open(spec) as handle:
        raw = yaml.safe_load(handle)
    return {name: (body["stored"]["record"],
                   body["stored"].get("confirmation"))
            for name, body in raw["tasks"].items()}


def sources(task, spec=SPEC):
    """The ``(record, confirmation)`` paths (absolute) of ``task``: the
    stored tuning's, then each added solver's (study/data/added)."""
    record, confirmation = tasks(spec)[task]
    out = [(ROOT / record, confirmation and ROOT / confirmation)]
    for path in sorted(ADDED.glob(f"*/tune_{task}.json.xz")):
        confirm = path.parent / f"confirm_{task}.json"
        out.append((path, confirm if confirm.is_file() else None))
    return out


@functools.lru_cache(maxsize=None)
def start(task, spec=SPEC):
    """H0 of ``task``: the mean over its comparisons' instances (the
    comparisons of ``spec`` other than ablations) of H at the runs' first
    evaluation, at 0 epochs (the runs of an instance share their start);
    a scale of the task, read from no solver's progress."""
    import pandas as pd
    with open(spec) as handle:
        body = yaml.safe_load(handle)["tasks"][task]
    values = []
    for comparison in body.get("comparisons", []):
        if "ablation" in comparison:
            continue
        df = pd.read_parquet(ROOT / comparison["results"], columns=[
            "dataset_name", "base_seed", "idx_rep", "objective_epochs",
            "objective_value"])
        first = df[df["objective_epochs"] == 0]
        values += first.groupby(["dataset_name", "base_seed", "idx_rep"])[
            "objective_value"].first().tolist()
    if not values:
        raise ValueError(f"task {task}: no comparison to read its start's H "
                         "from")
    return float(sum(values) / len(values))


@functools.lru_cache(maxsize=None)
def _read(path):
    return read_json(str(path))


def trials(record, solver):
    """``{"complete", "pruned", "diverged", "other"}``: the trial rows of
    ``solver``'s ranked trials in ``record``, by state (diverged: pruned
    with an ``excluded`` reason starting "diverged"; other: failed or
    running), each list in trial order."""
    out = {"complete": [], "pruned": [], "diverged": [], "other": []}
    for row in record["solvers"][solver]["all_trials"]:
        if not row.get("ranked", True):
            continue
        state = row["state"]
        if state == "complete" and row.get("criterion") is not None:
            out["complete"].append(row)
        elif str(row.get("excluded") or "").startswith(DIVERGED):
            out["diverged"].append(row)
        elif state == "pruned":
            out["pruned"].append(row)
        else:
            out["other"].append(row)
    return out


def winner(record, solver, confirmation=None):
    """``(trial row, note)``: ``solver``'s confirmed winner (the trial of
    ``confirmation``'s ``confirmed``, a ``study.confirm`` output) or, with
    none, its tuning's best; ``note`` says how it differs from the best
    (None when it is the best)."""
    rec = record["solvers"][solver]
    rows = {r["number"]: r for r in rec["all_trials"]}
    best = rec.get("best") or {}
    confirmed = None
    if confirmation is not None:
        found = confirmation["solvers"].get(solver) or {}
        confirmed = found.get("confirmed")
        if confirmed is None and found.get("tried"):
            note = "none confirmed: the tuning's best kept"
            return rows[best["trial"]], note
    if confirmed is None:
        if best.get("trial") is None:
            return None, "no complete trial"
        return rows[best["trial"]], None
    row = rows[confirmed["trial"]]
    if row["parameters"] != confirmed["parameters"]:
        raise ValueError(f"{solver}: the confirmation's trial "
                         f"{confirmed['trial']} has other parameters than "
                         "the record's")
    if confirmed["trial"] == best.get("trial"):
        return row, None
    return row, (f"rank {confirmed['rank']} confirmed (the best, trial "
                 f"{best.get('trial')}, diverged on held-out splits)")


def is_log(space):
    """Whether a parameter's ``space`` ({low, high, integer}) is read on a
    log axis: its low bound is > 0."""
    return space["low"] > 0


def _axis(values, log):
    return [math.log10(v) for v in values] if log else list(values)


def _check(criterion, best=None):
    values = list(criterion) + ([] if best is None else [best])
    bad = [v for v in values if not (math.isfinite(v) and v > 0)]
    if bad:
        raise ValueError(f"a criterion of {bad[0]!r}: the criterion must be "
                         "a positive loss (H) for 'within x % of the best' "
                         "to mean anything")


def _bin(x, width):
    return math.floor(round(x / width, 9))


def envelope(theta, criterion, bin_width=BIN_DECADES, log=True):
    """The envelope of points ``(theta, criterion)``: for each non-empty
    bin of ``bin_width`` on the axis (decades of log10 theta, anchored at
    0, when ``log``; units of theta otherwise), the lowest criterion in
    it: ``[Bin(low, high, best, n, at)]`` in theta order (``low``,
    ``high``: the bin's edges in theta; ``at``: the theta of its
    lowest, the first of equal ones)."""
    if bin_width <= 0:
        raise ValueError(f"bin_width must be > 0, got {bin_width}")
    bins = {}
    for x, t, c in zip(_axis(theta, log), theta, criterion):
        k = _bin(x, bin_width)
        if k not in bins:
            bins[k] = [c, 1, t]
        else:
            entry = bins[k]
            entry[1] += 1
            if c < entry[0]:
                entry[0], entry[2] = c, t
    out = []
    for k in sorted(bins):
        low, high = k * bin_width, (k + 1) * bin_width
        if log:
            low, high = 10.0 ** low, 10.0 ** high
        best, n, at = bins[k]
        out.append(Bin(low, high, best, n, at))
    return out


def span(theta, log=True):
    """The span of ``theta``: log10(max/min) decades, or max - min on a
    linear axis (0 for fewer than two values)."""
    x = _axis(theta, log)
    return max(x) - min(x) if x else 0.0


def limit_of(best, within, h0):
    """The limit of "within ``within`` of the winner": ``best`` +
    ``within`` (``h0`` - ``best``); a ValueError when ``h0`` is not above
    ``best``."""
    if not h0 > best:
        raise ValueError(f"the start's H ({h0}) is not above the winner's "
                         f"({best}): no gain to take a share of")
    return best + within * (h0 - best)


def width_within(theta, criterion, best, limit, log=True):
    """The plain region: ``Region(width, n, low, high)`` of the ``n``
    points whose criterion is <= ``limit`` (``limit_of``), ``width``
    their span (``span``); a ValueError for a criterion <= 0."""
    _check(criterion, best)
    inside = [t for t, c in zip(theta, criterion) if c <= limit]
    if not inside:
        return Region(0.0, 0, None, None)
    return Region(span(inside, log), len(inside), min(inside), max(inside))


def region(theta, criterion, at, best, limit, bin_width=BIN_DECADES,
           log=True, gap=GAP):
    """THE region around ``at`` (the winner's theta): the contiguous run
    of ``envelope`` bins from ``at``'s bin outwards whose lowest criterion
    is <= ``limit`` (``limit_of``): a bin above ends it, as do more
    than ``gap`` empty bins in a row; ``Region(width, n, low, high)`` of
    the ``n`` points within that limit in those bins, ``width`` their
    ``span``.  A ValueError for a criterion <= 0."""
    _check(criterion, best)
    keys = [_bin(x, bin_width) for x in _axis(theta, log)]
    lowest = {}
    for k, c in zip(keys, criterion):
        lowest[k] = min(c, lowest.get(k, math.inf))
    home = _bin(_axis([at], log)[0], bin_width)
    run = set()
    for step in (-1, 1):
        k, empty = home, 0
        while empty <= gap:
            if k not in lowest:
                empty += 1
            elif lowest[k] <= limit:
                run.add(k)
                empty = 0
            else:
                break
            k += step
    inside = [t for t, c, k in zip(theta, criterion, keys)
              if k in run and c <= limit]
    if not inside:
        return Region(0.0, 0, None, None)
    return Region(span(inside, log), len(inside), min(inside), max(inside))


def _near(rows, parameters, spaces, name, factor):
    """The rows whose parameters other than ``name`` on a log axis are
    within ``factor`` of ``parameters`` (a linear one is not held)."""
    if factor is None:
        return rows
    reach = math.log10(factor)
    held = [k for k in spaces if k != name and is_log(spaces[k])
            and parameters.get(k, 0) > 0]
    return [r for r in rows
            if all(abs(math.log10(r["parameters"][k] / parameters[k]))
                   <= reach + 1e-12 for k in held)]


def solver_sensitivity(record, solver, h0, confirmation=None,
                       within=WITHIN, bin_decades=BIN_DECADES, near=None):
    """One solver's reading: ``{solver, winner (its row), note, counts
    {complete, pruned, diverged, other}, parameters {name: {log, width,
    n, low, high, plain, searched, space, envelope, points, diverged}}}``
    (``width``..``high``: ``region``; ``plain``: ``width_within``;
    ``searched``: ``span`` of every trial's theta; ``space``: the span of
    the space searched; ``points``: the complete trials' (theta,
    criterion) the envelope read; ``diverged``: the diverged trials'
    theta)."""
    rec = record["solvers"][solver]
    found = trials(record, solver)
    row, note = winner(record, solver, confirmation)
    counts = {k: len(v) for k, v in found.items()}
    out = dict(solver=solver, winner=row, note=note, counts=counts,
               parameters={})
    if row is None or row.get("criterion") is None:
        return out
    best = row["criterion"]
    _check([r["criterion"] for r in found["complete"]], best)
    limit = limit_of(best, within, h0)
    out["limit"] = limit
    every = found["complete"] + found["pruned"] + found["diverged"] + \
        found["other"]
    for name, space in rec["space"].items():
        log = is_log(space)
        width = bin_decades if log else \
            (space["high"] - space["low"]) / LINEAR_BINS
        rows = _near(found["complete"], row["parameters"], rec["space"],
                     name, near)
        rows = [r for r in rows if name in r["parameters"]]
        theta = [r["parameters"][name] for r in rows]
        crit = [r["criterion"] for r in rows]
        at = row["parameters"][name]
        reg = region(theta, crit, at, best, limit, width, log)
        searched = [r["parameters"][name] for r in every
                    if (r.get("parameters") or {}).get(name) is not None]
        out["parameters"][name] = dict(
            log=log, width=reg.width, n=reg.n, low=reg.low, high=reg.high,
            plain=width_within(theta, crit, best, limit, log),
            searched=span(searched, log),
            space=span([space["low"], space["high"]], log),
            envelope=envelope(theta, crit, width, log),
            points=list(zip(theta, crit)), at=at, trials=len(rows),
            diverged=[r["parameters"][name] for r in found["diverged"]
                      if name in (r.get("parameters") or {})])
    return out


def sensitivity(task, within=WITHIN, bin_decades=BIN_DECADES, near=None,
                spec=SPEC):
    """``solver_sensitivity`` of every solver of ``task`` (the stored
    tuning's, then the added ones), in the records' order."""
    h0 = start(task, spec)
    out = []
    for record_path, confirm_path in sources(task, spec):
        record = _read(record_path)
        confirmation = None
        if confirm_path is not None:
            with open(confirm_path) as handle:
                confirmation = json.load(handle)
        for solver in record["solvers"]:
            out.append(solver_sensitivity(record, solver, h0, confirmation,
                                          within, bin_decades, near))
    return out


def _names(found):
    return list(dict.fromkeys(n for s in found for n in s["parameters"]))


def _cell(p, plain=False):
    from study.summary import number
    width, n = (p["plain"].width, p["plain"].n) if plain else \
        (p["width"], p["n"])
    unit = "" if p["log"] else " units"
    return f"{number(width)} of {number(p['searched'])}{unit} ({n})"


def table(task, within=WITHIN, near=None, plain=False, spec=SPEC,
          parameters=None):
    """The Markdown table of ``task``: a row per solver (its winner's
    trial and criterion; its complete / pruned / diverged trials), a
    column per parameter name (those of ``parameters`` only, when
    given), each cell "width of searched span (trials in the region)";
    then what it read."""
    from study.summary import number
    found = sensitivity(task, within, near=near, spec=spec)
    names = [n for n in _names(found)
             if parameters is None or n in parameters]
    lines = ["| solver | winner: trial, H | trials c / p / d | "
             + " | ".join(names) + " |",
             "|---|---|---|" + "---|" * len(names)]
    notes = []
    for s in found:
        c = s["counts"]
        row = s["winner"]
        if row is None:
            win = "—"
        else:
            win = f"{row['number']}, {row['criterion']:.4g}"
        if s["note"]:
            notes.append(f"{s['solver']}: {s['note']}")
            win += " *"
        cells = [_cell(s["parameters"][n], plain)
                 if n in s["parameters"] else "—" for n in names]
        lines.append(f"| {s['solver']} | {win} | {c['complete']} / "
                     f"{c['pruned']} / {c['diverged']} | "
                     + " | ".join(cells) + " |")
    total = {k: sum(s["counts"][k] for s in found)
             for k in ("complete", "pruned", "diverged", "other")}
    if plain:
        what = ("the span of theta over every complete trial whose H is "
                f"within {within:.0%} of the winner's gain")
    else:
        what = (f"the span of theta over the complete trials within "
                f"{within:.0%} of the winner's gain (H <= best + "
                f"{within:g} (H0 − best), H0 the mean H of the task's "
                f"starting points, {number(start(task, spec), 4)}) in the "
                "contiguous run of "
                f"{BIN_DECADES:g}-decade envelope bins around the "
                "winner's")
    near_text = "" if near is None else (
        f"; only trials whose other parameters are within a factor "
        f"{number(near)} of the winner's")
    lines += ["", f"Width: {what}{near_text} (decades: log10 max/min; "
              "every parameter on a log axis unless marked units), of the "
              "span the search tried over all its trials; in parentheses "
              "the trials in the region.  Read from "
              f"{total['complete']} complete trials; "
              f"{total['pruned']} pruned and {total['diverged']} diverged "
              "have no criterion"
              + (f" ({total['other']} failed or running)"
                 if total["other"] else "") + "."]
    if notes:
        lines.append("* the confirmed winner is not the tuning's best: "
                     + "; ".join(notes) + ".")
    return "\n".join(lines)


def figure(task, path, within=WITHIN, near=None, spec=SPEC, report=""):
    """A panel per parameter name of ``task``: each solver's envelope
    as the share of the gain lost, (H - best) / (H0 - best) at each bin's
    best trial (log theta), its winner at 0, its diverged trials as ticks
    at the top, the limit ``within`` dashed; written to the PNG
    ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (matplotlib.ticker below)

    found = [s for s in sensitivity(task, within, near=near, spec=spec)
             if s["parameters"]]
    names = _names(found)
    columns = 4
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(12, 2.5 * rows + 0.9),
                             squeeze=False)
    colours = plt.get_cmap("tab20").colors
    colour = {s["solver"]: colours[i % len(colours)]
              for i, s in enumerate(found)}
    h0 = start(task, spec)
    top = 6 * within  # an envelope above is drawn at top
    tick = top * 1.04  # where the diverged trials are
    for ax, name in zip(axes.flat, names):
        bottom = 0.0
        for s in found:
            p = s["parameters"].get(name)
            if p is None:
                continue
            best = s["winner"]["criterion"]
            xs = [b.at for b in p["envelope"]]
            ys = [min((b.best - best) / (h0 - best), top)
                  for b in p["envelope"]]
            bottom = min(bottom, *ys)
            c = colour[s["solver"]]
            ax.plot(xs, ys, "-", color=c, lw=1.1)
            ax.plot([p["at"]], [0.0], "o", color=c, ms=5, mec="black",
                    mew=0.5)
            if p["diverged"]:
                ax.plot(p["diverged"], [tick] * len(p["diverged"]), "|",
                        color=c, ms=6)
        ax.axhline(within, color="black", lw=0.8, ls="--")
        if all(s["parameters"][name]["log"] for s in found
               if name in s["parameters"]):
            ax.set_xscale("log")
            # a narrow axis gets minor labels that overlap: none
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_ylim(bottom - 0.02 * (tick - bottom),
                    tick + 0.04 * top)
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("share of the gain lost", fontsize=8)
    handles = [plt.Line2D([], [], color=colour[s["solver"]], marker="o",
                          lw=1.1, ms=4, label=s["solver"]) for s in found]
    fig.legend(handles=handles, loc="lower center", ncol=8, fontsize=7,
               frameon=False)
    fig.suptitle(f"{task}: the lowest H per {BIN_DECADES:g}-decade bin of "
                 "each parameter, as the share of the gain over the start "
                 "it loses, (H − best) / (H0 − best)\n(dashed: "
                 f"{within:.0%}; ticks at the top: diverged trials; capped "
                 f"at {top:g})", fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    figure_file.save(fig, path, report, DPI)
    plt.close(fig)


def _within(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"--within must be a number in (0, 1) (a share of the gain "
            f"of the winner's H over the start's: 0.05 is 5 %), got "
            f"{text!r}")
    return value


def _parameters(text):
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(
            f"--parameters must be parameter names separated by commas "
            f"(step_size,outer_ratio), got {text!r}")
    return names


def _factor(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1):
        raise argparse.ArgumentTypeError(
            f"--near must be a factor > 1, got {text!r}")
    return value


def main(argv=None):
    known = tasks()
    p = argparse.ArgumentParser(prog="python -m study.sensitivity",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("tasks", nargs="*", metavar="TASK",
                   help=f"tasks of study/study.yml (default: all: "
                        f"{', '.join(known)})")
    p.add_argument("--within", type=_within, default=WITHIN,
                   help="the region's limit, a fraction above the "
                        "winner's H (default: %(default)s)")
    p.add_argument("--near", type=_factor, metavar="FACTOR",
                   help="read only trials whose other parameters are "
                        "within this factor of the winner's (default: "
                        "every complete trial)")
    p.add_argument("--plain", action="store_true",
                   help="tabulate the plain span of every trial within "
                        "the limit, not the contiguous region")
    p.add_argument("--parameters", type=_parameters, metavar="NAMES",
                   help="the table's columns: these parameters only "
                        "(comma-separated; default: every parameter)")
    p.add_argument("--figure", metavar="PNG",
                   help="draw the task's envelopes to this PNG (exactly "
                        "one TASK)")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    unknown = [t for t in args.tasks if t not in known]
    if unknown:
        p.error(f"unknown task{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}; the tasks are {', '.join(known)}")
    names = list(dict.fromkeys(args.tasks)) or list(known)
    if args.parameters is not None:
        tuned = {n for task in names for record, _ in sources(task)
                 for body in _read(record)["solvers"].values()
                 for n in body["space"]}
        missing = [n for n in args.parameters if n not in tuned]
        if missing:
            p.error(f"--parameters: {', '.join(missing)} tuned by no solver "
                    f"of {', '.join(names)}; the tuned parameters are "
                    f"{', '.join(sorted(tuned))}")
    if args.figure is not None:
        if len(args.tasks) != 1:
            p.error(f"--figure draws one task: name exactly one TASK "
                    f"(got {len(args.tasks)}); the tasks are "
                    f"{', '.join(known)}")
        if not args.figure.endswith(".png"):
            p.error(f"--figure {args.figure}: the figure is a PNG (name it "
                    "*.png)")
        inputs = [str(x) for pair in sources(names[0]) for x in pair if x]
        refuse_inputs(p, {"--figure": args.figure},
                      {"a tuning record or confirmation": inputs,
                       "the study's specification": str(SPEC)})
    try:
        text = "\n\n".join(
            f"### {task} ({tasks()[task][0]})\n\n" + table(
                task, args.within, args.near, args.plain,
                parameters=args.parameters) for task in names)
        print(text)
        if args.figure is not None:
            figure(names[0], args.figure, args.within, args.near,
                   report=text)
            print(f"\nfigure written to {args.figure}")
    except ValueError as err:
        print(f"python -m study.sensitivity: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
