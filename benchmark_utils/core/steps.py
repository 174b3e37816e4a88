"""Steps of the PnPBO paper, Algorithm 1, lines 5-8, at u_k:

    v^x = vhat^x   or   (1 - rho) v^x_{k-1} + rho vhat^x   (MA, line 5)
    x <- x - alpha_k v^x,  y <- y - beta_k v^y,
    z <- Clip(z - gamma_k v^z; R) = min(1, R / |z|) z

with ``c / (k + 1)^e`` step sizes; u_{k-1} <- u_k on the way.  The estimate
``e`` of each direction is its data part; the exact deterministic part
``r`` (regularisation) is added here.  x is updated in one fused pass
(regularisation, estimate, moving average, step).  Returns whether the new
iterate is finite (the run stops at the first one that is not).
"""

from ..numba_cache import njit
from .estimators import clip_norm, moving_average
from .schedule import not_finite, schedule


@njit(cache=True, inline="always")
def take_steps(cfg, iterates, work, k):
    """The three steps, MA on x and clipping of z; True if u_{k+1} is
    finite."""
    x, y, z = iterates.x, iterates.y, iterates.z
    a_k = schedule(cfg.alpha, cfg.exp_x, k)
    b_k = schedule(cfg.beta, cfg.exp_y, k)
    g_k = schedule(cfg.gamma, cfg.exp_z, k)
    first = k == 0
    bad = False
    for c in range(x.shape[0]):
        v = work.rx[c] + work.ex[c]
        if cfg.ma_on:
            v = moving_average(work.vx[c], v, cfg.rho, first)
        work.vx[c] = v
        iterates.xp[c] = x[c]
        x[c] -= a_k * v
        bad |= not_finite(x[c])
    for c in range(y.shape[0]):
        iterates.yp[c] = y[c]
        iterates.zp[c] = z[c]
        y[c] -= b_k * (work.ey[c] + work.ry[c])
        z[c] -= g_k * (work.ez[c] + work.rz[c])
        bad |= not_finite(y[c]) | not_finite(z[c])
    clip_norm(z, cfg.R)
    return not bad
