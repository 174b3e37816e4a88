"""What a tuning run leaves: the record of its studies (JSON, next to the
storage), the run config of each solver's best configuration, and the
``TUNED`` entry of ``benchmark_utils/tuned.py`` to paste.

The run config evaluates every solver on the same grid of sample
evaluations through the Objective's ``eval_epochs``: callback call c of
every solver is evaluated at the first iteration end where the solver has
drawn c * eval_epochs epochs; benchopt evaluates at calls 0, 1, 2, 3, 4,
6, 9, ..., 42, 63, 94 (x1.5; 13 points with ``max-runs: 12``), so
``eval_epochs = epochs / CALLS_AT_BUDGET`` puts call 63 at the tuning's
epoch budget and the last point at 1.5 times it, whatever an iteration
of each solver costs.

Every solver is ranked on its counted trials within its budget (by trial
number: ``work.ranked``, the trials whose charges stay within ``--trials``
x ``--epochs`` epochs; under ``--budget trials``, the first ``trials``),
so that budgets stay equal even when a study holds more; the best is the
complete trial of lowest criterion (pruned and diverged trials are never
ranked).  Each solver's record says the epochs its ranked trials were
charged and drew (``work``), the best's parameters on an edge of their
range (``edges``) and whether it was still improving at the end
(``adequacy``).
"""
import datetime
import json
import lzma
import math
import os
import stat
import tempfile
import textwrap
from pathlib import Path

from optuna.trial import TrialState

from benchmark_utils.tuned import TUNABLE

from . import work as budget
from .adequacy import adequacy
from .edges import done as edges_done, edge_lines, edges
from .first import ATTRIBUTE as FIRST_ATTRIBUTE
from .study import COUNTED, load_study, open_storage

CALLS_AT_BUDGET = 63  # the callback call of benchopt's 12th point
# benchopt's --seed of the written config: its repetitions draw splits and
# starting points the trials were not scored on (those of the default
# seed's first repetitions, ``run.BASE_SEED``)
COMPARISON_SEED = 1
MAX_RUNS = 12  # benchopt's -n: points at calls 0, 1, ..., 63, 94
HORIZON = 1.5  # the last point (call 94 of 63), in tuning budgets
CALLS_AT_END = 94  # the callback call of the last point
OBJECTIVE = "Bilevel Optimization"  # the benchmark's Objective
# a comparison's runs are bounded in work (max-runs), not in seconds: a
# timeout would end a run on a loaded machine before its budget
NO_TIMEOUT_NOTE = ("# no timeout: max-runs bounds each run; benchopt's "
                   "100 s cut slow ones short of the budget")


def _trial_row(t, settings, ranked):
    attrs = t.user_attrs
    return dict(number=t.number, state=t.state.name.lower(),
                criterion=t.value if t.state == TrialState.COMPLETE else None,
                parameters=attrs.get("parameters"),
                excluded=attrs.get("excluded"),
                pruned_at_epochs=attrs.get("pruned_at_epochs"),
                seconds=attrs.get("seconds"),
                solver_seconds=attrs.get("solver_seconds"),
                charged_epochs=budget.charged(t, settings),
                epochs_drawn=attrs.get(budget.DRAWN),
                ranked=t.number in ranked,
                first=attrs.get(FIRST_ATTRIBUTE))  # a known point's source


def ranked_trials(counted, settings):
    """The counted trials (by number) a solver is ranked on."""
    if settings.budget == "trials":
        return counted[:settings.trials]
    return budget.ranked(counted, settings)


def solver_record(study, settings, solver):
    """The record of one solver's study."""
    trials = sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)
    counted = [t for t in trials if t.state in COUNTED]
    ranked = ranked_trials(counted, settings)
    complete = [t for t in ranked if t.state == TrialState.COMPLETE]
    best = min(complete, key=lambda t: t.value, default=None)
    diverged = sum(t.state == TrialState.PRUNED and "excluded" in
                   t.user_attrs for t in ranked)
    seconds = sum(t.user_attrs.get("seconds", 0.0) for t in ranked)
    solver_seconds = sum(t.user_attrs.get("solver_seconds", 0.0)
                         for t in ranked)
    space = {k: r.as_dict() for k, r in settings.space(solver).items()}
    numbers = {t.number for t in ranked}
    rec = dict(
        study=study.study_name, budget=settings.trials,
        budget_kind=settings.budget,
        trials=len(ranked), in_storage=len(counted),
        complete=len(complete),
        pruned=sum(t.state == TrialState.PRUNED for t in ranked) - diverged,
        diverged=diverged,
        failed=sum(t.state == TrialState.FAIL for t in trials),
        running=sum(t.state == TrialState.RUNNING for t in trials),
        wall_seconds=round(seconds, 3),
        solver_seconds=round(solver_seconds, 3),
        work=dict(
            budget_epochs=budget.budget_epochs(settings),
            charged_epochs=round(math.fsum(
                budget.charged(t, settings) for t in ranked), 6),
            drawn_epochs=round(math.fsum(
                t.user_attrs.get(budget.DRAWN, 0.0) for t in ranked), 6)),
        space=space,
        fixed=settings.fixed_of(solver),
        best=None if best is None else dict(
            trial=best.number, criterion=best.value,
            parameters=best.user_attrs["parameters"]),
        all_trials=[_trial_row(t, settings, numbers) for t in trials])
    rec["edges"] = [] if best is None else edges(
        best.user_attrs["parameters"], space,
        [(t.user_attrs["parameters"], t.value) for t in complete])
    rec["adequacy"] = adequacy(rec)
    return rec


def eval_epochs(epochs):
    """The Objective's ``eval_epochs`` that puts callback call
    ``CALLS_AT_BUDGET`` at ``epochs`` epochs."""
    return epochs / CALLS_AT_BUDGET


def record(settings, tuning_key, elapsed=None):
    """The record of every solver's study."""
    storage = open_storage(settings.storage)
    solvers = {s: solver_record(load_study(storage, settings, s), settings, s)
               for s in settings.solvers}
    rec = dict(
        dataset=settings.dataset, tuning_key=tuning_key,
        storage=settings.storage,
        written=datetime.datetime.now().isoformat(timespec="seconds"),
        budget=dict(trials=settings.trials, epochs=settings.epochs,
                    evals=settings.evals, splits=settings.splits,
                    kind=settings.budget,
                    epochs_per_solver=budget.budget_epochs(settings)),
        criterion=criterion_text(settings), metric=settings.metric,
        sampler=f"TPE (multivariate), seed {settings.seed}",
        pruner=settings.pruner, solvers=solvers)
    if settings.continue_from is not None:
        rec["continued_from"] = settings.continue_from
    if elapsed is not None:
        rec["elapsed_seconds"] = round(elapsed, 3)
    rec["tuned_entry"] = tuned_entry(rec)
    rec["not_done"] = not_done(rec)
    return rec


def criterion_text(settings):
    what = {"value": "H(x) = f(x, y*(x)) on the validation samples",
            "grad_norm2": "log10 |grad H(x)|^2",
            "val_error": "the validation error of y*(x)"}[settings.metric]
    over = "" if settings.splits == 1 else (
        f" on each of {settings.splits} splits (benchopt run's repetitions "
        f"0 to {settings.splits - 1}), averaged")
    return (f"mean of {what} at {settings.evals} points equally spaced over "
            f"{settings.epochs:g} epochs{over} (lower is better)")


def record_path(settings, given=None):
    """``given``, else the storage file with the suffix ``.json``."""
    if given:
        return Path(given)
    if "://" in settings.storage:
        raise ValueError("--record is needed with a database URL --storage "
                         "(where to write the record)")
    return Path(settings.storage).with_suffix(".json")


def write_record(path, rec):
    """Write a record as JSON, xz-compressed when ``path`` ends in
    ``.xz`` (how the study stores its records)."""
    text = json.dumps(rec, indent=1, default=_json_default) + "\n"
    if str(path).endswith(".xz"):
        write_atomic(path, lzma.compress(text.encode(), preset=9))
    else:
        write_atomic(path, text)


def write_atomic(path, text):
    """Write ``text`` (str or bytes) to ``path`` through a temporary file
    of the same folder and ``os.replace``: an interrupted write leaves the
    old file (or none), never a truncated one.  The file keeps the mode of
    the one it replaces (else the umask's)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_of(path)
    handle = tempfile.NamedTemporaryFile(
        "wb" if isinstance(text, bytes) else "w", dir=path.parent,
        prefix=f".{path.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def _mode_of(path):
    """The permission bits of ``path``, or those a new file gets."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _json_default(value):
    return str(value)


def _fmt(value):
    if isinstance(value, float):
        return "inf" if value == math.inf else f"{value:g}"
    return str(value)


def solver_string(solver, parameters):
    """benchopt's selection string of one configuration."""
    body = ",".join(f"{k}={_fmt(v)}" for k, v in parameters.items())
    return f"{solver}[{body}]" if body else solver


def config_text(rec, record_file=None, confirmed=None):
    """A benchopt run config: the Objective on the tuning's grid of
    evaluations (``eval_epochs``), the dataset and each solver's best
    configuration, five repetitions, ``MAX_RUNS`` points, no timeout
    (``NO_TIMEOUT_NOTE``), and a note of the study.  ``confirmed``
    (``study.confirm``'s result) replaces a solver's best by its confirmed
    winner, the first trial in order of criterion that diverges on none of
    the held-out splits."""
    b = rec["budget"]
    spent = (f"{b['trials']} trials of {b['epochs']:g} epochs each"
             if b.get("kind", "trials") == "trials" else
             f"{b['epochs_per_solver']:g} epochs of trials of "
             f"{b['epochs']:g} epochs (pruned and diverged ones charged what "
             "they ran)")
    note = (
        "Written by `python -m tools.tune`: the best configuration of each "
        f"solver after {spent} (the same budget for every solver); "
        "criterion: "
        f"{rec['criterion']}; sampler {rec['sampler']}, pruner "
        f"{rec['pruner']}; study {rec['storage']}"
        + (f", record {record_file}" if record_file else "") + ".")
    lines = ["# " + line for line in textwrap.wrap(note, 76)]
    lines += ["# " + line for line in textwrap.wrap(
        "eval_epochs: every solver is evaluated after the same sample "
        f"evaluations: callback call {CALLS_AT_BUDGET} at {b['epochs']:g} "
        f"epochs, the last of the {MAX_RUNS + 1} points at "
        f"{HORIZON * b['epochs']:g}.", 76)]
    if confirmed is not None:
        lines += ["# " + line for line in textwrap.wrap(
            confirm_note(confirmed), 76)]
    lines += ["objective:",
              f'  - "{OBJECTIVE}[eval_epochs={eval_epochs(b["epochs"])!r}]"',
              "dataset:", f'  - "{rec["dataset"]}"', "solver:"]
    missing = []
    for solver, srec in rec["solvers"].items():
        if srec["best"] is None:
            missing.append(solver)
            continue
        chosen, said = srec["best"], ""
        held = (confirmed or {}).get("solvers", {}).get(solver, {})
        if held.get("confirmed") is not None:
            chosen = held["confirmed"]
            if held["rank"] > 1:
                better = ("the better one diverges" if held["rank"] == 2
                          else f"the {held['rank'] - 1} better diverge")
                said = f"; rank {held['rank']}: {better} held out"
        elif held:
            said = f"; {held['outcome']}"
        crit = chosen["criterion"]
        lines.append(f'  - "{solver_string(solver, chosen["parameters"])}'
                     f'"  # criterion {crit:.6g}{said}')
    if len(missing) == len(rec["solvers"]):
        raise ValueError("no solver has a complete trial: nothing to write "
                         "(every trial diverged or was pruned)")
    for solver in missing:
        lines.append(f"# {solver}: no complete trial (all diverged or "
                     "pruned), left out")
    lines += ["# seed: splits and starting points the trials were not "
              "scored on", f"seed: {COMPARISON_SEED}",
              "n-repetitions: 5", f"max-runs: {MAX_RUNS}", NO_TIMEOUT_NOTE,
              "no-timeout: true"]
    return "\n".join(lines) + "\n"


def confirm_note(confirmed):
    """The config's line on how its winners were confirmed."""
    return (f"Confirmed by `python -m study.confirm`: each winner is "
            f"the first complete trial, in order of criterion, that "
            f"diverges on none of {confirmed['splits']} splits of seed "
            f"{confirmed['seed']} over {confirmed['epochs']:g} epochs (the "
            "comparison's last point).")


def tuned_entry(rec):
    """The ``TUNED`` entry of ``benchmark_utils/tuned.py`` (its
    ``TUNABLE`` parameters) for this dataset, as Python to paste."""
    key = rec["tuning_key"] or rec["dataset"]
    lines = [f'    "{key}": {{']
    for solver, srec in rec["solvers"].items():
        if srec["best"] is None:
            continue
        params = srec["best"]["parameters"]
        tuned = {k: params[k] for k in TUNABLE
                 if isinstance(params.get(k), (int, float))}
        other = {k: v for k, v in params.items() if k not in tuned}
        body = ", ".join(f"{k}={float(v)!r}" for k, v in tuned.items())
        note = f"  # {srec['best']['criterion']:.5g}"
        if other:
            note += "; the run config also sets " + ", ".join(
                f"{k}={_fmt(v)}" for k, v in other.items())
        lines.append(f'        "{solver}": dict({body}),{note}')
    lines.append("    },")
    return "\n".join(lines)


def _solver_share(s):
    """'solver 12.3 s: trials 2.9x' (a trial's seconds over its solver's
    own, the metric points making the rest)."""
    own = s.get("solver_seconds") or 0.0
    if own <= 0.0:
        return "solver time not recorded"
    return f"solver {own:.1f} s: trials {s['wall_seconds'] / own:.1f}x"


def _used(s):
    """'12 trials, 398 of 400 epochs charged (401.3 drawn)', or the
    trials budget's '12/40 trials'."""
    work = s.get("work")
    if s.get("budget_kind", "trials") == "trials" or not work:
        return f"{s['trials']}/{s['budget']} trials"
    return (f"{s['trials']} trials, {work['charged_epochs']:g} of "
            f"{work['budget_epochs']:g} epochs charged "
            f"({work['drawn_epochs']:.4g} drawn)")


def summary(rec):
    """Lines to print: one per solver, what the budget leaves in doubt
    (winners on an edge of their range, solvers still improving), then
    the TUNED entry."""
    out = [f"\n{rec['dataset']}: {rec['criterion']}"]
    doubts = []
    for solver, s in rec["solvers"].items():
        best = s["best"]
        crit = "no complete trial" if best is None else (
            f"best {best['criterion']:.6g} (trial {best['trial']}) "
            + solver_string("", best["parameters"]))
        extra = (f", {s['in_storage'] - s['trials']} more in storage, "
                 "not ranked" if s["in_storage"] > s["trials"] else "")
        out.append(
            f"  {solver:8s} {_used(s)} "
            f"({s['complete']} complete, {s['pruned']} pruned, "
            f"{s['diverged']} diverged{extra}; {s['wall_seconds']:.1f} s, "
            f"{_solver_share(s)})  {crit}")
        doubts += edge_lines(solver, s.get("edges", []))
        if s.get("adequacy", {}).get("still_improving"):
            gain = s["adequacy"]["improvement_last_quarter"]
            what = ("its first complete trial came in the last quarter of "
                    "its budget" if gain is None else f"the best fell by "
                    f"{gain:.3g} over the last quarter of its budget")
            doubts.append(f"  {solver}: still improving ({what}): give a "
                          "larger --trials if the fall holds on other "
                          "splits (python -m study.holdout RECORD)")
    if doubts:
        out += ["", "Before using these winners (docs/comparisons.md, "
                "\"Is the tuning done?\"):"] + doubts
    out += ["", "TUNED entry (benchmark_utils/tuned.py), for "
            "step_size=tuned etc.:", rec["tuned_entry"]]
    return "\n".join(out)


def not_done(rec):
    """The solvers whose tuning is not done: a best on an edge that can
    be widened, or still improving."""
    return [solver for solver, s in rec["solvers"].items()
            if not edges_done(s.get("edges", []))
            or s.get("adequacy", {}).get("still_improving")]
