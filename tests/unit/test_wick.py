"""The exact test-prompt average (cotbook.wick) against three independent computations: the
one-step closed form, Monte Carlo over test designs for a fixed A, and the tau -> infinity
finite-D correction of cotbook.theory.finite_d (a separate derivation, through the Wishart
moments of a scalar A)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from cotbook import wick
from cotbook.theory import finite_d


def test_one_step_is_the_closed_form():
    avg = wick.prompt_average(1)
    alpha, D = Fraction(3, 2), 8
    phi = {"A": Fraction(2, 7), "AT": Fraction(5, 11)}
    expected = 1 - 2 * phi["A"] + (1 + 1 / alpha + 1 / (alpha * D)) * phi["AT"]
    assert wick.evaluate(avg, alpha, D, phi) == expected


def test_words_are_canonical_under_rotation_and_transpose():
    assert wick.canonical("TAA") == wick.canonical("AAT") == wick.canonical("ATT"[::-1]) == "AAT"
    assert wick.canonical("TTAA") == "AATT"
    assert wick.canonical("T") == "A"
    with pytest.raises(ValueError, match="word"):
        wick.canonical("AB")


def test_the_constant_term_and_the_counts():
    # E_0 = 1 exactly; at t = 3 there are 63 products of words (a regression guard on the
    # enumeration, with the depth's pairings: sum over p, q <= 3 of (2(p+q) - 1)!!)
    assert wick.prompt_average(0) == {(): {(0, 0): 1}}
    assert len(wick.prompt_average(2)) == 14
    assert len(wick.prompt_average(3)) == 63
    with pytest.raises(ValueError, match="t must be an integer in \\[0, 3\\]"):
        wick.prompt_average(4)


@pytest.mark.parametrize("t", [1, 2, 3])
def test_monte_carlo_over_test_designs(t):
    """A fixed A at D = 5, L = 7: the exact average against 200 000 sampled designs."""
    rng = np.random.default_rng(65)
    D, L = 5, 7
    A = 0.3 * np.eye(D) + 0.15 * rng.standard_normal((D, D))
    exact = wick.averaged_errors(A, L, 3)[t]
    X = rng.standard_normal((200_000, D, L)) / np.sqrt(D)
    step = np.eye(D) - (D / L) * A @ X @ np.swapaxes(X, 1, 2)
    power = np.linalg.matrix_power(step, t)
    samples = np.einsum("nij,nij->n", power, power) / D
    z = (samples.mean() - exact) / (samples.std() / math.sqrt(samples.size))
    assert abs(z) < 4, (exact, samples.mean(), z)
    # the test can fail: without its 1/D terms the average is > 10 standard errors off
    leading = {
        words: {k: v for k, v in coefficients.items() if k[1] == 0}
        for words, coefficients in wick.prompt_average(t).items()
    }
    phi = wick.word_traces(A, {w for words in leading for w in words})
    off = abs(wick.evaluate(leading, L / D, D, phi) - samples.mean())
    assert off > 10 * samples.std() / math.sqrt(samples.size)


def _scalar_curve(t, alpha, sigma2, D):
    """E_t(D) of A = I/(c + 1/L), the pretrained matrix as tau -> infinity (exact rationals);
    ``D = None``: the D -> infinity limit (only the D^0 terms, a = 1/c)."""
    c = 1 + (1 + sigma2) / alpha
    a = 1 / c if D is None else 1 / (c + 1 / (alpha * D))
    total = Fraction(0)
    for words, coefficients in wick.prompt_average(t).items():
        weight = sum(
            v * alpha**i * (Fraction(1, D**j) if D else (j == 0))
            for (i, j), v in coefficients.items()
        )
        total += weight * math.prod(a ** len(w) for w in words)
    return total


@pytest.mark.parametrize(
    ("alpha", "sigma2"), [(Fraction(2), Fraction(1, 100)), (Fraction(1, 2), 0)]
)
def test_the_one_over_d_term_meets_the_large_tau_correction(alpha, sigma2):
    """Richardson on exact rationals at D = 1e12, 2e12 (error 1e-24) against the independent
    tau -> infinity derivation, to 1e-13."""
    expected = finite_d.large_tau_correction(float(alpha), float(sigma2), wick.T_MAX)
    for t in range(wick.T_MAX + 1):
        limit = _scalar_curve(t, alpha, sigma2, None)
        y1, y2 = (D * (_scalar_curve(t, alpha, sigma2, D) - limit) for D in (10**12, 2 * 10**12))
        assert float(2 * y2 - y1) == pytest.approx(expected[t], rel=1e-13, abs=1e-15)
