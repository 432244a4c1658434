"""The parameter domain of the theory wing, checked by every public function before any work,
and the engine's accuracy arguments (``rtol``, ``dps``) with the error raised when an accuracy
cannot be certified (:class:`AccuracyError`).

The formulas hold for every ``alpha > 0``, ``tau > 1`` (``tau > 0`` when ``lam > 0``),
``sigma2 >= 0``, ``lam >= 0``.  The numerics are validated on the box below, which is wider than
any question the paper asks by many orders of magnitude; outside it a ``ValueError`` names the
parameter and this range (float64 intermediate quantities such as ``alpha^2`` or
``(1 + sigma2)^2`` would leave the float64 range long before the formulas stop making sense).
"""

from __future__ import annotations

from .._checks import positive, real

__all__ = [
    "LOWER",
    "UPPER",
    "alpha",
    "tau",
    "sigma2",
    "lam",
    "point",
    "rtol",
    "dps",
    "AccuracyError",
]

LOWER = 1e-12
"""Smallest ``alpha`` (and ``tau`` when ``lam > 0``) accepted."""
UPPER = 1e12
"""Largest ``alpha``, ``tau``, ``sigma2`` and ``lam`` accepted."""


def _bounded(name, value, lo, hi, *, lo_open=False):
    rule = f"a finite number in {'(' if lo_open else '['}{lo:g}, {hi:g}]"
    out = real(name, value, rule)
    if out > hi or out < lo or (lo_open and out == lo):
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    return out


def alpha(value) -> float:
    """``alpha = L/D`` in ``[LOWER, UPPER]``."""
    return _bounded("alpha", value, LOWER, UPPER)


def tau(value, *, ridge: bool = False) -> float:
    """``tau = M/D`` in ``(1, UPPER]`` (ridgeless theory) or ``[LOWER, UPPER]`` (``ridge``)."""
    if ridge:
        return _bounded("tau", value, LOWER, UPPER)
    return _bounded("tau", value, 1.0, UPPER, lo_open=True)


def sigma2(value) -> float:
    """Noise variance in ``[0, UPPER]``."""
    return _bounded("sigma2", value, 0.0, UPPER)


def lam(value) -> float:
    """Ridge in ``[0, UPPER]``."""
    return _bounded("lam", value, 0.0, UPPER)


def point(alpha_, tau_, sigma2_) -> tuple:
    """``(alpha, tau, sigma2)`` of the ridgeless theory, each checked."""
    return alpha(alpha_), tau(tau_), sigma2(sigma2_)


def rtol(value) -> float:
    """A relative accuracy in ``[1e-30, 1)``."""
    value = positive("rtol", value)
    if value < 1e-30 or value >= 1:
        raise ValueError(f"rtol must be a finite number in [1e-30, 1), got {value!r}")
    return value


def dps(value, default) -> int:
    """Decimal digits of an mpmath evaluation, an integer in ``[15, 10000]``; ``default`` when
    ``value`` is None."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 15 or value > 10000:
        raise ValueError(f"dps must be an integer in [15, 10000], got {value!r}")
    return value


class AccuracyError(ArithmeticError):
    """Raised when a method cannot certify the requested accuracy."""
