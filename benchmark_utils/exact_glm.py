"""Full-batch oracles of the logistic tasks and the exact solves behind the
metrics (docs/algorithms.md §6).

Each task class gives, on the full training set (g) and validation set (f):
``value_grad(x, y)`` = (g, grad_y g), which also makes (x, y) the point of
``hvp(v)`` = hess_yy g . v, of ``precond(r)`` (an approximate inverse of that
Hessian) and of ``cross(v)`` = d/dx <grad_y g(x, y), v>; ``f_grad(y)`` =
(f, grad_y f); ``grad_x_f``; ``error``.  The formulas are those of
``tasks/<task>.py`` (class-major y for the multiclass tasks), whose
``SPEC.oracle`` names the class; the multiclass passes over the data are
the fused numba kernels of ``exact_kernels``.

``GLMExact`` solves y*(x) by inexact Newton (preconditioned CG; with
``products="float32"``, as the metrics do, each direction's products read
the features rounded to float32), warm-started from the previous
evaluation, until |grad_y g| <= gtol max(1, |grad_y g(x, 0)|), and z*(x)
by preconditioned CG warm-started from the previous z*, until the
residual is below ztol |grad_y f|.  A solve that misses its
tolerance warns and is reported in the ``solve_residual`` metric.
"""
import warnings

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit, log_expit

from .exact_kernels import grad_pass, hvp_pass, variants_for, warm_up

# Backtracking cannot resolve a decrease of g below this fraction of |g|
# (rounding of a mean over the training set): there the Newton step is
# accepted when it decreases |grad_y g| instead (quadratic region).
RESOLUTION = 1e3 * np.finfo(np.float64).eps

# logreg: preconditioned by the exact Hessian (Cholesky) up to this many
# features, by its diagonal above.
DENSE_MAX_P = 256


class LogReg:
    """f = mean phi(b a.y) (val), g = mean phi(b a.y) + 1/2 sum e^x y^2."""

    def __init__(self, X_train, y_train, X_val, y_val, **_):
        self.A, self.bA = X_train, y_train
        self.B, self.bB = X_val, y_val
        self.dim_x = self.dim_y = X_train.shape[1]

    def value_grad(self, x, y):
        A, b, m = self.A, self.bA, self.A.shape[0]
        t = b * (A @ y)
        ex = np.exp(x)
        val = -np.mean(log_expit(t)) + 0.5 * ex @ (y * y)
        grad = A.T @ (b * -expit(-t)) / m + ex * y
        self._w = expit(t) * expit(-t) / m
        self._ex, self._y, self._pc = ex, y.copy(), None
        return val, grad

    def hvp(self, v):
        return self.A.T @ (self._w * (self.A @ v)) + self._ex * v

    # binary tasks' products are BLAS calls on at most a few hundred
    # features: the float32 passes would not pay for their copy
    hvp_rounded = hvp

    def precond(self, r):
        if self._pc is None:
            A = self.A
            if A.shape[1] <= DENSE_MAX_P:
                H = A.T @ (self._w[:, None] * A) + np.diag(self._ex)
                self._pc = ("dense", cho_factor(H))
            else:
                self._pc = ("diag", (A * A).T @ self._w + self._ex)
        kind, pc = self._pc
        return cho_solve(pc, r) if kind == "dense" else r / pc

    def cross(self, v):
        return self._ex * self._y * v

    def f_grad(self, y):
        B, b = self.B, self.bB
        t = b * (B @ y)
        return (-np.mean(log_expit(t)),
                B.T @ (b * -expit(-t)) / B.shape[0])

    def grad_x_f(self, x, y):
        return np.zeros(self.dim_x)

    @staticmethod
    def error(X, b, y):
        return float(np.mean(np.where(X @ y >= 0, 1.0, -1.0) != b))


class SoftmaxCE:
    """Weighted softmax cross-entropy on the training set plus a per-class
    ridge, g = sum_j w_j CE_j + 1/2 sum_c lam_c |W_c|^2, and the mean CE on
    the validation set.  Subclasses give the weights w(x) and lam(x).

    ``precond`` is a Kronecker-factored approximation of the Hessian,
    (sum_j w_j (diag s_j - s_j s_j^T)) (x) mean_j a_j a_j^T + diag(lam) (x) I,
    inverted exactly through the eigendecompositions of its C x C and
    p x p factors (the Gram factor once per dataset): CG then needs about
    half the Hessian-vector products on MNIST pixels.
    """

    def __init__(self, X_train, y_train, X_val, y_val, n_classes, **_):
        self.C = C = int(n_classes)
        self.p = p = X_train.shape[1]
        self.A = np.ascontiguousarray(X_train, dtype=np.float64)
        self.B = np.ascontiguousarray(X_val, dtype=np.float64)
        self.lA = np.ascontiguousarray(y_train, dtype=np.int64)
        self.lB = np.ascontiguousarray(y_val, dtype=np.int64)
        self.dim_y = p * C
        m, n = self.A.shape[0], self.B.shape[0]
        self.S = np.empty((m, C))
        self.S_val = np.empty((n, C))
        self._G = np.empty((C, p))
        self._Hv = np.empty((C, p))
        self._val_wts = np.full(n, 1.0 / n)
        gram_sigma, self._gram_V = np.linalg.eigh(self.A.T @ self.A / m)
        self._gram_sigma = np.maximum(gram_sigma, 0.0)
        self._pc = None
        self._A32 = None
        warm_up(variants_for(C, self.A, self.B))

    def W(self, y):
        return y.reshape(self.C, self.p)

    def value_grad(self, x, y):
        wts, lam = self.weights(x), self.lam(x)
        loss = grad_pass(self.A, self.lA, self.W(y), wts, self.S, self._G)
        W = self.W(y)
        val = loss + 0.5 * lam @ np.sum(W * W, axis=1)
        grad = (self._G + lam[:, None] * W).ravel()
        self._x, self._y, self._wts, self._lam = x, y.copy(), wts, lam
        self._pc = None
        return val, grad

    def hvp(self, v):
        hvp_pass(self.A, self.S, self._wts, self.W(v), self._Hv)
        return (self._Hv + self._lam[:, None] * self.W(v)).ravel()

    def hvp_rounded(self, v):
        """hess_yy g . v over the training features rounded to float32 (the
        same features when they are float32), in float64 arithmetic: for a
        Newton direction, whose error (about 1e-7 relative) the float64
        gradient of the next step corrects.  The pass reads half the bytes:
        15 against 19 ms on Fashion-MNIST on two threads, 23 against 37 on
        one (docs/performance.md).  The float32 copy is made at the first
        call (63 MB on Fashion-MNIST)."""
        if self._A32 is None:
            self._A32 = self.A.astype(np.float32)
        hvp_pass(self._A32, self.S, self._wts, self.W(v), self._Hv)
        return (self._Hv + self._lam[:, None] * self.W(v)).ravel()

    def precond(self, r):
        if self._pc is None:
            if not np.all((self._lam > 0) & np.isfinite(self._lam)):
                # e^{x_c} under- or overflowed: g is not strongly convex
                # (or not finite) at this x, y*(x) is not defined
                raise FloatingPointError(
                    f"the regularisation weights of g are out of float64's "
                    f"range at this x (min {self._lam.min():.3g}, max "
                    f"{self._lam.max():.3g}): y*(x) is not defined")
            wS = self._wts[:, None] * self.S
            K = np.diag(wS.sum(axis=0)) - self.S.T @ wS
            d = 1.0 / np.sqrt(self._lam)
            kl, U = np.linalg.eigh(d[:, None] * K * d[None, :])
            self._pc = (d, U, np.outer(np.maximum(kl, 0.0),
                                       self._gram_sigma) + 1.0)
        d, U, denom = self._pc
        V = self._gram_V
        T = U.T @ (d[:, None] * self.W(r)) @ V
        return (d[:, None] * (U @ (T / denom) @ V.T)).ravel()

    def f_grad(self, y):
        G = np.empty((self.C, self.p))
        loss = grad_pass(self.B, self.lB, self.W(y), self._val_wts,
                         self.S_val, G)
        return loss, G.ravel()

    def grad_x_f(self, x, y):
        return np.zeros(self.dim_x)

    def error(self, X, labels, y):
        return float(np.mean(np.argmax(X @ self.W(y).T, axis=1) != labels))


class MultiLogReg(SoftmaxCE):
    """g = mean CE + sum_c e^{x_c} |W_c|^2 on training; f = mean CE."""

    def __init__(self, **data):
        super().__init__(**data)
        self.dim_x = self.C
        self._uniform = np.full(self.A.shape[0], 1.0 / self.A.shape[0])

    def weights(self, x):
        return self._uniform

    def lam(self, x):
        return 2.0 * np.exp(x)

    def cross(self, v):
        W, V = self.W(self._y), self.W(v)
        return 2.0 * np.exp(self._x) * np.sum(W * V, axis=1)


class DataCleaning(SoftmaxCE):
    """g = mean sigma(x_j) CE_j + C_r |y|^2 on training; f = mean CE."""

    def __init__(self, l2_reg, **data):
        super().__init__(**data)
        self.l2 = float(l2_reg)
        self.dim_x = self.A.shape[0]

    def weights(self, x):
        return expit(x) / self.A.shape[0]

    def lam(self, x):
        return np.full(self.C, 2.0 * self.l2)

    def cross(self, v):
        """d/dx_j of mean_j sigma(x_j) <grad CE_j, v>: sigma'(x_j) (s_j -
        e_{b_j}) . (V a_j) / m, with s_j of the last value_grad."""
        m = self.A.shape[0]
        R = self.S.copy()
        R[np.arange(m), self.lA] -= 1.0
        x = self._x
        return (expit(x) * expit(-x) * np.sum(R * (self.A @ self.W(v).T),
                                              axis=1) / m)


def forcing(gnorm, tol):
    """Relative CG tolerance of a Newton step at |grad_y g| = gnorm: tight
    enough for fast local convergence (the new gradient is about
    eta gnorm + O(gnorm^2)), but no tighter than needed to reach tol in one
    step (0.1 tol / gnorm), so the last step is not over-solved."""
    return min(0.5, max(min(1e-3, 0.1 * gnorm), 0.1 * tol / gnorm))


def pcg(hvp, rhs, precond, x0, rtol, max_iter):
    """Preconditioned conjugate gradient for the SPD system hvp(z) = rhs,
    from x0, until |rhs - hvp(z)| <= rtol |rhs|.

    Returns (z, |residual| / |rhs| (recursive residual), number of hvp)."""
    x = x0.copy()
    norm_rhs = np.linalg.norm(rhs)
    if norm_rhs == 0.0:
        return np.zeros_like(rhs), 0.0, 0
    n_hvp = 0
    if np.any(x):
        r = rhs - hvp(x)
        n_hvp += 1
    else:
        r = rhs.copy()
    stop = rtol * norm_rhs
    z = precond(r)
    p = z.copy()
    rz = r @ z
    for _ in range(max_iter):
        if np.linalg.norm(r) <= stop:
            break
        Ap = hvp(p)
        n_hvp += 1
        a = rz / (p @ Ap)
        x += a * p
        r -= a * Ap
        z = precond(r)
        rz_new = r @ z
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x, np.linalg.norm(r) / norm_rhs, n_hvp


# GLMExact's products for the Newton directions of y*
PRODUCTS = ("float64", "float32")
# z*(x) is solved over the float32 features, like the Newton directions,
# when its tolerance is at least this: a rounded product's error (about
# 1e-7 relative) is then below it (a tuning trial's 1e-3, not the
# benchmark's 1e-12)
ROUNDED_ZTOL = 1e-6


class GLMExact:
    """y*(x), z*(x), H(x) and grad H(x) for a logistic task, warm-started.

    After each ``solve``, ``status`` holds ``newton_steps``, ``hvps``,
    ``g_evals`` and ``residual``: the larger of the two solves' final
    residuals divided by their tolerance (<= 1: both tolerances met).
    """

    def __init__(self, task, data, gtol=1e-10, ztol=1e-12, max_newton=50,
                 max_cg=1000, products="float64"):
        from .tasks.registry import get_task
        if products not in PRODUCTS:
            raise ValueError(f"products must be one of {PRODUCTS}, got "
                             f"{products!r}")
        self.P = get_task(task).make_oracle(data)
        self.products = products
        self.gtol, self.ztol = gtol, ztol
        self.max_newton, self.max_cg = max_newton, max_cg
        self.reset()

    def reset(self):
        """Start the next solves from y = z = 0 (no warm start)."""
        self.warm_start(np.zeros(self.P.dim_y), np.zeros(self.P.dim_y))

    def warm_start(self, y, z):
        """Start the next solves of y*(x) and z*(x) from ``y`` and ``z``
        (e.g. ``solutions()`` at the starting point, the same for every
        run of a tuning)."""
        self._y = np.array(y, dtype=np.float64)
        self._z = np.array(z, dtype=np.float64)
        self.status = {}
        self._last = None  # (x, solve's answer, status) of the last solve

    def solutions(self):
        """Copies of the last y*(x) and z*(x), where the next solves
        start."""
        return self._y.copy(), self._z.copy()

    def _direction_hvp(self):
        """The products of a Newton direction: over float32 features with
        ``products="float32"`` (the float64 gradient of the next step
        corrects their error: y* keeps its tolerance)."""
        return self.P.hvp_rounded if self.products == "float32" else \
            self.P.hvp

    def y_star(self, x):
        """Inexact Newton from the previous y*; leaves (x, y*) as the point
        of ``P.hvp`` / ``P.cross``.  Backtracking on g (Armijo), except
        where the predicted decrease is below float64 resolution of g: there
        the step is accepted when it decreases |grad_y g| (so the solve
        cannot stall near round-off)."""
        P = self.P
        _, grad0 = P.value_grad(x, np.zeros(P.dim_y))
        tol = self.gtol * max(1.0, np.linalg.norm(grad0))
        y = self._y.copy()
        val, grad = P.value_grad(x, y)
        gnorm = np.linalg.norm(grad)
        steps, hvps, evals = 0, 0, 2
        while gnorm > tol and steps < self.max_newton:
            step, _, n = pcg(self._direction_hvp(), grad, P.precond,
                             np.zeros_like(y),
                             rtol=forcing(gnorm, tol), max_iter=self.max_cg)
            hvps += n
            steps += 1
            slope = grad @ step
            noise = RESOLUTION * max(1.0, abs(val))
            t = 1.0
            while True:
                y_new = y - t * step
                val_new, grad_new = P.value_grad(x, y_new)
                evals += 1
                gnorm_new = np.linalg.norm(grad_new)
                if val_new <= val - 1e-4 * t * slope or (
                        t * slope <= noise and gnorm_new < gnorm):
                    break
                t *= 0.5
                if t < 1e-10:
                    break
            if t < 1e-10:  # no acceptable step: y is as good as it gets
                P.value_grad(x, y)
                evals += 1
                break
            y, val, grad, gnorm = y_new, val_new, grad_new, gnorm_new
        self._y = y
        self.status = dict(newton_steps=steps, hvps=hvps, g_evals=evals,
                           y_residual=gnorm / tol)
        if gnorm > tol:
            warnings.warn(
                f"exact metrics: the y*(x) solve stopped at |grad_y g| = "
                f"{gnorm:.3g} > tolerance {tol:.3g} after {steps} Newton "
                "steps; value, grad_norm2 and the gaps are approximate "
                "(see the solve_residual column)", RuntimeWarning,
                stacklevel=2)
        return y

    def solve(self, x, gradient=True):
        """(y*, z*, grad H, f(x, y*)) at x; the last answer again, without
        a pass over the data, when x has not changed since (a solver's
        x can stay put between two evaluations, SABA's first full pass).
        With ``gradient=False``, grad H = grad_x f - hess_xy g z* is not
        formed (its cross term is a pass over the data) and comes back as
        None: a criterion of H alone does not read it."""
        if self._last is not None and np.array_equal(self._last[0], x):
            self.status = dict(self._last[2])
            ys, zs, grad, fval = self._last[1]
            if grad is None and gradient:
                # P's point is still (x, y*): solve's last value_grad
                grad = self.P.grad_x_f(x, ys) - self.P.cross(zs)
                self._last = (self._last[0], (ys, zs, grad, fval),
                              self._last[2])
            return (ys.copy(), zs.copy(),
                    None if grad is None else grad.copy(), fval)
        P = self.P
        ys = self.y_star(x)
        fval, gyf = P.f_grad(ys)
        # float64 products at the benchmark's 1e-12: a float32 one's error
        # (about 1e-7) bounds what a refinement step gains, and z*'s 1e-12
        # took 17 float64 products against 17 float32 and 3 float64 ones
        # with refinement
        hvp = (self._direction_hvp() if self.ztol >= ROUNDED_ZTOL
               else P.hvp)
        zs, res, n = pcg(hvp, gyf, P.precond, self._z, rtol=self.ztol,
                         max_iter=self.max_cg)
        self._z = zs
        st = self.status
        st["hvps"] += n
        st["z_residual"] = res / self.ztol
        st["residual"] = max(st["y_residual"], st["z_residual"])
        if res > self.ztol:
            warnings.warn(
                f"exact metrics: the z*(x) solve stopped at a relative "
                f"residual {res:.3g} > {self.ztol:.3g} after {n} CG "
                "iterations; grad_norm2 and implicit_gap are approximate "
                "(see the solve_residual column)", RuntimeWarning,
                stacklevel=2)
        grad = P.grad_x_f(x, ys) - P.cross(zs) if gradient else None
        self._last = (np.array(x, dtype=np.float64), (ys, zs, grad, fval),
                      dict(st))
        return (ys.copy(), zs.copy(), None if grad is None else grad.copy(),
                fval)


class CountedPasses:
    """A logistic task's full-batch oracle ``oracle`` counting the samples
    its passes evaluate (docs/baselines.md §1), for the solvers that run
    on the exact solves (ImplicitGD, the black-box search): ``m`` per value
    and gradient of g, per Hessian-vector product, per preconditioner
    built at a new point (from the per-sample weights of that point's
    pass) and per cross term hess_xy g . z; ``n`` per value and gradient
    of f.  ``samples`` is the running count."""

    def __init__(self, oracle, n, m):
        self._oracle, self._n, self._m = oracle, n, m
        self._new_point = False
        self.samples = 0

    def __getattr__(self, name):
        oracle = self.__dict__.get("_oracle")  # absent while unpickling
        if oracle is None:
            raise AttributeError(name)
        return getattr(oracle, name)

    def value_grad(self, x, y):
        self.samples += self._m
        self._new_point = True
        return self._oracle.value_grad(x, y)

    def hvp(self, v):
        self.samples += self._m
        return self._oracle.hvp(v)

    def hvp_rounded(self, v):
        self.samples += self._m
        return self._oracle.hvp_rounded(v)

    def precond(self, r):
        if self._new_point:  # built once per point of value_grad
            self.samples += self._m
            self._new_point = False
        return self._oracle.precond(r)

    def cross(self, v):
        self.samples += self._m
        return self._oracle.cross(v)

    def f_grad(self, y):
        self.samples += self._n
        return self._oracle.f_grad(y)
