from benchopt import BaseDataset

from benchmark_utils.simulated import make_quadratic


class Dataset(BaseDataset):
    """Finite-sum quadratic bilevel problem with closed-form y*, z*, H, x*.

    ``n`` UL (validation) and ``m`` LL (training) samples, each a data row;
    ``mu`` and ``cond`` set the exact spectrum of hess_yy g; ``z_star_norm``
    sets |z*(x*)| (see ``benchmark_utils/simulated.py``).  Each
    repetition draws its own instance.
    """
    name = "Simulated"
    # the task of get_data's arrays: which numba kernels a run compiles
    # ahead (benchmark_utils/precompile.py)
    task = "quadratic"
    requirements = []

    parameters = {
        "n, m": [(2000, 2000)],
        "dim_x, dim_y": [(20, 40)],
        "mu": [0.1],
        "cond": [10.0],
        "lam": [0.01],
        "noise": [1.0],
        "z_star_norm": [0.5],
    }
    test_parameters = {"n, m": [(200, 300)], "dim_x, dim_y": [(5, 10)]}

    def prepare(self):
        """Nothing to fetch: the data are drawn in ``get_data``."""

    def get_data(self):
        # Each repetition draws its own problem (docs/datasets.md).
        return make_quadratic(
            n=self.n, m=self.m, dim_x=self.dim_x, dim_y=self.dim_y,
            mu=self.mu, cond=self.cond, lam=self.lam, noise=self.noise,
            z_star_norm=self.z_star_norm,
            seed=self.get_seed(use_repetition=True)) | dict(
                tuning_key="Simulated")
