"""Hooks for ``benchopt test``: keep the suite offline.

``benchopt test`` calls ``get_data()`` on every dataset.  A dataset that
needs a download declares ``requires_download = True`` and a
``local_data_available(**params)`` classmethod, called with the dataset's
test parameters (e.g. mnist's ``variant``); without network and without a
local copy it is skipped here instead of failing on a network call.
Set ``BENCHOPT_OFFLINE=0`` to let such datasets download instead.
"""
import os

import pytest
from benchopt.utils.parametrized_name_mixin import get_configs


def _offline():
    return os.environ.get("BENCHOPT_OFFLINE", "1") != "0"


def check_test_dataset_get_data(benchmark, dataset_class):
    if getattr(dataset_class, "requires_download", False) and _offline():
        available = getattr(dataset_class, "local_data_available", None)
        params = get_configs(dataset_class)[0]["dataset"]
        if available is None or not available(**params):
            pytest.skip(f"{dataset_class.name}: no local data and offline "
                        "(set BENCHOPT_OFFLINE=0 to download, or see the "
                        "`data_paths` keys in docs/datasets.md)")
