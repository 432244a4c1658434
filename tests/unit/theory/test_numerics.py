import pytest

from cotbook.theory import numerics, phases


def test_accuracy_rows_compare_auto_with_the_recursion():
    rows = numerics.accuracy_rows(12, points=((2.0, 3.0, 0.01), (0.5, "tau_c+", 0.01)))
    assert [r.regime for r in rows] == ["overthinking", "saturation"]
    assert rows[1].tau == pytest.approx(phases.tau_c(0.5, 0.01) * (1 + 1e-6))
    for row in rows:
        assert 0 <= row.max_rel_diff < 1e-10
        assert row.E_end > 0


def test_accuracy_points_cover_every_regime_and_noise_level():
    pts = [numerics.resolve_point(*p) for p in numerics.ACCURACY_POINTS]
    assert len(pts) >= 10
    assert {s for _, _, s in pts} >= {0.0, 1e-4, 1e-2, 1e-1}
    assert any(a < 1 for a, _, _ in pts) and any(a == 1 for a, _, _ in pts)
    assert any(a > 1 for a, _, _ in pts)
    assert {phases.regime(*p) for p in pts} == {
        "overthinking",
        "critical",
        "exponential",
        "saturation",
    }
