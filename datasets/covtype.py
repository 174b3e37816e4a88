from benchopt import BaseDataset

from benchmark_utils.data.storage import check_dtype, features_as
from benchmark_utils.data import covtype, paths


class Dataset(BaseDataset):
    """Multinomial logistic regression on forest covertype (UCI: 581 012
    samples, 54 standardised features, 7 classes, labels 0..6).

    Seeded split into ``n_train`` (lower level), ``n_val`` (upper level) and
    ``n_test`` samples, 371 847 / 92 962 / 116 203 by default; features
    standardised with the training split's statistics.

    Data: ``covtype.data`` (or ``.gz``) in the folder of ``data_paths`` key
    ``covtype``, else scikit-learn's ``fetch_covtype``. Parsed once, then
    cached (see ``benchmark_utils/data/covtype.py``).
    """
    name = "covtype"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "multilogreg"
    requirements = ["pip::scikit-learn"]

    parameters = {"n_train, n_val, n_test": [covtype.SIZES],
                  "dtype": ["float64"]}
    test_parameters = {"n_train, n_val, n_test": [(2000, 500, 500)]}

    requires_download = True
    prepare_cache_ignore = "all"

    @classmethod
    def local_data_available(cls, **_):
        return covtype.local_copy_available(
            [paths.local_folder(covtype.DATA_PATHS_KEY)], paths.cache_dir(),
            data_home=paths.sklearn_data_home())

    def _arrays(self):
        return covtype.load_covtype(
            [paths.local_folder(covtype.DATA_PATHS_KEY)],
            cache_dir=paths.cache_dir(), data_home=paths.sklearn_data_home())

    def prepare(self):
        self._arrays()

    def get_data(self):
        check_dtype(self.dtype)
        return features_as(covtype.covtype_task(
            self._arrays(), sizes=(self.n_train, self.n_val, self.n_test),
            seed=self.get_seed(use_repetition=True)), self.dtype) | dict(
                tuning_key="covtype")
