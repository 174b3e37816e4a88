"""The verdicts of a study: each claim of ``study/claims.yml``
decided by paired statistics over independent instances, and the data
and performance profiles of every solver over all instances.

    python -m study.verdicts study/data/*.parquet [--budget 10] \
        [--claims study/claims.yml] [--tau 0.1]

An instance is one (dataset, benchopt seed, repetition): its own split and
starting point, shared by every solver run on it.  On each instance a
solver is read (``study.table.run_rows``) at the budget and at the
end of its run (the budget: ``--budget`` epochs, or by default the tuning
budget of each result's grid, the Objective's ``eval_epochs`` x 63 that a
``tools.tune`` config sets), for H (the validation loss), the test error of
y*(x) and the test error of its own iterate; a run that diverged by the
reading counts as the worst value (inf), never as missing.  A run that
stopped before a reading without diverging, for another cause than its
stopping rule (benchopt's timeout, its -n cap), has no value there: the
instance leaves the pairs of every claim that reads that run there, and
the report counts the instances each claim lost (``stopped_markdown``).
A claim pairs its solver ``a`` with ``b`` on the instances of its tasks
(``study/claims.yml`` says how ``b`` is chosen); each quantity
gives one table, decided by ``study.paired`` (Wilcoxon signed-rank,
bootstrap interval of the median difference, Holm over the claims of the
table; a claim read on several tasks is also read task by task, and its
pooled verdict stands only where no task reverses it; the rule,
``RULE``: ``study.paired.RULE``, ``POOLING_RULE`` and ``STOPPED_RULE``,
is printed first).

Data profiles (More & Wild 2009): on each instance, H_L is the lowest H
any run reached and H0 the starting point's; a run has *reached the
target* at the first evaluation where H <= H_L + tau (H0 - H_L), and its
work is the epochs drawn by then, over the instance's budget (inf if
never, or only after it diverged).  The data profile is the share of
instances each solver reached by a share of the budget, the performance
profile (Dolan & More 2002) the share within a factor of the fastest
solver's work.
"""
import argparse
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from benchmark_utils.algorithms import defaults
from study import paired as verdicts
from study.budget_reading import (BY_RULE, NEAR, EPOCHS, grid_step,
                                  sound_points)
from study.claims import check_claims, held_out, primary_of, read_claims
from study.table import end_of, load, run_rows
from tools.arguments import positive_number
from tools.tune.report import CALLS_AT_BUDGET

CLAIMS = Path(__file__).resolve().parent / "claims.yml"
# a run that did not reach a reading (printed with the rule)
STOPPED_RULE = (
    "A run that diverged by a reading counts there as the worst value; one "
    "that ended before it by its stopping rule (converged, or no progress) "
    "keeps its last value; one that stopped more than "
    f"{NEAR:g} epochs before it for another cause (benchopt's timeout, its "
    "-n cap) has no value there, and the instance leaves the pairs of "
    "every claim that reads that run there.")
RULE = " ".join((verdicts.RULE, verdicts.MULTIPLICITY_RULE,
                 verdicts.POOLING_RULE, STOPPED_RULE))
INSTANCE = ["dataset", "seed", "rep"]
# (table key, column of run_rows, what it is)
QUANTITIES = (
    ("h_budget", "H at the budget"),
    ("h_end", "H at the end"),
    ("err_budget", "test error (%) of y*(x) at the budget"),
    ("err_end", "test error (%) of y*(x) at the end"),
    ("own_budget", "test error (%) of the solver's own y at the budget"),
    ("own_end", "test error (%) of the solver's own y at the end"))
BUDGETS = (0.1, 0.25, 0.5, 1, 1.5)  # data profile: shares of the budget
RATIOS = (1, 2, 4, 8)  # the performance profile's factors


def label(solver_name):
    """The solver's name before ``[``, with ``[R=inf]`` for a run of a
    clipping solver (a finite default R) without clipping: the
    ablation's (SOBA's own R is inf)."""
    name, _, params = str(solver_name).partition("[")
    try:
        clips = math.isfinite(defaults(name).get("R", math.inf))
    except (KeyError, ValueError):
        clips = False
    off = re.search(r"(^|,)R=inf(,|\])", params) is not None
    return name + "[R=inf]" if clips and off else name


def stopped_table(runs, quantity):
    """Instances x solvers: True where the run stopped before the reading
    of ``quantity`` without diverging (``run_rows``' ``stopped``)."""
    how = runs["how_end"] if quantity.endswith("_end") else runs["how"]
    runs = runs.assign(solver=runs["solver"].map(label),
                       seed=runs["seed"].fillna(-1),
                       value=(how == "stopped"))
    runs = runs.drop_duplicates(INSTANCE + ["solver"])
    return runs.pivot(index=INSTANCE, columns="solver",
                      values="value").fillna(False).astype(bool)


def instance_table(runs, quantity):
    """Instances x solvers of ``quantity`` (a ``run_rows`` column), a
    run that diverged by its reading at inf."""
    runs = runs.assign(solver=runs["solver"].map(label),
                       seed=runs["seed"].fillna(-1))
    value = runs[quantity].astype(float)
    at_end = quantity.endswith("_end")
    lost = runs["diverged"] if at_end else runs["how"] == "diverged"
    runs = runs.assign(value=value.where(~lost.astype(bool), np.inf))
    twice = runs.duplicated(INSTANCE + ["solver"], keep=False)
    if twice.any():
        who = sorted(runs.loc[twice, "solver"].unique())
        raise ValueError(f"results: {who} run twice on one instance (two "
                         "configurations of one solver): give the files of "
                         "one study")
    return runs.pivot(index=INSTANCE, columns="solver", values="value")


def solvers_by_dataset(df):
    """{dataset: the solvers (``label``) run on it} of results ``df``:
    what a claim can be read on (``claims.check_claims``)."""
    out = {}
    for data, solver in df[["dataset_name", "solver_name"]] \
            .drop_duplicates().itertuples(index=False):
        out.setdefault(data, set()).add(label(solver))
    return out


def claim_pair(claim, table, baselines, stopped=None, rivals=None):
    """``(a, b, what b is, the solvers read)``: the claim's values on the
    instances of its tasks, or None when the results hold no instance of
    it (``stopped``, like ``table``: where a run stopped before the
    reading, an instance without its value).  A ``b: rival`` is picked
    on held-out splits by ``rivals`` (the claims file's entries,
    ``_held_out_rival``), or without them on these instances."""
    tasks = table.index.get_level_values("dataset")
    mine = [bool(re.search(claim["tasks"], str(t))) for t in tasks]
    rows = table[mine]
    a = claim["a"]
    held = rows[a].notna() if a in rows else None
    if stopped is not None and held is not None:
        held = held | stopped[mine][a]
    if rows.empty or held is None or not held.any():
        return None
    if claim["b"] == "baselines":
        have = [s for s in baselines if s in rows and s != a]
        if not have:
            return None
        return (rows[a], rows[have].median(axis=1), "the baselines' median",
                [a, *have])
    if claim["b"] == "rival":
        skip = {a, *claim.get("except", [])}
        # the ablations' variants ("SPABA[R=inf]") are no other method
        others = [s for s in rows if s not in skip and "[" not in s
                  and rows[s].notna().any()]
        if not others:
            return None
        if rivals is None:
            rival = min(others, key=lambda s: (rows[s].median(), s))
            return (rows[a], rows[rival],
                    f"{rival} (strongest rival on these instances)",
                    [a, rival])
        return _held_out_rival(rows, a, others, rivals)
    if claim["b"] not in rows:
        return None
    return rows[a], rows[claim["b"]], claim["b"], [a, claim["b"]]


def _held_out_rival(rows, a, others, rivals):
    """``claim_pair`` of a ``b: rival`` picked before the comparison is
    read: on the instances of each ``rivals`` entry's datasets, the solver
    of ``others`` whose confirmed winner has the lowest criterion on the
    entry's held-out splits (``claims.held_out``; a solver without one is
    no rival there)."""
    datasets = rows.index.get_level_values("dataset")
    b = pd.Series(np.nan, index=rows.index)
    picked = {}
    for entry in rivals:
        mine = np.array([bool(re.search(entry["tasks"], str(d)))
                         for d in datasets]) & b.isna().to_numpy()
        if not mine.any():
            continue
        scores = held_out(tuple(entry["confirmations"]))
        known = [s for s in others if s in scores]
        if not known:
            raise ValueError(f"rivals: {entry['confirmations']} confirm "
                             f"none of {others}: no rival of {a} there")
        rival = min(known, key=lambda s: (scores[s], s))
        b[mine] = rows.loc[mine, rival]
        for d in sorted(set(datasets[mine]), key=str):
            picked.setdefault(rival, []).append(task_of(d))
    if len(picked) == 1:
        what = f"{next(iter(picked))} (strongest rival on held-out splits)"
    else:
        what = "; ".join(f"{r} on {', '.join(dict.fromkeys(t))}"
                         for r, t in picked.items()) + \
            " (strongest rivals on held-out splits)"
    return rows[a], b, what, [a, *picked]


def claim_rows(runs, spec, quantity):
    """``[(claim, a, b, what b is, lost)]``: each claim of ``spec`` with
    instances on ``quantity`` (``claim_pair``), ``lost`` the number of
    its instances where a run it reads (``a``, ``b``, every baseline of
    the baselines' median) stopped before the reading (``stopped_table``):
    those leave its pairs (``a`` and ``b`` NaN there)."""
    table = instance_table(runs, quantity)
    stopped = stopped_table(runs, quantity).reindex(
        index=table.index, columns=table.columns, fill_value=False)
    out = []
    for claim in spec["claims"]:
        pair = claim_pair(claim, table, spec.get("baselines", []), stopped,
                          spec.get("rivals"))
        if pair is None:
            continue
        a, b, what, read = pair
        lost = stopped.loc[a.index, read].any(axis=1)
        a, b = a.where(~lost), b.where(~lost)
        out.append((claim, a, b, what, int(lost.sum())))
    return out


def verdict_tables(runs, spec):
    """One verdict table per quantity: a row per claim with instances (a
    claim that lost every instance to runs stopped before the reading is
    not read there: ``stopped_losses`` says so)."""
    out = {}
    for quantity, _ in QUANTITIES:
        claims, against, tasks = [], [], []
        for claim, a, b, what, lost in claim_rows(runs, spec, quantity):
            if lost and not verdicts.paired_difference(a, b).n:
                continue
            claims.append(dict(name=claim["name"], a=a.to_numpy(),
                               b=b.to_numpy(),
                               claimed_sign=claim.get("sign", -1)))
            against.append(what)
            tasks.append(task_medians(a, b))
        if claims:
            found = verdicts.verdict_table(claims)
            found.insert(1, "against", against)
            found["by_task"] = tasks
            out[quantity] = found
    return adjust_families(out, spec)


def adjust_families(tables, spec):
    """``tables`` with ``p_holm`` and ``verdict`` read as
    ``paired.MULTIPLICITY_RULE`` says: Holm over the primary reading of
    every claim (``claims.primary_of``), and apart over every other
    reading of every claim; the verdict then as ``paired.decide`` and
    ``paired.pooled_verdict`` say.  ``family`` names each row's family
    and ``m`` its size."""
    primary = {c["name"]: primary_of(c, spec) for c in spec["claims"]}
    sign = {c["name"]: c.get("sign", -1) for c in spec["claims"]}
    for table in tables.values():
        table["family"], table["m"] = "", 0
    cells = [(q, i) for q, table in tables.items() for i in table.index]
    for family in ("primary", "secondary"):
        mine = [(q, i) for q, i in cells
                if (primary[tables[q].at[i, "name"]] == q)
                == (family == "primary")]
        if not mine:
            continue
        adjusted = verdicts.holm([tables[q].at[i, "p"] for q, i in mine])
        for (q, i), p in zip(mine, adjusted):
            table = tables[q]
            median = table.at[i, "median"]
            found = verdicts.decide(median, sign[table.at[i, "name"]], p)
            by_task = table.at[i, "by_task"]
            table.at[i, "family"] = family
            table.at[i, "m"] = len(mine)
            table.at[i, "p_holm"] = p
            table.at[i, "verdict"] = verdicts.pooled_verdict(
                found, median, [t[0] for t in by_task.values()])
    return tables


def task_of(dataset_name):
    """The task of a dataset: its name before "[" (Fashion-MNIST's
    corruption levels are one task)."""
    return str(dataset_name).split("[", 1)[0]


def task_medians(a, b):
    """{task: (median d = a - b over its instances, instances)} of a
    claim read on several tasks (``paired.POOLING_RULE``), {} on one."""
    tasks = a.index.get_level_values("dataset").map(task_of)
    if len(set(tasks)) < 2:
        return {}
    out = {}
    for task in sorted(set(tasks)):
        mine = np.asarray(tasks == task)
        pairs = verdicts.paired_difference(a.to_numpy()[mine],
                                           b.to_numpy()[mine])
        if pairs.n:
            out[task] = (float(np.median(pairs.d)), pairs.n)
    return out


def stopped_losses(runs, spec):
    """``[(claim, reading, instances lost)]``: the instances each claim
    left out on each reading because a run it reads there stopped before
    it (``claim_rows``), where it lost any."""
    return [(claim["name"], SHORT[q], lost) for q, _ in QUANTITIES
            for claim, _, _, _, lost in claim_rows(runs, spec, q) if lost]


def stopped_markdown(runs, spec):
    """What the runs that stopped before a reading take from the claims:
    how many stopped, why, and the instances each claim lost."""
    before = int((runs["how"] == "stopped").sum())
    before_end = int((runs["how_end"] == "stopped").sum())
    stopped = runs[(runs["how"] == "stopped")
                   | (runs["how_end"] == "stopped")]
    causes = ", ".join(
        f"{c or 'cause not in the results'}: {n}"
        for c, n in stopped["cause"].value_counts().items())
    by_rule = int(runs["cause"].isin(BY_RULE).sum())
    rule = (f"{by_rule} runs ended before a reading by their stopping rule "
            "(converged, or no progress) and keep their last value there")
    losses = stopped_losses(runs, spec)
    if not before and not before_end:
        return (f"**Runs stopped before a reading.** None of the {len(runs)} "
                "runs stopped more than "
                f"{NEAR:g} epochs before the budget or the end (the target "
                "of its last point) without diverging (by benchopt's "
                f"timeout, its -n cap): no claim lost an instance; {rule}.")
    head = (f"**Runs stopped before a reading.** {before} of the "
            f"{len(runs)} runs stopped more than {NEAR:g} epochs before the "
            f"budget and {before_end} before the end (the target of their "
            f"last point) without diverging ({causes}): not read there, "
            "their instances leave the pairs of every claim that reads "
            f"them; {rule}")
    if not losses:
        return head + ". No claim lost an instance."
    lost = {}
    for name, reading, n in losses:
        lost.setdefault(name, {})[reading] = n
    read = [SHORT[q] for q, _ in QUANTITIES]
    lines = [head + ". The instances each claim lost, on each reading:", "",
             "| claim | " + " | ".join(read) + " |",
             "|---|" + "---|" * len(read)]
    lines += [f"| {name} | " + " | ".join(str(by.get(r, 0)) for r in read)
              + " |" for name, by in lost.items()]
    return "\n".join(lines)


def budgets(df, budget=None):
    """``[(results, budget)]``: the results by their grid (the
    Objective's name), each with ``budget`` or its grid's tuning budget;
    a ValueError when results have no grid and no ``budget`` is given."""
    out = []
    for name, part in df.groupby("objective_name", sort=False):
        if budget is None:
            step = grid_step(part)
            if step is None:
                raise ValueError(f"results of {name!r} have no common grid "
                                 "(eval_epochs): give --budget")
            out.append((part, CALLS_AT_BUDGET * step))
        else:
            out.append((part, budget))
    return out


def readings(df, budget=None, side="at"):
    """``run_rows`` of every part of ``budgets``, with its budget, a run
    far from it read on ``side`` (``study_table.SIDES``), and the epochs
    its runs were to end at (``end``: the target of the grid's last point,
    ``study.table.end_of``)."""
    out = []
    for part, b in budgets(df, budget):
        end = end_of(part, b)
        out.append(run_rows(part, b, side, end).assign(budget=b, end=end))
    return pd.concat(out, ignore_index=True)


SHORT = {"h_budget": "H, budget", "h_end": "H, end",
         "err_budget": "test error, budget", "err_end": "test error, end",
         "own_budget": "own y's test error, budget",
         "own_end": "own y's test error, end"}
# the other readings of a run far from the budget, as a cell names them
ASIDE = {"before": "before the budget", "past": "past the budget"}


def summary_markdown(tables, only=None, others=None):
    """A claim per row, a reading per column: the verdicts (of the claims
    whose name contains ``only``, if given); ``others``, {side: tables} of
    the runs far from the budget read on another side of it: a budget
    verdict they change is followed by theirs ("holds; inconclusive before
    the budget")."""
    read = [q for q, _ in QUANTITIES if q in tables]
    names = list(dict.fromkeys(n for q in read for n in tables[q]["name"]))
    if only is not None:
        names = [n for n in names if only in n]
    lines = ["| claim | " + " | ".join(SHORT[q] for q in read) + " |",
             "|---|" + "---|" * len(read)]
    for name in names:
        cells = []
        for q in read:
            verdict = cell = _verdict_of(tables, q, name)
            for side, other in (others or {}).items():
                seen = _verdict_of(other, q, name)
                if seen != verdict:
                    cell += f"; {seen} {ASIDE[side]}"
            cells.append(cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "In parentheses: a secondary reading, evidence beside the "
              "claim's verdict (its primary reading), never a verdict."]
    return "\n".join(lines)


def _verdict_of(tables, quantity, name):
    """A claim's verdict on a reading, in parentheses on a secondary one
    (``adjust_families``: evidence, not the claim's verdict)."""
    if quantity not in tables:
        return "—"
    row = tables[quantity][tables[quantity]["name"] == name]
    if not len(row):
        return "—"
    found = row["verdict"].iloc[0]
    return found if row["family"].iloc[0] == "primary" else f"({found})"


def work_to_reach(df, tau, budget=None):
    """Instances x solvers: the epochs each run drew before its H came
    within ``tau`` of the instance's best reduction, over the instance's
    budget (inf if never)."""
    return pd.concat([_work(part, tau) / b
                      for part, b in budgets(df, budget)])


def _work(df, tau):
    """``work_to_reach`` of results on one grid, in epochs."""
    keys = ["dataset_name", "base_seed", "idx_rep"] if "base_seed" in df \
        else ["dataset_name", "idx_rep"]
    rows = []
    for key, inst in df.groupby(keys, sort=False):
        curves = {}
        for solver, run in inst.groupby("solver_name", sort=False):
            sound, _ = sound_points(run)
            curves[label(solver)] = sound
        finite = [c["objective_value"].astype(float) for c in curves.values()
                  if len(c)]
        if not finite:
            continue
        low = min(float(v.min()) for v in finite)
        start = max(float(c["objective_value"].iloc[0])
                    for c in curves.values() if len(c))
        target = low + tau * (start - low)
        for solver, c in curves.items():
            hit = c[c["objective_value"].astype(float) <= target]
            rows.append(dict(instance=key, solver=solver,
                             work=float(hit[EPOCHS].iloc[0]) if len(hit)
                             else np.inf))
    table = pd.DataFrame(rows)
    return table.pivot(index="instance", columns="solver", values="work")


def profiles(work):
    """The data profile (share of instances reached by each budget) and
    the performance profile (share within each factor of the fastest)."""
    data = verdicts.data_profile(work, BUDGETS)
    # a target reached at the start (0 epochs) costs the first step
    positive = work.where(work > 0, np.nan).min().min()
    floor = positive if np.isfinite(positive) else 1.0
    performance = verdicts.performance_profile(work.clip(lower=floor),
                                               RATIOS)
    return data, performance


def profile_markdown(table, what):
    """A profile as a Markdown table: a row per solver, a column per
    budget or factor."""
    columns = [f"{what} {c:g}" for c in table.index]
    lines = ["| solver | " + " | ".join(columns) + " |",
             "|---|" + "---|" * len(columns)]
    order = table.T.sort_values(list(table.index)[::-1], ascending=False)
    for solver, row in order.iterrows():
        lines.append(f"| {solver} | "
                     + " | ".join(f"{v:.2f}" for v in row) + " |")
    return "\n".join(lines)


def summary(df, spec, budget, only=None, side="at"):
    """The verdicts alone, a claim per row (those whose name contains
    ``only``), Holm's correction over every claim as in ``report``; the
    runs far from the budget read on ``side`` (``study_table.SIDES``), or
    with ``side="all"`` at it, a budget verdict that differs when they are
    read before or past it saying so in its cell."""
    if side != "all":
        runs = readings(df, budget, side)
        return _with_stops(summary_markdown(verdict_tables(runs, spec),
                                            only), runs, spec)
    runs = readings(df, budget, "at")
    at = verdict_tables(runs, spec)
    return _with_stops(summary_markdown(at, only, other_sides(
        df, spec, runs, budget)), runs, spec)


def _with_stops(text, runs, spec):
    """``text`` followed by ``stopped_markdown`` when a claim lost an
    instance to a run stopped before a reading."""
    if not stopped_losses(runs, spec):
        return text
    return text + "\n\n" + stopped_markdown(runs, spec)


def other_sides(df, spec, runs, budget=None):
    """{side: verdict tables} with the far runs of ``runs`` read on each
    side of ``ASIDE`` (``reread``)."""
    return {s: verdict_tables(reread(df, runs, s, budget), spec)
            for s in ASIDE}


RUN_KEY = ["dataset", "solver", "rep", "seed"]


def reread(df, runs, side, budget=None):
    """``runs`` (``readings`` of ``df`` at ``budget``) with the runs whose
    reading can differ on ``side`` (``far``, ``study_table.run_rows``)
    read again there; every other run reads the same on every side."""
    far = runs["far"].astype(bool)
    if not far.any():
        return runs
    keys = set(map(tuple, runs.loc[far, RUN_KEY].astype(str).values))
    seeds = (df["base_seed"] if "base_seed" in df
             else pd.Series(None, index=df.index))
    of_run = [tuple(map(str, k)) in keys for k in zip(
        df["dataset_name"], df["solver_name"], df["idx_rep"], seeds)]
    again = readings(df[np.array(of_run)], budget, side)
    return pd.concat([runs[~far], again], ignore_index=True)


def bracket_changes(df, spec, budget=None, at=None, runs=None):
    """``(changes, far, far_end, runs)``: ``changes``, the verdicts (of
    ``at``, the tables read at the budget) that change when each run read
    more than ``NEAR`` epochs from the budget is read at its last
    evaluation before it or its first past it, and each run that ended
    more than ``NEAR`` past its last point's target at its last evaluation
    before that (``study.budget_reading``), as ``[(claim, reading,
    verdict, read before, read past)]``; ``far`` and ``far_end``, how many
    of the ``runs`` are read that far from the budget and the end
    (``runs``: ``readings`` at the budget, if already read)."""
    runs = readings(df, budget, "at") if runs is None else runs
    far = int((runs["gap"] > NEAR).sum())
    far_end = int((runs["epochs_end"] > runs["end"].astype(float)
                   + NEAR).sum())
    at = at if at is not None else verdict_tables(runs, spec)
    others = other_sides(df, spec, runs, budget)
    out = []
    for q, _ in QUANTITIES:
        for name in (at[q]["name"] if q in at else ()):
            verdict = _verdict_of(at, q, name)
            seen = [_verdict_of(others[s], q, name) for s in ASIDE]
            if any(v != verdict for v in seen):
                out.append((name, SHORT[q], verdict, *seen))
    return out, far, far_end, len(runs)


def bracket_markdown(df, spec, budget, tables, runs=None):
    """What the verdicts become when the runs read far from the budget,
    or ending far past their last point's target, are read on either side
    of it (``bracket_changes``)."""
    changes, far, far_end, runs = bracket_changes(df, spec, budget, tables,
                                                  runs)
    read = sum(len(tables[q]) for q, _ in QUANTITIES if q in tables)
    head = (f"**Where a budget falls in an iteration.** {far} of the "
            f"{runs} runs have no evaluation within {NEAR:g} epochs of the "
            "budget (they are read at their first past it, or interpolated "
            f"between the two around it), and {far_end} end more than "
            f"{NEAR:g} epochs past the "
            "target of their last point (one iteration draws that much: a "
            "full pass, an inner loop). Read instead at their last "
            "evaluation before the budget and before that target (iterates "
            "that used at most them), or at their first past the budget, "
            f"{len(changes)} of the {read} verdicts change")
    if not changes:
        return head + "."
    lines = [head + ":", "", "| claim | reading | verdict | read before "
             "the budget | read past it |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in changes]
    return "\n".join(lines)


def report(df, spec, budget, tau):
    """The page's verdicts and profiles, as Markdown."""
    runs = readings(df, budget)
    n = len(runs[INSTANCE].drop_duplicates())
    # one entry per dataset name (the corruption levels of one dataset
    # share their budget)
    at = ", ".join(dict.fromkeys(
        f"{d.partition('[')[0]} {b:g}" for d, b in
        runs.groupby("dataset")["budget"].first().items()))
    lines = [f"**The rule.** {RULE}", "",
             f"{n} instances; readings at the budget (epochs: {at}) and at "
             "the end of each run; a run that diverged by a reading counts "
             "as the worst value."]
    tables = verdict_tables(runs, spec)
    lines += ["", "**Every claim on every reading** (the tables below give "
              "each verdict's statistics)", "", summary_markdown(tables)]
    lines += ["", bracket_markdown(df, spec, budget, tables, runs)]
    lines += ["", stopped_markdown(runs, spec)]
    for quantity, what in QUANTITIES:
        if quantity in tables:
            lines += ["", f"**{what[0].upper() + what[1:]}**", "",
                      verdicts.markdown(tables[quantity])]
    work = work_to_reach(df, tau, budget)
    # the solvers as tuned: an ablation's variant is no competitor
    work = work[[s for s in work.columns if "[" not in s]]
    data, performance = profiles(work)
    lines += ["", f"**Data profile** (tau = {tau:g}: the share of the "
              f"{len(work)} instances on which each solver came within "
              f"{tau:g} of the best reduction of H, by a share of the "
              "budget's epochs)", "",
              profile_markdown(data, "by"), "",
              "**Performance profile** (the share of instances on which "
              "each solver reached the target within a factor of the "
              "fastest solver's epochs)", "",
              profile_markdown(performance, "x")]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.verdicts",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+")
    p.add_argument("--budget", type=positive_number("--budget"),
                   help="epochs of the budget readings, a finite number > 0 "
                        "(default: each result's tuning budget, eval_epochs "
                        "x 63)")
    p.add_argument("--claims", default=str(CLAIMS),
                   help="the claims file (default: study/claims.yml)")
    p.add_argument("--tau", type=float, default=0.1,
                   help="the data profile's tolerance, in (0, 1)")
    p.add_argument("--summary", action="store_true",
                   help="print the table of verdicts only (a claim per "
                        "row, a reading per column)")
    p.add_argument("--only", metavar="TEXT",
                   help="with --summary, the claims whose name contains "
                        "TEXT (Holm's correction still counts every "
                        "claim)")
    p.add_argument("--budget-reading", default="at",
                   choices=("at", "before", "past", "all"),
                   help="where a run with no evaluation within 0.25 epochs "
                        "of the budget is read: at it (the default: "
                        "interpolated, or its grid point), at its last "
                        "evaluation before it, at its first past it, or, "
                        "with --summary, all (a verdict that differs says "
                        "so)")
    args = p.parse_args(argv)
    if args.only is not None and not args.summary:
        p.error("--only goes with --summary")
    if args.budget_reading != "at" and not args.summary:
        p.error("--budget-reading goes with --summary (the full report "
                "reads at the budget and lists what the other readings "
                "change)")
    if not 0 < args.tau < 1:
        p.error(f"--tau must be in (0, 1), got {args.tau}")
    try:
        spec = read_claims(args.claims)
        df = load(args.results)
        # the claims checked whole, on the results, before any is read
        check_claims(spec, solvers_by_dataset(df), args.claims)
        if args.summary:
            print(summary(df, spec, args.budget, args.only,
                          args.budget_reading))
        else:
            print(report(df, spec, args.budget, args.tau))
    except (OSError, ValueError) as err:
        p.error(str(err))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
