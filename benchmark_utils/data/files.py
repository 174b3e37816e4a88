"""File plumbing shared by the loaders.

- reading plain, ``.gz`` or ``.bz2`` files, with errors that name the file;
- finding a data set's files in a folder;
- atomic writes (a temporary file in the target folder, ``os.replace``-d into
  place when complete, removed on failure), so no partial file is ever left;
- the ``.npz`` cache of parsed arrays and :func:`load_arrays`, which resolves a
  data set from, in order, the cache, local files, a download.
"""
import bz2
import gzip
import inspect
import os
import tempfile
import warnings
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .errors import DataFormatError, DataNotFoundError

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
# "Invalid data stream" are OSErrors, a cut stream is an EOFError.
READ_ERRORS = (OSError, EOFError, zlib.error)


def read_bytes(path):
    """The whole (decompressed) content of ``path``."""
    try:
        with open_binary(path) as f:
            return f.read()
    except READ_ERRORS as e:
        raise DataFormatError(
            f"{path}: cannot read the file ({type(e).__name__}: {e}); it is "
            "corrupt or truncated, replace it") from e


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
                         if (folder / (base + suffix)).is_file()), None)
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


@contextmanager
def atomic_file(path):
    """Yield a temporary path next to ``path``; on success it replaces
    ``path`` (``os.replace``), on any failure it is deleted."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part",
                               dir=path.parent)
    os.close(fd)
    try:
        # mkstemp creates the file private (0600): give it the permissions
        # of an ordinary new file, as a shared data folder expects.
        os.chmod(tmp, 0o666 & ~_umask())
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_npz_atomic(path, arrays):
    """Write ``arrays`` (a dict) to ``path`` as an uncompressed ``.npz``."""
    with atomic_file(path) as tmp:
        # A file object, not a name: np.savez would append ".npz" to a name.
        with open(tmp, "wb") as f:
            np.savez(f, cache_version=np.int64(CACHE_VERSION), **arrays)


def read_cache(path, newer_than=()):
    """The arrays cached in ``path`` (a dict), or ``None`` when there is no
    usable cache: absent, older than a file of ``newer_than`` (a local copy
    changed since), of another layout version, or unreadable (then deleted,
    with a warning, to be rebuilt)."""
    path = Path(path)
    if not path.is_file():
        return None
    mtime = path.stat().st_mtime
    if any(Path(p).stat().st_mtime > mtime for p in newer_than):
        return None
    try:
        with np.load(path, allow_pickle=False) as npz:
            if int(npz["cache_version"]) != CACHE_VERSION:
                return None
            return {k: npz[k] for k in npz.files if k != "cache_version"}
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


def write_cache(path, arrays):
    """Cache ``arrays`` in ``path``; a failure (e.g. read-only data folder)
    only warns: the data were loaded, the next run loads them again."""
    try:
        save_npz_atomic(path, arrays)
    except OSError as e:
        warnings.warn(f"Could not write the cache {path} "
                      f"({type(e).__name__}: {e}); continuing without it.")


def load_arrays(cache_file, local_files, read_local, fetch, check,
                not_found):
    """Resolve a data set's parsed arrays: cache, then local files, then a
    download; cache whatever was loaded.

    cache_file: ``.npz`` path, or ``None`` for no caching.
    local_files: ``{role: path}`` of the local copy, or ``None``.
    read_local: ``read_local(local_files) -> dict of arrays``.
    fetch: ``fetch() -> dict of arrays`` downloading the data, or ``None``
        (offline); any exception it raises becomes a
        :class:`DataNotFoundError`.
    check: ``check(arrays, source)`` raises :class:`DataFormatError` (naming
        ``source``) when the arrays have the wrong shape or values.
    not_found: ``not_found(reason) -> str``, the message of the
        :class:`DataNotFoundError` (``reason``: the download's exception or
        ``None`` when no download was attempted).
    """
    if cache_file is not None:
        newer = list(local_files.values()) if local_files else []
        arrays = read_cache(cache_file, newer_than=newer)
        if arrays is not None:
            try:
                check(arrays, f"the cache {cache_file}")
                return arrays
            except (DataFormatError, KeyError) as e:
                _drop_cache(cache_file, str(e))

    if local_files:
        arrays = read_local(local_files)
        source = ", ".join(str(p) for p in local_files.values())
    elif fetch is None:
        raise DataNotFoundError(not_found(None))
    else:
        try:
            arrays = fetch()
        except DataFormatError:
            raise
        except Exception as e:
            raise DataNotFoundError(not_found(e)) from e
        source = "the downloaded data"
    check(arrays, source)
    if cache_file is not None:
        write_cache(cache_file, arrays)
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
