"""Plain NumPy transcription of docs/algorithms.md §2-§5 on the quadratic task.

Written from the equations, not from the numba core: per-sample directions
are full vectors, memory methods keep the paper's memory *points* w_q (SFFBA,
§3.2.1) and re-evaluate the per-sample directions there, Tbar is recomputed
from scratch each iteration, and every estimator is the table's formula.
Only the random draws are shared with the core (same generator, same order:
PAGE coin, UL batch, LL batch, then the large batch when one is used), so
that both see the same samples and coins.  Under ``sampling="blocks"`` the
draws are written here from docs/algorithms.md §2: the two orders (full
Fisher-Yates shuffles, UL then LL) before iteration 0, then each batch is
``order[(s + t) mod N]`` for ``t < b`` with ``s`` uniform on ``0..N-1``; the
samples keep their original ids (the core reads a permuted copy).
"""
import numpy as np

from benchmark_utils.core.rng import randint, seed_state
from benchmark_utils.core.sampling import draw_batch, draw_coin


def block_of(rng, order, size):
    """``size`` consecutive entries of the circular ``order`` from a uniform
    start."""
    n = len(order)
    s = randint(rng, n)
    return order[(s + np.arange(size)) % n].copy()


class QuadraticSamples:
    """Per-sample data parts of D^x, D^y, D^z and the exact regularisation."""

    def __init__(self, data):
        self.dx = int(data["dim_x"])
        Xg, Xf = data["X_train"], data["X_val"]
        dy = Xg.shape[1] - self.dx
        self.dy = dy
        self.A, self.C, self.t = Xg[:, :dy], Xg[:, dy:], data["y_train"]
        self.B, self.E, self.s = Xf[:, :dy], Xf[:, dy:], data["y_val"]
        self.ridge, self.lam = data["ridge"], data["lam"]
        self.n, self.m = Xf.shape[0], Xg.shape[0]

    def f_dirs(self, i, x, y, z):
        """(D^x, D^y, D^z) data parts of UL sample i: grad_x F_i, 0,
        -grad_y F_i."""
        r = self.B[i] @ y + self.E[i] @ x - self.s[i]
        return r * self.E[i], np.zeros(self.dy), -r * self.B[i]

    def g_dirs(self, j, x, y, z):
        """LL sample j: -hess_xy G_j z, grad_y G_j, hess_yy G_j z."""
        r = self.A[j] @ y - self.C[j] @ x - self.t[j]
        az = self.A[j] @ z
        return az * self.C[j], r * self.A[j], az * self.A[j]

    def reg(self, x, y, z):
        return self.lam * x, self.ridge * y, self.ridge * z


class GLMSamples:
    """Per-sample data parts and exact regularisation of the logistic tasks,
    written from their definitions with plain NumPy (class-major y)."""

    def __init__(self, data):
        self.task = data["task"]
        self.A, self.bA = data["X_train"], data["y_train"]
        self.B, self.bB = data["X_val"], data["y_val"]
        self.n, self.m = self.B.shape[0], self.A.shape[0]
        self.p = self.A.shape[1]
        self.C = int(data.get("n_classes", 1))
        self.l2 = data.get("l2_reg", 0.0)
        self.dx = {"logreg": self.p, "multilogreg": self.C,
                   "datacleaning": self.m}[self.task]
        self.dy = self.p if self.task == "logreg" else self.p * self.C

    @staticmethod
    def _sig(u):
        return 1.0 / (1.0 + np.exp(-u))

    def _soft(self, a, b, v):
        W = v.reshape(self.C, self.p)
        u = W @ a
        s = np.exp(u - u.max())
        s /= s.sum()
        r = s.copy()
        r[int(b)] -= 1.0
        return s, r

    def f_dirs(self, i, x, y, z):
        a, b = self.B[i], self.bB[i]
        if self.task == "logreg":
            grad = -b * self._sig(-b * (a @ y)) * a
        else:
            grad = np.outer(self._soft(a, b, y)[1], a).ravel()
        return np.zeros(self.dx), np.zeros(self.dy), -grad

    def g_dirs(self, j, x, y, z):
        a, b = self.A[j], self.bA[j]
        Dx = np.zeros(self.dx)
        if self.task == "logreg":
            t = b * (a @ y)
            grad = -b * self._sig(-t) * a
            hz = self._sig(t) * self._sig(-t) * (a @ z) * a
            return Dx, grad, hz
        s, r = self._soft(a, b, y)
        v = z.reshape(self.C, self.p) @ a
        h = s * v - s * (s @ v)
        grad, hz = np.outer(r, a).ravel(), np.outer(h, a).ravel()
        if self.task == "datacleaning":
            w = self._sig(x[j])
            Dx[j] = -w * (1 - w) * (r @ v)
            return Dx, w * grad, w * hz
        return Dx, grad, hz

    def reg(self, x, y, z):
        if self.task == "logreg":
            e = np.exp(x)
            return -e * y * z, e * y, e * z
        if self.task == "multilogreg":
            e = np.repeat(2 * np.exp(x), self.p)
            W, Z = y.reshape(self.C, self.p), z.reshape(self.C, self.p)
            return -2 * np.exp(x) * np.sum(W * Z, axis=1), e * y, e * z
        return np.zeros(self.dx), 2 * self.l2 * y, 2 * self.l2 * z


def _mean(dirs):
    return [np.mean([d[k] for d in dirs], axis=0) for k in range(3)]


class ReferencePnPBO:
    """Algorithm 1 with estimators given by name, one iteration per call."""

    def __init__(self, data, cfg, x0, y0, z0, seed):
        self.S = QuadraticSamples(data) if data["task"] == "quadratic" \
            else GLMSamples(data)
        self.cfg = cfg
        self.u = [np.array(x0, float), np.array(y0, float),
                  np.array(z0, float)]
        self.u_prev = [a.copy() for a in self.u]
        self.rng = seed_state(seed)
        n, m = self.S.n, self.S.m
        self.perm_f, self.perm_g = np.arange(n), np.arange(m)
        self.perm_fl, self.perm_gl = np.arange(n), np.arange(m)
        self.blocks = getattr(cfg, "sampling", "uniform") == "blocks"
        if self.blocks:
            self.order_f, self.order_g = np.arange(n), np.arange(m)
            draw_batch(self.rng, self.order_f, n)
            draw_batch(self.rng, self.order_g, m)
        self.est = [cfg.estimator_x, cfg.estimator_y, cfg.estimator_z]
        self.v = [None, None, None]      # estimator outputs vhat
        self.v_ma = None
        # memory points (None = never visited: T_q = 0)
        self.w_f = [None] * n
        self.w_g = [None] * m
        self.k = 0
        self.n_samples = 0
        ma = cfg.ma
        self.ma_on = (self.est[0] in ("sgd", "saga")) if ma == "auto" \
            else ma == "on"

    # -- directions --------------------------------------------------------
    def grad_batch(self, I, J, u):
        """D_{I,J}(u) (data means + exact regularisation), three vectors."""
        fx, fy, fz = _mean([self.S.f_dirs(i, *u) for i in I])
        gx, gy, gz = _mean([self.S.g_dirs(j, *u) for j in J])
        rx, ry, rz = self.S.reg(*u)
        return [fx + gx + rx, gy + ry, fz + gz + rz]

    def table_mean(self, I, J):
        """mean_{q in P} T_q, with T_q the data part at memory point w_q."""
        def at(w, fun, q):
            if w[q] is None:
                return (np.zeros(self.S.dx), np.zeros(self.S.dy),
                        np.zeros(self.S.dy))
            return fun(q, *w[q])
        fx, fy, fz = _mean([at(self.w_f, self.S.f_dirs, i) for i in I])
        gx, gy, gz = _mean([at(self.w_g, self.S.g_dirs, j) for j in J])
        return [fx + gx, fy + gy, fz + gz]

    # -- one iteration -----------------------------------------------------
    def step(self):
        cfg, S, k = self.cfg, self.S, self.k
        b = cfg.batch_size
        n, m = S.n, S.m
        coin = draw_coin(self.rng) if "page" in self.est else 1.0
        if self.blocks:
            I = block_of(self.rng, self.order_f, b)
            J = block_of(self.rng, self.order_g, b)
        else:
            draw_batch(self.rng, self.perm_f, b)
            draw_batch(self.rng, self.perm_g, b)
            I, J = self.perm_f[:b].copy(), self.perm_g[:b].copy()
        all_f, all_g = np.arange(n), np.arange(m)
        init_full = cfg.init == "full"

        def is_full(e):
            return ((e in ("saga", "zerosarah", "storm") and k == 0
                     and init_full)
                    or (e == "sarah" and k % cfg.period == 0)
                    or (e == "page" and (k == 0 or coin < cfg.p)))
        full = [is_full(e) for e in self.est]
        uses_table = any(e in ("saga", "zerosarah") for e in self.est)
        fill = k == 0 and init_full and uses_table
        u, up = self.u, self.u_prev
        # Sample counting (docs/metrics.md "Metrics"): one evaluation = all
        # derivatives of one sample at one point.  A full pass evaluates
        # the UL level only when a full direction has a UL part (x or z).
        full_f = full[0] or full[2]
        done_f = done_g = False  # level evaluated entirely at u_k
        if any(full):
            B = cfg.large_batch
            if fill or B <= 0 or (B >= n and B >= m):
                D_full = self.grad_batch(all_f, all_g, u)
                self.n_samples += (n if full_f else 0) + m
                done_f, done_g = full_f, True
            else:
                Bf, Bg = min(B, n), min(B, m)
                if self.blocks:
                    If = block_of(self.rng, self.order_f, Bf)
                    Jg = block_of(self.rng, self.order_g, Bg)
                else:
                    draw_batch(self.rng, self.perm_fl, Bf)
                    draw_batch(self.rng, self.perm_gl, Bg)
                    If, Jg = self.perm_fl[:Bf], self.perm_gl[:Bg]
                D_full = self.grad_batch(If, Jg, u)
                self.n_samples += (Bf if full_f else 0) + Bg
        # minibatches: b at u_k unless that level was fully evaluated at
        # u_k, plus b at u_{k-1} when an estimator needs the previous point
        two = {"sarah", "page", "storm", "zerosarah"}
        nonfull = [d for d in range(3) if not full[d]]
        prev = [d for d in nonfull if self.est[d] in two and k > 0]
        if any(d != 1 for d in nonfull):
            self.n_samples += b * ((0 if done_f else 1)
                                   + (1 if any(d != 1 for d in prev) else 0))
        if nonfull:
            self.n_samples += b * ((0 if done_g else 1) + (1 if prev else 0))

        DP = self.grad_batch(I, J, u)
        DPp = self.grad_batch(I, J, up) if k > 0 else None
        Tbar = self.table_mean(all_f, all_g)
        TP = self.table_mean(I, J)
        new_v = []
        for d, e in enumerate(self.est):
            if full[d]:
                new_v.append(D_full[d])
            elif e == "sgd":
                new_v.append(DP[d])
            elif e == "saga":
                # v_k = grad_P(u_k) - mean_P T + Tbar (exact reg, Choice)
                new_v.append(DP[d] - TP[d] + Tbar[d])
            elif e in ("sarah", "page"):
                new_v.append(self.v[d] + DP[d] - DPp[d])
            elif e == "storm":
                if k == 0:
                    new_v.append(DP[d])
                else:
                    a = cfg.storm_a
                    new_v.append(DP[d] + (1 - a) * (self.v[d] - DPp[d]))
            elif e == "zerosarah":
                if k == 0:
                    new_v.append(DP[d])
                else:
                    rb = cfg.rho_bar
                    new_v.append((1 - rb) * (self.v[d] - DPp[d]) + DP[d]
                                 + rb * (Tbar[d] - TP[d]))
        self.v = new_v
        if fill:
            self.w_f = [tuple(a.copy() for a in u)] * n
            self.w_g = [tuple(a.copy() for a in u)] * m
        elif uses_table:
            point = tuple(a.copy() for a in u)
            table_dirs = [d for d in range(3)
                          if self.est[d] in ("saga", "zerosarah")
                          and not full[d]]
            if any(d != 1 for d in table_dirs):
                for i in I:
                    self.w_f[i] = point
            if table_dirs:
                for j in J:
                    self.w_g[j] = point
        vx = new_v[0]
        if self.ma_on:
            self.v_ma = vx.copy() if k == 0 else \
                (1 - cfg.rho) * self.v_ma + cfg.rho * vx
            vx = self.v_ma
        kk = k + 1.0
        alpha = cfg.alpha / kk ** cfg.exponent_x
        beta = cfg.beta / kk ** cfg.exponent_y
        gamma = cfg.gamma / kk ** cfg.exponent_z
        self.u_prev = [a.copy() for a in u]
        x = u[0] - alpha * vx
        y = u[1] - beta * new_v[1]
        z = u[2] - gamma * new_v[2]
        nz = np.linalg.norm(z)
        z = min(1.0, cfg.R / nz) * z if nz > 0 else z
        self.u = [x, y, z]
        self.k += 1
