"""The explorer's data: the theory's ``E_t`` precomputed on a fine grid, to explore with no
kernel (:mod:`cotbook.book.explorer_page` draws it).

:func:`compute` evaluates Result 1 (``lam = 0``,
:func:`cotbook.theory.exact.closed_form.error_grid`, certified to 1e-10) at every depth
``t <= t_max`` on a log-spaced ``(alpha, tau - 1)`` grid at a few noise levels (:data:`GRID`),
and Result 2 at every grid point (:func:`cotbook.theory.overview.phase_point`); :func:`encode`
keeps ``log10 E_t`` in steps of :data:`QUANTUM`, as differences along ``t``.  Between grid
points the page interpolates ``log10 E_t`` bilinearly in ``(log alpha, log(tau - 1))``;
:func:`interpolate` is the same rule in Python on the same encoded data, and
:func:`interpolation_error` measures it against the exact curve at the centre of every grid
cell.  :func:`measure` is all of it, the record ``theory_explorer`` that
``python -m cotbook explorer`` saves (the slower noise levels take minutes: the engine's
extended-precision tiers at deep ``t``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..theory import closed_form, overview

__all__ = [
    "Grid",
    "GRID",
    "log_points",
    "QUANTUM",
    "REGIMES",
    "SCALES",
    "Explorer",
    "compute",
    "encode",
    "decode",
    "interpolate",
    "InterpolationError",
    "interpolation_error",
    "measure",
]


class Grid(NamedTuple):
    """Where the explorer is computed: ``alphas`` and ``taus`` (log-spaced in ``alpha`` and
    ``tau - 1``), the noise variances ``sigma2s`` and the depths ``0..t_max``."""

    alphas: np.ndarray
    taus: np.ndarray
    sigma2s: tuple
    t_max: int

    def to_dict(self) -> dict:
        """JSON-ready: the configuration the record ``theory_explorer`` keeps."""
        return {
            "alphas": np.asarray(self.alphas, float).tolist(),
            "taus": np.asarray(self.taus, float).tolist(),
            "sigma2s": list(self.sigma2s),
            "t_max": int(self.t_max),
        }

    @classmethod
    def from_dict(cls, d) -> Grid:
        """The grid of :meth:`to_dict`'s layout."""
        return cls(
            np.asarray(d["alphas"], float),
            np.asarray(d["taus"], float),
            tuple(d["sigma2s"]),
            int(d["t_max"]),
        )


def log_points(lo, hi, n) -> np.ndarray:
    """``n`` points log-spaced from ``10**lo`` to ``10**hi``, each rounded to 12 significant
    digits.  ``np.logspace``'s last bit depends on the CPU's vector path (an AMD EPYC machine
    and the one that wrote the record differ in 1 ulp at some points); a point and its two
    neighbouring floats round to the same value, so the grid is the same on every CPU
    (tested)."""
    return np.array([float(f"{v:.12g}") for v in np.logspace(lo, hi, n)])


GRID = Grid(log_points(-1, 1, 32), 1 + log_points(-2, 2, 32), (0.0, 0.01, 0.1, 1.0), 80)
"""Figure 1A's plane (``alpha`` in [0.1, 10], ``tau - 1`` in [0.01, 100]) on 32 x 32 points
(an even count keeps ``alpha = 1`` off the grid), four noise levels, Figure 1's depth 80."""

SCALES = {
    "tiny": Grid(log_points(-1, 1, 6), 1 + log_points(-2, 2, 6), (0.01,), 10),
    "paper": GRID,
}
"""``tiny`` for tests; ``paper``, the committed record."""

QUANTUM = 1e-3
"""The step in which the page stores ``log10 E_t`` (a relative error of at most 0.12%)."""

REGIMES = tuple(overview.REGIME_NOTES)
"""The regimes of :func:`cotbook.theory.phases.regime`, in the order the page codes them."""


class Explorer(NamedTuple):
    """What the page shows: ``log10E[s, i, j, t]`` at ``(sigma2s[s], alphas[i], taus[j])``
    and ``points[s][i][j]``, Result 2 there (:class:`cotbook.theory.overview.PhasePoint`)."""

    grid: Grid
    log10E: np.ndarray
    points: list


def _curves(alphas, taus, sigma2, t_max) -> np.ndarray:
    """``E_t`` for ``t = 0..t_max`` on ``alphas x taus``, shape ``(alphas, taus, t)``."""
    return np.stack(
        [closed_form.error_grid(alphas, taus, sigma2, t) for t in range(t_max + 1)], axis=-1
    )


def compute(grid=GRID) -> Explorer:
    """Result 1 at every depth and Result 2 at every point of ``grid``."""
    alphas, taus = np.asarray(grid.alphas, float), np.asarray(grid.taus, float)
    E = np.stack([_curves(alphas, taus, s2, grid.t_max) for s2 in grid.sigma2s])
    if not np.all(np.isfinite(E) & (E > 0)):
        raise ArithmeticError("E_t left the float64 range on the explorer's grid")
    points = [
        [[overview.phase_point(a, tau, s2) for tau in taus] for a in alphas] for s2 in grid.sigma2s
    ]
    return Explorer(Grid(alphas, taus, tuple(grid.sigma2s), grid.t_max), np.log10(E), points)


def _quantised(log10E) -> np.ndarray:
    return np.rint(np.asarray(log10E) / QUANTUM).astype(np.int64)


def _number(x):
    return None if x is None else float(f"{x:.6g}")


def encode(explorer) -> dict:
    """The page's data, JSON-ready: the axes; per noise level, ``log10 E_t`` as integers (units
    of :data:`QUANTUM`), the first of each curve and then its differences along ``t``, points in
    ``alpha``-major order; per point the regime (index into :data:`REGIMES`), ``E_inf``,
    ``Lambda`` and the leading law ``[rate, power, source]``; ``tau_c`` per ``alpha``."""
    grid = explorer.grid
    levels = []
    for s, sigma2 in enumerate(grid.sigma2s):
        q = _quantised(explorer.log10E[s])
        steps = np.concatenate([q[..., :1], np.diff(q, axis=-1)], axis=-1)
        flat = [p for row in explorer.points[s] for p in row]
        levels.append(
            {
                "sigma2": sigma2,
                "steps": steps.ravel().tolist(),
                "regime": [REGIMES.index(p.regime) for p in flat],
                "floor": [_number(p.error_floor) for p in flat],
                "rate": [_number(p.decay_rate) for p in flat],
                "law": [
                    None
                    if p.leading_law is None
                    else [_number(p.leading_law[0]), p.leading_law[1], p.leading_law[2]]
                    for p in flat
                ],
                "tau_c": [_number(row[0].tau_c) for row in explorer.points[s]],
            }
        )
    return {
        "alphas": [_number(a) for a in grid.alphas],
        "taus": [_number(t) for t in grid.taus],
        "t_max": grid.t_max,
        "quantum": QUANTUM,
        "regimes": list(REGIMES),
        "levels": levels,
    }


def decode(data) -> tuple:
    """``(alphas, taus, log10E[s, i, j, t])`` of :func:`encode`'s data, as the page reads it."""
    alphas, taus = np.asarray(data["alphas"], float), np.asarray(data["taus"], float)
    shape = (len(alphas), len(taus), data["t_max"] + 1)
    try:
        log10E = np.stack(
            [np.cumsum(np.reshape(lv["steps"], shape), axis=-1) for lv in data["levels"]]
        )
    except (KeyError, ValueError, TypeError) as err:
        raise ValueError(f"data must be the explorer's encoded data ({err})") from None
    return alphas, taus, log10E * data["quantum"]


def _position(axis, value):
    """Cell index and fraction of ``value`` on a log-spaced ``axis``."""
    x = np.log(axis)
    u = float(np.interp(np.log(value), x, np.arange(len(x))))
    k = min(int(u), len(x) - 2)
    return k, u - k


def interpolate(data, alpha, tau, s) -> np.ndarray:
    """``log10 E_t``, ``t = 0..t_max``, as the page draws it at ``(alpha, tau)`` and noise level
    ``s`` of :func:`encode`'s ``data``: bilinear in ``(log alpha, log(tau - 1))``.

    Examples
    --------
    >>> data = encode(compute(SCALES["tiny"]))
    >>> at_grid = interpolate(data, data["alphas"][2], data["taus"][3], 0)
    >>> float(at_grid[0]), bool(abs(at_grid - decode(data)[2][0, 2, 3]).max() < 1e-12)
    (0.0, True)
    """
    alphas, taus, log10E = decode(data)
    if not 0 <= s < len(log10E):
        raise ValueError(f"s must index the noise levels (0 to {len(log10E) - 1}), got {s!r}")
    for name, value, axis in (("alpha", alpha, alphas), ("tau - 1", tau - 1, taus - 1)):
        if not axis[0] <= value <= axis[-1]:
            raise ValueError(f"{name} must lie in [{axis[0]:g}, {axis[-1]:g}], got {value!r}")
    i, u = _position(alphas, alpha)
    j, v = _position(taus - 1, tau - 1)
    q = log10E[s, i : i + 2, j : j + 2]
    return (
        (1 - u) * (1 - v) * q[0, 0]
        + u * (1 - v) * q[1, 0]
        + (1 - u) * v * q[0, 1]
        + (u * v * q[1, 1])
    )


class InterpolationError(NamedTuple):
    """The page's ``log10 E_t`` against the exact one at the centre of every grid cell, the
    largest difference over ``t <= t_max`` at each centre, in decades: its median, 95th
    percentile and maximum over the centres."""

    sigma2: float
    centres: int
    median: float
    p95: float
    largest: float
    where: tuple
    """``(alpha, tau)`` of the largest."""


def interpolation_error(data, s) -> InterpolationError:
    """How far the page's curve lies from the exact one between grid points, at noise level
    ``s``: :func:`interpolate` at the centre of every cell (in ``log alpha`` and
    ``log(tau - 1)``) against :func:`cotbook.theory.exact.closed_form.error_grid` there."""
    alphas, taus, _ = decode(data)
    sigma2 = data["levels"][s]["sigma2"]
    mid_a = np.sqrt(alphas[1:] * alphas[:-1])
    mid_t = 1 + np.sqrt((taus[1:] - 1) * (taus[:-1] - 1))
    exact = np.log10(_curves(mid_a, mid_t, sigma2, data["t_max"]))
    worst = np.array(
        [
            [
                np.abs(interpolate(data, a, tau, s) - exact[i, j]).max()
                for j, tau in enumerate(mid_t)
            ]
            for i, a in enumerate(mid_a)
        ]
    )
    i, j = np.unravel_index(np.argmax(worst), worst.shape)
    return InterpolationError(
        float(sigma2),
        int(worst.size),
        float(np.median(worst)),
        float(np.percentile(worst, 95)),
        float(worst[i, j]),
        (float(mid_a[i]), float(mid_t[j])),
    )


def measure(grid=GRID) -> dict:
    """The record ``theory_explorer``: ``{"page": encode(compute(grid)), "interpolation":
    [interpolation_error at each noise level, as a dict]}``."""
    data = encode(compute(grid))
    errors = [interpolation_error(data, s)._asdict() for s in range(len(grid.sigma2s))]
    return {"page": data, "interpolation": [{**e, "where": list(e["where"])} for e in errors]}
