from benchopt import BaseDataset

from benchmark_utils.data import small


class Dataset(BaseDataset):
    """Multinomial logistic regression on scikit-learn's wine data (178
    samples, 13 standardised features, 3 classes, labels 0..2): no
    download. Seeded split 70 train (lower level) / 64 validation (upper
    level) / 44 test: both levels hold at least 64 samples, the solvers'
    default batch size."""
    name = "wine"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "multilogreg"
    requirements = ["pip::scikit-learn"]

    parameters = {}
    test_parameters = {}

    def prepare(self):
        """Nothing to fetch: scikit-learn ships the data."""

    def get_data(self):
        return small.wine_task(
            seed=self.get_seed(use_repetition=True)) | dict(
                tuning_key="wine")
