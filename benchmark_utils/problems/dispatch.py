"""Task switch: one entry point per kernel, branching on the integer task code.

numba caches functions over plain arrays but not functions that receive other
jitted functions as arguments, so tasks are selected by an integer code.
"""
from numba import njit

from . import QUADRATIC
from . import quadratic


@njit(cache=True)
def coef_f(task, Xf, yf, params, i, x, y, z, out):
    if task == QUADRATIC:
        quadratic.coef_f(Xf, yf, params, i, x, y, z, out)


@njit(cache=True)
def coef_g(task, Xg, yg, params, j, x, y, z, out):
    if task == QUADRATIC:
        quadratic.coef_g(Xg, yg, params, j, x, y, z, out)


@njit(cache=True)
def apply_f(task, Xf, yf, params, i, cx, cy, cz, ox, oy, oz):
    if task == QUADRATIC:
        quadratic.apply_f(Xf, yf, params, i, cx, cy, cz, ox, oy, oz)


@njit(cache=True)
def apply_g(task, Xg, yg, params, j, cx, cy, cz, ox, oy, oz):
    if task == QUADRATIC:
        quadratic.apply_g(Xg, yg, params, j, cx, cy, cz, ox, oy, oz)


@njit(cache=True)
def reg(task, params, x, y, z, rx, ry, rz):
    if task == QUADRATIC:
        quadratic.reg(params, x, y, z, rx, ry, rz)
