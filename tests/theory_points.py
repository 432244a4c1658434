"""Random points of the ridgeless theory for the tests that sweep the plane (issue 63).

alpha log-uniform in ``alphas``; sigma2 alternately log-uniform in [``sigma2_low``, 10] and
uniform in [0, 10]; tau - 1 = (tau_stable - 1) e^u with u uniform in [-2, 2], so that both
sides of the boundary, and the band tau_c < tau < tau_+ above the noise threshold, are
sampled.
"""

import math

import numpy as np

from cotbook.theory import phases


def random_points(n, seed, *, alphas=(0.1, 10.0), sigma2_low=1e-3):
    """``n`` points ``(alpha, tau, sigma2)`` from ``numpy.random.default_rng(seed)``, and the
    generator, for draws that follow."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        alpha = float(np.exp(rng.uniform(*np.log(alphas))))
        if k % 2:
            sigma2 = float(rng.uniform(0.0, 10.0))
        else:
            sigma2 = float(np.exp(rng.uniform(math.log(sigma2_low), math.log(10.0))))
        ts = phases.tau_stable(alpha, sigma2)
        out.append((alpha, float(1.0 + (ts - 1.0) * np.exp(rng.uniform(-2.0, 2.0))), sigma2))
    return out, rng
