"""Plain NumPy transcription of the baselines of docs/baselines.md
(§1-§3): stocBiO, AmIGO, BSA, TTSA, SUSTAIN, MRBO, VRBO, FSLA, F2SA, ITD,
BOME, PZOBO.

Written from the equations, not from the numba core.  Per-sample
derivatives come from ``reference.QuadraticSamples`` / ``GLMSamples``
(``f_dirs(i, x, y, z) = (grad_x F_i, 0, -grad_y F_i)``,
``g_dirs(j, x, y, z) = (-hess_xy G_j z, grad_y G_j, hess_yy G_j z)``,
``reg(x, y, z) = (rx, ry, rz)``, the exact regularisation, added once per
oracle call); ``grad_x G_j`` (F2SA) is written here from each task's
definition.  Only the random draws are shared with the core: one xoshiro
stream (``benchmark_utils.rng``) drawn in the order of the contract:

* ``uniform``: a persistent permutation per level, a batch is
  ``draw_batch(rng, perm, b)`` then ``perm[:b]``;
* ``blocks``: the two orders (full Fisher-Yates shuffles, UL then LL) before
  iteration 0, then ``reference.block_of`` per batch;
* HIA's truncation ``p = randint(rng, Q)`` at each HIA call, before its
  batches;
* PZOBO's Gaussian directions, ``normal(rng)`` per coordinate, each
  direction drawn where it is used.

``batch_size="full"`` (BOME, PZOBO): every batch is its whole level, in
order, and nothing is drawn.

Each class advances one outer iteration per ``step()`` and keeps ``x, y, z``
(the reported iterates) and ``n_samples`` (§1 "Counting").  Schedules:
``beta_k = step/(k+1)^e_y``, ``alpha_k = (step/outer_ratio)/(k+1)^e_x``,
``gamma = step/z_ratio`` (constant; FSLA's gamma decays with e_z),
``a_k = storm_a/(k+1)^e_a``, F2SA's ``beta^w_k = step/(k+1)^e_w`` and
``delta_k = delta_lmbda/(k+1)^e_delta``.
"""
import numpy as np

from benchmark_utils.core.rng import normal, randint, seed_state
from benchmark_utils.core.sampling import draw_batch
from reference import GLMSamples, QuadraticSamples, block_of


# --------------------------------------------------------------------------
# Batch oracles (docs/baselines.md §1)
# --------------------------------------------------------------------------
def _sigmoid(u):
    return 1.0 / (1.0 + np.exp(-u))


class BatchOracle:
    """Batch means of the per-sample parts plus the exact regularisation."""

    def __init__(self, data):
        self.data = data
        self.task = data["task"]
        self.S = QuadraticSamples(data) if self.task == "quadratic" \
            else GLMSamples(data)
        self.n, self.m = self.S.n, self.S.m
        self.dx, self.dy = self.S.dx, self.S.dy

    # UL --------------------------------------------------------------------
    def ul(self, I, x, y):
        """(mean_I grad_x F_i, grad_y f_I): the data parts of one UL pass
        (no regularisation; f has no y-regularisation)."""
        zero = np.zeros(self.dy)
        parts = [self.S.f_dirs(i, x, y, zero) for i in I]
        u = np.mean([p[0] for p in parts], axis=0)
        r = -np.mean([p[2] for p in parts], axis=0)
        return u, r

    def grad_x_f(self, I, x, y):
        """grad_x f_I = mean_I grad_x F_i + the UL x-regularisation."""
        u, _ = self.ul(I, x, y)
        return u + self.S.reg(x, y, np.zeros(self.dy))[0]

    def grad_y_f(self, I, x, y):
        return self.ul(I, x, y)[1]

    # LL --------------------------------------------------------------------
    def grad_y_g(self, J, x, y):
        zero = np.zeros(self.dy)
        gy = np.mean([self.S.g_dirs(j, x, y, zero)[1] for j in J], axis=0)
        return gy + self.S.reg(x, y, zero)[1]

    def hvp(self, J, x, y, w):
        """H_J(x, y) w."""
        hw = np.mean([self.S.g_dirs(j, x, y, w)[2] for j in J], axis=0)
        return hw + self.S.reg(x, y, w)[2]

    def cross(self, J, x, y, w):
        """-X_J(x, y) w + the UL x-regularisation: rx(x, y, w) holds both
        -hess_xy R w and grad_x of f's regularisation."""
        cx = np.mean([self.S.g_dirs(j, x, y, w)[0] for j in J], axis=0)
        return cx + self.S.reg(x, y, w)[0]

    def phi(self, I, J, x, y, w):
        """Phi_{I,J}(x, y, w) = grad_x f_I - X_J w."""
        return self.ul(I, x, y)[0] + self.cross(J, x, y, w)

    # F2SA's first-order x oracle ------------------------------------------
    def _gradx_G(self, j, x, y):
        S = self.S
        if self.task == "quadratic":
            r = S.A[j] @ y - S.C[j] @ x - S.t[j]
            return -r * S.C[j]
        out = np.zeros(self.dx)
        if self.task == "datacleaning":
            W = y.reshape(S.C, S.p)
            u = W @ S.A[j]
            top = u.max()
            ce = top + np.log(np.sum(np.exp(u - top))) - u[int(S.bA[j])]
            w = _sigmoid(x[j])
            out[j] = w * (1.0 - w) * ce
        return out                       # logreg, multilogreg: no data part

    def _gradx_R(self, x, y):
        if self.task == "logreg":
            return 0.5 * np.exp(x) * y * y
        if self.task == "multilogreg":
            W = y.reshape(self.S.C, self.S.p)
            return np.exp(x) * np.sum(W * W, axis=1)
        return np.zeros(self.dx)         # quadratic (ridge on y), cleaning

    def grad_x_g(self, J, x, y):
        gx = np.mean([self._gradx_G(j, x, y) for j in J], axis=0)
        return gx + self._gradx_R(x, y)


# --------------------------------------------------------------------------
# Shared draws and schedules
# --------------------------------------------------------------------------
class Draws:
    """The batches of a run, from the shared generator."""

    def __init__(self, rng, n, m, sampling):
        self.rng = rng
        self.n, self.m = n, m
        self.blocks = sampling == "blocks"
        if self.blocks:
            self.order_f = np.arange(n, dtype=np.int64)
            self.order_g = np.arange(m, dtype=np.int64)
            draw_batch(rng, self.order_f, n)
            draw_batch(rng, self.order_g, m)
        else:
            self.perm_f = np.arange(n, dtype=np.int64)
            self.perm_g = np.arange(m, dtype=np.int64)

    def ul(self, b):
        if self.blocks:
            return block_of(self.rng, self.order_f, b)
        draw_batch(self.rng, self.perm_f, b)
        return self.perm_f[:b].copy()

    def ll(self, b):
        if self.blocks:
            return block_of(self.rng, self.order_g, b)
        draw_batch(self.rng, self.perm_g, b)
        return self.perm_g[:b].copy()

    def p(self, Q):
        return randint(self.rng, Q)


class _Reference:
    """State, oracle, draws and schedules common to all."""

    def __init__(self, data, cfg, x0, y0, z0, seed):
        self.cfg = cfg
        self.O = BatchOracle(data)
        self.n, self.m = self.O.n, self.O.m
        self.rng = seed_state(seed)
        self.draws = Draws(self.rng, self.n, self.m,
                           getattr(cfg, "sampling", "uniform"))
        self.x = np.array(x0, dtype=float)
        self.y = np.array(y0, dtype=float)
        self.z = np.array(z0, dtype=float)
        self.full = cfg.batch_size == "full"
        self.b = 0 if self.full else int(cfg.batch_size)
        self.k = 0
        self.n_samples = 0
        self.history = []
        self.ps = []                      # HIA truncations drawn, in order

    # schedules (k = outer iteration counter, from 0)
    def beta(self):
        return self.cfg.step_size / (self.k + 1.0) ** self.cfg.exponent_y

    def alpha(self):
        c = self.cfg.step_size / self.cfg.outer_ratio
        return c / (self.k + 1.0) ** self.cfg.exponent_x

    def gamma(self):
        return self.cfg.step_size / self.cfg.z_ratio

    def a(self):
        return self.cfg.storm_a / (self.k + 1.0) ** self.cfg.exponent_a

    def run(self, n_iter):
        for _ in range(n_iter):
            self.step()
            self.k += 1
            self.history.append((self.x.copy(), self.y.copy(),
                                 self.z.copy(), self.n_samples))
        return self.history

    # building blocks ------------------------------------------------------
    def sgd_y(self, x, y, T, beta):
        """B1: T LL-SGD steps at fixed x, a fresh J each."""
        for _ in range(T):
            J = self.draws.ll(self.b)
            y = y - beta * self.O.grad_y_g(J, x, y)
            self.n_samples += self.b
        return y

    def neumann(self, points, rs, Q):
        """B3 in joint mode: ``points`` (one or two (x, y)) share the Q
        fresh Hessian batches.  s = gamma sum_{q=0..Q} w_q."""
        gamma = self.gamma()
        ws = [r.copy() for r in rs]
        ss = [gamma * w for w in ws]
        for _ in range(Q):
            J = self.draws.ll(self.b)
            for t, (x, y) in enumerate(points):
                ws[t] = ws[t] - gamma * self.O.hvp(J, x, y, ws[t])
                ss[t] = ss[t] + gamma * ws[t]
                self.n_samples += self.b
        return ss

    def hia(self, points, rs, Q):
        """B4 in joint mode: one p ~ U{0..Q-1}, then p fresh Hessian
        batches shared by the points; s = Q gamma w_p."""
        gamma = self.gamma()
        p = self.draws.p(Q)
        self.ps.append(p)
        ws = [r.copy() for r in rs]
        for _ in range(p):
            J = self.draws.ll(self.b)
            for t, (x, y) in enumerate(points):
                ws[t] = ws[t] - gamma * self.O.hvp(J, x, y, ws[t])
                self.n_samples += self.b
        return [Q * gamma * w for w in ws]


# --------------------------------------------------------------------------
# Inner-loop family: stocBiO, AmIGO, BSA, TTSA (§3)
# --------------------------------------------------------------------------
class _InnerLoop(_Reference):
    T_override = None

    def solve(self, x, y, r):
        raise NotImplementedError

    def step(self):
        cfg, b, O = self.cfg, self.b, self.O
        T = self.T_override or int(cfg.n_inner_steps)
        x = self.x
        y = self.sgd_y(x, self.y, T, self.beta())            # (1)
        I = self.draws.ul(b)                                  # (2)
        u, r = O.ul(I, x, y)
        self.n_samples += b
        s = self.solve(x, y, r)                              # (3)
        J = self.draws.ll(b)                                  # (4)
        d = u + O.cross(J, x, y, s)
        self.n_samples += b
        self.x = x - self.alpha() * d                        # (5)
        self.y, self.z = y, s


class StocBiO(_InnerLoop):
    def solve(self, x, y, r):
        return self.neumann([(x, y)], [r], int(self.cfg.Q))[0]


class BSA(_InnerLoop):
    def solve(self, x, y, r):
        return self.hia([(x, y)], [r], int(self.cfg.Q))[0]


class TTSA(BSA):
    T_override = 1


class AmIGO(_InnerLoop):
    def solve(self, x, y, r):
        gamma = self.gamma()
        z = self.z                       # warm start (z_0 = the given z0)
        for _ in range(int(self.cfg.n_z_steps)):
            J = self.draws.ll(self.b)
            z = z - gamma * (self.O.hvp(J, x, y, z) - r)
            self.n_samples += self.b
        return z


# --------------------------------------------------------------------------
# Momentum family, Jacobi: MRBO, SUSTAIN (§3)
# --------------------------------------------------------------------------
class _Storm(_Reference):
    def __init__(self, *args):
        super().__init__(*args)
        self.xp, self.yp = self.x.copy(), self.y.copy()   # u_{-1} := u_0
        self.vx = self.vy = None

    def joint(self, points, rs):
        raise NotImplementedError

    def step(self):
        b, O, k = self.b, self.O, self.k
        x, y, xp, yp = self.x, self.y, self.xp, self.yp
        J = self.draws.ll(b)
        I = self.draws.ul(b)
        points = [(x, y)] + ([(xp, yp)] if k >= 1 else [])
        ul = [O.ul(I, *pt) for pt in points]
        self.n_samples += b * len(points)
        ss = self.joint(points, [r for _, r in ul])
        G = [O.grad_y_g(J, *pt) for pt in points]
        D = [u + O.cross(J, *pt, s) for (u, _), pt, s in zip(ul, points, ss)]
        self.n_samples += b * len(points)
        if k == 0:
            self.vy, self.vx = G[0], D[0]
        else:
            c = 1.0 - self.a()
            self.vy = G[0] + c * (self.vy - G[1])
            self.vx = D[0] + c * (self.vx - D[1])
        self.xp, self.yp = x.copy(), y.copy()
        self.x = x - self.alpha() * self.vx
        self.y = y - self.beta() * self.vy
        self.z = ss[0]


class MRBO(_Storm):
    def joint(self, points, rs):
        return self.neumann(points, rs, int(self.cfg.Q))


class SUSTAIN(_Storm):
    def joint(self, points, rs):
        return self.hia(points, rs, int(self.cfg.Q))


# --------------------------------------------------------------------------
# Momentum family, Gauss-Seidel: FSLA (§3)
# --------------------------------------------------------------------------
class FSLA(_Reference):
    def __init__(self, *args):
        super().__init__(*args)
        self.xp = self.x.copy()          # x_{-1} := x_0
        self.vx = None

    def step(self):
        b, O, k, cfg = self.b, self.O, self.k, self.cfg
        x, y, z = self.x, self.y, self.z
        J1 = self.draws.ll(b)
        y1 = y - self.beta() * O.grad_y_g(J1, x, y)
        J2 = self.draws.ll(b)
        I1 = self.draws.ul(b)
        gamma = self.gamma() / (k + 1.0) ** cfg.exponent_z
        z1 = z - gamma * (O.hvp(J2, x, y1, z) - O.grad_y_f(I1, x, y1))
        I2 = self.draws.ul(b)
        J3 = self.draws.ll(b)
        D = O.phi(I2, J3, x, y1, z1)
        self.n_samples += 5 * b
        if k == 0:
            self.vx = D
        else:
            Dp = O.phi(I2, J3, self.xp, y, z)
            self.n_samples += 2 * b
            self.vx = D + (1.0 - self.a()) * (self.vx - Dp)
        self.xp = x.copy()
        self.x = x - self.alpha() * self.vx
        self.y, self.z = y1, z1


# --------------------------------------------------------------------------
# Restart family: VRBO (§3)
# --------------------------------------------------------------------------
class VRBO(_Reference):
    def __init__(self, *args):
        super().__init__(*args)
        self.vx = self.vy = None
        self.P = None

    def restart(self):
        O, n, m = self.O, self.n, self.m
        x, y = self.x, self.y
        all_f, all_g = np.arange(n), np.arange(m)
        u, r = O.ul(all_f, x, y)
        gamma = self.gamma()
        w, s = r.copy(), gamma * r
        for _ in range(int(self.cfg.Q)):
            w = w - gamma * O.hvp(all_g, x, y, w)
            s = s + gamma * w
        self.vy = O.grad_y_g(all_g, x, y)
        self.vx = u + O.cross(all_g, x, y, s)
        self.P = (x.copy(), y.copy())
        self.z = s
        self.n_samples += n + (1 + int(self.cfg.Q)) * m

    def correct(self):
        O, b = self.O, self.b
        N = (self.x.copy(), self.y.copy())
        P = self.P
        I = self.draws.ul(b)
        J = self.draws.ll(b)
        (uN, rN), (uP, rP) = O.ul(I, *N), O.ul(I, *P)
        self.n_samples += 2 * b
        sN, sP = self.neumann([N, P], [rN, rP], int(self.cfg.Q))
        self.vy = self.vy + O.grad_y_g(J, *N) - O.grad_y_g(J, *P)
        self.vx = self.vx + (uN + O.cross(J, *N, sN)) \
            - (uP + O.cross(J, *P, sP))
        self.n_samples += 2 * b
        self.P = N
        self.z = sN

    def step(self):
        if self.k % int(self.cfg.period) == 0:
            self.restart()
        self.x = self.x - self.alpha() * self.vx
        self.correct()
        beta = self.beta()
        for _ in range(int(self.cfg.n_inner_steps)):
            self.y = self.y - beta * self.vy
            self.correct()


# --------------------------------------------------------------------------
# Penalty family: F2SA (§3)
# --------------------------------------------------------------------------
class F2SA(_Reference):
    def __init__(self, *args):
        super().__init__(*args)
        self.w = self.y.copy()           # LL copy, reported as y
        self.ypen = self.y.copy()        # penalised copy
        self.lmbda = float(self.cfg.lmbda0)

    def step(self):
        cfg, b, O, k = self.cfg, self.b, self.O, self.k
        x, lam = self.x, self.lmbda
        beta = self.beta()
        beta_w = cfg.step_size / (k + 1.0) ** cfg.exponent_w
        yp, w = self.ypen, self.w
        for _ in range(int(cfg.n_inner_steps)):
            Jt = self.draws.ll(b)
            Jpt = self.draws.ll(b)
            It = self.draws.ul(b)
            yp = yp - beta * (O.grad_y_f(It, x, yp)
                              + lam * O.grad_y_g(Jt, x, yp))
            w = w - beta_w * O.grad_y_g(Jpt, x, w)
            self.n_samples += 3 * b
        I = self.draws.ul(b)
        J1 = self.draws.ll(b)
        J2 = self.draws.ll(b)
        d = O.grad_x_f(I, x, yp) + lam * (O.grad_x_g(J1, x, yp)
                                          - O.grad_x_g(J2, x, w))
        self.n_samples += 3 * b
        self.x = x - self.alpha() * d
        self.ypen, self.w = yp, w
        self.y, self.z = w.copy(), lam * (w - yp)
        self.lmbda = lam + cfg.delta_lmbda / (k + 1.0) ** cfg.exponent_delta


# --------------------------------------------------------------------------
# Iterative differentiation: ITD (§3)
# --------------------------------------------------------------------------
class ITD(_Reference):
    """T SGD steps on y (from y_k, or from y0 without warm start), then the
    reverse-mode derivative of f_I(x, y_T(x)) through them, on the same
    batches: v_T = grad_y f_I, for t = T-1..0: d -= beta hess_xy g_{J_t}
    v_{t+1}, v_t = v_{t+1} - beta hess_yy g_{J_t} v_{t+1}."""

    def __init__(self, *args):
        super().__init__(*args)
        self.y0 = self.y.copy()

    def minus_hess_xy(self, J, x, y, w):
        """-hess_xy g_J(x, y) w: the data mean and the exact part (rx at
        w minus rx at 0, which is the UL x-regularisation alone)."""
        S, zero = self.O.S, np.zeros(self.O.dy)
        cx = np.mean([S.g_dirs(j, x, y, w)[0] for j in J], axis=0)
        return cx + S.reg(x, y, w)[0] - S.reg(x, y, zero)[0]

    def step(self):
        b, O, T = self.b, self.O, int(self.cfg.n_inner_steps)
        x, beta = self.x, self.beta()
        y = self.y if getattr(self.cfg, "warm_start", True) else self.y0
        ys, Js = [], []
        for _ in range(T):
            J = self.draws.ll(b)
            ys.append(y)
            Js.append(J)
            y = y - beta * O.grad_y_g(J, x, y)
            self.n_samples += b
        I = self.draws.ul(b)
        d = O.grad_x_f(I, x, y)
        v = O.grad_y_f(I, x, y)
        self.n_samples += b
        z = np.zeros(O.dy)
        for t in reversed(range(T)):
            z = z + beta * v
            d = d + beta * self.minus_hess_xy(Js[t], x, ys[t], v)
            v = v - beta * O.hvp(Js[t], x, ys[t], v)
            self.n_samples += b
        self.x = x - self.alpha() * d
        self.y, self.z = y, z


# --------------------------------------------------------------------------
# Hessian-free families: BOME, PZOBO (§3)
# --------------------------------------------------------------------------
class _HessianFree(_Reference):
    def ll(self):
        """A fresh LL batch (the whole level with full batches)."""
        return np.arange(self.m) if self.full else self.draws.ll(self.b)

    def ul(self):
        return np.arange(self.n) if self.full else self.draws.ul(self.b)

    def gd(self, x, y, Js, beta):
        """T gradient steps on g(x, .) from y on the batches Js."""
        for J in Js:
            y = y - beta * self.O.grad_y_g(J, x, y)
            self.n_samples += len(J)
        return y


class BOME(_HessianFree):
    def __init__(self, *args):
        super().__init__(*args)
        self.lmbda = 0.0

    def step(self):
        O, T = self.O, int(self.cfg.n_inner_steps)
        eta = self.cfg.storm_a           # BOME's eta fills storm_a
        x, y = self.x, self.y
        beta, alpha = self.beta(), self.alpha()
        Js = [self.ll() for _ in range(T)]
        yhat = self.gd(x, y, Js, beta)
        I = self.ul()
        fx, fy = O.grad_x_f(I, x, y), O.grad_y_f(I, x, y)
        J = self.ll()
        qx = O.grad_x_g(J, x, y) - O.grad_x_g(J, x, yhat)
        qy = O.grad_y_g(J, x, y)
        self.n_samples += len(I) + 2 * len(J)
        norm2 = qx @ qx + qy @ qy
        lam = 0.0
        if norm2 > 0:
            lam = max(eta * norm2 - (fx @ qx + fy @ qy), 0.0) / norm2
        self.lmbda = lam
        self.x = x - alpha * (fx + lam * qx)
        self.y = y - beta * (fy + lam * qy)


class PZOBO(_HessianFree):
    def step(self):
        O, cfg = self.O, self.cfg
        T, Q, mu = int(cfg.n_inner_steps), int(cfg.n_gaussian_vectors), cfg.mu
        x, y = self.x, self.y
        beta, alpha = self.beta(), self.alpha()
        Js = [self.ll() for _ in range(T)]
        y1 = self.gd(x, y, Js, beta)
        I = self.ul()
        d, r = O.grad_x_f(I, x, y1), O.grad_y_f(I, x, y1)
        self.n_samples += len(I)
        for _ in range(Q):
            u = np.array([normal(self.rng) for _ in range(self.O.dx)])
            delta = (self.gd(x + mu * u, y, Js, beta) - y1) / mu
            d = d + (delta @ r) / Q * u
        self.x = x - alpha * d
        self.y = y1


REFERENCES = {"stocBiO": StocBiO, "AmIGO": AmIGO, "BSA": BSA, "TTSA": TTSA,
              "SUSTAIN": SUSTAIN, "MRBO": MRBO, "VRBO": VRBO, "FSLA": FSLA,
              "F2SA": F2SA, "ITD": ITD, "BOME": BOME, "PZOBO": PZOBO}


def reference_run(data, cfg, x0, y0, z0, seed):
    """The transcription of ``cfg.algorithm`` (not yet advanced)."""
    return REFERENCES[cfg.algorithm](data, cfg, x0, y0, z0, seed)
