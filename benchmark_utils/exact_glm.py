"""Full-batch oracles of the logistic tasks in vectorised NumPy, for the
exact metrics (ALGORITHMS.md §6).

Each task gives g, grad_y g, hess_yy g . v, hess_xy g . v (as the vector
d/dx <grad_y g, v>), f, grad_y f, grad_x f on the full training (g) and
validation (f) sets, with the formulas of ``problems/<task>.py`` (class-major
y for the multiclass tasks).  ``GLMExact`` solves y*(x) by Newton-CG with
backtracking (warm-started, until |grad_y g| <= 1e-10 max(1, |grad_y g(0)|)),
z*(x) by conjugate gradient on the full Hessian, and reports the metrics.
"""
import numpy as np
from scipy.special import expit, log_expit, logsumexp


class LogReg:
    """f = mean phi(b a.y) (val), g = mean phi(b a.y) + 1/2 sum e^x y^2."""

    def __init__(self, X_train, y_train, X_val, y_val, **_):
        self.A, self.bA = X_train, y_train
        self.B, self.bB = X_val, y_val
        self.dim_x = self.dim_y = X_train.shape[1]

    @staticmethod
    def _loss(X, b, y):
        return -np.mean(log_expit(b * (X @ y)))

    @staticmethod
    def _grad(X, b, y):
        t = b * (X @ y)
        return X.T @ (b * -expit(-t)) / X.shape[0]

    def g(self, x, y):
        return self._loss(self.A, self.bA, y) + 0.5 * np.exp(x) @ (y * y)

    def grad_y_g(self, x, y):
        return self._grad(self.A, self.bA, y) + np.exp(x) * y

    def hess_setup(self, x, y):
        t = self.bA * (self.A @ y)
        self._w = expit(t) * expit(-t) / self.A.shape[0]
        self._ex = np.exp(x)

    def hvp(self, v):
        return self.A.T @ (self._w * (self.A @ v)) + self._ex * v

    def cross(self, x, y, v):
        return np.exp(x) * y * v

    def f(self, x, y):
        return self._loss(self.B, self.bB, y)

    def grad_y_f(self, x, y):
        return self._grad(self.B, self.bB, y)

    def grad_x_f(self, x, y):
        return np.zeros(self.dim_x)

    @staticmethod
    def error(X, b, y):
        return float(np.mean(np.where(X @ y >= 0, 1.0, -1.0) != b))


class SoftmaxCE:
    """Shared pieces of the class-major softmax cross-entropy."""

    def __init__(self, X_train, y_train, X_val, y_val, n_classes, **_):
        self.C = int(n_classes)
        self.p = X_train.shape[1]
        self.A, self.B = X_train, X_val
        self.lA = y_train.astype(np.int64)
        self.lB = y_val.astype(np.int64)
        self.dim_y = self.p * self.C

    def W(self, y):
        return y.reshape(self.C, self.p)

    def _ce(self, X, labels, y):
        """Per-sample CE, probabilities S and logits U."""
        U = X @ self.W(y).T
        lse = logsumexp(U, axis=1)
        S = np.exp(U - lse[:, None])
        ce = lse - U[np.arange(len(labels)), labels]
        return ce, S

    def _residual(self, S, labels):
        R = S.copy()
        R[np.arange(len(labels)), labels] -= 1.0
        return R

    def _outer(self, R, X):
        """vec of R^T X (class-major), R: (N, C), X: (N, p)."""
        return (R.T @ X).ravel()

    def f(self, x, y):
        return float(np.mean(self._ce(self.B, self.lB, y)[0]))

    def grad_y_f(self, x, y):
        _, S = self._ce(self.B, self.lB, y)
        return self._outer(self._residual(S, self.lB), self.B) / len(self.lB)

    def grad_x_f(self, x, y):
        return np.zeros(self.dim_x)

    def error(self, X, labels, y):
        return float(np.mean(np.argmax(X @ self.W(y).T, axis=1) != labels))

    def _data_hvp(self, S, w, v):
        V = self.A @ self.W(v).T
        Hv = S * (V - np.sum(S * V, axis=1, keepdims=True))
        return self._outer(w[:, None] * Hv, self.A)


class MultiLogReg(SoftmaxCE):
    """g = mean CE + sum_c e^{x_c} |W_c|^2 on training; f = mean CE."""

    def __init__(self, **data):
        super().__init__(**data)
        self.dim_x = self.C

    def _reg_w(self, x):
        return np.repeat(2.0 * np.exp(x), self.p)

    def g(self, x, y):
        ce, _ = self._ce(self.A, self.lA, y)
        return float(np.mean(ce)) + 0.5 * self._reg_w(x) @ (y * y)

    def grad_y_g(self, x, y):
        _, S = self._ce(self.A, self.lA, y)
        return (self._outer(self._residual(S, self.lA), self.A)
                / len(self.lA) + self._reg_w(x) * y)

    def hess_setup(self, x, y):
        _, self._S = self._ce(self.A, self.lA, y)
        self._w = np.full(len(self.lA), 1.0 / len(self.lA))
        self._rw = self._reg_w(x)

    def hvp(self, v):
        return self._data_hvp(self._S, self._w, v) + self._rw * v

    def cross(self, x, y, v):
        return 2.0 * np.exp(x) * np.sum(self.W(y) * self.W(v), axis=1)


class DataCleaning(SoftmaxCE):
    """g = mean sigma(x_j) CE_j + C_r |y|^2 on training; f = mean CE."""

    def __init__(self, l2_reg, **data):
        super().__init__(**data)
        self.l2 = float(l2_reg)
        self.dim_x = self.A.shape[0]

    def g(self, x, y):
        ce, _ = self._ce(self.A, self.lA, y)
        return float(np.mean(expit(x) * ce)) + self.l2 * y @ y

    def grad_y_g(self, x, y):
        _, S = self._ce(self.A, self.lA, y)
        R = self._residual(S, self.lA) * expit(x)[:, None]
        return self._outer(R, self.A) / len(self.lA) + 2 * self.l2 * y

    def hess_setup(self, x, y):
        _, self._S = self._ce(self.A, self.lA, y)
        self._w = expit(x) / len(self.lA)

    def hvp(self, v):
        return self._data_hvp(self._S, self._w, v) + 2 * self.l2 * v

    def cross(self, x, y, v):
        _, S = self._ce(self.A, self.lA, y)
        R = self._residual(S, self.lA)
        V = self.A @ self.W(v).T
        dw = expit(x) * expit(-x)
        return dw * np.sum(R * V, axis=1) / len(self.lA)


TASKS = {"logreg": LogReg, "multilogreg": MultiLogReg,
         "datacleaning": DataCleaning}


def cg(hvp, rhs, x0, rtol=1e-12, max_iter=1000):
    """Conjugate gradient for the SPD system hvp(z) = rhs."""
    x = x0.copy()
    r = rhs - hvp(x)
    p = r.copy()
    rr = r @ r
    stop = (rtol * max(np.linalg.norm(rhs), 1e-300)) ** 2
    for _ in range(max_iter):
        if rr <= stop:
            break
        Ap = hvp(p)
        a = rr / (p @ Ap)
        x += a * p
        r -= a * Ap
        rr_new = r @ r
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x


class GLMExact:
    """y*(x), z*(x), H(x) and grad H(x) for a logistic task, warm-started."""

    def __init__(self, task, data, gtol=1e-10, max_newton=50):
        self.P = TASKS[task](**data)
        self.gtol = gtol
        self.max_newton = max_newton
        self._y = np.zeros(self.P.dim_y)
        self._z = np.zeros(self.P.dim_y)

    def y_star(self, x):
        P = self.P
        y = self._y.copy()
        g0 = np.linalg.norm(P.grad_y_g(x, np.zeros(P.dim_y)))
        tol = self.gtol * max(1.0, g0)
        val = P.g(x, y)
        for _ in range(self.max_newton):
            grad = P.grad_y_g(x, y)
            if np.linalg.norm(grad) <= tol:
                break
            P.hess_setup(x, y)
            step = cg(P.hvp, grad, np.zeros_like(y), rtol=1e-3 * min(
                1.0, np.linalg.norm(grad)))
            t, slope = 1.0, grad @ step
            while True:  # backtracking (Armijo)
                y_new = y - t * step
                val_new = P.g(x, y_new)
                if val_new <= val - 1e-4 * t * slope or t < 1e-12:
                    break
                t *= 0.5
            y, val = y_new, val_new
        self._y = y
        return y

    def solve(self, x):
        """(y*, z*, grad H) at x."""
        P = self.P
        ys = self.y_star(x)
        P.hess_setup(x, ys)
        zs = cg(P.hvp, P.grad_y_f(x, ys), self._z)
        self._z = zs
        grad = P.grad_x_f(x, ys) - P.cross(x, ys, zs)
        return ys, zs, grad
