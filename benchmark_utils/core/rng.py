"""Seeded random numbers inside numba: xoshiro256** seeded by splitmix64.

The generator state is a plain ``uint64[4]`` array owned by the run, so a run
never touches numba's global RNG: the same seed gives the same stream whatever
else runs in the process (Blackman & Vigna, "Scrambled linear pseudorandom
number generators", ACM TOMS 2021).  Standard normals (PZOBO's Gaussian
directions) come from two uniforms each by the Box-Muller transform.
"""
import math

import numpy as np
from numba import uint64

from ..numba_cache import njit

_MASK = (1 << 64) - 1


def seed_state(seed):
    """Return a fresh xoshiro256** state (``uint64[4]``) for an integer seed.

    The four words come from splitmix64 iterated from ``seed``, the seeding
    procedure recommended by the generator's authors.
    """
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    s = int(seed) & _MASK
    out = np.empty(4, dtype=np.uint64)
    for k in range(4):
        s = (s + 0x9E3779B97F4A7C15) & _MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        out[k] = z ^ (z >> 31)
    return out


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True)
def next_u64(state):
    """Advance the xoshiro256** state in place and return 64 random bits."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@njit(cache=True)
def uniform(state):
    """A float64 uniform on [0, 1) from the top 53 bits."""
    return float(next_u64(state) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def randint(state, n):
    """An integer uniform on {0, ..., n-1} (bias below n / 2**53)."""
    return int(uniform(state) * n)


@njit(cache=True)
def normal(state):
    """A standard normal float64 from two uniforms u1, u2 (Box and Muller,
    "A note on the generation of random normal deviates", Ann. Math.
    Statist. 1958): ``sqrt(-2 ln(1 - u1)) cos(2 pi u2)``, the cosine of the
    pair only, so that every normal takes the same two draws."""
    u1 = uniform(state)
    u2 = uniform(state)
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
