"""Generator of the ``Simulated`` finite-sum quadratic bilevel problem.

LL (training) samples j = 1..m, UL (validation) samples i = 1..n:

    g(x, y) = 1/m sum_j 1/2 (a_j.y - c_j.x - t_j)^2 + ridge/2 |y|^2
    f(x, y) = 1/n sum_i 1/2 (b_i.y + e_i.x - s_i)^2 + lam/2 |x|^2

``A = sqrt(m) Q diag(s) V^T`` with orthonormal ``Q`` (m x d_y) and
orthogonal ``V``, so ``hess_yy g = V diag(s^2) V^T + ridge I`` has eigenvalues
exactly log-spaced from ``mu`` to ``mu * cond`` (ridge = mu / 2).  The UL
targets come from a planted ``x_true`` plus noise; f is then scaled (rows by
``sqrt(c)``, ``lam`` by ``c``) so that ``|z*(x*)| = z_star_norm``, which
leaves ``x*`` unchanged and keeps it inside the paper's clipping radius R = 1.
Each sample is a data row: one sample evaluation costs O(d_x + d_y).
"""
import math
import numbers

import numpy as np


def _orthonormal(rng, rows, cols):
    q, r = np.linalg.qr(rng.standard_normal((rows, cols)))
    return q * np.sign(np.diag(r))


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(
        value, (bool, np.bool_))


def make_quadratic(n=1000, m=1000, dim_x=10, dim_y=20, mu=0.1, cond=10.0,
                   lam=0.01, noise=1.0, z_star_norm=0.5, seed=0):
    """Return the dataset dict (task ``quadratic``; docs/architecture.md,
    "Contracts").  Its products run on the metrics' BLAS threads
    (``metrics.blas_limit``, one by default), so the data are bitwise the
    same in a sequential run and in a worker of ``-j N`` or dask."""
    for name, value, low in (("n", n, 1), ("m", m, 1), ("dim_x", dim_x, 1),
                             ("dim_y", dim_y, 1)):
        if int(value) != value or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, "
                             f"got {value!r}")
    if m < dim_y:
        raise ValueError(
            f"m must be >= dim_y for the exact conditioning; got m={m} < "
            f"dim_y={dim_y}")
    for name, value, ok, allowed in (
            ("mu", mu, lambda v: v > 0, "> 0"),
            ("cond", cond, lambda v: v >= 1, ">= 1"),
            ("lam", lam, lambda v: v >= 0, ">= 0"),
            ("noise", noise, lambda v: v >= 0, ">= 0"),
            ("z_star_norm", z_star_norm, lambda v: v > 0, "> 0")):
        if not (_is_number(value) and math.isfinite(value) and ok(value)):
            raise ValueError(f"{name} must be a finite number {allowed}, "
                             f"got {value!r}")
    from .metrics import blas_limit
    with blas_limit():
        return _quadratic(n, m, dim_x, dim_y, mu, cond, lam, noise,
                          z_star_norm, seed)


def _quadratic(n, m, dim_x, dim_y, mu, cond, lam, noise, z_star_norm, seed):
    """The dataset of checked parameters (``make_quadratic``)."""
    rng = np.random.default_rng(seed)
    ridge = mu / 2
    eig = np.geomspace(mu, mu * cond, dim_y)
    s = np.sqrt(eig - ridge)
    A = np.sqrt(m) * (_orthonormal(rng, m, dim_y) * s) @ \
        _orthonormal(rng, dim_y, dim_y).T
    C = rng.standard_normal((m, dim_x)) / np.sqrt(dim_x)
    t = rng.standard_normal(m)
    B = rng.standard_normal((n, dim_y)) / np.sqrt(dim_y)
    E = rng.standard_normal((n, dim_x)) / np.sqrt(dim_x)
    X_train = np.hstack([A, C])
    data = dict(task="quadratic", X_train=X_train, y_train=t,
                dim_x=int(dim_x), ridge=float(ridge), lam=float(lam))
    x_true = rng.standard_normal(dim_x)
    Hg = A.T @ A / m + ridge * np.eye(dim_y)
    y_true = np.linalg.solve(Hg, A.T @ (C @ x_true + t) / m)
    s_val = B @ y_true + E @ x_true + noise * rng.standard_normal(n)
    data.update(X_val=np.hstack([B, E]), y_val=s_val)
    # Normalise f so that |z*(x*)| = z_star_norm (z* is linear in f).
    from .exact_quadratic import QuadraticExact
    exact = QuadraticExact(**data)
    zn = np.linalg.norm(exact.z_star(exact.x_star))
    if zn > 0:
        c = z_star_norm / zn
        data["X_val"] = data["X_val"] * np.sqrt(c)
        data["y_val"] = data["y_val"] * np.sqrt(c)
        data["lam"] = float(lam * c)
    return data
