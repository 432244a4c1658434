"""Tests of cotbook.theory.ridge._loop_pole against functions whose answers are known in closed
form.

The fit of a pole off the check's differences; the share of a pole whose ``[x^t]`` is a
power, within its bound, also with its data perturbed by their stated errors; the saddle of a
function with a known one; the continuation between two circles, with and without a
singularity between them.
"""

import numpy as np
import pytest

from cotbook.theory.ridge import _loop_pole as lp
from cotbook.theory.ridge import _loop_sums
from cotbook.theory.ridge._nodes import circle as _circle


def _differences(d0, y):
    """The check's differences of a simple pole at ``y`` whose ``d_0`` is given:
    ``d_m = d_0 y^-m``."""
    return np.stack([d0, d0 / y, d0 / y**2], axis=1)


def test_fit_finds_a_simple_pole_and_refuses_two():
    """Rows with one pole give its ``y_p`` to rounding and a miss at rounding level; rows
    whose differences are below the check are no pole; two poles in one row leave a miss;
    differences that fell a hundredfold since the loop at half its nodes are its quadrature's
    error, not a pole."""
    x = _circle(0.9, 64)
    y = 1.3 / (1 - 0.4 * x)
    d = _differences(0.7 + 0.1 * x, y)
    d[:8] = 1e-14  # rows the loop reproduces: below the check
    d[8:16] += _differences(np.full(8, 0.3), np.full(8, -2.0))  # a second pole
    scale = np.ones_like(d.real)
    found = lp.fit(d, d * (1 + 1e-4), scale, 1e-11)
    one = slice(16, None)
    assert not found.pole[:8].any() and found.pole[one].all()
    np.testing.assert_allclose(found.y[one], y[one], rtol=1e-14)
    assert found.miss[one].max() < 1e-15 and found.miss[:8].max() < 1e-11
    assert found.miss[8:16].min() > 1e-3  # the check fails there
    # the quadrature's error looks like a pole, but falls with each doubling: no pole
    quadrature = lp.fit(d, 200 * d, scale, 1e-11)
    assert not quadrature.pole.any() and quadrature.miss[one].min() > 1e-3


def test_share_of_a_pole_whose_coefficients_are_powers():
    """``d_0 = a``, ``x y_p = beta / (1 + gamma x)``: ``[x^0] d_0 (x y_p)^-t = a beta^-t``
    (a growing share, as a growing curve's).  The share matches at every depth within its
    bound, which is at rounding level; with the data perturbed by their stated errors it still
    does (the bound counts them)."""
    a, beta, gamma, t = 1.7, 0.98, 0.01, np.arange(201)
    x = _circle(0.99, 1024)
    d = _differences(np.full(len(x), a, complex), beta / (x * (1 + gamma * x)))
    exact = a * beta ** (-1.0 * t)
    got = lp.share(x, d, np.zeros_like(d.real), t)
    assert np.all(np.abs(got.P - exact) <= got.error)
    assert np.all(got.error <= 1e-12 * exact)
    rng = np.random.default_rng(3)
    dd = 1e-9 * np.abs(d)
    bent = d + dd * np.exp(2j * np.pi * rng.random(d.shape))
    rough = lp.share(x, bent, dd, t)
    assert np.all(np.abs(rough.P - exact) <= rough.error)
    assert np.abs(rough.P - exact).max() > 1e-10 * exact.max()  # the perturbation is seen
    assert lp.share(x, bent, 0.01 * np.abs(d), t) is None  # y_p known too poorly
    with pytest.raises(ValueError, match="4 t_max"):
        lp.share(x[:512], d[:512], dd[:512], np.arange(200))


def test_saddle_of_a_known_function():
    """``x y_p(x) = 1/(x + s^2/x + 5s/2)`` (poles at ``-s/2`` and ``-2s``): along the positive
    axis its modulus is largest at ``x = s``, on a circle of radius ``r0 > s`` least at
    ``x = r0``; the saddle's radius is found to the search grid's step."""
    r0 = 0.999
    for s in (0.985, 0.99, 0.995):
        x = _circle(r0, 4096)
        d = _differences(np.ones(len(x), complex), 1 / ((x + s / 2) * (x + 2 * s)))
        assert abs(lp.saddle(x, d) - s) <= r0 * lp._INWARD / 40


def test_continuation_between_two_circles():
    """An analytic ``d`` on two circles continues from one to the other; one with a pole
    between them does not."""
    x, xs = _circle(0.999, 4096), _circle(0.99, 8192)
    for d0, ok in ((lambda z: 1 + 0.2 * z, True), (lambda z: 1 / (z - 0.995), False)):
        yp = lambda z: 1.2 / (1 - 0.3 * z)  # noqa: E731
        d, ds = _differences(d0(x), yp(x)), _differences(d0(xs), yp(xs))
        assert lp.continues(x, d, xs, ds) is ok


def test_the_half_rule_of_the_circle_fft():
    """``_fft`` reads ``[x^j] r0^j`` off the circle's nodes, and off every second node (the rule
    on n/2 nodes, offset as they are, from the same FFT): for ``1/(1 - q x)`` at ``r0`` they
    give ``rho^j``, ``rho = q r0``, times ``1/(1 + rho^n)`` and ``1/(1 - i rho^(n/2))`` (the
    nodes' offset, half a step of the n, turns each aliased term), and the two rules'
    difference (with rounding) exceeds the full rule's error."""
    n, r0 = 64, 0.9
    x = _circle(r0, n)
    j = np.arange(n // 2)
    for q in (0.5, 0.98):
        rho = q * r0
        column = (1 / (1 - q * x))[:, None]
        full, half = (c[:, 0] for c in _loop_sums._fft(column, n // 2))
        np.testing.assert_allclose(full, rho**j / (1 + rho**n), rtol=1e-13, atol=1e-16)
        m = n // 2
        np.testing.assert_allclose(half, rho**j / (1 - 1j * rho**m), rtol=1e-13, atol=1e-16)
        rounding = 2 * np.finfo(float).eps / 2 * np.abs(column).max()  # as in _sums' bound
        assert np.all(np.abs(full - rho**j) <= np.abs(full - half) + rounding)
