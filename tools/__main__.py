"""``python -m tools``: the benchmark's commands, one line each."""
import sys

from tools.commands import main

COMMANDS = {
    "tune": "tune every solver with the same work (Optuna), resumable",
    "tune.adequacy": "each solver's best-so-far criterion against its work",
    "select": "rank the configurations of a sweep, write the best as a "
              "run config",
    "figures": "the paper's figure layout from a results file, PNG/PDF "
               "and an offline HTML page",
    "offline_page": "make benchopt's HTML page viewable offline",
    "paper_grid": "a run config sweeping the paper's step-size grid",
    "from_reference": "convert a benchmark_bilevel configuration",
    "bench": "speed figures of the numba core",
    "bench.ab": "an A/B of two builds",
    "bench.anchor": "back-to-back speed against the reference benchmark",
    "compile_times": "where numba's compile time goes, function by "
                     "function",
    "compile_log": "what a whole command (a test suite) spends compiling, "
                   "over all its processes",
    "iterate_hashes": "fingerprints of the core's iterates (a refactor "
                      "changed nothing)",
    "sample_complexity": "samples to reach a gradient tolerance as n + m "
                         "grows",
    "z_radius": "the clipping radius R from the data",
    "run_horizon": "does every run of a config stay finite over its "
                   "longest run?",
    "run_cost": "what a benchopt run costs beyond its solvers",
    "inner_margin": "how far each run's y and z went from y*(x), z*(x)",
}
# modules with a ``__main__`` that another command starts, not a user
INTERNAL = ("bench.ab_worker",)

if __name__ == "__main__":
    sys.exit(main("tools", COMMANDS))
