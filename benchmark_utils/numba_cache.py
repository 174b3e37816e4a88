"""Keep numba's on-disk cache consistent with the core's sources.

numba invalidates a cached function only when *its own* source file changes,
not when a function it calls (and inlines) changes in another module: after
an update of ``problems/*.py`` the cached engine would silently run the old
kernels.  ``ensure_fresh()`` hashes the source files of ``benchmark_utils``
that hold numba code and, when the hash differs from the one recorded with
the cache, deletes the package's numba cache files (``*.nbi``, ``*.nbc``)
before anything is loaded.  It is called once, when ``benchmark_utils`` is
imported.
"""
import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
STAMP = "core_sources.sha256"


def sources_digest():
    """sha256 of every package source file that contains numba code."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text or b"intrinsic" in text:
            h.update(str(path.relative_to(PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()


def _user_cache_dir():
    """``NUMBA_CACHE_DIR`` when numba will use it, else None.

    numba writes every cache file under ``NUMBA_CACHE_DIR`` when it is set
    and usable (it falls back to ``__pycache__`` when it cannot write
    there) and then never reads ``__pycache__``.
    """
    root = os.environ.get("NUMBA_CACHE_DIR")
    if not root:
        return None
    path = Path(root)
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.is_dir() and os.access(probe, os.W_OK | os.X_OK):
        return path
    return None


def _cache_dirs():
    """Folders where numba keeps this package's cache files (only those:
    a process with its own ``NUMBA_CACHE_DIR`` leaves the in-tree cache of
    other processes alone)."""
    root = _user_cache_dir()
    if root is not None:
        if not root.is_dir():
            return []
        return [p for p in root.rglob("*")
                if p.is_dir() and "benchmark_utils" in str(p)]
    return [p for p in PACKAGE.rglob("__pycache__") if p.is_dir()]


def ensure_fresh():
    """Drop stale numba cache files if the sources changed since they were
    written; record the current sources' digest."""
    digest = sources_digest()
    root = _user_cache_dir()
    stamp_dir = root if root is not None else PACKAGE / "__pycache__"
    stamp = stamp_dir / STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    for folder in _cache_dirs():
        for pattern in ("*.nbi", "*.nbc"):
            for f in folder.glob(pattern):
                try:
                    f.unlink()
                except OSError:
                    pass
    try:
        stamp_dir.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, stamp)
    except OSError:
        pass
    return True
