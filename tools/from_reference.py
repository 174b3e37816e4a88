"""Convert a benchmark_bilevel configuration into this benchmark's.

    python -m tools.from_reference <config.yml | "SOLVER[key=value,...]">
        [--dataset ijcnn1|covtype|mnist] [--n-samples N M]
        [--write out.yml]

benchmark_bilevel (benchopt/benchmark_bilevel, the JAX benchmark whose
tuned values the PnPBO paper reuses) names most solvers and parameters as
this benchmark does, but not all of its conventions are ours
(docs/baselines.md "Differences from benchmark_bilevel").  This tool maps
its solver and dataset names and their parameters: ``framework`` is
dropped, ``random_state`` kept, SRBA's ``period_frac`` becomes our
``period`` = int((n + m) period_frac / batch_size) with n + m from the
dataset (ijcnn1, covtype, mnist: ``benchmark_utils/data/sizes.py``; the
quadratic: its sizes) or ``--n-samples``, AmIGO's ``n_inner_steps`` sets
both of our inner loops, and the settings that make our solvers run the
reference's algorithms are added (SRBA unclipped, SABA's zero-memory
start, F2SA's exponents, BOME and PZOBO on full batches:
``benchmark_utils.reference_settings``; and
``sampling=blocks``, the closest to its contiguous batches).

Everything that is not carried over is printed on stderr as a
``warning:`` line naming it and why, what was converted as a ``note:``
line; ``--write`` also keeps them as comments at the top of the file.
The converted configuration (or line) goes to stdout, or to ``--write``.

A source that is not YAML, or not a mapping of run options, is refused
naming the file; so is one where no solver line converts (only
``jaxopt_*`` solvers, or none): benchopt reads ``solver: []`` as every
solver of the benchmark.
"""
import argparse
import sys
from pathlib import Path

import yaml

from benchmark_utils.data.sizes import SIZES, levels
from tools.arguments import refuse_inputs

from .reference_map import dataset_line, solver_line

OBJECTIVE = "Bilevel Optimization"


def convert_config(spec, sizes=None):
    """``(our config dict, messages)`` of a reference config dict;
    ``sizes = (n, m)`` overrides the datasets' (for SRBA's period)."""
    spec = dict(spec or {})
    messages = []
    out = {}
    objectives = spec.pop("objective", None)
    if objectives is not None:
        for name in _as_list(objectives):
            if str(name).split("[")[0].strip() != OBJECTIVE:
                messages.append(("warning", f"objective {name}: the "
                                 f"objective here is {OBJECTIVE!r}; left "
                                 "out"))
        out["objective"] = [OBJECTIVE]
    datasets, found = [], []
    for line in _as_list(spec.pop("dataset", [])):
        ours, data_sizes, notes = dataset_line(str(line))
        messages += notes
        if ours is not None:
            datasets.append(ours)
            found.append(data_sizes)
    if datasets:
        out["dataset"] = datasets
    if sizes is None:
        sizes = _one_size(found, messages)
    solvers = []
    for line in _as_list(spec.pop("solver", [])):
        ours, notes = solver_line(str(line), sizes)
        messages += notes
        if ours is not None:
            solvers.append(ours)
    out["solver"] = solvers
    out.update(spec)  # benchopt's run options (n-repetitions, timeout, ...)
    return out, _unique(messages)


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _one_size(found, messages):
    """The one ``(n, m)`` of the config's datasets, None (with a warning
    when they differ) otherwise."""
    known = {s for s in found if s is not None}
    if len(known) > 1:
        messages.append(("warning", "the datasets have different sizes: "
                         "SRBA's period needs one, give --n-samples N M "
                         "(or convert one dataset at a time)"))
    return known.pop() if len(known) == 1 else None


def _unique(messages):
    """``messages`` without repeats, in order."""
    return list(dict.fromkeys(messages))


def render(spec, messages):
    """The YAML text of ``spec``, the messages as comments on top."""
    head = "".join(f"# {level}: {text}\n" for level, text in messages)
    body = yaml.safe_dump(spec, sort_keys=False, default_flow_style=False,
                          width=1000)
    return ("# Converted from a benchmark_bilevel configuration by "
            "tools.from_reference.\n" + head + body)


def read_config(path):
    """The reference config dict of the YAML file ``path``; SystemExit
    naming the file when it is not YAML or not a mapping."""
    try:
        spec = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" \
            if where is not None else ""
        problem = getattr(err, "problem", None) or "unreadable"
        raise SystemExit(
            f"source {path}: not valid YAML{at} ({problem}); expected a "
            "benchmark_bilevel run config (a mapping with dataset: and "
            "solver: lists)") from None
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        raise SystemExit(
            f"source {path}: expected a benchmark_bilevel run config, a "
            "mapping of run options (objective:, dataset:, solver:, "
            f"n-repetitions:, ...), got a {type(spec).__name__} at the top "
            "level")
    return spec


def check_converted(spec, messages, source):
    """SystemExit when ``spec`` has no solver line: benchopt would read
    ``solver: []`` (or no ``solver:``) as every solver of the benchmark.
    The message says why no line converted (``messages``' warnings)."""
    if spec.get("solver"):
        return
    left_out = [text for level, text in messages
                if level == "warning" and text.startswith("solver ")]
    why = ("; ".join(left_out) if left_out
           else "it has no solver line")
    raise SystemExit(
        f"source {source}: no solver line converted ({why}); nothing "
        "written: a config without solvers runs every solver of the "
        "benchmark. Give at least one solver this benchmark has.")


def _sizes(args):
    """``(n, m)`` from ``--n-samples`` or ``--dataset``, else None."""
    if args.n_samples is not None:
        n, m = args.n_samples
        if n < 1 or m < 1:
            raise SystemExit(f"--n-samples must be two integers >= 1, got "
                             f"{n} {m}")
        return n, m
    return levels(args.dataset) if args.dataset else None


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tools.from_reference",
        description="Convert a benchmark_bilevel configuration (a .yml "
                    "file or one solver line) into this benchmark's.")
    parser.add_argument("source", help="a benchmark_bilevel config .yml, "
                        "or one solver line such as 'SRBA[period_frac=0.5]'")
    parser.add_argument("--dataset", choices=sorted(SIZES),
                        help="the dataset whose sizes a solver line uses "
                             "(SRBA's period); written with it by --write")
    parser.add_argument("--n-samples", nargs=2, type=int, metavar=("N", "M"),
                        help="upper-level (validation) and lower-level "
                             "(training) samples, for SRBA's period; "
                             "overrides the datasets' sizes")
    parser.add_argument("--write", metavar="OUT.yml",
                        help="write the converted configuration there")
    args = parser.parse_args(argv)
    sizes = _sizes(args)
    path = Path(args.source)
    if path.is_file():
        refuse_inputs(parser, {"--write": args.write},
                      {"the source": path})
    if path.suffix in (".yml", ".yaml") or path.is_file():
        if not path.is_file():
            raise SystemExit(f"source: no such file {args.source}")
        spec, messages = convert_config(read_config(path), sizes)
    else:
        spec = {"dataset": [args.dataset]} if args.dataset else {}
        line, messages = solver_line(args.source, sizes)
        spec["solver"] = [line] if line else []
    for level, text in messages:
        print(f"{level}: {text}", file=sys.stderr)
    check_converted(spec, messages, args.source)
    text = render(spec, messages)
    if args.write:
        Path(args.write).write_text(text)
        print(f"wrote {args.write}", file=sys.stderr)
    elif path.suffix in (".yml", ".yaml") or path.is_file():
        print(text, end="")
    else:
        print(spec["solver"][0] if spec["solver"] else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
