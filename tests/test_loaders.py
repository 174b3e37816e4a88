"""Data loaders (benchmark_utils/data) on small files written in the real
formats, and the offline datasets through benchopt. Never touches the
network: every download function is replaced by one that fails the test."""
import bz2
import gzip
import inspect
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from benchmark_utils.data import (DataFormatError, DataNotFoundError,
                                  DataPermissionError)
from benchmark_utils.data import covtype, files, ijcnn1, mnist, small
from benchmark_utils.data.idx import read_idx
from benchmark_utils.data.preprocess import (corrupt_labels, seed_streams,
                                             split_indices, standardize)

import bench_helpers

CONTRACT = {
    "logreg": set(),
    "multilogreg": {"n_classes"},
    "datacleaning": {"n_classes", "l2_reg", "y_train_clean",
                     "corruption_ratio"},
}
SPLITS = ("X_train", "y_train", "X_val", "y_val", "X_test", "y_test")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a test tried to download data")
    for module, names in [(mnist, ["fetch_openml", "fetch_openml_arrays"]),
                          (ijcnn1, ["fetch_dataset",
                                    "fetch_libsvmdata_arrays"]),
                          (covtype, ["fetch_covtype",
                                     "fetch_sklearn_arrays"])]:
        for name in names:
            monkeypatch.setattr(module, name, refuse)


def write(path, data):
    """Write bytes (or text) to ``path``, compressed by its suffix."""
    if isinstance(data, str):
        data = data.encode()
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "wb") as f:
        f.write(data)
    return path


def idx_bytes(arr, code=0x08, dtype=">u1"):
    """The IDX encoding of ``arr``, written by hand from the format."""
    arr = np.asarray(arr)
    return (bytes([0, 0, code, arr.ndim])
            + struct.pack(f">{arr.ndim}I", *arr.shape)
            + arr.astype(dtype).tobytes())


def leftovers(folder):
    """Temporary / partial files under ``folder``."""
    return [os.path.join(root, f) for root, _, names in os.walk(folder)
            for f in names if f.endswith(".part") or f.startswith(".")]


# --------------------------------------------------------------------------
# IDX
# --------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
def test_read_idx_roundtrip(tmp_path, suffix):
    images = np.random.default_rng(0).integers(0, 256, (30, 5, 4))
    path = write(tmp_path / f"images{suffix}", idx_bytes(images))
    out = read_idx(path)
    assert out.dtype == np.uint8 and out.shape == (30, 5, 4)
    np.testing.assert_array_equal(out, images)
    # a big-endian int32 vector (type code 0x0C) comes back native
    ints = np.array([-5, 0, 70000, 2**31 - 1])
    path = write(tmp_path / f"ints{suffix}", idx_bytes(ints, 0x0C, ">i4"))
    np.testing.assert_array_equal(read_idx(path), ints)


@pytest.mark.parametrize("magic", [b"\x00\x00\x07\x01", b"\x89PNG",
                                   b"\x00\x00\x08\x00", b"\x00\x00"])
def test_read_idx_bad_magic(tmp_path, magic):
    path = write(tmp_path / "bad-idx1-ubyte", magic + bytes(20))
    with pytest.raises(DataFormatError, match="not an IDX file") as e:
        read_idx(path)
    assert str(path) in str(e.value)


def test_read_idx_truncated(tmp_path):
    data = idx_bytes(np.zeros((30, 28, 28)))
    path = write(tmp_path / "images.gz", data[:-10])
    with pytest.raises(DataFormatError, match="truncated") as e:
        read_idx(path)
    assert str(path) in str(e.value)
    assert "(30, 28, 28)" in str(e.value)
    # a header cut in the middle of its sizes
    path = write(tmp_path / "header", data[:9])
    with pytest.raises(DataFormatError, match="truncated"):
        read_idx(path)
    # bytes after the announced array
    path = write(tmp_path / "long", data + b"\x00\x00")
    with pytest.raises(DataFormatError, match="2 unexpected bytes"):
        read_idx(path)


def test_read_idx_corrupt_compression(tmp_path):
    raw = gzip.compress(idx_bytes(np.ones((30, 28, 28))))
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(raw[: len(raw) // 2])          # cut download
    with pytest.raises(DataFormatError, match="corrupt or truncated") as e:
        read_idx(path)
    assert str(path) in str(e.value)
    path.write_bytes(b"this is not gzip")
    with pytest.raises(DataFormatError, match=str(path)):
        read_idx(path)


# --------------------------------------------------------------------------
# MNIST
# --------------------------------------------------------------------------

N_POOL, N_T10K = 30, 12


def mnist_images(n, start):
    """``n`` 28x28 images; pixel 0 holds the image's number (to follow
    rows through the split), pixel 1 is constant, the rest is noise."""
    images = np.random.default_rng(start).integers(0, 256, (n, 28, 28))
    images[:, 0, 0] = np.arange(start, start + n)
    images[:, 0, 1] = 7
    return images


def write_mnist(folder, suffixes=(".gz", "", "", ".gz"), n_labels=N_POOL):
    folder.mkdir(parents=True, exist_ok=True)
    arrays = dict(X_train=mnist_images(N_POOL, 0),
                  y_train=np.arange(N_POOL) % 10,
                  X_test=mnist_images(N_T10K, 100),
                  y_test=(np.arange(N_T10K) * 3) % 10)
    arrays["y_train"] = arrays["y_train"][:n_labels]
    contents = [arrays["X_train"], arrays["y_train"], arrays["X_test"],
                arrays["y_test"]]
    for name, arr, suffix in zip(mnist.FILE_NAMES, contents, suffixes):
        write(folder / (name + suffix), idx_bytes(arr))
    return arrays


@pytest.mark.parametrize("suffixes", [("",) * 4, (".gz",) * 4,
                                      (".gz", "", ".bz2", ".gz")])
def test_load_mnist_idx_files(tmp_path, suffixes):
    expected = write_mnist(tmp_path / "mnist", suffixes)
    cache = tmp_path / "cache"
    arrays = mnist.load_mnist("mnist", [tmp_path / "mnist"], cache_dir=cache,
                              download=False)
    assert arrays["X_train"].shape == (N_POOL, 784)
    assert arrays["X_test"].shape == (N_T10K, 784)
    for key, value in expected.items():
        assert arrays[key].dtype == np.uint8
        np.testing.assert_array_equal(arrays[key], value.reshape(
            (len(value), -1) if key.startswith("X") else -1))
    assert sorted(os.listdir(cache)) == ["mnist.npz"]


def test_load_mnist_cache(tmp_path, monkeypatch):
    write_mnist(tmp_path / "mnist")
    first = mnist.load_mnist("mnist", [tmp_path / "mnist"],
                             cache_dir=tmp_path, download=False)

    def must_not_parse(files):
        raise AssertionError("parsed the IDX files despite the cache")
    monkeypatch.setattr(mnist, "read_idx_folder", must_not_parse)
    again = mnist.load_mnist("mnist", [tmp_path / "mnist"],
                             cache_dir=tmp_path, download=False)
    for key in first:
        np.testing.assert_array_equal(first[key], again[key])
    # without the local files, the cache alone is enough (it says what
    # it was built from)
    with pytest.warns(UserWarning, match="built from the files in"):
        alone = mnist.load_mnist("mnist", [], cache_dir=tmp_path,
                                 download=False)
    assert alone["X_train"].shape == (N_POOL, 784)
    assert mnist.local_copy_available("mnist", [], tmp_path)
    assert not mnist.local_copy_available("fashion", [], tmp_path)
    # a local file newer than the cache: parsed again
    future = (tmp_path / "mnist.npz").stat().st_mtime + 100
    os.utime(tmp_path / "mnist" / "train-labels-idx1-ubyte", (future, future))
    with pytest.raises(AssertionError, match="despite the cache"):
        mnist.load_mnist("mnist", [tmp_path / "mnist"], cache_dir=tmp_path,
                         download=False)


def test_load_mnist_corrupt_cache_is_rebuilt(tmp_path):
    write_mnist(tmp_path / "mnist")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "mnist.npz").write_bytes(b"PK\x03\x04 garbage")
    os.utime(tmp_path / "cache" / "mnist.npz", (2e9, 2e9))
    with pytest.warns(UserWarning, match="unusable cache"):
        arrays = mnist.load_mnist("mnist", [tmp_path / "mnist"],
                                  cache_dir=tmp_path / "cache",
                                  download=False)
    assert arrays["X_train"].shape == (N_POOL, 784)
    with np.load(tmp_path / "cache" / "mnist.npz") as npz:
        assert npz["X_train"].shape == (N_POOL, 784)


def test_load_mnist_shape_mismatch(tmp_path):
    write_mnist(tmp_path / "mnist", n_labels=N_POOL - 1)
    with pytest.raises(DataFormatError, match="shape mismatch") as e:
        mnist.load_mnist("mnist", [tmp_path / "mnist"],
                         cache_dir=tmp_path / "cache", download=False)
    assert "train-images-idx3-ubyte.gz" in str(e.value)
    assert "train-labels-idx1-ubyte" in str(e.value)
    assert "30 images" in str(e.value) and "29 labels" in str(e.value)
    assert not (tmp_path / "cache").exists() or not os.listdir(
        tmp_path / "cache")


def test_load_mnist_bad_labels_and_sizes(tmp_path):
    folder = tmp_path / "mnist"
    write_mnist(folder)
    write(folder / "t10k-labels-idx1-ubyte.gz",
          idx_bytes(np.full(N_T10K, 10)))
    with pytest.raises(DataFormatError, match="0..9"):
        mnist.load_mnist("mnist", [folder], download=False)
    write_mnist(folder)
    write(folder / "t10k-images-idx3-ubyte",
          idx_bytes(np.zeros((N_T10K, 20, 20))))
    with pytest.raises(DataFormatError, match="784 pixels"):
        mnist.load_mnist("mnist", [folder], download=False)


def test_load_mnist_incomplete_folder(tmp_path):
    write_mnist(tmp_path / "mnist")
    (tmp_path / "mnist" / "t10k-labels-idx1-ubyte.gz").unlink()
    with pytest.raises(DataNotFoundError) as e:
        mnist.load_mnist("mnist", [tmp_path / "mnist"], download=False)
    assert "t10k-labels-idx1-ubyte" in str(e.value)
    assert "'mnist'" in str(e.value)


@pytest.mark.parametrize("variant, key", [("mnist", "mnist"),
                                          ("fashion", "fashion_mnist")])
def test_load_mnist_missing(tmp_path, variant, key):
    cache = tmp_path / "cache"
    with pytest.raises(DataNotFoundError) as e:
        mnist.load_mnist(variant, [tmp_path / "nowhere"], cache_dir=cache,
                         download=False)
    assert isinstance(e.value, FileNotFoundError)
    message = str(e.value)
    assert "data_paths" in message and "config.yml" in message
    assert f"      {key}: /path/to/that/folder" in message
    for name in mnist.FILE_NAMES:
        assert name in message
    assert "no such folder" in message
    assert not cache.exists()


def test_load_mnist_download(tmp_path):
    def offline():
        raise OSError("Name or service not known")
    with pytest.raises(DataNotFoundError, match="Name or service") as e:
        mnist.load_mnist("mnist", [tmp_path], cache_dir=tmp_path / "cache",
                         download=offline)
    assert "'mnist'" in str(e.value)
    assert not leftovers(tmp_path) and not os.listdir(tmp_path)

    arrays = dict(X_train=np.zeros((20, 784), np.uint8),
                  y_train=np.arange(20, dtype=np.uint8) % 10,
                  X_test=np.ones((5, 784), np.uint8),
                  y_test=np.arange(5, dtype=np.uint8))
    out = mnist.load_mnist("fashion", [tmp_path], cache_dir=tmp_path,
                           download=lambda: arrays)
    np.testing.assert_array_equal(out["X_test"], arrays["X_test"])
    assert (tmp_path / "fashion_mnist.npz").is_file()


def test_mnist_task(tmp_path):
    write_mnist(tmp_path)
    arrays = mnist.load_mnist("mnist", [tmp_path], download=False)
    data = mnist.mnist_task(arrays, n_train=16, n_val=8, n_test=10,
                            ratio=0.5, seed=3)
    check_contract(data, "datacleaning", (16, 8, 10), 784, 10)
    assert data["l2_reg"] == 0.2 and data["corruption_ratio"] == 0.5
    # standardised with the training split's statistics; the constant
    # pixel 1 is only centred
    X = data["X_train"]
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(np.delete(X.std(axis=0), 1), 1, rtol=1e-12)
    assert np.all(X[:, 1] == 0) and np.all(data["X_test"][:, 1] == 0)
    # pixel 0 numbers the images (same affine map on every split): train
    # and val rows are distinct, test = the first t10k images in order
    ids = np.concatenate([data["X_train"][:, 0], data["X_val"][:, 0]])
    assert len(np.unique(ids)) == 24
    steps = np.diff(data["X_test"][:, 0])
    assert np.all(steps > 0) and np.allclose(steps, steps[0])
    # the rows and clean labels are those of the seeded permutation
    split_rng, _ = seed_streams(3, 2)
    i_train, i_val = split_indices(N_POOL, (16, 8), split_rng)
    pool = arrays["X_train"].astype(float)
    expected = standardize(pool[i_train], pool[i_val],
                           arrays["X_test"][:10])
    for part, X in zip(("train", "val", "test"), expected):
        np.testing.assert_allclose(data[f"X_{part}"], X)
    np.testing.assert_array_equal(data["y_train_clean"], i_train % 10)
    np.testing.assert_array_equal(data["y_val"], i_val % 10)
    np.testing.assert_array_equal(data["y_test"], (np.arange(10) * 3) % 10)
    # the corruption only touches the training labels
    changed = data["y_train"] != data["y_train_clean"]
    assert 0 < changed.sum() < 16
    # same seed, same data; another seed, another split
    again = mnist.mnist_task(arrays, 16, 8, 10, 0.5, seed=3)
    for key in SPLITS + ("y_train_clean",):
        np.testing.assert_array_equal(data[key], again[key])
    other = mnist.mnist_task(arrays, 16, 8, 10, 0.5, seed=4)
    assert not np.array_equal(data["y_train_clean"], other["y_train_clean"])
    # the split does not depend on the corruption ratio
    clean = mnist.mnist_task(arrays, 16, 8, 10, 0.0, seed=3)
    np.testing.assert_array_equal(clean["y_train"], data["y_train_clean"])
    np.testing.assert_array_equal(clean["X_val"], data["X_val"])
    with pytest.raises(ValueError, match="only 30"):
        mnist.mnist_task(arrays, 25, 8, 10, 0.5, seed=3)
    with pytest.raises(ValueError, match="n_test"):
        mnist.mnist_task(arrays, 16, 8, 13, 0.5, seed=3)


# --------------------------------------------------------------------------
# preprocessing
# --------------------------------------------------------------------------

def test_corruption_rate():
    n, C = 5000, 10
    y = np.arange(n) % C
    rng = np.random.default_rng(0)
    corrupted, replaced = corrupt_labels(y, 0.5, C, rng)
    assert corrupted.dtype == y.dtype and set(np.unique(corrupted)) <= set(
        range(C))
    # each label redrawn with probability 0.5, changed with 0.5 * (1 - 1/C)
    assert abs(replaced.mean() - 0.5) < 0.03
    assert abs(np.mean(corrupted != y) - 0.5 * (1 - 1 / C)) < 0.03
    np.testing.assert_array_equal(corrupted[~replaced], y[~replaced])
    # ratio 0: unchanged; larger ratios corrupt a superset
    same, _ = corrupt_labels(y, 0.0, C, np.random.default_rng(1))
    np.testing.assert_array_equal(same, y)
    masks = [corrupt_labels(y, r, C, np.random.default_rng(1))[1]
             for r in (0.5, 0.7, 0.9)]
    assert np.all(masks[0] <= masks[1]) and np.all(masks[1] <= masks[2])
    assert abs(masks[2].mean() - 0.9) < 0.03
    with pytest.raises(ValueError, match="ratio"):
        corrupt_labels(y, 1.5, C, rng)


def test_standardize_and_split():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(5, 3, 200), np.full(200, 2.0),
                         rng.integers(0, 9, 200)])
    a, b = standardize(X[:150], X[150:])
    np.testing.assert_allclose(a.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(a.std(0), [1, 0, 1], atol=1e-12)
    assert np.all(b[:, 1] == 0) and b.flags.c_contiguous
    mean, std = X[:150, 0].mean(), X[:150, 0].std()
    np.testing.assert_allclose(b[:, 0], (X[150:, 0] - mean) / std)

    parts = split_indices(100, (50, 30, 20), seed_streams(7, 1)[0])
    assert [len(p) for p in parts] == [50, 30, 20]
    assert sorted(np.concatenate(parts).tolist()) == list(range(100))
    with pytest.raises(ValueError, match="only 100"):
        split_indices(100, (80, 30), seed_streams(7, 1)[0])


# --------------------------------------------------------------------------
# IJCNN1
# --------------------------------------------------------------------------

def libsvm_text(n, seed, labels=(-1, 1), n_features=22):
    """A LIBSVM file of ``n`` rows and the dense matrix it encodes."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, n_features))
    y = rng.choice(labels, n)
    lines = []
    for i in range(n):
        cols = np.sort(rng.choice(n_features, 5, replace=False))
        X[i, cols] = np.round(rng.uniform(-1, 1, 5), 6)
        feats = " ".join(f"{j + 1}:{X[i, j]:.6f}" for j in cols)
        lines.append(f"{y[i]:+d} {feats}")
    return "\n".join(lines) + "\n", X, y


@pytest.mark.parametrize("suffix", ["", ".bz2", ".gz"])
def test_load_ijcnn1(tmp_path, suffix):
    train, X_train, y_train = libsvm_text(40, 0)
    test, X_test, y_test = libsvm_text(25, 1)
    write(tmp_path / f"ijcnn1{suffix}", train)
    write(tmp_path / f"ijcnn1.t{suffix}", test)
    arrays = ijcnn1.load_ijcnn1([tmp_path], cache_dir=tmp_path / "cache",
                                download=False)
    for key, value in dict(X_train=X_train, y_train=y_train, X_test=X_test,
                           y_test=y_test).items():
        assert arrays[key].dtype == np.float64
        np.testing.assert_allclose(arrays[key], value)
    assert os.listdir(tmp_path / "cache") == ["ijcnn1.npz"]
    data = ijcnn1.ijcnn1_task(arrays, n_train=30, seed=0)
    check_contract(data, "logreg", (30, 25, 25), 22)
    assert data["X_test"] is data["X_val"]         # test = validation
    full = ijcnn1.ijcnn1_task(arrays, seed=0)
    np.testing.assert_array_equal(full["X_train"], X_train)


def test_ijcnn1_labels_01_are_mapped(tmp_path):
    write(tmp_path / "ijcnn1", libsvm_text(10, 0, labels=(0, 1))[0])
    write(tmp_path / "ijcnn1.t", libsvm_text(10, 1)[0])
    arrays = ijcnn1.load_ijcnn1([tmp_path], download=False)
    assert set(np.unique(arrays["y_train"])) == {-1.0, 1.0}


@pytest.mark.parametrize("content, match", [
    ("+1 1:0.5 23:0.1\n", "22 features"),
    ("+1 1:0.5\nthis is not libsvm\n", "not a LIBSVM file"),
    ("+1 1:0.5\n+2 1:0.5\n-1 2:1\n", "binary labels"),
    ("", "no sample"),
])
def test_ijcnn1_bad_file(tmp_path, content, match):
    write(tmp_path / "ijcnn1", content)
    write(tmp_path / "ijcnn1.t", libsvm_text(5, 1)[0])
    with pytest.raises(DataFormatError, match=match) as e:
        ijcnn1.load_ijcnn1([tmp_path], cache_dir=tmp_path / "cache",
                           download=False)
    assert str(tmp_path / "ijcnn1") in str(e.value)
    assert not (tmp_path / "cache").exists() and not leftovers(tmp_path)


def test_ijcnn1_missing(tmp_path):
    with pytest.raises(DataNotFoundError) as e:
        ijcnn1.load_ijcnn1([tmp_path], cache_dir=tmp_path, download=False)
    message = str(e.value)
    assert "      ijcnn1: /path/to/that/folder" in message
    assert "'ijcnn1', 'ijcnn1.t'" in message
    write(tmp_path / "ijcnn1.bz2", libsvm_text(5, 1)[0])
    with pytest.raises(DataNotFoundError, match="not ijcnn1.t"):
        ijcnn1.load_ijcnn1([tmp_path], download=False)


# --------------------------------------------------------------------------
# covtype
# --------------------------------------------------------------------------

def covtype_csv(n, seed, n_columns=55):
    rng = np.random.default_rng(seed)
    X = rng.integers(-200, 4000, (n, n_columns - 1))
    y = np.arange(n) % 7 + 1
    text = "\n".join(",".join(map(str, row)) for row in
                     np.column_stack([X, y])) + "\n"
    return text, X, y


@pytest.mark.parametrize("name", ["covtype.data", "covtype.data.gz"])
def test_load_covtype(tmp_path, name):
    text, X, y = covtype_csv(70, 0)
    write(tmp_path / name, text)
    arrays = covtype.load_covtype([tmp_path], cache_dir=tmp_path / "cache",
                                  download=False)
    np.testing.assert_array_equal(arrays["X"], X)
    np.testing.assert_array_equal(arrays["y"], y - 1)
    assert arrays["X"].dtype == np.int16
    assert os.listdir(tmp_path / "cache") == ["covtype.npz"]
    data = covtype.covtype_task(arrays, sizes=(40, 15, 15), seed=0)
    check_contract(data, "multilogreg", (40, 15, 15), 54, 7)
    np.testing.assert_allclose(data["X_train"].mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(data["X_train"].std(0), 1, rtol=1e-12)
    assert sorted(np.concatenate([data[f"y_{p}"] for p in
                                  ("train", "val", "test")]).tolist()) == \
        sorted((y - 1).astype(float).tolist())


@pytest.mark.parametrize("edit, match", [
    (lambda t: t.replace("\n", ",5\n", 1), "number of columns changed"),
    (lambda t: covtype_csv(10, 0, n_columns=54)[0], "found 54"),
    (lambda t: t[: t.rindex(",")] + ",8\n", "1..7"),
    (lambda t: "1.5" + t[t.index(","):], "could not convert string '1.5'"),
    (lambda t: "", "no row"),
])
def test_covtype_bad_file(tmp_path, edit, match):
    text = edit(covtype_csv(10, 0)[0])
    write(tmp_path / "covtype.data.gz", text)
    with pytest.raises(DataFormatError, match=match) as e:
        covtype.load_covtype([tmp_path], cache_dir=tmp_path / "cache",
                             download=False)
    assert str(tmp_path / "covtype.data.gz") in str(e.value)
    assert not (tmp_path / "cache").exists() and not leftovers(tmp_path)


def test_covtype_missing(tmp_path):
    with pytest.raises(DataNotFoundError) as e:
        covtype.load_covtype([tmp_path], download=False)
    assert "      covtype: /path/to/that/folder" in str(e.value)
    assert "'covtype.data'" in str(e.value)


# --------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------

def test_failed_cache_write_leaves_nothing(tmp_path, monkeypatch):
    def broken_savez(f, **arrays):
        f.write(b"PK\x03\x04 half an archive")
        raise OSError("No space left on device")
    monkeypatch.setattr(files.np, "savez", broken_savez)
    write(tmp_path / "covtype.data", covtype_csv(10, 0)[0])
    with pytest.warns(UserWarning, match="No space left"):
        arrays = covtype.load_covtype([tmp_path],
                                      cache_dir=tmp_path / "cache",
                                      download=False)
    assert arrays["X"].shape == (10, 54)          # loaded all the same
    assert os.listdir(tmp_path / "cache") == []
    with pytest.raises(KeyboardInterrupt):
        with files.atomic_file(tmp_path / "out.bin") as tmp:
            tmp.write_bytes(b"partial")
            raise KeyboardInterrupt
    assert sorted(os.listdir(tmp_path)) == ["cache", "covtype.data"]


# --------------------------------------------------------------------------
# the cache is keyed by its source
# --------------------------------------------------------------------------

def count_reads(monkeypatch, module, name):
    """Wrap ``module.name`` (a loader's file reader); returns the live list
    of its calls."""
    calls = []
    original = getattr(module, name)

    def counted(files_):
        calls.append(dict(files_))
        return original(files_)
    monkeypatch.setattr(module, name, counted)
    return calls


def load_covtype_from(folder, cache):
    return covtype.load_covtype([folder], cache_dir=cache, download=False)


def test_cache_reused_when_nothing_changed(tmp_path, monkeypatch):
    reads = count_reads(monkeypatch, covtype, "read_covtype_folder")
    (tmp_path / "data").mkdir()
    write(tmp_path / "data" / "covtype.data", covtype_csv(20, 0)[0])
    first = load_covtype_from(tmp_path / "data", tmp_path / "cache")
    for _ in range(2):
        again = load_covtype_from(tmp_path / "data", tmp_path / "cache")
        np.testing.assert_array_equal(again["X"], first["X"])
    assert len(reads) == 1
    with np.load(tmp_path / "cache" / "covtype.npz") as npz:
        fingerprint = json.loads(str(npz["source_fingerprint"]))
    path = str((tmp_path / "data" / "covtype.data").resolve())
    stat = os.stat(path)
    assert fingerprint == {
        "cache_version": files.CACHE_VERSION, "params": {},
        "source": "files",
        "files": [["data", path, stat.st_size, stat.st_mtime_ns]]}


def test_cache_rebuilt_when_a_file_changes_with_an_older_time(
        tmp_path, monkeypatch):
    """An edit that leaves the file older than the cache (a restored
    backup, ``cp -p``/``rsync -a``/``tar x`` of another version) used to be
    missed: the cache was rebuilt only when a file was newer than it."""
    reads = count_reads(monkeypatch, covtype, "read_covtype_folder")
    data = tmp_path / "covtype.data"
    text = covtype_csv(20, 0)[0]
    write(data, text)
    old = load_covtype_from(tmp_path, tmp_path / "cache")
    cache_time = (tmp_path / "cache" / "covtype.npz").stat().st_mtime
    # the same size (the first row's class 1 -> 2), dated a day before
    # the cache
    end = text.index("\n")
    assert text[end - 2:end] == ",1"
    write(data, text[:end - 1] + "2" + text[end:])
    assert data.stat().st_size == len(text)
    os.utime(data, (cache_time - 86400, cache_time - 86400))
    new = load_covtype_from(tmp_path, tmp_path / "cache")
    assert len(reads) == 2
    assert old["y"][0] == 0 and new["y"][0] == 1
    np.testing.assert_array_equal(new["y"][1:], old["y"][1:])
    # and the rebuilt cache now serves the new file
    load_covtype_from(tmp_path, tmp_path / "cache")
    assert len(reads) == 2


def test_cache_rebuilt_when_data_paths_points_elsewhere(tmp_path,
                                                        monkeypatch):
    """Two folders with the same file names: each switch of ``data_paths``
    reloads, even when the other folder's files carry older timestamps."""
    reads = count_reads(monkeypatch, covtype, "read_covtype_folder")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    write(a / "covtype.data", covtype_csv(20, 0)[0])
    write(b / "covtype.data", covtype_csv(20, 1)[0])
    os.utime(b / "covtype.data", (1e9, 1e9))        # from 2001
    cache = tmp_path / "cache"
    from_a = load_covtype_from(a, cache)
    from_b = load_covtype_from(b, cache)
    assert len(reads) == 2
    assert not np.array_equal(from_a["X"], from_b["X"])
    np.testing.assert_array_equal(from_b["X"], covtype_csv(20, 1)[1])
    load_covtype_from(b, cache)
    assert len(reads) == 2
    # a copy with preserved timestamps (cp -p) is another source too
    c = tmp_path / "c"
    c.mkdir()
    shutil.copy2(a / "covtype.data", c / "covtype.data")
    np.testing.assert_array_equal(load_covtype_from(c, cache)["X"],
                                  from_a["X"])
    assert len(reads) == 3
    # a symlinked folder is keyed by the folder it resolves to
    (tmp_path / "link").symlink_to(c)
    load_covtype_from(tmp_path / "link", cache)
    assert len(reads) == 3


def test_download_cache_serves_offline_runs(tmp_path, monkeypatch):
    """benchopt prepare once (download), run many times offline; local
    files, once given, take over."""
    reads = count_reads(monkeypatch, covtype, "read_covtype_folder")
    text, X, y = covtype_csv(30, 0)
    downloads = []

    def download():
        downloads.append(1)
        return dict(X=covtype.compact_integers(X), y=(y - 1).astype(np.int8))
    cache = tmp_path / "cache"
    covtype.load_covtype([tmp_path / "none"], cache_dir=cache,
                         download=download)
    with np.load(cache / "covtype.npz") as npz:
        assert json.loads(str(npz["source_fingerprint"]))["source"] == \
            "download:scikit-learn:covtype"
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # used silently
        out = covtype.load_covtype([tmp_path / "none"], cache_dir=cache,
                                   download=False)
    np.testing.assert_array_equal(out["X"], X)
    assert len(downloads) == 1 and not reads
    # local files appear: they are read, and cached in place of the download
    write(tmp_path / "covtype.data", covtype_csv(30, 5)[0])
    out = load_covtype_from(tmp_path, cache)
    np.testing.assert_array_equal(out["X"], covtype_csv(30, 5)[1])
    assert len(reads) == 1
    # files removed after `benchopt prepare`: the cache is still used,
    # saying what it was built from
    (tmp_path / "covtype.data").unlink()
    with pytest.warns(UserWarning, match=f"built from the files in "
                      f"{tmp_path.resolve()}, which are not found now"):
        out = load_covtype_from(tmp_path, cache)
    np.testing.assert_array_equal(out["X"], covtype_csv(30, 5)[1])
    assert len(reads) == 1 and len(downloads) == 1


def test_cache_of_other_loader_parameters_is_rebuilt(tmp_path):
    """The loader's parameters are part of the fingerprint, and a cache of
    the previous layout (no fingerprint) is rebuilt from local files but
    still used alone."""
    arrays = dict(a=np.arange(3))
    cache = tmp_path / "x.npz"
    calls = []

    def fetch():
        calls.append(1)
        return arrays

    def load(params, local=None, fetch_=fetch):
        return files.load_arrays(cache, local, lambda f: arrays, fetch_,
                                 lambda a, s: None, str, params=params)
    load({"n_features": 22})
    load({"n_features": 22}, fetch_=None)
    assert len(calls) == 1
    load({"n_features": 23})
    assert len(calls) == 2
    # a cache written before fingerprints existed
    with open(cache, "wb") as f:
        np.savez(f, cache_version=np.int64(files.CACHE_VERSION), a=[7])
    assert load({}, fetch_=None)["a"].tolist() == [7]
    local = tmp_path / "local.txt"
    local.write_text("x")
    assert load({}, local={"data": local})["a"].tolist() == [0, 1, 2]


# --------------------------------------------------------------------------
# killed cache writers: SIGTERM and stale temporary files
# --------------------------------------------------------------------------

WRITER = """
import sys, time
import numpy as np
sys.path.insert(0, {root!r})
from benchmark_utils.data import files

def slow_savez(f, **arrays):
    f.write(b"PK half an archive")
    f.flush()
    open({ready!r}, "w").close()
    time.sleep(120)

np.savez = slow_savez
files.write_cache({cache!r}, dict(a=np.zeros(3)))
"""


def start_writer(tmp_path, cache):
    """A process blocked in the middle of writing the cache ``cache``."""
    ready = tmp_path / "ready"
    code = WRITER.format(root=bench_helpers.ROOT, ready=str(ready),
                         cache=str(cache))
    proc = subprocess.Popen([sys.executable, "-c", code],
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the writer did not start"
        time.sleep(0.05)
    return proc


def parts(folder):
    return sorted(p.name for p in folder.iterdir()
                  if p.name.endswith(".part"))


def test_sigterm_during_a_cache_write_leaves_no_part(tmp_path):
    cache = tmp_path / "cache" / "covtype.npz"
    proc = start_writer(tmp_path, cache)
    try:
        (part,) = parts(cache.parent)
        host, pid = part.split(".")[3:5]
        assert part.startswith(".covtype.npz.") and int(pid) == proc.pid
        # a live writer's file is not stale
        assert files.clean_stale_parts(cache) == []
        assert parts(cache.parent) == [part]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()
    assert os.listdir(cache.parent) == []
    # the default handler is back once the write is over
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_sigterm_handler_only_while_writing_and_not_over_anothers(
        tmp_path, monkeypatch):
    seen = []
    with files.atomic_file(tmp_path / "a.bin") as tmp:
        seen.append(signal.getsignal(signal.SIGTERM))
        tmp.write_bytes(b"x")
    assert seen[0] not in (signal.SIG_DFL, None)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    # someone else's handler is left in place

    def mine(signum, frame):
        pass
    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with files.atomic_file(tmp_path / "b.bin") as tmp:
            assert signal.getsignal(signal.SIGTERM) is mine
            tmp.write_bytes(b"x")
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
    # and no handler is installed from another thread
    out = []

    def write_in_thread():
        with files.atomic_file(tmp_path / "c.bin") as tmp:
            out.append(signal.getsignal(signal.SIGTERM))
            tmp.write_bytes(b"x")
    thread = threading.Thread(target=write_in_thread)
    thread.start()
    thread.join()
    assert out == [signal.SIG_DFL]
    assert sorted(os.listdir(tmp_path)) == ["a.bin", "b.bin", "c.bin"]


def test_stale_parts_are_removed_by_the_next_load(tmp_path):
    """SIGKILL cannot be caught: the writer's file stays until the next
    load of that cache, which removes it (its writer is dead)."""
    cache_dir = tmp_path / "cache"
    proc = start_writer(tmp_path, cache_dir / "covtype.npz")
    proc.kill()
    proc.wait()
    (killed,) = parts(cache_dir)
    assert f".{proc.pid}." in killed
    # a live writer's file (this process), one of another cache, an old
    # unnamed one (older version, or another host) and a recent one
    live = f".covtype.npz.{files._HOST}.{os.getpid()}.abcd1234.part"
    other = f".ijcnn1.npz.{files._HOST}.{proc.pid}.abcd1234.part"
    old = ".covtype.npz.k3j2h1g0.part"
    recent = ".covtype.npz.z9y8x7w6.part"
    for name in (live, other, old, recent):
        (cache_dir / name).write_bytes(b"partial")
    past = time.time() - files.STALE_PART_AGE - 60
    os.utime(cache_dir / old, (past, past))
    write(tmp_path / "covtype.data", covtype_csv(10, 0)[0])
    load_covtype_from(tmp_path, cache_dir)
    assert parts(cache_dir) == sorted([live, other, recent])
    assert (cache_dir / "covtype.npz").is_file()
    # once old enough, even a file named after a live process goes
    os.utime(cache_dir / live, (past, past))
    assert files.clean_stale_parts(cache_dir / "covtype.npz") == [
        cache_dir / live]
    assert parts(cache_dir) == sorted([other, recent])


# --------------------------------------------------------------------------
# unreadable files: permissions, not corruption
# --------------------------------------------------------------------------

def deny(monkeypatch, denied):
    """Make opening ``denied`` raise PermissionError, as a file of mode 000
    does for a user other than root (the tests run as root)."""
    original = files._open

    def guarded(path, mode):
        if Path(path) == Path(denied):
            raise PermissionError(13, "Permission denied", str(path))
        return original(path, mode)
    monkeypatch.setattr(files, "_open", guarded)


def check_permission_error(error, path):
    message = str(error)
    assert isinstance(error, DataPermissionError)
    assert isinstance(error, PermissionError)
    assert str(path) in message and "permission denied" in message
    assert f"chmod a+r {path}" in message and "owner" in message
    assert "corrupt" not in message.replace("not reported corrupt", "")
    assert error.__cause__ is None and error.__suppress_context__


@pytest.mark.parametrize("loader", ["mnist", "ijcnn1", "covtype"])
def test_unreadable_file_says_permission_denied(tmp_path, monkeypatch,
                                                loader):
    if loader == "mnist":
        write_mnist(tmp_path)
        denied = tmp_path / "t10k-images-idx3-ubyte"

        def load():
            return mnist.load_mnist("mnist", [tmp_path],
                                    cache_dir=tmp_path / "cache",
                                    download=False)
    elif loader == "ijcnn1":
        write(tmp_path / "ijcnn1", libsvm_text(5, 0)[0])
        denied = write(tmp_path / "ijcnn1.t.bz2", libsvm_text(5, 1)[0])

        def load():
            return ijcnn1.load_ijcnn1([tmp_path],
                                      cache_dir=tmp_path / "cache",
                                      download=False)
    else:
        denied = write(tmp_path / "covtype.data.gz", covtype_csv(5, 0)[0])

        def load():
            return load_covtype_from(tmp_path, tmp_path / "cache")
    deny(monkeypatch, denied)
    with pytest.raises(DataPermissionError) as e:
        load()
    check_permission_error(e.value, denied)
    assert not (tmp_path / "cache").exists() and not leftovers(tmp_path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads a file of mode 000")
def test_chmod_000_says_permission_denied(tmp_path):
    path = write(tmp_path / "covtype.data", covtype_csv(5, 0)[0])
    path.chmod(0)
    try:
        with pytest.raises(DataPermissionError) as e:
            load_covtype_from(tmp_path, None)
        check_permission_error(e.value, path)
    finally:
        path.chmod(0o644)


def test_unreadable_cache_is_left_alone(tmp_path, monkeypatch):
    write(tmp_path / "covtype.data", covtype_csv(10, 0)[0])
    load_covtype_from(tmp_path, tmp_path / "cache")
    cache = tmp_path / "cache" / "covtype.npz"

    def denied(path, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr(files.np, "load", denied)
    with pytest.warns(UserWarning, match=f"Ignoring the cache {cache}: "
                      f"{cache}: permission denied"):
        out = load_covtype_from(tmp_path, tmp_path / "cache")
    assert out["X"].shape == (10, 54) and cache.is_file()


def test_failed_download_is_not_chained(tmp_path):
    """benchopt prints the whole chain: the download's own traceback
    (requests, urllib3, socket) buried the message; the reason stays in
    the message."""
    def offline():
        try:
            raise OSError("[Errno -3] Temporary failure in name resolution")
        except OSError as e:
            raise ConnectionError("Max retries exceeded") from e
    with pytest.raises(DataNotFoundError) as e:
        covtype.load_covtype([tmp_path], cache_dir=tmp_path / "cache",
                             download=offline)
    assert e.value.__cause__ is None and e.value.__suppress_context__
    assert "Download failed: ConnectionError: Max retries exceeded" in str(
        e.value)
    assert "'covtype'" in str(e.value)


# --------------------------------------------------------------------------
# through benchopt
# --------------------------------------------------------------------------

def check_contract(data, task, sizes, n_features, n_classes=None, key=None):
    """``key``: the ``tuning_key`` a benchopt dataset adds (its name in
    benchmark_utils/tuned.py); the loaders' own dicts have none."""
    assert data["task"] == task
    assert data.get("tuning_key") == key
    assert set(data) - {"tuning_key"} == (set(SPLITS) | {"task"}
                                          | CONTRACT[task])
    for part, n in zip(("train", "val", "test"), sizes):
        X, y = data[f"X_{part}"], data[f"y_{part}"]
        assert X.shape == (n, n_features) and y.shape == (n,)
        assert X.dtype == y.dtype == np.float64
        assert X.flags.c_contiguous and y.flags.c_contiguous
        values = set(np.unique(y).tolist())
        if task == "logreg":
            assert values <= {-1.0, 1.0}
        else:
            assert values <= set(map(float, range(n_classes)))
    if n_classes is not None:
        assert data["n_classes"] == n_classes
    if task == "datacleaning":
        assert data["y_train_clean"].dtype == np.float64


def assert_other_split(data, other_repetition):
    """Another repetition draws another split: the same sizes, other
    validation samples."""
    other = other_repetition.get_data()
    for key in SPLITS:
        assert data[key].shape == other[key].shape, key
    assert not np.array_equal(data["X_val"], other["X_val"])


@pytest.mark.parametrize("name, task, sizes, n_features, n_classes", [
    ("digits", "datacleaning", small.DIGITS_SIZES, 64, 10),
    ("breast_cancer", "logreg", small.BREAST_CANCER_SIZES, 30, None),
    ("wine", "multilogreg", small.WINE_SIZES, 13, 3),
])
def test_offline_datasets(name, task, sizes, n_features, n_classes):
    ds = bench_helpers.dataset(name)
    data = ds.get_data()
    check_contract(data, task, sizes, n_features, n_classes, key=name)
    np.testing.assert_allclose(data["X_train"].mean(0), 0, atol=1e-10)
    again = bench_helpers.dataset(name).get_data()
    for key in SPLITS:
        np.testing.assert_array_equal(data[key], again[key])
    assert_other_split(data, bench_helpers.dataset(name, repetition=1))
    if task == "datacleaning":
        changed = np.mean(data["y_train"] != data["y_train_clean"])
        assert abs(changed - 0.5 * 0.9) < 0.06
    if task == "logreg":
        assert set(np.unique(data["y_train"])) == {-1.0, 1.0}


def test_download_datasets_with_local_files(tmp_path, monkeypatch):
    """mnist / ijcnn1 / covtype through benchopt, their data_paths folders
    pointed at fixture files (data_home = tmp_path)."""
    ds = bench_helpers.dataset("mnist", n_train=16, n_val=8, n_test=10)
    paths = inspect.getmodule(type(ds)).paths

    def get_data_path(key=None):
        return tmp_path if key is None else tmp_path / key
    monkeypatch.setattr(paths, "get_data_path", get_data_path)
    monkeypatch.setattr(ijcnn1, "_libsvmdata_cached", lambda: False)
    classes = {d.name: d for d in bench_helpers.benchmark().get_datasets()}
    for name in ("mnist", "ijcnn1", "covtype"):
        assert classes[name].requires_download
        assert not classes[name].local_data_available()
    with pytest.raises(DataNotFoundError, match="'mnist'"):
        ds.get_data()           # download attempted: the no_network stub

    write_mnist(tmp_path / "mnist")
    assert classes["mnist"].local_data_available(variant="mnist")
    data = ds.get_data()
    check_contract(data, "datacleaning", (16, 8, 10), 784, 10, key="mnist")
    assert_other_split(data, bench_helpers.dataset(
        "mnist", repetition=1, n_train=16, n_val=8, n_test=10))
    assert (tmp_path / "cache" / "mnist.npz").is_file()

    (tmp_path / "ijcnn1").mkdir()
    write(tmp_path / "ijcnn1" / "ijcnn1.bz2", libsvm_text(40, 0)[0])
    write(tmp_path / "ijcnn1" / "ijcnn1.t", libsvm_text(25, 1)[0])
    assert classes["ijcnn1"].local_data_available()
    data = bench_helpers.dataset("ijcnn1", n_train=None, n_val=20).get_data()
    check_contract(data, "logreg", (40, 20, 20), 22, key="ijcnn1")
    assert_other_split(data, bench_helpers.dataset(
        "ijcnn1", repetition=1, n_train=None, n_val=20))

    (tmp_path / "covtype").mkdir()
    write(tmp_path / "covtype" / "covtype.data.gz", covtype_csv(60, 0)[0])
    assert classes["covtype"].local_data_available()
    data = bench_helpers.dataset("covtype", n_train=30, n_val=15, n_test=15).get_data()
    check_contract(data, "multilogreg", (30, 15, 15), 54, 7, key="covtype")
    assert_other_split(data, bench_helpers.dataset(
        "covtype", repetition=1, n_train=30, n_val=15, n_test=15))
    assert sorted(os.listdir(tmp_path / "cache")) == [
        "covtype.npz", "ijcnn1.npz", "mnist.npz"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bench_helpers.dataset("covtype", n_train=30, n_val=15, n_test=15).get_data()
