"""Compile the numba kernels a run needs in parallel processes, ahead of
its solvers.

A kernel (``Kernel``) is one compiled entry for one task and feature
dtype: the single-loop core (``engine.compile_core``), one baseline
family's loop (``engine.compile_baselines``), or the exact metrics'
passes of the multiclass tasks (``exact_kernels.warm_up``).  Each
compiles on one core, once per machine, into numba's on-disk cache
(``numba_cache``); a run that meets them one after the other waits for
each in turn.

Under ``benchopt run`` the solvers compile through ``compile_for_run``.
Its first call in the command works out every kernel the command needs
(``run_kernels``: click's context holds the solver and dataset patterns
and the ``--config`` file, read as benchopt reads them
(``progress.run_selection``); benchopt resolves the patterns; each
dataset class states its ``task``, its ``dtype`` parameter the feature
dtypes; each solver its ``algorithm``, whose kind and family give the
kernel), keeps those numba's cache lacks (``is_ready``: a look at the
cache's index, milliseconds), compiles the one it was called for in the
run's process as before, and starts the others in child processes
(``Background``), as many at once as the cores less the one the run's
solvers use.  A later request waits for its
kernel's process, then loads it from the cache; one not started yet it
takes back and compiles itself.  So a cold run costs about its longest
chain of compiles instead of their sum, and nothing when the cache is
warm.  Outside ``benchopt run`` (the tests, the tools, a ``-j``/dask
worker) ``compile_for_run`` is ``engine.compile_for``.

The same on demand (every kernel of a run's options, or of a config)::

    python -m benchmark_utils.precompile --config configs/quick.yml
    python -m benchmark_utils.precompile -d breast_cancer -s SPABA -s MRBO

and from Python, ``precompile(kernels_for(["SPABA", "MRBO"],
[("logreg", "float64")]))``.
"""
import argparse
import atexit
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

from . import engine
from .algorithms.baseline import FAMILIES
from .algorithms.table import ALGORITHMS, BASELINE, entry
from .families.loop import FAMILY_NAMES

ROOT = Path(__file__).resolve().parents[1]
DTYPES = ("float64", "float32")  # feature storage (data.storage)
MULTICLASS = "multiclass"  # the metrics kernel's task: every multiclass one
# click's per-command store (``Context.meta``): this command's compiles
MARK = "benchmark_utils.precompile"

# one algorithm per baseline family: a family compiles one loop
_FAMILY_ALGORITHM = {}
for _name, (_family, _) in FAMILIES.items():
    _FAMILY_ALGORITHM.setdefault(_family, _name)


class Kernel(NamedTuple):
    """One compiled entry: ``entry`` is ``"core"`` (the single loop),
    ``"baselines"`` (the family of ``algorithm``, a
    ``BaselineConfig.algorithm``) or ``"metrics"`` (task
    ``MULTICLASS``); for ``task`` and features of ``dtype``."""
    entry: str
    task: str
    dtype: str = "float64"
    algorithm: Optional[str] = None

    def describe(self):
        family = (None if self.algorithm is None
                  else FAMILY_NAMES[FAMILIES[self.algorithm][0]])
        return engine.describe(self.entry, self.task, self.dtype, family)

    def seconds(self):
        """About how long its first compile takes
        (``engine.first_compile_seconds``)."""
        return engine.first_compile_seconds(self.entry, self.task)


def check_dtype(dtype):
    """The name of feature dtype ``dtype``; ValueError unless one of
    ``DTYPES``."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in DTYPES:
        raise ValueError(f"dtype must be one of {list(DTYPES)}, got "
                         f"{dtype!r}")
    return name


def kernel_for(name, dtype=np.float64, task="quadratic"):
    """The kernel solver ``name`` (a key of ``algorithms.ALGORITHMS``)
    runs on ``task`` with features of ``dtype``; None for a Python-side
    kind (``EXACT``, ``SEARCH``)."""
    from .tasks import get_task
    algo = entry(name)
    dtype = check_dtype(dtype)
    get_task(task)  # an unknown task is named with the known ones
    if not algo.kind.compiled:
        return None
    if algo.kind is BASELINE:
        family = FAMILIES[algo.fixed["algorithm"]][0]
        return Kernel("baselines", task, dtype, _FAMILY_ALGORITHM[family])
    return Kernel("core", task, dtype)


def uses_metrics_kernel(task):
    """Whether the exact metrics of ``task`` run the compiled passes of
    ``exact_kernels`` (the softmax cross-entropy oracles)."""
    from .exact_glm import SoftmaxCE
    from .tasks import get_task
    return issubclass(get_task(task).oracle_class(), SoftmaxCE)


def kernels_for(algorithms, data):
    """The kernels of runs of ``algorithms`` (keys of
    ``algorithms.ALGORITHMS``) on ``data`` ((task, feature dtype) pairs),
    each once, in the order the runs meet them: data by data, the
    metrics' passes before the first multiclass data's solvers (the
    Objective compiles them)."""
    out = []
    for task, dtype in data:
        if uses_metrics_kernel(task):
            out.append(Kernel("metrics", MULTICLASS))
        out.extend(kernel_for(name, dtype, task) for name in algorithms)
    return list(dict.fromkeys(k for k in out if k is not None))


def _holds(dispatcher, types):
    """Whether a call of ``dispatcher`` with argument ``types`` would not
    compile: this process has it, numba's cache index holds its key
    (signature, machine, bytecode, sources: ``numba_cache``), or numba
    keeps no cache to fill."""
    if tuple(types) in dispatcher.overloads:
        return True
    cache = getattr(dispatcher, "_cache", None)
    index_file = getattr(cache, "_cache_file", None)
    if index_file is None:
        return True
    key = cache._index_key(tuple(types), dispatcher.targetctx.codegen())
    return key in index_file._load_index()


def _holds_n(dispatcher, n):
    """Whether this process or numba's cache holds valid entries of
    ``dispatcher`` for ``n`` signatures (the metrics' passes: the gradient
    one on float64 features, the Hessian-vector one on float64 and
    float32 features)."""
    cache = getattr(dispatcher, "_cache", None)
    index_file = getattr(cache, "_cache_file", None)
    if len(dispatcher.overloads) >= n or index_file is None:
        return True
    codegen = dispatcher.targetctx.codegen()
    return sum(key == cache._index_key(key[0], codegen)
               for key in index_file._load_index()) >= n


def is_ready(kernel):
    """Whether ``kernel`` needs no compile: numba's cache (or this
    process) holds it.  A few milliseconds: a tiny run's argument types
    and a look at the cache's index, nothing compiled or loaded."""
    if kernel.entry == "metrics":
        from . import exact_kernels
        return all(_holds_n(grad, 1) and _holds_n(hvp, 2) for grad, hvp in (
            (exact_kernels.ce_grad_pass, exact_kernels.ce_hvp_pass),
            (exact_kernels.ce_grad_pass_serial,
             exact_kernels.ce_hvp_pass_serial)))
    if kernel.entry == "core":
        run = engine.core_run(kernel.dtype, kernel.task)
    else:
        run = engine.baseline_run(kernel.dtype, kernel.task,
                                  kernel.algorithm)
    return _holds(*engine.entry_types(run))


def compile_here(kernel):
    """Compile ``kernel`` (or load it) in this process."""
    if kernel.entry == "metrics":
        from . import exact_kernels
        exact_kernels.warm_up()
    elif kernel.entry == "core":
        engine.compile_core(kernel.dtype, kernel.task)
    else:
        engine.compile_baselines(kernel.dtype, kernel.task,
                                 kernel.algorithm)


CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from benchmark_utils.precompile import Kernel, compile_here
compile_here(Kernel(*[None if a == "-" else a for a in sys.argv[2:]]))
"""


def child_command(kernel):
    """The command that compiles ``kernel`` in a fresh process."""
    return [sys.executable, "-c", CHILD, str(ROOT),
            *["-" if v is None else v for v in kernel]]


def usable_cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Background:
    """``kernels`` compiling in child processes, in their order, at most
    ``workers`` at once (``command(kernel)``: the child's command line).
    ``seconds`` and ``failed`` ({kernel: stderr's end}) fill in as they
    end; ``take`` claims one not started yet, ``wait`` waits for one;
    ``close`` stops the children (at exit: a kernel the run did not wait
    for is one it does not need)."""

    def __init__(self, kernels, workers, command=child_command):
        self.kernels = list(dict.fromkeys(kernels))
        self.seconds, self.failed = {}, {}
        self._queue = list(self.kernels)
        self._done = {k: threading.Event() for k in self.kernels}
        self._lock = threading.Lock()
        self._children = set()
        self._closed = False
        self._command = command
        self._threads = [threading.Thread(target=self._work, daemon=True)
                         for _ in range(max(1, min(workers, len(
                             self.kernels))))]
        for thread in self._threads:
            thread.start()

    def _next(self):
        with self._lock:
            if self._closed or not self._queue:
                return None
            return self._queue.pop(0)

    def _start(self, kernel):
        """The child compiling ``kernel``; None once closed (started under
        the lock: ``close`` stops every child that ever starts)."""
        with self._lock:
            if self._closed:
                return None
            child = subprocess.Popen(
                self._command(kernel), stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True)
            self._children.add(child)
            return child

    def _work(self):
        while (kernel := self._next()) is not None:
            start = time.perf_counter()
            try:
                child = self._start(kernel)
            except OSError as err:
                child, self.failed[kernel] = None, str(err)
            if child is None:
                self.failed.setdefault(kernel, "not started: closed")
                self._done[kernel].set()
                continue
            _, err = child.communicate()
            with self._lock:
                self._children.discard(child)
            if child.returncode == 0:
                self.seconds[kernel] = time.perf_counter() - start
            else:
                self.failed[kernel] = (err or "").strip()[-2000:] or (
                    f"exit code {child.returncode}")
            self._done[kernel].set()

    def take(self, kernel):
        """Remove ``kernel`` from the queue if no child has started it;
        True if so (the caller compiles it)."""
        with self._lock:
            if kernel in self._queue:
                self._queue.remove(kernel)
                self._done[kernel].set()
                return True
        return False

    def wait(self, kernel=None):
        """Wait for ``kernel``'s child to end (every child's when None);
        True unless it failed."""
        for k in self.kernels if kernel is None else [kernel]:
            if k in self._done:
                self._done[k].wait()
        return kernel is None or kernel not in self.failed

    def close(self):
        """Start nothing more and stop the running children."""
        with self._lock:
            self._closed = True
            self._queue.clear()
            children = list(self._children)
        for child in children:
            child.kill()


def queue_order(kernels):
    """The order the children take ``kernels`` in: longest first (the
    run's process takes back the short ones it meets before a child
    starts them, so both work until the end), ties in the run's order;
    the metrics' passes last (the Objective compiles them in the run's
    process when it meets the first multiclass data: a child then loads
    them, if it gets there after)."""
    return sorted(kernels, key=lambda k: (k.entry == "metrics",
                                          -k.seconds()))


def estimate_seconds(kernels, workers):
    """About how long ``kernels`` take on ``workers`` processes, each
    started on the first free one (``Kernel.seconds``)."""
    loads = [0] * max(1, workers)
    for kernel in kernels:
        loads[loads.index(min(loads))] += kernel.seconds()
    return max(loads)


def announcement(kernels, workers, here=None, where="background "):
    """What compiles, where, and about how long (``here``: the kernel the
    calling process compiles itself meanwhile)."""
    lines = [f"compiling {len(kernels)} numba kernel"
             f"{'s' if len(kernels) > 1 else ''} in {workers} {where}"
             f"process{'es' if workers > 1 else ''} (first use on this "
             "machine or after an update; cached for the next runs), about "
             f"{estimate_seconds(kernels, workers)} s on 2 cores:"]
    if here is not None:
        lines.append(f"    here: {here.describe()}")
    lines.extend(f"    {kernel.describe()}" for kernel in kernels)
    return "\n".join(lines)


def precompile(kernels, workers=None, say=print):
    """Compile the ``kernels`` numba's cache lacks in child processes,
    ``workers`` at once (default: every usable core), and wait for them.
    Returns {kernel: seconds} of those compiled; a RuntimeError names
    those that failed.  Safe beside other processes compiling the same
    kernels (``numba_cache`` locks each save)."""
    todo = queue_order(k for k in dict.fromkeys(kernels) if not is_ready(k))
    if not todo:
        return {}
    workers = min(workers or usable_cores(), len(todo))
    if say is not None:
        say(announcement(todo, workers, where=""))
    background = Background(todo, workers)
    try:
        background.wait()
    finally:
        background.close()
    if background.failed:
        raise RuntimeError("compiling failed: " + "; ".join(
            f"{k.describe()}: {err}" for k, err in background.failed.items()))
    return background.seconds


# ---------------------------------------------------------------------------
# What a benchopt run needs
# ---------------------------------------------------------------------------
def dataset_dtypes(params):
    """The feature dtypes of a dataset's selected ``params`` (benchopt's
    {"name" or "a, b": value or list}): its ``dtype`` values, float64
    without one; values outside ``DTYPES`` are left to the dataset's own
    check."""
    for key, values in params.items():
        names = [k.strip() for k in key.split(",")]
        if "dtype" not in names:
            continue
        values = values if isinstance(values, list) else [values]
        if len(names) > 1:
            values = [v[names.index("dtype")] for v in values]
        return [str(v) for v in dict.fromkeys(values) if str(v) in DTYPES]
    return ["float64"]


def run_kernels(benchmark, solvers, datasets):
    """The kernels of ``benchopt run`` on ``benchmark`` (benchopt's
    ``Benchmark``) with solver patterns ``solvers`` and dataset patterns
    ``datasets`` (empty: all), resolved by benchopt.  A dataset without a
    ``task`` attribute, or a solver without an ``algorithm`` of the table,
    adds nothing: its kernels compile on first use."""
    data = []
    for cls, params in benchmark.check_dataset_patterns(list(datasets)):
        task = getattr(cls, "task", None)
        if isinstance(task, str):
            data.extend((task, dtype) for dtype in dataset_dtypes(params))
    algorithms = [getattr(cls, "algorithm", None) for cls, _ in
                  benchmark.check_solver_patterns(list(solvers))]
    return kernels_for([a for a in dict.fromkeys(algorithms)
                        if a in ALGORITHMS], data)


def run_context():
    """click's context of ``benchopt run`` in this thread, or None."""
    try:
        import click
    except ImportError:
        return None
    context = click.get_current_context(silent=True)
    if context is None or context.command.name != "run" or getattr(
            context.command.callback, "__module__", "") != \
            "benchopt.cli.main":
        return None
    return context


def kernels_of_command(context):
    """The kernels of the ``benchopt run`` of click's ``context``."""
    from benchopt.benchmark import Benchmark, get_running_benchmark

    from .progress import run_selection
    selection = run_selection(context)
    benchmark = get_running_benchmark()
    if benchmark is None:
        benchmark = Benchmark(context.params["benchmark"])
    solvers = list(selection["solver"] or []) + list(
        selection["force_solver"] or [])
    return run_kernels(benchmark, solvers, selection["dataset"] or [])


def _start_for_command(context, kernel):
    """The command's ``Background`` (None: nothing to compile ahead),
    started at its first request, ``kernel``, which the caller compiles
    itself."""
    if MARK in context.meta:
        return context.meta[MARK]
    context.meta[MARK] = None
    try:
        todo = [k for k in kernels_of_command(context)
                if k != kernel and not is_ready(k)]
    except Exception as err:  # an optimisation: the run goes on without
        print(f"the kernels this run needs could not be listed ({err!r}): "
              "each compiles when first used", flush=True)
        return None
    todo = queue_order(todo)
    if todo:
        workers = min(len(todo), max(1, usable_cores() - 1))
        here = None if kernel is None or is_ready(kernel) else kernel
        print(announcement(todo, workers, here), flush=True)
        background = Background(todo, workers)
        atexit.register(background.close)
        context.meta[MARK] = background
    return context.meta[MARK]


def _wait_for(background, kernel):
    """Wait for ``kernel`` if a child compiles it (a queued one is taken
    back: the caller compiles it), announcing the wait as a compile."""
    if kernel not in background.kernels or background.take(kernel):
        return
    family = (None if kernel.algorithm is None
              else FAMILY_NAMES[FAMILIES[kernel.algorithm][0]])
    with engine.announced(kernel.entry, kernel.task, kernel.dtype, family,
                          where=" in a background process"):
        done = background.wait(kernel)
    if not done:
        print(f"the background compile of {kernel.describe()} failed "
              f"({background.failed[kernel].splitlines()[-1]}); compiling "
              "it here", flush=True)


def compile_for_run(name, dtype=np.float64, task="quadratic"):
    """``engine.compile_for`` for a solver of ``benchopt run``: its first
    call in the command starts every other kernel the command needs in
    child processes; a kernel a child compiles is waited for, then loaded
    from the on-disk cache.  Outside ``benchopt run``: ``compile_for``."""
    context = run_context()
    kernel = kernel_for(name, dtype, task)
    if context is not None and kernel is not None:
        background = _start_for_command(context, kernel)
        if background is not None:
            _wait_for(background, kernel)
    return engine.compile_for(name, dtype, task)


# ---------------------------------------------------------------------------
# python -m benchmark_utils.precompile
# ---------------------------------------------------------------------------
def _options(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmark_utils.precompile",
        description="Compile the numba kernels of a benchopt run (its "
                    "solver and dataset patterns, or a --config file's) "
                    "into numba's cache, in parallel processes.")
    parser.add_argument("--config", help="a benchopt run config (YAML)")
    parser.add_argument("-s", "--solver", action="append", default=[],
                        help="solver pattern, as benchopt run's -s")
    parser.add_argument("-d", "--dataset", action="append", default=[],
                        help="dataset pattern, as benchopt run's -d")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes at once (default: every core)")
    parser.add_argument("--list", action="store_true",
                        help="list the kernels and whether cached, only")
    options = parser.parse_args(argv)
    if options.workers is not None and options.workers < 1:
        parser.error(f"--workers must be >= 1, got {options.workers}")
    return options


def patterns(options):
    """The solver and dataset patterns of the options: each given on the
    command line replaces the config file's (as ``benchopt run``)."""
    config = {}
    if options.config:
        import yaml
        with open(options.config) as f:
            config = yaml.safe_load(f) or {}

    def listed(key):
        value = config.get(key) or []
        return value if isinstance(value, list) else [value]
    solvers = options.solver or listed("solver") + listed("force-solver")
    return solvers, options.dataset or listed("dataset")


def main(argv=None):
    options = _options(argv)
    from benchopt.benchmark import Benchmark
    solvers, datasets = patterns(options)
    kernels = run_kernels(Benchmark(ROOT), solvers, datasets)
    if options.list:
        for kernel in kernels:
            state = "cached" if is_ready(kernel) else "to compile"
            print(f"{state:>10}  {kernel.describe()}")
        return
    start = time.perf_counter()
    seconds = precompile(kernels, options.workers)
    for kernel, s in seconds.items():
        print(f"{s:6.1f} s  {kernel.describe()}")
    print(f"{len(seconds)} of {len(kernels)} kernels compiled in "
          f"{time.perf_counter() - start:.1f} s (the others were cached)")


if __name__ == "__main__":
    main()
