"""numba's cache (docs/architecture.md "numba's cache",
benchmark_utils/numba_cache.py):
an edit of any module compiled code depends on -- numba code or not --
drops the cache wherever numba keeps it (``__pycache__``, the user-wide
folder, ``NUMBA_CACHE_DIR``), other edits do not, and a package without a
writable cache location still imports, with a warning.

The end-to-end cases run a one-function package in a subprocess: the
first run compiles and caches ``K``; after an edit of ``consts.py`` (no
numba code in it) the next run must print the new value, not the cached
one.  Permissions do not stop root, so unusable folders are paths through a
file (``__pycache__`` as a file, a cache home under ``/dev/null``).
"""
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from benchmark_utils import numba_cache

NUMBA_CACHE = Path(numba_cache.__file__)

RUN = r"""
import importlib.util, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("numba_cache", sys.argv[1])
numba_cache = importlib.util.module_from_spec(spec)
spec.loader.exec_module(numba_cache)
pkg = Path(sys.argv[2]) / "pkg"
numba_cache.ensure_fresh(pkg)
sys.path.insert(0, str(pkg.parent))
from pkg.kernel import value
print(value())
"""


def make_package(root):
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("K = 1\n")
    (pkg / "plain.py").write_text("x = 1\n")
    (pkg / "kernel.py").write_text(
        "from numba import njit\n\nfrom .consts import K\n\n\n"
        "@njit(cache=True)\ndef value():\n    return K\n")
    return pkg


def run(root, env):
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(NUMBA_CACHE), str(root)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return int(proc.stdout.split()[-1]), proc.stderr


def base_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "home_cache"),
               TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return env


def cache_files(folder):
    return sorted(Path(folder).rglob("*.nbi"))


@pytest.mark.parametrize("where", ["in_tree", "user_wide", "numba_cache_dir"])
def test_an_edit_of_a_module_the_kernels_import_recompiles(tmp_path, where):
    pkg = make_package(tmp_path)
    env = base_env(tmp_path)
    if where == "user_wide":
        (pkg / "__pycache__").write_text("a file: no in-tree cache")
        cache = tmp_path / "home_cache" / "numba"
    elif where == "numba_cache_dir":
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "own")
        cache = tmp_path / "own"
    else:
        cache = pkg / "__pycache__"
    assert run(tmp_path, env)[0] == 1
    files = cache_files(cache)
    assert files  # numba cached it where we look
    assert run(tmp_path, env)[0] == 1  # loaded from the cache
    (pkg / "plain.py").write_text("x = 2\n")  # unrelated: cache kept
    assert run(tmp_path, env)[0] == 1 and cache_files(cache) == files
    if where == "numba_cache_dir":
        # a process with its own folder leaves the in-tree cache alone
        (pkg / "__pycache__").mkdir(exist_ok=True)
        other = pkg / "__pycache__" / "kernel.value-6.py311.nbi"
        other.write_text("another process's cache")
    (pkg / "consts.py").write_text("K = 2\n")  # no numba code in it
    assert run(tmp_path, env)[0] == 2
    if where == "numba_cache_dir":
        assert other.exists()


def test_no_writable_location_falls_back_with_a_warning(tmp_path):
    """A read-only install with a read-only home: numba would refuse to
    import ("no locator available"); the cache goes to the temporary
    directory and the warning says how to choose another."""
    pkg = make_package(tmp_path)
    (pkg / "__pycache__").write_text("a file: no in-tree cache")
    env = base_env(tmp_path)
    env["XDG_CACHE_HOME"] = "/dev/null/cache"
    value, err = run(tmp_path, env)
    assert value == 1
    assert "numba cannot write its cache" in err and "NUMBA_CACHE_DIR" in err
    assert cache_files(tmp_path / "tmp")  # cached in the fallback folder
    (pkg / "consts.py").write_text("K = 3\n")
    assert run(tmp_path, env)[0] == 3


def test_the_package_hashes_what_its_kernels_depend_on():
    names = {str(p.relative_to(numba_cache.PACKAGE))
             for p in numba_cache.compiled_sources()}
    # numba code, and the modules it imports without numba code in them
    assert {"engine.py", "core/single_loop.py", "problems/softmax_ce.py",
            "core/records.py", "problems/spec.py"} <= names
    # neither configuration, metrics nor tools: editing them keeps the cache
    assert not names & {"tuned.py", "presets.py", "metrics.py",
                        "plot_views.py", "stopping.py", "numba_cache.py"}


def test_ensure_location_is_silent_when_numba_has_a_place(tmp_path):
    pkg = make_package(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numba_cache.ensure_location(pkg) is None
