import numpy as np
import pytest
import torch

from cotbook import attention, experiments


def test_regime_of_curve():
    t = np.arange(41)
    assert experiments.regime_of_curve(2.0 * 0.8**t) == "decay"
    assert experiments.regime_of_curve(0.5 + 1.5 * 0.8**t) == "saturation"
    assert experiments.regime_of_curve(2.0 * 0.8**t + 1e-3 * 1.2**t) == "overthinking"
    with pytest.raises(ValueError, match="finite 1-d array"):
        experiments.regime_of_curve([1.0, np.inf, 2.0])


def test_grid_runs_every_configuration_and_is_reproducible_alone():
    """A small grid: shapes, and one entry recomputed alone from its seeds (the stacked program
    trains each configuration as it would be trained by itself)."""
    settings = dict(D=4, steps=30, batch=8)
    out = experiments.run_grid((3, 5), (4, 9), 2, 3, **settings)
    for model in attention.MODELS:
        for mask in attention.MASKS:
            E = np.asarray(out["E"][model][mask])
            assert E.shape == (2, 2, 2, 4) and np.all(np.isfinite(E))
            assert np.all(np.abs(E[..., 0] / 2.0 - 1) < 0.2)  # E_0 = E|w - w_hat_0|^2/D = 2
        config = attention.Config(model=model, L=5, M=9, trial=1, **settings)
        params, _ = attention.train([config], dev=torch.device("cpu"))
        again = attention.evaluate(config, params, 3)
        for mask in attention.MASKS:
            np.testing.assert_allclose(out["E"][model][mask][1][1][1], again[mask], rtol=1e-5)
    assert set(out["timings_s"]) == {f"{m}/L={L}" for m in attention.MODELS for L in (3, 5)}
