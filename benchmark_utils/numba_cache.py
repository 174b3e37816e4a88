"""Keep numba's on-disk cache consistent with the sources compiled code
depends on, and find a place for it.

numba invalidates a cached function only when *its own* source file changes,
not when a function it calls (and inlines) changes in another module, nor
when a module-level constant it froze in (``core/records.py``'s counter
slots) changes: after such an edit the cached engine would silently run the
old kernels.  ``ensure_fresh()`` hashes every package module that uses numba
and every package module those import (transitively, :func:`compiled_sources`),
and, when the hash differs from the one recorded with a cache, deletes that
cache's files (``*.nbi``, ``*.nbc``) before anything is loaded.

numba keeps a function's cache in the first usable of (numba's
``_CacheLocator`` classes): ``NUMBA_CACHE_DIR`` when set; the source
folder's ``__pycache__`` when writable; the user-wide folder
(``~/.cache/numba``) otherwise.  Without ``NUMBA_CACHE_DIR`` both of the
last two are kept fresh (which one numba uses depends on permissions, which
can change).  When none is writable (a shared read-only install with a
read-only home) numba would refuse to import the package ("no locator
available"): the cache then goes to a folder of the system's temporary
directory, with a warning saying how to choose another.

It is called once, when ``benchmark_utils`` is imported.
"""
import hashlib
import os
import re
import tempfile
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STAMP = "core_sources.sha256"
CACHE_ENV = "NUMBA_CACHE_DIR"


_NUMBA_IMPORT = re.compile(rb"^[ \t]*(?:import[ \t]+numba\b|from[ \t]+numba\b)",
                           re.M)
_FROM_IMPORT = re.compile(
    rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+"
    rb"(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\n]*)", re.M)


def _names(text):
    """The imported names of an import list (``a, b as c`` -> a, b)."""
    text = text.decode().split("#")[0].strip("() \t\n\\")
    return [n.split()[0] for n in text.replace("\n", " ").split(",")
            if n.strip() and not n.strip().startswith("#")]


def _imported(path, source, package):
    """The package's source files that ``path`` imports (any import
    statement, relative or absolute).  A text scan: ``ast.parse`` is not
    safe to call from every thread that may import the package (CPython
    3.11 raises ``SystemError`` in some dask worker threads)."""
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


def compiled_sources(package=None):
    """The package's source files compiled code can depend on: those that
    import numba (this module aside) and, transitively, every package
    module they import (constants, NamedTuple records, task codes)."""
    package = PACKAGE if package is None else package
    sources = {path: path.read_bytes()
               for path in sorted(package.rglob("*.py"))
               if path.resolve() != Path(__file__).resolve()}
    seeds = [p for p, text in sources.items() if _NUMBA_IMPORT.search(text)]
    seen, todo = set(seeds), list(seeds)
    while todo:
        path = todo.pop()
        for dep in _imported(path, sources[path], package):
            if dep in sources and dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(seen)


def sources_digest(package=None):
    """sha256 of :func:`compiled_sources` (names and contents)."""
    package = PACKAGE if package is None else package
    h = hashlib.sha256()
    for path in compiled_sources(package):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


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


def _folders(package):
    return sorted({p.parent for p in package.rglob("*.py")})


def cache_locations(package=None):
    """[(stamp file, [cache folders])]: the caches numba may use for the
    package, each with the file recording the sources it was built from.
    With ``NUMBA_CACHE_DIR`` set, numba reads and writes only there (a
    process with its own folder leaves the in-tree cache alone)."""
    package = PACKAGE if package is None else package
    root = os.environ.get(CACHE_ENV)
    if root:
        root = Path(root)
        return [(root / _subpath(package) / STAMP,
                 [root / _subpath(f) for f in _folders(package)])]
    wide = _user_wide_root()
    return [(package / "__pycache__" / STAMP,
             [f / "__pycache__" for f in _folders(package)]),
            (wide / _subpath(package) / STAMP,
             [wide / _subpath(f) for f in _folders(package)])]


def ensure_location(package=None):
    """Make sure numba has a writable cache folder for the package; if
    none of its own is usable, set ``NUMBA_CACHE_DIR`` (and numba's
    config) to a folder of the temporary directory, with a warning.
    Returns that folder, or None when numba's own choice works."""
    package = PACKAGE if package is None else package
    root = os.environ.get(CACHE_ENV)
    if root and _writable_dir(Path(root) / _subpath(package)):
        return None
    if not root and (_writable_dir(package / "__pycache__")
                     or _writable_dir(_user_wide_root() / _subpath(package))):
        return None
    fallback = Path(tempfile.gettempdir()) / f"numba_cache_{os.getuid()}" \
        if hasattr(os, "getuid") else Path(tempfile.gettempdir()) / \
        "numba_cache"
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


def ensure_fresh(package=None):
    """Drop stale numba cache files wherever numba may look for the
    package's, if the sources changed since they were written; record the
    current sources' digest there.  Returns True if a cache was dropped.

    The first location of :func:`cache_locations` that is writable is the
    one numba will write to: its stamp is always recorded.  The others are
    cleaned and stamped only when they exist.
    """
    package = PACKAGE if package is None else package
    ensure_location(package)
    digest = sources_digest(package)
    dropped, active = False, True
    for stamp, folders in cache_locations(package):
        usable = _writable_dir(stamp.parent) if active else \
            stamp.parent.is_dir()
        if not usable:
            continue
        active = False
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        for folder in folders:
            for pattern in ("*.nbi", "*.nbc"):
                for f in folder.glob(pattern):
                    try:
                        f.unlink()
                        dropped = True
                    except OSError:
                        pass
        try:
            tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(digest)
            os.replace(tmp, stamp)
        except OSError:
            pass
    return dropped
