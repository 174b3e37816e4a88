"""The dataset contract is checked before any work (benchmark_utils/
validation.py): a bad array or parameter of a user's dataset raises a
ValueError naming it, through problem_from_data and the Objective."""
import time
import warnings

import numpy as np
import pytest

from bench_helpers import benchmark
from benchmark_utils.data import small
from benchmark_utils.simulated import make_quadratic
from benchmark_utils.problem import problem_from_data
from benchmark_utils.tasks.registry import get_task
from benchmark_utils.validation import check_data
from conftest import glm_data


def quadratic_data():
    return make_quadratic(n=20, m=30, dim_x=3, dim_y=4, seed=0)


def check(data):
    """``check_data`` on a dataset dict, its task's spec resolved as
    ``problem_from_data`` resolves it."""
    data = dict(data)
    check_data(get_task(data.pop("task")), **data)


def data_of(task):
    return quadratic_data() if task == "quadratic" else glm_data(task)


def edited(data, **changes):
    out = {k: (v.copy() if isinstance(v, np.ndarray) else v)
           for k, v in data.items()}
    for key, value in changes.items():
        if value is DROP:
            out.pop(key)
        elif callable(value):
            out[key] = value(out[key])
        else:
            out[key] = value
    return out


DROP = object()


def put(index, value):
    """An editor setting ``a[index] = value`` (on a float copy)."""
    def edit(a):
        a = np.array(a, dtype=float)
        a[index] = value
        return a
    return edit


@pytest.mark.parametrize("task", ["quadratic", "logreg", "multilogreg",
                                  "datacleaning"])
def test_valid_data_passes(task):
    check(data_of(task))
    problem_from_data(**data_of(task))


@pytest.mark.parametrize("task", ["logreg", "datacleaning"])
def test_float32_features_pass_without_a_warning(task):
    data = data_of(task)
    data["X_train"] = np.asarray(data["X_train"], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(data)
    data["X_train"][1, 0] = np.inf
    with pytest.raises(ValueError, match="X_train"):
        check(data)


def test_shipped_datasets_pass():
    for data in (small.digits_task(0.5, seed=0),
                 small.breast_cancer_task(seed=0), small.wine_task(seed=0),
                 quadratic_data()):
        check(data)


CASES = [
    # task name (message unchanged)
    ("logreg", dict(task="svm"),
     "task must be one of ['datacleaning', 'logreg', 'multilogreg', "
     "'quadratic'], got 'svm'"),
    # X arrays
    ("logreg", dict(X_val=put((3, 1), np.nan)),
     "X_val contains NaN or inf (first at row 3, column 1: nan)"),
    ("multilogreg", dict(X_train=put((7, 0), -np.inf)),
     "X_train contains NaN or inf (first at row 7, column 0: -inf)"),
    ("logreg", dict(X_test=put((0, 4), np.inf)),
     "X_test contains NaN or inf (first at row 0"),
    ("logreg", dict(X_train=lambda X: X[:, 0]),
     "X_train must be a 2-d array (samples x features), got shape (40,)"),
    ("logreg", dict(X_val=lambda X: X.astype(str)),
     "X_val must be a numeric (real) array, got dtype <U"),
    ("logreg", dict(X_train=lambda X: X.astype(complex)),
     "X_train must be a numeric (real) array, got dtype complex128"),
    ("logreg", dict(X_val=lambda X: X[:0], y_val=lambda y: y[:0]),
     "X_val is empty: it has no row (sample)"),
    ("logreg", dict(X_train=lambda X: X[:, :0]),
     "X_train has no column (feature)"),
    # y arrays
    ("logreg", dict(y_train=lambda y: y[:, None]),
     "y_train must be a 1-d array (one entry per sample), got shape "
     "(40, 1)"),
    ("logreg", dict(y_val=lambda y: y[:-1]),
     "shape mismatch: X_val has 30 rows but y_val has 29 entries"),
    ("quadratic", dict(y_train=put(5, np.nan)),
     "y_train contains NaN or inf (first at index 5: nan)"),
    # magnitudes whose products overflow float64 (a user's unscaled data)
    ("multilogreg", dict(X_train=put((2, 3), 1e154)),
     "X_train has an entry of magnitude 1e+154 >= 1e+100 (first at row "
     "2, column 3): products of such values overflow float64"),
    ("logreg", dict(X_val=put((0, 0), -1e100)),
     "X_val has an entry of magnitude 1e+100 >= 1e+100 (first at row 0, "
     "column 0)"),
    ("quadratic", dict(y_val=put(1, 3e120)),
     "y_val has an entry of magnitude 3e+120 >= 1e+100 (first at index 1)"),
    # feature counts
    ("logreg", dict(X_val=lambda X: X[:, :4]),
     "shape mismatch: X_val has 4 features but X_train has 5"),
    ("multilogreg", dict(X_test=lambda X: np.hstack([X, X])),
     "shape mismatch: X_test has 10 features but X_train has 5"),
    # test set given by halves
    ("logreg", dict(y_test=None),
     "X_test and y_test must be given together or not at all: got X_test "
     "without y_test"),
    ("logreg", dict(X_test=DROP),
     "got y_test without X_test"),
    # logreg labels
    ("logreg", dict(y_train=lambda y: (y > 0).astype(float)),
     "y_train must hold labels -1 or +1 (logreg), got 0.0 at index"),
    ("logreg", dict(y_val=put(2, 2.0)),
     "y_val must hold labels -1 or +1 (logreg), got 2.0 at index 2"),
    # class labels: negative, too large, fractional (the kernels index a
    # class row with them)
    ("multilogreg", dict(y_train=put(4, -1.0)),
     "y_train must hold integer class labels in 0..2 (n_classes=3), got "
     "-1.0 at index 4"),
    ("datacleaning", dict(y_val=put(0, 3.0)),
     "y_val must hold integer class labels in 0..2 (n_classes=3), got 3.0 "
     "at index 0"),
    ("datacleaning", dict(y_test=put(1, 1.5)),
     "y_test must hold integer class labels in 0..2 (n_classes=3), got 1.5 "
     "at index 1"),
    ("multilogreg", dict(y_train=lambda y: y.astype(np.int64) - 1),
     "y_train must hold integer class labels in 0..2"),
    ("multilogreg", dict(n_classes=1), "n_classes must be an integer >= 2, "
     "got 1"),
    ("multilogreg", dict(n_classes=2.5), "n_classes must be an integer >= "
     "2, got 2.5"),
    ("datacleaning", dict(n_classes="10"), "n_classes must be an integer "
     ">= 2, got '10'"),
    ("multilogreg", dict(n_classes=DROP),
     "the multilogreg task needs the parameter n_classes"),
    # datacleaning's C_r
    ("datacleaning", dict(l2_reg=0.0), "l2_reg must be a finite number > 0"),
    ("datacleaning", dict(l2_reg=-0.1), "got -0.1"),
    ("datacleaning", dict(l2_reg=np.inf), "l2_reg must be a finite number"),
    ("datacleaning", dict(l2_reg=DROP),
     "the datacleaning task needs the parameter l2_reg"),
    # quadratic
    ("quadratic", dict(dim_x=0),
     "dim_x must be an integer in [1, p - 1] = [1, 6] (p = 7 features"),
    ("quadratic", dict(dim_x=7), "got 7"),
    ("quadratic", dict(dim_x=2.5), "got 2.5"),
    ("quadratic", dict(dim_x=DROP),
     "the quadratic task needs the parameter dim_x"),
    ("quadratic", dict(ridge=DROP),
     "the quadratic task needs the parameter ridge"),
    ("quadratic", dict(lam=np.nan), "lam must be a finite number, got nan"),
]


@pytest.mark.parametrize("task, changes, message", CASES)
def test_bad_data_is_refused_naming_the_array(task, changes, message):
    data = edited(data_of(task), **changes)
    with pytest.raises(ValueError) as e:
        check(data)
    assert message in str(e.value)
    # problem_from_data checks first, before building anything
    with pytest.raises(ValueError) as e:
        problem_from_data(**data)
    assert message in str(e.value)


def test_sparse_matrix_is_named():
    sparse = pytest.importorskip("scipy.sparse")
    data = glm_data("logreg")
    data["X_train"] = sparse.csr_matrix(data["X_train"])
    with pytest.raises(ValueError, match=r"X_train must be a dense numpy "
                       r"array, got a csr_matrix .*\.toarray\(\)"):
        check(data)


def test_integer_and_bool_arrays_are_accepted():
    data = glm_data("multilogreg")
    data["y_train"] = data["y_train"].astype(np.int8)
    data["X_val"] = data["X_val"] > 0
    data["n_classes"] = np.int64(3)
    check(data)
    problem_from_data(**data)


def test_user_dataset_is_checked_by_the_objective():
    """A user's dataset reaches the check through Objective.set_data."""
    objective = benchmark().get_benchmark_objective().get_instance()
    data = glm_data("multilogreg")
    data["y_val"][3] = -1.0
    with pytest.raises(ValueError, match="y_val must hold integer class "
                       "labels in 0..2 .*got -1.0 at index 3"):
        objective.set_data(**data)


def test_large_array_is_checked_quickly():
    """covtype's training split: 371 847 x 54 float64, 7 classes."""
    rng = np.random.default_rng(0)
    n, p = 371847, 54
    data = dict(task="multilogreg", X_train=rng.standard_normal((n, p)),
                y_train=rng.integers(0, 7, n).astype(float),
                X_val=rng.standard_normal((1000, p)),
                y_val=rng.integers(0, 7, 1000).astype(float), n_classes=7)
    check(data)
    start = time.perf_counter()
    check(data)
    assert time.perf_counter() - start < 0.5
    data["X_train"][n - 1, p - 1] = np.nan
    with pytest.raises(ValueError, match=f"first at row {n - 1}, column "
                       f"{p - 1}"):
        check(data)


def test_the_objective_checks_the_test_split():
    objective = benchmark().get_benchmark_objective().get_instance()
    data = glm_data("multilogreg")
    data["y_test"][0] = -1.0
    with pytest.raises(ValueError, match="y_test"):
        objective.set_data(**data)


def test_pandas_inputs_reach_the_metrics_as_arrays():
    """A user's dataset with pandas columns (a Series as y_train, a
    DataFrame as X_val): checked and scored as their values."""
    pd = pytest.importorskip("pandas")
    objective = benchmark().get_benchmark_objective().get_instance()
    data = glm_data("multilogreg")
    data["y_train"] = pd.Series(data["y_train"], index=np.arange(
        len(data["y_train"])) + 100)  # labels that are not positions
    data["X_val"] = pd.DataFrame(data["X_val"])
    objective.set_data(**data)
    p = objective.problem
    out = objective.evaluate_result(np.zeros(p.dim_x), np.zeros(p.dim_y),
                                    np.zeros(p.dim_y), 0)
    assert out["diverged"] == 0 and np.isfinite(out["train_error"])


@pytest.mark.parametrize("params, message", [
    (dict(noise=np.nan), "noise must be a finite number >= 0, got nan"),
    (dict(noise=-1.0), "noise must be a finite number >= 0, got -1.0"),
    (dict(mu=np.inf), "mu must be a finite number > 0, got inf"),
    (dict(cond=0.5), "cond must be a finite number >= 1, got 0.5"),
    (dict(lam="a"), "lam must be a finite number >= 0, got 'a'"),
    (dict(z_star_norm=0.0), "z_star_norm must be a finite number > 0"),
])
def test_simulated_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message.replace("+", r"\+")):
        make_quadratic(n=20, m=30, dim_x=3, dim_y=4, **params)


def test_an_unknown_mnist_variant_is_named():
    from bench_helpers import dataset_class
    mnist = dataset_class("mnist")
    with pytest.raises(ValueError, match=r"variant must be one of "
                       r"\('mnist', 'fashion'\), got 'foo'"):
        mnist.local_data_available(variant="foo")
    instance = mnist.get_instance(variant="foo")
    with pytest.raises(ValueError, match="variant must be one of"):
        instance.prepare()
