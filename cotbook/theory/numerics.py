"""Appendix D, checked: the certified fast engine against the paper's own recursion.

The paper evaluates Result 1 with a two-dimensional coefficient recursion in high precision
(Appendix "Numerical evaluation of the theoretical prediction"); :mod:`.exact.closed_form`
computes the same numbers as a certified float64 quadratic form.  :func:`accuracy_rows` measures the
largest relative difference between the two over :data:`ACCURACY_POINTS`;
:class:`AccuracySpec` runs it as a long run (``python -m cotbook bench accuracy``), one unit
per point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._checks import positive_int
from .._threads import one_thread_unit
from . import phases
from .exact import closed_form

__all__ = [
    "ACCURACY_POINTS",
    "AccuracyRow",
    "resolve_point",
    "accuracy_rows",
    "AccuracySpec",
    "SCALES",
    "run_unit",
    "assemble",
]

ACCURACY_POINTS = (
    (2.0, 3.0, 0.01),
    (4.0, 1.5, 0.0),
    (0.3, 2.0, 0.01),
    (0.05, 1.01, 0.0),
    (1.0, 10.0, 1e-4),
    (1.0, 300.0, 1e-4),
    (3.0, 50.0, 0.01),
    (10.0, 100.0, 0.0),
    (20.0, 1.2, 0.1),
    (0.5, 5.0, 0.1),
    (0.1, 100.0, 0.0),
    (2.0, "tau_c", 1e-4),
    (0.5, "tau_c+", 0.01),
)
"""Thirteen (alpha, tau, sigma2) points: all four regimes, alpha < 1, = 1, > 1, tau at and just
above tau_c, sigma2 in {0, 1e-4, 1e-2, 1e-1} ("tau_c" / "tau_c+": tau_c and tau_c (1 + 1e-6))."""


class AccuracyRow(NamedTuple):
    """One point of the accuracy table."""

    alpha: float
    tau: float
    sigma2: float
    regime: str
    E_end: float
    """``E_{t_max}`` from the recursion."""
    max_rel_diff: float
    """``max_t |auto / recursion - 1|`` over ``t <= t_max``."""


def resolve_point(alpha, tau, sigma2):
    """``(alpha, tau, sigma2)`` of an :data:`ACCURACY_POINTS` entry, with ``"tau_c"`` and
    ``"tau_c+"`` replaced by ``tau_c(alpha, sigma2)`` and ``tau_c (1 + 1e-6)``."""
    if tau == "tau_c":
        return alpha, float(phases.tau_c(alpha, sigma2)), sigma2
    if tau == "tau_c+":
        return alpha, float(phases.tau_c(alpha, sigma2)) * (1 + 1e-6), sigma2
    return alpha, float(tau), sigma2


def accuracy_rows(t_max, *, dps=50, points=ACCURACY_POINTS) -> list[AccuracyRow]:
    """One :class:`AccuracyRow` per point: ``method="auto"`` (float64, certified) against the
    paper's recursion (``method="recursion"``) at ``dps`` digits, for ``t <= t_max``.

    Parameters
    ----------
    t_max : int
        Deepest depth compared, ``>= 1``.
    dps : int
        Decimal digits of the recursion.
    points : sequence
        ``(alpha, tau, sigma2)`` points, ``tau`` possibly ``"tau_c"`` or ``"tau_c+"``.

    Returns
    -------
    list of AccuracyRow

    Examples
    --------
    >>> row = accuracy_rows(5, points=[(2.0, 3.0, 0.01)])[0]
    >>> row.regime, row.max_rel_diff < 1e-12
    ('overthinking', True)
    """
    t_max = positive_int("t_max", t_max)
    rows = []
    for point in points:
        alpha, tau, sigma2 = resolve_point(*point)
        fast = closed_form.ridgeless_curve(alpha, tau, sigma2, t_max)
        ref = closed_form.ridgeless_curve(alpha, tau, sigma2, t_max, method="recursion", dps=dps)
        err = float(np.max(np.abs(fast / ref - 1)))
        regime = phases.regime(alpha, tau, sigma2)
        rows.append(AccuracyRow(alpha, tau, sigma2, regime, float(ref[-1]), err))
    return rows


def _point_entry(text):
    """A point coordinate as saved (a string): a number, or ``"tau_c"`` / ``"tau_c+"``."""
    return text if text in ("tau_c", "tau_c+") else float(text)


@dataclass(frozen=True)
class AccuracySpec:
    """The accuracy table as a long run: every point of ``points`` compared for ``t <= t_max``
    against the recursion at ``dps`` digits (:func:`accuracy_rows`), one unit per point.

    Examples
    --------
    >>> spec = SCALES["tiny"]
    >>> spec.units()[0], AccuracySpec.from_dict(spec.to_dict()) == spec
    ('0: (2.0, 3.0, 0.01)', True)
    """

    t_max: int = 80
    dps: int = 50
    points: tuple = ACCURACY_POINTS

    def __post_init__(self):
        object.__setattr__(self, "t_max", positive_int("t_max", self.t_max))
        object.__setattr__(self, "dps", positive_int("dps", self.dps))
        points = tuple(tuple(p) for p in self.points)
        if not points or any(len(p) != 3 for p in points):
            raise ValueError(f"points must be (alpha, tau, sigma2) triples, got {self.points}")
        object.__setattr__(self, "points", points)

    def units(self) -> list:
        """``"<k>: (alpha, tau, sigma2)"`` for the ``k``-th point."""
        return [f"{k}: ({a}, {t}, {s})" for k, (a, t, s) in enumerate(self.points)]

    def to_dict(self) -> dict:
        """The configuration a saved record keeps (points as strings)."""
        return {
            "t_max": self.t_max,
            "dps": self.dps,
            "points": [[str(v) for v in p] for p in self.points],
        }

    @classmethod
    def from_dict(cls, d) -> AccuracySpec:
        """The spec of :meth:`to_dict`'s layout."""
        points = tuple(tuple(_point_entry(v) for v in p) for p in d["points"])
        return cls(t_max=int(d["t_max"]), dps=int(d["dps"]), points=points)


SCALES = {
    "tiny": AccuracySpec(t_max=5, dps=30, points=ACCURACY_POINTS[:3]),
    "paper": AccuracySpec(),
}
"""``tiny``: three points, ``t <= 5`` (a second); ``paper``: the table the book shows."""


@one_thread_unit
def run_unit(spec: AccuracySpec, unit) -> dict:
    """One point of ``spec``: JSON-ready ``{"row": AccuracyRow as a list, "seconds"}``."""
    units = spec.units()
    if unit not in units:
        raise ValueError(f"unit must be one of {units}, got {unit!r}")
    start = time.perf_counter()
    row = accuracy_rows(spec.t_max, dps=spec.dps, points=[spec.points[units.index(unit)]])[0]
    return {"row": list(row), "seconds": time.perf_counter() - start}


def assemble(spec: AccuracySpec, results) -> tuple[dict, dict]:
    """``({"rows": [row per point, in order]}, seconds per unit)``."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    rows = [results[u]["row"] for u in spec.units()]
    return {"rows": rows}, {u: results[u]["seconds"] for u in spec.units()}
