"""What a whole command spends compiling with numba, over every Python
process it starts (a test suite's workers, the ``benchopt run``s they
start):

    python -m tools.compile_log [--top 12] [--keep DIR] -- COMMAND ...

e.g. ``python -m tools.compile_log -- python -m pytest tests -n 2 -q``
with ``NUMBA_CACHE_DIR`` pointing at an empty folder for a cold run.

The command runs with a ``sitecustomize`` put first on ``PYTHONPATH``:
each process that imports numba records numba's compile events (one
line per compiled function and signature, how long it took, and the
pytest test running then) in a folder of its own.  Printed after the
command: its wall time, the compiles' own time summed over processes
(the outermost compile of each nest, so a callee is not counted twice),
by entry function and by test file, and the time spent compiling the
same function and signature in more than one process (compiles a
shared cache did not save).  Not counted: processes started with a
``PYTHONPATH`` of their own (a test that runs a copy of the package), and
loads from numba's cache, which are not compiles.  The exit status is
the command's.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

SITECUSTOMIZE = r'''
"""Records numba's compile events of this process (tools.compile_log)."""
import importlib.abc
import importlib.util
import json
import os
import sys
import time

_FOLDER = os.environ.get("BILEVEL_COMPILE_LOG")


def _install(event):
    class Recorder(event.Listener):
        def __init__(self):
            self.starts = []
            self.path = os.path.join(_FOLDER, f"{os.getpid()}.jsonl")

        def on_start(self, ev):
            self.starts.append(time.perf_counter())

        def on_end(self, ev):
            seconds = time.perf_counter() - self.starts.pop()
            data = ev.data or {}
            func = getattr(data.get("dispatcher"), "py_func", None)
            name = (f"{getattr(func, '__module__', '')}."
                    f"{getattr(func, '__qualname__', repr(func))}")
            line = json.dumps(dict(
                function=name, signature=str(data.get("args")),
                depth=len(self.starts), seconds=seconds,
                test=os.environ.get("PYTEST_CURRENT_TEST", "")))
            with open(self.path, "a") as f:
                f.write(line + "\n")

    event.register("numba:compile", Recorder())


class _Hook(importlib.abc.MetaPathFinder):
    """Registers the recorder once numba's event module is loaded."""

    def find_spec(self, name, path, target=None):
        if name != "numba.core.event":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _install(module)
        spec.loader.exec_module = exec_module
        return spec


if _FOLDER:
    sys.meta_path.insert(0, _Hook())
'''


def read_log(folder):
    """The compile records of every process, one dict each."""
    rows = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for line in path.read_text().splitlines():
            rows.append(dict(json.loads(line), process=path.stem))
    return rows


def summary(rows, top=12):
    """The report's lines: outermost compiles only (``depth`` 0)."""
    outer = [r for r in rows if r["depth"] == 0]
    total = sum(r["seconds"] for r in outer)
    by_key = defaultdict(list)
    for r in outer:
        by_key[(r["function"], r["signature"])].append(r)
    repeated = sum(sum(r["seconds"] for r in group[1:])
                   for group in by_key.values()
                   if len({r["process"] for r in group}) > 1)
    lines = [f"compiling: {total:.0f} s in {len(outer)} compiles over "
             f"{len({r['process'] for r in rows})} processes; the same "
             f"function and signature compiled again in another process: "
             f"{repeated:.0f} s"]
    for title, key in (("by entry function", lambda r: r["function"]),
                       ("by test file", lambda r: r["test"].split("::")[0]
                        or "(outside a test)")):
        seconds, count = Counter(), Counter()
        for r in outer:
            seconds[key(r)] += r["seconds"]
            count[key(r)] += 1
        lines.append(f"{title}:")
        lines += [f"  {s:7.1f} s  {count[k]:4d}  {k}"
                  for k, s in seconds.most_common(top)]
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m tools.compile_log",
        description=__doc__.split("\n\n")[0])
    p.add_argument("--top", type=int, default=12,
                   help="lines per table (default 12)")
    p.add_argument("--keep", metavar="DIR",
                   help="write the per-process records to DIR (default: a "
                        "temporary folder, removed)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="the command, after --")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] \
        else args.command
    if not command:
        p.error("give the command after --, e.g. -- python -m pytest tests")
    if args.top < 1:
        p.error(f"--top must be an integer >= 1, got {args.top}")
    with tempfile.TemporaryDirectory() as site:
        folder = args.keep or os.path.join(site, "log")
        os.makedirs(folder, exist_ok=True)
        if any(Path(folder).glob("*.jsonl")):
            p.error(f"--keep: {folder} already holds compile records; give "
                    "an empty folder")
        Path(site, "sitecustomize.py").write_text(SITECUSTOMIZE)
        env = dict(os.environ, BILEVEL_COMPILE_LOG=os.path.abspath(folder),
                   PYTHONPATH=os.pathsep.join(
                       [site] + [x for x in [os.environ.get("PYTHONPATH")]
                                 if x]))
        start = time.monotonic()
        code = subprocess.call(command, env=env)
        wall = time.monotonic() - start
        lines = summary(read_log(folder), args.top)
    print(f"the command: exit {code}, {wall:.0f} s of wall clock")
    print("\n".join(lines))
    return code


if __name__ == "__main__":
    sys.exit(main())
