"""The scalar pieces of ``tasks.stable`` against closed forms written
without cancellation, from the far negative to the far positive tail."""
import math

import numpy as np
import pytest

from benchmark_utils.tasks.stable import logistic_d1_d2, sigmoid, \
    softmax_row


@pytest.mark.parametrize("t", [-800.0, -40.0, -3.5, -1e-9, 0.0, 1e-9, 2.0,
                               37.0, 800.0])
def test_logistic_pieces_match_their_closed_forms(t):
    """phi'(t) = -1 / (1 + e^t), phi''(t) = e^-|t| / (1 + e^-|t|)^2,
    sigma(t) = 1 / (1 + e^-t), each written without cancellation."""
    d1, d2 = logistic_d1_d2(t)
    e = math.exp(-abs(t))
    want_d1 = -1.0 / (1.0 + math.exp(t)) if t <= 0 else -e / (1.0 + e)
    want_sigma = 1.0 / (1.0 + e) if t >= 0 else e / (1.0 + e)
    assert d1 == pytest.approx(want_d1, rel=1e-15, abs=1e-300)
    assert d2 == pytest.approx(e / (1.0 + e) ** 2, rel=1e-14, abs=1e-300)
    assert sigmoid(t) == pytest.approx(want_sigma, rel=1e-15, abs=1e-300)


def test_softmax_row_matches_numpy():
    rng = np.random.default_rng(3)
    K = rng.standard_normal((5, 12)) * 30.0
    K[2, :7] = [-900.0, 0.0, 3.0, 800.0, 799.0, -1e5, 12.0]
    want = K.copy()
    for t in range(5):
        u = want[t, 2:9] - want[t, 2:9].max()
        want[t, 2:9] = np.exp(u) / np.exp(u).sum()
        softmax_row(K, t, 2, 7)
    np.testing.assert_allclose(K, want, rtol=1e-14, atol=1e-300)


@pytest.fixture(scope="module")
def exp_args():
    """x <= 0: the softmax's range (exponential and uniform), the
    subnormal tail, the edges and a grid; x > 0: the regularisation
    weights' range, up to the overflow."""
    rng = np.random.default_rng(0)
    return np.concatenate([
        -rng.exponential(3.0, 200_000), -rng.uniform(0, 746, 100_000),
        -rng.uniform(700, 746, 20_000), -np.linspace(0, 1, 10_001),
        [0.0, -0.0, -1e-300, -5e-324, -np.log(2) / 2, -708.39, -708.4,
         -709.78, -744.4, -745.13, -745.2, -746.0, -800.0, -1e308],
        rng.exponential(3.0, 100_000), rng.uniform(0, 709.78, 100_000),
        np.linspace(0, 1, 10_001),
        [1e-300, np.log(2) / 2, 708.39, 709.78, 709.782712893384]])


def test_exp_vec_is_within_one_ulp_of_glibc(exp_args):
    """``exp_vec`` against numpy's exp (glibc): within 1 ulp where the
    result is normal, within the smallest subnormal below, 0 where e^x
    rounds to 0, and mostly bit-equal."""
    from numba import njit
    from benchmark_utils.tasks.stable import exp_vec

    @njit
    def apply(a, out):
        for i in range(a.size):
            out[i] = exp_vec(a[i])
    got = np.empty_like(exp_args)
    apply(exp_args, got)
    want = np.exp(exp_args)
    assert np.all(np.isfinite(want))
    normal = want >= np.finfo(np.float64).tiny
    ulps = np.abs(got[normal] - want[normal]) / np.spacing(want[normal])
    assert ulps.max() <= 1.0
    assert np.mean(ulps == 0.0) > 0.85
    assert np.abs(got[~normal] - want[~normal]).max() <= 5e-324
    assert np.all(got[exp_args == 0.0] == 1.0)
    assert got[exp_args <= -746.0].tolist() == [0.0, 0.0, 0.0]


def test_exp_vec_keeps_nan_and_overflows_like_glibc():
    from numba import njit
    from benchmark_utils.tasks.stable import exp_vec

    @njit
    def one(x):
        return exp_vec(x)
    assert math.isnan(one(math.nan))
    assert one(-math.inf) == 0.0
    for x in (709.79, 710.0, 800.0, 1e308, math.inf):
        assert one(x) == math.inf


@pytest.mark.parametrize("count", [64, 5, 130])
def test_batch_logistic_is_logistic_d1_d2_up_to_the_exp(count):
    """``logreg.batch_logistic`` (the samples as vector lanes, tiles of 64)
    gives ``b phi'(b m)`` and ``phi''(b m) v`` as ``logistic_d1_d2`` does,
    within 2 ulp (the exponential within 1), on margins up to +-800."""
    from benchmark_utils.tasks.logreg import batch_logistic
    rng = np.random.default_rng(count)
    K = rng.standard_normal((count, 2)) * 5.0
    K[0, 0], K[1, 0], K[2, 0], K[3, 0] = 800.0, -800.0, 0.0, -0.0
    labels = np.where(rng.random(2 * count + 3) < 0.5, -1.0, 1.0)
    idx = rng.permutation(2 * count + 3).astype(np.int64)
    want = K.copy()
    for t in range(count):
        b = labels[idx[3 + t]]
        d1, d2 = logistic_d1_d2(b * K[t, 0])
        want[t] = b * d1, d2 * K[t, 1]
    for with_d2 in (True, False):
        got = K.copy()
        batch_logistic(got, count, labels, idx, 3, with_d2)
        np.testing.assert_allclose(got[:, 0], want[:, 0], rtol=5e-16,
                                   atol=0)
        np.testing.assert_allclose(got[:, 1],
                                   want[:, 1] if with_d2 else K[:, 1],
                                   rtol=5e-16, atol=0)


@pytest.mark.parametrize("C, count", [(7, 64), (10, 64), (7, 256), (3, 5),
                                      (2, 130), (16, 9), (17, 40)])
def test_batch_softmax_is_the_row_softmax_up_to_the_exp(C, count):
    """The batch softmax (samples as vector lanes, tiles of 64, rows one
    by one when C > 16 or count < 8) equals ``softmax_row`` within 4 ulp
    (each exponential within 1, their sum within about 1 relative, then
    the division), on logits up to +-800 and on equal logits; the other
    columns are untouched."""
    from benchmark_utils.tasks.softmax_ce import batch_softmax
    rng = np.random.default_rng(C * 1000 + count)
    K = rng.standard_normal((count + 3, C + 4)) * 20.0
    K[0, 2:2 + C] = 0.0  # all equal
    K[1, 2] = 800.0
    K[min(2, count - 1), 2:2 + C] = -800.0 + rng.standard_normal(C)
    want = K.copy()
    for t in range(count):
        softmax_row(want, t, 2, C)
    got = K.copy()
    batch_softmax(got, count, 2, C)
    block = slice(2, 2 + C)
    ulps = (np.abs(got[:count, block] - want[:count, block])
            / np.spacing(np.abs(want[:count, block])))
    assert ulps.max() <= 4.0
    np.testing.assert_array_equal(got[count:], K[count:])  # rows left
    np.testing.assert_array_equal(got[:, :2], K[:, :2])  # columns left
    np.testing.assert_array_equal(got[:, 2 + C:], K[:, 2 + C:])
    np.testing.assert_allclose(got[:count, block].sum(axis=1), 1.0,
                               rtol=1e-15)
    np.testing.assert_allclose(got[0, block], 1.0 / C, rtol=1e-15)
