"""numba's cache (docs/architecture.md "numba's cache",
benchmark_utils/numba_cache.py): each cached specialisation is keyed by the
sources it depends on, wherever numba keeps it (``__pycache__``, the
user-wide folder, ``NUMBA_CACHE_DIR``).  An edit of a module compiled code
imports -- numba code or not -- recompiles what depends on it; an edit of
one variant behind a switch (a task's kernels, a baseline family)
recompiles that variant's specialisations only; other edits recompile
nothing; and a package without a writable cache location still imports,
with a warning.

The end-to-end cases run a small package in a subprocess: ``value(marker)``
returns ``K`` (``consts.py``, no numba code in it) plus a part selected at
compile time by the marker's type (``a.py`` for A, ``b.py`` for B, through
``switch.py``, as ``tasks/dispatch.py`` selects a task's kernels).
Permissions do not stop root, so unusable folders are paths through a file
(``__pycache__`` as a file, a cache home under ``/dev/null``).
"""
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from benchmark_utils import numba_cache

NUMBA_CACHE = Path(numba_cache.__file__)

RUN = r"""
import importlib.util, json, sys
from pathlib import Path
spec = importlib.util.spec_from_file_location("numba_cache", sys.argv[1])
numba_cache = importlib.util.module_from_spec(spec)
sys.modules["numba_cache"] = numba_cache
spec.loader.exec_module(numba_cache)
pkg = Path(sys.argv[2]) / "pkg"
numba_cache.prepare(pkg)
sys.path.insert(0, str(pkg.parent))
from pkg.kernel import value
from pkg.markers import A, B
out = {}
names = sys.argv[3] if len(sys.argv) > 3 else "AB"
for name, marker in (("A", A.CODE), ("B", B.CODE)):
    if name not in names:
        continue
    misses = sum(value.stats.cache_misses.values())
    v = value(marker)
    out[name] = [v, sum(value.stats.cache_misses.values()) == misses]
print(json.dumps(out))
"""

SWITCH = """from numba.extending import overload

from numba_cache import register_switch

from . import a, b


def choose(marker):
    raise TypeError


@overload(choose, inline="always")
def _choose(marker):
    part = {"A": a.part, "B": b.part}[marker.instance_class.__name__]

    def impl(marker):
        return part()
    return impl


register_switch(__file__, {"A": a.__file__, "B": b.__file__})
"""


def make_package(root):
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("K = 1\n")
    (pkg / "plain.py").write_text("x = 1\n")
    (pkg / "markers.py").write_text(
        "from enum import IntEnum\n\n\nclass A(IntEnum):\n    CODE = 0\n"
        "\n\nclass B(IntEnum):\n    CODE = 1\n")
    for name, part in (("a", 10), ("b", 20)):
        write_part(pkg, name, part)
    (pkg / "switch.py").write_text(SWITCH)
    (pkg / "kernel.py").write_text(
        "from numba_cache import njit\n\nfrom .consts import K\n"
        "from .switch import choose\n\n\n"
        "@njit(cache=True)\ndef value(marker):\n"
        "    return K + choose(marker)\n")
    return pkg


def write_part(pkg, name, part):
    (pkg / f"{name}.py").write_text(
        f"from numba_cache import njit\n\n\n"
        f"@njit(cache=True)\ndef part():\n    return {part}\n")


def run(root, env):
    """{marker: [value, loaded from the cache]} and the stderr."""
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(NUMBA_CACHE), str(root)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr


def base_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "home_cache"),
               TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return env


def cache_files(folder):
    return sorted(Path(folder).rglob("*.nbi"))


def test_an_index_naming_a_moved_marker_class_reads_as_empty(tmp_path):
    """A cache written before the marker classes moved to another module
    (its index pickles their types by module name) does not fail the next
    run: the stale index reads as empty, the function compiles again and
    the index is replaced."""
    pkg = make_package(tmp_path)
    env = dict(base_env(tmp_path), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    assert run(tmp_path, env)[0] == {"A": [11, False], "B": [21, False]}
    (pkg / "markers.py").rename(pkg / "marks.py")
    moved = RUN.replace("from pkg.markers import", "from pkg.marks import")
    for loaded in (False, True):
        proc = subprocess.run(
            [sys.executable, "-c", moved, str(NUMBA_CACHE), str(tmp_path)],
            env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert json.loads(proc.stdout.splitlines()[-1]) == {
            "A": [11, loaded], "B": [21, loaded]}


@pytest.mark.parametrize("where", ["in_tree", "user_wide", "numba_cache_dir"])
def test_an_edit_recompiles_what_depends_on_it_only(tmp_path, where):
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
    assert run(tmp_path, env)[0] == {"A": [11, False], "B": [21, False]}
    assert cache_files(cache)  # numba cached it where we look
    assert run(tmp_path, env)[0] == {"A": [11, True], "B": [21, True]}
    (pkg / "plain.py").write_text("x = 2\n")  # imported by nothing
    assert run(tmp_path, env)[0] == {"A": [11, True], "B": [21, True]}
    write_part(pkg, "b", 30)  # one variant: the other stays cached
    assert run(tmp_path, env)[0] == {"A": [11, True], "B": [31, False]}
    (pkg / "consts.py").write_text("K = 2\n")  # no numba code in it
    assert run(tmp_path, env)[0] == {"A": [12, False], "B": [32, False]}
    assert run(tmp_path, env)[0] == {"A": [12, True], "B": [32, True]}
    # a replaced specialisation's data file is removed with its key
    data = sorted(p.name for p in Path(cache).rglob("kernel.value*.nbc"))
    assert len(data) == 2, data


def test_processes_compiling_at_once_keep_their_entries_apart(tmp_path):
    """Two processes compile and save two signatures of one function at the
    same time (as ``pytest -n 2`` or a dask cluster's workers do); a third
    finds both, each with its own code."""
    make_package(tmp_path)
    env = dict(base_env(tmp_path), NUMBA_CACHE_DIR=str(tmp_path / "own"))
    procs = [subprocess.Popen(
        [sys.executable, "-c", RUN, str(NUMBA_CACHE), str(tmp_path), name],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in "AB"]
    outs = [json.loads(p.communicate(timeout=300)[0].splitlines()[-1])
            for p in procs]
    assert outs == [{"A": [11, False]}, {"B": [21, False]}]
    assert run(tmp_path, env)[0] == {"A": [11, True], "B": [21, True]}


def test_saving_holds_an_exclusive_lock_other_processes_see(tmp_path):
    pytest.importorskip("fcntl")
    index = tmp_path / "f.nbi"
    probe = ("import fcntl, sys\n"
             "h = open(sys.argv[1], 'a')\n"
             "try:\n    fcntl.flock(h, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
             "    print('free')\n"
             "except BlockingIOError:\n    print('held')\n")

    def other_process_sees():
        return subprocess.run(
            [sys.executable, "-c", probe, f"{index}.lock"],
            capture_output=True, text=True, timeout=60).stdout.strip()
    with numba_cache._locked(index):
        assert other_process_sees() == "held"
    assert other_process_sees() == "free"


def test_no_writable_location_falls_back_with_a_warning(tmp_path):
    """A read-only install with a read-only home: numba would refuse to
    import ("no locator available"); the cache goes to the temporary
    directory and the warning says how to choose another."""
    pkg = make_package(tmp_path)
    (pkg / "__pycache__").write_text("a file: no in-tree cache")
    env = base_env(tmp_path)
    env["XDG_CACHE_HOME"] = "/dev/null/cache"
    values, err = run(tmp_path, env)
    assert values == {"A": [11, False], "B": [21, False]}
    assert "numba cannot write its cache" in err and "NUMBA_CACHE_DIR" in err
    assert cache_files(tmp_path / "tmp")  # cached in the fallback folder
    assert run(tmp_path, env)[0] == {"A": [11, True], "B": [21, True]}
    (pkg / "consts.py").write_text("K = 3\n")
    assert run(tmp_path, env)[0] == {"A": [13, False], "B": [23, False]}


def test_the_package_hashes_what_its_kernels_depend_on():
    names = {str(p.relative_to(numba_cache.PACKAGE))
             for p in numba_cache.compiled_sources()}
    # numba code, and the modules it imports without numba code in them
    assert {"core/single_loop.py", "tasks/softmax_ce.py",
            "core/records.py", "tasks/spec.py"} <= names
    # neither configuration, data checks, metrics nor tools: editing them
    # keeps the cache
    assert not names & {"tuned.py", "algorithms/table.py", "validation.py",
                        "metrics.py", "plot_views.py", "stopping.py",
                        "engine.py"}


def _deps(module, *markers):
    import benchmark_utils.engine  # noqa: F401 - registers the switches
    root = numba_cache.PACKAGE
    return {str(p.relative_to(root)) for p in
            numba_cache.dependencies(root / module, markers)}


def test_a_task_specialisation_depends_on_its_task_only():
    quadratic = _deps("core/single_loop.py", "Quadratic")
    assert {"tasks/quadratic.py", "tasks/dispatch.py",
            "core/records.py", "core/passes.py"} <= quadratic
    assert not quadratic & {"tasks/logreg.py", "tasks/multilogreg.py",
                            "tasks/softmax_ce.py", "families/restart.py",
                            "tasks/batch_products/__init__.py"}
    cleaning = _deps("core/single_loop.py", "Datacleaning")
    # datacleaning builds on multilogreg's kernels: kept through its import
    assert {"tasks/datacleaning.py", "tasks/multilogreg.py",
            "tasks/softmax_ce.py", "tasks/batch_products/__init__.py",
            "tasks/batch_products/long_rows.py",
            "tasks/batch_products/lanes.py"} <= cleaning
    assert "tasks/logreg.py" not in cleaning
    # without a marker (a task-agnostic function), every task
    assert "tasks/logreg.py" in _deps("core/single_loop.py")


def test_a_baseline_family_depends_on_its_family_only():
    vrbo = _deps("families/loop.py", "Restart", "Logreg")
    assert {"families/restart.py", "core/solves.py",
            "tasks/logreg.py"} <= vrbo
    assert not vrbo & {"families/momentum.py", "families/penalty.py",
                       "families/inner_loop.py", "tasks/quadratic.py",
                       "families/hessian_free.py"}
    # the single loop's own blocks: an estimator edit keeps the families
    assert not vrbo & {"core/estimators.py", "core/steps.py",
                       "core/single_loop.py", "core/passes.py"}
    bome = _deps("families/loop.py", "ValueFunction", "Quadratic")
    assert {"families/hessian_free.py", "core/solves.py"} <= bome
    assert not bome & {"families/restart.py", "families/penalty.py"}
    # the single loop does not depend on any baseline family
    assert not _deps("core/single_loop.py") & {
        "families/restart.py", "families/momentum.py", "families/loop.py",
        "families/hessian_free.py"}


def test_imports_inside_functions_are_not_dependencies():
    source = (b"from .a import x\n\n\ndef f():\n    from .b import y\n"
              b"    return y\n\n\nclass C:\n    from .c import z\n")
    kept = numba_cache._module_level(source)
    assert b".a import" in kept and b".c import" in kept
    assert b".b import" not in kept


def test_every_cached_function_of_the_package_is_keyed_by_its_sources():
    import importlib
    from numba.core.registry import CPUDispatcher
    plain = []
    for path in numba_cache.PACKAGE.rglob("*.py"):
        rel = path.relative_to(numba_cache.PACKAGE.parent).with_suffix("")
        name = ".".join(p for p in rel.parts if p != "__init__")
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (isinstance(obj, CPUDispatcher) and obj._can_compile
                    and obj.targetoptions.get("cache")
                    and obj.__module__ == name
                    and type(obj._cache).__name__ != "DependencyCache"):
                plain.append(f"{name}.{obj.__name__}")
    assert not plain, f"use numba_cache.njit for {plain}"


def test_ensure_location_is_silent_when_numba_has_a_place(tmp_path):
    pkg = make_package(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numba_cache.ensure_location(pkg) is None


@pytest.fixture
def no_numba_location(tmp_path, monkeypatch):
    """A package numba cannot cache in (its ``__pycache__`` a file, the
    user-wide folder under a file, no NUMBA_CACHE_DIR), the temporary
    directory ``tmp_path / "tmp"``; numba's config restored after."""
    from numba.core import config
    pkg = make_package(tmp_path)
    (pkg / "__pycache__").write_text("a file: no in-tree cache")
    (tmp_path / "tmp").mkdir()
    # ensure_location sets NUMBA_CACHE_DIR itself: set first, so that
    # monkeypatch records its value (or absence) and restores it whatever
    # the test leaves (delenv of an absent variable records nothing, and a
    # fallback folder left in os.environ made every later subprocess of the
    # worker compile from an empty cache)
    monkeypatch.setenv(numba_cache.CACHE_ENV, "set by no_numba_location")
    monkeypatch.delenv(numba_cache.CACHE_ENV)
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)
    monkeypatch.setattr(numba_cache.tempfile, "tempdir",
                        str(tmp_path / "tmp"))
    monkeypatch.setattr(numba_cache, "_user_wide_root",
                        lambda: pkg / "__pycache__" / "numba")
    return pkg


def _ensure(pkg):
    with pytest.warns(RuntimeWarning, match="numba cannot write its cache"):
        return numba_cache.ensure_location(pkg)


def test_the_fallback_folder_is_private(no_numba_location, tmp_path,
                                        monkeypatch):
    folder = _ensure(no_numba_location)
    assert folder == tmp_path / "tmp" / f"numba_cache_{os.getuid()}"
    assert folder.is_dir() and (folder.stat().st_mode & 0o777) == 0o700
    assert os.environ[numba_cache.CACHE_ENV] == str(folder)
    # a private folder of the user's, made earlier, is used again
    monkeypatch.delenv(numba_cache.CACHE_ENV)
    folder.chmod(0o755)
    assert _ensure(no_numba_location) == folder


def _planted(folder, kind, other):
    """``folder`` made beforehand as another user could make it."""
    if kind == "world-writable":
        folder.mkdir()
        folder.chmod(0o777)
    elif kind == "group-writable":
        folder.mkdir()
        folder.chmod(0o770)
    elif kind == "symlink":
        other.mkdir()
        folder.symlink_to(other)
    elif kind == "file":
        folder.write_text("not a folder")
    elif kind == "other owner":
        # made by us, private, while the run is another user's (its uid
        # and folder name are patched by the test)
        folder.mkdir(mode=0o700)


@pytest.mark.parametrize("kind, why", [
    ("world-writable", "is writable by other users (mode 0o777)"),
    ("group-writable", "is writable by other users (mode 0o770)"),
    ("symlink", "is a symbolic link"),
    ("file", "is not a folder"),
    ("other owner", "belongs to uid"),
])
def test_a_fallback_folder_made_by_someone_else_is_refused(
        no_numba_location, tmp_path, kind, why, monkeypatch):
    if kind == "other owner":
        victim = os.getuid() + 4242
        monkeypatch.setattr(os, "getuid", lambda: victim)
    folder = tmp_path / "tmp" / f"numba_cache_{os.getuid()}"
    _planted(folder, kind, tmp_path / "elsewhere")
    with pytest.raises(numba_cache.UnsafeCacheFolder) as exc:
        numba_cache.ensure_location(no_numba_location)
    message = str(exc.value)
    assert f"the fallback folder {folder} {why}" in message
    assert "set NUMBA_CACHE_DIR to a folder of your own" in message
    assert numba_cache.CACHE_ENV not in os.environ
