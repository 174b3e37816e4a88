"""File plumbing shared by the loaders.

- reading plain, ``.gz`` or ``.bz2`` files, with errors that name the file;
- finding a data set's files in a folder;
- atomic writes (a temporary file in the target folder, ``os.replace``-d into
  place when complete, removed on failure, SIGTERM included), so no partial
  file is left; the temporary files of a writer killed outright (SIGKILL)
  are removed by the next load (:func:`clean_stale_parts`);
- the ``.npz`` cache of parsed arrays, keyed by what it was built from (a
  source fingerprint, see :func:`source_fingerprint`), and
  :func:`load_arrays`, which resolves a data set from, in order, the cache,
  local files, a download.
"""
import bz2
import gzip
import inspect
import json
import os
import re
import signal
import socket
import tempfile
import threading
import time
import warnings
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .errors import DataFormatError, DataNotFoundError, DataPermissionError

COMPRESSED_SUFFIXES = ("", ".gz", ".bz2")

# Bumped when the layout of the cached arrays changes: older caches are
# rebuilt instead of being misread.
CACHE_VERSION = 1


def _open(path, mode):
    """Open ``path`` for reading in ``mode`` ("rb" or "rt"), decompressing
    ``.gz``/``.bz2``."""
    path = Path(path)
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    return opener(path, mode)


def open_binary(path):
    """Open ``path`` for binary reading, decompressing ``.gz``/``.bz2``."""
    return _open(path, "rb")


def open_text(path):
    """Open ``path`` for text reading, decompressing ``.gz``/``.bz2``."""
    return _open(path, "rt")


# What a damaged compressed stream raises: gzip.BadGzipFile and bz2's
# "Invalid data stream" are OSErrors, a cut stream is an EOFError.  A
# PermissionError is an OSError too: readers catch it first
# (:func:`permission_denied`), the file is not corrupt.
READ_ERRORS = (OSError, EOFError, zlib.error)


def permission_denied(path, error):
    """The :class:`DataPermissionError` of ``path``, from the
    ``PermissionError`` ``error`` raised opening or reading it."""
    why = getattr(error, "strerror", None) or str(error)
    return DataPermissionError(
        f"{path}: permission denied ({why}): this process may not read it. "
        f"Fix the permissions (e.g. `chmod a+r {path}`, and `chmod a+x` on "
        "its folders) or ask the owner of the file; the file itself was "
        "not read, it is not reported corrupt.")


def read_bytes(path):
    """The whole (decompressed) content of ``path``."""
    try:
        with open_binary(path) as f:
            return f.read()
    except PermissionError as e:
        raise permission_denied(path, e) from None
    except READ_ERRORS as e:
        raise DataFormatError(
            f"{path}: cannot read the file ({type(e).__name__}: {e}); it is "
            "corrupt or truncated, replace it") from e


def _is_file(path):
    try:
        return path.is_file()
    except PermissionError as e:
        raise permission_denied(path, e) from None


def find_files(folder, names, suffixes=COMPRESSED_SUFFIXES):
    """Look for a data set's files in ``folder``.

    names: ``{role: base_name or tuple of accepted base names}``; each base
    name is tried with every suffix of ``suffixes``.

    Returns ``(found, missing)``: ``found`` maps each role present to its
    path, ``missing`` lists the (first) base name of each absent role.
    """
    found, missing = {}, []
    folder = Path(folder) if folder is not None else None
    for role, accepted in names.items():
        if isinstance(accepted, str):
            accepted = (accepted,)
        path = None
        if folder is not None and folder.is_dir():
            path = next((folder / (base + suffix)
                         for base in accepted for suffix in suffixes
                         if _is_file(folder / (base + suffix))), None)
        if path is None:
            missing.append(accepted[0])
        else:
            found[role] = path
    return found, missing


def find_local_copy(folders, names, dataset_name, key):
    """The first folder of ``folders`` holding any of ``names``' files.

    Returns ``{role: path}`` when a folder holds all of them, ``None`` when
    none holds any. A folder holding only some raises
    :class:`DataNotFoundError` naming the missing files and ``key``.
    """
    for folder in folders:
        found, missing = find_files(folder, names)
        if found and missing:
            raise DataNotFoundError(
                f"{dataset_name}: the folder {folder} holds "
                f"{', '.join(p.name for p in found.values())} but not "
                f"{', '.join(missing)} (plain, .gz or .bz2). Add the missing "
                f"file(s), or point the `data_paths` key '{key}' of "
                "config.yml at a complete folder.")
        if found:
            return found
    return None


# A temporary file is ``.<name>.<host>.<pid>.<random>.part``: the writer's
# host and process id tell a live writer's file from a dead one's.
PART_SUFFIX = ".part"
_HOST = re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"
# A temporary file untouched for this long is stale whatever its name says
# (a writer on another host, a reused pid, a name of an older version).
STALE_PART_AGE = 30 * 60


@contextmanager
def atomic_file(path):
    """Yield a temporary path next to ``path``; on success it replaces
    ``path`` (``os.replace``), on any failure it is deleted.

    SIGTERM (e.g. ``kill``, a job scheduler's time limit) is handled like
    Ctrl-C while the file is written: it raises ``SystemExit(143)`` so the
    temporary file is deleted (see :func:`_sigterm_raises`).  A writer killed
    by SIGKILL leaves it behind, named after its process, for
    :func:`clean_stale_parts` to remove.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _sigterm_raises():
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{_HOST}.{os.getpid()}.",
            suffix=PART_SUFFIX, dir=path.parent)
        os.close(fd)
        try:
            # mkstemp creates the file private (0600): give it the
            # permissions of an ordinary new file, as a shared data folder
            # expects.
            os.chmod(tmp, 0o666 & ~_umask())
            yield Path(tmp)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise


@contextmanager
def _sigterm_raises():
    """While the block runs, SIGTERM raises ``SystemExit(128 + SIGTERM)``
    instead of killing the process at once, so cleanup code runs (the
    process still exits, with status 143).  Only in the main thread (the
    only one where Python runs signal handlers) and only when SIGTERM has
    its default handler (a handler set by someone else is left alone); the
    default is restored afterwards."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def terminate(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _pid_alive(pid):
    """Whether process ``pid`` of this host exists (True when unsure)."""
    if pid == os.getpid():
        return True
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:     # PermissionError: it exists, as another user's
        return True
    return True


def clean_stale_parts(path, max_age=STALE_PART_AGE):
    """Remove the stale temporary files of ``path`` left by killed writers:
    ``.<name>.*.part`` files in its folder whose writer (a process of this
    host, named in the file name) is dead, or untouched for ``max_age``
    seconds.  A live writer's file is kept.  Returns the removed paths."""
    path = Path(path)
    prefix = f".{path.name}."
    removed = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(PART_SUFFIX)):
            continue
        try:
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        stale = age > max_age
        fields = name[len(prefix):-len(PART_SUFFIX)].split(".")
        if (not stale and len(fields) == 3 and fields[0] == _HOST
                and fields[1].isdigit()):
            stale = not _pid_alive(int(fields[1]))
        if stale:
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                pass
    return removed


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def source_fingerprint(local_files=None, download=None, params=None):
    """What a cache is built from, as JSON text: the ``CACHE_VERSION``, the
    loader's ``params`` that change the parsed arrays, and either the local
    files (``{role: path}``: resolved absolute path, size and
    ``st_mtime_ns`` of each) or ``download`` (e.g. ``"download:ijcnn1"``).

    A copy with preserved timestamps (``cp -p``, ``rsync -a``, ``tar x``)
    still changes the path, an edit the size or the mtime (older or newer).
    """
    fingerprint = {"cache_version": CACHE_VERSION, "params": params or {}}
    if local_files:
        files = []
        for role in sorted(local_files):
            real = Path(local_files[role]).resolve()
            stat = real.stat()
            files.append([role, str(real), stat.st_size, stat.st_mtime_ns])
        fingerprint.update(source="files", files=files)
    else:
        fingerprint["source"] = download
    return json.dumps(fingerprint, sort_keys=True)


def _parse_fingerprint(text):
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def save_npz_atomic(path, arrays, fingerprint=None):
    """Write ``arrays`` (a dict) to ``path`` as an uncompressed ``.npz``,
    with ``CACHE_VERSION`` and the source ``fingerprint`` (JSON text)."""
    extra = {}
    if fingerprint is not None:
        extra["source_fingerprint"] = np.array(fingerprint)
    with atomic_file(path) as tmp:
        # A file object, not a name: np.savez would append ".npz" to a name.
        with open(tmp, "wb") as f:
            np.savez(f, cache_version=np.int64(CACHE_VERSION), **extra,
                     **arrays)


_CACHE_META = ("cache_version", "source_fingerprint")


def read_cache(path):
    """``(arrays, fingerprint)`` cached in ``path``: the arrays (a dict) and
    the parsed source fingerprint (a dict, ``None`` for a cache written
    before fingerprints).  ``None`` when there is no usable cache: absent,
    of another layout version, unreadable (then deleted, with a warning, to
    be rebuilt), or not readable by this process (left alone, with a
    warning)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            if int(npz["cache_version"]) != CACHE_VERSION:
                return None
            fingerprint = None
            if "source_fingerprint" in npz.files:
                fingerprint = _parse_fingerprint(
                    str(npz["source_fingerprint"]))
            arrays = {k: npz[k] for k in npz.files if k not in _CACHE_META}
            return arrays, fingerprint
    except PermissionError as e:
        warnings.warn(f"Ignoring the cache {path}: "
                      f"{permission_denied(path, e)}")
        return None
    except (KeyError, ValueError, EOFError, OSError,
            zipfile.BadZipFile) as e:
        _drop_cache(path, f"{type(e).__name__}: {e}")
        return None


def _drop_cache(path, why):
    warnings.warn(f"Ignoring the unusable cache {path} ({why}); "
                  "rebuilding it.")
    try:
        Path(path).unlink()
    except OSError:
        pass


def write_cache(path, arrays, fingerprint=None):
    """Cache ``arrays`` in ``path``; a failure (e.g. read-only data folder)
    only warns: the data were loaded, the next run loads them again."""
    try:
        save_npz_atomic(path, arrays, fingerprint)
    except OSError as e:
        warnings.warn(f"Could not write the cache {path} "
                      f"({type(e).__name__}: {e}); continuing without it.")


def _cache_usable(cache_file, cached_fp, local_fp, params):
    """Whether a cache built from ``cached_fp`` serves a load whose local
    files give ``local_fp`` (``None``: no local file)."""
    if local_fp is not None:
        # Local files exist: the cache must have been built from exactly
        # them (same resolved paths, sizes and mtimes) and parameters; a
        # cache without fingerprint (older version) is rebuilt.
        return cached_fp == _parse_fingerprint(local_fp)
    if cached_fp is None:
        # An older cache and nothing to compare it with: use it, as before.
        return True
    if (cached_fp.get("cache_version") != CACHE_VERSION
            or cached_fp.get("params") != (params or {})):
        return False
    if cached_fp.get("source") == "files":
        # "prepare once, run many times": the files it was built from are
        # gone (or data_paths now points at an empty folder); the cache is
        # the only copy left. Use it, but say what it holds.
        folders = sorted({str(Path(f[1]).parent)
                          for f in cached_fp.get("files", [])})
        warnings.warn(
            f"Using the cache {cache_file}, built from the files in "
            f"{', '.join(folders)}, which are not found now. Delete the "
            "cache to load the data from elsewhere.")
    return True


def load_arrays(cache_file, local_files, read_local, fetch, check,
                not_found, download_name=None, params=None):
    """Resolve a data set's parsed arrays: cache, then local files, then a
    download; cache whatever was loaded, with its source fingerprint.

    cache_file: ``.npz`` path, or ``None`` for no caching.
    local_files: ``{role: path}`` of the local copy, or ``None``.
    read_local: ``read_local(local_files) -> dict of arrays``.
    fetch: ``fetch() -> dict of arrays`` downloading the data, or ``None``
        (offline); any exception it raises becomes a
        :class:`DataNotFoundError` (raised without the download's chained
        traceback: its reason is in the message).
    check: ``check(arrays, source)`` raises :class:`DataFormatError` (naming
        ``source``) when the arrays have the wrong shape or values.
    not_found: ``not_found(reason) -> str``, the message of the
        :class:`DataNotFoundError` (``reason``: the download's exception or
        ``None`` when no download was attempted).
    download_name: the download's source in the fingerprint
        (``"download:<download_name>"``; default: the cache file's stem).
    params: the loader's parameters that change the parsed arrays (JSON
        values), part of the fingerprint.

    The cache is used when it was built from what would be loaded now: with
    local files, from the same files (resolved paths, sizes, mtimes) and
    ``params``; without, from any source with the same ``params`` (a cache
    built from a download, or from files since removed, serves offline
    runs). Otherwise it is rebuilt. Stale temporary files of killed cache
    writers are removed first.
    """
    local_fp = None
    if cache_file is not None:
        clean_stale_parts(cache_file)
        if local_files:
            local_fp = source_fingerprint(local_files, params=params)
        cached = read_cache(cache_file)
        if cached is not None:
            arrays, cached_fp = cached
            if _cache_usable(cache_file, cached_fp, local_fp, params):
                try:
                    check(arrays, f"the cache {cache_file}")
                    return arrays
                except (DataFormatError, KeyError) as e:
                    _drop_cache(cache_file, str(e))

    if local_files:
        arrays = read_local(local_files)
        source = ", ".join(str(p) for p in local_files.values())
        fingerprint = local_fp
    elif fetch is None:
        raise DataNotFoundError(not_found(None))
    else:
        try:
            arrays = fetch()
        except DataFormatError:
            raise
        except Exception as e:
            # The reason is in the message: the chained traceback of the
            # download (requests, urllib3, ...) only buries it.
            raise DataNotFoundError(not_found(e)) from None
        source = "the downloaded data"
        if download_name is None and cache_file is not None:
            download_name = Path(cache_file).stem
        fingerprint = source_fingerprint(
            download=f"download:{download_name}", params=params)
    check(arrays, source)
    if cache_file is not None:
        write_cache(cache_file, arrays, fingerprint)
    return arrays


def retry_options(fetcher, n_retries=1, delay=1.0):
    """Fewer network retries for a scikit-learn fetcher (its default, 3
    retries a second apart, only delays the error when offline); ``{}`` for
    scikit-learn versions without these options."""
    params = inspect.signature(fetcher).parameters
    if "n_retries" in params and "delay" in params:
        return dict(n_retries=n_retries, delay=delay)
    return {}


@contextmanager
def pruned_on_failure(folder):
    """On failure, remove the empty folders a download left in ``folder``
    (scikit-learn's fetchers create their cache tree before fetching)."""
    try:
        yield
    except BaseException:
        if folder is not None:
            prune_empty_dirs(folder)
        raise


def prune_empty_dirs(folder):
    """Remove ``folder`` and the folders below it that hold no file."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    for root, _, _ in sorted(os.walk(folder), key=lambda w: -len(w[0])):
        try:
            os.rmdir(root)          # fails (and is kept) if not empty
        except OSError:
            pass
