from benchopt import BaseDataset

from benchmark_utils.data import small


class Dataset(BaseDataset):
    """Data hyper-cleaning on scikit-learn's digits (1797 8x8 images, 64
    standardised features, 10 classes): no download.

    Seeded split 1000 train (lower level, labels corrupted: each replaced
    with probability ``ratio`` by a class drawn uniformly among the 10) /
    400 validation (upper level) / 397 test. ``l2_reg`` is C_r of
    g = mean_i sigmoid(x_i) CE_i + C_r |y|^2.
    """
    name = "digits"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "datacleaning"
    requirements = ["pip::scikit-learn"]

    parameters = {"ratio": [0.5], "l2_reg": [0.2]}
    test_parameters = {"ratio": [0.5]}

    def prepare(self):
        """Nothing to fetch: scikit-learn ships the data."""

    def get_data(self):
        return small.digits_task(
            ratio=self.ratio, l2_reg=self.l2_reg,
            seed=self.get_seed(use_repetition=True)) | dict(
                tuning_key="digits")
