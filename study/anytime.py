"""Anytime performance over many targets: each solver's empirical
distribution of the work it needs to reach each of many targets, as
COCO/BBOB aggregates runtimes over targets (Hansen, Auger, Ros, Mersmann,
Tušar, Brockhoff, "COCO: a platform for comparing continuous optimizers
in a black-box setting", Optimization Methods and Software 36(1), 2021).

    python -m study.anytime [RESULTS ...] [--targets 31] [--lowest 1e-3] \
        [--figure PATH]

An instance is one (dataset, benchopt seed, repetition).  On it, H0 is
the starting point's H, the runs' first value (at 0 epochs; every solver
starts there; the largest if they differed, as ``study.verdicts._work``
reads it), and H_L the lowest H any solver reached before it diverged
(``study.budget_reading.sound_points``).  The stored
``objective_ref_x0_value`` is not used: it is H at the centre of the
starting-point draw (``benchmark_utils.reference_results``), not at an
instance's own x0 (on the stored Simulated results it differs from the
runs' first value by up to 190 %).  The targets are t_j = H_L + (H0 -
H_L) tau_j, tau_j = lowest^(j / (N - 1)), j = 0, ..., N - 1: from H0
(tau 1) down to H_L + lowest (H0 - H_L), log-spaced (default N = 31,
lowest = 1e-3: ten per decade).  A run reaches t_j at its first
evaluation before it diverged with H <= t_j; its cost is the epochs
drawn by then over the instance's budget (its grid's tuning budget,
``study.verdicts.budgets``), inf if never.  The anytime ECDF of a solver
at cost c is the share of the (instance, target) pairs of a task it
reached by c (a solver without a run on an instance reaches none of its
targets); pooled over tasks (``study.verdicts.task_of``) it is the mean
of the tasks' ECDFs, each task weighted equally as COCO weights its
functions (the number of instances per task is a choice of the study:
Fashion-MNIST has four files).  Its area is the integral of the ECDF
over log c from 1/64 of the budget to the largest cost any run reached,
over the length of that range: 1 for a solver that reached every target
by 1/64 of the budget, 0 for one that reached none.  The ablations'
variants (a label with "[", ``study.verdicts.label``) are no other
method: left out, and not counted in H_L.
"""
import argparse
import math

import numpy as np
import pandas as pd

from study import figure_file
from study.budget_reading import EPOCHS, sound_points
from study.summary import DATA, ROOT, number
from study.table import load
from study.verdicts import budgets, label, task_of
from tools.arguments import refuse_inputs

# the comparisons read (study.summary.RESULTS without the ablation's
# study_wine_noclip.parquet, whose solvers are all variants)
RESULTS = tuple(f"{DATA}/study_{name}.parquet" for name in (
    "fashion_p5", "fashion_p7", "fashion_p9", "digits", "breast_cancer",
    "wine", "Simulated", "fashion_l2_p9"))
COUNT, LOWEST = 31, 1e-3  # the default targets: ten per decade to 1e-3
LOW = 1 / 64  # the cost grid's first point, a share of the budget
PER_DOUBLING = 8  # the cost grid's points per doubling of the cost
READ = (0.25, 0.5, 1.0)  # the table's costs (then the end)
PNPBO = ("SPABA", "SFFBA", "MSEBA", "MA-SABA", "SRMBA")  # the paper's
POOLED = "pooled"


def levels(count=COUNT, lowest=LOWEST):
    """tau_j = lowest^(j / (count - 1)), j = 0, ..., count - 1: 1 down to
    ``lowest``, log-spaced (``[1]`` when ``count`` is 1)."""
    if count < 1 or not 0 < lowest < 1:
        raise ValueError(f"targets: count >= 1 and lowest in (0, 1), got "
                         f"{count}, {lowest}")
    if count == 1:
        return np.ones(1)
    return lowest ** (np.arange(count) / (count - 1))


def targets(h0, h_low, count=COUNT, lowest=LOWEST, taus=None):
    """t_j = h_low + (h0 - h_low) tau_j (``levels``, or ``taus``): from
    ``h0`` down to h_low + lowest (h0 - h_low)."""
    taus = levels(count, lowest) if taus is None else np.asarray(taus,
                                                                 float)
    return h_low + taus * (h0 - h_low)


def curve(run):
    """``(epochs, H)`` of a run's evaluations before it diverged, in
    epoch order (a missing H as inf: it reaches no target)."""
    sound, _ = sound_points(run)
    values = sound["objective_value"].to_numpy(dtype=float)
    return (sound[EPOCHS].to_numpy(dtype=float),
            np.where(np.isnan(values), np.inf, values))


def _hits(epochs, values, goals):
    """Epochs of the first point with H <= each goal (inf if none):
    the first index where the running minimum is <= the goal."""
    if not len(values):
        return np.full(len(goals), np.inf)
    best = -np.minimum.accumulate(values)  # non-decreasing
    first = np.searchsorted(best, -np.asarray(goals, float), side="left")
    padded = np.append(epochs, np.inf)
    return padded[first]


def hitting_costs(runs, goals, budget):
    """solvers x targets: the cost of each run of one instance (``runs``,
    {solver: its evaluations}) at each target of ``goals``, the epochs
    drawn by its first evaluation before it diverged with H <= the
    target, over ``budget``; inf where it never reached it."""
    rows = {s: _hits(*curve(run), goals) / budget for s, run in runs.items()}
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=range(len(goals)))


def instances(df, budget=None):
    """``[(task, instance, budget, {solver: (epochs, H)})]``: the sound
    curves (``curve``) of the solvers (``label``, the ablations' variants
    left out) on each instance of results ``df``, each with its grid's
    budget (``study.verdicts.budgets``, or ``budget`` epochs)."""
    out = []
    for part, b in budgets(df, budget):
        keys = ["dataset_name", "base_seed", "idx_rep"] \
            if "base_seed" in part else ["dataset_name", "idx_rep"]
        for key, inst in part.groupby(keys, sort=True, dropna=False):
            curves = {}
            for solver, run in inst.groupby("solver_name", sort=True):
                name = label(solver)
                if "[" in name:
                    continue
                if name in curves:
                    raise ValueError(f"results: {name} run twice on "
                                     f"instance {key} (two configurations "
                                     "of one solver): give the files of "
                                     "one study")
                curves[name] = curve(run)
            if curves:
                out.append((task_of(key[0]), key, float(b), curves))
    return out


def start_and_lowest(curves):
    """``(H0, H_L)`` of an instance: the largest first H of its runs and
    the lowest finite H any of them reached (NaN if none has a point)."""
    firsts = [v[0] for _, v in curves.values() if len(v)]
    finite = [v[np.isfinite(v)] for _, v in curves.values()]
    finite = [v for v in finite if len(v)]
    if not firsts or not finite:
        return np.nan, np.nan
    return max(firsts), min(float(v.min()) for v in finite)


def cost_table(df, count=COUNT, lowest=LOWEST, taus=None, budget=None):
    """{task: (instance, target) pairs x solvers}: each solver's cost at
    each target of each instance of results ``df`` (``hitting_costs``;
    inf where it never reached it or has no run there).  ``taus``: the
    targets' levels, ``levels(count, lowest)`` by default."""
    taus = levels(count, lowest) if taus is None else np.asarray(taus,
                                                                 float)
    return _tables(instances(df, budget), taus)


def _tables(found, taus):
    """``cost_table`` of ``instances``' ``found``."""
    by_task = {}
    for task, key, b, curves in found:
        h0, h_low = start_and_lowest(curves)
        if not np.isfinite(h0):
            continue
        goals = targets(h0, h_low, taus=taus)
        costs = {s: _hits(e, v, goals) / b for s, (e, v) in curves.items()}
        names = (["dataset", "seed", "rep"] if len(key) == 3
                 else ["dataset", "rep"]) + ["tau"]
        index = pd.MultiIndex.from_tuples([(*key, float(t)) for t in taus],
                                          names=names)
        by_task.setdefault(task, []).append(pd.DataFrame(costs, index=index))
    out = {}
    for task in sorted(by_task):
        table = pd.concat(by_task[task]).fillna(np.inf)
        out[task] = table[sorted(table.columns)]
    return out


def highest_cost(found):
    """The largest cost (epochs over the budget) of an evaluation before
    its run diverged, of ``instances``' ``found``: where the results
    end."""
    return max(float(e[-1]) / b for _, _, b, curves in found
               for e, _ in curves.values() if len(e))


def cost_grid(high, low=LOW, per_doubling=PER_DOUBLING):
    """Shares of the budget: low 2^(k / per_doubling) up to ``high``,
    then ``high`` (holds 1/4, 1/2 and 1 with the defaults)."""
    if not high > low:
        raise ValueError(f"the cost grid ends at {high}, not past its "
                         f"start {low}")
    k = np.arange(math.floor(per_doubling * math.log2(high / low)
                             + 1e-9) + 1)
    grid = low * 2.0 ** (k / per_doubling)
    grid = grid[grid < high * (1 - 1e-12)]
    return np.append(grid, high)


def ecdf(costs, grid):
    """grid x solvers: the share of the rows of ``costs`` (pairs x
    solvers) at or below each cost of ``grid``."""
    values = np.asarray(costs, float)
    if values.ndim == 1:
        values = values[:, None]
    grid = np.asarray(grid, float)
    shares = (values[None, :, :] <= grid[:, None, None]).mean(axis=1)
    columns = costs.columns if isinstance(costs, pd.DataFrame) \
        else range(values.shape[1])
    return pd.DataFrame(shares, index=pd.Index(grid, name="cost"),
                        columns=columns)


def area(costs, low, high):
    """Per solver, the integral of its ECDF over log c from ``low`` to
    ``high``, over log(high / low): the mean over the pairs of
    log(high / max(c, low)) / log(high / low), 0 past ``high`` (exact:
    the ECDF is a step function)."""
    values = np.asarray(costs, float)
    if values.ndim == 1:
        values = values[:, None]
    span = math.log(high / low)
    with np.errstate(divide="ignore"):
        part = np.log(high / np.maximum(values, low)) / span
    part = np.clip(np.where(values <= high, part, 0.0), 0.0, 1.0)
    index = costs.columns if isinstance(costs, pd.DataFrame) \
        else range(values.shape[1])
    return pd.Series(part.mean(axis=0), index=index)


def profiles(tables, grid, low, high):
    """{task, and ``POOLED``: (ECDF on ``grid``, area over [low, high],
    pairs, instances)}; pooled, each task weighted equally (the mean of
    the tasks' ECDFs and areas, a solver absent from a task at 0
    there)."""
    solvers = sorted({s for t in tables.values() for s in t.columns})
    out = {}
    for task, table in tables.items():
        table = table.reindex(columns=solvers, fill_value=np.inf)
        inst = len(table.index.droplevel(-1).unique())
        out[task] = (ecdf(table, grid), area(table, low, high), len(table),
                     inst)
    if len(tables) > 1:
        out[POOLED] = (sum(out[t][0] for t in tables) / len(tables),
                       sum(out[t][1] for t in tables) / len(tables),
                       sum(out[t][2] for t in tables),
                       sum(out[t][3] for t in tables))
    return out


def read(df, count=COUNT, lowest=LOWEST, budget=None):
    """``(profiles, grid, taus)`` of results ``df`` (``profiles`` over
    ``cost_grid`` up to where the results end, ``highest_cost``)."""
    found = instances(df, budget)
    tables = _tables(found, levels(count, lowest))
    if not tables:
        raise ValueError("results: no instance with a solver's run (the "
                         "ablations' variants are left out)")
    high = highest_cost(found)
    grid = cost_grid(high)
    return profiles(tables, grid, LOW, high), grid, levels(count, lowest)


def markdown(found, grid, taus):
    """A table per task, then the pooled one: a row per solver sorted by
    area; its area, the shares of pairs reached by ¼, ½ and the whole
    budget and by the end (the grid's last cost)."""
    high = float(grid[-1])
    pairs = sum(found[t][2] for t in found if t != POOLED)
    inst = sum(found[t][3] for t in found if t != POOLED)
    lines = [
        f"**Anytime profiles** (COCO, Hansen et al. 2021): {len(taus)} "
        f"targets per instance, t = H_L + tau (H0 − H_L) with tau from 1 "
        f"to {number(float(taus[-1]))} log-spaced "
        f"({number((len(taus) - 1) / -math.log10(taus[-1]))} per decade); "
        f"H0 the runs' first H, H_L the lowest any solver reached. Cost: "
        f"epochs over the budget, on {len(grid)} points from 1/64 to "
        f"{number(high, 3)} (the last evaluation of the longest run), "
        f"{PER_DOUBLING} per doubling; area: the ECDF's integral over log "
        f"cost on that range, over its length. {inst} instances, {pairs} "
        "(instance, target) pairs; pooled, each task weighted equally."]
    for task in [t for t in found if t != POOLED] + (
            [POOLED] if POOLED in found else []):
        table, areas, n_pairs, n_inst = found[task]
        name = "Pooled over the tasks" if task == POOLED else task
        lines += ["", f"**{name}** ({n_inst} instances, {n_pairs} pairs)",
                  "", "| solver | area | by ¼ | by ½ | by the budget | "
                  "by the end of its runs |",
                  "|---|---|---|---|---|---|"]
        at = ecdf_at(table, [*READ, high])
        order = sorted(areas.index, key=lambda s: (-round(areas[s], 12), s))
        for s in order:
            cells = [number(areas[s], 3)] + [number(v) for v in at[s]]
            lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ecdf_at(table, costs):
    """The rows of an ECDF (``ecdf``'s, on a grid holding ``costs``) at
    ``costs``; past the grid's end, its last row (no run goes further)."""
    grid = table.index.to_numpy()
    costs = np.minimum(costs, grid[-1])
    rows = [int(np.argmin(np.abs(grid - c))) for c in costs]
    if not np.allclose(grid[rows], costs, rtol=1e-9, atol=0):
        raise ValueError(f"the cost grid lacks one of {list(costs)}")
    return table.iloc[rows]


def report(df, count=COUNT, lowest=LOWEST, budget=None):
    """The command's Markdown for results ``df``."""
    return markdown(*read(df, count, lowest, budget))


def figure(found, grid, path, report=""):
    """One panel per task and one pooled: each solver's ECDF against the
    cost (log axis), the budget a vertical line; the PnPBO solvers
    solid, the baselines dashed; the PNG holds the fingerprint of
    ``report`` (``study.figure_file``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (matplotlib.ticker below)
    panels = list(found)
    solvers = sorted({s for t in found.values() for s in t[0].columns})
    # the paper's solvers and the baselines each in tab10's colours
    colours = plt.get_cmap("tab10").colors
    ours = [s for s in solvers if s in PNPBO]
    theirs = [s for s in solvers if s not in PNPBO]
    colour = {s: colours[i % len(colours)] for group in (ours, theirs)
              for i, s in enumerate(group)}
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    fig, axes = plt.subplots(rows, columns, sharey=True, squeeze=False,
                             figsize=(4.2 * columns, 3.1 * rows + 0.9))
    for ax, task in zip(axes.flat, panels):
        table, areas, n_pairs, n_inst = found[task]
        for s in solvers:
            ax.step(grid, table[s], where="post", color=colour[s],
                    lw=1.5 if s in PNPBO else 1.1,
                    ls="-" if s in PNPBO else "--", label=s)
        ax.axvline(1.0, color="black", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlim(grid[0], grid[-1])
        ax.set_ylim(0, 1)
        ticks = [t for t in (1 / 64, 1 / 16, 1 / 4, 1) if t <= grid[-1]]
        ax.set_xticks(ticks, ["1/64", "1/16", "1/4", "1"][:len(ticks)])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(("pooled (tasks weighted equally)" if task == POOLED
                      else task) + f": {n_inst} instances", fontsize=9)
        ax.set_xlabel("epochs / budget", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(color="#eeeeee")
    for ax in axes[:, 0]:
        ax.set_ylabel("share of (instance, target) pairs", fontsize=8)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    handles, names = axes.flat[0].get_legend_handles_labels()
    order = sorted(range(len(names)),
                   key=lambda i: (names[i] not in PNPBO, names[i]))
    fig.legend([handles[i] for i in order], [names[i] for i in order],
               loc="lower center", ncol=8, fontsize=7, frameon=False)
    fig.suptitle("Anytime ECDF: the share of targets reached by each cost "
                 "(PnPBO solvers solid, baselines dashed)", fontsize=10)
    fig.subplots_adjust(left=0.06, right=0.99, top=0.9, bottom=0.17,
                        hspace=0.45, wspace=0.06)
    figure_file.save(fig, path, report, dpi=72)
    plt.close(fig)


def _count(text):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 2:
        raise argparse.ArgumentTypeError(
            f"the number of targets is an integer >= 2, got {text!r}")
    return value


def _lowest(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"the lowest target level is a number in (0, 1), got {text!r}")
    return value


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.anytime",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="*",
                   help="comparison results (default: the study's, "
                        f"{', '.join(RESULTS)})")
    p.add_argument("--targets", type=_count, default=COUNT,
                   help=f"targets per instance, an integer >= 2 (default "
                        f"{COUNT})")
    p.add_argument("--lowest", type=_lowest, default=LOWEST,
                   help=f"the lowest target's tau, in (0, 1) (default "
                        f"{LOWEST:g})")
    p.add_argument("--figure", metavar="PNG",
                   help="also draw the ECDFs to this PNG")
    args = p.parse_args(argv)
    paths = list(args.results) or [str(ROOT / r) for r in RESULTS]
    if args.figure is not None and not args.figure.endswith(".png"):
        p.error(f"--figure {args.figure}: the figure is a PNG (end it "
                "with .png)")
    refuse_inputs(p, {"--figure": args.figure}, {"the results": paths})
    try:
        found, grid, taus = read(load(paths), args.targets, args.lowest)
    except (OSError, ValueError) as err:
        p.error(str(err))
    text = markdown(found, grid, taus)
    print(text)
    if args.figure:
        figure(found, grid, args.figure, text)
        print(f"\nfigure written to {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
