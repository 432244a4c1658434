import json

import numpy as np
import pytest

from cotbook.book import explorer, explorer_page, records
from cotbook.theory import closed_form, overview

TINY = explorer.SCALES["tiny"]


@pytest.fixture(scope="module")
def tiny():
    return explorer.compute(TINY)


def test_encoded_curves_decode_to_the_engine_s_values(tiny):
    """Stored log10 E_t is the engine's to half a storage step, E_0 = 1 exactly, and each
    point carries Result 2 as overview.phase_point gives it."""
    data = explorer.encode(tiny)
    alphas, taus, log10E = explorer.decode(json.loads(json.dumps(data)))
    assert log10E.shape == (1, 6, 6, TINY.t_max + 1)
    assert np.all(log10E[..., 0] == 0)
    exact = np.log10([closed_form.error_at(alphas[2], taus[4], 0.01, t) for t in (3, 10)])
    assert np.abs(log10E[0, 2, 4, [3, 10]] - exact).max() <= explorer.QUANTUM / 2 + 1e-12
    k = 2 * len(taus) + 4
    point = overview.phase_point(alphas[2], taus[4], 0.01)
    level = data["levels"][0]
    assert explorer.REGIMES[level["regime"][k]] == point.regime
    assert level["rate"][k] == pytest.approx(point.decay_rate, rel=1e-5)
    assert level["tau_c"][2] == pytest.approx(point.tau_c, rel=1e-5)


def test_interpolation_is_bilinear_in_the_log_axes(tiny):
    """At a grid point the stored curve; at a cell centre the mean of its four corners."""
    data = explorer.encode(tiny)
    alphas, taus, log10E = explorer.decode(data)
    assert np.array_equal(explorer.interpolate(data, alphas[1], taus[2], 0), log10E[0, 1, 2])
    a, tau = np.sqrt(alphas[1] * alphas[2]), 1 + np.sqrt((taus[2] - 1) * (taus[3] - 1))
    corners = log10E[0, 1:3, 2:4].mean(axis=(0, 1))
    assert np.abs(explorer.interpolate(data, a, tau, 0) - corners).max() < 1e-9


def test_interpolation_error_is_measured_against_the_exact_curve(tiny):
    """The reported largest difference is the one at its cell centre, recomputed here."""
    data = explorer.encode(tiny)
    err = explorer.interpolation_error(data, 0)
    assert err.centres == 25 and err.median <= err.p95 <= err.largest
    a, tau = err.where
    exact = np.log10([closed_form.error_at(a, tau, 0.01, t) for t in range(TINY.t_max + 1)])
    gap = np.abs(explorer.interpolate(data, a, tau, 0) - exact).max()
    assert gap == pytest.approx(err.largest, rel=1e-6)


def test_bad_input_is_refused_by_name(tiny):
    data = explorer.encode(tiny)
    with pytest.raises(ValueError, match="alpha must lie in"):
        explorer.interpolate(data, 20.0, 2.0, 0)
    with pytest.raises(ValueError, match="tau - 1 must lie in"):
        explorer.interpolate(data, 1.5, 1.001, 0)
    with pytest.raises(ValueError, match="s must index"):
        explorer.interpolate(data, 1.5, 2.0, 1)
    with pytest.raises(ValueError, match="encoded data"):
        explorer.decode({"alphas": [1.0], "taus": [2.0], "t_max": 3, "levels": [{}]})
    with pytest.raises(ValueError, match="encoded data"):
        explorer_page.page({"alphas": []})


def test_the_page_carries_its_data_and_script(tiny):
    data = explorer.encode(tiny)
    block = explorer_page.page(data, element_id="x")
    inline = block.split('<script type="application/json" id="x-data">')[1].split("</script>")[0]
    assert json.loads(inline) == json.loads(json.dumps(data))
    assert "function cotbookExplorer" in block and 'cotbookExplorer("x");' in block


@pytest.mark.parametrize("direction", [-np.inf, np.inf])
def test_the_grid_is_the_same_whatever_the_last_bit_of_logspace(monkeypatch, direction):
    """np.logspace differs in the last bit between CPUs (one of the 32 taus on an AMD EPYC
    machine against the one that wrote the record); the rounded grid does not."""
    cases = ((-1, 1, 32), (-2, 2, 32), (-1, 1, 6), (-2, 2, 6))
    grids = [explorer.log_points(*case) for case in cases]
    logspace = np.logspace
    monkeypatch.setattr(np, "logspace", lambda *a: np.nextafter(logspace(*a), direction))
    for case, grid in zip(cases, grids):
        assert np.array_equal(explorer.log_points(*case), grid)
        assert np.abs(grid / logspace(*case) - 1).max() < 1e-11


def test_the_committed_record_is_the_paper_grid_and_the_engine_s_values():
    """theory_explorer holds GRID, E_t at its points as the engine gives them now, and an
    interpolation error per noise level."""
    record = records.load("theory_explorer")
    g, saved = explorer.GRID, explorer.Grid.from_dict(record.config)
    assert np.array_equal(saved.alphas, g.alphas) and np.array_equal(saved.taus, g.taus)
    assert saved.sigma2s == g.sigma2s and saved.t_max == g.t_max and record.config == g.to_dict()
    _, _, log10E = explorer.decode(record.data["page"])
    alphas, taus = np.asarray(record.config["alphas"]), np.asarray(record.config["taus"])
    for s, sigma2 in enumerate(g.sigma2s[:2]):
        for i, j in ((0, 0), (9, 17), (31, 31), (20, 5)):
            exact = np.log10([closed_form.error_at(alphas[i], taus[j], sigma2, t) for t in (1, 80)])
            assert np.abs(log10E[s, i, j, [1, 80]] - exact).max() <= explorer.QUANTUM / 2 + 1e-9
    assert [e["sigma2"] for e in record.data["interpolation"]] == list(g.sigma2s)
