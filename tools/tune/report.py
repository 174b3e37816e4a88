"""What a tuning run leaves: the record of its studies (JSON, next to the
storage), the run config of each solver's best configuration, and the
``TUNED`` entry of ``benchmark_utils/tuned.py`` to paste.

The run config evaluates every solver on the same grid of sample
evaluations: benchopt evaluates at callback calls 0, 1, 2, 3, 4, 6, 9,
..., 42, 63, 94 (x1.5; 13 points with ``max-runs: 12``), and a callback
runs ``eval_freq`` iterations, so each solver's ``eval_freq`` is the
iterations of ``epochs / CALLS_AT_BUDGET`` epochs at its measured rate:
call 63 falls at the tuning's epoch budget and the last point at 1.5
times it, whatever an iteration costs.  (With one ``eval_freq`` for all,
a solver drawing a full pass per iteration would be first evaluated a
hundred epochs after one drawing a minibatch.)

Every solver is ranked on its first ``trials`` counted trials (by trial
number), so that budgets stay equal even when a study holds more; the best
is the complete trial of lowest criterion (pruned and diverged trials are
never ranked).
"""
import datetime
import json
import math
import textwrap
from pathlib import Path

from optuna.trial import TrialState

from benchmark_utils.tuned import TUNABLE

from .study import COUNTED, load_study, open_storage

CALLS_AT_BUDGET = 63  # the callback call of benchopt's 12th point
MAX_RUNS = 12  # benchopt's -n: points at calls 0, 1, ..., 63, 94


def _trial_row(t):
    attrs = t.user_attrs
    return dict(number=t.number, state=t.state.name.lower(),
                criterion=t.value if t.state == TrialState.COMPLETE else None,
                parameters=attrs.get("parameters"),
                excluded=attrs.get("excluded"),
                pruned_at_epochs=attrs.get("pruned_at_epochs"),
                seconds=attrs.get("seconds"))


def solver_record(study, settings, solver):
    """The record of one solver's study."""
    trials = sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)
    counted = [t for t in trials if t.state in COUNTED]
    ranked = counted[:settings.trials]
    complete = [t for t in ranked if t.state == TrialState.COMPLETE]
    best = min(complete, key=lambda t: t.value, default=None)
    diverged = sum(t.state == TrialState.PRUNED and "excluded" in
                   t.user_attrs for t in ranked)
    seconds = sum(t.user_attrs.get("seconds", 0.0) for t in ranked)
    return dict(
        study=study.study_name, budget=settings.trials,
        trials=len(ranked), in_storage=len(counted),
        complete=len(complete),
        pruned=sum(t.state == TrialState.PRUNED for t in ranked) - diverged,
        diverged=diverged,
        failed=sum(t.state == TrialState.FAIL for t in trials),
        running=sum(t.state == TrialState.RUNNING for t in trials),
        wall_seconds=round(seconds, 3),
        space={k: r.as_dict() for k, r in settings.space(solver).items()},
        fixed=settings.fixed_of(solver),
        best=None if best is None else dict(
            trial=best.number, criterion=best.value,
            parameters=best.user_attrs["parameters"]),
        all_trials=[_trial_row(t) for t in trials])


def eval_freq(epochs, n_samples, samples_per_iteration):
    """Iterations between two callback calls so that call
    ``CALLS_AT_BUDGET`` falls at ``epochs`` epochs (at least 1)."""
    per_call = epochs * n_samples / CALLS_AT_BUDGET
    return max(1, round(per_call / samples_per_iteration))


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
                    evals=settings.evals),
        criterion=criterion_text(settings), metric=settings.metric,
        sampler=f"TPE (multivariate), seed {settings.seed}",
        pruner=settings.pruner, solvers=solvers)
    if elapsed is not None:
        rec["elapsed_seconds"] = round(elapsed, 3)
    rec["tuned_entry"] = tuned_entry(rec)
    return rec


def add_eval_freq(rec, rates, n_samples):
    """Record each solver's ``samples_per_iteration`` (``rates``: solver ->
    sample evaluations per iteration of its best configuration) and the
    ``eval_freq`` the run config gives it; ``n_samples`` is n + m."""
    rec["n_samples"] = n_samples
    for solver, rate in rates.items():
        srec = rec["solvers"][solver]
        srec["samples_per_iteration"] = round(rate, 3)
        srec["eval_freq"] = eval_freq(rec["budget"]["epochs"], n_samples,
                                      rate)


def criterion_text(settings):
    what = {"value": "H(x) = f(x, y*(x)) on the validation samples",
            "grad_norm2": "log10 |grad H(x)|^2",
            "val_error": "the validation error of y*(x)"}[settings.metric]
    return (f"mean of {what} at {settings.evals} points equally spaced over "
            f"{settings.epochs:g} epochs (lower is better)")


def record_path(settings, given=None):
    """``given``, else the storage file with the suffix ``.json``."""
    if given:
        return Path(given)
    if "://" in settings.storage:
        raise ValueError("--record is needed with a database URL --storage "
                         "(where to write the record)")
    return Path(settings.storage).with_suffix(".json")


def write_record(path, rec):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=1, default=_json_default) + "\n")


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


def config_text(rec, record_file=None):
    """A benchopt run config: the dataset and each solver's best
    configuration (with its ``eval_freq`` when the record has it), five
    repetitions, ``MAX_RUNS`` points, and a note of the study."""
    b = rec["budget"]
    note = (
        "Written by `python -m tools.tune`: the best configuration of each "
        f"solver after {b['trials']} trials of {b['epochs']:g} epochs each "
        f"(the same budget for every solver); criterion: "
        f"{rec['criterion']}; sampler {rec['sampler']}, pruner "
        f"{rec['pruner']}; study {rec['storage']}"
        + (f", record {record_file}" if record_file else "") + ".")
    lines = ["# " + line for line in textwrap.wrap(note, 76)]
    timed = any("eval_freq" in s for s in rec["solvers"].values())
    if timed:
        lines += ["# " + line for line in textwrap.wrap(
            "eval_freq: each solver's iterations per callback at its "
            f"measured rate, so that every solver is evaluated after the "
            f"same sample evaluations: call {CALLS_AT_BUDGET} at "
            f"{b['epochs']:g} epochs, the last of the {MAX_RUNS + 1} "
            f"points at {1.5 * b['epochs']:g}.", 76)]
    lines += ["dataset:", f'  - "{rec["dataset"]}"', "solver:"]
    missing = []
    for solver, srec in rec["solvers"].items():
        if srec["best"] is None:
            missing.append(solver)
            continue
        crit = srec["best"]["criterion"]
        values = dict(srec["best"]["parameters"])
        if "eval_freq" in srec:
            values["eval_freq"] = srec["eval_freq"]
        lines.append(f'  - "{solver_string(solver, values)}'
                     f'"  # criterion {crit:.6g}')
    if len(missing) == len(rec["solvers"]):
        raise ValueError("no solver has a complete trial: nothing to write "
                         "(every trial diverged or was pruned)")
    for solver in missing:
        lines.append(f"# {solver}: no complete trial (all diverged or "
                     "pruned), left out")
    lines.append("n-repetitions: 5")
    if timed:
        lines.append(f"max-runs: {MAX_RUNS}")
    return "\n".join(lines) + "\n"


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


def summary(rec):
    """Lines to print: one per solver, then the TUNED entry."""
    out = [f"\n{rec['dataset']}: {rec['criterion']}"]
    for solver, s in rec["solvers"].items():
        best = s["best"]
        crit = "no complete trial" if best is None else (
            f"best {best['criterion']:.6g} (trial {best['trial']}) "
            + solver_string("", best["parameters"]))
        extra = (f", {s['in_storage'] - s['trials']} more in storage, "
                 "not ranked" if s["in_storage"] > s["trials"] else "")
        out.append(
            f"  {solver:8s} {s['trials']}/{s['budget']} trials "
            f"({s['complete']} complete, {s['pruned']} pruned, "
            f"{s['diverged']} diverged{extra}; {s['wall_seconds']:.1f} s)  "
            f"{crit}")
    out += ["", "TUNED entry (benchmark_utils/tuned.py), for "
            "step_size=tuned etc.:", rec["tuned_entry"]]
    return "\n".join(out)
