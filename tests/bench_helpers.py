"""Access to the benchmark's classes the way benchopt loads them."""
import os
from functools import lru_cache

from benchopt.benchmark import Benchmark
from benchopt.utils.run_context import RunContext

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@lru_cache(maxsize=1)
def benchmark():
    return Benchmark(ROOT)


def solver_class(name):
    return next(s for s in benchmark().get_solvers() if s.name == name)


def objective_for(dataset_params, repetition=0, base_seed=0,
                  dataset="Simulated"):
    """An Objective instance set on a dataset (Simulated by default)."""
    bench = benchmark()
    ds_cls = next(d for d in bench.get_datasets() if d.name == dataset)
    dataset = ds_cls.get_instance(**dataset_params)
    objective = bench.get_benchmark_objective().get_instance()
    RunContext().set_run_context(objective, dataset, "dummy",
                                 repetition=repetition, base_seed=base_seed)
    objective._set_dataset(dataset)
    return objective
