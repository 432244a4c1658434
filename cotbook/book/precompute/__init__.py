"""What the precomputed records compute: one module per record (the chapters' computations too slow
to repeat on every test run), each with its parameters ``CONFIG``, ``compute(config) -> data``
(plain JSON) and ``decode(data)``, and the chapter (``CHAPTER``) and description (``DESCRIBE``)
its caption gives. :mod:`cotbook.book.precomputed` registers and loads them.

A record's producers are its module's import closure
(:data:`cotbook.book.records.PRECOMPUTED_ROOTS`), so a change to how one record is computed
stales that record only. The modules are imported
by name, on use; this face imports none of them.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["NAMES", "plain"]

NAMES = (
    "stopping_maps",
    "ridge_depths",
    "optimal_depths",
    "saturation_approach",
    "attention_structure",
)
"""The precomputed records, one module each, in the order the command computes them."""


def plain(value):
    """A result (numbers, ``None``, strings, and tuples or dicts of them) as plain JSON."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(value):
            raise ArithmeticError(f"a precomputed value is not finite: {value!r}")
        return float(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return [plain(v) for v in value]
