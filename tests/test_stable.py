"""The scalar pieces of ``problems.stable`` against closed forms written
without cancellation, from the far negative to the far positive tail."""
import math

import numpy as np
import pytest

from benchmark_utils.problems.stable import logistic_d1_d2, sigmoid, \
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
