"""The reference results of a dataset (``reference_results``) kept on disk,
keyed by content, so that they are computed once per dataset, not once per
run, process or worker.

A dataset's references cost several exact solves (about 6 s on
Fashion-MNIST hyper-cleaning); every run of every solver of a repetition
carries the same values.  The key is the digest of everything they depend
on: the task, every array of the dataset dict (bytes, dtype and shape; the
clean training labels included), its scalar parameters, and the sources of
the code that computes them (``SOURCES``), so that an edit of that code or
another split, corruption or seed is a new entry.  Entries are small JSON
files in ``<benchopt data path>/cache/references`` (``data.paths``), written
atomically; a folder that cannot be written is not an error: the
references are then computed as without a store.
"""
import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

PACKAGE = Path(__file__).resolve().parent
# The code the reference values depend on: an edit of any of these files
# makes new entries.
SOURCES = ("reference_results.py", "exact_glm.py", "exact_kernels.py",
           "exact_quadratic.py", "tasks")
FOLDER = "references"


def _source_digest():
    h = hashlib.blake2b(digest_size=16)
    for name in SOURCES:
        path = PACKAGE / name
        files = sorted(path.glob("*.py")) if path.is_dir() else [path]
        for f in files:
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def data_key(data):
    """The content digest of a dataset dict (arrays and parameters) and of
    the reference code's sources."""
    h = hashlib.blake2b(digest_size=20)
    h.update(_source_digest().encode())
    for name in sorted(data):
        value = data[name]
        h.update(name.encode())
        if isinstance(value, np.ndarray):
            a = np.ascontiguousarray(value)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(memoryview(a).cast("B"))
        elif value is None or isinstance(value, (str, int, float, bool,
                                                 np.generic)):
            h.update(repr(value).encode())
        else:  # what cannot be hashed by content is never stored
            return None
    return h.hexdigest()


def store_folder():
    """The store's folder (under benchopt's data path), or None outside a
    benchmark (no running benchopt benchmark to ask for its data path)."""
    from .data.paths import cache_dir
    try:
        return Path(cache_dir()) / FOLDER
    except AttributeError:  # benchopt: no running benchmark
        return None


def _encode(values):
    return {k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in values.items()}


def _decode(values):
    return {k: (np.nan if v is None else v) for k, v in values.items()}


def load_or_compute(data, compute, folder=None):
    """The references of ``data``: from the store when an entry has its
    key, else ``compute()`` (a dict of floats), then stored."""
    folder = Path(folder) if folder is not None else store_folder()
    key = None if folder is None else data_key(data)
    if key is None:
        return compute()
    path = folder / f"{key}.json"
    try:
        return _decode(json.loads(path.read_text()))
    except (OSError, ValueError):
        pass
    values = compute()
    values = {k: float(v) for k, v in values.items()}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(_encode(values), f)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only store: computed each time, as without it
    return values
