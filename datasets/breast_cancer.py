from benchopt import BaseDataset

from benchmark_utils.data import small


class Dataset(BaseDataset):
    """Binary logistic regression on scikit-learn's breast cancer data (569
    samples, 30 standardised features, labels malignant -1 / benign +1): no
    download. Seeded split 300 train (lower level) / 150 validation (upper
    level) / 119 test."""
    name = "breast_cancer"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "logreg"
    requirements = ["pip::scikit-learn"]

    parameters = {}
    test_parameters = {}

    def prepare(self):
        """Nothing to fetch: scikit-learn ships the data."""

    def get_data(self):
        return small.breast_cancer_task(
            seed=self.get_seed(use_repetition=True)) | dict(
                tuning_key="breast_cancer")
