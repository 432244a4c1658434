"""An independent, rigorous reference for single depths: the quadratic form in ball arithmetic.

The finite quadratic form of Result 1 in the Lagrange variables (:mod:`.lagrange`) is exact;
its trouble in floating point is cancellation, growing like exp(0.014 t) at sigma2 = 0.01.
Here every operation is done on *balls* (midpoint and radius, python-flint's ``arb``), whose
radii bound all rounding errors rigorously, at a working precision doubled until the result's
radius is small.  It shares nothing with the contour evaluation of :mod:`.contour` but the
closed form itself, so it is the reference the contours are tested against at depths
1000 - 10^4.  Cost O(t^2) operations in C: about a second at t = 2000, half a minute at 10^4.
"""

from __future__ import annotations

from typing import NamedTuple

from ..._checks import nonneg_int, positive
from .. import domain
from .result1 import negative_singular_root

__all__ = ["Ball", "ball_error_at"]


class Ball(NamedTuple):
    """``E_t`` lies in ``[mid - radius, mid + radius]`` (both as decimal strings, exact)."""

    mid: str
    radius: str
    bits: int
    """Working precision used."""

    def relative(self) -> float:
        """``radius / |mid|`` (exact decimal strings, so no overflow beyond 1e308)."""
        from decimal import Decimal

        return float(Decimal(self.radius) / abs(Decimal(self.mid)))


def _streamed_form(alpha, tau, sigma2, t, rho):
    """E_t by the streamed form of ``lagrange.stream_depth``, on arb balls (exact inputs)."""
    from flint import arb, arb_poly

    al, ta, s2, r = arb(alpha), arb(tau), arb(sigma2), arb(rho)
    K = al + 1 + s2
    beta = (1 + s2) / (al * (ta - 1))
    gam = 1 + beta * (al + 1)
    g1, g2 = gam * r * r / al, beta * r**3 / al
    q = r / al
    phi = arb_poly([al / (K * r), s2 / K, r / K])
    c = (phi**t).truncate(t + 1)  # [a^k] phi~^t, k <= t
    powers, x = [], arb(1)
    for _ in range(t + 1):
        powers.append(x)
        x = x * q
    # v = R~ c with R~ = 1 + q a + (1 - alpha) q^2 a^2 / (1 - q a)
    y = (c * arb_poly(powers)).truncate(t + 1)
    v = c + (c * arb_poly([0, q])).truncate(t + 1) + (1 - al) * (y * arb_poly([0, 0, q * q]))
    v = v.truncate(t + 1)
    coeffs = v.coeffs() + [arb(0)] * (t + 1 - v.length())
    w = coeffs[: t + 1][::-1]
    z1 = arb_poly(w)
    z2 = arb_poly([])
    total = w[0] * z1[0]
    for n in range(1, t + 1):
        length = min(t, 2 * (t - n)) + 1
        z = g1 * z1.right_shift(1) - g2 * (z1.right_shift(2) + z2.right_shift(1))
        z = z.truncate(length)
        total += w[n] * z[0]
        z2, z1 = z1, z
    return total


def ball_error_at(alpha, tau, sigma2, t, *, rel=1e-15, max_bits=1 << 14) -> Ball:
    """A rigorous enclosure of ``E_t`` (Result 1, lambda = 0) in ball arithmetic.

    The working precision starts at 128 bits and doubles until the radius is below
    ``rel * |mid|`` (``ValueError`` if ``max_bits`` is not enough).  The Lagrange scaling
    ``rho = |a_-|`` (:func:`~cotbook.theory.exact.result1.negative_singular_root`) is exact in any
    case; it only makes the cancellation, and so the precision needed, smaller.

    Parameters
    ----------
    alpha, tau, sigma2 : float
        The point (domain of :mod:`cotbook.theory.domain`, ``tau > 1``).
    t : int
        Depth, ``0 <= t <= 20000``.
    rel : float
        Relative radius asked for.
    max_bits : int
        Largest working precision tried.

    Returns
    -------
    Ball
        Midpoint and radius.

    Examples
    --------
    >>> b = ball_error_at(2.0, 3.0, 0.01, 20)
    >>> round(float(b.mid), 8), b.relative() < 1e-15
    (0.02080661, True)
    """
    from flint import arb, ctx

    alpha, tau, sigma2 = domain.alpha(alpha), domain.tau(tau), domain.sigma2(sigma2)
    t = nonneg_int("t", t)
    if t > 20000:
        raise ValueError(f"t must be <= 20000 for the ball reference, got {t}")
    rel = positive("rel", rel)
    rho = negative_singular_root(alpha, tau, sigma2)
    bits, saved = 128, ctx.prec
    try:
        while bits <= max_bits:
            ctx.prec = bits
            e = _streamed_form(alpha, tau, sigma2, t, rho)
            mid, rad = e.mid(), e.rad()
            if mid != 0 and rad <= arb(rel) * abs(mid):  # exact comparison of exact numbers
                return Ball(mid.str(30, radius=False), rad.str(5, radius=False), bits)
            bits *= 2
    finally:
        ctx.prec = saved
    raise ValueError(f"max_bits={max_bits} is not enough for E_{t} at this point to rel={rel:g}")
