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


def _cache_dirs():
    """Folders where numba keeps this package's cache files."""
    dirs = [p for p in PACKAGE.rglob("__pycache__") if p.is_dir()]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root and Path(root).is_dir():
        dirs += [p for p in Path(root).rglob("*")
                 if p.is_dir() and "benchmark_utils" in str(p)]
    return dirs


def ensure_fresh():
    """Drop stale numba cache files if the sources changed since they were
    written; record the current sources' digest."""
    digest = sources_digest()
    root = os.environ.get("NUMBA_CACHE_DIR")
    stamp_dir = Path(root) if root else PACKAGE / "__pycache__"
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
