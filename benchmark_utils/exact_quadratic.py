"""Closed forms of the quadratic bilevel problem (see ``simulated``).

With ``Hg = A^T A / m + ridge I``, ``K = A^T C / m``, ``k = A^T t / m``:

    y*(x) = Hg^{-1} (K x + k)
    grad_y f(x, y) = (B^T B y + B^T E x - B^T s) / n
    grad_x f(x, y) = (E^T B y + E^T E x - E^T s) / n + lam x
    z*(x) = Hg^{-1} grad_y f(x, y*(x))
    grad H(x) = grad_x f(x, y*) + K^T z*(x)      (hess_xy g = -K^T)
    x* solves  (P^T P / n + lam I) x = -P^T (B y0 - s) / n,
               P = B M + E,  y*(x) = M x + y0.

All products use d x d Gram matrices computed once, so a metric evaluation
costs O(d^2), independent of n and m.
"""
import numpy as np
from scipy.linalg import cho_factor, cho_solve


class QuadraticExact:
    def __init__(self, X_train, y_train, X_val, y_val, dim_x, ridge, lam,
                 **_):
        dx = int(dim_x)
        m, n = X_train.shape[0], X_val.shape[0]
        dy = X_train.shape[1] - dx
        A, C = X_train[:, :dy], X_train[:, dy:]
        B, E = X_val[:, :dy], X_val[:, dy:]
        t, s = y_train, y_val
        self.dim_x, self.dim_y, self.lam = dx, dy, float(lam)
        self.Hg = A.T @ A / m + ridge * np.eye(dy)
        self._chol = cho_factor(self.Hg)
        self.K = A.T @ C / m
        self.k = A.T @ t / m
        self.Gbb, self.Gbe, self.Gee = B.T @ B / n, B.T @ E / n, E.T @ E / n
        self.bs, self.es, self.ss = B.T @ s / n, E.T @ s / n, s @ s / n
        M = cho_solve(self._chol, self.K)
        y0 = cho_solve(self._chol, self.k)
        # H(x) = 1/2 x^T Q x + q^T x + const
        Q = M.T @ self.Gbb @ M + M.T @ self.Gbe + self.Gbe.T @ M + self.Gee \
            + self.lam * np.eye(dx)
        q = M.T @ (self.Gbb @ y0 - self.bs) + self.Gbe.T @ y0 - self.es
        self.hess_H = Q
        self.x_star = np.linalg.solve(Q, -q)
        self.value_star = self.value(self.x_star)

    def y_star(self, x):
        return cho_solve(self._chol, self.K @ x + self.k)

    def f(self, x, y):
        return 0.5 * (y @ self.Gbb @ y + 2 * y @ (self.Gbe @ x)
                      + x @ self.Gee @ x - 2 * y @ self.bs - 2 * x @ self.es
                      + self.ss) + 0.5 * self.lam * x @ x

    def grad_y_f(self, x, y):
        return self.Gbb @ y + self.Gbe @ x - self.bs

    def grad_x_f(self, x, y):
        return self.Gbe.T @ y + self.Gee @ x - self.es + self.lam * x

    def z_solve(self, rhs):
        return cho_solve(self._chol, rhs)

    def z_star(self, x):
        return self.z_solve(self.grad_y_f(x, self.y_star(x)))

    def value(self, x):
        return float(self.f(x, self.y_star(x)))

    def grad(self, x):
        ys = self.y_star(x)
        return self.grad_x_f(x, ys) + self.K.T @ cho_solve(
            self._chol, self.grad_y_f(x, ys))
