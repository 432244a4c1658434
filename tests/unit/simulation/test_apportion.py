import math

import numpy as np
import pytest

from cotbook.simulation import apportion as ap


def test_the_thresholds_are_named():
    assert (ap.LEVEL, ap.TOP_SHARE_MAX) == (0.05, 0.05)
    assert ap.DEPTHS == (1, 2, 3, 5, 10, 20)
    assert len(set(ap.VERDICTS)) == len(ap.VERDICTS) == 5
    # Student's t with trials - 1 degrees of freedom, not the normal 1.96
    assert ap.critical(5) == pytest.approx(2.7764, abs=1e-4)
    assert ap.critical(1000) == pytest.approx(1.9623, abs=1e-4)
    with pytest.raises(ValueError, match="trials must be an integer >= 2"):
        ap.critical(1)


@pytest.mark.parametrize(
    "gap,gap_se,finite,finite_se,tail,expected",
    [
        (0.02, 0.002, 0.021, 0.001, False, ap.SIZE),  # z = -0.45, gap 10 SE
        (0.02, 0.002, 0.040, 0.001, False, ap.BELOW),  # z = -8.9: trained below the model
        (0.04, 0.002, 0.020, 0.001, False, ap.ABOVE),  # z = +8.9
        (-0.5, 0.1, 0.3, 0.01, False, ap.BELOW),  # opposite signs, z = -8.0
        (0.002, 0.003, 0.01, 0.001, True, ap.TAIL),
        (0.02, 0.008, 0.02, 0.001, False, ap.UNRESOLVED),  # z = 0 but |gap| = 2.5 SE < 2.78
        (0.02, 0.002, math.inf, math.inf, True, ap.TAIL),  # a mean beyond float64
    ],
)
def test_every_verdict_is_reachable(gap, gap_se, finite, finite_se, tail, expected):
    share, share_se, z, said = ap.verdict(
        gap, gap_se, finite, finite_se, tail, critical_value=ap.critical(5)
    )
    assert said == expected
    if not tail:
        assert share == pytest.approx(finite / gap)
        assert z == pytest.approx((gap - finite) / math.hypot(gap_se, finite_se))


def test_a_gap_the_model_misses_is_below_it_resolved_or_not():
    """Trained layers at Result 1 (gap 0.001 +- 0.002, unresolved) while the model sits 0.02
    above: the model is rejected (z = -8.5), which says more than "gap unresolved"."""
    said = ap.verdict(0.001, 0.002, 0.02, 0.001, False, critical_value=ap.critical(5))[3]
    assert said == ap.BELOW


def test_the_sign_convention_gap_is_trained_minus_reference():
    """Trained layers 0.3 below the reference, finite size 0.3 above it: below the model, share -1.
    With the gap taken the other way round (reference - trained) the same numbers would read
    share +1, "finite size explains it"; so would a finite-size shift taken as
    reference - simulated."""
    reference = np.array([2.0, 1.5, 1.2])
    trained = np.stack([reference - 0.3 + d for d in (-0.01, 0.0, 0.01, 0.005, -0.005)])
    (row,) = ap.cell_shares(
        10, 400, 50, trained, reference, reference + 0.3, [0, 0.01, 0.01], [0.1, 0.01, 0.01], [2]
    )
    assert row.gap == pytest.approx(-0.3) and row.finite == pytest.approx(0.3)
    assert row.share == pytest.approx(-1.0) and row.verdict == ap.BELOW
    flipped = ap.verdict(
        -row.gap, row.gap_se, row.finite, row.finite_se, False, critical_value=ap.critical(5)
    )[3]
    assert flipped == ap.SIZE


def test_the_tail_rule_and_its_two_flags():
    """The theory's scale: the per-set variance of E_t(D) is infinite from t = (M - D + 1)/4;
    the measured flag is the top set's share.  Both are kept on the row, the verdict is tail
    when either is up."""
    assert ap.tail_depth(100, 50) == 12.75 and ap.tail_depth(3200, 50) == 787.75
    with pytest.raises(ValueError, match="M must be an integer > D = 50"):
        ap.tail_depth(50, 50)
    reference = np.linspace(2.0, 1.0, 21)
    trained = np.stack([reference + 0.2 + 0.01 * k for k in range(5)])
    top = np.full(21, 0.001)
    top[5] = 0.2  # one rare set makes the mean at t = 5
    rows = ap.cell_shares(10, 100, 50, trained, reference, reference + 0.2, np.full(21, 0.01), top)
    by_t = {r.t: r for r in rows}
    assert [r.t for r in rows] == list(ap.DEPTHS)
    assert (by_t[5].tail_by_theory, by_t[5].tail_by_top_share) == (False, True)
    assert (by_t[20].tail_by_theory, by_t[20].tail_by_top_share) == (True, False)
    assert by_t[5].verdict == by_t[20].verdict == ap.TAIL
    assert math.isnan(by_t[20].share)
    assert by_t[10].verdict == ap.SIZE  # t = 10 < 12.75 and a fair top share
    assert by_t[10].gap == pytest.approx(0.22)  # the mean of the five trials
    # The top-share threshold is a parameter: above 0.2 the t = 5 row is judged on its share.
    loose = ap.cell_shares(
        10, 100, 50, trained, reference, reference + 0.2, np.full(21, 0.01), top,
        [5], top_share_max=0.25,
    )  # fmt: skip
    assert loose[0].verdict == ap.SIZE


def test_counts_and_changed_verdicts_under_another_threshold():
    reference = np.ones(4)
    noisy = np.stack([reference + 0.1 + 0.05 * d for d in (-2, -1, 0, 1, 2)])  # SE 0.035
    args = (reference, reference + 0.1, np.full(4, 0.001), np.full(4, 0.001), [1, 2, 3])
    strict = ap.cell_shares(15, 800, 50, noisy, *args, level=0.01)  # t_4 critical 4.60
    loose = ap.cell_shares(15, 800, 50, noisy, *args)  # 2.78: the gap 0.1 = 2.83 SE
    assert {r.verdict for r in strict} == {ap.UNRESOLVED}
    assert {r.verdict for r in loose} == {ap.SIZE}
    assert ap.changed_verdicts(strict, loose) == [
        (15, 800, t, ap.UNRESOLVED, ap.SIZE) for t in (1, 2, 3)
    ]
    headers, table = ap.verdict_counts(loose, depths=(1, 2, 3))
    assert headers == ["verdict", "t = 1", "t = 2", "t = 3"]
    assert dict((row[0], row[1:]) for row in table)[ap.SIZE] == [1, 1, 1]
    assert table[-1] == ["tail flags disagree", 0, 0, 0]
    with pytest.raises(ValueError, match="same cells and depths"):
        ap.changed_verdicts(strict, loose[:2])


def test_bad_input():
    ones = np.ones(3)
    with pytest.raises(ValueError, match="depths must be <= 2"):
        ap.cell_shares(10, 100, 50, np.ones((5, 3)), ones, ones, ones, ones, [3])
    with pytest.raises(ValueError, match="trained must hold at least 2 trials"):
        ap.cell_shares(10, 100, 50, np.ones((1, 3)), ones, ones, ones, ones, [1])
    with pytest.raises(ValueError, match="gap_se must be a finite number >= 0"):
        ap.verdict(0.1, -1.0, 0.1, 0.0, False, critical_value=2.0)


def test_the_committed_verdicts_and_their_thresholds():
    """The committed records, read as the chapter reads them (studies.finite_d_shares): all 24
    cells at every depth.  At the fewest tasks of the design (M = 100) every judged row at
    t <= 5 lies below the D = 50 model; only at the most (M = 3200) does the model explain the
    gap at several rows.  Moving the level to 0.01 or 0.1 moves few rows between "explains it"
    and "below"; the two tail flags disagree."""
    from cotbook.book import studies

    rows, text = studies.finite_d_shares()
    assert len(rows) == 24 * len(ap.DEPTHS) and "2000 pretraining sets" in text
    few = [r for r in rows if r.M == 100 and r.t <= 5 and r.verdict != ap.TAIL]
    assert len(few) >= 12 and all(r.verdict == ap.BELOW for r in few)
    many = [r for r in rows if r.M == 3200 and r.t <= 5]
    assert sum(r.verdict == ap.SIZE for r in many) >= 5
    assert all(r.verdict == ap.TAIL for r in rows if r.t == 20)
    for level in (0.01, 0.1):
        other, _ = studies.finite_d_shares(level=level)
        changed = ap.changed_verdicts(rows, other)
        assert sum({a, b} == {ap.SIZE, ap.BELOW} for *_, a, b in changed) <= 3, changed
    assert sum(r.tail_by_top_share and not r.tail_by_theory for r in rows) > 0


def test_the_typical_shift_is_shown_beside_the_verdict_not_used_by_it():
    reference = np.ones(3)
    trained = np.stack([reference + 0.1 + 0.001 * d for d in range(5)])
    args = (reference, reference + 0.1, np.full(3, 0.001), np.full(3, 0.001), [1])
    (plain,) = ap.cell_shares(25, 3200, 50, trained, *args)
    (shown,) = ap.cell_shares(25, 3200, 50, trained, *args, typical=reference + 0.03)
    assert math.isnan(plain.finite_typical) and shown.finite_typical == pytest.approx(0.03)
    assert plain._replace(finite_typical=shown.finite_typical) == shown  # the verdict too


def test_at_depth_10_the_mean_s_shift_is_made_by_rare_draws():
    """Where the committed verdicts at t = 10 say finite size explains the gap, what a study of
    five sets typically sees (median over groups of five of their mean) is under half the
    mean's shift: those verdicts lean on rare draws that five trials would mostly miss."""
    from cotbook.book import studies

    rows, _ = studies.finite_d_shares()
    at_10 = [r for r in rows if r.t == 10 and r.verdict == ap.SIZE]
    assert at_10 and all(r.finite_typical < 0.5 * r.finite for r in at_10)
    at_3 = [r for r in rows if r.t == 3 and r.verdict == ap.SIZE]
    assert at_3 and all(r.finite_typical > 0.8 * r.finite for r in at_3)


def test_position_between_two_models():
    """Trained 0.1 above Result 1; models at +0.3 and -0.1: position 0.5, "middle"; models at
    +0.25 and -0.5: position 0.8 with SE about 0.01, nearer the zero-start one; a position
    far outside [0, 1] is still reported (models at +0.05 and -0.1: 1.33)."""
    reference = np.ones(3)
    trained = np.stack([reference + 0.1 + 0.001 * d for d in (-2, -1, 0, 1, 2)])
    se, top = np.full(3, 0.001), np.full(3, 0.001)

    def model(shift):
        return ap.cell_shares(25, 800, 50, trained, reference, reference + shift, se, top, [1])

    ((*_, f, f_se, side),) = ap.position(model(0.3), model(-0.1))
    assert f == pytest.approx(0.5) and side == "middle"
    assert f_se == pytest.approx(math.hypot(0.000707, 0.0005, 0.0005) / 0.4, rel=0.01)
    ((*_, f, f_se, side),) = ap.position(model(0.25), model(-0.5))
    assert f == pytest.approx(0.8) and side == "zero_start" and f_se < 0.01
    ((*_, f, _, side),) = ap.position(model(-0.5), model(0.25))  # the roles swapped
    assert f == pytest.approx(0.2) and side == "averaged"
    ((*_, f, _, _),) = ap.position(model(0.05), model(-0.1))
    assert f == pytest.approx(0.2 / 0.15)
    with pytest.raises(ValueError, match="same cells and depths"):
        ap.position(model(0.3), model(0.3)[:0])


def test_the_pretraining_tail_applies_only_where_asked():
    reference = np.linspace(2.0, 1.0, 21)
    trained = np.stack([reference + 0.2 + 0.01 * k for k in range(5)])
    args = (reference, reference + 0.2, np.full(21, 0.01), np.full(21, 0.001), [20])
    (flagged,) = ap.cell_shares(10, 100, 50, trained, *args)
    (free,) = ap.cell_shares(10, 100, 50, trained, *args, pretraining_tail=False)
    assert flagged.verdict == ap.TAIL and flagged.tail_by_theory
    assert not free.tail_by_theory and free.verdict != ap.TAIL


def test_the_committed_positions():
    """At t <= 5 the trained layers sit nearer the model pretrained as they are at the fewest
    tasks of the design (M = 100: most rows), and never nearer it at the most (M = 3200)."""
    from cotbook.book import studies

    zero, _ = studies.finite_d_shares()
    averaged, _ = studies.finite_d_shares(reference="averaged")
    placed = [p for p in ap.position(zero, averaged) if p[2] <= 5]
    assert len(placed) >= 90
    few = [p for p in placed if p[1] == 100]
    assert sum(p[5] == "averaged" for p in few) > 0.5 * len(few)
    assert not [p for p in placed if p[1] == 3200 and p[5] == "averaged"]


def test_counts_by_tasks_and_the_position_summary():
    reference = np.ones(4)
    trained = np.stack([reference + 0.1 + 0.001 * d for d in (-2, -1, 0, 1, 2)])
    se, top = np.full(4, 0.001), np.full(4, 0.001)

    def model(M, shift):
        return ap.cell_shares(25, M, 50, trained, reference, reference + shift, se, top, [1, 2])

    rows = model(100, 0.3) + model(200, 0.1)
    headers, table = ap.counts_by_tasks(rows, t_max=1)
    assert headers == ["M", *ap.VERDICTS]
    assert table == [[100, 0, 1, 0, 0, 0], [200, 0, 0, 0, 0, 1]]  # below; explained
    placed = ap.position(model(100, 0.3) + model(200, 0.25), model(100, -0.1) + model(200, -0.5))
    summary = ap.position_summary(placed)
    assert [s[:3] for s in summary] == [[100, 2, pytest.approx(0.5)], [200, 2, pytest.approx(0.8)]]
    assert summary[0][4:] == [0, 2, 0] and summary[1][4:] == [0, 0, 2]
