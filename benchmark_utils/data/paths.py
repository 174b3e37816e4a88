"""Where the datasets look for their files, from benchopt's settings.

``get_data_path()`` is the benchmark's data folder (``data_home`` of
config.yml, default ``<benchmark>/data``); ``get_data_path(key)`` is the
folder set for ``key`` under ``data_paths`` (default ``<data_home>/<key>``).
The parsed arrays are cached in ``<data_home>/cache``, the downloads of
scikit-learn's fetchers in ``<data_home>/scikit_learn_data``.
"""
from pathlib import Path

from benchopt.config import get_data_path


def data_home():
    return Path(get_data_path())


def local_folder(key):
    """The folder of the ``data_paths`` key ``key``."""
    return Path(get_data_path(key))


def cache_dir():
    return data_home() / "cache"


def sklearn_data_home():
    return data_home() / "scikit_learn_data"
