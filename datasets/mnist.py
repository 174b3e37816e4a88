from benchopt import BaseDataset

from benchmark_utils.data.storage import check_dtype, features_as
from benchmark_utils.data import mnist, paths, sizes


class Dataset(BaseDataset):
    """Data hyper-cleaning on MNIST or Fashion-MNIST (28x28 images, 784
    standardised pixels, 10 classes).

    ``n_train`` (lower level, labels corrupted: each replaced with
    probability ``ratio`` by a class drawn uniformly among the 10) and
    ``n_val`` (upper level, clean) samples come from a split of the
    60 000 training images; test = the first ``n_test`` of the 10 000 t10k
    images. ``l2_reg`` is C_r of g = mean_i sigmoid(x_i) CE_i + C_r |y|^2.

    Data: the four IDX files in the folder of ``data_paths`` key ``mnist``
    (``fashion_mnist`` for the fashion variant; Debian's
    ``dataset-fashion-mnist`` package is found too), else OpenML. Parsed
    once, then cached (see ``benchmark_utils/data/mnist.py``).
    """
    name = "mnist"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "datacleaning"
    requirements = ["pip::scikit-learn"]

    parameters = {
        "ratio": [0.5],
        "variant": ["mnist"],
        "n_train": [sizes.MNIST[0]],
        "n_val": [sizes.MNIST[1]],
        "n_test": [sizes.MNIST[2]],
        "l2_reg": [0.2],
        "dtype": ["float64"],
    }
    # Debian ships Fashion-MNIST: the offline test runs wherever it is
    # installed (and is skipped elsewhere, see test_config.py).
    test_parameters = {"variant": ["fashion"], "n_train": [300],
                       "n_val": [100], "n_test": [100]}

    # Needs files or a download: `benchopt test` skips it offline when
    # local_data_available() is False (test_config.py).
    requires_download = True
    # prepare() only fetches and parses the images: one per variant.
    prepare_cache_ignore = ("ratio", "n_train", "n_val", "n_test", "l2_reg",
                            "dtype", "base_seed")

    @classmethod
    def _folders(cls, variant):
        mnist.check_variant(variant)  # names the allowed values
        key = mnist.DATA_PATHS_KEYS[variant]
        return mnist.default_folders(variant, paths.local_folder(key))

    @classmethod
    def local_data_available(cls, variant="mnist", **_):
        return mnist.local_copy_available(variant, cls._folders(variant),
                                          paths.cache_dir())

    def _arrays(self):
        return mnist.load_mnist(self.variant, self._folders(self.variant),
                                cache_dir=paths.cache_dir(),
                                data_home=paths.data_home() / "openml")

    def prepare(self):
        self._arrays()

    def get_data(self):
        check_dtype(self.dtype)
        return features_as(mnist.mnist_task(
            self._arrays(), n_train=self.n_train, n_val=self.n_val,
            n_test=self.n_test, ratio=self.ratio, l2_reg=self.l2_reg,
            seed=self.get_seed(use_repetition=True)), self.dtype) | dict(
                tuning_key=("fashion-mnist" if self.variant == "fashion"
                            else "mnist"))
