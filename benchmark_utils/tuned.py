"""Tuned parameters per (dataset, solver): what ``step_size=tuned`` means.

A solver parameter among ``TUNABLE`` (``step_size``, ``outer_ratio``,
``z_ratio``, ``R``) may be given the value ``"tuned"``: the solver then
takes that parameter's value for its dataset from ``TUNED``
(``TUNED[dataset][solver][parameter]``), and benchopt's result names keep
saying ``step_size=tuned`` (the number is in this file and in the docs/comparisons.md's
"Compare solvers" table, never hidden behind a number that is not the one
used).  A parameter without a tuned value keeps its default when the entry
does not list it (``z_ratio`` = 1 everywhere it is not listed); a solver or
dataset without an entry is an error that names the ones that have one.

The dataset key is the dataset's ``tuning_key`` (its name; ``mnist`` with
``variant=fashion`` is ``fashion-mnist``), passed by the Objective.

Where the values come from
--------------------------
- PnPBO-family solvers on ``Simulated``, ``digits``, ``breast_cancer``,
  ``wine`` and ``fashion-mnist``: the sweeps ``configs/tune_<dataset>.yml``
  (step_size in {0.01, 0.1, 1} x outer_ratio in {1e-4, ..., 10}, z_ratio =
  1, one repetition: the split of a ``benchopt run``'s first), ranked by
  ``tools.select`` with the criterion stated in ``SELECTION``
  (docs/comparisons.md "Sweep and select parameters" gives the commands).
  The clipping radius ``R`` of the clipped solvers on the three
  scikit-learn datasets is ``tools.z_radius``'s 2 x max ||z*(x)|| along
  exact hypergradient descent, rounded up, over five repetitions' splits
  (``R_FROM_DATA``); Simulated keeps the
  paper's R = 1 (its ||z*(x*)|| = 0.5 by construction) and Fashion-MNIST
  the paper's R = 1 for MNIST.
- The baselines and SOBA, SABA, SRBA on ``ijcnn1``, ``covtype`` and
  ``mnist``: the public reference benchmark's tuned ``step_size`` and
  ``outer_ratio`` (benchmark_bilevel's ``config/*_best_params.yml``, MNIST
  at corruption 0.5), which the PnPBO paper reuses (read from those
  files at benchmark_bilevel's commit 3ad65dc, for the baselines and for
  SOBA, SABA, SRBA; the same numbers as in ``configs/paper_*.yml``).
  Those values were tuned under the reference's settings, which are not
  all our defaults: ``SETTINGS[dataset][solver]`` holds the parameters
  that make ours run the algorithm they were tuned for
  (``reference_settings``: SRBA's ``period`` from its ``period_frac``,
  period = period_frac (n + m) / 64, and no clipping; SABA's zero-memory
  start; F2SA's exponents and ``delta_lmbda``).  A tuned parameter brings
  its entry's setting with it: each parameter of the setting takes the
  setting's value when it is left at its default (or set to that value);
  another value is an error naming it (give numbers instead of 'tuned' to
  run another algorithm).
"""
import math
from fractions import Fraction

from .data.sizes import levels
from .reference_settings import setting

TUNABLE = ("step_size", "outer_ratio", "z_ratio", "R")
TUNED_VALUE = "tuned"

# ||z*(x)|| from the data: ``python -m tools.z_radius digits breast_cancer
# wine`` over the first five repetitions (the largest max on a converged
# path: 1.81, 135, 44.2 -> R = 4, 300, 90; on 1 of 5 breast_cancer and 3 of
# 5 wine splits H has no minimiser and ||z*|| grows without bound).
R_FROM_DATA = {"digits": 4.0, "breast_cancer": 300.0, "wine": 90.0}

# The selection criterion of each sweep: ``python -m tools.select
# outputs/tune_<dataset>.parquet <arguments>`` ranks the configurations
# (area under the curve of the metric over the first ``--budget`` epochs,
# the curve held after a run's last point; diverged runs excluded) and its
# ``--write`` config holds the best of each solver, copied below.
SELECTION = {
    "Simulated": "--metric objective_grad_norm2 --criterion auc --log "
                 "--axis epochs --budget 100",
    "digits": "--metric objective_value --criterion auc --axis epochs "
              "--budget 5000",
    "breast_cancer": "--metric objective_value --criterion auc "
                     "--axis epochs --budget 100000",
    "wine": "--metric objective_value --criterion auc --axis epochs "
            "--budget 1000000",
    "fashion-mnist": "--metric objective_value --criterion auc "
                     "--axis epochs --budget 20",
}

# {dataset: {solver: {parameter: value}}}; the comment after each entry is
# its score under SELECTION (lower is better), best solver first.
TUNED = {
    "Simulated": {
        "MA-SABA": dict(step_size=1.0, outer_ratio=1.0, R=1.0),  # -15.771
        "SABA": dict(step_size=1.0, outer_ratio=10.0),  # -14.635
        "SFFBA": dict(step_size=1.0, outer_ratio=1.0, R=1.0),  # -10.308
        "SRBA": dict(step_size=0.1, outer_ratio=0.1, R=1.0),  # -7.066
        "MSEBA": dict(step_size=0.1, outer_ratio=0.1, R=1.0),  # -5.9039
        "SPABA": dict(step_size=0.1, outer_ratio=0.1, R=1.0),  # -5.0776
        "SOBA": dict(step_size=1.0, outer_ratio=1.0),  # -3.0128
        "MA-SOBA": dict(step_size=0.1, outer_ratio=1.0),  # -2.4971
        "SRMBA": dict(step_size=0.1, outer_ratio=1.0, R=1.0),  # -2.4873
    },
    "digits": {
        "MA-SOBA": dict(step_size=0.1, outer_ratio=0.0001),  # 1.1366
        "MA-SABA": dict(step_size=1.0, outer_ratio=0.001, R=4.0),  # 1.1367
        "SABA": dict(step_size=0.1, outer_ratio=0.0001),  # 1.1367
        "SOBA": dict(step_size=1.0, outer_ratio=0.0001),  # 1.1396
        "SRMBA": dict(step_size=0.1, outer_ratio=0.001, R=4.0),  # 1.1404
        "SFFBA": dict(step_size=0.1, outer_ratio=0.001, R=4.0),  # 1.1405
        "SRBA": dict(step_size=0.1, outer_ratio=0.001, R=4.0),  # 1.1412
        "SPABA": dict(step_size=0.01, outer_ratio=0.0001, R=4.0),  # 1.1414
        "MSEBA": dict(step_size=0.01, outer_ratio=0.0001, R=4.0),  # 1.1414
    },
    "breast_cancer": {
        "SABA": dict(step_size=0.1, outer_ratio=1.0),  # 0.048025
        "MA-SABA": dict(step_size=0.1, outer_ratio=1.0, R=300.0),  # 0.048027
        "MA-SOBA": dict(step_size=0.1, outer_ratio=1.0),  # 0.048035
        "SFFBA": dict(step_size=0.1, outer_ratio=1.0, R=300.0),  # 0.052807
        "SRBA": dict(step_size=0.1, outer_ratio=1.0, R=300.0),  # 0.052818
        "SRMBA": dict(step_size=0.1, outer_ratio=1.0, R=300.0),  # 0.052824
        "MSEBA": dict(step_size=0.1, outer_ratio=1.0, R=300.0),  # 0.052959
        "SPABA": dict(step_size=0.1, outer_ratio=1.0, R=300.0),  # 0.052972
        "SOBA": dict(step_size=1.0, outer_ratio=0.1),  # 0.056452
    },
    "wine": {
        # step 1 is the edge of stability here: SFFBA's (1, 10) diverged
        # within a quick run on an AMD EPYC Zen 5 on another split; check
        # a machine with ``python -m tools.run_horizon``
        "SABA": dict(step_size=1.0, outer_ratio=10.0),  # 0.0086797
        "MA-SOBA": dict(step_size=1.0, outer_ratio=10.0),  # 0.0089126
        "SFFBA": dict(step_size=1.0, outer_ratio=10.0, R=90.0),  # 0.015902
        "MSEBA": dict(step_size=1.0, outer_ratio=10.0, R=90.0),  # 0.016013
        "SRBA": dict(step_size=1.0, outer_ratio=10.0, R=90.0),  # 0.016126
        "SRMBA": dict(step_size=1.0, outer_ratio=10.0, R=90.0),  # 0.016151
        "SPABA": dict(step_size=1.0, outer_ratio=10.0, R=90.0),  # 0.01616
        "MA-SABA": dict(step_size=1.0, outer_ratio=10.0, R=90.0),  # 0.016924
        # SOBA: every step 0.1 diverges near iteration 600 000, inside a
        # quick run's cap (tools.run_horizon); 0.01 is the best that does not
        "SOBA": dict(step_size=0.01, outer_ratio=0.0001),  # 0.023225
    },
    "fashion-mnist": {
        "MA-SOBA": dict(step_size=0.01, outer_ratio=1e-05),  # 0.76133
        "SOBA": dict(step_size=0.1, outer_ratio=1e-05),  # 0.77273
        "MA-SABA": dict(step_size=0.01, outer_ratio=1e-05, R=1.0),  # 0.79329
        "SABA": dict(step_size=0.01, outer_ratio=1e-05),  # 0.79393
        "SRMBA": dict(step_size=0.01, outer_ratio=1e-05, R=1.0),  # 0.81732
        "SFFBA": dict(step_size=0.01, outer_ratio=1e-05, R=1.0),  # 0.85954
        "SRBA": dict(step_size=0.01, outer_ratio=1e-05, R=1.0),  # 0.90038
        "SPABA": dict(step_size=0.1, outer_ratio=1e-05, R=1.0),  # 0.90559
        "MSEBA": dict(step_size=0.1, outer_ratio=1e-05, R=1.0),  # 0.91416
    },
}

# benchmark_bilevel's tuned (step_size, outer_ratio) for the baselines
# (its config/*_best_params.yml at 3ad65dc; MNIST: corruption 0.5).
_REFERENCE = {
    "ijcnn1": {"SOBA": (0.03125, 0.01), "SABA": (0.125, 1.0),
               "SRBA": (0.25, 1.0),
               "StocBiO": (0.125, 1.0), "AmIGO": (0.125, 0.31623),
               "BSA": (0.5, 0.01), "TTSA": (0.5, 0.031623),
               "SUSTAIN": (0.5, 0.1), "MRBO": (0.5, 0.031623),
               "VRBO": (0.0625, 1.0), "FSLA": (0.03125, 0.01)},
    "covtype": {"SOBA": (1.0, 0.01), "SRBA": (0.03125, 0.01),
                "StocBiO": (0.0625, 0.01), "AmIGO": (0.03125, 0.1),
                "BSA": (0.5, 0.01), "TTSA": (0.5, 0.01),
                "SUSTAIN": (0.5, 0.01), "MRBO": (1.0, 0.01),
                "VRBO": (0.25, 0.01), "FSLA": (1.0, 0.01)},
    "mnist": {"SOBA": (1.0, 1e-4), "SABA": (0.1, 1e-3),
              "SRBA": (0.001, 1e-5),
              "StocBiO": (0.01, 1e-5), "AmIGO": (0.001, 1e-5),
              "BSA": (0.1, 1e-5), "TTSA": (0.1, 1e-5),
              "SUSTAIN": (0.1, 1e-4), "MRBO": (0.1, 1e-4),
              "VRBO": (0.1, 1e-4), "FSLA": (1.0, 1e-4),
              "F2SA": (0.1, 1e-4)},
}
for _dataset, _solvers in _REFERENCE.items():
    for _solver, (_step, _ratio) in _solvers.items():
        TUNED.setdefault(_dataset, {})[_solver] = dict(
            step_size=_step, outer_ratio=_ratio)

# The values of the reference's lines (its names) that are not our
# defaults, besides the steps: SRBA's period_frac; F2SA on MNIST, from its
# config/datacleaning0_5_021424_best_params.yml (lmbda0 = 1 and
# n_inner_steps = 10 there are our defaults).
_REFERENCE_LINES = {
    "ijcnn1": {"SRBA": dict(period_frac=0.5)},
    "covtype": {"SRBA": dict(period_frac=8.0)},
    "mnist": {"SRBA": dict(period_frac=512.0),
              "F2SA": dict(delta_lmbda=1.0)},
}


def _reference_settings():
    """{dataset: {solver: {parameter: value}}}: the setting each reference
    value was tuned under, in our parameters, where it is not our
    defaults (the module docstring)."""
    out = {}
    for dataset, solvers in _REFERENCE.items():
        for solver in solvers:
            line = _REFERENCE_LINES[dataset].get(solver, {})
            values = setting(solver, levels(dataset), **line)
            if values:
                out.setdefault(dataset, {})[solver] = values
    return out


SETTINGS = _reference_settings()


def is_tuned(value):
    """Whether a parameter value asks for the tuned value."""
    return isinstance(value, str) and value.strip().lower() == TUNED_VALUE


def tuned_values(dataset, solver):
    """``{parameter: value}`` tuned for ``solver`` on ``dataset``; a clear
    error when there is none."""
    if dataset is None:
        raise ValueError(
            f"{solver}: a parameter is 'tuned' but the dataset is unknown "
            "(tuned values need the Objective's dataset key); give numbers")
    entry = TUNED.get(dataset, {}).get(solver)
    if entry is None:
        have = sorted(d for d, solvers in TUNED.items() if solver in solvers)
        raise ValueError(
            f"{solver} has no tuned parameters on dataset {dataset!r} "
            f"(it has on: {have or 'none'}; benchmark_utils/tuned.py, "
            "docs/comparisons.md 'Compare solvers'); give numbers instead of 'tuned'")
    return entry


def resolve(values, dataset, solver, defaults):
    """``values`` with every ``'tuned'`` parameter replaced by its tuned
    value (its default in ``defaults`` where the entry lists none).

    Only ``TUNABLE`` parameters may be tuned; another parameter set to
    ``'tuned'`` keeps the string, for the configuration's validation to
    name it."""
    asked = [k for k in TUNABLE if k in values and is_tuned(values[k])]
    if not asked:
        return dict(values)
    entry = tuned_values(dataset, solver)
    out = dict(values)
    for key in asked:
        out[key] = entry.get(key, defaults.get(key))
    for key, value in SETTINGS.get(dataset, {}).get(solver, {}).items():
        given = values.get(key, defaults.get(key))
        if not (is_tuned(given) or given == defaults.get(key)
                or given == value):
            raise ValueError(
                f"{key} must be {value!r} or its default "
                f"{defaults.get(key)!r} with tuned values: {solver}'s on "
                f"{dataset!r} were tuned with {key}={value!r} "
                f"(benchmark_utils/tuned.py SETTINGS), got {given!r}; give "
                "numbers instead of 'tuned' to run another setting")
        out[key] = value
    return out


def _number(value):
    """A value as the tables print it: ``inf``, ``4/7`` for sevenths and
    thirds, else ``%g``; strings as they are."""
    if isinstance(value, str):
        return value
    if value == math.inf:
        return "inf"
    frac = Fraction(value).limit_denominator(12)
    if frac.denominator in (3, 7) and float(frac) == value:
        return f"{frac.numerator}/{frac.denominator}"
    return f"{value:g}"


def markdown_table(datasets=None):
    """The tuned values as a Markdown table, one row per solver and one
    column per dataset: ``step_size / outer_ratio`` (and ``R``); a ``*``
    marks an entry with a setting (``settings_markdown``)."""
    datasets = list(datasets or TUNED)
    solvers = []
    for dataset in datasets:
        solvers += [s for s in TUNED[dataset] if s not in solvers]
    rows = ["| solver | " + " | ".join(datasets) + " |",
            "|---" * (len(datasets) + 1) + "|"]
    for solver in solvers:
        cells = []
        for dataset in datasets:
            entry = TUNED[dataset].get(solver)
            if entry is None:
                cells.append("—")
                continue
            cell = (f"{_number(entry['step_size'])} / "
                    f"{_number(entry['outer_ratio'])}")
            if "R" in entry:
                cell += f", R {_number(entry['R'])}"
            if solver in SETTINGS.get(dataset, {}):
                cell += " *"
            cells.append(cell)
        rows.append(f"| {solver} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def settings_markdown(datasets=None):
    """The settings of the entries marked ``*``, one Markdown item each."""
    lines = []
    for dataset in list(datasets or TUNED):
        for solver, values in SETTINGS.get(dataset, {}).items():
            text = ", ".join(f"{key} = {_number(value)}"
                             for key, value in sorted(values.items()))
            lines.append(f"- {solver} on {dataset}: {text}")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    print(markdown_table(sys.argv[1:] or None))
    print()
    print(settings_markdown(sys.argv[1:] or None))
