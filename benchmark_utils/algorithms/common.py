"""What every algorithm shares: the steps and batches of a configuration
(``Steps``) and the counters and result of a run (``RunStatus``).

Step sizes follow benchmark_bilevel's convention: ``step_size`` is the y
step beta, ``alpha = beta / outer_ratio`` the x step and ``gamma = beta /
z_ratio`` the z step (the baselines' Neumann/HIA scale and linear-system
step); each decays as ``c / (k + 1)^e`` with its exponent over outer
iterations k (docs/algorithms.md §3, docs/baselines.md §3).
"""
import time
from dataclasses import dataclass

import numpy as np

from ..core import records
from ..core.rng import seed_state
from ..core.sampling import draw_batch, identity_perm
from .checks import (SAMPLING_CHOICES, check_batch, check_choice,
                     check_exponent, check_positive, validated_for)

FULL = "full"  # batch_size of full batches (the baselines that allow it)


def batch_rows(batch_size):
    """Samples per batch buffer: ``batch_size``, 0 for ``"full"`` (a full
    batch reads its level's rows in place)."""
    return 0 if batch_size == FULL else int(batch_size)


@dataclass
class Steps:
    """The fields every configuration has: steps, their decays, the batch
    and how batches are drawn (``"uniform"`` b-subsets, or ``"blocks"``: b
    consecutive samples of an order permuted once per run, from a uniformly
    random start; docs/algorithms.md §2)."""
    step_size: float = 0.1
    outer_ratio: float = 1.0
    z_ratio: float = 1.0
    exponent_x: float = 0.0
    exponent_y: float = 0.0
    exponent_z: float = 0.0
    batch_size: int = 64
    sampling: str = "uniform"

    def validate_steps(self, n=None, m=None):
        """Check the shared fields (``n``, ``m``: the problem's UL and LL
        samples, when known, bound ``batch_size``)."""
        check_choice("sampling", self.sampling, SAMPLING_CHOICES)
        for name in ("step_size", "outer_ratio", "z_ratio"):
            check_positive(name, getattr(self, name))
        for name in ("exponent_x", "exponent_y", "exponent_z"):
            check_exponent(name, getattr(self, name))
        self.check_batch_size(n, m)

    def check_batch_size(self, n=None, m=None):
        """``batch_size``: an integer in [1, min(n, m)]."""
        check_batch(self.batch_size, n, m)

    @property
    def alpha(self):
        return self.step_size / self.outer_ratio

    @property
    def beta(self):
        return self.step_size

    @property
    def gamma(self):
        return self.step_size / self.z_ratio


def block_orders(rng, n, m):
    """The UL and LL orders of ``blocks`` sampling: full Fisher-Yates
    shuffles of ``0..n-1`` then ``0..m-1`` drawn from ``rng`` (in place)."""
    out = []
    for size in (n, m):
        order = identity_perm(size)
        draw_batch(rng, order, size)
        out.append(order)
    return tuple(out)


# The largest sample count the counters hold: "no target" of ``run``.
NO_TARGET = np.iinfo(np.int64).max

# Wall time of one call of a compiled loop when ``run_until`` watches a
# deadline: the iterations of a call are sized, from the run's measured
# seconds per iteration, to take about this long, and the deadline is
# read between two calls (docs/metrics.md "--timeout").
CHUNK_SECONDS = 0.2
CHUNK_GROWTH = 16


def steps_until(run, target, max_iter=None, time_is_up=None):
    """``run_until`` of a Python-side run (``ImplicitRun``, ``SearchRun``):
    ``run.run(1)`` until its sample count reaches ``target`` (the end of
    the first iteration that does), the run diverges, ``max_iter``
    iterations were made (None: no cap) or ``time_is_up()`` (checked
    before each iteration: ``--timeout`` ends such a run within one
    iteration of its deadline)."""
    done = 0
    while run.n_samples < target and not run.diverged:
        if max_iter is not None and done >= max_iter:
            return
        if time_is_up is not None and time_is_up():
            return
        run.run(1)
        done += 1


class RunStatus:
    """Iterates, counters and result of a run held in the records of
    ``core.records``: shared by ``PnPBORun`` and ``BaselineRun``, whose
    ``_loop(n_iter, target)`` calls their compiled loop through
    ``_call``."""

    _entry = None  # the compiled entry of this run's argument types

    def _call(self, dispatcher, args):
        """``dispatcher(*args)`` through the compiled function of the
        run's argument types, looked up (compiled, or loaded from numba's
        cache) at the first call: numba's dispatch types every field of
        every record at each call, about 0.4 ms, ten times the call
        itself, and a run on the grid of sample evaluations makes one
        call per callback call.  The records are the run's own for its
        lifetime, so their types do not change."""
        if self._entry is None:
            types = tuple(dispatcher.typeof_pyval(a) for a in args)
            self._entry = dispatcher.compile(types)
        self._entry(*args)

    def _start(self, problem, config, start, seed, table):
        """Validate (once: ``checks.validated_for``), then the records
        every run starts from: the model, the
        generator seeded from ``seed`` (under ``sampling="blocks"`` each
        level's order, a full Fisher-Yates shuffle drawn from it before
        iteration 0, f then g), the levels (``table``: ``"full"`` when the
        run keeps per-sample tables, else ``"one"``) and copies of the
        starting point ``start = (x0, y0, z0)``."""
        validated_for(config, problem.n, problem.m)
        self.problem = problem
        self.config = config
        p = problem
        dx, dy = p.dim_x, p.dim_y
        x0, y0, z0 = (np.asarray(v, dtype=np.float64) for v in start)
        if x0.shape != (dx,) or y0.shape != (dy,) or z0.shape != (dy,):
            raise ValueError(
                f"starting point shapes must be x0: ({dx},), y0: ({dy},), "
                f"z0: ({dy},); got {x0.shape}, {y0.shape}, {z0.shape}")
        self.model = records.make_model(p)
        self.stream = records.make_stream(seed_state(seed))
        self.orders = None
        if config.sampling == "blocks":
            self.orders = block_orders(self.stream.rng, p.n, p.m)
        # the rows of a batch, converted once for every record that has one
        self.batch = batch_rows(config.batch_size)
        self.levels = records.make_levels(p, table, self.batch, self.orders)
        self.iterates = records.make_iterates(x0, y0, z0)

    def run(self, n_iter):
        """Advance ``n_iter`` iterations (fewer if the run diverges)."""
        if self.diverged or n_iter <= 0:
            return
        self._loop(n_iter, NO_TARGET)

    def run_until(self, target, max_iter=None, time_is_up=None):
        """Advance to the end of the first iteration whose sample count
        reaches ``target`` (nothing when it already has): the compiled
        loop stops there.  ``max_iter`` caps the iterations (default
        ``target - n_samples``: every iteration evaluates at least one
        sample).

        Without ``time_is_up``, one call of the compiled loop.  With it
        (``--timeout``'s check), the iterations are made in calls of about
        ``CHUNK_SECONDS`` of wall time each (``_chunk``), and
        ``time_is_up()`` is read between two calls: the run stops within
        one call of its deadline however far ``target`` is (a call ends at
        an iteration's end: an outer iteration of a baseline is never
        cut).  The loop keeps its whole state in the records, so the
        iterates are bit for bit those of one call; a step of the grid
        shorter than ``CHUNK_SECONDS`` is one call, as without a
        deadline (the first of a run, two)."""
        todo = target - self.n_samples
        if self.diverged or todo <= 0:
            return
        cap = todo if max_iter is None else min(int(max_iter), todo)
        if time_is_up is None:
            self._loop(cap, target)
            return
        while True:
            n_iter = min(self._chunk(), cap)
            start, k = time.perf_counter(), self.iteration
            self._loop(n_iter, target)
            done = self.iteration - k
            if done > 0:
                self._pace = (done, time.perf_counter() - start)
            cap -= done
            if (done < n_iter or cap <= 0 or self.diverged
                    or self.n_samples >= target or time_is_up()):
                return

    _pace = None  # (iterations, seconds) of run_until's last timed call

    def _chunk(self):
        """Iterations of the next call of ``run_until`` under a deadline:
        about ``CHUNK_SECONDS`` at the pace of the last call, at most
        ``CHUNK_GROWTH`` times its iterations (a first call, which may
        look the compiled entry up, is slow); one before any call."""
        if self._pace is None:
            return 1
        iterations, seconds = self._pace
        paced = CHUNK_SECONDS * iterations / max(seconds, 1e-9)
        return max(1, min(int(paced), CHUNK_GROWTH * iterations))

    x = property(lambda self: self.iterates.x)
    y = property(lambda self: self.iterates.y)
    z = property(lambda self: self.iterates.z)

    @property
    def counters(self):
        return self.stream.counters

    @property
    def iteration(self):
        return int(self.counters[records.K_ITER])

    @property
    def n_samples(self):
        return int(self.counters[records.N_SAMPLES])

    @property
    def diverged(self):
        return bool(self.counters[records.STATUS] == records.DIVERGED)

    def result(self):
        """Copies of the iterates, the sample count and the status."""
        return dict(x=self.x.copy(), y=self.y.copy(), z=self.z.copy(),
                    n_samples=self.n_samples, diverged=self.diverged)
