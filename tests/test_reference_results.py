"""The reference results stored with every evaluation
(``benchmark_utils.reference_results``), each checked against an
independent computation: scikit-learn's LogisticRegression with the
equivalent C on the logistic tasks, a plain NumPy least-squares y*(x) and
scipy's minimiser of H on the quadratic task."""
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression

from benchmark_utils.data import small
from benchmark_utils.metrics import evaluate, make_metrics
from benchmark_utils.reference_results import SCALAR_GRID, reference_keys
from benchmark_utils.simulated import make_quadratic


def _sklearn(X, y, C, weights=None, solver="lbfgs"):
    """Coefficients of L2 logistic regression without intercept, solved
    tightly: min C sum_j w_j loss_j + |W|^2 / 2."""
    clf = LogisticRegression(C=C, fit_intercept=False, tol=1e-12,
                             max_iter=100000, solver=solver)
    clf.fit(X, y, sample_weight=weights)
    return clf.coef_


def _ce(W, X, labels):
    """Mean cross-entropy of the softmax model W (C x p)."""
    logp = log_softmax(X @ W.T, axis=1)
    return float(-np.mean(logp[np.arange(len(labels)),
                               labels.astype(int)]))


def _error(W, X, labels):
    return float(np.mean(np.argmax(X @ W.T, axis=1) != labels))


def _logloss(w, X, b):
    return float(np.mean(np.logaddexp(0.0, -b * (X @ w))))


def _grid(c):
    """Every integer of the search's range, and steps of 0.1 around c."""
    fine = c + np.arange(-1.0, 1.01, 0.1)
    return np.concatenate([np.arange(-14.0, 6.01), fine])


@pytest.fixture(scope="module")
def digits():
    data = small.digits_task(ratio=0.5, seed=3)
    return data, make_metrics(data).references()


def test_datacleaning_references_match_sklearn(digits):
    data, ref = digits
    X, y, m = data["X_train"], data["y_train"], data["X_train"].shape[0]
    Xv, yv, Xt, yt = data["X_val"], data["y_val"], data["X_test"], \
        data["y_test"]
    Cr = data["l2_reg"]
    kept = (y == data["y_train_clean"]).astype(float)
    assert 0.4 < 1 - kept.mean() < 0.5  # about 0.5 * 9/10 changed
    # g = (1/m) sum_j sigma_j CE_j + C_r |W|^2 = 2 C_r (C sum_j sigma_j
    # CE_j + |W|^2 / 2) with C = 1 / (2 C_r m)
    cases = {"x0": (X, y, 1 / (4 * Cr * m), None),  # sigma(0) = 1/2
             "weights_one": (X, y, 1 / (2 * Cr * m), None),
             "weights_oracle": (X, y, 1 / (2 * Cr * m), kept),
             "val_only": (Xv, yv, 1 / (2 * Cr * Xv.shape[0]), None)}
    tests = {}
    for name, (A, lab, C, w) in cases.items():
        W = _sklearn(A, lab, C, w)
        assert ref[f"ref_{name}_value"] == pytest.approx(_ce(W, Xv, yv),
                                                         rel=1e-6)
        assert ref[f"ref_{name}_test_error"] == pytest.approx(
            _error(W, Xt, yt), abs=1.5 / len(yt))
        assert ref[f"ref_{name}_val_error"] == pytest.approx(
            _error(W, Xv, yv), abs=1.5 / len(yv))
        tests[name] = ref[f"ref_{name}_test_error"]
    # the oracle weights fit better than all weights 1, which fit better
    # than sigma = 1/2 (H at the validation samples)
    assert ref["ref_weights_oracle_value"] < ref["ref_weights_one_value"] \
        < ref["ref_x0_value"]


def test_logreg_x0_and_best_scalar_match_sklearn():
    data = small.breast_cancer_task(seed=2)
    ref = make_metrics(data).references()
    X, b, Xv, bv = (data[k] for k in ("X_train", "y_train", "X_val",
                                      "y_val"))
    m = X.shape[0]

    def h(c):  # g = mean phi + e^c |y|^2 / 2: C = 1 / (e^c m)
        w = _sklearn(X, b, 1 / (np.exp(c) * m),
                     solver="newton-cholesky").ravel()
        return _logloss(w, Xv, bv), w
    value, w = h(np.log(0.01))
    assert ref["ref_x0_value"] == pytest.approx(value, rel=1e-6)
    c = ref["ref_best_scalar_c"]
    assert SCALAR_GRID.min() <= c <= SCALAR_GRID.max()
    value, w = h(c)
    assert ref["ref_best_scalar_value"] == pytest.approx(value, rel=1e-6)
    assert ref["ref_best_scalar_test_error"] == pytest.approx(
        np.mean(np.where(data["X_test"] @ w >= 0, 1, -1) != data["y_test"]),
        abs=1.5 / len(data["y_test"]))
    # no c of a grid does better (by more than the search's accuracy)
    assert min(h(g)[0] for g in _grid(c)) >= \
        ref["ref_best_scalar_value"] - 1e-6
    assert ref["ref_best_scalar_value"] < ref["ref_x0_value"]


def test_multilogreg_best_scalar_matches_sklearn():
    data = small.wine_task(seed=1)
    ref = make_metrics(data).references()
    X, y, Xv, yv = (data[k] for k in ("X_train", "y_train", "X_val",
                                      "y_val"))
    m = X.shape[0]

    def h(c):  # g = mean CE + e^c |W|^2: C = 1 / (2 e^c m)
        return _ce(_sklearn(X, y, 1 / (2 * np.exp(c) * m)), Xv, yv)
    assert ref["ref_x0_value"] == pytest.approx(h(np.log(0.01)), rel=1e-6)
    assert ref["ref_best_scalar_value"] == pytest.approx(
        h(ref["ref_best_scalar_c"]), rel=1e-6)
    assert min(h(g) for g in _grid(ref["ref_best_scalar_c"])) >= \
        ref["ref_best_scalar_value"] - 1e-6


def test_quadratic_references_match_numpy():
    data = make_quadratic(n=60, m=80, dim_x=3, dim_y=5, seed=4)
    ref = make_metrics(data).references()
    dy = 5
    A, Cx = data["X_train"][:, :dy], data["X_train"][:, dy:]
    B, E = data["X_val"][:, :dy], data["X_val"][:, dy:]
    t, s, m = data["y_train"], data["y_val"], A.shape[0]

    def H(x):  # y*(x): least squares of the stacked LL system
        lhs = np.vstack([A / np.sqrt(m), np.sqrt(data["ridge"]) * np.eye(dy)])
        rhs = np.concatenate([(Cx @ x + t) / np.sqrt(m), np.zeros(dy)])
        y = np.linalg.lstsq(lhs, rhs, rcond=None)[0]
        r = B @ y + E @ x - s
        return 0.5 * np.mean(r * r) + 0.5 * data["lam"] * x @ x
    assert ref["ref_x0_value"] == pytest.approx(H(np.zeros(3)), rel=1e-10)
    best = minimize(H, np.zeros(3), method="BFGS", options={"gtol": 1e-12})
    assert ref["ref_x_star_value"] == pytest.approx(best.fun, rel=1e-8)
    assert ref["ref_x_star_value"] < ref["ref_x0_value"]


def test_references_are_constant_columns_of_every_evaluation(digits):
    data, ref = digits
    metrics = make_metrics(data)
    keys = reference_keys("datacleaning")
    assert sorted(ref) == sorted(keys)
    p = data["X_train"].shape[1] * 10
    m = data["X_train"].shape[0]
    a = evaluate(metrics, np.zeros(m), np.zeros(p), np.zeros(p), 0)
    b = evaluate(metrics, np.ones(m), np.zeros(p), np.zeros(p), 10)
    for k in keys:
        assert a[k] == b[k] == ref[k]
    # the first evaluation is not warm-started by the references' solves
    fresh = make_metrics(data)
    plain = fresh.exact.solve(np.zeros(m))[3]
    assert a["value"] == plain
    assert set(keys) <= set(metrics.nan_metrics())
    assert metrics.nan_metrics()["ref_x0_value"] == ref["ref_x0_value"]
