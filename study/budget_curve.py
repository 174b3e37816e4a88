"""How does each task's tuning result depend on the tuning budget?  A
reading of the trials the tuning stored, in the order TPE drew them, as
Sivaprasad et al. read an optimizer's tuned performance against the
tuning budget (P. T. Sivaprasad, F. Mai, T. Vogels, M. Jaggi, F. Fleuret,
"Optimizer benchmarking needs to account for hyperparameter tuning",
ICML 2020), with the expected best of k trials of Dodge et al. (J. Dodge,
S. Gururangan, D. Card, R. Schwartz, N. A. Smith, "Show your work:
improved reporting of experimental results", EMNLP 2019: their expected
maximum of k validation scores, here the minimum: lower is better).

    python -m study.budget_curve [TASK ...] [--shares 0.25,0.5]
    python -m study.budget_curve digits --figure budget_digits.png
    python -m study.budget_curve digits --write-config 0.25 quarter.yml

The trials are a task's stored tuning record's (``stored: record:`` of
study/study.yml) and those of the solvers added later
(study/data/added/SOLVER/tune_TASK.json.xz; ``study.sensitivity.sources``),
the ranked ones (all the stored records' trials are), by trial number.
Work is what the tuning charged (``charged_epochs``: a complete trial its
epochs on every split, a pruned or diverged one the evaluation points it
reached); a solver's budget ``B`` is the record's ``epochs_per_solver``.

Definitions, for a solver and a share ``w`` of its budget:

- the trials within ``w``: those, in the drawn order, whose charges with
  those of the trials before them stay within ``w B`` (the rule by which
  ``tools.tune.work.ranked`` ranks trials within the budget, and the
  prefix ``tools.tune.adequacy.best_so_far`` accumulates).  A tuning given
  ``w B`` would have drawn the same trials (TPE draws from the trials
  before), at most one fewer (it starts a trial only where a full one
  fits);
- the winner at ``w`` (drawn-order curve): the complete trial with the
  lowest criterion among them, the first drawn of equal ones
  (``best_so_far``'s running minimum): the winner a tuning stopped at
  ``w`` would have picked.  At ``w = 1`` it is the record's ``best``
  (checked by the tests on every stored task and solver);
- the used winner: the confirmed one (``study.sensitivity.winner``), the
  trial the comparisons ran; "drawn at" the share of the work charged up
  to and with it, the least ``w`` at which it was within reach;
- the winner run at ``w`` (what ``--write-config`` writes): the study's
  protocol, tuning then confirmation, applied to the trials within ``w``:
  their complete trials in order of criterion (``study.confirm``'s
  candidates), the first the stored confirmation did not see diverge on
  its held-out splits.  The confirmation ran the trials in order of
  criterion up to the used winner, so a trial ranked below that one was
  never run held out: such a winner is "unchecked" (marked †), and a
  comparison of it should confirm it first (``python -m study.confirm``);
  with no candidate left (or all ``candidates`` diverged) the tuning's
  winner at ``w`` is kept, as the protocol keeps its best;
- expected best of k trials: the solver's ranked trials as N equally
  likely draws, a pruned or diverged one with criterion +inf (no usable
  winner), and k draws with replacement.  With c_(1) <= ... <= c_(N)
  sorted, P(min of k = c_(i)) = ((N-i+1)/N)^k - ((N-i)/N)^k and, with M
  of the N infinite, P(no finite draw) = (M/N)^k > 0: the plain
  expectation is then +inf whatever k.  What is reported instead is the
  expectation given at least one finite draw, sum over the finite c_(i)
  of c_(i) P(min = c_(i)) / (1 - (M/N)^k), with (M/N)^k beside it: it is
  Dodge et al.'s curve over the draws that give a winner, and the chance
  of none is small at the k read (a quarter of the trials: 0.45 % at most
  in the stored records, fashion_l2's SOBA, 131 of 151 trials pruned or
  diverged, k = 38; below 1e-7 on digits, breast_cancer, wine and
  Simulated); a median of the minimum would also be finite but moves in
  jumps between trials.  k is
  1/4, 1/2 and 1 times N (rounded, at least 1).  It treats the trials as
  independent draws from one distribution: TPE adapts (its draws
  concentrate where earlier trials did well) and the pruner decides
  against the trials before, so this is the best of k draws from the
  mixture TPE ended up proposing, not what a shorter TPE run would find
  (that is the drawn-order curve);
- share of the gain lost (the figure): (c - c_full) / (H0 - c_full), c
  the winner's criterion at ``w``, c_full the full budget's, H0 the mean
  H of the task's starting points (``study.sensitivity.start``): 0 when
  the tuning had found its final winner, 1 when it had gained nothing
  over the start; clipped to [0, 1] (a share with no complete trial yet
  counts as infinite and is clipped).
"""
import argparse
import functools
import json
import math
import re
import sys
import textwrap
from collections import namedtuple
from fractions import Fraction
from pathlib import Path

import yaml

from study import figure_file
from study.sensitivity import WITHIN, sources, start, tasks, winner
from tools.arguments import refuse_inputs
from tools.tune.adequacy import best_so_far
from tools.tune.record_file import read_json
from tools.tune.work import SLACK

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "study" / "study.yml"
SHARES = (0.25, 0.5)  # the table's shares of the budget (then the full)
LOW = 1 / 16  # the curve's grid: LOW .. 1, PER_DOUBLING points a doubling
PER_DOUBLING = 8
GRID = tuple(2.0 ** (k / PER_DOUBLING)
             for k in range(round(math.log2(LOW) * PER_DOUBLING), 1))
DPI = 70
PALETTE = 256  # colours of the PNG
DIVERGED = "diverged"  # how a diverged trial's ``excluded`` reason starts
Y_TICKS = (0, 0.01, 0.05, 0.1, 0.25, 0.5, 1)  # the figure's shares of gain

# the winner among the trials within a share: ``row`` (None before any
# complete trial), its ``criterion`` (inf then), the ``trials`` and the
# ``work`` (epochs charged) within the share
At = namedtuple("At", "share row criterion trials work")
# the winner a run at a share uses: its ``row`` and ``status``
# (confirmed / unchecked / kept / tuning), its ``rank`` in criterion
# among the share's complete trials
Run = namedtuple("Run", "share row status rank")


@functools.lru_cache(maxsize=None)
def _read(path):
    return read_json(str(path))


def _confirmation(path):
    if path is None:
        return None
    with open(path) as handle:
        return json.load(handle)


def budget_of(record):
    """A record's budget per solver, in epochs (``epochs_per_solver``); a
    ValueError for a record of counted trials (no work budget)."""
    value = record["budget"].get("epochs_per_solver")
    if not value or value <= 0:
        raise ValueError("the record has no work budget (epochs_per_solver):"
                         " a record of counted trials has no share of work")
    return float(value)


def ranked_rows(record, solver):
    """``solver``'s ranked trial rows in ``record``, in the drawn order
    (by number)."""
    return sorted((r for r in record["solvers"][solver]["all_trials"]
                   if r.get("ranked")), key=lambda r: r["number"])


def drawn(record, solver):
    """``[(work, criterion, row)]``, one per ranked trial in the drawn
    order: the epochs charged up to and with it, the best criterion so far
    (``tools.tune.adequacy.best_so_far``) and the trial holding it (None
    while no trial is complete), the first drawn of equal ones."""
    rows = ranked_rows(record, solver)
    points = best_so_far(rows)
    out, holder, best = [], None, math.inf
    for row, (work, value) in zip(rows, points):
        if value < best:  # the running minimum fell: this trial set it
            holder, best = row, value
        out.append((work, value, holder))
    return out


def _within(work, share, budget):
    return work <= share * budget * (1.0 + SLACK)


def winner_at(record, solver, share):
    """``At(share, row, criterion, trials, work)``: ``solver``'s best
    complete trial among the trials within ``share`` of its budget."""
    budget = budget_of(record)
    last = (0.0, math.inf, None)
    trials = 0
    for point in drawn(record, solver):
        if not _within(point[0], share, budget):
            break
        last, trials = point, trials + 1
    return At(share, last[2], last[1], trials, last[0])


def curve(record, solver, shares=GRID):
    """``winner_at`` at each of ``shares``."""
    return [winner_at(record, solver, w) for w in shares]


def drawn_share(record, solver, number):
    """The share of ``solver``'s budget charged up to and with trial
    ``number``: the least share at which it is within reach (None for a
    trial not ranked)."""
    budget = budget_of(record)
    for row, (work, _, _) in zip(ranked_rows(record, solver),
                                 drawn(record, solver)):
        if row["number"] == number:
            return work / budget
    return None


def held_out(confirmation, solver):
    """``{trial: diverged reason or None}`` of the trials the stored
    confirmation ran held out for ``solver`` (empty without one)."""
    found = ((confirmation or {}).get("solvers") or {}).get(solver) or {}
    return {t["trial"]: t.get("diverged") for t in found.get("tried", [])}


def run_at(record, solver, confirmation, share):
    """``Run(share, row, status, rank)``: the winner the study's protocol
    (tuning, then ``study.confirm``) picks from the trials within
    ``share``, held-out outcomes from ``confirmation``: the first complete
    trial by criterion (ties by number) not seen to diverge held out;
    ``status`` "confirmed" (seen not to diverge), "unchecked" (never run
    held out), "kept" (every candidate diverged: the tuning's winner at
    ``share`` kept) or "tuning" (no confirmation: the tuning's winner).
    ``rank`` counts from 1 among the share's complete trials."""
    from study.confirm import CANDIDATES, candidates

    budget = budget_of(record)
    rows = [row for row, (work, _, _) in zip(ranked_rows(record, solver),
                                             drawn(record, solver))
            if _within(work, share, budget)]
    limit = (confirmation or {}).get("candidates", CANDIDATES)
    ordered = candidates({"all_trials": rows}, limit)
    if not ordered:
        return Run(share, None, None, None)
    if confirmation is None or solver not in confirmation.get("solvers", {}):
        return Run(share, ordered[0], "tuning", 1)
    outcomes = held_out(confirmation, solver)
    for rank, row in enumerate(ordered, 1):
        if row["number"] not in outcomes:
            return Run(share, row, "unchecked", rank)
        if outcomes[row["number"]] is None:
            return Run(share, row, "confirmed", rank)
    return Run(share, ordered[0], "kept", 1)


def expected_min(values, k):
    """``(expectation, p_none)``: the expected lowest of ``k`` draws with
    replacement from ``values`` (each equally likely; +inf or None for a
    draw with no usable criterion), given at least one finite draw, and
    the probability ``p_none`` of none; ``(inf, 1.0)`` when no value is
    finite.  Closed form: sum of c_(i) (((N-i+1)/N)^k - ((N-i)/N)^k) over
    the sorted finite c_(i), divided by 1 - p_none."""
    if k < 1 or int(k) != k:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    if not values:
        raise ValueError("no values to draw from")
    if any(v is not None and math.isnan(v) for v in values):
        raise ValueError("a value is nan: not a criterion")
    n = len(values)
    finite = sorted(v for v in values
                    if v is not None and math.isfinite(v))
    p_none = ((n - len(finite)) / n) ** k
    if not finite:
        return math.inf, 1.0
    terms = [c * (((n - i) / n) ** k - ((n - i - 1) / n) ** k)
             for i, c in enumerate(finite)]
    return math.fsum(terms) / (1.0 - p_none), p_none


def draws(n, share):
    """k for ``share`` of ``n`` trials: rounded, at least 1."""
    return max(1, int(math.floor(share * n + 0.5)))


def solver_reading(record, solver, confirmation=None, shares=SHARES):
    """One solver's reading: ``{solver, budget, at {share: At} (the
    shares and 1), run {share: Run}, used (its row), note, used_share
    (when it was drawn), counts {complete, pruned, diverged}, expected
    {share: (k, expectation, p_none)}}``."""
    every = tuple(dict.fromkeys(tuple(shares) + (1.0,)))
    rows = ranked_rows(record, solver)
    used, note = winner(record, solver, confirmation)
    counts = dict(complete=0, pruned=0, diverged=0)
    values = []
    for row in rows:
        if row["state"] == "complete" and row.get("criterion") is not None:
            counts["complete"] += 1
            values.append(row["criterion"])
            continue
        values.append(math.inf)
        if str(row.get("excluded") or "").startswith(DIVERGED):
            counts["diverged"] += 1
        else:
            counts["pruned"] += 1
    expected = {}
    for w in every:
        k = draws(len(rows), w)
        expected[w] = (k, *expected_min(values, k)) if rows else \
            (0, math.inf, 1.0)
    return dict(
        solver=solver, budget=budget_of(record), trials=len(rows),
        at={w: winner_at(record, solver, w) for w in every},
        run={w: run_at(record, solver, confirmation, w) for w in every},
        used=used, note=note,
        used_share=None if used is None else
        drawn_share(record, solver, used["number"]),
        counts=counts, expected=expected)


def reading(task, shares=SHARES, spec=SPEC):
    """``solver_reading`` of every solver of ``task`` (the stored
    tuning's, then the added ones), in the records' order, each with
    ``lost`` {share: the share of the gain its winner there loses, as
    ``gain_lost`` but not clipped (above 1: worse than the start; inf:
    no complete trial yet), None where the full budget's winner gained
    nothing over the task's start}."""
    h0 = start(task, spec)
    out = []
    for record_path, confirm_path in sources(task, spec):
        record = _read(record_path)
        confirmation = _confirmation(confirm_path)
        for solver in record["solvers"]:
            s = solver_reading(record, solver, confirmation, shares)
            full = s["at"][1.0].criterion
            s["lost"] = {w: (at.criterion - full) / (h0 - full)
                         if math.isfinite(full) and h0 > full else None
                         for w, at in s["at"].items()}
            out.append(s)
    return out


def label(share):
    """A share as a fraction (1/4) where it is one with a small
    denominator, else as a number; 1 is "full"."""
    if share == 1:
        return "full"
    f = Fraction(share).limit_denominator(64)
    if abs(float(f) - share) < 1e-12:
        return f"{f.numerator}/{f.denominator}"
    return f"{share:g}"


def _trial(at, digits=4):
    from study.summary import number
    if at.row is None:
        return "—"
    return f"{at.row['number']} ({number(at.criterion, digits)})"


def _percent(lost):
    from study.summary import number
    if lost is None:
        return "—"
    value = 100 * lost
    if math.isinf(value):
        return "(none complete)"
    return f"{value:.0f} %" if value >= 10 else f"{number(value, 2)} %"


def _run_cell(run, used):
    from study.summary import number
    if run.row is None:
        return "—"
    if used is not None and run.row["number"] == used["number"]:
        return "used"
    mark = {"unchecked": " †", "kept": " ‡"}.get(run.status, "")
    return f"{run.row['number']} ({number(run.row['criterion'], 4)}){mark}"


def table(task, shares=SHARES, spec=SPEC, found=None):
    """The Markdown table of ``task``'s winners by share: a row per
    solver, a column per share and the full budget ("trial
    (criterion)", ≠ where it is not the full budget's, with the share of
    the gain it loses, ``gain_lost``), the used
    (confirmed) winner and the share at which it was drawn, and the
    winner a run at each share would use; then the changes counted."""
    from study.summary import number
    found = reading(task, shares, spec) if found is None else found
    shares = [w for w in shares if w < 1]  # the full budget: its column
    heads = [label(w) for w in shares]
    head = (["solver"] + heads + ["full", "used: trial, drawn at"]
            + [f"runs at {h}" for h in heads])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    changed = {w: [] for w in shares}
    far = {w: [] for w in shares}  # changes losing more than WITHIN
    reach = {w: [] for w in shares}
    runs = {w: [] for w in shares}
    for s in found:
        full = s["at"][1.0]
        cells = []
        for w in shares:
            at = s["at"][w]
            differs = (at.row is None) != (full.row is None) or (
                at.row is not None and at.row["number"] != full.row["number"])
            lost = s["lost"][w]
            if differs:
                changed[w].append(s["solver"])
                if lost is None or lost > WITHIN:
                    far[w].append(s["solver"])
            cells.append(_trial(at) + (" ≠ " + _percent(lost) if differs
                                       else ""))
        used = s["used"]
        if used is None:
            used_cell = "—"
        else:
            used_cell = (f"{used['number']}"
                         + (" *" if s["note"] else "")
                         + f", {number(s['used_share'], 2)}")
            for w in shares:
                if s["used_share"] <= w * (1 + SLACK):
                    reach[w].append(s["solver"])
        run_cells = []
        for w in shares:
            run = s["run"][w]
            run_cells.append(_run_cell(run, used))
            if used is not None and (run.row is None or
                                     run.row["number"] != used["number"]):
                runs[w].append(s["solver"])
        lines.append("| " + " | ".join(
            [s["solver"]] + cells + [_trial(full), used_cell] + run_cells)
            + " |")
    n = len(found)
    lines += [""]
    if not shares:
        return "\n".join(lines[:-1])
    lines.append("Winners that change from the full budget's: " + "; ".join(
        f"at {label(w)} {len(changed[w])} of {n}"
        + (f" ({', '.join(changed[w])})" if changed[w] else "")
        + f", {len(far[w])} losing more than {_percent(WITHIN)} of the gain"
        + (f" ({', '.join(far[w])})" if far[w] else "")
        for w in shares) + ".  The used (confirmed) winner within reach: "
        + "; ".join(f"at {label(w)} {len(reach[w])} of {n}"
                    for w in shares)
        + ".  A run at the share changes the line of: " + "; ".join(
            f"at {label(w)} {len(runs[w])} of {n}"
            + (f" ({', '.join(runs[w])})" if runs[w] else "")
            for w in shares) + ".")
    notes = [f"{s['solver']}: {s['note']}" for s in found if s["note"]]
    if notes:
        lines.append("* the used winner is not the tuning's best: "
                     + "; ".join(notes) + ".")
    if any(s["run"][w].status == "unchecked" for s in found for w in shares):
        lines.append("† never run on the held-out splits (it ranks below "
                     "the used winner): confirm it before a comparison.")
    if any(s["run"][w].status == "kept" for s in found for w in shares):
        lines.append("‡ every candidate diverged held out: the tuning's "
                     "winner kept.")
    return "\n".join(lines)


def expected_table(task, shares=SHARES, spec=SPEC, found=None):
    """The Markdown table of ``task``'s expected best of k trials: a row
    per solver, its trials N (complete / pruned / diverged), the
    expectation at k = share x N for each share and N, the lowest
    criterion, and the chance of no complete draw at the smallest k."""
    from study.summary import number
    found = reading(task, shares, spec) if found is None else found
    every = tuple(w for w in shares if w < 1) + (1.0,)

    def k(w):
        return f"{label(w)} N" if w < 1 else "N"

    lines = ["| solver | N (c / p / d) | "
             + " | ".join(f"E best of {k(w)}" for w in every)
             + f" | lowest | P(none) at {k(min(every))} |",
             "|---|---|" + "---|" * (len(every) + 2)]
    for s in found:
        c = s["counts"]
        cells = [f"{number(s['expected'][w][1], 5)} (k={s['expected'][w][0]})"
                 for w in every]
        p_none = s["expected"][min(every)][2]
        lines.append(f"| {s['solver']} | {s['trials']} ({c['complete']} / "
                     f"{c['pruned']} / {c['diverged']}) | "
                     + " | ".join(cells)
                     + f" | {number(s['at'][1.0].criterion, 5)} | "
                     f"{number(p_none, 2)} |")
    return "\n".join(lines)


def describe(task, spec=SPEC, found=None):
    """The line saying what the tables read."""
    from study.summary import number
    found = reading(task, spec=spec) if found is None else found
    record = _read(sources(task, spec)[0][0])
    b = record["budget"]
    total = {k: sum(s["counts"][k] for s in found)
             for k in ("complete", "pruned", "diverged")}
    trials = [s["trials"] for s in found]
    return (
        f"Criterion: the record's, {record['criterion']}.  Work: epochs "
        "charged to a solver's trials, in the order TPE drew them (a "
        f"complete trial {number(b['epochs'] * b['splits'], 3)}: "
        f"{number(b['epochs'], 3)} epochs on each of {b['splits']} splits; "
        "a pruned or diverged one what it ran), of a budget of "
        f"{number(budget_of(record), 6)} per solver; a share's winner is "
        "the best complete trial within that share of the work, ≠ where it "
        "is not the full budget's, with the share of the gain over the "
        "start it loses (over 100 %: worse than the start), (c − c_full) / "
        "(H0 − c_full), H0 = "
        f"{number(start(task, spec), 4)} the mean H of the task's starting "
        "points.  Trials: "
        f"{min(trials)} to {max(trials)} per solver, {sum(trials)} in all "
        f"({total['complete']} complete, {total['pruned']} pruned, "
        f"{total['diverged']} diverged).  E best of k: the expected lowest "
        "criterion of k draws with replacement from a solver's N trials "
        "(Dodge et al.), a pruned or diverged draw +inf, given at least "
        "one complete draw (P(none) the chance of none); it treats TPE's "
        "adaptive draws as independent.")


def gain_lost(criterion, full, h0):
    """(criterion - full) / (h0 - full), clipped to [0, 1]:
    ``(value, clipped)``; a ValueError when ``h0`` is not above ``full``
    (no gain to share)."""
    if not h0 > full:
        raise ValueError(f"the start's H ({h0}) is not above the full "
                         f"budget's winner's ({full}): no gain to share")
    if not math.isfinite(criterion):
        return 1.0, True
    value = (criterion - full) / (h0 - full)
    return min(max(value, 0.0), 1.0), not 0.0 <= value <= 1.0


def figure(task, path, shares=SHARES, spec=SPEC, report=""):
    """Each solver's drawn-order curve of ``task`` as the share of the
    gain lost (``gain_lost``) against the share of its work (log2 axis,
    ``LOW`` to 1), the ``shares`` as vertical lines, PnPBO's solvers
    solid and the others dashed, a share clipped (above 1: worse than
    the start, or no complete trial yet) marked at the top; written to
    the PNG ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from numpy import sqrt as np_sqrt

    from study.scores import PNPBO

    h0 = start(task, spec)
    fig, ax = plt.subplots(figsize=(9, 5.2))
    colours = plt.get_cmap("tab20").colors
    skipped = []
    i = 0
    for record_path, _ in sources(task, spec):
        record = _read(record_path)
        budget = budget_of(record)
        for solver in record["solvers"]:
            full = winner_at(record, solver, 1.0).criterion
            if not (math.isfinite(full) and h0 > full):
                skipped.append(solver)
                continue
            colour = colours[i % len(colours)]
            i += 1
            xs, ys = [LOW], []
            before = winner_at(record, solver, LOW).criterion
            ys.append(gain_lost(before, full, h0)[0])
            for work, value, _ in drawn(record, solver):
                share = work / budget
                if share <= LOW:
                    continue
                xs.append(share)
                ys.append(gain_lost(value, full, h0)[0])
            xs.append(1.0)
            ys.append(ys[-1])
            style = "-" if solver in PNPBO else "--"
            ax.step(xs, ys, style, where="post", color=colour, lw=1.3,
                    label=solver)
            tops = [w for w in GRID
                    if gain_lost(winner_at(record, solver, w).criterion,
                                 full, h0)[1]]
            if tops:
                ax.plot(tops, [1.0] * len(tops), "^", color=colour, ms=4)
    for w in shares:
        ax.axvline(w, color="black", lw=0.8, ls=":")
        ax.text(w, 1.01, label(w), ha="center", va="bottom", fontsize=8,
                transform=ax.get_xaxis_transform())
    ax.axhline(WITHIN, color="grey", lw=0.6)
    ax.set_xscale("log", base=2)
    ax.set_xlim(LOW, 1.0)
    # a square-root axis: the shares near 0, where most curves end, apart
    ax.set_yscale("function", functions=(
        lambda y: np_sqrt(y), lambda y: y ** 2))
    ax.set_ylim(0.0, 1.05)
    ax.set_yticks(Y_TICKS)
    ax.set_yticklabels([f"{t:g}" for t in Y_TICKS])
    ticks = [2.0 ** -k for k in range(round(-math.log2(LOW)), -1, -1)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([label(t) if t < 1 else "1" for t in ticks])
    ax.set_xlabel("share of the solver's tuning work (epochs charged)")
    ax.set_ylabel("share of the gain lost, (c − c_full) / (H0 − c_full)")
    title = (f"{task}: the winner of the trials drawn within a share of the "
             f"work (H0 = {h0:.4g}; PnPBO solid, others dashed; grey: "
             f"{WITHIN:.0%} of the gain; ▲ clipped at 1: no complete trial "
             "yet or worse than the start)")
    if skipped:
        title += f"; not drawn (no gain): {', '.join(skipped)}"
    ax.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9, pad=14)
    ax.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.tick_params(labelsize=8)
    fig.tight_layout()
    figure_file.save(fig, path, report, DPI)
    plt.close(fig)


def stored_config(task, spec=SPEC):
    """The path (absolute) of ``task``'s tuned run config (``stored:
    config:``)."""
    with open(spec) as handle:
        body = yaml.safe_load(handle)["tasks"][task]
    return ROOT / body["stored"]["config"]


def _entry(solver):
    return re.compile(rf'^  - "{re.escape(solver)}(\[.*)?"')


def _lines_of(record, confirmation, solvers, share):
    """``{solver: config line}`` of the runs at ``share`` of ``solvers``
    (those with a winner), written by ``tools.tune.report.config_text``
    from a record whose best is that winner; the held-out outcome in the
    line's note as ``study.confirm`` writes it."""
    from tools.tune.report import config_text

    if not solvers:
        return {}
    b = dict(record["budget"])
    b["epochs_per_solver"] = share * budget_of(record)
    rec = {**record, "budget": b, "solvers": {}}
    held = {}
    for solver, run in solvers.items():
        row = run.row
        best = dict(trial=row["number"], criterion=row["criterion"],
                    parameters=row["parameters"])
        rec["solvers"][solver] = {"best": best}
        if run.status == "confirmed":
            held[solver] = dict(confirmed=best, rank=run.rank)
        elif run.status == "unchecked":
            held[solver] = dict(outcome="not run on the held-out splits "
                                "(study.confirm)")
        elif run.status == "kept":
            held[solver] = dict(outcome="every candidate diverged held out")
    confirmed = None if confirmation is None else {
        **confirmation, "solvers": held}
    text = config_text(rec, None, confirmed)
    out = {}
    for line in text.splitlines():
        for solver in solvers:
            if _entry(solver).match(line):
                out[solver] = line
    return out


def config_at(task, share, spec=SPEC):
    """``(text, changed)``: ``task``'s stored run config with each
    solver's line replaced by its run at ``share`` (``run_at``) where that
    is not the used winner (the others' lines kept byte for byte), a note
    on top; ``changed``: ``[(solver, used row, Run)]``."""
    config = stored_config(task, spec)
    text = config.read_text()
    lines = text.splitlines(keepends=True)
    changed = []
    for record_path, confirm_path in sources(task, spec):
        record = _read(record_path)
        confirmation = _confirmation(confirm_path)
        runs = {}
        for solver in record["solvers"]:
            used, _ = winner(record, solver, confirmation)
            run = run_at(record, solver, confirmation, share)
            if used is not None and run.row is not None and \
                    run.row["number"] == used["number"]:
                continue
            changed.append((solver, used, run))
            if run.row is not None:
                runs[solver] = run
        written = _lines_of(record, confirmation, runs, share)
        for solver, _, run in changed:
            if solver not in record["solvers"]:
                continue
            at = [i for i, ln in enumerate(lines) if _entry(solver).match(ln)]
            if len(at) != 1:
                raise ValueError(f"{config}: {len(at)} lines of {solver}")
            lines[at[0]] = (written[solver] + "\n" if run.row is not None
                            else f"# {solver}: no complete trial within "
                            f"{label(share)} of its work, left out\n")
    names = ", ".join(s for s, _, _ in changed) or "none"
    note = (f"Written by `python -m study.budget_curve --write-config "
            f"{share:g}`: {config.relative_to(ROOT)} with each solver's "
            f"winner of its trials within {label(share)} of its tuning "
            "work, tuned then confirmed as the study does (the stored "
            "confirmation's held-out outcomes; a winner never run held out "
            f"says so).  Changed: {names}; the other lines, and the note "
            "below (of the full tuning), are the stored config's.")
    head = "".join("# " + ln + "\n" for ln in textwrap.wrap(note, 76))
    return head + "".join(lines), changed


def _shares(text):
    values = []
    for piece in text.split(","):
        try:
            value = float(Fraction(piece.strip()))
        except (ValueError, ZeroDivisionError):
            value = math.nan
        if not 0 < value <= 1:
            raise argparse.ArgumentTypeError(
                f"--shares must be shares of the budget in (0, 1], "
                f"separated by commas (0.25,0.5 or 1/4,1/2), got {text!r}")
        values.append(value)
    return tuple(sorted(set(values)))


def _share(text):
    try:
        value = float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        value = math.nan
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"--write-config SHARE must be a share of the budget in (0, 1]"
            f" (0.25 or 1/4), got {text!r}")
    return value


def main(argv=None):
    known = tasks()
    p = argparse.ArgumentParser(prog="python -m study.budget_curve",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("tasks", nargs="*", metavar="TASK",
                   help=f"tasks of study/study.yml (default: all: "
                        f"{', '.join(known)})")
    p.add_argument("--shares", type=_shares, default=SHARES,
                   help="the shares of the budget tabulated, comma-"
                        "separated (default: 0.25,0.5; the full budget "
                        "always)")
    p.add_argument("--figure", metavar="PNG",
                   help="draw the task's curves to this PNG (exactly one "
                        "TASK)")
    p.add_argument("--write-config", nargs=2, metavar=("SHARE", "OUT"),
                   help="write the task's run config with each solver's "
                        "winner at SHARE of its work to OUT (exactly one "
                        "TASK)")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    unknown = [t for t in args.tasks if t not in known]
    if unknown:
        p.error(f"unknown task{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}; the tasks are {', '.join(known)}")
    names = list(dict.fromkeys(args.tasks)) or list(known)
    share = out = None
    if args.write_config is not None:
        try:
            share = _share(args.write_config[0])
        except argparse.ArgumentTypeError as err:
            p.error(str(err))
        out = args.write_config[1]
    for option, given in (("--figure", args.figure),
                          ("--write-config", out)):
        if given is not None and len(names) != 1:
            p.error(f"{option} reads one task: name exactly one TASK (got "
                    f"{len(names) if args.tasks else 0}); the tasks are "
                    f"{', '.join(known)}")
    if args.figure is not None and not args.figure.endswith(".png"):
        p.error(f"--figure {args.figure}: the figure is a PNG (name it "
                "*.png)")
    if args.figure is not None or out is not None:
        inputs = [str(x) for pair in sources(names[0]) for x in pair if x]
        refuse_inputs(p, {"--figure": args.figure, "--write-config": out},
                      {"a tuning record or confirmation": inputs,
                       "the task's stored config":
                           str(stored_config(names[0])),
                       "the study's specification": str(SPEC)})
    try:
        parts = []
        for task in names:
            found = reading(task, args.shares)
            record = tasks()[task][0]
            parts.append("\n\n".join((
                f"### {task} ({record})",
                table(task, args.shares, found=found),
                expected_table(task, args.shares, found=found),
                describe(task, found=found))))
        text = "\n\n".join(parts)
        print(text)
        if args.figure is not None:
            figure(names[0], args.figure, args.shares, report=text)
            print(f"\nfigure written to {args.figure}")
        if out is not None:
            text, changed = config_at(names[0], share)
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(text)
            print(f"\n{out}: the winners at {label(share)} of the work; "
                  + (f"changed: {', '.join(s for s, _, _ in changed)}"
                     if changed else "no solver changed"))
            for solver, used, run in changed:
                if run.row is None:
                    print(f"- {solver}: no complete trial, left out")
                    continue
                print(f"- {solver}: trial {run.row['number']} instead of "
                      f"{used['number']} ({run.status}"
                      + (", confirm it first" if run.status == "unchecked"
                         else "") + ")")
    except ValueError as err:
        print(f"python -m study.budget_curve: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
