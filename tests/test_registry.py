"""The task registry (``tasks/registry.py``): one ``TaskSpec`` per task,
read by every Python-side consumer; the numba dispatch covers it; the specs
reproduce, bit for bit, each task written out by hand (parameter
vectors, dimensions, coefficient counts, starting points)."""


import numba
import numpy as np
import pytest

from benchmark_utils import exact_glm, exact_quadratic, metrics
from benchmark_utils import tasks
from benchmark_utils.core import records
from benchmark_utils.problem import make_problem
from benchmark_utils.tasks import dispatch
from benchmark_utils.tasks.registry import BY_CODE, TASK_NAMES, TASKS, \
    get_task
from benchmark_utils.simulated import make_quadratic
from benchmark_utils.problem import problem_from_data, starting_point
from conftest import glm_data

DISPATCH_FUNCS = ("coef", "coef2", "apply", "apply2", "reg", "reg_yz",
                  "gradx_g", "reg_gradx")
# The level entries and the task kernels they call (one per level)
LEVEL_FUNCS = ("coef", "coef2", "apply", "apply2")
PART = {"f": dispatch.F, "g": dispatch.G}


def dataset(task):
    if task == "quadratic":
        return make_quadratic(n=12, m=15, dim_x=3, dim_y=4, seed=3)
    return glm_data(task, n=12, m=15, p=5, C=3, seed=1)


# --------------------------------------------------------------------------
# Each task written out by hand, the reference the registry's specs must
# give.
# --------------------------------------------------------------------------
def reference_params(task, X_train, **params):
    p = np.shape(X_train)[1]
    if task == "quadratic":
        dim_x = int(params["dim_x"])
        dim_y = p - dim_x
        vec = [dim_x, dim_y, params["ridge"], params["lam"]]
    elif task == "logreg":
        dim_x = dim_y = p
        vec = [p]
    elif task == "multilogreg":
        C = int(params["n_classes"])
        dim_x, dim_y = C, p * C
        vec = [p, C]
    elif task == "datacleaning":
        C = int(params["n_classes"])
        dim_x, dim_y = np.shape(X_train)[0], p * C
        vec = [p, C, params["l2_reg"]]
    return np.ascontiguousarray(vec, dtype=np.float64), dim_x, dim_y


def reference_starting_point(task, dx, dy, seed):
    rng = np.random.default_rng(seed)
    if task == "quadratic":
        return (rng.standard_normal(dx), rng.standard_normal(dy),
                0.1 * rng.standard_normal(dy) / np.sqrt(dy))
    c = 0.0 if task == "datacleaning" else np.log(0.01)
    return (c + 0.1 * rng.standard_normal(dx),
            0.01 * rng.standard_normal(dy), np.zeros(dy))


def reference_n_coef(task, params):
    if task in ("quadratic", "logreg"):
        return 1, 2
    C = int(params[1])
    if task == "multilogreg":
        return C, 2 * C
    return C, 2 * C + 1


# --------------------------------------------------------------------------
def test_registry_names_and_codes():
    assert TASK_NAMES == tuple(sorted(TASKS))
    assert set(TASKS) == {"quadratic", "logreg", "multilogreg",
                          "datacleaning"}
    for name, spec in TASKS.items():
        assert spec.name == name
    codes = sorted(spec.code for spec in TASKS.values())
    assert codes == list(range(len(TASKS))), "codes unique, contiguous"
    # a task's code is its place in tasks.MODULES, and its marker's class
    # is named after it (numba's cache pickles the class by that name)
    assert {c: s.name for c, s in BY_CODE.items()} == {
        c: m.SPEC.name for c, m in enumerate(tasks.MODULES)}
    for code, spec in BY_CODE.items():
        cls = type(tasks.task_marker(code))
        assert cls.__name__ == spec.name.capitalize()
        assert getattr(tasks, cls.__name__) is cls


def test_dispatch_has_a_kernel_per_registered_task():
    """Every entry point of tasks/dispatch.py resolves, for every registered
    task, to compiled kernels of that task's own module (one per level for
    the level entries; the one-point kernels twice where a task has no
    two-point kernels of its own), and every registered task has a marker
    whose numba type names its module."""
    assert {f.__name__ for f in dispatch.SWITCHES} == set(DISPATCH_FUNCS)
    # each callable from Python, through a call cached on disk
    assert set(dispatch._PYTHON) == set(DISPATCH_FUNCS)
    assert all(call._cache.__class__.__name__ == "DependencyCache"
               for call in dispatch._PYTHON.values())
    assert set(dispatch.TASK_MODULES) == set(BY_CODE)
    assert (dispatch.F, dispatch.G) == (records.F, records.G)
    for code, spec in BY_CODE.items():
        marker = tasks.task_marker(code)
        assert int(marker) == code
        module = dispatch.kernels_of(numba.typeof(marker))
        assert module.__name__.endswith(f".{spec.name}")
        for name in DISPATCH_FUNCS:
            if name in LEVEL_FUNCS:
                if not dispatch.has_two_point_kernels(module, name):
                    assert name in ("coef2", "apply2"), (spec.name, name)
                    name = name[:-1]
                kernels = dispatch.level_kernels(module, name)
            else:
                kernels = [getattr(module, name)]
            for kernel in kernels:
                assert hasattr(kernel, "py_func"), (spec.name, name)
    # the markers' types differ: one compiled specialisation per task
    assert len({numba.typeof(m) for m in tasks.MARKERS}) == len(BY_CODE)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_dispatch_runs_the_kernels_of_every_task(task):
    """Each dispatch function, called with the task's code on a small
    problem, writes its outputs; coefficient kernels write the spec's
    n_coef columns and no further."""
    P = problem_from_data(**dataset(task))
    kf, kg = P.n_coef
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(P.dim_x), rng.standard_normal(P.dim_y),
               rng.standard_normal(P.dim_y))
    idx = np.arange(max(P.n, P.m), dtype=np.int64)
    for part, X, yv, k, count in (("f", P.Xf, P.yf, kf, P.n),
                                  ("g", P.Xg, P.yg, kg, P.m)):
        K = np.full((count, k + 1), np.nan)
        dispatch.coef(P.code, PART[part], X, yv, P.params, idx, 0, count,
                      (x, y, z), K)
        assert np.all(np.isfinite(K[:, :k])), (part, "coefficients written")
        assert np.all(np.isnan(K[:, k])), (part, "no column past n_coef")
        K = np.ascontiguousarray(K[:, :k])
        out = (np.zeros(P.dim_x), np.zeros(P.dim_y), np.zeros(P.dim_y))
        dispatch.apply(P.code, PART[part], X, yv, P.params, idx, 0, count,
                       (K, K, K), out)
        assert any(np.any(o != 0) for o in out), (part, "directions written")
    out = (np.full(P.dim_x, np.nan), np.full(P.dim_y, np.nan),
           np.full(P.dim_y, np.nan))
    dispatch.reg(P.code, P.params, x, y, z, *out)
    assert not np.isnan(out[1]).any() and not np.isnan(out[2]).any()
    # reg_yz (a y step or an HVP of the baselines): reg's D^y and D^z bit
    # for bit, D^x left alone
    yz = (np.full(P.dim_y, np.nan), np.full(P.dim_y, np.nan))
    dispatch.reg_yz(P.code, P.params, x, y, z, *yz)
    assert np.array_equal(yz[0], out[1]) and np.array_equal(yz[1], out[2])


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("z_slot", ["vector", "empty"])
def test_two_point_coefficients_are_two_single_point_calls(task, z_slot):
    """``coef2`` (the single loop's u_k and u_{k-1}, the baselines' joint
    evaluations) writes what ``coef`` writes at each point, on a shuffled
    subset of rows: bitwise where it is two calls, and up to the order of
    the sums in the dot products where it reads each row once for both
    points (logreg)."""
    P = problem_from_data(**dataset(task))
    rng = np.random.default_rng(7)
    pts = [(rng.standard_normal(P.dim_x), rng.standard_normal(P.dim_y),
            rng.standard_normal(P.dim_y) if z_slot == "vector"
            else np.zeros(0)) for _ in range(2)]
    for part, X, yv, k, count in (("f", P.Xf, P.yf, P.n_coef[0], P.n),
                                  ("g", P.Xg, P.yg, P.n_coef[1], P.m)):
        idx = rng.permutation(count).astype(np.int64)
        want = [np.zeros((count - 2, k)) for _ in range(2)]
        for point, K in zip(pts, want):
            dispatch.coef(P.code, PART[part], X, yv, P.params, idx, 2,
                          count - 2, point, K)
        got = [np.zeros((count - 2, k)) for _ in range(2)]
        dispatch.coef2(P.code, PART[part], X, yv, P.params, idx, 2,
                       count - 2, *pts, *got)
        for a, b in zip(got, want):
            assert np.all(np.isfinite(a)) and np.any(a != 0)
            if task == "logreg":
                np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
            else:
                assert a.tobytes() == b.tobytes(), (task, part)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_problem_is_the_reference_one(task):
    data = dataset(task)
    P = problem_from_data(**data)
    vec, dx, dy = reference_params(**data)
    assert P.params.tobytes() == vec.tobytes()
    assert (P.dim_x, P.dim_y) == (dx, dy)
    assert P.code == tasks.task_code(task) == get_task(task).code
    assert P.n_coef == reference_n_coef(task, P.params)
    assert tasks.n_coef(P.code, P.params) == P.n_coef
    # the exact oracle the metrics use agrees on the dimensions
    oracle = get_task(task).make_oracle(data)
    assert (oracle.dim_x, oracle.dim_y) == (dx, dy)


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("seed", [0, 1, 5, 2 ** 40 + 7,
                                  np.random.SeedSequence(3)])
def test_starting_point_is_bitwise_the_reference_one(task, seed):
    P = problem_from_data(**dataset(task))
    new = starting_point(P, seed)
    old = reference_starting_point(task, P.dim_x, P.dim_y, seed)
    assert len(new) == 3
    for a, b in zip(new, old):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def test_spec_references_resolve():
    expected = {"quadratic": (metrics.QuadraticMetrics,
                              exact_quadratic.QuadraticExact),
                "logreg": (metrics.GLMMetrics, exact_glm.LogReg),
                "multilogreg": (metrics.GLMMetrics, exact_glm.MultiLogReg),
                "datacleaning": (metrics.GLMMetrics,
                                 exact_glm.DataCleaning)}
    for name, spec in TASKS.items():
        assert (spec.metrics_class(), spec.oracle_class()) == expected[name]
    m = metrics.make_metrics(dataset("quadratic"))
    assert isinstance(m, metrics.QuadraticMetrics)


def test_make_problem_takes_the_data_order():
    """make_problem(task, X_train, y_train, X_val, y_val, ...): train is
    the lower level (g), val the upper level (f)."""
    rng = np.random.default_rng(0)
    Xt, yt = rng.standard_normal((6, 3)), rng.standard_normal(6)
    Xv, yv = rng.standard_normal((4, 3)), rng.standard_normal(4)
    P = make_problem("quadratic", Xt, yt, Xv, yv, [1, 2, 0.1, 0.0], 1, 2)
    assert np.array_equal(P.Xg, Xt) and np.array_equal(P.yg, yt)
    assert np.array_equal(P.Xf, Xv) and np.array_equal(P.yf, yv)
    assert (P.m, P.n) == (6, 4)


def test_unknown_task_is_refused_everywhere():
    data = dict(dataset("logreg"), task="svm")
    for call in (lambda: get_task("svm"), lambda: tasks.task_code("svm"),
                 lambda: problem_from_data(**data),
                 lambda: metrics.make_metrics(data),
                 lambda: make_problem("svm", *[np.zeros((2, 2)),
                                               np.zeros(2)] * 2, [1], 2, 2)):
        with pytest.raises(ValueError, match=r"task must be one of "
                           r"\['datacleaning', 'logreg', 'multilogreg', "
                           r"'quadratic'\], got 'svm'"):
            call()


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("outputs", ["z", "y", "y+z", "mixed"])
def test_two_point_products_are_two_single_point_calls(task, outputs):
    """``apply2`` (a joint evaluation's two points on the same rows) adds
    bitwise what two ``apply`` calls add: each point asking for z only
    (the baselines' paired Hessian-vector products, one pass of 2C lanes
    on multilogreg's short rows), y only, both, or the points asking for
    different outputs."""
    P = problem_from_data(**dataset(task))
    rng = np.random.default_rng(11)
    changed = []
    for part, X, yv, k, count in (("f", P.Xf, P.yf, P.n_coef[0], P.n),
                                  ("g", P.Xg, P.yg, P.n_coef[1], P.m)):
        idx = rng.permutation(count).astype(np.int64)
        c = count - 2
        coefs = []
        for point in range(2):
            Cx, Cy, Cz = (rng.standard_normal((c, k)) for _ in range(3))
            use = outputs if outputs != "mixed" else ("z", "y")[point]
            if "y" not in use:
                Cy[:] = 0.0
            if "z" not in use:
                Cz[:] = 0.0
            coefs.append((Cx, Cy, Cz))
        start = [tuple(rng.standard_normal(d) for d in
                       (P.dim_x, P.dim_y, P.dim_y)) for _ in range(2)]
        want = [tuple(o.copy() for o in s) for s in start]
        for C3, out in zip(coefs, want):
            dispatch.apply(P.code, PART[part], X, yv, P.params, idx, 2, c,
                           C3, out)
        got = [tuple(o.copy() for o in s) for s in start]
        dispatch.apply2(P.code, PART[part], X, yv, P.params, idx, 2, c,
                        coefs[0], got[0], coefs[1], got[1])
        for a3, b3, s3 in zip(got, want, start):
            for a, b, s0 in zip(a3, b3, s3):
                assert a.tobytes() == b.tobytes(), (task, part, outputs)
                changed.append(np.any(a != s0))
    assert any(changed)  # (f has no y output on some tasks)


# Where a task's name may be written: its own module, the datasets' side
# (the contracts they build) and the names of the tasks themselves.
NAMED_IN = ("benchmark_utils/tasks/", "benchmark_utils/data/",
            "benchmark_utils/simulated.py")


def test_tasks_own_their_tables():
    """No module outside a task's own keeps a table or a branch by task
    name (a default argument apart): a new task is its module, its line
    in ``tasks.MODULES`` and, for a new kind of exact oracle, that oracle
    (docs/contributing.md "A task")."""
    import ast
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    names = set(TASK_NAMES)
    found = []
    for path in sorted((root / "benchmark_utils").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(NAMED_IN):
            continue
        tree = ast.parse(path.read_text())
        defaults = {id(d) for node in ast.walk(tree)
                    if isinstance(node, (ast.FunctionDef,
                                         ast.AsyncFunctionDef))
                    for d in node.args.defaults + node.args.kw_defaults
                    if d is not None}
        found += [f"{rel}:{node.lineno} {node.value!r}"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Constant)
                  and node.value in names and id(node) not in defaults]
    assert not found, "per-task tables or branches outside the tasks' " \
        "modules (move them into the TaskSpec): " + ", ".join(found)
