import pytest

from cotbook import results


def test_save_and_load_round_trip(tmp_path):
    path = results.save("demo-1", {"a": 1}, {"x": [1.0, 2.5]}, {"run": 0.5}, directory=tmp_path)
    assert path == tmp_path / "demo-1.json"
    record = results.load("demo-1", directory=tmp_path)
    assert record["config"] == {"a": 1} and record["data"] == {"x": [1.0, 2.5]}
    assert record["timings_s"] == {"run": 0.5}
    assert record["code_version"].startswith("cotbook ")
    assert results.load("missing", directory=tmp_path) is None


@pytest.mark.parametrize("name", ["", "../x", "a b", "a/b"])
def test_bad_names(tmp_path, name):
    with pytest.raises(ValueError, match="name must be a non-empty string"):
        results.save(name, {}, {}, {}, directory=tmp_path)


def test_saved_study_is_reproducible():
    """The committed paper-scale study: one entry recomputed from its seed matches the file."""
    import numpy as np

    from cotbook import finite_size, simulate

    record = results.load(finite_size.RESULT_NAME)
    if record is None:
        pytest.skip("no saved study (run `python -m cotbook simulate`)")
    cfg = record["config"]
    D = min(cfg["dims"])
    k, regime = 1, "overthinking"
    alpha, tau = finite_size.panels(cfg["sigma2"])[regime]
    seed = int(np.random.SeedSequence([cfg["seed"], k, D]).generate_state(1)[0])
    _, _, per = simulate.error_curve(
        alpha,
        tau,
        cfg["sigma2"],
        cfg["lam"],
        D,
        cfg["t_max"],
        trials=cfg["trials"],
        test_designs=cfg["test_designs"],
        seed=seed,
    )
    np.testing.assert_allclose(record["data"][regime]["sims"][str(D)]["per_trial"], per, rtol=1e-9)
