"""The claims file of ``study.verdicts`` (``study/claims.yml``, its format
described at its top), read and checked whole against the results it is
read with, before any claim is: a claim that cannot be paired would
otherwise leave the verdicts without a word.

Every error is named at once, each with its claim, key and value and what
is allowed: a key that is not one of ``KEYS`` (``quantity:``), a missing
one, a ``tasks`` that is not a regular expression or matches no dataset
of the results (the datasets they hold are listed), an ``a`` (or a ``b``,
an ``except``) that is no solver of the results on those datasets (the
solvers there are listed), a ``b`` that is neither ``rival``,
``baselines`` nor such a solver, a ``rival`` or ``baselines`` with no
solver to stand for them there, a ``sign`` other than -1 or 1, two claims
of one name; a ``rivals`` entry that is not a mapping of ``tasks`` (a
regular expression) and ``confirmations`` (files that exist), or a
``b: rival`` on a dataset no ``rivals`` entry matches; a ``primary``
(top-level, or a claim's own) that is not one of ``READINGS``.
"""
import functools
import glob
import json
import math
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TOP = ("baselines", "claims", "rivals", "primary")
# the readings of a claim (``study.verdicts.QUANTITIES``); ``primary``
# names the one that decides it
READINGS = ("h_budget", "h_end", "err_budget", "err_end", "own_budget",
            "own_end")
PRIMARY = "h_budget"  # without a ``primary`` key
RIVAL_KEYS = {"tasks": "a regular expression on the results' dataset_name",
              "confirmations": "confirmation records (python -m "
                               "study.confirm), paths or patterns from the "
                               "repository's root"}
# the keys of a claim, and what each holds
KEYS = {"name": "the claim's name (unique)",
        "tasks": "a regular expression on the results' dataset_name",
        "a": "the solver the claim is about",
        "b": "a solver, 'rival' or 'baselines'",
        "sign": "-1 (a is lower than b) or 1",
        "except": "solvers that are no rival of a (with b: rival)",
        "primary": "the reading that decides the claim (default: the "
                   "file's primary)"}
NEEDED = ("name", "tasks", "a", "b")
OPPONENTS = ("rival", "baselines")


def primary_of(claim, spec):
    """The reading that decides ``claim``: its own ``primary``, else the
    claims file's, else ``PRIMARY``."""
    return claim.get("primary", spec.get("primary", PRIMARY))


def read_claims(path):
    """The YAML content of the claims file ``path``; a ValueError naming
    it when it cannot be read or parsed."""
    try:
        with open(path) as handle:
            return yaml.safe_load(handle)
    except OSError as err:
        raise ValueError(f"--claims {path}: cannot be read "
                         f"({err.strerror or err})") from None
    except yaml.YAMLError as err:
        raise ValueError(f"--claims {path}: not YAML ({err})") from None


def check_claims(spec, solvers=None, path="the claims file"):
    """``spec`` (the claims file's content) if every claim is sound, else
    a ValueError listing every error of the file.  ``solvers``,
    ``{dataset: the solvers run on it (verdicts.label)}`` of the results:
    with it, each claim must be readable on them."""
    if not isinstance(spec, dict) or not isinstance(spec.get("claims"),
                                                    list):
        raise ValueError(f"--claims {path}: a YAML mapping with 'claims:' "
                         "(a list of claims) and 'baselines:' (a list of "
                         "solvers)")
    errors = []
    unknown = [k for k in spec if k not in TOP]
    if unknown:
        errors.append(f"unknown top-level keys {unknown}; allowed: "
                      f"{', '.join(TOP)}")
    baselines = spec.get("baselines", [])
    if not _names(baselines):
        errors.append(f"baselines: {baselines!r} is not a list of solver "
                      "names")
        baselines = []
    if spec.get("primary", PRIMARY) not in READINGS:
        errors.append(f"primary: {spec['primary']!r}; allowed: "
                      f"{', '.join(READINGS)}")
    names = {}
    for index, claim in enumerate(spec["claims"], start=1):
        errors += _claim_errors(index, claim, baselines, solvers, names)
    rivals = spec.get("rivals")
    if rivals is not None:
        errors += _rivals_errors(rivals)
        if solvers is not None and not errors:
            errors += _unmatched_rivals(spec, solvers)
    if errors:
        raise ValueError(
            f"--claims {path}: {len(errors)} error"
            f"{'s' if len(errors) > 1 else ''}; no claim is read until the "
            "file is sound:\n" + "\n".join(f"  - {e}" for e in errors))
    return spec


def _names(value):
    return isinstance(value, list) and all(isinstance(v, str) and v
                                           for v in value)


def _claim_errors(index, claim, baselines, solvers, names):
    """The errors of one claim (the ``index``-th); ``names``, {name:
    index} of the claims before it."""
    if not isinstance(claim, dict):
        return [f"claim {index}: {claim!r} is not a mapping of "
                f"{', '.join(KEYS)}"]
    name = claim.get("name")
    where = f"claim {index} {name!r}" if name is not None else \
        f"claim {index}"
    errors = []
    unknown = [k for k in claim if k not in KEYS]
    if unknown:
        errors.append(f"{where}: unknown key{'s' if len(unknown) > 1 else ''}"
                      f" {', '.join(map(repr, unknown))}; the keys of a claim"
                      " are " + "; ".join(f"{k}: {what}"
                                          for k, what in KEYS.items()))
    missing = [k for k in NEEDED if k not in claim]
    if missing:
        errors.append(f"{where} lacks {missing}")
    for key in ("name", "tasks", "a", "b"):
        if key in claim and not (isinstance(claim[key], str) and claim[key]):
            errors.append(f"{where}: {key}: {claim[key]!r} is not a "
                          f"non-empty text ({KEYS[key]})")
    if isinstance(name, str):
        if name in names:
            errors.append(f"{where}: the name of claim {names[name]} too; "
                          "give each claim its own name")
        names.setdefault(name, index)
    if claim.get("sign", -1) not in (-1, 1) or isinstance(
            claim.get("sign"), bool):
        errors.append(f"{where}: sign: {claim['sign']!r}; allowed: -1 (a "
                      "is lower than b) or 1")
    if "primary" in claim and claim["primary"] not in READINGS:
        errors.append(f"{where}: primary: {claim['primary']!r}; allowed: "
                      f"{', '.join(READINGS)}")
    if "except" in claim and not _names(claim["except"]):
        errors.append(f"{where}: except: {claim['except']!r} is not a list "
                      "of solver names")
    pattern = _pattern(claim.get("tasks"))
    if isinstance(pattern, str):
        errors.append(f"{where}: tasks: {claim['tasks']!r} {pattern}")
    elif pattern is not None and solvers is not None:
        errors += _reading_errors(where, claim, pattern, baselines, solvers)
    return errors


def _pattern(tasks):
    """The compiled ``tasks``, None when it is not a text, or why it is
    not a regular expression."""
    if not isinstance(tasks, str) or not tasks:
        return None
    try:
        return re.compile(tasks)
    except re.error as err:
        return f"is not a regular expression ({err})"


def _reading_errors(where, claim, pattern, baselines, solvers):
    """What keeps a claim from being read on the results: its tasks match
    no dataset, or a solver it names has no run on those datasets."""
    datasets = [d for d in solvers if pattern.search(str(d))]
    if not datasets:
        return [f"{where}: tasks: {claim['tasks']!r} matches no dataset of "
                f"the results; they hold {', '.join(map(str, solvers))}"]
    there = sorted(set().union(*(solvers[d] for d in datasets)))
    on = (f"the datasets its tasks match ({', '.join(map(str, datasets))}) "
          f"hold {', '.join(there)}")
    errors = []
    a, b = claim.get("a"), claim.get("b")
    if isinstance(a, str) and a and a not in there:
        errors.append(f"{where}: a: {a!r} is no solver of the results "
                      f"there; {on}")
    if isinstance(b, str) and b and b not in OPPONENTS and b not in there:
        errors.append(f"{where}: b: {b!r} is neither 'rival', 'baselines' "
                      f"nor a solver of the results there; {on}")
    unknown = [s for s in claim.get("except", []) if isinstance(s, str)
               and s not in there] if _names(claim.get("except", [])) else []
    if unknown:
        errors.append(f"{where}: except: {unknown} not among the solvers of "
                      f"the results there; {on}")
    if b == "rival":
        skip = {a, *(claim.get("except") or [])}
        if not [s for s in there if s not in skip and "[" not in s]:
            errors.append(f"{where}: b: 'rival' with no other solver; {on}")
    if b == "baselines" and not [s for s in baselines
                                 if s in there and s != a]:
        errors.append(f"{where}: b: 'baselines' with none of the baselines "
                      f"({', '.join(baselines) or 'none listed'}) there; "
                      f"{on}")
    return errors


def _rivals_errors(rivals):
    """What is wrong with the ``rivals`` entries."""
    if not isinstance(rivals, list):
        return [f"rivals: {rivals!r} is not a list of mappings of "
                f"{', '.join(RIVAL_KEYS)}"]
    errors = []
    for index, entry in enumerate(rivals, start=1):
        where = f"rivals entry {index}"
        if not isinstance(entry, dict) or set(entry) != set(RIVAL_KEYS):
            errors.append(f"{where}: {entry!r}; its keys are " + "; ".join(
                f"{k}: {what}" for k, what in RIVAL_KEYS.items()))
            continue
        pattern = _pattern(entry["tasks"])
        if not isinstance(pattern, re.Pattern):
            errors.append(f"{where}: tasks: {entry['tasks']!r} "
                          f"{pattern or 'is not a non-empty text'}")
        if not _names(entry["confirmations"]):
            errors.append(f"{where}: confirmations: "
                          f"{entry['confirmations']!r} is not a list of "
                          "paths")
            continue
        for path in entry["confirmations"]:
            if not glob.has_magic(path) and not (ROOT / path).is_file():
                errors.append(f"{where}: confirmations: {path} is no file "
                              "(paths are from the repository's root)")
    return errors


def _unmatched_rivals(spec, solvers):
    """The datasets of a ``b: rival`` claim that no ``rivals`` entry
    matches: their rival could only be picked on the instances tested."""
    errors = []
    patterns = [re.compile(e["tasks"]) for e in spec["rivals"]]
    for claim in spec["claims"]:
        if claim.get("b") != "rival":
            continue
        mine = re.compile(claim["tasks"])
        left = [str(d) for d in solvers if mine.search(str(d))
                and not any(p.search(str(d)) for p in patterns)]
        if left:
            errors.append(f"claim {claim['name']!r}: b: 'rival' on "
                          f"{', '.join(left)}, which no rivals entry "
                          "matches; add one naming their confirmations")
    return errors


@functools.lru_cache(maxsize=None)
def held_out(confirmations):
    """{solver: its confirmed winner's criterion on the held-out splits}
    over the confirmation records ``confirmations`` (a tuple of paths or patterns
    from the repository's root; a winner that diverged there: inf; a
    solver with no confirmed winner: left out)."""
    out = {}
    for pattern in confirmations:
        for path in sorted(glob.glob(str(ROOT / pattern))):
            with open(path) as handle:
                record = json.load(handle)
            for solver, found in record["solvers"].items():
                confirmed = found.get("confirmed") or {}
                value = confirmed.get("held_out")
                if value is None:
                    continue
                out[solver] = math.inf if confirmed.get("diverged") \
                    else float(value)
    return out
