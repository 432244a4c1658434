import numpy as np
import pytest

from cotbook import tasks
from cotbook.simulation import pretrain


def test_sample_tasks_shapes_and_noiseless_labels(rng):
    X, y, w = tasks.sample_tasks(D=5, L=7, n_tasks=3, sigma2=0.0, rng=rng)
    assert X.shape == (3, 5, 7) and y.shape == (3, 7) and w.shape == (3, 5)
    np.testing.assert_allclose(y, np.einsum("ndl,nd->nl", X, w), rtol=0, atol=1e-14)


def test_sample_tasks_scales():
    X, y, w = tasks.sample_tasks(D=50, L=40, n_tasks=200, sigma2=0.25, rng=np.random.default_rng(1))
    # x ~ N(0, I/D): variance of an entry is 1/D; w ~ N(0, I); noise variance sigma2.
    assert abs(X.var() * 50 - 1) < 0.02
    assert abs(w.var() - 1) < 0.05
    noise = y - np.einsum("ndl,nd->nl", X, w)
    assert abs(noise.var() / 0.25 - 1) < 0.05


def test_samplers_are_deterministic():
    a = tasks.sample_features(4, 6, 5, 0.1, np.random.default_rng(3))
    b = tasks.sample_features(4, 6, 5, 0.1, np.random.default_rng(3))
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("sigma2", [0.0, 0.5])
def test_fast_sampler_matches_literal_and_exact_moments(sigma2):
    """The O(D+L) sampler of v = (D/L) X y has the literal sampler's distribution.

    Exact finite-size moments: E[w.v]/D = 1 and E|v|^2/D = 1 + (D + 1 + sigma2 D)/L.
    """
    D, L, n = 6, 9, 40000
    rng = np.random.default_rng(11)
    X, y, w_lit = tasks.sample_tasks(D, L, n, sigma2, rng)
    v_lit = pretrain.features(X, y)
    w_fast, v_fast = tasks.sample_features(D, L, n, sigma2, rng)
    exact_vv = 1 + (D + 1 + sigma2 * D) / L
    for w, v in ((w_lit, v_lit), (w_fast, v_fast)):
        wv, vv = np.sum(w * v, 1) / D, np.sum(v * v, 1) / D
        assert abs(wv.mean() - 1) < 5 * wv.std() / np.sqrt(n)
        assert abs(vv.mean() - exact_vv) < 5 * vv.std() / np.sqrt(n)
    # Beyond the means: the spread of w.v and the alignment of v with w agree between samplers.
    for stat in (
        lambda w, v: np.sum(w * v, 1) / D,
        lambda w, v: np.sum(w * v, 1) / np.linalg.norm(w, axis=1) / np.linalg.norm(v, axis=1),
        lambda w, v: v[:, 0] ** 2,
    ):
        a, b = stat(w_lit, v_lit), stat(w_fast, v_fast)
        se = np.sqrt(a.var() / n + b.var() / n)
        assert abs(a.mean() - b.mean()) < 5 * se
        assert abs(a.std() - b.std()) < 0.03 * a.std()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(D=0), "D must be an integer >= 1"),
        (dict(L=2.5), "L must be an integer >= 1"),
        (dict(n_tasks=-1), "n_tasks must be an integer >= 1"),
        (dict(sigma2=-0.1), "sigma2 must be a finite number >= 0"),
        (dict(sigma2=float("nan")), "sigma2 must be a finite number >= 0"),
        (dict(rng=0), "rng must be a numpy.random.Generator"),
    ],
)
@pytest.mark.parametrize("sampler", [tasks.sample_tasks, tasks.sample_features])
def test_bad_input(sampler, kwargs, message):
    args = dict(D=3, L=4, n_tasks=2, sigma2=0.0, rng=np.random.default_rng(0)) | kwargs
    with pytest.raises(ValueError, match=message):
        sampler(**args)
