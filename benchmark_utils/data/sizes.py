"""The default sizes of the datasets that need files, ``(n_train, n_val,
n_test)``: lower-level (training), upper-level (validation) and test
samples.

A light module (it imports no fetcher): the source modules take their
defaults from it, and so do the tools that need a dataset's size without
its data, such as SRBA's restart period from benchmark_bilevel's
``period_frac`` (``benchmark_utils.reference_settings``,
``tools.from_reference``).
"""
# LIBSVM's files ijcnn1 / ijcnn1.t; the test set is the validation set
IJCNN1 = (49990, 91701, 91701)
# a seeded split of UCI's 581 012 samples (benchmark_bilevel's sizes)
COVTYPE = (371847, 92962, 116203)
# 20 000 / 5 000 of the 60 000 training images, the first 10 000 t10k ones
MNIST = (20000, 5000, 10000)

SIZES = {"ijcnn1": IJCNN1, "covtype": COVTYPE, "mnist": MNIST}


def levels(dataset):
    """``(n, m)``, the upper- and lower-level samples of ``dataset`` (one
    of ``SIZES``) at its default sizes."""
    if dataset not in SIZES:
        raise ValueError(f"dataset must be one of {list(SIZES)} (the sizes "
                         f"this benchmark knows), got {dataset!r}")
    n_train, n_val, _ = SIZES[dataset]
    return n_val, n_train
