"""One side of an A/B (``tools.bench.ab``): a long-lived process that times
chunks of iterations of one build on request.

Started as a script with the build's checkout as working directory, it
imports that build's ``tools.bench.shapes`` and ``benchmark_utils`` (the
functions used exist in every build since the real-data shapes:
``shape_data``, ``quadratic_data``, ``problem_of``, ``problem_config``,
``make_run``, ``storage.features_as``), so each side runs its own code
under one timing loop.  It keeps one run per (shape, solver) cell going
from the Objective's starting point: both sides, seeded alike, do the same
iterations chunk after chunk (the same full passes for SPABA).

Protocol: one JSON object per line on stdin, one answer per line on the
original stdout (anything else the build prints goes to stderr):

* ``{"op": "prepare", "cells": [[shape, solver], ...], "dtype": ...,
  "sampling": ..., "batch_size": ..., "step_size": {shape: step},
  "dim": ..., "n": ..., "warmup": ...}``: build the problems, compile (or
  load) and warm every cell; answers the seconds it took;
* ``{"op": "calibrate", "cell": i, "target": s}``: iterations of cell
  ``i`` that last about ``s`` seconds;
* ``{"op": "time", "cell": i, "n_iter": k}``: run ``k`` iterations, answer
  ``{"wall": seconds, "cpu": seconds, "iters": done, "samples": n}`` (the
  CPU time of the timing thread leaves out the time another process held
  the core; ``n`` sample evaluations tell whether both sides did the same
  work, e.g. SPABA's random full passes);
* ``{"op": "quit"}``.
"""
import json
import os
import sys
import time


def build_problems(shapes, dtype, dim, n):
    """{shape: problem} of the build: seeded real shapes stored as
    ``dtype``, the quadratic one in float64 (as ``python -m tools.bench``
    does)."""
    from benchmark_utils.data.storage import features_as
    from tools.bench import shapes as sh
    problems = {}
    for shape in shapes:
        if shape == "quadratic":
            data = sh.quadratic_data(dim, n)
        else:
            data = features_as(sh.shape_data(shape), dtype)
        problems[shape] = sh.problem_of(data)
    return problems


class Side:
    """The runs of one build, one per cell."""

    def __init__(self, msg):
        from tools.bench import shapes as sh
        self.make_run = sh.make_run
        self.problems = build_problems(
            sorted({shape for shape, _ in msg["cells"]}), msg["dtype"],
            msg["dim"], msg["n"])
        self.warmup = msg["warmup"]
        self.shapes = [shape for shape, _ in msg["cells"]]
        self.configs = [sh.problem_config(
            self.problems[shape], solver, msg["batch_size"],
            step_size=msg["step_size"][shape], sampling=msg["sampling"])
            for shape, solver in msg["cells"]]
        self.runs = [self.fresh_run(cell)
                     for cell in range(len(self.configs))]

    def fresh_run(self, cell):
        """A run of ``cell`` from the starting point, warmed up (its first
        call compiles or loads the code)."""
        problem = self.problems[self.shapes[cell]]
        run = self.make_run(problem, self.configs[cell])
        run.run(self.warmup)
        if run.diverged:
            raise RuntimeError(f"cell {cell} diverged in its warm-up")
        return run

    def chunk(self, cell, n_iter):
        """Wall seconds, CPU seconds of this thread, iterations and sample
        evaluations of ``n_iter`` more iterations."""
        run = self.runs[cell]
        k0, s0 = run.iteration, run.n_samples
        c0, t0 = time.thread_time(), time.perf_counter()
        run.run(n_iter)
        elapsed = time.perf_counter() - t0
        return (elapsed, time.thread_time() - c0, run.iteration - k0,
                run.n_samples - s0)

    def calibrate(self, cell, target):
        """Iterations lasting about ``target`` seconds (at least 1), on a
        run of its own: the cell's run keeps the iterations of the other
        side's."""
        run = self.fresh_run(cell)
        n_iter = 1
        while True:
            k0, t0 = run.iteration, time.perf_counter()
            run.run(n_iter)
            elapsed, done = time.perf_counter() - t0, run.iteration - k0
            if done < n_iter:
                raise RuntimeError(f"cell {cell} stopped iterating")
            if elapsed >= target / 4:
                return max(1, int(round(n_iter * target / elapsed)))
            n_iter *= 4


def serve(requests, answer):
    """Answer each request until ``quit``."""
    side = None
    for line in requests:
        msg = json.loads(line)
        op = msg["op"]
        if op == "quit":
            return
        t0 = time.perf_counter()
        if op == "prepare":
            side = Side(msg)
            answer(dict(s=time.perf_counter() - t0))
        elif op == "calibrate":
            answer(dict(n_iter=side.calibrate(msg["cell"], msg["target"])))
        elif op == "time":
            wall, cpu, done, samples = side.chunk(msg["cell"],
                                                  msg["n_iter"])
            answer(dict(wall=wall, cpu=cpu, iters=done, samples=samples))
        else:
            raise ValueError(f"unknown op {op!r}; allowed: prepare, "
                             "calibrate, time, quit")


def main():
    """Keep the protocol on the original stdout; the build's prints go to
    stderr."""
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def answer(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    try:
        serve(sys.stdin, answer)
    except Exception as exc:  # the parent reports it and stops
        answer(dict(error=f"{type(exc).__name__}: {exc}"))
        raise


if __name__ == "__main__":
    sys.path[0] = os.getcwd()  # the build's checkout, not this folder
    main()
