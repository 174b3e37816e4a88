"""numba's on-disk cache: keyed by what compiled code depends on, and kept
where numba can write.

numba finds a cached function by its signature and its own bytecode, and
drops a file's cache when that file changes; it does not notice an edit of
a function it calls (and inlines) in another module, nor of a module-level
constant it froze in (``core/records.py``'s counter slots): after such an
edit the cached engine would silently run the old kernels.  Here each
cached specialisation's key also carries the digest of the sources it
depends on (:func:`dependency_digest`): the function's module and every
package module it imports, transitively.  An edit of any of them changes
the key, so that specialisation compiles again; every other one (another
task's, another baseline family's) is still found.

Switches narrow the dependencies.  A module that selects one of several
modules by a marker type at compile time (``tasks/dispatch.py`` the
task's kernels, ``families/loop.py`` the baseline family's iteration)
registers them (:func:`register_switch`); a specialisation whose signature
holds a marker depends, through that switch, on its marker's module only.
So an edit of ``tasks/softmax_ce.py`` recompiles the multiclass tasks,
not the single loop on Simulated, and an edit of ``families/restart.py``
recompiles VRBO, not the single loop.  The import scan reads module-level
imports (those inside a function body are Python-side: compiled code reads
module globals), and the sources are read once, when the package is
imported (:func:`prepare`), so that a file edited during a run cannot give
the old compiled code a new key.  A key that a new one replaces (same
function and signature, other sources) is removed with its data file.
Processes that compile at once (``pytest -n 2``, parallel benchopt runs)
save under a lock per function, so that their entries never collide.

Use the package's ``njit`` (below) for every cached function: it is
numba's, with this cache.

numba keeps a function's cache in the first usable of (numba's
``_CacheLocator`` classes): ``NUMBA_CACHE_DIR`` when set; the source
folder's ``__pycache__`` when writable; the user-wide folder
(``~/.cache/numba``) otherwise.  When none is writable (a shared read-only
install with a read-only home) numba would refuse to import the package
("no locator available"): the cache then goes to a folder of the system's
temporary directory, with a warning saying how to choose another
(:func:`ensure_location`).  That folder's name is predictable
(``numba_cache_<uid>``), so it is made private (mode 0o700) and, when it
already exists, used only if it is a folder, not a symbolic link, owned by
the current user and writable by no one else: another user could
otherwise make it first, or plant pickled code numba would load
(:func:`private_folder`; refused with an error that advises
``NUMBA_CACHE_DIR``).
"""
import contextlib
import hashlib
import os
import pickle
import re
import stat
import tempfile
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CACHE_ENV = "NUMBA_CACHE_DIR"


# (numba followed by a space, a dot, a comma or the line's end: "from
# numba's cache" in a docstring is not an import)
_NUMBA_IMPORT = re.compile(
    rb"^[ \t]*(?:import[ \t]+numba(?=[ \t.,]|$)|from[ \t]+numba(?=[ \t.]|$)"
    rb"|from[ \t]+[.\w]*numba_cache[ \t]+import)", re.M)
_FROM_IMPORT = re.compile(
    rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+"
    rb"(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\n]*)", re.M)
_DEF = re.compile(rb"(?:async[ \t]+)?def\b")


def _names(text):
    """The imported names of an import list (``a, b as c`` -> a, b)."""
    text = text.decode().split("#")[0].strip("() \t\n\\")
    return [n.split()[0] for n in text.replace("\n", " ").split(",")
            if n.strip() and not n.strip().startswith("#")]


def _module_level(source):
    """``source`` with the lines of function bodies blanked out (an import
    there runs in Python, never in compiled code).  Indentation only: a
    line that leaves a body early (a docstring at column 0) keeps the rest
    of the body, which can only add dependencies."""
    out, bodies = [], []  # bodies: indents of the enclosing defs
    for line in source.split(b"\n"):
        text = line.lstrip(b" \t")
        if text and not text.startswith(b"#"):
            indent = len(line) - len(text)
            while bodies and indent <= bodies[-1]:
                bodies.pop()
            if bodies:
                out.append(b"")
                continue
            if _DEF.match(text):
                bodies.append(indent)
        elif bodies:
            out.append(b"")
            continue
        out.append(line)
    return b"\n".join(out)


def _imported(path, source, package):
    """The package's source files that ``path`` imports at module level
    (any import statement, relative or absolute).  A text scan:
    ``ast.parse`` is not safe to call from every thread that may import
    the package (CPython 3.11 raises ``SystemError`` in some dask worker
    threads)."""
    source = _module_level(source)
    rel = path.relative_to(package).with_suffix("")
    here = list(rel.parts[:-1])  # the module's package
    out = set()
    for dots, module, names in _FROM_IMPORT.findall(source):
        module = module.decode().split(".") if module else []
        if dots:
            mod = here[:len(here) - (len(dots) - 1)] + module
        elif module and module[0] == package.name:
            mod = module[1:]
        else:
            continue
        out.update(_files(package, [mod] + [mod + [n] for n in
                                            _names(names)]))
    for names in _IMPORT.findall(source):
        out.update(_files(package, [
            n.split(".")[1:] for n in _names(names)
            if n.split(".")[0] == package.name]))
    return out


def _files(package, modules):
    for parts in modules:
        for f in (package.joinpath(*parts).with_suffix(".py") if parts
                  else None, package.joinpath(*parts, "__init__.py")):
            if f is not None and f.is_file():
                yield f


class _Sources:
    """A package's sources as read when it was imported, and the import
    graph between them."""

    def __init__(self, package):
        self.package = package
        self.text = {path: path.read_bytes()
                     for path in sorted(package.rglob("*.py"))}
        self.graph = {path: _imported(path, text, package)
                      for path, text in self.text.items()}
        self.digests = {}


_PACKAGES = {}   # package folder -> _Sources
_SWITCHES = {}   # switch module -> {marker class name: selected module}
_MARKER = re.compile(r"IntEnum<\w+>\((\w+)\)")


def prepare(package=None):
    """Read the package's sources (their digests key the cache) and make
    sure numba has a place to write (:func:`ensure_location`).  Called
    when the package is imported."""
    package = PACKAGE if package is None else Path(package).resolve()
    ensure_location(package)
    _PACKAGES[package] = _Sources(package)
    return _PACKAGES[package]


def _sources_of(path):
    for package, sources in _PACKAGES.items():
        if package in path.parents:
            return sources
    return None


def register_switch(switch, variants):
    """Declare that module ``switch`` selects one module of ``variants``
    (``{marker class name: module file}``) by the marker type in the
    signature, at compile time."""
    variants = {name: Path(f).resolve() for name, f in variants.items()}
    for table in _SWITCHES.values():
        clash = set(table) & set(variants)
        if clash and table is not _SWITCHES.get(Path(switch).resolve()):
            raise ValueError(f"marker names {sorted(clash)} already "
                             f"belong to another switch")
    _SWITCHES[Path(switch).resolve()] = variants
    for sources in _PACKAGES.values():
        sources.digests.clear()


def dependencies(path, markers=(), sources=None):
    """The package modules compiled code of module ``path`` depends on,
    for a signature holding the marker class names ``markers``: the
    module and its imports, transitively, where a switch leads to its
    markers' modules only (to every one of its modules when the signature
    holds none of its markers)."""
    path = Path(path).resolve()
    sources = _sources_of(path) if sources is None else sources
    if sources is None:
        return [path]
    seen, todo = {path}, [path]
    while todo:
        node = todo.pop()
        switch = _SWITCHES.get(node, {})
        chosen = {switch[m] for m in markers if m in switch}
        for dep in sources.graph.get(node, ()):
            if chosen and dep in switch.values() and dep not in chosen:
                continue
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(seen)


def dependency_digest(path, markers=()):
    """sha256 of :func:`dependencies` (names and contents, as read at
    import)."""
    path = Path(path).resolve()
    sources = _sources_of(path)
    key = (path, frozenset(markers))
    if sources is not None and key in sources.digests:
        return sources.digests[key]
    h = hashlib.sha256()
    for dep in dependencies(path, markers, sources):
        if sources is not None and dep in sources.text:
            h.update(str(dep.relative_to(sources.package)).encode())
            h.update(sources.text[dep])
        else:
            h.update(str(dep).encode())
            h.update(dep.read_bytes())
    digest = h.hexdigest()
    if sources is not None:
        sources.digests[key] = digest
    return digest


def markers_of(signature):
    """The marker class names in a signature (``IntEnum<int64>(Name)``)."""
    return frozenset(_MARKER.findall(str(signature)))


def compiled_sources(package=None):
    """The package's source files compiled code can depend on: those that
    import numba or this module's ``njit`` and, transitively, every package
    module they import (constants, NamedTuple records, task codes)."""
    package = PACKAGE if package is None else Path(package).resolve()
    sources = _PACKAGES.get(package) or _Sources(package)
    seeds = [p for p, text in sources.text.items()
             if _NUMBA_IMPORT.search(text)
             and p.resolve() != Path(__file__).resolve()]
    out = set()
    for seed in seeds:
        out.update(dependencies(seed, (), sources))
    out.discard(Path(__file__).resolve())
    return sorted(out)


@contextlib.contextmanager
def _locked(path):
    """An exclusive lock on ``path + ".lock"`` while the block runs.

    numba picks a new data file's name from the index it has just read:
    two processes saving two signatures of one function at once (``pytest
    -n 2``, a dask cluster's workers) could pick the same name, and one
    index would then point at the other's code.  Without ``fcntl``
    (Windows) the block runs unlocked, as numba's own cache does."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(f"{path}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _cache_classes():
    """numba's function cache, keyed also by the dependency digest, and
    its index file, which drops the keys a new key replaces."""
    from numba.core.caching import FunctionCache, IndexDataCacheFile

    class PrunedIndex(IndexDataCacheFile):
        def _load_index(self):
            # An index written before a marker class moved names a module
            # or class that no longer exists: its entries cannot match a
            # signature of this build, so it reads as empty (and the next
            # save replaces it) instead of failing every run.
            try:
                return super()._load_index()
            except (ImportError, AttributeError, pickle.UnpicklingError,
                    EOFError):
                return {}

        def save(self, key, data):
            with _locked(self._index_path):
                overloads = self._load_index()
                stale = [k for k in overloads
                         if k != key and k[:3] == key[:3]]
                if stale:
                    for k in stale:
                        try:
                            os.unlink(self._data_path(overloads.pop(k)))
                        except OSError:
                            pass
                    self._save_index(overloads)
                super().save(key, data)

    class DependencyCache(FunctionCache):
        def __init__(self, py_func):
            super().__init__(py_func)
            self._cache_file.__class__ = PrunedIndex
            self._source = Path(py_func.__code__.co_filename)

        def _index_key(self, sig, codegen):
            return super()._index_key(sig, codegen) + (
                dependency_digest(self._source, markers_of(sig)),)

    return DependencyCache


_CACHE_CLASS = []


def njit(*args, **options):
    """``numba.njit``; with ``cache=True``, the function's cache is keyed
    by the sources it depends on (module docstring)."""
    import numba
    if args and callable(args[0]):
        return njit(**options)(args[0])

    def decorate(func):
        dispatcher = numba.njit(*args, **options)(func)
        if options.get("cache"):
            if not _CACHE_CLASS:
                _CACHE_CLASS.append(_cache_classes())
            dispatcher._cache = _CACHE_CLASS[0](dispatcher.py_func)
        return dispatcher
    return decorate


def _writable_dir(path):
    """True if ``path`` is (or can be made) a folder we can write in, as
    numba's locators test it."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _subpath(folder):
    """numba's name of a source folder's cache inside a cache root: the
    folder's name and the sha1 of its path
    (``_CacheLocator.get_suitable_cache_subpath``)."""
    try:
        from numba.core.caching import _CacheLocator
    except ImportError:  # pragma: no cover - numba's scheme, written out
        folder = os.path.abspath(folder)
        return "_".join([os.path.basename(folder),
                         hashlib.sha1(folder.encode()).hexdigest()])
    return _CacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))


def _user_wide_root():
    from numba.misc.appdirs import AppDirs
    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)


class UnsafeCacheFolder(RuntimeError):
    """The temporary fallback folder of numba's cache cannot be trusted."""


def fallback_folder():
    """The cache folder of the temporary directory:
    ``numba_cache_<uid>`` (``numba_cache`` without uids)."""
    uid = f"_{os.getuid()}" if hasattr(os, "getuid") else ""
    return Path(tempfile.gettempdir()) / f"numba_cache{uid}"


def _unsafe(info):
    """Why a folder with ``os.lstat`` result ``info`` cannot hold this
    user's cache (None when it can)."""
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return (f"belongs to uid {info.st_uid}, not to the current user "
                f"(uid {os.getuid()})")
    if os.name == "posix" and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"is writable by other users (mode "
                f"{stat.S_IMODE(info.st_mode):#o})")
    return None


def private_folder(path):
    """``path``, made with mode 0o700 if new; an existing one must be a
    folder (not a symbolic link) owned by the current user and not
    writable by group or others.  ``UnsafeCacheFolder`` otherwise, naming
    the folder and advising ``NUMBA_CACHE_DIR``."""
    path = Path(path)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as err:
        raise UnsafeCacheFolder(
            f"numba's cache: cannot create {path} ({err.strerror}); set "
            f"{CACHE_ENV} to a folder of your own") from None
    why = _unsafe(os.lstat(path))
    if why is not None:
        raise UnsafeCacheFolder(
            f"numba's cache: the fallback folder {path} {why}, so compiled "
            f"code cached there could be replaced by another user; set "
            f"{CACHE_ENV} to a folder of your own (or remove {path})")
    return path


def ensure_location(package=None):
    """Make sure numba has a writable cache folder for the package; if
    none of its own is usable, set ``NUMBA_CACHE_DIR`` (and numba's
    config) to a private folder of the temporary directory
    (:func:`private_folder`), with a warning.  Returns that folder, or
    None when numba's own choice works."""
    package = PACKAGE if package is None else package
    root = os.environ.get(CACHE_ENV)
    if root and _writable_dir(Path(root) / _subpath(package)):
        return None
    if not root and (_writable_dir(package / "__pycache__")
                     or _writable_dir(_user_wide_root() / _subpath(package))):
        return None
    fallback = private_folder(fallback_folder())
    tried = (f"{CACHE_ENV}={root}" if root else
             f"{package / '__pycache__'} and {_user_wide_root()}")
    warnings.warn(
        f"numba cannot write its cache where it looks for it ({tried} are "
        f"not writable): compiled code is cached in {fallback} instead. Set "
        f"{CACHE_ENV} to a writable folder to keep it elsewhere (docs/architecture.md, "
        "'numba's cache').", RuntimeWarning, stacklevel=3)
    os.environ[CACHE_ENV] = str(fallback)
    try:
        from numba.core import config
        config.CACHE_DIR = str(fallback)
    except ImportError:
        pass
    return fallback
