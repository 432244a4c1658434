import pytest

from cotbook import bench


@pytest.mark.slow
def test_attention_benchmark_times_both_implementations_of_one_configuration():
    """A tiny run of the benchmark: both models, fast and literal timed, speedup their ratio."""
    out = bench.attention_benchmark(L=4, M=5, steps=3)
    for model in ("linear", "softmax"):
        fast, literal = out[f"{model}_fast_s"], out[f"{model}_literal_s"]
        assert fast > 0 and literal > 0
        assert out[f"{model}_speedup"] == pytest.approx(literal / fast, rel=0.06, abs=0.06)
    with pytest.raises(ValueError, match="steps"):
        bench.attention_benchmark(steps=0)
