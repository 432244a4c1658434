"""One point of the theory at a glance: what ``python -m cotbook theory`` prints.

:func:`summary` evaluates, at one ``(alpha, tau, sigma2, lam)``, Result 1's error ``E_t`` at the
depths asked for and, for ridgeless pretraining (``lam = 0``, where the paper states them),
Result 2's critical task diversity ``tau_c``, regime, rate ``Lambda`` and floor ``E_inf``, the
leading term of ``E_t - E_inf`` as ``t -> infinity`` that the book measured
(:mod:`cotbook.theory.asymptotics`; it differs from Result 2's in parts of the plane), and
Result 3's optimal depth in the overthinking regime.  The README's quick start and the command
line both call it, so the numbers they show are computed once, here.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._checks import nonneg_int
from .._threads import on_one_blas_thread
from . import asymptotics, domain, phases, ridge
from .domain import AccuracyError
from .exact import closed_form

__all__ = [
    "OPTIMAL_T_MAX",
    "REGIME_NOTES",
    "WIDTH",
    "PhasePoint",
    "phase_point",
    "Summary",
    "summary",
]

WIDTH = 100
"""Longest line of the text a :class:`Summary` prints."""
_NOTE_COLUMN = 8 + 2 + 14 + 2

OPTIMAL_T_MAX = 1024
"""Deepest depth searched for Result 3's optimal depth, by the curve without its mpmath tier
(``phases.optimal_depth(..., method="fast")``: seconds at any point, where the mpmath tier can
take minutes).  Closer to ``tau_c`` the optimal depth lies deeper and is reported as not
found; where that curve cannot be certified the field is refused by name
(:attr:`Summary.optimal_depth_note`), the rest of the summary stands."""

REGIME_NOTES = {
    "overthinking": "(I) tau < tau_stable: E_t grows without bound",
    "critical": "(II) E_t approaches its limit as a power of t",
    "saturation": "(III) alpha < 1, tau > tau_stable: E_t converges to E_inf > 0",
    "exponential": "(IV) alpha > 1, tau > tau_stable: E_t decays exponentially to 0",
}
"""The paper's Figure 1A name of each regime of :func:`cotbook.theory.phases.regime`."""
_DOUBLE_POLE_NOTE = "(I) tau = tau_+, alpha < 1: E_t grows linearly, without bound"


@dataclass(frozen=True)
class Summary:
    """Result 1 at chosen depths and Results 2-3 at one point (see :func:`summary`).

    The Result 2-3 fields are ``None`` where they are not defined: all of them when
    ``lam > 0`` (the paper states them for ``lam = 0``), ``error_floor`` in the overthinking
    regime (E_t has no finite limit) and where Result 2's floor does not apply,
    ``optimal_depth`` outside it or where it is not certified (``optimal_depth_note`` says
    why).  ``str()`` and :meth:`to_dict` carry the same words: each row's note is in the
    JSON's ``notes``.
    """

    alpha: float
    tau: float
    sigma2: float
    lam: float
    E: dict
    """``{t: E_t}`` (Result 1), depths ascending, values Python floats."""
    E_error: dict | None
    """``{t: bound on |E_t - exact|}`` where ``lam > 0`` (the closed system's certified bound,
    :func:`cotbook.theory.ridge.ridge_curve`); ``None`` at ``lam = 0``, where every value
    is certified to 1e-10 relative."""
    tau_c: float | None
    tau_stable: float | None
    """Where E_t stops growing without bound (:func:`cotbook.theory.phases.tau_stable`):
    ``tau_c``, or ``tau_+ > tau_c`` above the noise threshold."""
    regime: str | None
    decay_rate: float | None
    """Result 2's ``Lambda`` (:func:`cotbook.theory.phases.decay_rate`)."""
    error_floor: float | None
    """Result 2's ``E_inf`` (:func:`cotbook.theory.phases.error_floor`)."""
    leading_law: tuple | None
    """The term that leads ``E_t - E_inf ~ K t^power rate^t`` as ``t -> infinity``, as
    ``(rate, power, source, t_scale)``, ``t_scale`` the depth from which it leads
    (:func:`cotbook.theory.asymptotics.asymptotic_law`)."""
    optimal_depth: tuple | None
    """``(t*, E_t*)`` of Result 3 (:func:`cotbook.theory.phases.optimal_depth`)."""
    optimal_depth_note: str | None = None
    """Why ``optimal_depth`` is ``None`` in the overthinking regime, where Result 3 defines it:
    the search's reason (the smallest ``E_t`` up to :data:`OPTIMAL_T_MAX` not certified to be
    the minimum, or the depth whose ``E_t`` it needs and could not certify)."""

    @property
    def decay_rate_leads(self) -> bool | None:
        """Whether Result 2's ``Lambda`` is the rate that leads ``E_t - E_inf`` here (the
        negative saddle's); ``None`` where the leading term is not known."""
        if self.leading_law is None:
            return None
        return "negative saddle" in self.leading_law[2]

    def to_dict(self) -> dict:
        """JSON-ready: plain numbers, and ``"inf"`` for an infinite one (``tau_c`` at
        ``alpha = 1, sigma2 = 0``); ``notes`` holds each row's note of ``str()``, and
        ``decay_rate_leads`` whether ``decay_rate`` is the rate that leads."""
        law, best = self.leading_law, self.optimal_depth
        return {
            "parameters": {
                "alpha": self.alpha,
                "tau": self.tau,
                "sigma2": self.sigma2,
                "lam": self.lam,
            },
            "t": list(self.E),
            "E_t": [_json_number(e) for e in self.E.values()],
            "E_error": self.E_error and list(self.E_error.values()),
            "tau_c": _json_number(self.tau_c),
            "tau_stable": _json_number(self.tau_stable),
            "regime": self.regime,
            "decay_rate": self.decay_rate,
            "decay_rate_leads": self.decay_rate_leads,
            "error_floor": self.error_floor,
            "leading_law": law
            and dict(zip(("rate", "power", "source", "t_scale"), law, strict=True)),
            "optimal_depth": best and {"t": best[0], "E_t": best[1]},
            "optimal_depth_note": self.optimal_depth_note,
            "notes": {key: note for key, _, note in self._rows()},
        }

    def to_csv(self) -> str:
        """``t,E_t`` rows, every digit of each float64; with an ``error`` column (the bound on
        ``|E_t - exact|``) where ``lam > 0``."""
        if self.E_error is None:
            return "t,E_t\n" + "".join(f"{t},{e!r}\n" for t, e in self.E.items())
        rows = (f"{t},{e!r},{self.E_error[t]!r}\n" for t, e in self.E.items())
        return "t,E_t,error\n" + "".join(rows)

    def __str__(self) -> str:
        head = (
            f"alpha = {self.alpha:.10g}, tau = {self.tau:.10g}, sigma2 = {self.sigma2:.10g}, "
            f"lam = {self.lam:.10g}"
        )
        where = "closed form" if self.lam == 0 else "closed system of Appendix C.9"
        lines = [head, f"{'t':>8}  E_t (Result 1, {where})"]
        if self.E_error is None:
            lines += [f"{t:>8}  {e:.10g}" for t, e in self.E.items()]
        else:
            lines += [f"{t:>8}  {_resolved(e, self.E_error[t])}" for t, e in self.E.items()]
            lines.append("Each E_t to the digits its certified bound resolves; < b: below b.")
        if self.regime is None:
            lines.append(_RIDGE_NOTE)
            return "\n".join(lines)
        for key, value, note in self._rows():
            first, *rest = textwrap.wrap(note, WIDTH - _NOTE_COLUMN)
            lines.append(f"{key:<8}  {value:<14}  {first}")
            lines += [" " * _NOTE_COLUMN + more for more in rest]
        return "\n".join(lines)

    def _rows(self) -> list:
        """``(key, value, note)`` of each Result 2-3 row ``str()`` prints (none when
        ``lam > 0``)."""
        if self.regime is None:
            return []
        rows = [("tau_c", f"{self.tau_c:.8g}", "Result 2's critical task diversity")]
        if self.tau_stable != self.tau_c:
            rows.append(
                (
                    "tau_+",
                    f"{self.tau_stable:.8g}",
                    "the boundary here, not tau_c: below it the positive saddle's rate "
                    "exceeds 1 (sigma2 above the noise threshold of this alpha)",
                )
            )
        return rows + [
            _regime_row(self.regime, self.leading_law),
            _rate_row(self.decay_rate, self.leading_law),
            _floor_row(self.error_floor, self.regime),
            _law_row(self.leading_law, self.regime),
            _optimal_row(self.optimal_depth, self.optimal_depth_note),
        ]


_RIDGE_NOTE = "Results 2 and 3 (tau_c, regime, Lambda, E_inf, t*) are for lam = 0 only."


def _resolved(value, error) -> str:
    """``value`` printed to the digits its bound ``error`` resolves (at most 10), or as
    ``< value + error`` where the bound is not smaller than the value (all 10 where it is 0, as
    at ``E_0 = 1``)."""
    if error == 0:
        return f"{value:.10g}"
    if not error < value:
        return f"< {value + error:.2g}"
    digits = min(10, max(1, math.floor(math.log10(value / error))))
    return f"{value:.{digits}g}"


def _json_number(x):
    return x if x is None or math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _regime_row(regime, law):
    on_double_pole = law is not None and law[2] == asymptotics.DOUBLE_POLE
    return ("regime", regime, _DOUBLE_POLE_NOTE if on_double_pole else REGIME_NOTES[regime])


def _rate_row(rate, law):
    note = "Result 2's rate: E_t - E_inf ~ K t^-1/2 Lambda^t"
    if law is not None and "negative saddle" not in law[2]:
        note += " (not the rate that leads here: see below)"
    return ("Lambda", f"{rate:.8g}", note)


def _floor_row(floor, regime):
    if floor is not None:
        return ("E_inf", f"{floor:.8g}", "Result 2's floor, the limit of E_t")
    if regime == "overthinking":
        return ("E_inf", "none", "E_t has no finite limit")
    return ("E_inf", "-", "Result 2's floor does not apply at tau = tau_+")


def _law_row(law, regime):
    if law is None:
        return ("leading", "-", "the leading term of E_t - E_inf could not be resolved here")
    rate, power, source, t_scale = law
    lhs = "E_t" if regime == "overthinking" else "E_t - E_inf"  # growing: no E_inf to subtract
    note = f"{lhs} ~ K t^{power:g} rate^t: {source}"
    if t_scale >= _LATE_LAW:
        note += (
            f"; its derivation vouches for it only from t ~ {t_scale:.2g} on (other terms may "
            "decide the curve before)"
        )
    return ("leading", f"{rate:.8g}", note)


#: ``t_scale`` from which the leading-law row says how late the law may take over.
_LATE_LAW = 1000.0


def _optimal_row(best, refused):
    if best is not None:
        return ("t*", str(best[0]), f"Result 3's optimal depth, E_t* = {best[1]:.10g}")
    if refused is None:
        return ("t*", "-", "Result 3's optimal depth is defined in the overthinking regime only")
    falls = re.fullmatch(_STILL_FALLS.format(t=r"(\d+)").replace("*", r"\*"), refused)
    shown = f">= {falls[1]}" if falls else "-"
    return ("t*", shown, f"Result 3's optimal depth: {refused}")


_STILL_FALLS = "E_t still falls at t = {t}, so t* >= {t}"


def _depths(t, lam):
    cap = closed_form.DEPTH_T_MAX if lam == 0 else ridge.RIDGE_T_MAX
    values = np.atleast_1d(np.asarray(t, dtype=object)).tolist()
    depths = sorted({nonneg_int("t", v) for v in values})
    if not depths:
        raise ValueError("t must be a depth or a non-empty sequence of depths (integers >= 0)")
    if depths[-1] > cap:
        other = (
            f"{ridge.RIDGE_T_MAX} when lam > 0"
            if lam == 0
            else f"{closed_form.DEPTH_T_MAX} when lam = 0"
        )
        raise ValueError(
            f"t must be <= {cap} when lam {'= 0' if lam == 0 else '> 0'} ({other}), "
            f"got {depths[-1]}"
        )
    return depths


def _errors(alpha, tau, sigma2, depths, lam):
    """``E_t`` at ``depths`` and, where ``lam > 0``, the bounds on them (else ``None``)."""
    if lam == 0:
        values = closed_form.errors_at(alpha, tau, sigma2, depths)
        _in_range(alpha, tau, sigma2, depths, values)
        return values, None
    # what cotbook.theory.error_curve returns for lam > 0 (its default accuracy, LAM_RTOL)
    curve = ridge.ridge_curve(alpha, tau, sigma2, depths[-1], lam=lam)
    return curve.E[depths], curve.error[depths]


def _in_range(alpha, tau, sigma2, depths, values):
    """Refuse (:class:`AccuracyError`, naming the depth) a ``lam = 0`` value that left the
    float64 range: ``errors_at`` returns ``+inf`` beyond 1.8e308 and certifies values below
    ``TINY = 1e-300`` to an absolute ``rtol * TINY`` only (0.0 once they underflow), so
    neither is a number this summary can print."""
    for t, e in zip(depths, values, strict=True):
        where = f"E_{t} at (alpha={alpha:g}, tau={tau:g}, sigma2={sigma2:g})"
        if e == math.inf:
            raise AccuracyError(
                f"{where} exceeds the float64 range (1.8e308): E_t grows without bound here; "
                "ask for shallower depths"
            )
        if e < closed_form.TINY:
            raise AccuracyError(
                f"{where} lies below {closed_form.TINY:g}, where float64 neither holds it nor "
                "certifies its digits (E_t decays to 0 here); ask for shallower depths"
            )


class PhasePoint(NamedTuple):
    """Result 2 at one ridgeless point, the fields of :class:`Summary` of the same names."""

    tau_c: float
    tau_stable: float
    regime: str
    decay_rate: float
    error_floor: float | None
    leading_law: tuple | None


def phase_point(alpha, tau, sigma2) -> PhasePoint:
    """Result 2 at ``(alpha, tau, sigma2)``, ``lam = 0``: ``tau_c``, ``tau_stable``, the regime,
    ``Lambda``, ``E_inf`` (``None`` where E_t has no finite limit, or at ``tau = tau_+`` where
    the floor formula does not apply) and the leading law ``(rate, power, source)``
    (``None`` where no contour is found, next to ``alpha = 1, tau = 1``) -- everything
    :func:`summary` reports but Result 3's optimal depth, whose search can take seconds.

    Examples
    --------
    >>> p = phase_point(2.0, 3.0, 0.01)
    >>> p.regime, round(p.tau_c, 6), p.error_floor, p.leading_law[2]
    ('overthinking', 3.321557, None, 'negative saddle')
    """
    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2)
    tau = domain.tau(tau)
    regime = phases.regime(alpha, tau, sigma2)
    floor = None
    if regime != "overthinking":
        try:
            floor = phases.error_floor(alpha, tau, sigma2)
        except ValueError:  # critical at tau = tau_+ > tau_c: the floor formula does not apply
            floor = None
    try:
        law = phases.asymptotic_law(alpha, tau, sigma2)
        law = (float(law.rate), float(law.power), law.source, float(law.t_scale))
    except (ArithmeticError, ValueError):  # no contour near alpha = 1, tau = 1
        law = None
    rate = float(phases.decay_rate(alpha, tau, sigma2))
    tc = phases.tau_c(alpha, sigma2)
    return PhasePoint(tc, phases.tau_stable(alpha, sigma2), regime, rate, floor, law)


def _phase_fields(alpha, tau, sigma2):
    """Results 2-3 at a ridgeless point: :func:`phase_point`'s fields, then t* and, where the
    overthinking regime defines it but it is not given, why."""
    point = phase_point(alpha, tau, sigma2)
    if point.regime != "overthinking":
        return (*point, None, None)
    try:
        t_star, e_star = phases.optimal_depth(
            alpha, tau, sigma2, t_max=OPTIMAL_T_MAX, method="fast"
        )
    except phases.MinimumNotReached as err:
        if err.at_least is not None:  # E_t still falls at the last depth: t* lies there or later
            return (*point, None, _STILL_FALLS.format(t=err.at_least))
        return (*point, None, f"not certified: {err}")
    except (ValueError, ArithmeticError) as err:  # the curve it needs is not certified
        needs = f"the search needs E_t at every depth up to {OPTIMAL_T_MAX}"
        return (*point, None, f"not certified: {needs}, and {err}")
    return (*point, (int(t_star), float(e_star)), None)


@on_one_blas_thread
def summary(alpha, tau, sigma2, t, *, lam=0.0) -> Summary:
    """Result 1's ``E_t`` at the depths ``t`` and Results 2-3 at one point, in one object.

    ``E_t`` comes from :func:`cotbook.theory.errors_at` (``lam = 0``, certified to 1e-10
    relative, depths up to :data:`~cotbook.theory.exact.closed_form.DEPTH_T_MAX`) or
    :func:`cotbook.theory.error_curve` (``lam > 0``, the closed system of Appendix C.9,
    certified to :data:`~cotbook.theory.LAM_RTOL` relative plus 1e-12, depths up to
    :data:`~cotbook.theory.ridge.RIDGE_T_MAX`; a depth whose small value cannot be
    certified raises :class:`~cotbook.theory.AccuracyError`, naming it; so does a ``lam = 0``
    value beyond the float64 range or below 1e-300, where its digits are not certified).  At
    ``lam = 0`` it adds ``tau_c``, the regime, ``Lambda`` and ``E_inf`` (Result 2,
    :mod:`cotbook.theory.phases`), the leading term of ``E_t - E_inf``
    (:mod:`cotbook.theory.asymptotics`) and, in the overthinking regime, the optimal depth
    (Result 3), searched up to :data:`OPTIMAL_T_MAX` in seconds at any point (issue 63: it took
    minutes near tau_+); where its search cannot certify the curve it needs, that field alone
    is refused (``optimal_depth_note``).

    Parameters
    ----------
    alpha : float
        ``L/D`` in ``[1e-12, 1e12]``.
    tau : float
        ``M/D``: in ``(1, 1e12]`` when ``lam = 0``, ``[1e-12, 1e12]`` when ``lam > 0``.
    sigma2 : float
        Noise variance in ``[0, 1e12]``.
    t : int or sequence of int
        CoT depth(s), each ``>= 0``; returned sorted, without repeats.
    lam : float
        Ridge ``lambda`` in ``[0, 1e12]``.

    Returns
    -------
    Summary
        ``E`` (``{t: E_t}``), ``tau_c``, ``regime``, ``decay_rate``, ``error_floor``,
        ``leading_law``, ``optimal_depth``, ``optimal_depth_note``; ``str()`` of it is what
        ``python -m cotbook theory`` prints, :meth:`Summary.to_dict` what ``--json`` does.

    Examples
    --------
    >>> s = summary(2.0, 3.0, 0.01, [1, 10, 80])
    >>> {t: round(e, 6) for t, e in s.E.items()}
    {1: 0.500557, 10: 0.046165, 80: 0.036966}
    >>> round(s.tau_c, 6), s.regime, s.optimal_depth[0]
    (3.321557, 'overthinking', 30)
    >>> # Result 2 is for lam = 0
    >>> summary(2.0, 3.0, 0.01, 10, lam=0.1).regime is None
    True
    """
    # + 0.0: -0.0 passes ">= 0" and would print as "sigma2 = -0"
    lam = domain.lam(lam) + 0.0
    alpha, sigma2 = domain.alpha(alpha), domain.sigma2(sigma2) + 0.0
    try:
        tau = domain.tau(tau, ridge=lam > 0)
    except ValueError as err:
        if lam > 0:
            raise
        raise ValueError(f"{err} (lam = 0 needs tau > 1; with lam > 0, tau > 0 will do)") from None
    depths = _depths(t, lam)
    values, errors = _errors(alpha, tau, sigma2, depths, lam)
    fields = _phase_fields(alpha, tau, sigma2) if lam == 0 else (None,) * 8
    E = {t: float(e) for t, e in zip(depths, values, strict=True)}
    if errors is not None:
        errors = {t: float(b) for t, b in zip(depths, errors, strict=True)}
    return Summary(alpha, tau, sigma2, lam, E, errors, *fields)
