"""Data hyper-cleaning (task ``datacleaning``, the MNIST experiment of the
PnPBO paper, Section 6): one weight x_j per training sample.

    f(x, y) = 1/n sum_i CE(W a_i, b_i)                         (validation)
    g(x, y) = 1/m sum_j sigma(x_j) CE(W a_j, b_j) + C_r |y|^2    (training)

``y = vec(W)`` class-major (``softmax_ce``), x in R^m.  Per LL sample j, with
s = softmax(W a_j), v = Z a_j, w = sigma(x_j), w' = w (1 - w):

    k_j = [w (s - e_b)  (C),  w (diag(s) - s s^T) v  (C),  w' (s - e_b).v]
    D^y += k_j[:C] a_j^T,   D^z += k_j[C:2C] a_j^T,   D^x_j -= k_j[2C]

(the last is -hess_xy G_j z: only coordinate j of x enters G_j).  UL samples
are those of ``multilogreg`` (D^z -= (s_i - e_{b_i}) a_i^T).  The
regularisation gives D^y += 2 C_r y, D^z += 2 C_r z.
F2SA oracle (Kwon et al., ICML 2023): grad_x G_j = sigma'(x_j) CE(W a_j, b_j) e_j,
grad_x R = 0 (CE = log-sum-exp(W a_j) - (W a_j)_b, max shifted out).
``params = [p, C, C_r]``.
"""
import math

import numpy as np

from ..numba_cache import njit
# The UL samples are multilogreg's: so are their kernels.
from .multilogreg import apply_f, coef_f  # noqa: F401
from .multilogreg import apply_g as _apply_g
from .multilogreg import ll_coefs
from .spec import SIGMOID_RESOLVED, TaskSpec, logistic_starting_point
from .stable import sigmoid


@njit(cache=True)
def coef_g(Xg, yg, params, idx, start, count, point, K):
    x, y, z = point
    C = int(params[1])
    ll_coefs(Xg, yg, params, idx, start, count, y, z, K, 2 * C)
    for t in range(count):
        j = idx[start + t]
        w = sigmoid(x[j])
        for c in range(2 * C):
            K[t, c] *= w
        K[t, 2 * C] *= w * sigmoid(-x[j])


@njit(cache=True)
def apply_g(Xg, yg, params, idx, start, count, coefs, out):
    """D^y and D^z as multilogreg's LL part; D^x_j -= k_j[2C]."""
    Cx, Cy, Cz = coefs
    ox, oy, oz = out
    _apply_g(Xg, yg, params, idx, start, count, coefs, out)
    C = int(params[1])
    for t in range(count):
        ox[idx[start + t]] -= Cx[t, 2 * C]


@njit(cache=True)
def _ce(Xg, j, y, p, C, label):
    """CE(W a_j, label) = log-sum-exp(W a_j) - (W a_j)_label, the logits
    computed on the fly and the log-sum-exp accumulated online (running max
    shifted out: only non-positive numbers are exponentiated)."""
    mx = -math.inf
    s = 0.0
    u_label = 0.0
    for c in range(C):
        u = 0.0
        for k in range(p):
            u += y[c * p + k] * Xg[j, k]
        if c == label:
            u_label = u
        if u > mx:
            s = s * math.exp(mx - u) + 1.0
            mx = u
        else:
            s += math.exp(u - mx)
    return mx + math.log(s) - u_label


@njit(cache=True)
def gradx_g(Xg, yg, params, idx, start, count, x, y, c, ox):
    """Add ``c sigma'(x_j) CE(W a_j, b_j)`` to ``ox[j]`` for each
    ``j = idx[start + t]`` (the F2SA oracle; sigma' = sigma(x) sigma(-x))."""
    p = int(params[0])
    C = int(params[1])
    for t in range(count):
        j = idx[start + t]
        w1 = sigmoid(x[j]) * sigmoid(-x[j])
        ox[j] += c * w1 * _ce(Xg, j, y, p, C, int(yg[j]))


@njit(cache=True)
def reg_gradx(params, x, y, rx):
    """grad_x of C_r |y|^2: zero (written)."""
    for k in range(x.shape[0]):
        rx[k] = 0.0


@njit(cache=True)
def reg(params, x, y, z, rx, ry, rz):
    """D^x: none; D^y = 2 C_r y; D^z = 2 C_r z (written, not added)."""
    for k in range(x.shape[0]):
        rx[k] = 0.0
    reg_yz(params, x, y, z, ry, rz)


@njit(cache=True, inline="always")
def reg_yz(params, x, y, z, ry, rz):
    """``reg``'s D^y and D^z parts only: a y step or an HVP needs no D^x,
    whose zeros cost more than the rest here (x is one weight per training
    sample: 20 000 on MNIST)."""
    two_c = 2.0 * params[2]
    for k in range(y.shape[0]):
        ry[k] = two_c * y[k]
        rz[k] = two_c * z[k]


# --------------------------------------------------------------------------
# The task's registry entry (``registry.py``)
# --------------------------------------------------------------------------
def _problem_params(X_train, n_classes, l2_reg, **_):
    """params [p, C, C_r]; x in R^m (one weight per training sample), y in
    R^{pC}."""
    m, p = np.shape(X_train)
    C = int(n_classes)
    return [p, C, l2_reg], m, p * C


def _check(task, parts, p, task_params):
    """Class labels as multilogreg's and ``l2_reg`` (C_r) a finite number
    > 0."""
    # imported here: the data checks are Python-side, and a module-level
    # import would make this task's compiled kernels depend on them
    from ..validation import check_class_labels, is_real, task_param
    check_class_labels(task, parts, task_params)
    l2 = task_param(task, task_params, "l2_reg")
    if not (is_real(l2) and math.isfinite(l2) and l2 > 0):
        raise ValueError(
            "l2_reg must be a finite number > 0 (C_r of g: without "
            "it the softmax loss is invariant to shifting every "
            "class row by the same vector, so g is not strongly "
            f"convex in y and y*(x) is not unique), got {l2!r}")


SPEC = TaskSpec(
    name="datacleaning",
    n_coef=lambda params: (int(params[1]), 2 * int(params[1]) + 1),
    problem_params=_problem_params,
    # sample weights sigma(x_j) start near 1/2
    starting_point=logistic_starting_point(0.0),
    check=_check,
    metrics="metrics:GLMMetrics",
    oracle="exact_glm:DataCleaning",
    x_range=SIGMOID_RESOLVED,
    x_per_sample=True,
    search_box=(-5.0, 5.0),  # logits of sample weights from 0.007 to 0.993
    tiny_params=(("n_classes", 2), ("l2_reg", 0.2)),
    references=("x0", "weights_one", "weights_oracle", "val_only"),
    compile_seconds=(30, 30))
