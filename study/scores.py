"""One overall score per solver, with its uncertainty, from the stored
comparisons, in the manner of rliable (Agarwal, Schwarzer, Castro,
Courville & Bellemare, "Deep reinforcement learning at the edge of the
statistical precipice", NeurIPS 2021) and AlgoPerf.

    python -m study.scores [RESULTS ...] [--resamples 2000] [--seed 0] \
        [--ratio 16]

- Normalized score of solver s on instance p (a dataset, seed and
  repetition) for a reading v (H, or the test error of y*(x), at the
  budget): s = (x0 - v) / (x0 - best), x0 the starting point's value,
  best the lowest finite value any scored solver read there.  1: the
  instance's best; 0: no better than x0; below 0: worse than x0.
- Interquartile mean (IQM) of a solver's scores over its instances,
  pooled over the tasks, with a stratified bootstrap percentile interval
  (instances resampled within each task, the same ones for every solver).
- Probability of improvement P(A > B) of each PnPBO solver over its
  rival, picked per task on held-out splits (``study/claims.yml``'s
  ``rivals``), never on the instances it is compared on.
- Area under the performance profile (Dolan & More 2002) of the work to
  reach the target of ``study.verdicts.work_to_reach``.

The ablations' variants ("SPABA[R=inf]", all of ``wine_noclip``) are no
other method: they are left out of every score, and so is ``wine_noclip``
from the default results.
"""
import argparse
import functools
import math
import re
import warnings
from collections import namedtuple

import numpy as np
import pandas as pd

from study import verdicts
from study.claims import held_out, read_claims
from study.summary import RESULTS, ROOT, number
from study.table import QUALITIES, load

RESAMPLES = 2000
SEED = 0
LEVEL = 0.95
TAU = 0.1  # the target of the performance profile (work_to_reach)
RATIO_MAX = 16.0
PNPBO = ("SPABA", "SFFBA", "MSEBA", "MA-SABA", "SRMBA")
# the readings scored: (runs' column, name)
READINGS = (("h_budget", "H"), ("err_budget", "test error"))
# the default results: the study's comparisons without the ablation's
SCORED = tuple(p for p in RESULTS if "wine_noclip" not in p)
CAVEAT = (
    "**Caveat.** These scores are relative to the solvers compared.  Below "
    "its top (who is fastest), the ranking a performance profile gives can "
    "change when a solver is added or removed, even one that wins nowhere "
    "(Dolan & Moré 2002; Gould & Scott, \"A note on performance profiles "
    "for benchmarking software\", ACM TOMS 2016; nested performance "
    "profiles, arXiv:1809.06270), and so can its area.  The normalized "
    "scores depend on the solver set too: each instance's best is the "
    "best of the solvers in the comparison, so adding a better solver "
    "lowers everyone's scores there, and the IQMs with them.")

Normalized = namedtuple("Normalized", "scores diverged stopped dropped")
Normalized.__doc__ = """``normalized_scores``' result: ``scores``
(instances x solvers, a diverged run at its instance's floor, a run
stopped before the reading NaN), ``diverged`` and ``stopped`` (instances x
solvers, booleans) and ``dropped`` (the instances where no solver improved
on x0, left out)."""


def _ablation(solver):
    return "[" in str(solver)


def x0_column(quantity):
    """(the results' column of a reading ``quantity``, its scale):
    ``objective_value`` for H, ``objective_test_error`` x 100 for the test
    error (%)."""
    key = quantity.split("_")[0]
    for name, metric, scale in QUALITIES:
        if name == key and name != "own":
            return metric, scale
    raise ValueError(f"{quantity}: no starting-point value (readings with "
                     "one: h_*, err_*)")


def with_x0(runs, df):
    """``runs`` (``verdicts.readings`` of ``df``) with the starting
    point's value of each reading, ``x0_h`` and ``x0_err``: the value at
    every run's first evaluation, at 0 epochs (not the results'
    ``objective_ref_x0_*``, the centre the starting points are drawn
    around); a ValueError if a run has no evaluation at 0 epochs or the
    runs of an instance start from different values."""
    keys = ["dataset_name", "base_seed", "idx_rep"]
    frame = df.assign(base_seed=df["base_seed"].fillna(-1)
                      if "base_seed" in df else -1)
    epochs = frame["objective_epochs"].astype(float)
    first = epochs.groupby([frame[k] for k in keys + ["solver_name"]],
                           dropna=False).transform("min")
    if (first > 0).any():
        raise ValueError("a run has no evaluation at 0 epochs: no value "
                         "of its starting point")
    frame = frame[epochs == 0]
    out = runs.assign(_seed=runs["seed"].fillna(-1))
    for key in ("h", "err"):
        column, scale = x0_column(key + "_budget")
        values = frame[column].astype(float) * scale
        grouped = values.groupby([frame[k] for k in keys], dropna=False)
        spread = (grouped.max() - grouped.min()).fillna(0.0)
        if (spread > 1e-9 * grouped.max().abs().fillna(0.0) + 1e-12).any():
            raise ValueError(f"{column} at 0 epochs varies within an "
                             f"instance ({spread.idxmax()}): not one "
                             "starting point")
        x0 = grouped.first().rename(f"x0_{key}")
        x0.index.names = ["dataset", "_seed", "rep"]
        out = out.drop(columns=[x0.name], errors="ignore").merge(
            x0.reset_index(), on=["dataset", "_seed", "rep"], how="left")
    return out.drop(columns="_seed")


def normalized_scores(runs, quantity):
    """Scores s = (x0 - v) / (x0 - best) of the reading ``quantity`` of
    ``runs`` (with ``with_x0``'s column ``x0_h`` or ``x0_err``), as a
    ``Normalized``; the ablations' variants left out.

    best: the lowest finite value of the instance's solvers.  Floor: a run
    that diverged scores min(0, the instance's worst finite score), never
    above x0 and never above a run that finished.  An instance where no
    solver improved on x0 (best >= x0) has no scale: dropped and counted.
    A run stopped before the reading (not by its stopping rule) stays NaN
    (missing), counted in ``stopped``."""
    table = verdicts.instance_table(runs, quantity)
    table = table[[s for s in table.columns if not _ablation(s)]]
    stopped = verdicts.stopped_table(runs, quantity).reindex(
        index=table.index, columns=table.columns, fill_value=False)
    diverged = table == np.inf
    key = "x0_" + quantity.split("_")[0]
    x0 = runs.assign(seed=runs["seed"].fillna(-1)).groupby(
        verdicts.INSTANCE)[key]
    if (x0.nunique(dropna=False) > 1).any():
        raise ValueError(f"{key} varies within an instance")
    x0 = x0.first().reindex(table.index).to_numpy(dtype=float)
    values = table.to_numpy(dtype=float)
    finite = np.where(np.isfinite(values), values, np.nan)
    with np.errstate(all="ignore"):
        best = np.nanmin(np.where(np.isnan(finite), np.inf, finite), axis=1)
        scale = x0 - best
        score = (x0[:, None] - finite) / scale[:, None]
    valid = np.isfinite(x0) & (scale > 0)
    drop = np.isfinite(x0) & ~(scale > 0)
    worst = np.nanmin(np.where(np.isnan(score), np.inf, score), axis=1)
    floor = np.minimum(0.0, np.where(np.isfinite(worst), worst, 0.0))
    score = np.where(diverged.to_numpy(), floor[:, None], score)
    score[~valid] = np.nan
    scores = pd.DataFrame(score, index=table.index, columns=table.columns)
    return Normalized(scores, diverged & valid[:, None], stopped,
                      table.index[drop])


def iqm(values, axis=0):
    """Interquartile mean along ``axis``, NaN ignored: with the n values
    sorted and g = floor(n / 4), the mean of x_(g+1) ... x_(n-g) (as
    ``scipy.stats.trim_mean(x, 0.25)``, rliable's IQM); NaN when n = 0."""
    values = np.moveaxis(np.asarray(values, dtype=float), axis, -1)
    ordered = np.sort(values, axis=-1)  # NaN last
    n = (~np.isnan(values)).sum(axis=-1, keepdims=True)
    cut = n // 4
    position = np.arange(values.shape[-1])
    keep = (position >= cut) & (position < n - cut)
    total = np.where(keep, ordered, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / keep.sum(axis=-1)


def stratified_bootstrap(strata, resamples=RESAMPLES, seed=SEED):
    """Positions of ``resamples`` stratified bootstrap samples, an int
    array (resamples, n): column j draws, with replacement, one of the
    positions of ``strata[j]``'s stratum, so every resample holds as many
    draws from each stratum as the data (``strata[out] == strata``).  Seeded
    ``numpy.random.default_rng(seed)``."""
    strata = np.asarray(strata)
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, len(strata)), dtype=np.intp)
    for stratum in dict.fromkeys(strata.tolist()):
        mine = np.flatnonzero(strata == stratum)
        out[:, mine] = mine[rng.integers(0, len(mine),
                                         (resamples, len(mine)))]
    return out


def bootstrap_interval(statistic, values, strata, resamples=RESAMPLES,
                       seed=SEED, level=LEVEL):
    """``(estimate, low, high)``: ``statistic`` of ``values`` (instances
    first; ``statistic`` maps (samples, instances, ...) to (samples,
    ...)) and its percentile interval at ``level`` over the stratified
    bootstrap (``stratified_bootstrap``) of its instances."""
    values = np.asarray(values, dtype=float)
    estimate = statistic(values[None])[0]
    drawn = statistic(values[stratified_bootstrap(strata, resamples, seed)])
    tail = (1 - level) / 2
    with warnings.catch_warnings():  # a solver without a value: NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(drawn, [tail, 1 - tail], axis=0)
    return estimate, low, high


def probability_of_improvement(a, b, strata):
    """P(A > B) = P(a > b) + P(a = b) / 2 over the paired instances (the
    last axis; a pair with a NaN is left out), the share of each stratum's
    instances where A scores above B, ties counting half, then averaged
    over the strata with a pair (each task weighs the same, as in
    rliable, whose P compares every run of A with every run of B of a
    task; here the runs are paired by instance).  Higher is better."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    strata = np.asarray(strata)
    paired = ~(np.isnan(a) | np.isnan(b))
    wins = np.where(paired, (a > b) + 0.5 * (a == b), 0.0)
    means = []
    for stratum in dict.fromkeys(strata.tolist()):
        mine = strata == stratum
        with np.errstate(invalid="ignore", divide="ignore"):
            means.append(wins[..., mine].sum(axis=-1)
                         / paired[..., mine].sum(axis=-1))
    if not means:
        return np.nan
    with warnings.catch_warnings():  # a resample without a pair: NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.stack(means), axis=0)


def profile_area(work, ratio_max=RATIO_MAX):
    """Area under each solver's performance profile (Dolan & More 2002),
    rho_s(r) = share of instances with work_ps <= r min_s' work_ps', over
    log2 r in [0, log2 r_max], divided by log2 r_max (in [0, 1]): exactly,
    the mean over the instances of clip(1 - log2(r_ps) / log2(r_max), 0,
    1), a failed run (inf) 0.  ``work``: instances x solvers (NaN: not
    run there, left out); a work of 0 counts as the table's least positive
    work, as in ``verdicts.profiles``."""
    values = work.to_numpy(dtype=float)
    run = ~np.isnan(values)
    positive = values[run & (values > 0) & np.isfinite(values)]
    values = np.maximum(values, positive.min() if positive.size else 1.0)
    values = np.where(run, values, np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = values / values.min(axis=1, keepdims=True)
        share = 1 - np.log2(ratio) / math.log2(ratio_max)
    share = np.clip(np.nan_to_num(share, nan=0.0, neginf=0.0), 0, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        area = np.where(run, share, 0.0).sum(axis=0) / run.sum(axis=0)
    return pd.Series(area, index=work.columns)


def tasks_of(index):
    """The task (``verdicts.task_of``) of each instance of ``index``."""
    return np.array([verdicts.task_of(d)
                     for d in index.get_level_values("dataset")])


def held_out_rivals(scores, a, rivals):
    """{dataset: rival of ``a`` there}: for the datasets of each
    ``rivals`` entry (``study/claims.yml``), the other solver of
    ``scores``' columns (no ablation variant) with the lowest criterion on
    the entry's held-out splits (``claims.held_out``); a dataset no entry
    matches has none."""
    datasets = list(dict.fromkeys(scores.index.get_level_values("dataset")))
    out = {}
    for entry in rivals:
        mine = [d for d in datasets if d not in out
                and re.search(entry["tasks"], str(d))]
        if not mine:
            continue
        rows = scores[scores.index.get_level_values("dataset").isin(mine)]
        others = [s for s in rows if s != a and not _ablation(s)
                  and rows[s].notna().any()]
        criterion = held_out(tuple(entry["confirmations"]))
        known = [s for s in others if s in criterion]
        if not known:
            raise ValueError(f"rivals: {entry['confirmations']} confirm "
                             f"none of {others}: no rival of {a} there")
        rival = min(known, key=lambda s: (criterion[s], s))
        out.update({d: rival for d in mine})
    return out


def rival_text(picked):
    """"task: rival; ..." of {dataset: rival}; a task whose datasets have
    different rivals is split by the dataset parameters that tell them
    apart ("mnist[l2_reg=0.2]: SOBA")."""
    by_task = {}
    for dataset, rival in picked.items():
        by_task.setdefault(verdicts.task_of(dataset), {}).setdefault(
            rival, []).append(dataset)
    parts = []
    for task, groups in by_task.items():
        if len(groups) == 1:
            parts.append(f"{task}: {next(iter(groups))}")
            continue
        params = {r: [dict(re.findall(r"([^,\[\]=]+)=([^,\[\]]*)", str(d)))
                      for d in ds] for r, ds in groups.items()}
        telling = [k for k in params[next(iter(params))][0]
                   if all(len({p.get(k) for p in ps}) == 1
                          for ps in params.values())
                   and len({ps[0].get(k) for ps in params.values()})
                   == len(params)]
        for rival, ps in params.items():
            name = (f"{task}[{','.join(f'{k}={ps[0][k]}' for k in telling)}]"
                    if telling else " / ".join(map(str, groups[rival])))
            parts.append(f"{name}: {rival}")
    return "; ".join(parts)


def _iqm_rows(scores, resamples, seed):
    """{solver: (IQM, low, high)} of ``scores`` (instances with a score)."""
    kept = scores[scores.notna().any(axis=1)]
    estimate, low, high = bootstrap_interval(
        lambda x: iqm(x, axis=-2), kept.to_numpy(), tasks_of(kept.index),
        resamples, seed)
    return {s: (estimate[i], low[i], high[i])
            for i, s in enumerate(kept.columns)}


def _improvement(normalized, a, picked, resamples, seed):
    """(P(A > rival), low, high, pairs) on ``normalized``'s instances, a
    diverged run at -inf (below every finished run, tied with another
    diverged one: the readings' order)."""
    scores = normalized.scores.where(~normalized.diverged, -np.inf)
    datasets = scores.index.get_level_values("dataset")
    b = np.array([scores.at[i, picked[d]] if d in picked else np.nan
                  for i, d in zip(scores.index, datasets)], dtype=float)
    pairs = np.column_stack([scores[a].to_numpy(dtype=float), b])
    keep = ~np.isnan(pairs).any(axis=1)
    if not keep.any():
        return (np.nan, np.nan, np.nan, 0)
    strata = tasks_of(scores.index)[keep]
    estimate, low, high = bootstrap_interval(
        lambda x: probability_of_improvement(x[..., 0], x[..., 1], strata),
        pairs[keep], strata, resamples, seed)
    return (float(estimate), float(low), float(high), int(keep.sum()))


Overall = namedtuple("Overall", "solvers improvement counts")
Overall.__doc__ = """``overall``'s result: ``solvers`` (a row per
solver: iqm_h, iqm_h_low, iqm_h_high, the same of ``err``, area, n_h,
n_err, diverged, stopped), ``improvement`` (a row per PnPBO solver: rival,
p_h, p_h_low, p_h_high, n_h, the same of ``err``) and ``counts``
({reading: (instances scored, instances dropped, the tasks without the
reading)})."""


def overall(df, runs=None, work=None, resamples=RESAMPLES, seed=SEED,
            ratio_max=RATIO_MAX, claims=verdicts.CLAIMS):
    """The scores of the results ``df`` as an ``Overall`` (``runs``:
    ``verdicts.readings(df)``, ``work``: ``work_to_reach(df, TAU)``, if
    already read)."""
    runs = with_x0(verdicts.readings(df) if runs is None else runs, df)
    work = verdicts.work_to_reach(df, TAU) if work is None else work
    work = work[[s for s in work.columns if not _ablation(s)]]
    rivals = read_claims(claims).get("rivals") or []
    normalized, rows, counts = {}, {}, {}
    for quantity, _ in READINGS:
        key = quantity.split("_")[0]
        found = normalized[key] = normalized_scores(runs, quantity)
        scored = found.scores.notna().any(axis=1)
        unread = ~scored & ~found.scores.index.isin(found.dropped)
        counts[key] = (int(scored.sum()), len(found.dropped), list(
            dict.fromkeys(tasks_of(found.scores.index[unread]))))
        for s, (m, lo, hi) in _iqm_rows(found.scores, resamples,
                                        seed).items():
            row = rows.setdefault(s, {})
            row.update({f"iqm_{key}": m, f"iqm_{key}_low": lo,
                        f"iqm_{key}_high": hi,
                        f"n_{key}": int(found.scores[s][scored].notna().sum()
                                        + found.stopped[s][scored].sum())})
    h = normalized["h"]
    area = profile_area(work, ratio_max)
    for s, row in rows.items():
        row.update(area=float(area.get(s, np.nan)),
                   diverged=int(h.diverged[s].sum()),
                   stopped=int(h.stopped[s].sum()))
    solvers = pd.DataFrame.from_dict(rows, orient="index").sort_values(
        ["iqm_h", "iqm_err"], ascending=False, kind="stable")
    improvement = []
    for a in PNPBO:
        if a not in h.scores:
            continue
        picked = held_out_rivals(h.scores, a, rivals)
        row = dict(solver=a, rival=rival_text(picked))
        for key, found in normalized.items():
            p, lo, hi, n = _improvement(found, a, picked, resamples, seed)
            row.update({f"p_{key}": p, f"p_{key}_low": lo,
                        f"p_{key}_high": hi, f"n_{key}": n})
        improvement.append(row)
    return Overall(solvers, pd.DataFrame(improvement), counts)


def _cell(value, low, high, digits=2):
    if np.isnan(value):
        return "—"
    return (f"{number(value, digits)} "
            f"[{number(low, digits)}, {number(high, digits)}]")


def markdown(found, resamples=RESAMPLES, seed=SEED, ratio_max=RATIO_MAX):
    """``overall``'s tables, the caveat and the statistics, as Markdown."""
    level = f"{LEVEL:.0%}"
    lines = [f"| solver | IQM of H's score [{level}] | IQM of test error's "
             f"score [{level}] | area under the performance profile | "
             "instances (H / test error) | diverged / stopped |",
             "|---|---|---|---|---|---|"]
    for r in found.solvers.itertuples():
        lines.append(
            f"| {r.Index} | {_cell(r.iqm_h, r.iqm_h_low, r.iqm_h_high, 3)} | "
            f"{_cell(r.iqm_err, r.iqm_err_low, r.iqm_err_high, 3)} | "
            f"{'—' if np.isnan(r.area) else number(r.area)} | "
            f"{r.n_h} / {r.n_err} | {r.diverged} / {r.stopped} |")
    lines += ["", f"| PnPBO solver A | its rival B per task (held-out "
              f"splits) | P(A > B), H [{level}] | P(A > B), test error "
              f"[{level}] | pairs (H / test error) |",
              "|---|---|---|---|---|"]
    for r in found.improvement.itertuples():
        lines.append(f"| {r.solver} | {r.rival} | "
                     f"{_cell(r.p_h, r.p_h_low, r.p_h_high)} | "
                     f"{_cell(r.p_err, r.p_err_low, r.p_err_high)} | "
                     f"{r.n_h} / {r.n_err} |")
    (n_h, drop_h, _), (n_err, drop_err, unread) = (found.counts["h"],
                                                   found.counts["err"])
    unread = (f" ({', '.join(unread)} has none)" if len(unread) == 1 else
              f" ({', '.join(unread)} have none)" if unread else "")
    lines += ["", CAVEAT, "", (
        "**The statistics.** On each instance (a dataset, seed and "
        "repetition), a solver's reading v at the budget (H; the test "
        "error of y*(x), %) is scored s = (x0 − v) / (x0 − best): x0 the "
        "starting point's value, best the lowest finite value any solver "
        "above read there (1: the instance's best; 0: no better than x0; "
        "below 0: worse).  A run that diverged scores min(0, the "
        "instance's worst finite score); one stopped before the reading "
        "(not by its stopping rule) is missing; an instance where no "
        "solver improved on x0 is left out (H: "
        f"{drop_h}, test error: {drop_err}), leaving {n_h} instances for H "
        f"and {n_err} for the test error{unread}.  The IQM is "
        "the mean of the middle half of a solver's scores over its "
        "instances, all tasks pooled (g = ⌊n/4⌋ cut from each end, as "
        "scipy.stats.trim_mean(x, 0.25)).  P(A > B) is the share of "
        "instances where A scores above B (ties: half; a diverged run "
        "below every finished one), per task, averaged over the tasks; B "
        "is A's rival per task, the other solver whose confirmed winner "
        "has the lowest criterion on held-out splits (study/claims.yml's "
        "rivals), picked before these instances are read.  The intervals "
        f"are {level} percentile intervals of a stratified bootstrap: "
        f"{resamples} resamples of the instances within each task (the "
        "same for every solver, so they stay paired), "
        f"numpy.random.default_rng({seed}).  The area under the "
        "performance profile is the integral of ρ_s(r) (the share of "
        "instances where the solver's work to come within "
        f"τ = {TAU:g} of the best reduction of H is at most r times the "
        f"fastest's) over log2 r in [0, log2 {ratio_max:g}], over "
        f"log2 {ratio_max:g}.  Agarwal et al., \"Deep reinforcement "
        "learning at the edge of the statistical precipice\", NeurIPS "
        "2021; Dolan & Moré 2002.")]
    return "\n".join(lines)


@functools.lru_cache(maxsize=2)
def _read(results):
    """(results, their readings, their work to reach tau), cached."""
    paths = [str(ROOT / p) if results == SCORED else p for p in results]
    df = load(paths)
    return df, verdicts.readings(df), verdicts.work_to_reach(df, TAU)


def report(results=SCORED, resamples=RESAMPLES, seed=SEED,
           ratio_max=RATIO_MAX, claims=verdicts.CLAIMS):
    """The Markdown of ``overall`` on the result files ``results`` (a
    tuple; default: the study's comparisons, read from the repository)."""
    df, runs, work = _read(tuple(results))
    found = overall(df, runs, work, resamples, seed, ratio_max, claims)
    return markdown(found, resamples, seed, ratio_max)


def integer_from(option, least):
    """An argparse type: an integer >= ``least``, else an error naming
    ``option``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(
                f"{option} must be an integer >= {least}, got {text!r}")
        return value
    return parse


def ratio_above_one(text):
    """An argparse type for ``--ratio``: a finite number > 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1):
        raise argparse.ArgumentTypeError(
            f"--ratio must be a finite number > 1, got {text!r}")
    return value


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.scores",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="*",
                   help="comparison results (default: the study's, "
                        f"{', '.join(SCORED)})")
    p.add_argument("--resamples", type=integer_from("--resamples", 1),
                   default=RESAMPLES,
                   help=f"bootstrap resamples, an integer >= 1 (default "
                        f"{RESAMPLES})")
    p.add_argument("--seed", type=integer_from("--seed", 0), default=SEED,
                   help=f"the bootstrap's seed, an integer >= 0 (default "
                        f"{SEED})")
    p.add_argument("--ratio", type=ratio_above_one, default=RATIO_MAX,
                   help="r_max of the performance profile's area, a finite "
                        f"number > 1 (default {RATIO_MAX:g})")
    args = p.parse_args(argv)
    try:
        print(report(tuple(args.results) or SCORED, args.resamples,
                     args.seed, args.ratio))
    except (OSError, ValueError) as err:
        p.error(str(err))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
