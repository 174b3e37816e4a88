"""Data loaders of the benchmark's datasets (``datasets/*.py``).

One module per source, each free of benchopt so it can be used and tested
with explicit paths: ``mnist`` (IDX files / OpenML), ``ijcnn1`` (LIBSVM files
/ libsvmdata), ``covtype`` (UCI file / scikit-learn), ``small`` (data sets
scikit-learn ships). ``files`` holds the shared plumbing (atomic writes, the
``.npz`` cache, source resolution), ``preprocess`` the splits,
standardisation, label corruption and the contract dicts, ``paths`` the glue
to benchopt's ``get_data_path``.

Only the light modules are imported here: the source modules import their
third-party fetchers at top level, and a dataset must not need another's.
"""
from .errors import DataFormatError, DataNotFoundError, DataPermissionError

__all__ = ["DataFormatError", "DataNotFoundError", "DataPermissionError"]
