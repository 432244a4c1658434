"""The instability study: CoT maps against the layers they linearise, and the tiny run."""

import dataclasses

import numpy as np
import pytest
import torch

from cotbook.attention import grid, instability, layer, versus_theory
from cotbook.simulation import model
from cotbook.theory import phases


def _trained(L=12, M=40, D=6, steps=50):
    config = layer.Config(model="linear", L=L, M=M, D=D, steps=steps)
    params, _ = layer.train([config])
    return config, params


def test_trained_map_is_the_step_jacobian():
    config, params = _trained()
    Z, _, est0 = layer.test_set(config, 8)
    J = instability.trained_maps(params, Z, config.L)
    S = torch.einsum("nli,nlj->nij", Z.double(), Z.double())
    p = {k: v.double() for k, v in params.items()}
    base = layer.step(p, "linear", S, est0[None], L=config.L)[0]
    for i in range(config.D):  # the step is affine: a unit difference is exact
        moved = est0.clone()
        moved[:, i] += 1.0
        column = layer.step(p, "linear", S, moved[None], L=config.L)[0] - base
        np.testing.assert_allclose(column.numpy(), J[:, :, i], rtol=1e-9, atol=1e-12)


def test_simplified_map_is_the_error_recursion():
    rng = np.random.default_rng(3)
    D, L = 7, 11
    A = rng.standard_normal((D, D)) / D
    X = rng.standard_normal((1, D, L)) / np.sqrt(D)
    e0 = rng.standard_normal(D)
    J = instability.simplified_maps(A, X)[0]
    np.testing.assert_allclose(J @ e0, model.error_recursion(A, X[0], e0, 1)[1], rtol=1e-12)


def test_spectral_radius_and_tolerance():
    maps = np.stack([np.eye(4), np.diag([0.5, -1.2, 0.1, 0.0]), 0.9 * np.eye(4)])
    np.testing.assert_allclose(instability.spectral_radius(maps), [1.0, 1.2, 0.9])
    rotation = np.array([[[0.0, -1.1], [1.1, 0.0]]])  # complex pair of modulus 1.1
    assert instability.spectral_radius(rotation)[0] == pytest.approx(1.1)
    # the identity (untouched directions) is not unstable, whatever its rounding
    assert instability._summary(np.array([1.0 + 1e-12, 1.5]))["unstable"] == 0.5


def test_margin_vanishes_on_the_boundary():
    tc = phases.tau_c(1.5, 0.0)
    assert versus_theory.margin(1.5, tc, 0.0) == pytest.approx(0.0, abs=1e-9)
    assert versus_theory.margin(1.5, 1.2 * tc, 0.0) > 0 > versus_theory.margin(1.5, 0.8 * tc, 0.0)


@pytest.mark.slow
def test_tiny_study_agrees_with_the_grid_runs():
    """Trial 0 of the Figure 2 protocol is retrained bit for bit: the share of test tasks that
    end above their start (examples mask) is the grid's."""
    spec = dataclasses.replace(instability.SCALES["tiny"], tasks=4096)
    unit = instability.run_unit(spec, "grid/L=5")
    grid_spec = grid.GridSpec(
        Ls=(5,), Ms=spec.Ms, trials=1, t_max=spec.t_max, settings=spec.settings
    )
    data, _ = grid.run(grid_spec)
    for j, cell in enumerate(unit["trained"]):
        assert cell["rising"] == data["unstable"]["linear"]["examples"][0][j][0]
    for cell in unit["simplified"]:
        assert 0.0 <= cell["unstable"] <= 1.0 and len(cell["E_mean"]) == spec.t_max + 1
        assert cell["E_mean"][0] == pytest.approx(1.0)


def test_bad_input():
    with pytest.raises(ValueError, match="points must be"):
        instability.InstabilitySpec(Ls=(5,), Ms=(10,), points=((1.5, 0.5),))
    with pytest.raises(ValueError, match="settings must not hold 'seed'"):
        instability.InstabilitySpec(Ls=(5,), Ms=(10,), settings={"seed": 1})
    with pytest.raises(ValueError, match="unit must be one of"):
        instability.run_unit(instability.SCALES["tiny"], "grid/L=7")
    with pytest.raises(ValueError, match="A must have shape"):
        instability.simplified_maps(np.eye(3), np.zeros((1, 4, 5)))


def test_classify_reads_nested_curves():
    from cotbook.attention import regimes

    curves = [[[2.0, 1.0, 0.1], [2.0, 1.5, 1.4]], [[2.0, 1.0, 3.0], [2.0, 1.9, 1.9]]]
    assert regimes.classify(curves) == [["decay", "saturation"], ["overthinking", "saturation"]]
