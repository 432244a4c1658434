"""Input validation shared by every public function of :mod:`cotbook`.

Each checker returns the validated value (converted to ``float`` or ``int``) or
raises :class:`ValueError` with a message that names the parameter and states
its valid range, e.g. ``"alpha must be a finite number > 0, got -1.0"``.
"""

from __future__ import annotations

import math
import numbers

__all__ = [
    "real",
    "positive",
    "nonnegative",
    "greater_than",
    "nonneg_int",
    "positive_int",
    "array",
]


def _scalar(value):
    """A 0-d numpy array stands for its element (``np.asarray(2.0)`` is the number 2.0)."""
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value


def real(name: str, value, rule: str = "a finite real number") -> float:
    """Return ``value`` as a finite float, or raise ``ValueError`` naming ``name``."""
    value = _scalar(value)
    shape = getattr(value, "shape", None) or (
        (len(value),) if isinstance(value, (list, tuple)) else None
    )
    if shape:  # say so, rather than "must be a finite number" for an array of them
        raise ValueError(
            f"{name} must be a single number ({rule}); arrays are not supported here, got one "
            f"of shape {tuple(shape)} (call once per value)"
        )
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    return out


def positive(name: str, value) -> float:
    """A finite real number strictly greater than 0."""
    out = real(name, value, "a finite number > 0")
    if out <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return out


def nonnegative(name: str, value) -> float:
    """A finite real number greater than or equal to 0."""
    out = real(name, value, "a finite number >= 0")
    if out < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return out


def greater_than(name: str, value, bound: float) -> float:
    """A finite real number strictly greater than ``bound``."""
    rule = f"a finite number > {bound:g}"
    out = real(name, value, rule)
    if out <= bound:
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    return out


def nonneg_int(name: str, value) -> int:
    """An integer >= 0 (a float with an integral value is not accepted)."""
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def positive_int(name: str, value) -> int:
    """An integer >= 1."""
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def array(name: str, value, ndim: int | None = None):
    """A finite float64 ``numpy`` array (optionally of a given number of dimensions)."""
    import numpy as np

    out = np.asarray(value, dtype=float)
    if ndim is not None and out.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional array, got shape {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return out
