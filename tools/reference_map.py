"""benchmark_bilevel's selection lines in this benchmark's names and
parameters, for ``tools.from_reference``.

``solver_line(line, sizes)`` and ``dataset_line(line)`` each return the
converted line (None when there is no counterpart) and the messages of
the conversion, ``("warning", text)`` for what could not be carried over
and why, ``("note", text)`` for what was converted and how.  The
conventions they follow are those of docs/baselines.md "Differences from
benchmark_bilevel"; the settings that make our solvers run the
reference's algorithms are ``benchmark_utils.reference_settings``.
"""
import itertools

from benchmark_utils.algorithms import ALGORITHMS, config_of, defaults
from benchmark_utils.data.sizes import levels
from benchmark_utils.reference_settings import REASONS, SETTINGS, \
    srba_period

from .reference_lines import read_line, text_of, values_of, write_line

# The reference's solvers that have no counterpart here
NO_COUNTERPART = {
    "jaxopt_gd": "jaxopt_GD (implicit differentiation with jaxopt)",
    "jaxopt_itd": "jaxopt_ITD (unrolled differentiation with jaxopt)",
}
# Our solvers by the reference's name (the same names, matched without case)
SOLVER_NAMES = {name.lower(): name for name in ALGORITHMS}

# What our solvers do differently from the reference's where no parameter
# can say it (docs/baselines.md "Differences from benchmark_bilevel")
ORDER_NOTES = {
    "BSA": "the reference takes the hypergradient at y_k before the y loop "
           "and runs that loop at x_{k+1} with the step index of k; ours "
           "follows Ghadimi and Wang (y loop, then the hypergradient at the "
           "new y): not a parameter, tuned steps may not carry over exactly",
    "TTSA": "the reference reuses the y step's batch in the cross term; "
            "ours draws a fresh one: not a parameter",
}
_MAX_CHECKS = 256  # combinations of a grid line validated


def solver_line(line, sizes=None):
    """``(our line or None, messages)`` of a reference solver line;
    ``sizes = (n, m)`` of its dataset, for SRBA's ``period_frac``."""
    name, params, problems = read_line(line)
    messages = [("warning", text) for text in problems]
    ours = SOLVER_NAMES.get(name.lower())
    if ours is None:
        why = NO_COUNTERPART.get(name.lower(), "not a solver of benchmark_"
                                 "bilevel that this benchmark knows")
        return None, messages + [("warning", f"solver {name}: {why}; the "
                                  "line is left out")]
    out = {}
    for key, text in params.items():
        _convert_parameter(ours, key, text, out, messages, sizes, params)
    for key, value in SETTINGS.get(ours, {}).items():
        if key not in out:
            out[key] = text_of([value])
    if "sampling" not in out and "sampling" in defaults(ours):
        out["sampling"] = "blocks"
        messages.append(("note", "sampling=blocks: the reference reads "
                         "contiguous blocks of rows, ours closest scheme "
                         "(docs/solvers.md 'Choosing sampling')"))
    if ours in SETTINGS:
        messages.append(("note", f"{ours}: {REASONS[ours]}: set "
                         + ", ".join(f"{k}={text_of([v])}"
                                     for k, v in SETTINGS[ours].items())))
    if ours in ORDER_NOTES:
        messages.append(("warning", f"{ours}: {ORDER_NOTES[ours]}"))
    messages += _check(ours, out, sizes)
    return write_line(ours, out), messages


def _convert_parameter(ours, key, text, out, messages, sizes, params):
    """Put reference parameter ``key = text`` of solver ``ours`` into
    ``out`` (our names), or say in ``messages`` why not."""
    if key == "framework":
        messages.append(("note", f"framework={text} dropped (the "
                         "reference's choice of JAX or numba code; one "
                         "implementation here)"))
    elif ours == "SABA" and key in ("mode_init_memory", "init_memory"):
        messages.append(("note", f"SABA: {key}={text} dropped: the "
                         "reference's SABA does not read it and always "
                         "starts from a zero memory"))
    elif ours == "SRBA" and key == "period_frac":
        _srba_period(text, out, messages, sizes, params)
    elif ours == "AmIGO" and key == "n_inner_steps":
        out["n_inner_steps"] = out["n_z_steps"] = text
        messages.append(("note", f"AmIGO: n_inner_steps={text} sets both "
                         "inner loops there: n_inner_steps and n_z_steps "
                         "here"))
    elif key == "batch_size" and "full" in str(values_of(text)):
        messages.append(("warning", f"{ours}: batch_size={text} dropped: "
                         "full batches of both levels (two sizes) are not "
                         "a batch_size here; give the number"))
    elif key in defaults(ours):
        out[key] = text
    else:
        messages.append(("warning", f"{ours}: parameter {key}={text} "
                         f"dropped: {ours} has no such parameter here (its "
                         f"parameters: {', '.join(defaults(ours))})"))


def _srba_period(text, out, messages, sizes, params):
    """SRBA's ``period_frac`` as our ``period`` (needs ``sizes``)."""
    if sizes is None:
        messages.append(("warning", f"SRBA: period_frac={text} dropped: "
                         "our period = int((n + m) period_frac / batch_size) "
                         "needs the dataset's sizes: give --n-samples N M "
                         "or a dataset of known size (ijcnn1, covtype, "
                         "mnist, quadratic); period keeps its default"))
        return
    batch = values_of(params.get("batch_size", "64"))
    if len(batch) > 1:
        messages.append(("warning", "SRBA: several batch sizes: period is "
                         f"computed for batch_size={batch[0]}"))
    periods = [srba_period(v, sizes, batch[0]) for v in values_of(text)]
    out["period"] = text_of(periods)
    messages.append(("note", f"SRBA: period_frac={text} -> period="
                     f"{out['period']} (int((n + m) period_frac / "
                     f"batch_size), n + m = {sum(sizes)})"))


def _check(ours, out, sizes):
    """Warnings for the combinations of ``out`` our solver refuses."""
    keys = list(out)
    grids = [values_of(out[k]) for k in keys]
    messages = []
    for combo in itertools.islice(itertools.product(*grids), _MAX_CHECKS):
        try:
            config_of(ours, sizes=sizes, **dict(zip(keys, combo)))
        except ValueError as err:
            messages.append(("warning", f"{ours}: {err}"))
            break
    return messages


# The reference's datasets: our name, parameter renames, sizes
_DATASETS = {"ijcnn1": "ijcnn1", "covtype": "covtype", "mnist": "mnist",
             "quadratic": "Simulated", "simulated": "Simulated"}
_SPLIT_SEED = ("random_state={text} dropped: the reference's seed of its "
               "split; here the split is drawn from benchopt's seed, so it "
               "differs")
_SIMULATED = (("n_samples_outer", "n", 1024), ("n_samples_inner", "m", 1024),
              ("dim_outer", "dim_x", 100), ("dim_inner", "dim_y", 100),
              ("mu_inner", "mu", 0.1))
MULTINOMIAL_NOTE = (
    "covtype: the regulariser of g is sum_c e^{x_c} |W_c|^2 here (the PnPBO "
    "paper's formula) and half of it in the reference: the same problem "
    "with x shifted by ln 2 (x here = x there - ln 2)")


def dataset_line(line):
    """``(our line or None, sizes or None, messages)`` of a reference
    dataset line; ``sizes = (n, m)`` when they are known."""
    name, params, problems = read_line(line)
    messages = [("warning", text) for text in problems]
    ours = _DATASETS.get(name.lower())
    if ours is None:
        return None, None, messages + [("warning", f"dataset {name}: no "
                                        "counterpart here; left out")]
    if ours == "Simulated":
        return _simulated(params, messages)
    out = {}
    for key, text in params.items():
        if key == "random_state":
            messages.append(("warning", f"{name}: "
                             + _SPLIT_SEED.format(text=text)))
        elif key == "reg_parametrization" and ours != "mnist":
            level = "note" if values_of(text) == ["exp"] else "warning"
            messages.append((level, f"{name}: reg_parametrization={text} "
                             "dropped: the weights are e^x here, always"))
        elif ours == "mnist" and key == "ratio":
            out["ratio"] = text
        elif ours == "mnist" and key == "reg":
            out["l2_reg"] = text
        elif ours == "mnist" and key == "oracle":
            level = "note" if values_of(text) == ["datacleaning"] else \
                "warning"
            messages.append((level, f"mnist: oracle={text} dropped: mnist "
                             "is the hyper-cleaning task here"))
        else:
            messages.append(("warning", f"{name}: parameter {key}={text} "
                             "dropped: no such parameter here"))
    if ours == "covtype":
        messages.append(("warning", MULTINOMIAL_NOTE))
    return write_line(ours, out), levels(ours), messages


def _simulated(params, messages):
    """The reference's quadratic as our Simulated: sizes and mu carried
    over (its defaults where the line has none), the rest named."""
    messages.append(("warning", "quadratic: our Simulated is another "
                     "generator of quadratic problems: sizes, dimensions "
                     "and mu carried over, not the problem itself"))
    out, taken = {}, set()
    for theirs, key, default in _SIMULATED:
        out[key] = text_of(values_of(params.get(theirs, str(default))))
        taken.add(theirs)
    for key, text in params.items():
        if key == "random_state":
            messages.append(("warning", "quadratic: "
                             + _SPLIT_SEED.format(text=text)))
        elif key == "oracle" and values_of(text) == ["quadratic"]:
            messages.append(("note", "quadratic: oracle=quadratic dropped"))
        elif key not in taken:
            messages.append(("warning", f"quadratic: parameter {key}={text} "
                             "dropped: no counterpart in Simulated"))
    n, m = (values_of(out[k]) for k in ("n", "m"))
    sizes = (n[0], m[0]) if len(n) == len(m) == 1 else None
    return write_line("Simulated", out), sizes, messages
