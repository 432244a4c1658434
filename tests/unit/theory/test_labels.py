"""Issue 63, item 1: the regime, floor and rate that ``theory`` prints never contradict the
certified curve, at 500 random points with sigma2 up to 10 and on the boundaries.

The labels (:func:`cotbook.theory.overview.phase_point`, what ``summary`` and the command
print): the regime (:func:`cotbook.theory.phases.regime`, decided by the term that leads
E_t - E_inf, :func:`cotbook.theory.asymptotics.asymptotic_law`), the floor E_inf (Result 2's,
``None`` where E_t has no limit), the leading law ``K t^power rate^t`` and whether Result 2's
Lambda is its rate (``decay_rate_leads``).

What contradicts the curve, with thresholds from the theory's own scales.  The labels are
statements about t -> infinity: the regime and the leading law ``K t^power rate^t``, which
leads from its depth scale ``t_scale`` on (an order of magnitude: ``1/log(rate/next rate)``,
blind to the constants' ratio).  So the curve is judged only where ``t1 >= SCALE t_scale``
(``SCALE = 10``: "t >> t_scale"), and, first, the printed rows must agree with each other: a
growing regime beside a law that does not grow (rate above ``1 + RATE_TOL``, or rate 1 with a
positive power; ``RATE_TOL = 1e-12``), or the reverse, is a contradiction, but within the
boundary band of ``phases.regime`` (rtol 1e-9 in tau), where it calls the rate 1.  Between
two depths t1 < t2 the law predicts log|E_t - E_inf| to change by ``Delta = (t2 - t1) log(rate) + power log(t2 / t1)``; the pair is
*decisive* where ``|Delta| >= DELTA_MIN = log 2`` (the law predicts at least a doubling or a
halving; the slowest approach it allows, t^-1/2 on a boundary, gives |Delta| = 1.15 per
decade).  With ``theta = THETA = 1/4``, on a decisive pair:

* a growing label ("overthinking") is contradicted if log(E_t2 / E_t1) < theta Delta
  (the curve grows by less than a quarter of the law's log-growth); pairs where its law still
  falls (Delta < 0, before the law's own minimum) claim no growth yet and are not judged;
* a converging label ("critical", "saturation", "exponential") with floor F (0 for
  "exponential") is contradicted if |E_t2 - F| > max(e^(theta Delta) |E_t1 - F|, ETA F):
  the distance to the floor does not shrink by a quarter of the law's log-factor and is not
  within ETA = 1e-6 of it (100 times the relative accuracy the values are certified to).  A
  floor off by more than ETA is caught there: the distance stops shrinking.

How the thresholds were chosen, and checked on points they were not chosen on: THETA and
the first rule (judged from ``t_scale`` on, and before it the direction) were set on the 500
points of seed 63; a referee then drew 4000 fresh points (seeds 1-8) and found 11 flagged,
every one a label right as t -> infinity on a curve not yet in its law's regime at t <= 10^4
(t_scale underestimates where the next term's constant is large), or a growing law judged
where it still falls.  The rule above (SCALE, the Delta < 0 exemption, the consistency check)
was set then, on those 4500 points (0 flagged; SCALE 3 flags one, SCALE 1 one); the test
runs it on seed 2063, drawn after (0 flagged, measured before it was committed), and
:func:`test_the_verdicts_survive_other_thresholds` on other SCALE, THETA, DELTA_MIN and ETA.
What the rule cannot see: a label whose law leads only beyond t = 10^4 (no pair is judged
there), which is why the command prints ``t_scale`` beside the law.

``decay_rate_leads`` is contradicted if it is true and Lambda is not the law's rate.  The test
shows the verdicts survive other thresholds (THETA 1/8 and 1/2, DELTA_MIN log 10, ETA 1e-7
and 1e-5, SCALE 3 and 30) and that they have teeth: a floor moved by 1e-4 is contradicted at
half the saturation points or more, a wrong regime at most points.
"""

import math
from decimal import Decimal
from typing import NamedTuple

import pytest
import theory_points

from cotbook.theory import ball, closed_form, contour, overview, phases

DEPTHS = (100, 1000, 10_000)
RTOL = 1e-8  # accuracy of the curve's values
DELTA_MIN = math.log(2.0)
THETA = 0.25
SCALE = 10.0
RATE_TOL = 1e-12  # as _verdict below; inside regime's band (rtol 1e-9 in tau) no row check
SEED = 2063
ETA = 100 * RTOL
BALL_T_MAX = 1000  # the ball reference costs about a second there, half a minute at 10^4
N_POINTS = 500
GROWING = {"overthinking"}


class Measured(NamedTuple):
    point: tuple
    label: overview.PhasePoint
    law: phases.AsymptoticLaw
    log_E: dict
    """``{t: log E_t}`` at the depths some evaluation certifies."""
    sources: dict
    """``{t: "contours" | "engine" | "ball" | "skipped"}``."""


def _log_values(alpha, tau, sigma2, depths=DEPTHS):
    """log E_t by the contours (certified to RTOL, any size), else the engine
    (:func:`cotbook.theory.exact.closed_form.error_at`, float64), else the ball enclosure for
    t <= BALL_T_MAX; other depths are skipped."""
    got = contour.deep_errors(alpha, tau, sigma2, depths, RTOL)
    values, sources = {}, {}
    for t in depths:
        if t in got:
            values[t] = math.log(got[t].mantissa) + got[t].log_scale
            sources[t] = "contours"
            continue
        try:
            e = closed_form.error_at(alpha, tau, sigma2, t, rtol=RTOL)
        except ArithmeticError:
            e = math.nan
        if closed_form.TINY < e < math.inf:
            values[t], sources[t] = math.log(e), "engine"
        elif t <= BALL_T_MAX:
            enclosure = ball.ball_error_at(alpha, tau, sigma2, t)
            assert enclosure.relative() < RTOL
            values[t], sources[t] = float(Decimal(enclosure.mid).ln()), "ball"
        else:
            sources[t] = "skipped"
    return values, sources


def measure(alpha, tau, sigma2, depths=DEPTHS) -> Measured:
    label = overview.phase_point(alpha, tau, sigma2)
    law = phases.asymptotic_law(alpha, tau, sigma2)
    return Measured((alpha, tau, sigma2), label, law, *_log_values(alpha, tau, sigma2, depths))


def _log_distance(log_e, floor):
    """log |E_t - floor| (``-inf`` where they are equal in float64)."""
    if not floor:
        return log_e
    gap = abs(math.exp(log_e) - floor)
    return math.log(gap) if gap > 0 else -math.inf


def _law_grows(law) -> bool:
    """Whether ``K t^power rate^t`` grows without bound (rate 1 within RATE_TOL)."""
    on_one = abs(law.rate - 1.0) <= RATE_TOL
    return (law.rate > 1.0 and not on_one) or (on_one and law.power > 0)


def _in_boundary_band(alpha, tau, sigma2) -> bool:
    """Within ``phases.regime``'s band around tau_stable, where it calls the rate 1."""
    stable = phases.tau_stable(alpha, sigma2)
    return abs(tau - stable) <= phases.CRITICAL_RTOL * stable


def contradictions(
    m: Measured, *, theta=THETA, delta_min=DELTA_MIN, eta=ETA, scale=SCALE, regime=None
):
    """The labels of ``m`` the curve contradicts (module docstring), as strings, and the number
    of decisive pairs of depths.  ``regime`` overrides the label (to show the rule's teeth)."""
    regime = m.label.regime if regime is None else regime
    floor = m.label.error_floor
    out, decisive = [], 0
    if (regime in GROWING) != _law_grows(m.law) and not _in_boundary_band(*m.point):
        out.append(f"{regime} beside the leading law rate {m.law.rate}, power {m.law.power}")
    leads = "negative saddle" in m.law.source
    if leads and m.label.decay_rate != pytest.approx(m.law.rate, rel=1e-12):
        out.append(f"Lambda = {m.label.decay_rate} said to lead, the law's rate is {m.law.rate}")
    ts = sorted(m.log_E)
    for t1, t2 in zip(ts, ts[1:], strict=False):
        if t1 < scale * m.law.t_scale:
            continue  # the law does not lead yet: the labels say nothing about these depths
        delta = (t2 - t1) * math.log(m.law.rate) + m.law.power * math.log(t2 / t1)
        if abs(delta) < delta_min or (regime in GROWING and delta < 0):
            continue
        decisive += 1
        claimed = theta * delta
        if regime in GROWING:
            grown = m.log_E[t2] - m.log_E[t1]
            if grown < claimed:
                out.append(f"{regime}: log(E_{t2}/E_{t1}) = {grown:.4g}, the law {delta:.4g}")
            continue
        f = floor or 0.0
        d1, d2 = _log_distance(m.log_E[t1], f), _log_distance(m.log_E[t2], f)
        if d2 > max(d1 + claimed, math.log(eta * f) if f else -math.inf):
            out.append(
                f"{regime}, floor {f:.10g}: log|E - F| from {d1:.4g} (t = {t1}) to {d2:.4g} "
                f"(t = {t2}), the law {delta:.4g}"
            )
    return out, decisive


def _random_points(n):
    """alpha log-uniform in [0.1, 10], sigma2 up to 10, tau on both sides of the boundary
    (:func:`theory_points.random_points`), seed 2063 (module docstring)."""
    return theory_points.random_points(n, SEED)[0]


@pytest.fixture(scope="module")
def random_points():
    return [measure(*p) for p in _random_points(N_POINTS)]


@pytest.mark.slow
def test_no_label_contradicts_the_curve_at_500_random_points(random_points):
    skipped = sum(s == "skipped" for m in random_points for s in m.sources.values())
    ball_used = sum(s == "ball" for m in random_points for s in m.sources.values())
    regimes = {r: sum(m.label.regime == r for m in random_points) for r in phases.REGIMES}
    found, decisive = [], 0
    for m in random_points:
        bad, k = contradictions(m)
        found += [f"{m.point}: {b}" for b in bad]
        decisive += k
    report = (
        f"{len(random_points)} points {regimes}, {decisive} decisive pairs of depths, "
        f"{ball_used} values from the ball reference, {skipped} depths skipped"
    )
    assert not found, report + "\n" + "\n".join(found[:20])
    # the rule decided at most points (where t_scale > 1000 it cannot: the law leads beyond
    # 10^4), with every regime but the boundary's represented
    assert decisive >= 0.9 * N_POINTS, report
    assert min(regimes[r] for r in ("overthinking", "saturation", "exponential")) >= 50, report
    assert skipped <= 0.02 * 3 * N_POINTS, report


@pytest.mark.slow
@pytest.mark.parametrize(
    "theta, delta_min, eta, scale",
    [(0.125, DELTA_MIN, ETA, SCALE), (0.5, DELTA_MIN, ETA, SCALE)]
    + [(THETA, math.log(10.0), ETA, SCALE), (THETA, DELTA_MIN, 1e-7, SCALE)]
    + [(THETA, DELTA_MIN, 1e-5, SCALE), (THETA, DELTA_MIN, ETA, 3.0), (THETA, DELTA_MIN, ETA, 30.0)],
)
def test_the_verdicts_survive_other_thresholds(random_points, theta, delta_min, eta, scale):
    """Stricter (THETA 1/2, ETA 1e-7, SCALE 3) and looser thresholds.  On the referee's seeds
    1-8, SCALE 3 flags one point and THETA 1/2 another (module docstring): labels right as
    t -> infinity on curves not in their law's regime by t = 10^4."""
    for m in random_points:
        got = contradictions(m, theta=theta, delta_min=delta_min, eta=eta, scale=scale)[0]
        assert got == [], m.point


WRONG = {"overthinking": "exponential", "exponential": "overthinking", "saturation": "exponential"}


def _wrong(m: Measured) -> Measured:
    """``m`` with the regime it is not: growth and decay to 0 swapped, a floor dropped."""
    floor = None if m.label.regime == "saturation" else m.label.error_floor
    return m._replace(label=m.label._replace(regime=WRONG[m.label.regime], error_floor=floor))


@pytest.mark.slow
def test_the_rule_catches_a_wrong_label(random_points):
    """The rule has teeth: a floor moved by 1e-4 (relative) is contradicted at half the
    saturation points at least (at the others the law leads only beyond t = 1000, where one
    pair of depths or none is judged), and a wrong regime at 17 points out of 20."""
    saturated = [m for m in random_points if m.label.regime == "saturation"]
    moved = [
        m._replace(label=m.label._replace(error_floor=m.label.error_floor * (1 + 1e-4)))
        for m in saturated
    ]
    assert sum(bool(contradictions(m)[0]) for m in moved) >= 0.5 * len(saturated)
    wrong = sum(bool(contradictions(_wrong(m))[0]) for m in random_points)
    assert wrong >= 0.85 * len(random_points)


BOUNDARY = [
    (2.0, phases.tau_c(2.0, 0.01), 0.01, "critical"),  # Result 2's (II)
    (0.5, phases.tau_c(0.5, 0.01), 0.01, "critical"),  # alpha < 1 on tau_c: to the floor
    (2.0, 2.0, 1.0, "critical"),  # tau_+ > tau_c, alpha > 1: a saddle at rate 1
    (0.5, 3.0, 1.0, "overthinking"),  # tau_+ > tau_c, alpha < 1: the double pole, E_t ~ t/10
    (0.5, 5.0, 3.0, "overthinking"),
]


def _verdict(law: phases.AsymptoticLaw, alpha) -> str:
    """The regime the leading term says: growth (rate above 1, or rate 1 with a positive
    power), a power of t (rate 1, negative power), or a rate below 1 to the floor."""
    on_one = abs(law.rate - 1.0) <= 1e-12
    if (law.rate > 1.0 and not on_one) or (on_one and law.power > 0):
        return "overthinking"
    if on_one:
        return "critical"
    return "saturation" if alpha < 1.0 else "exponential"


def test_the_regime_is_the_leading_terms_verdict():
    """phases.regime decides in closed form (tau against tau_stable, the power on the
    boundary); the law, computed from every candidate term, gives the same verdict at every
    random point, on the boundaries and on the line alpha = 1."""
    points = _random_points(N_POINTS) + [p[:3] for p in BOUNDARY] + [(1.0, 10.0, 0.01)]
    for p in points:
        assert phases.regime(*p) == _verdict(phases.asymptotic_law(*p), p[0]), p


@pytest.mark.slow
@pytest.mark.parametrize("alpha, tau, sigma2, regime", BOUNDARY)
def test_no_label_contradicts_the_curve_on_the_boundaries(alpha, tau, sigma2, regime):
    """On the boundaries, where the leading rate is 1 and the power decides; the points of
    the issue ((0.5, 3, 1), (0.5, 5, 3): "critical" beside E_t growing linearly) included.
    At tau = tau_+ the contours do not apply (two poles meet): the ball enclosure gives E_t."""
    m = measure(alpha, tau, sigma2, (100, 1000))
    assert m.label.regime == regime
    # judged from t = 100 whatever t_scale says: on the boundary its estimate is no guide
    # ((2, 2, 1): 2e31, where the Result 2 chapter's table shows the law at t = 100 already)
    bad, decisive = contradictions(m, scale=0.0)
    assert not bad and decisive == 1, (m.log_E, m.law)
