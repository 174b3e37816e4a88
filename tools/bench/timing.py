"""Parts 1 and 2, in process: steady-state time per iteration, one full
pass against numpy streaming the same rows."""
import statistics
import time

from .settings import FULL_PASS_SOLVER
from .shapes import data_rows, make_config, make_run


def time_chunk(run, n_iter):
    """Run ``n_iter`` iterations; return (seconds, iterations, samples)."""
    k0, s0 = run.iteration, run.n_samples
    t0 = time.perf_counter()
    run.run(n_iter)
    elapsed = time.perf_counter() - t0
    return elapsed, run.iteration - k0, run.n_samples - s0


def calibrate(run, target, start=16):
    """Number of iterations that lasts about ``target`` seconds (tries
    ``start``, 4 ``start``, ... iterations until one lasts target / 10)."""
    n_iter = start
    while True:
        elapsed, done, _ = time_chunk(run, n_iter)
        if run.diverged or done == 0:
            return n_iter
        if elapsed >= target / 10:
            return max(1, int(round(n_iter * target / elapsed)))
        n_iter *= 4


def steady_state(problem, config, settings, start=16):
    """Median time per iteration / per sample evaluation of timed chunks."""
    run = make_run(problem, config)
    run.run(settings["warmup"])
    n_iter = calibrate(run, settings["target"], start)
    chunks = [time_chunk(run, n_iter) for _ in range(settings["repeats"])]
    chunks = [c for c in chunks if c[1] > 0]
    if not chunks:
        return dict(diverged=True)
    return dict(
        us_per_iter=statistics.median(1e6 * t / k for t, k, _ in chunks),
        ns_per_sample=statistics.median(1e9 * t / s for t, _, s in chunks),
        samples_per_iter=sum(s for *_, s in chunks) / sum(
            k for _, k, _ in chunks),
        iters_per_chunk=n_iter, chunks=len(chunks),
        diverged=run.diverged)


def stream_time(data, repeats):
    """Best time of ``X_train.sum() + X_val.sum()`` (one read of all the
    samples)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        data["X_train"].sum() + data["X_val"].sum()
        best = min(best, time.perf_counter() - t0)
    return best


def full_pass_figures(data, problem, batch_size, settings, warmup=5,
                      start=16, **overrides):
    """One full pass (SPABA with p = 1) against streaming the data once.

    ``warmup`` passes first; ``start`` is the calibration's first chunk (in
    passes: small on large data, where one pass lasts a good fraction of a
    second); ``overrides`` go to the config (e.g. ``step_size``).
    """
    config = make_config(FULL_PASS_SOLVER, batch_size, p=1.0, **overrides)
    res = steady_state(problem, config, dict(settings, warmup=warmup), start)
    samples, nbytes = data_rows(data)
    stream = stream_time(data, settings["stream_repeats"])
    res.update(samples=samples, data_mib=nbytes / 2**20,
               stream_us=1e6 * stream, stream_gbs=nbytes / stream / 1e9,
               pass_gbs=nbytes / (res["us_per_iter"] * 1e-6) / 1e9,
               ratio=res["us_per_iter"] / (1e6 * stream))
    return res
