"""The numbers a study page states in its prose, each computed from the
stored results by a small named function.

A page holds a number as an inline fact, the name and arguments of its
function beside the value it printed:

    SPABA is behind by <!-- fact: effect "SPABA outperforms" h_budget
    median -->0.22<!-- /fact --> in H

(on one line); ``python -m study.page PAGE`` rewrites every value,
``--check`` fails on one that is not what its function gives now.  The
arguments are words (``shlex``); a trailing ``digits=N`` sets the
significant digits of a number, ``abs`` takes its absolute value.

    python -m study.facts                    # the facts and their arguments
    python -m study.facts effect "SPABA outperforms" h_budget median

The names (``FACTS``):

- ``effect CLAIM READING STAT``: a statistic of a claim's verdict
  (``study.summary.tables``, the study's comparisons): CLAIM a part of
  one claim's name in study/claims.yml, READING one of ``h_budget``,
  ``h_end``, ``err_budget``, ``err_end``, ``own_budget``, ``own_end``,
  STAT one of ``median``, ``low``, ``high`` (its interval), ``p``,
  ``p_holm``, ``n``, ``verdict``, ``against`` (``b``: its solver's name
  alone);
- ``cell TABLE SOLVER COLUMN``: the median over the repetitions of a
  comparison's table (``study.table``; TABLE the file
  ``study/data/study_TABLE.parquet``, COLUMN a reading as above, or
  ``diverged``, ``diverged_by_budget``, ``runs``, ``diverged_at``);
  ``ref TABLE NAME h|err``: a reference result of that table (NAME a part
  of its name); ``rank TABLE SOLVER``: the solver's place by H at the
  budget (9th); ``solvers TABLE``; ``runs TABLE...``, ``diverged TABLE...``
  (add ``by_budget``); ``reps TABLE``; ``seeds TABLE``; ``dataset TABLE
  PARAMETER``; ``quantum TABLE``: one test sample, in points of test
  error (the smallest step between two test errors);
- ``tuning TASK KEY`` (a tuning record's ``budget``: ``trials``,
  ``epochs``, ``splits``, ``evals``, ``epochs_per_solver``; or
  ``elapsed`` seconds, ``solvers``), ``flagged TASK`` (solvers still
  improving), ``flagged_names TASK``, ``edges TASK...`` (winners on an
  edge that can be widened), ``elapsed_hours`` (every tuning);
- ``holdout TASK OUTCOME`` (how many late falls had that outcome held
  out; ``total``: how many were checked), ``holdout_fall TASK min|max``
  (the held-out falls that hold, %);
- ``confirm TASK winner|other|total``, ``confirm_rank TASK SOLVER``,
  ``confirm_key TASK KEY`` (``splits``, ``seed``, ``candidates``);
- ``family primary|secondary``: the readings Holm's correction ran over;
- ``score SOLVER h|err iqm|low|high|rank``: a solver's overall score
  (``study.scores``); ``improvement SOLVER h|err p|low|high``: P(A > its
  rival) of a PnPBO solver; ``score_name PLACE``, ``score_best_of
  PnPBO``, ``improvement_max h|err p|high``;
- ``const MODULE.NAME [pct|times]``: a constant of the study's code
  (``study.paired.LEVEL``), ``wilcoxon_floor N``: the smallest two-sided
  p a signed-rank test gives on N pairs.

TASK is one of ``TASKS``.
"""
import functools
import importlib
import json
import shlex
import sys
from pathlib import Path

import numpy as np

from tools.tune.edges import widenable

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "study" / "data"
# task: (tuning record, hold-out check, confirmation), in study/data
TASKS = {
    "fashion": ("tune_fashion_splits.json.xz", "holdout_fashion.json",
                "confirm_fashion.json"),
    "fashion_l2": ("tune_fashion_l2.json.xz", "holdout_fashion_l2.json",
                   "confirm_fashion_l2.json"),
    "digits": ("tune_digits.json.xz", "holdout_digits.json",
               "confirm_digits.json"),
    "breast_cancer": ("tune_breast_cancer_5splits.json.xz",
                      "holdout_breast_cancer_5splits.json",
                      "confirm_breast_cancer_5splits.json"),
    "wine": ("tune_wine.json.xz", "holdout_wine.json", "confirm_wine.json"),
    "Simulated": ("tune_Simulated.json.xz", "holdout_Simulated.json",
                  "confirm_Simulated.json"),
}
READINGS = ("h_budget", "h_end", "err_budget", "err_end", "own_budget",
            "own_end")
# the modules whose constants a page may state
CONSTANTS = ("study.", "tools.tune.")
FACTS = {}


class FactError(ValueError):
    """A fact that cannot be computed: unknown name, bad arguments."""


def fact(function):
    """Register ``function`` as the fact of its name."""
    FACTS[function.__name__] = function
    return function


def number(value, digits=2):
    """``study.summary.number``: ``digits`` significant digits, a real
    minus sign."""
    from study.summary import number as format_number
    return format_number(value, digits)


def grouped(value):
    """An integer with thin spaces between thousands (20 000)."""
    return f"{int(value):,}".replace(",", "\u2009")


# ---------------------------------------------------------------- verdicts

def _claim_row(claim, reading):
    from study.summary import tables
    if reading not in READINGS:
        raise FactError(f"reading {reading!r}: one of {READINGS}")
    found = tables()
    table = found.get(reading)
    if table is None:
        raise FactError(f"no verdict on {reading}")
    hits = table[table["name"].str.contains(claim, regex=False)]
    if len(hits) != 1:
        raise FactError(f"claim {claim!r} names {len(hits)} claims: "
                        f"{list(hits['name'])}")
    return hits.iloc[0]


@fact
def effect(claim, reading, stat, digits=None, absolute=False):
    row = _claim_row(claim, reading)
    key = {"low": "ci_low", "high": "ci_high", "b": "against"}.get(stat,
                                                                   stat)
    if key not in row.index:
        raise FactError(f"stat {stat!r}: median, low, high, p, p_holm, n, "
                        "verdict, against or b")
    value = row[key]
    if stat == "b":
        return value.partition(" (")[0]
    if isinstance(value, str):
        return value
    if key == "n":
        return str(int(value))
    value = abs(value) if absolute else float(value)
    return number(value, digits or (1 if key.startswith("p") else 2))


@fact
def family(which):
    """How many readings Holm's correction ran over in a family:
    ``primary`` (one per claim: the verdicts) or ``secondary``."""
    from study.summary import family_sizes, tables
    sizes = family_sizes(tables())
    if which not in sizes:
        raise FactError(f"family {which!r}: one of {', '.join(sizes)}")
    return str(sizes[which])


@functools.lru_cache(maxsize=1)
def _overall():
    from study import scores
    df, runs, work = scores._read(scores.SCORED)
    return scores.overall(df, runs, work)


@fact
def score(solver, quantity, stat, digits=None):
    """A solver's overall score (``study.scores``): QUANTITY ``h`` or
    ``err``, STAT ``iqm``, ``low``, ``high`` (its interval) or ``rank``
    (its place by the IQM of H's score, 1st)."""
    solvers = _overall().solvers
    if solver not in solvers.index:
        raise FactError(f"solver {solver!r}: one of "
                        f"{', '.join(solvers.index)}")
    if quantity not in ("h", "err"):
        raise FactError(f"quantity {quantity!r}: h or err")
    if stat == "rank":
        return ordinal(list(solvers.index).index(solver) + 1)
    key = {"iqm": f"iqm_{quantity}", "low": f"iqm_{quantity}_low",
           "high": f"iqm_{quantity}_high"}.get(stat)
    if key is None:
        raise FactError(f"stat {stat!r}: iqm, low, high or rank")
    return number(float(solvers.at[solver, key]), digits or 3)


@fact
def score_name(place):
    """The solver at ``place`` (1: the first) by the IQM of H's score."""
    names = list(_overall().solvers.index)
    if not place.isdigit() or not 1 <= int(place) <= len(names):
        raise FactError(f"place {place!r}: 1 to {len(names)}")
    return names[int(place) - 1]


@fact
def score_best_of(group):
    """The first of ``group`` (``PnPBO``: the paper's solvers,
    ``study.scores.PNPBO``) by the IQM of H's score."""
    from study.scores import PNPBO
    if group != "PnPBO":
        raise FactError(f"group {group!r}: PnPBO")
    return next(s for s in _overall().solvers.index if s in PNPBO)


@fact
def improvement_max(quantity, stat, digits=None):
    """The largest P(A > its rival) of the PnPBO solvers (``stat``:
    ``p``, or ``high``, the largest upper end of their intervals)."""
    table = _overall().improvement
    key = {"p": f"p_{quantity}", "high": f"p_{quantity}_high"}.get(stat)
    if quantity not in ("h", "err") or key is None:
        raise FactError(f"{quantity} {stat}: h or err, then p or high")
    return number(float(table[key].max()), digits or 2)


@fact
def improvement(solver, quantity, stat, digits=None):
    """P(A > its rival) of a PnPBO solver (``study.scores``): QUANTITY
    ``h`` or ``err``, STAT ``p``, ``low``, ``high``."""
    table = _overall().improvement.set_index("solver")
    if solver not in table.index:
        raise FactError(f"solver {solver!r}: one of "
                        f"{', '.join(table.index)}")
    key = {"p": f"p_{quantity}", "low": f"p_{quantity}_low",
           "high": f"p_{quantity}_high"}.get(stat)
    if quantity not in ("h", "err") or key is None:
        raise FactError(f"{quantity} {stat}: h or err, then p, low or high")
    return number(float(table.at[solver, key]), digits or 2)


@fact
def task_effect(claim, reading, task, stat, digits=None, absolute=False):
    """A pooled claim's reading on one of its tasks (the verdict table's
    ``by_task``): its ``median`` d or its ``n`` instances."""
    by = _claim_row(claim, reading)["by_task"]
    if task not in by:
        raise FactError(f"task {task!r}: the claim is read on "
                        f"{', '.join(by) or 'one task only'}")
    median, n = by[task]
    if stat == "n":
        return str(n)
    if stat != "median":
        raise FactError(f"stat {stat!r}: median or n")
    return number(abs(median) if absolute else median, digits or 2)


@fact
def wilcoxon_floor(n, digits=None):
    """The smallest two-sided p of a signed-rank test on ``n`` pairs."""
    from study.paired import wilcoxon_p
    return number(wilcoxon_p(np.ones(int(n))), digits or 1)


# ------------------------------------------------------------ comparisons

def _table_path(table):
    path = DATA / f"study_{table}.parquet"
    if not path.is_file():
        raise FactError(f"no comparison {table!r} ({path.name} in "
                        "study/data)")
    return path


@functools.lru_cache(maxsize=None)
def frame(table):
    """The stored results of comparison ``table``."""
    from study.table import load
    return load([str(_table_path(table))])


@functools.lru_cache(maxsize=None)
def medians(table):
    """``study.table.summary`` of comparison ``table`` at its tuning
    budget (``study.verdicts.readings``), indexed by solver label."""
    from study import table as study_table
    from study.verdicts import readings
    runs = readings(frame(table))
    out = study_table.summary(runs)
    names = study_table.row_names(out["solver"], ())
    return out.assign(solver=out["solver"].map(names)).set_index("solver")


def _solver_row(table, solver):
    rows = medians(table)
    if solver not in rows.index:
        raise FactError(f"{table}: no solver {solver!r}; "
                        f"{list(rows.index)}")
    return rows.loc[solver]


FORMAT = {"h": ".3f", "err": ".1f", "own": ".1f"}


@fact
def cell(table, solver, column, digits=None, absolute=False):
    row = _solver_row(table, solver)
    if column in ("diverged", "diverged_by_budget", "runs"):
        return str(int(row[column]))
    if column not in READINGS + ("diverged_at",):
        raise FactError(f"column {column!r}: {READINGS}, diverged, "
                        "diverged_by_budget, runs or diverged_at")
    value = float(row[column])
    value = abs(value) if absolute else value
    if digits:
        return number(value, digits)
    if column == "diverged_at":
        return f"{value:.3g}"
    return format(value, FORMAT[column.partition("_")[0]])


@fact
def ref(table, name, column):
    from study.table import reference_rows
    (rows,) = reference_rows(frame(table)).values()
    hits = [r for r in rows if name in r[0]]
    if len(hits) != 1 or column not in ("h", "err"):
        raise FactError(f"{table}: reference {name!r} {column!r} (h or "
                        f"err) names {len(hits)} of {[r[0] for r in rows]}")
    _, h, err = hits[0]
    return format(h if column == "h" else err, FORMAT[column])


@fact
def rank(table, solver):
    """The solver's place by H at the budget (1st: the lowest)."""
    rows = medians(table).sort_values("h_budget", kind="stable")
    if solver not in rows.index:
        raise FactError(f"{table}: no solver {solver!r}")
    return ordinal(list(rows.index).index(solver) + 1)


def ordinal(n):
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    n = int(n)
    suffix = "th" if n % 100 in (11, 12, 13) else \
        {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@fact
def solvers(table):
    return str(len(medians(table)))


@fact
def runs(*tables):
    return grouped(sum(int(medians(t)["runs"].sum()) for t in tables))


@fact
def diverged(*tables):
    """Runs that diverged by their end (``by_budget``: by the budget)."""
    column = "diverged"
    if tables and tables[-1] == "by_budget":
        column, tables = "diverged_by_budget", tables[:-1]
    return str(sum(int(medians(t)[column].sum()) for t in tables))


@fact
def reps(table):
    return str(frame(table)["idx_rep"].nunique())


@fact
def seeds(table):
    return ", ".join(str(int(s)) for s in
                     sorted(frame(table)["base_seed"].unique()))


@fact
def dataset(table, parameter):
    values = frame(table)[f"p_dataset_{parameter}"].dropna().unique()
    if len(values) != 1:
        raise FactError(f"{table}: {parameter} takes {list(values)}")
    value = values[0]
    if isinstance(value, (int, np.integer)) or float(value).is_integer():
        return grouped(value)
    return f"{value:g}"


@fact
def quantum(table, digits=None):
    """One test sample, in points of test error: the smallest step
    between two of the table's test errors of y*(x)."""
    errors = np.unique(frame(table)["objective_test_error"].dropna()
                       .astype(float).round(12))
    steps = np.diff(errors)
    return number(100 * float(steps[steps > 1e-9].min()), digits or 2)


# ---------------------------------------------------------------- tunings

def _task(task):
    if task not in TASKS:
        raise FactError(f"task {task!r}: one of {list(TASKS)}")
    return TASKS[task]


@functools.lru_cache(maxsize=None)
def record(task):
    """The task's tuning record."""
    from tools.tune.record_file import read_json
    return read_json(str(DATA / _task(task)[0]))


@functools.lru_cache(maxsize=None)
def _json(task, which):
    return json.loads((DATA / _task(task)[which]).read_text())


@fact
def tuning(task, key):
    rec = record(task)
    if key == "elapsed":
        return grouped(round(rec["elapsed_seconds"]))
    if key == "solvers":
        return str(len(rec["solvers"]))
    if key not in rec["budget"] or key == "kind":
        raise FactError(f"tuning key {key!r}: elapsed, solvers or one of "
                        f"{[k for k in rec['budget'] if k != 'kind']}")
    value = rec["budget"][key]
    return grouped(value) if float(value).is_integer() else f"{value:g}"


def _flagged(task):
    from tools.tune.adequacy import best_so_far, still_improving
    return [s for s, srec in record(task)["solvers"].items()
            if still_improving(best_so_far(srec["all_trials"]))]


@fact
def flagged(task):
    """How many solvers are still improving at the end of the tuning."""
    return str(len(_flagged(task)))


@fact
def flagged_names(task):
    names = _flagged(task)
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 \
        else "".join(names)


@fact
def edges(*tasks):
    """Winners' parameters on an edge that can be widened (not a limit,
    not flat), over ``tasks``."""
    return str(sum(1 for task in tasks
                   for s in record(task)["solvers"].values()
                   for e in s.get("edges", []) if widenable(e)))


def _added(task):
    """{solver: its record on ``task``} of the solvers put into the
    study later (``python -m study add``: data/added/SOLVER)."""
    from tools.tune.record_file import read_json
    _task(task)
    return {path.parent.name: read_json(str(path)) for path in
            sorted((DATA / "added").glob(f"*/tune_{task}.json.xz"))}


def _added_on_edges(tasks):
    return [(solver, task) for task in tasks
            for solver, rec in _added(task).items()
            for s in rec["solvers"].values()
            for e in s.get("edges", []) if widenable(e)]


@fact
def added_edges(*tasks):
    """Winners of the solvers added later (``python -m study add``) with a
    parameter on an edge that could be widened, over ``tasks``: they got
    the stored tuning's work and no more."""
    return str(len(_added_on_edges(tasks)))


@fact
def added_edge_names(*tasks):
    """Those winners, as "SOLVER on TASK"."""
    return ", ".join(f"{s} on {t}" for s, t in
                     dict.fromkeys(_added_on_edges(tasks)))


@fact
def elapsed_hours(digits=None):
    """Every task's tuning, in hours of wall clock."""
    seconds = sum(record(t)["elapsed_seconds"] for t in TASKS)
    return number(seconds / 3600, digits or 2)


@fact
def holdout(task, outcome):
    outcomes = [s["outcome"] for s in _json(task, 1)["solvers"].values()]
    return str(sum(o == outcome or outcome == "total" for o in outcomes))


@fact
def holdout_fall(task, which, digits=None):
    falls = [100 * s["held_out_fall"] for s in
             _json(task, 1)["solvers"].values() if s["outcome"] == "holds"]
    if which not in ("min", "max") or not falls:
        raise FactError(f"holdout_fall {task} {which}: min or max of the "
                        f"falls that hold ({len(falls)})")
    return number(min(falls) if which == "min" else max(falls), digits or 2)


@fact
def confirm(task, which):
    ranks = [s["rank"] for s in _json(task, 2)["solvers"].values()]
    if which == "total":
        return str(len(ranks))
    if which not in ("winner", "other"):
        raise FactError("confirm TASK winner|other|total")
    return str(sum(r is not None and (r == 1) == (which == "winner")
                   for r in ranks))


@fact
def confirm_rank(task, solver):
    found = _json(task, 2)["solvers"]
    if solver not in found:
        raise FactError(f"{task}: no solver {solver!r} confirmed")
    return str(found[solver]["rank"])


@fact
def confirm_key(task, key):
    found = _json(task, 2)
    if key not in ("splits", "seed", "candidates", "epochs", "evals",
                   "tuning_epochs"):
        raise FactError(f"confirm_key {key!r}")
    return f"{found[key]:g}"


# -------------------------------------------------------------- constants

@fact
def const(name, how=None):
    """A constant of the study's code: ``pct`` in percent, ``times``
    itself (1.5)."""
    module, _, attr = name.rpartition(".")
    if not module.startswith(CONSTANTS):
        raise FactError(f"{name}: constants of {CONSTANTS} only")
    try:
        value = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as err:
        raise FactError(f"{name}: {err}") from None
    if how == "pct":
        return f"{100 * value:g}"
    return f"{value:g}"


# ------------------------------------------------------------------ the API

def value(spec):
    """The text of the fact ``spec`` (its name and arguments)."""
    try:
        words = shlex.split(spec)
    except ValueError as err:
        raise FactError(f"{spec!r}: {err}") from None
    if not words or words[0] not in FACTS:
        raise FactError(f"{spec!r}: no fact {words[:1]}; the facts are "
                        f"{', '.join(FACTS)}")
    function, args, options = FACTS[words[0]], [], {}
    for word in words[1:]:
        if word == "abs":
            options["absolute"] = True
        elif word.startswith("digits="):
            options["digits"] = int(word.partition("=")[2])
        else:
            args.append(word)
    try:
        return function(*args, **options)
    except TypeError as err:
        raise FactError(f"{spec!r}: {err}") from None
    except KeyError as err:
        raise FactError(f"{spec!r}: no {err}") from None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    try:
        print(value(shlex.join(argv)))
    except FactError as err:
        print(f"python -m study.facts: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
