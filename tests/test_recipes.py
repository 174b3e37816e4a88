"""The recipes of docs/contributing.md, made as a contributor makes them.

A copy of the package gets, one recipe after the other, a setting of
Algorithm 1, an estimator with a parameter of its own, a baseline in an
existing family, a throw-away loop family and a throw-away task, each
written into the files its recipe names; the files each recipe changed
are compared with the recipe's list and with the count
docs/contributing.md states.  A fresh process then imports the copy and
runs each addition through the compiled engine against something it must
equal: the generic PnPBO solver (the setting; the estimator, as SGD with
a scaled step), the baseline it copies (the new baseline), a NumPy
transcription (the family), the quadratic task (the task, a copy of it).
A new family must leave the single loop's cache key where it was.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark_utils import numba_cache

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "benchmark_utils"
TESTS = ROOT / "tests"

# The family: one LL step on y, then one UL step on x scaled by its own
# parameter; its state counts its outer iterations.
TOY_FAMILY = '''"""A throw-away loop family: y_{k+1} = y_k - beta_k grad_y g_J(x_k,
y_k), then x_{k+1} = x_k - alpha_k s grad_x f_I(x_k, y_{k+1}), s its own
parameter; its state counts the outer iterations."""
from typing import NamedTuple

import numpy as np

from ..core.oracles import reg_at
from ..core.records import F, G
from ..core.schedule import schedule
from ..core.solves import NEUMANN, fresh, grad_y_g, ul_pass
from ..numba_cache import njit
from . import Family, Parameter


class Params(NamedTuple):
    toy_scale: float


class State(NamedTuple):
    count: np.ndarray


def state(config, dims, y0):
    return State(count=np.zeros(1))


@njit(cache=True, inline="always")
def toy_iteration(model, levels, iterates, work, cfg, stream, k):
    b = cfg.batch
    x, y = iterates.x, iterates.y
    ids = fresh(stream, levels[G], b, cfg.blocks)
    grad_y_g(model, levels, stream, ids, b, x, y, work.gy, work)
    beta_k = schedule(cfg.beta, cfg.exp_y, k)
    for c in range(y.shape[0]):
        y[c] -= beta_k * work.gy[c]
    ids = fresh(stream, levels[F], b, cfg.blocks)
    ul_pass(model, levels, stream, ids, b, (x, y), (work.ux, work.r), work)
    reg_at(model, x, y, work.zero, work.rx, work.ry, work.rz, True)
    alpha_k = schedule(cfg.alpha, cfg.exp_x, k)
    for c in range(x.shape[0]):
        x[c] -= alpha_k * cfg.own.toy_scale * (work.ux[c] + work.rx[c])
    work.own.count[0] += 1.0


FAMILY = Family(
    marker="Toy", label="toy", iteration=toy_iteration,
    algorithms={"ToyGD": NEUMANN},
    parameters={"toy_scale": Parameter(0.5, "positive", "the scale s")},
    params=Params, state=state)
'''

# The estimator: plain minibatch estimates scaled by its own parameter s,
# v_k = s grad_P(u_k) ([0, 0, s, 0, 0, 0, 0]).
ESTIMATOR_EDITS = [
    ("core/estimators.py",
     "SGD, SAGA, SARAH, STORM, PAGE, ZEROSARAH = 0, 1, 2, 3, 4, 5\n",
     "SGD, SAGA, SARAH, STORM, PAGE, ZEROSARAH = 0, 1, 2, 3, 4, 5\n"
     "SCALED = 6\n"),
    ("core/estimators.py", '"page": PAGE, "zerosarah": ZEROSARAH}',
     '"page": PAGE, "zerosarah": ZEROSARAH, "scaled": SCALED}'),
    ("core/estimators.py", 'ZEROSARAH: ("rho_bar", "unit")}',
     'ZEROSARAH: ("rho_bar", "unit"),\n'
     '              SCALED: ("sgd_scale", "unit")}'),
    ("core/estimators.py", "    if kind == SGD:\n        return\n",
     "    if kind == SGD:\n        return\n"
     "    if kind == SCALED:\n        out[A_CUR] = theta[SCALED]\n"
     "        return\n"),
    ("algorithms/pnpbo.py", "    storm_a: float = 0.1\n",
     "    storm_a: float = 0.1\n    sgd_scale: float = 1.0\n"),
    ("algorithms/table.py", '"period", "init", "large_batch"), D)),',
     '"period", "init", "large_batch", "sgd_scale"), D)),'),
]

# The setting: SGD with a moving average of weight 0.3 on x.
SETTING_EDITS = [
    ("algorithms/table.py", '    "SABA": _single_loop(',
     '    "Toy-MA-SGD": _single_loop("sgd", "on", rho=0.3, R=math.inf),\n'
     '    "SABA": _single_loop('),
]

# A baseline in an existing family: BSA under another name (the inner-loop
# family with HIA).
BASELINE_EDITS = [
    ("families/inner_loop.py", '"TTSA": HIA},', '"TTSA": HIA, "ToyBSA": HIA},'),
    ("algorithms/table.py", "    # benchmark_bilevel's jaxopt_GD",
     '    "ToyBSA": _baseline("ToyBSA", **_HESSIAN, exponent_x=0.5,\n'
     "                        exponent_y=0.5, n_inner_steps=D,\n"
     "                        n_hia_steps=D),\n"
     "    # benchmark_bilevel's jaxopt_GD"),
]

FAMILY_EDITS = [
    ("families/toy.py", None, TOY_FAMILY),
    ("families/loop.py", "restart, unrolled\n", "restart, toy, unrolled\n"),
    ("families/loop.py", "    hessian_free.ZEROTH_ORDER,\n",
     "    hessian_free.ZEROTH_ORDER,\n    toy.FAMILY,\n"),
    ("algorithms/table.py", "    # benchmark_bilevel's jaxopt_GD",
     '    "ToyGD": _baseline("ToyGD", toy_scale=D),\n'
     "    # benchmark_bilevel's jaxopt_GD"),
]


def _task_edits(copy):
    """The task: the quadratic task's module under another name (its
    kernels, checks and SPEC), and its line of ``MODULES``."""
    source = (copy / "tasks" / "quadratic.py").read_text()
    assert source.count('name="quadratic"') == 1
    return [
        ("tasks/toyquad.py", None,
         source.replace('name="quadratic"', 'name="toyquad"')),
        ("tasks/__init__.py",
         "from . import datacleaning, logreg, multilogreg, quadratic\n",
         "from . import datacleaning, logreg, multilogreg, quadratic, "
         "toyquad\n"),
        ("tasks/__init__.py",
         "MODULES = (quadratic, logreg, multilogreg, datacleaning)",
         "MODULES = (quadratic, logreg, multilogreg, datacleaning, toyquad)"),
    ]


# What the copy runs; it prints what the tests assert.
SCRIPT = '''
import json
from types import SimpleNamespace
import numpy as np
from benchmark_utils import engine
from benchmark_utils.algorithms import config_of, run_of
from benchmark_utils.problem import problem_from_data
from benchmark_utils.simulated import make_quadratic
from conftest import start_point
from reference_baselines import _Reference

out = {}
data = make_quadratic(n=40, m=50, dim_x=3, dim_y=4, seed=3)
problem = problem_from_data(**data)
x0, y0, z0 = start_point(data, 2)


def iterates(name, n_iter=6, problem=problem, **values):
    run = run_of(problem, config_of(name, **values), x0, y0, z0, 7)
    run.run(n_iter)
    return run, np.concatenate([run.x, run.y, run.z])


def gap(a, b):
    return float(np.max(np.abs(a - b)) / max(1.0, np.linalg.norm(b)))


steps = dict(batch_size=5, step_size=0.1, outer_ratio=2.0)
# the setting, against the generic solver
_, a = iterates("Toy-MA-SGD", **steps)
_, b = iterates("PnPBO", estimator_x="sgd", estimator_y="sgd",
                estimator_z="sgd", ma="on", rho=0.3, R=np.inf, **steps)
out["setting"] = bool(np.array_equal(a, b))
# the estimator: s grad with step c is SGD with step c s (without the
# exact regularisation, which the steps add unscaled)
plain = problem_from_data(**dict(data, ridge=0.0, lam=0.0))
est = dict(estimator_x="scaled", estimator_y="scaled",
           estimator_z="scaled", ma="off", R=np.inf, batch_size=5,
           outer_ratio=2.0, problem=plain)
_, a = iterates("PnPBO", step_size=0.2, sgd_scale=0.5, **est)
_, b = iterates("PnPBO", **dict(est, estimator_x="sgd", estimator_y="sgd",
                                estimator_z="sgd", step_size=0.1))
_, c = iterates("PnPBO", step_size=0.1, sgd_scale=1.0, **est)
out["estimator_at_1"] = bool(np.array_equal(b, c))
out["estimator"] = gap(a, b)
try:
    config_of("PnPBO", estimator_x="scaled", sgd_scale=2.0)
except ValueError as err:
    out["estimator_error"] = str(err)

# the baseline in an existing family, against the one it copies
_, a = iterates("ToyBSA", batch_size=5)
_, b = iterates("BSA", batch_size=5)
out["baseline"] = bool(np.array_equal(a, b))

# the family, against its transcription
try:
    config_of("ToyGD", toy_scale=-1.0)
except ValueError as err:
    out["family_error"] = str(err)
out["family_compiled"] = engine.compile_for("ToyGD")
cfg = config_of("ToyGD", exponent_x=0.5, toy_scale=0.25, **steps)
run = run_of(problem, cfg, x0, y0, z0, 7)


class Toy(_Reference):
    def step(self):
        O, b = self.O, self.b
        J = self.draws.ll(b)
        self.y = self.y - self.beta() * O.grad_y_g(J, self.x, self.y)
        I = self.draws.ul(b)
        d = O.grad_x_f(I, self.x, self.y)
        self.x = self.x - self.alpha() * self.cfg.toy_scale * d
        self.n_samples += 2 * b


ref = Toy(data, SimpleNamespace(**vars(cfg)), x0, y0, z0, 7)
worst = 0.0
for _ in range(6):
    run.run(1)
    ref.run(1)
    worst = max(worst, gap(run.x, ref.x), gap(run.y, ref.y))
out.update(family=worst, family_count=float(run.work.own.count[0]),
           family_samples=[run.n_samples, ref.n_samples])

# the task, a copy of the quadratic task's kernels under its own name
out["task_compiled"] = engine.compile_for("SPABA", task="toyquad")
toy = problem_from_data(**dict(data, task="toyquad"))
for name in ("SPABA", "stocBiO"):
    solver = "StocBiO" if name == "stocBiO" else name
    _, a = iterates(solver, problem=toy, batch_size=5)
    _, b = iterates(solver, batch_size=5)
    out[f"task_{name}"] = bool(np.array_equal(a, b))
print(json.dumps(out))
'''


def _apply(copy, edits):
    """Write ``edits`` (path, old, new; ``old`` None: a new file) into the
    copy; the set of files they touched."""
    for rel, old, new in edits:
        path = copy / rel
        if old is None:
            assert not path.exists()
            path.write_text(new)
            continue
        text = path.read_text()
        assert text.count(old) == 1, f"{rel}: {old!r} not found once"
        path.write_text(text.replace(old, new))
    return {rel for rel, _, _ in edits}


def _changed(copy):
    """The package files the copy adds or changes (relative paths)."""
    out = set()
    for path in copy.rglob("*.py"):
        rel = str(path.relative_to(copy))
        original = PACKAGE / rel
        if not original.is_file() or original.read_bytes() != \
                path.read_bytes():
            out.add(rel)
    return out


def _single_loop_key(copy):
    """What the single loop's cache key on the quadratic task hashes in
    ``copy``: the sources it depends on, by name."""
    sources = numba_cache._Sources(copy)
    return [(str(path.relative_to(copy)), sources.text[path])
            for path in numba_cache.dependencies(
                copy / "core" / "single_loop.py", ("Quadratic",), sources)]


def _stated_count(recipe, which):
    """The file count docs/contributing.md states for ``recipe`` (its
    bold title): the number after "Files:" in its paragraph (``which``
    1: the one after "or", the recipe's larger variant)."""
    text = (ROOT / "docs" / "contributing.md").read_text()
    start = text.index(f"**{recipe}**")
    end = text.find("\n\n", start)
    found = re.search(r"Files: (\d+)(?:, or (\d+))?", text[start:end])
    assert found, f"docs/contributing.md: no 'Files:' in {recipe!r}"
    return int(found.group(1 + which))


@pytest.fixture(scope="module")
def recipes(tmp_path_factory):
    """The copy with every recipe made, each recipe's touched files, and
    what the copy's run printed."""
    root = tmp_path_factory.mktemp("recipes")
    copy = root / "benchmark_utils"
    shutil.copytree(PACKAGE, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    touched, keys = {}, {}
    for recipe, edits in (("A setting of Algorithm 1", SETTING_EDITS),
                          ("An estimator", ESTIMATOR_EDITS),
                          ("A baseline in an existing family",
                           BASELINE_EDITS),
                          ("A loop family", FAMILY_EDITS),
                          ("A task", _task_edits(copy))):
        before, key = _changed(copy), _single_loop_key(copy)
        touched[recipe] = _apply(copy, edits)
        assert _changed(copy) - before <= touched[recipe]
        keys[recipe] = (key, _single_loop_key(copy))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(root / "cache"),
               PYTHONPATH=os.pathsep.join([str(root), str(TESTS)]))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return touched, keys, out


RECIPES = {
    # recipe: (the files it touches, how many of them the count leaves
    # apart (the algorithm's entry, counted with its solver file), which
    # count of the recipe: 0 the first, 1 the one after "or")
    "A setting of Algorithm 1": ({"algorithms/table.py"}, 0, 0),
    # with a parameter of its own
    "An estimator": ({"core/estimators.py", "algorithms/pnpbo.py",
                      "algorithms/table.py"}, 0, 1),
    "A baseline in an existing family": ({"families/inner_loop.py",
                                          "algorithms/table.py"}, 0, 0),
    "A loop family": ({"families/toy.py", "families/loop.py",
                       "algorithms/table.py"}, 1, 0),
    # without an oracle of its own
    "A task": ({"tasks/toyquad.py", "tasks/__init__.py"}, 0, 0),
}


@pytest.mark.slow
@pytest.mark.parametrize("recipe", RECIPES)
def test_a_recipe_touches_the_files_it_names_only(recipes, recipe):
    touched = recipes[0]
    files, apart, which = RECIPES[recipe]
    assert touched[recipe] == files
    assert _stated_count(recipe, which) == len(files) - apart


@pytest.mark.slow
def test_a_new_setting_is_the_generic_solver(recipes):
    assert recipes[2]["setting"] is True


@pytest.mark.slow
def test_a_new_estimator_runs_with_its_parameter_checked(recipes):
    out = recipes[2]
    assert out["estimator"] < 1e-12
    assert out["estimator_at_1"] is True  # s = 1: SGD bit for bit
    assert out["estimator_error"] == \
        "sgd_scale must be in (0, 1], got 2.0"


@pytest.mark.slow
def test_a_new_baseline_of_a_family_runs_as_the_one_it_copies(recipes):
    assert recipes[2]["baseline"] is True


@pytest.mark.slow
def test_a_new_family_runs_its_transcription_with_its_own_records(recipes):
    out = recipes[2]
    assert out["family_error"] == \
        "toy_scale must be a finite number > 0, got -1.0"
    assert out["family_compiled"] is True
    assert out["family"] < 1e-12
    assert out["family_count"] == 6.0
    assert out["family_samples"] == [6 * 2 * 5] * 2
    # a new family leaves the single loop in numba's cache; an estimator
    # does not (the test would see a key that never moves)
    keys = recipes[1]
    assert keys["A loop family"][0] == keys["A loop family"][1]
    assert keys["An estimator"][0] != keys["An estimator"][1]


@pytest.mark.slow
def test_a_new_task_compiles_and_runs_as_its_kernels_say(recipes):
    out = recipes[2]
    assert out["task_compiled"] is True
    assert out["task_SPABA"] is True and out["task_stocBiO"] is True
