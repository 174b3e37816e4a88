"""Does every run of a config stay finite over the longest run it can make?

    python -m tools.run_horizon [--config configs/quick.yml]
        [--dataset breast_cancer,wine] [--solver MA-SOBA,SABA]

benchopt evaluates a callback run at callback calls 0, 1, 2, 3, 4, 6, 9, ...
(``stopping.py``) and ends it at the config's ``max-runs`` points or at its
``timeout``; call c is at ``c * eval_epochs`` epochs, the Objective's grid
of sample evaluations (docs/metrics.md).  How far a run gets therefore
depends on the machine's speed, up to a cap that does not: the sample
count of the last point's callback call (``max-runs: N`` gives N + 1
points; ``quick.yml``: 26 points, call 18 207).  A step that stays stable
for the 4 s of a run here can diverge on a faster machine, which runs
further (docs/comparisons.md "Compare solvers", "Tuned parameters").

This tool builds each (dataset, solver) of the config as benchopt does
(benchopt's default ``--seed``, repetition 0, ``tuned`` values resolved by
the solver, the config's ``eval_epochs`` if it sets one), runs it for the
cap without the clock, and prints the iteration at which it diverged, if
it did.  It exits with status 1 when a
run diverged.
"""
import argparse
import sys
import time
from pathlib import Path

import yaml
from benchopt.benchmark import Benchmark
from benchopt.stopping_criterion import RHO
from benchopt.utils.parametrized_name_mixin import _extract_options
from benchopt.utils.run_context import RunContext

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 1 << 17  # iterations between two progress checks


def callback_calls(max_runs):
    """The callback count of a run's ``max_runs``-th point (points at
    calls 0, 1, 2, 3, 4, 6, 9, ...: ``max(k + 1, int(RHO k))``)."""
    k = 0
    for _ in range(max_runs - 1):
        k = max(k + 1, int(RHO * k))
    return k


def _instance(classes, spec):
    """The benchopt instance of ``spec`` ('NAME[key=value,...]')."""
    name, _, params = _extract_options(spec)
    cls = next((c for c in classes if c.name == name), None)
    if cls is None:
        raise SystemExit(f"no solver or dataset named {name!r}; known: "
                         f"{sorted(c.name for c in classes)}")
    values = {key: v[0] if isinstance(v, list) and len(v) == 1 else v
              for key, v in params.items()}
    for key, v in values.items():
        if isinstance(v, list):
            raise SystemExit(f"{spec}: one value per parameter please "
                             f"({key} = {v})")
    return cls.get_instance(**values)


def horizon_run(bench, dataset_spec, solver_spec, max_runs,
                objective_spec="Bilevel Optimization"):
    """(iterations run, samples of the cap, diverged) of one run over the
    config's cap: the sample count of the callback call of its last point,
    the (``max_runs`` + 1)-th."""
    dataset = _instance(bench.get_datasets(), dataset_spec)
    objective = _instance([bench.get_benchmark_objective()], objective_spec)
    RunContext().set_run_context(objective, dataset, "horizon",
                                 repetition=0, base_seed=0)
    objective._set_dataset(dataset)
    solver = _instance(bench.get_solvers(), solver_spec)
    solver.set_objective(**objective.get_objective())
    state = solver.state
    total = solver.grid_target(callback_calls(max_runs + 1))
    while state.n_samples < total and not state.diverged:
        state.run_until(total, max_iter=CHUNK)
    return state.iteration, total, bool(state.diverged)


def config_objective(config):
    """The config's one objective spec (``Bilevel Optimization`` when it
    names none)."""
    specs = config.get("objective") or ["Bilevel Optimization"]
    specs = [specs] if isinstance(specs, str) else specs
    if len(specs) != 1:
        raise SystemExit(f"one objective per config please, got {specs}")
    return specs[0]


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs/quick.yml"))
    parser.add_argument("--dataset", default="",
                        help="comma-separated substrings of the config's "
                             "datasets to keep (default: all)")
    parser.add_argument("--solver", default="",
                        help="comma-separated solver names to keep")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    config = yaml.safe_load(Path(args.config).read_text())
    max_runs = int(config.get("max-runs", 100))
    objective = config_objective(config)
    keep_d = [s for s in args.dataset.split(",") if s]
    keep_s = [s for s in args.solver.split(",") if s]
    datasets = [d for d in config["dataset"]
                if not keep_d or any(k in d for k in keep_d)]
    solvers = [s for s in config["solver"]
               if not keep_s or _extract_options(s)[0] in keep_s]
    bench = Benchmark(str(ROOT))
    diverged = 0
    for d in datasets:
        for s in solvers:
            t0 = time.perf_counter()
            k, total, div = horizon_run(bench, d, s, max_runs, objective)
            status = f"DIVERGED at iteration {k}" if div else "finite"
            print(f"{d:15s} {s:55s} {status} ({k} iterations, {total} "
                  f"samples, {time.perf_counter() - t0:.1f} s)", flush=True)
            diverged += div
    print(f"{diverged} of {len(datasets) * len(solvers)} runs diverged "
          f"within {max_runs} points")
    return 1 if diverged else 0


if __name__ == "__main__":
    sys.exit(main())
