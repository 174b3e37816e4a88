"""A study's specification (``study/study.yml``), read and checked whole
before anything runs: every unknown key, solver, missing field and bad
value named at once, with what is allowed.

The specification says what ``python -m study run`` runs (the tuning of
every task with equal work, its hold-out checks, confirmation,
comparisons, verdicts) and what the study stored (the winners' run
configs, the records, the comparisons' results), which ``--from-stored``
and ``python -m study add`` start from.
"""
import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "study" / "study.yml"

TOP = {"solvers", "claims", "work", "tuning", "confirmation", "comparison",
       "tasks", "pages"}
REQUIRED = TOP - {"pages"}
TUNING = {"splits", "evals", "seed", "first", "round", "max_rounds"}
TASK = {"dataset", "epochs", "trials", "ranges", "stored", "comparisons",
        "cost"} | TUNING
COST = {"holdout", "confirmation", "comparison"}
STORED = {"trials", "record", "holdout", "confirmation", "config"}
COMPARISON = {"name", "dataset", "seed", "results", "config", "ablation",
              "verdicts"}
ABLATION = {"solvers", "set"}
CONFIRMATION = {"seed", "splits"}
REPETITIONS = {"repetitions"}


class SpecError(ValueError):
    """A specification that cannot run: every problem, one a line."""


@dataclass(frozen=True)
class Comparison:
    """One comparison of a task: its winners run on ``dataset`` with
    benchopt's ``seed``, ``repetitions`` instances, results stored in
    ``results`` (an ablation: ``solvers`` of the task's config with
    ``set`` changed)."""
    name: str
    dataset: str
    seed: int
    results: str
    config: str
    ablation: dict = None
    verdicts: bool = True


@dataclass(frozen=True)
class Task:
    """One task: the dataset tuned on, a trial's ``epochs`` (the
    comparison's budget), the first round's ``trials`` and ``ranges``,
    the tuning settings, what the study stored and the comparisons."""
    name: str
    dataset: str
    epochs: float
    trials: int
    splits: int
    evals: int
    seed: int
    first: tuple
    round: int
    max_rounds: int
    ranges: dict
    stored: dict
    comparisons: tuple
    cost: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Spec:
    path: str
    solvers: tuple
    claims: str
    work: str
    confirmation: dict
    repetitions: int
    tasks: dict = field(default_factory=dict)
    pages: tuple = ()

    def task(self, name):
        return self.tasks[name]

    def verdict_results(self):
        """The stored results the verdicts read, in the spec's order."""
        return [c.results for t in self.tasks.values()
                for c in t.comparisons if c.verdicts]


def _unknown(where, given, allowed, problems):
    for key in sorted(set(given) - allowed):
        problems.append(f"{where}: unknown key {key!r}; allowed: "
                        f"{', '.join(sorted(allowed))}")


def _mapping(where, value, problems):
    if not isinstance(value, dict):
        problems.append(f"{where}: expected a mapping, got {value!r}")
        return {}
    return value


def _positive_int(where, value, problems):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        problems.append(f"{where}: expected an integer >= 1, got {value!r}")
        return 1
    return value


def _positive(where, value, problems):
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        problems.append(f"{where}: expected a positive finite number, got "
                        f"{value!r}")
        return 1.0
    return float(value)


def _file(where, value, problems, root):
    if not isinstance(value, str) or not (root / value).is_file():
        problems.append(f"{where}: {value!r} is not a file of the "
                        "repository")
    return value


def _ranges(where, value, problems):
    from tools.tune.space import parse_range
    out = {}
    for name, text in _mapping(where, value or {}, problems).items():
        try:
            parse_range(f"{name}={text}")
        except ValueError as err:
            problems.append(f"{where}.{name}: {err}")
        out[name] = str(text)
    return out


def _first(where, value, problems):
    from tools.tune.first import check_first
    if not isinstance(value, (list, tuple)):
        problems.append(f"{where}: expected a list, got {value!r}")
        return ()
    try:
        check_first(list(value))
    except ValueError as err:
        problems.append(f"{where}: {err}")
    return tuple(value)


def load(path=SPEC, root=ROOT):
    """The checked :class:`Spec` of ``path``; :class:`SpecError` naming
    every problem otherwise."""
    from tools.tune.space import SOLVERS
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise SpecError(f"{path}: not a readable YAML file ({err})")
    problems = []
    raw = _mapping(str(path), raw, problems)
    _unknown(str(path), raw, TOP, problems)
    for key in sorted(REQUIRED - set(raw)):
        problems.append(f"{path}: missing {key!r}")
    solvers = raw.get("solvers") or []
    if not isinstance(solvers, list) or not solvers:
        problems.append(f"solvers: expected a non-empty list, got "
                        f"{solvers!r}")
        solvers = []
    for s in solvers:
        if s not in SOLVERS:
            problems.append(f"solvers: unknown solver {s!r}; allowed: "
                            f"{', '.join(SOLVERS)}")
    if len(set(solvers)) != len(solvers):
        problems.append("solvers: a solver is listed twice")
    claims = _file("claims", raw.get("claims"), problems, root)
    tuning = _mapping("tuning", raw.get("tuning", {}), problems)
    _unknown("tuning", tuning, TUNING, problems)
    confirmation = _mapping("confirmation", raw.get("confirmation", {}),
                            problems)
    _unknown("confirmation", confirmation, CONFIRMATION, problems)
    for key in CONFIRMATION:
        confirmation[key] = _positive_int(
            f"confirmation.{key}", confirmation.get(key, 1), problems) \
            if key == "splits" else confirmation.get(key, 4)
    comparison = _mapping("comparison", raw.get("comparison", {}), problems)
    _unknown("comparison", comparison, REPETITIONS, problems)
    repetitions = _positive_int("comparison.repetitions",
                                comparison.get("repetitions", 10), problems)
    tasks = {}
    names = set()
    for name, body in _mapping("tasks", raw.get("tasks", {}),
                               problems).items():
        task = _task(name, _mapping(f"tasks.{name}", body, problems),
                     tuning, problems, root, names)
        if task is not None:
            tasks[name] = task
    if not tasks:
        problems.append("tasks: no task")
    pages = raw.get("pages") or []
    if not isinstance(pages, list):
        problems.append(f"pages: expected a list, got {pages!r}")
        pages = []
    for i, page in enumerate(pages):
        _file(f"pages[{i}]", page, problems, root)
    if problems:
        raise SpecError(f"{path}: {len(problems)} problem(s):\n  "
                        + "\n  ".join(problems))
    return Spec(path=str(path), solvers=tuple(solvers), claims=claims,
                work=str(raw.get("work")), confirmation=confirmation,
                repetitions=repetitions, tasks=tasks, pages=tuple(pages))


def _task(name, body, tuning, problems, root, names):
    where = f"tasks.{name}"
    _unknown(where, body, TASK, problems)
    for key in ("dataset", "epochs", "trials", "comparisons"):
        if key not in body:
            problems.append(f"{where}: missing {key!r}")
    settings = {**tuning, **{k: v for k, v in body.items() if k in TUNING}}
    stored = _mapping(f"{where}.stored", body.get("stored", {}), problems)
    _unknown(f"{where}.stored", stored, STORED, problems)
    for key in ("record", "holdout", "confirmation", "config"):
        if key in stored:
            _file(f"{where}.stored.{key}", stored[key], problems, root)
    if "trials" in stored:
        _positive_int(f"{where}.stored.trials", stored["trials"], problems)
    cost = _mapping(f"{where}.cost", body.get("cost", {}), problems)
    _unknown(f"{where}.cost", cost, COST, problems)
    cost = {k: _positive(f"{where}.cost.{k}", v, problems)
            for k, v in cost.items()}
    comparisons = []
    entries = body.get("comparisons") or []
    if not isinstance(entries, list) or not entries:
        problems.append(f"{where}.comparisons: expected a non-empty list")
        entries = []
    for i, entry in enumerate(entries):
        c = _comparison(f"{where}.comparisons[{i}]",
                        _mapping(f"{where}.comparisons[{i}]", entry,
                                 problems),
                        body.get("dataset", ""), stored, problems, root)
        if c is not None:
            if c.name in names:
                problems.append(f"{where}.comparisons[{i}]: name {c.name!r} "
                                "used twice")
            names.add(c.name)
            comparisons.append(c)
    return Task(
        name=name, dataset=str(body.get("dataset", "")),
        epochs=_positive(f"{where}.epochs", body.get("epochs", 1), problems),
        trials=_positive_int(f"{where}.trials", body.get("trials", 1),
                             problems),
        splits=_positive_int(f"{where}.splits", settings.get("splits", 3),
                             problems),
        evals=_positive_int(f"{where}.evals", settings.get("evals", 5),
                            problems),
        seed=settings.get("seed", 0),
        first=_first(f"{where}.first",
                     settings.get("first", ["sweep", "defaults"]), problems),
        round=_positive_int(f"{where}.round", settings.get("round", 20),
                            problems),
        max_rounds=_positive_int(f"{where}.max_rounds",
                                 settings.get("max_rounds", 8), problems),
        ranges=_ranges(f"{where}.ranges", body.get("ranges"), problems),
        stored=stored, comparisons=tuple(comparisons), cost=cost)


def _comparison(where, entry, dataset, stored, problems, root):
    _unknown(where, entry, COMPARISON, problems)
    for key in ("name", "seed", "results"):
        if key not in entry:
            problems.append(f"{where}: missing {key!r}")
    ablation = entry.get("ablation")
    if ablation is not None:
        ablation = _mapping(f"{where}.ablation", ablation, problems)
        _unknown(f"{where}.ablation", ablation, ABLATION, problems)
    config = entry.get("config", stored.get("config"))
    if config is not None and ablation is None:
        _file(f"{where}.config", config, problems, root)
    return Comparison(name=str(entry.get("name")),
                      dataset=str(entry.get("dataset", dataset)),
                      seed=entry.get("seed", 1),
                      results=str(entry.get("results")),
                      config=config, ablation=ablation,
                      verdicts=bool(entry.get("verdicts", True)))
