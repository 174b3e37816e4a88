"""``random_state``, a parameter of every solver (benchmark_bilevel's):
None keeps the seed the Objective passes; an integer replaces it, so that
runs with the same ``random_state`` draw the same batches (bitwise equal
iterates from one starting point, whatever the Objective's seed) and runs
with different ones do not; a bad value is named."""
import math

import numpy as np
import pytest

from bench_helpers import objective_for, solver_class
from benchmark_utils.algorithms import ALGORITHMS, config_of, run_seed

SMALL = dict(n=200, m=300, dim_x=5, dim_y=10)


def _iterates(name, objective_seed, random_state, sampling="uniform"):
    """x, y, z after 2 grid steps of 2 epochs of ``name`` (past the full
    pass of init=full) from one starting point, the Objective's seed being
    ``objective_seed``."""
    objective = objective_for(SMALL)
    kwargs = objective.get_objective()
    kwargs["seed"] = objective_seed
    kwargs["eval_epochs"] = 2.0
    solver = solver_class(name).get_instance(
        batch_size=16, random_state=random_state,
        sampling=sampling)
    solver.set_objective(**kwargs)
    calls = iter(range(3))
    solver.run(lambda: next(calls, None) is not None)
    result = solver.get_result()
    return [np.array(result[key]) for key in "xyz"]


def _same(a, b):
    return all(np.array_equal(u, v) for u, v in zip(a, b))


@pytest.mark.parametrize("name, sampling", [
    ("SPABA", "uniform"), ("SRBA", "blocks"), ("StocBiO", "uniform"),
    ("F2SA", "blocks")])
def test_equal_random_state_gives_equal_iterates(name, sampling):
    a = _iterates(name, 11, 5, sampling)
    b = _iterates(name, 12, 5, sampling)
    assert _same(a, b)
    assert not _same(a, _iterates(name, 11, 6, sampling))


def test_none_keeps_the_objectives_seed():
    a = _iterates("SABA", 11, None)
    assert _same(a, _iterates("SABA", 11, None))
    assert not _same(a, _iterates("SABA", 12, None))
    # random_state=11 is the Objective's seed 11
    assert _same(a, _iterates("SABA", 3, 11))


def test_every_solver_has_it():
    for name in ALGORITHMS:
        assert solver_class(name).parameters["random_state"] == [None]
        assert config_of(name, random_state=3) == config_of(name)


@pytest.mark.parametrize("value", [-1, 2.5, "abc", math.nan, True])
def test_a_bad_value_is_named(value):
    message = "random_state must be an integer >= 0 or None, got"
    with pytest.raises(ValueError, match=message):
        config_of("SPABA", random_state=value)
    with pytest.raises(ValueError, match=message):
        config_of("MRBO", random_state=value)
    with pytest.raises(ValueError, match=message):
        run_seed(0, value)


def test_run_seed():
    assert run_seed(7) == 7
    assert run_seed(7, None) == 7
    assert run_seed(7, 3) == 3
    assert run_seed(7, 3.0) == 3
