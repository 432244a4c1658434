"""How much of the domain the lambda > 0 engine certifies to depth: random points, each asked
for ``E_0 .. E_{t_max}`` (:func:`cotbook.theory.ridge.ridge_curve`), and what it answered.

A point's outcome is one of :data:`OUTCOMES`: the whole curve certified; certified up to the
depth where ``E_t`` leaves the float64 range (``RidgeAccuracyError.overflow``: the next value
is certified to exceed it, so no method in float64 goes deeper); or refused at a shallower
depth for want of accuracy, which the refusal names.  The points are drawn log-uniformly from
boxes that span the regimes (:class:`CoverageSpec`), rounded to four significant digits so that
a record names exactly the point computed.

It is a long run like :mod:`.numerics` (:class:`CoverageSpec`, :func:`run_unit`,
:func:`assemble`): ``python -m cotbook bench coverage`` writes the record ``ridge_coverage``
that the chapter on the curve's depth shows.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ... import _checks
from ..._threads import one_thread_unit
from .. import domain

__all__ = [
    "OUTCOMES",
    "CoverageSpec",
    "SCALES",
    "Outcome",
    "outcome",
    "run_unit",
    "assemble",
    "Tally",
    "tally",
    "growth_per_step",
]

OUTCOMES = ("certified", "float64", "refused")
"""What the engine answered: every depth certified; certified until ``E_t`` leaves the float64
range; refused deeper than the last certified depth."""


@dataclass(frozen=True)
class CoverageSpec:
    """``count`` random points ``(alpha, tau, sigma2, lam)`` from the generator seeded ``seed``,
    each asked for ``t <= t_max``.  ``alpha``, ``tau`` and ``lam`` are log-uniform on their
    ranges; ``sigma2`` is 0 with probability ``zero_noise``, else log-uniform on its range.

    Examples
    --------
    >>> spec = SCALES["tiny"]
    >>> spec.units()[0]
    '0: (1.473, 9.797, 0, 0.3883)'
    >>> CoverageSpec.from_dict(spec.to_dict()) == spec
    True
    """

    seed: int = 7
    count: int = 120
    t_max: int = 10_000
    alpha: tuple = (0.25, 8.0)
    tau: tuple = (0.2, 12.0)
    sigma2: tuple = (1e-4, 1.0)
    zero_noise: float = 0.2
    lam: tuple = (1e-8, 1.0)

    def __post_init__(self):
        object.__setattr__(self, "seed", _checks.nonneg_int("seed", self.seed))
        object.__setattr__(self, "count", _checks.positive_int("count", self.count))
        t_max = _checks.positive_int("t_max", self.t_max)
        from .engine import RIDGE_T_MAX

        if t_max > RIDGE_T_MAX:
            raise ValueError(f"t_max must be an integer in [1, {RIDGE_T_MAX}], got {t_max}")
        object.__setattr__(self, "t_max", t_max)
        for name, check in (
            ("alpha", domain.alpha),
            ("tau", lambda v: domain.tau(v, ridge=True)),
            ("sigma2", domain.sigma2),
            ("lam", domain.lam),
        ):
            box = tuple(getattr(self, name))
            if len(box) != 2 or not 0 < check(box[0]) <= check(box[1]):
                raise ValueError(
                    f"{name} must be a range (low, high) with 0 < low <= high in the domain, "
                    f"got {getattr(self, name)!r}"
                )
            object.__setattr__(self, name, (float(box[0]), float(box[1])))
        zero = _checks.real("zero_noise", self.zero_noise, "a number in [0, 1]")
        if not 0 <= zero <= 1:
            raise ValueError(f"zero_noise must be a number in [0, 1], got {self.zero_noise!r}")
        object.__setattr__(self, "zero_noise", zero)

    def points(self) -> list:
        """The ``count`` points ``(alpha, tau, sigma2, lam)``, each rounded to four significant
        digits, in the order drawn."""
        rng = np.random.default_rng(self.seed)

        def draw(box):
            return _round4(math.exp(rng.uniform(math.log(box[0]), math.log(box[1]))))

        out = []
        for _ in range(self.count):
            a, tau = draw(self.alpha), draw(self.tau)
            s2 = 0.0 if rng.uniform() < self.zero_noise else draw(self.sigma2)
            out.append((a, tau, s2, draw(self.lam)))
        return out

    def units(self) -> list:
        """``"<k>: (alpha, tau, sigma2, lam)"`` for the ``k``-th point."""
        return [f"{k}: ({a:g}, {t:g}, {s:g}, {lam:g})" for k, (a, t, s, lam) in
                enumerate(self.points())]  # fmt: skip

    def to_dict(self) -> dict:
        """The configuration a saved record keeps."""
        d = {k: getattr(self, k) for k in ("seed", "count", "t_max", "zero_noise")}
        d.update({k: list(getattr(self, k)) for k in ("alpha", "tau", "sigma2", "lam")})
        return d

    @classmethod
    def from_dict(cls, d) -> CoverageSpec:
        """The spec of :meth:`to_dict`'s layout."""
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


def _round4(x) -> float:
    return float(f"{x:.4g}")


SCALES = {
    "tiny": CoverageSpec(seed=1, count=3, t_max=60),
    "paper": CoverageSpec(),
}
"""``tiny``: three points to ``t = 60`` (seconds); ``paper``: the record the book shows."""


class Outcome(NamedTuple):
    """What :func:`cotbook.theory.ridge.ridge_curve` answered at one point."""

    outcome: str
    """One of :data:`OUTCOMES`."""
    reach: int
    """The deepest depth certified (``t_max`` where ``outcome == "certified"``)."""
    log10_E: float | None
    """``log10 E_reach`` (``None`` where the refusal does not carry the curve)."""
    log10_E_half: float | None
    """``log10 E_{reach // 2}``: with ``log10_E`` it says whether the curve still grows
    there."""
    radius: float | None
    """The torus the curve (or its certified part) was read on; ``None`` where not known."""
    pole_from: int | None
    """The first depth served by the mixed sector's pole (:mod:`.pole`), if any."""
    beyond_from: int | None
    """The first depth served by a second torus, beyond ``|x| = 1``
    (``RidgeCurve.beyond_from``), if any."""
    loop_from: int | None
    """The first depth served by a circle inside ``|x| = 1`` and a loop round the sectors'
    cut (:mod:`.loop`, ``RidgeCurve.loop_from``), if any."""


def _log10(x):
    return None if x is None or not x > 0 or not math.isfinite(x) else math.log10(x)


def outcome(alpha, tau, sigma2, lam, t_max) -> Outcome:
    """The :class:`Outcome` of ``ridge_curve(alpha, tau, sigma2, t_max, lam=lam)``."""
    from ._certify import RidgeAccuracyError
    from .engine import ridge_curve

    try:
        curve = ridge_curve(alpha, tau, sigma2, t_max, lam=lam)
    except RidgeAccuracyError as refusal:
        t = refusal.certified_to or 0
        E = refusal.curve[0] if refusal.curve is not None and t else None
        return Outcome(
            "float64" if refusal.overflow else "refused",
            t,
            None if E is None else _log10(E[t]),
            None if E is None else _log10(E[t // 2]),
            refusal.radius,
            None,
            None,
            None,
        )
    return Outcome(
        "certified",
        t_max,
        _log10(curve.E[t_max]),
        _log10(curve.E[t_max // 2]),
        curve.radius,
        curve.pole_from,
        curve.beyond_from,
        curve.loop_from,
    )


@one_thread_unit
def run_unit(spec: CoverageSpec, unit) -> dict:
    """One point of ``spec``: JSON-ready ``{"outcome": Outcome as a list, "seconds"}``."""
    points = dict(zip(spec.units(), spec.points(), strict=True))
    if unit not in points:
        raise ValueError(f"unit must be one of the spec's {len(points)} units, got {unit!r}")
    start = time.perf_counter()
    got = outcome(*points[unit], spec.t_max)
    return {"outcome": list(got), "seconds": time.perf_counter() - start}


def assemble(spec: CoverageSpec, results) -> tuple[dict, dict]:
    """``({"points": [(alpha, tau, sigma2, lam) per unit], "outcomes": [Outcome as a list per
    unit]}, seconds per unit)``."""
    missing = [u for u in spec.units() if u not in results]
    if missing:
        raise ValueError(f"results must hold every unit of the study; missing {missing}")
    data = {
        "points": [list(p) for p in spec.points()],
        "outcomes": [results[u]["outcome"] for u in spec.units()],
    }
    return data, {u: results[u]["seconds"] for u in spec.units()}


class Tally(NamedTuple):
    """The points of one outcome in a coverage record."""

    outcome: str
    count: int
    median_s: float
    """Median seconds of a point (one core)."""
    largest_s: float
    shallowest: int
    """The smallest ``reach`` among them."""


def tally(spec: CoverageSpec, data, timings_s) -> list[Tally]:
    """One :class:`Tally` per outcome of :data:`OUTCOMES` present in the data of ``spec``'s
    record (as :func:`assemble` writes them), with its units' seconds ``timings_s``."""
    missing = [u for u in spec.units() if u not in timings_s]
    if missing or len(data["outcomes"]) != spec.count:
        raise ValueError(
            f"data and timings_s must hold every unit of the spec; missing {missing or 'rows'}"
        )
    seconds = [timings_s[u] for u in spec.units()]
    rows = []
    for name in OUTCOMES:
        mine = [k for k, row in enumerate(data["outcomes"]) if row[0] == name]
        if mine:
            s = [seconds[k] for k in mine]
            rows.append(
                Tally(
                    name,
                    len(mine),
                    float(np.median(s)),
                    max(s),
                    min(data["outcomes"][k][1] for k in mine),
                )
            )
    return rows


def growth_per_step(row) -> float | None:
    """``(E_reach / E_{reach // 2})^(1 / (reach - reach // 2))`` of an outcome row: above 1 the
    curve still grows there, below 1 it falls.  ``None`` where the row carries no values, or
    where one of them is at most :data:`~cotbook.theory.ridge.RIDGE_ATOL`: that far down the
    certified value says only that ``E_t`` is that small, and its ratio is rounding (two
    records of one point, where ``E_10000 ~ 5e-20``, held ``log10 E_10000`` = -19.26 and
    -19.23)."""
    from ._certify import RIDGE_ATOL

    got = Outcome(*row)
    if got.log10_E is None or got.log10_E_half is None or got.reach < 2:
        return None
    if min(got.log10_E, got.log10_E_half) <= math.log10(RIDGE_ATOL):
        return None
    return 10 ** ((got.log10_E - got.log10_E_half) / (got.reach - got.reach // 2))
