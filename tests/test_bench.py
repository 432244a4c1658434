import pytest

from cotbook import bench, phases


def test_accuracy_rows_compare_auto_with_the_recursion():
    rows = bench.accuracy_rows(12, points=((2.0, 3.0, 0.01), (0.5, "tau_c+", 0.01)))
    assert [r[3] for r in rows] == ["overthinking", "saturation"]
    assert rows[1][1] == pytest.approx(phases.tau_c(0.5, 0.01) * (1 + 1e-6))
    for row in rows:
        assert 0 <= row[5] < 1e-10
        assert row[4] > 0


def test_accuracy_points_cover_what_the_issue_asks():
    pts = [bench._resolve(*p) for p in bench.ACCURACY_POINTS]
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


def test_attention_benchmark_times_both_implementations_of_one_configuration():
    """A tiny run of the benchmark: both models, fast and literal timed, speedup their ratio."""
    out = bench.attention_benchmark(L=4, M=5, steps=3)
    for model in ("linear", "softmax"):
        fast, literal = out[f"{model}_fast_s"], out[f"{model}_literal_s"]
        assert fast > 0 and literal > 0
        assert out[f"{model}_speedup"] == pytest.approx(literal / fast, rel=0.06, abs=0.06)
    with pytest.raises(ValueError, match="steps"):
        bench.attention_benchmark(steps=0)
