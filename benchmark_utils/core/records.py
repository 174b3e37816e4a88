"""Named state of a run: the records every block of the core reads.

numba types a ``NamedTuple`` of arrays by its field types, caches functions
over it (``cache=True``) and passes it by value (a struct of array
descriptors), so naming the state costs nothing at run time.  The two level
records have the same type, so ``levels = (UL f, LL g)`` is a homogeneous
tuple that a block indexes with a run-time ``part`` (0: f, 1: g) at a single
call site of each kernel.

    Model     task marker and parameters (shared by both levels)
    Level     one level's rows, labels, coefficient table T, batch buffers
              S, persistent permutation, large-batch permutation, identity,
              current batch, and its size N
    Iterates  u_k = (x, y, z) and u_{k-1} = (xp, yp, zp)
    Work      estimates e, full-pass results f, table means T-bar, the MA'd
              x direction, the exact regularisation parts, the estimator
              rules and their per-batch weights
    Config    the numeric configuration (estimators, their parameters, steps)
    Stream    the generator, the look-ahead coin and the counters
"""
from enum import IntEnum
from typing import NamedTuple

import numpy as np

# Stream.counters slots (AHEAD: the next iteration's coin and batches are
# drawn already).
K_ITER, N_SAMPLES, STATUS, AHEAD = 0, 1, 2, 3
N_COUNTERS = 4
RUNNING, DIVERGED = 0, 1
# Batch buffers (per level), shape (N_BUF, chunk, K): coefficients at u_k
# and u_{k-1}, the three directions' combined coefficients, the table
# deltas.
B_CUR, B_PREV, B_CX, B_CY, B_CZ, B_DX, B_DY, B_DZ = range(8)
N_BUF = 8
CHUNK = 256  # samples per chunk of a full pass
F, G = 0, 1  # level index in ``levels``


class Model(NamedTuple):
    task: IntEnum           # the task's marker (``make_model``)
    params: np.ndarray


def make_model(problem):
    """The ``Model`` of a ``Problem``: its task's marker, whose numba type
    selects the task's kernels at compile time (a run compiles its task's
    code only), and its parameters."""
    from ..tasks import task_marker
    return Model(task_marker(problem.code), problem.params)


class Level(NamedTuple):
    X: np.ndarray           # (N, p) rows
    yv: np.ndarray          # (N,) labels
    T: np.ndarray           # (N, K) coefficient table ((1, K) without one)
    S: np.ndarray           # (N_BUF, chunk, K) batch buffers
    perm: np.ndarray        # persistent permutation; next batch = perm[:b]
    perm_large: np.ndarray  # permutation of the large batches
    ident: np.ndarray       # 0..N-1 (full passes)
    order: np.ndarray       # blocks: the circular order of the batches
    cur: np.ndarray         # current batch (b,)
    N: int


class Iterates(NamedTuple):
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    xp: np.ndarray
    yp: np.ndarray
    zp: np.ndarray


class Work(NamedTuple):
    ex: np.ndarray   # estimates (data part) of D^x, D^y, D^z
    ey: np.ndarray
    ez: np.ndarray
    fx: np.ndarray   # full / large pass at u_k; snapshots of e (SAGA form)
    fy: np.ndarray
    fz: np.ndarray
    tbx: np.ndarray  # table means T-bar
    tby: np.ndarray
    tbz: np.ndarray
    vx: np.ndarray   # x direction after the moving average
    rx: np.ndarray   # exact deterministic parts at u_k
    ry: np.ndarray
    rz: np.ndarray
    rules: np.ndarray  # (3, N_RULE) estimator rules of this iteration
    W: np.ndarray      # (3, 3) weights (a_cur, a_prev, a_tab) of the batch
    tmask: np.ndarray  # (3,) directions that keep a table


class Config(NamedTuple):
    kinds: np.ndarray  # estimator codes for x, y, z
    theta: np.ndarray  # theta[kind]: estimator kind's parameter (PARAMETERS)
    init_full: bool
    ma_on: bool
    rho: float         # MA weight
    large_batch: int   # 0: exact full passes
    batch: int
    alpha: float
    beta: float
    gamma: float
    exp_x: float
    exp_y: float
    exp_z: float
    R: float           # clipping radius (inf: off)
    blocks: bool       # sampling: contiguous blocks (else uniform)


class Stream(NamedTuple):
    rng: np.ndarray         # xoshiro256** state
    coin_ahead: np.ndarray  # (1,) the next iteration's PAGE coin
    counters: np.ndarray    # (N_COUNTERS,) int64


def make_levels(problem, table_rows, batch_size, orders=None):
    """``(f, g)`` level records of a Problem; tables of ``table_rows``
    (``"full"``: one line per sample, else one line).

    ``orders`` (``blocks`` sampling): one permutation per level.  The level
    then holds a permuted copy of its rows and labels (row ``j`` of the copy
    is sample ``orders[part][j]``; tables are indexed by that row), and its
    ``order`` is the identity, so that a block of the order is a block of
    consecutive rows in memory.  For a task whose x has one coordinate per
    LL sample (its spec's ``x_per_sample``: indexed by the row) the rows
    stay in place and ``order`` is the permutation itself."""
    kf, kg = problem.n_coef
    chunk = max(batch_size, CHUNK)
    Xs = [problem.Xf, problem.Xg]
    ys = [problem.yf, problem.yg]
    # A read-only array has another numba type: keep both levels alike so
    # that their tuple stays homogeneous (indexable at run time).
    if not all(a.flags.writeable for a in Xs + ys):
        Xs, ys = [_readonly(a) for a in Xs], [_readonly(a) for a in ys]
    copy = orders is not None and not problem.spec.x_per_sample
    if copy:  # permuted copies (writable, C-contiguous) of both levels
        Xs = [np.ascontiguousarray(a[o]) for a, o in zip(Xs, orders)]
        ys = [np.ascontiguousarray(a[o]) for a, o in zip(ys, orders)]
    out = []
    for part, (X, yv, K) in enumerate(zip(Xs, ys, (kf, kg))):
        N = X.shape[0]
        perm = np.arange(N, dtype=np.int64)
        ident = perm.copy()
        if orders is None or copy:
            order = ident
        else:
            order = np.ascontiguousarray(orders[part], dtype=np.int64)
        out.append(Level(
            X=X, yv=yv,
            T=np.zeros((N if table_rows == "full" else 1, K)),
            S=np.zeros((N_BUF, chunk, K)),
            perm=perm, perm_large=perm.copy(), ident=ident, order=order,
            cur=np.zeros(batch_size, dtype=np.int64), N=int(N)))
    return tuple(out)


def _readonly(a):
    v = a.view()
    v.flags.writeable = False
    return v


def make_iterates(x0, y0, z0):
    """Iterates from a starting point (copied); u_{-1} := u_0."""
    return Iterates(x0.copy(), y0.copy(), z0.copy(), x0.copy(), y0.copy(),
                    z0.copy())


def make_work(dx, dy, n_rule):
    def vec(d):
        return np.zeros(d)
    return Work(ex=vec(dx), ey=vec(dy), ez=vec(dy), fx=vec(dx), fy=vec(dy),
                fz=vec(dy), tbx=vec(dx), tby=vec(dy), tbz=vec(dy),
                vx=vec(dx), rx=vec(dx), ry=vec(dy), rz=vec(dy),
                rules=np.zeros((3, n_rule)), W=np.zeros((3, 3)),
                tmask=np.zeros(3))


def make_config(cfg, batch):
    """The numeric configuration of a validated ``PnPBOConfig`` whose
    batches hold ``batch`` rows (the run's ``batch``, converted once); the
    estimators' parameters in one array by estimator code (an integer
    parameter is exact in float64 up to 2^53)."""
    # imported here: Python-side, so that the baselines, which take these
    # records too, do not depend on the estimators' code
    from .estimators import NAMES, PARAMETERS
    theta = np.zeros(len(NAMES))
    for kind, (name, _) in PARAMETERS.items():
        theta[kind] = float(getattr(cfg, name))
    return Config(
        kinds=cfg.kinds, theta=theta,
        init_full=bool(cfg.init == "full"), ma_on=bool(cfg.ma_on),
        rho=float(cfg.rho), large_batch=int(cfg.large_batch),
        batch=batch, alpha=float(cfg.alpha),
        beta=float(cfg.beta), gamma=float(cfg.gamma),
        exp_x=float(cfg.exponent_x), exp_y=float(cfg.exponent_y),
        exp_z=float(cfg.exponent_z), R=float(cfg.R),
        blocks=bool(cfg.sampling == "blocks"))


def make_stream(rng):
    return Stream(rng=rng, coin_ahead=np.zeros(1),
                  counters=np.zeros(N_COUNTERS, dtype=np.int64))


# --------------------------------------------------------------------------
# Records of the baseline families (docs/baselines.md): the Model, Level,
# Iterates and Stream records above are shared; these hold what differs.
# What one family alone reads is its own record (``own``), declared in its
# module (``families/``): a new family never edits this file.
# --------------------------------------------------------------------------
class BWork(NamedTuple):
    """Work vectors of the baseline families (allocated once per run)."""
    ux: np.ndarray    # mean_I grad_x F_i at the point (and at the other)
    ux2: np.ndarray
    d: np.ndarray     # hypergradient estimates Phi at the two points
    d2: np.ndarray
    vx: np.ndarray    # recursive x direction (STORM, SARAH)
    rx: np.ndarray    # exact parts (reg_at) and scratch outputs
    tx: np.ndarray
    r: np.ndarray     # right-hand sides grad_y f_I at the two points
    r2: np.ndarray
    w1: np.ndarray    # Neumann / HIA terms at the two points
    w2: np.ndarray
    s: np.ndarray     # s ~ H^{-1} r at the two points
    s2: np.ndarray
    hv: np.ndarray    # a Hessian-vector product
    vy: np.ndarray    # recursive y direction
    gy: np.ndarray    # grad_y g_J at the two points
    gy2: np.ndarray
    ry: np.ndarray
    rz: np.ndarray
    ty: np.ndarray
    tz: np.ndarray
    zero: np.ndarray  # zeros (a zero vector in the z slot)
    none: np.ndarray  # (0,): no vector in the z slot (dispatch: skipped)
    # (b,) int64: a multi-step block's current batch (the next is drawn
    # ahead into the level's perm)
    jbuf: np.ndarray
    own: tuple        # the family's own state (its ``State`` record)


class BConfig(NamedTuple):
    """Numeric configuration of a baseline run (``BaselineConfig``
    validated): its family's marker (``families.loop.family_marker``:
    its type selects the family's iteration at compile time), the
    inverse-Hessian solver, batch, steps and loop lengths, and the
    family's own numbers (its ``Params`` record)."""
    family: IntEnum
    solver: int        # NEUMANN, HIA or SGD_Z
    batch: int
    alpha: float       # x step constant
    beta: float        # y step constant
    gamma: float       # Neumann/HIA scale and linear-system step
    exp_x: float
    exp_y: float
    exp_z: float       # FSLA's z step decay
    n_inner: int       # inner steps T (Level.T is a level's table)
    Q: int             # Neumann / HIA length
    blocks: bool
    cross: bool        # the task's g data part depends on x (TaskSpec)
    own: tuple         # the family's own numbers (its ``Params`` record)


def make_bwork(dx, dy, batch_size, own):
    """The work vectors of a baseline run (``batch_size``: rows of a
    batch; ``own``: the family's state)."""
    def vec(d):
        return np.zeros(d)
    xs = {name: vec(dx) for name in ("ux", "ux2", "d", "d2", "vx", "rx",
                                     "tx")}
    ys = {name: vec(dy) for name in ("r", "r2", "w1", "w2", "s", "s2", "hv",
                                     "vy", "gy", "gy2", "ry", "rz", "ty",
                                     "tz", "zero")}
    return BWork(**xs, **ys, none=np.zeros(0),
                 jbuf=np.zeros(batch_size, dtype=np.int64), own=own)
