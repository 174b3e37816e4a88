from benchopt import BaseDataset

from benchmark_utils.data.storage import check_dtype, features_as
from benchmark_utils.data import ijcnn1, paths


class Dataset(BaseDataset):
    """Binary logistic regression on IJCNN1 (LIBSVM, 22 features, labels
    -1/+1).

    Lower level (train): the file ``ijcnn1`` (49 990 samples); upper level
    (validation): the file ``ijcnn1.t`` (91 701 samples); test = validation
    (LIBSVM ships no third set). ``n_train`` / ``n_val`` (``None``: all)
    take a seeded subset.

    Data: ``ijcnn1`` and ``ijcnn1.t`` (plain, .bz2 or .gz) in the folder of
    ``data_paths`` key ``ijcnn1``, else libsvmdata's download. Parsed once,
    then cached (see ``benchmark_utils/data/ijcnn1.py``).
    """
    name = "ijcnn1"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "logreg"
    requirements = ["pip::libsvmdata>=0.5", "pip::scikit-learn"]

    parameters = {"n_train": [None], "n_val": [None], "dtype": ["float64"]}
    test_parameters = {"n_train": [500], "n_val": [300]}

    requires_download = True
    prepare_cache_ignore = "all"

    @classmethod
    def local_data_available(cls, **_):
        return ijcnn1.local_copy_available(
            [paths.local_folder(ijcnn1.DATA_PATHS_KEY)], paths.cache_dir())

    def _arrays(self):
        return ijcnn1.load_ijcnn1(
            [paths.local_folder(ijcnn1.DATA_PATHS_KEY)],
            cache_dir=paths.cache_dir())

    def prepare(self):
        self._arrays()

    def get_data(self):
        check_dtype(self.dtype)
        return features_as(ijcnn1.ijcnn1_task(
            self._arrays(), n_train=self.n_train, n_val=self.n_val,
            seed=self.get_seed(use_repetition=True)), self.dtype) | dict(
                tuning_key="ijcnn1")
