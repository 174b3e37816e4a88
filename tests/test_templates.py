"""The contributor's templates (``solvers/template_solver.py``,
``datasets/template_dataset.py``) keep working: benchopt does not list
them, they load from their paths, the dataset meets the contract, the
solver is its setting of the generic PnPBO solver, and both run end to end
through benchopt."""
import os

import numpy as np
import pytest
from benchopt.utils.run_context import RunContext

from bench_helpers import ROOT, benchmark, run_benchopt, solver_class

SOLVER = os.path.join(ROOT, "solvers", "template_solver.py")
DATASET = os.path.join(ROOT, "datasets", "template_dataset.py")
TINY = dict(n_samples=120, n_features=5)
SETTING = dict(estimator_x="saga", estimator_y="page",
               estimator_z="zerosarah", ma="on")


def _template_solver():
    (cls,) = benchmark().check_solver_patterns([SOLVER], class_only=True)
    return cls


def _template_objective(**params):
    (cls,) = benchmark().check_dataset_patterns([DATASET], class_only=True)
    dataset = cls.get_instance(**params)
    objective = benchmark().get_benchmark_objective().get_instance()
    RunContext().set_run_context(objective, dataset, "dummy", repetition=0,
                                 base_seed=0)
    objective._set_dataset(dataset)
    return objective


def _run(solver, objective, n_points=4):
    # 2 epochs per call: past the first iteration's full pass
    solver.set_objective(**dict(objective.get_objective(), eval_epochs=2.0))
    points = []

    def callback():
        points.append(objective.evaluate_result(**solver.get_result()))
        return len(points) < n_points

    solver.run(callback)
    return points, solver.get_result()


def test_benchopt_does_not_list_them():
    bench = benchmark()
    assert "Template" not in bench.get_solver_names()
    assert "Template" not in bench.get_dataset_names()
    assert _template_solver().name == "Template"


def test_the_dataset_meets_the_contract():
    objective = _template_objective(**TINY)
    problem = objective.problem
    assert problem.task == "logreg"
    assert (problem.m, problem.n, problem.dim_x) == (60, 30, 5)
    assert set(np.unique(problem.yg)) == {-1.0, 1.0}
    # standardised with the training split's statistics
    assert np.allclose(problem.Xg.mean(axis=0), 0.0)
    assert np.allclose(problem.Xg.std(axis=0), 1.0)


def test_the_solver_is_its_setting_of_pnpbo():
    objective = _template_objective(**TINY)
    template = _template_solver().get_instance(batch_size=8)
    points, result = _run(template, objective)
    for point in points[1:]:
        assert point["diverged"] == 0 and np.isfinite(point["value"])
    assert points[-1]["n_samples"] > 0
    assert points[-1]["value"] < points[0]["value"]
    generic = solver_class("PnPBO").get_instance(batch_size=8, **SETTING)
    _, expected = _run(generic, objective)
    for key in "xyz":
        assert np.array_equal(result[key], expected[key]), key
    assert template.cfg == generic.cfg


@pytest.mark.slow
def test_both_run_through_benchopt(tmp_path):
    df, status = run_benchopt(
        tmp_path, "-d", f"{DATASET}[n_samples=120,n_features=5]",
        "-s", f"{SOLVER}[batch_size=8]", "-s", "SPABA[batch_size=8]",
        "-n", "3", "-r", "1")
    assert sorted(name.split("[")[0] for name in status) == \
        ["SPABA", "Template"], status
    assert all(s.startswith("done") for s in status.values()), status
    assert set(df["dataset_name"].str.split("[").str[0]) == {"Template"}
    assert np.isfinite(df["objective_value"]).all()
