"""The authors' released runs, parsed from the committed record: grids, curves, trials and
learned matrices as the authors' files give them, the facts recorded about each run, and
files that contradict each other refused."""

import base64
import csv
import io
import json

import numpy as np
import pytest

from cotbook.book import records
from cotbook.book.authors import manifest, runs

LINEAR_GRID = [10, 38, 66, 94, 121, 149, 177, 205, 233, 261, 289, 316, 344, 372, 400]
SOFTMAX_M_LOW = [10, 16, 27, 44, 72, 118, 193, 316, 518, 848, 1389, 2276, 3728, 6105, 10000]
SOFTMAX_M_HIGH = [100, 139, 193, 268, 373, 518, 720, 1000, 1389, 1931, 2683, 3728, 5179, 7197]
SOFTMAX_M_HIGH += [10000]
SOFTMAX_N = [10, 14, 19, 27, 37, 52, 72, 100, 139, 193, 268, 373, 518, 720, 1000]
DYNAMICS_PAIRS = [(30, 200), (10, 10000), (30, 10000), (100, 10000), (200, 10000)]
DYNAMICS_PAIRS += [(400, 10000), (600, 10000), (800, 10000)]
FIGURE_2A = "linear_dynamics_20260417_170446"


@pytest.fixture(scope="module")
def release():
    return runs.release()


@pytest.fixture(scope="module")
def stored():
    return manifest.files()


def _e0_sd(config):
    """Standard deviation of E_0 = mean over D coordinates and the test tasks of
    (w_hat_0 - w)_i^2, with w_hat_0 and w independent N(0, I_D): each term is 2 chi^2_1, mean 2
    and variance 8."""
    return np.sqrt(8 / (config.D * config.eval_tasks))


def test_every_run_is_there(release):
    assert list(release.heatmaps) == list(runs.HEATMAPS)
    assert list(release.dynamics) == list(runs.DYNAMICS)
    assert list(release.learned) == ["M20_N20", "M20_N200", "M200_N20", "M200_N200"]
    assert len(release.runs) == 14
    assert release.record.name == manifest.NAME
    for name, view in release.runs.items():
        assert view.name == name and f"{view.folder}/" in "".join(manifest.MANIFEST)


def test_e0_is_2_in_every_cell_and_trial(release):
    """The first estimate is N(0, I_D), so E_0 = 2 up to the sampling error of the test tasks:
    every cell within 5 standard deviations, every run's mean within 4 of its own."""
    for view in release.heatmaps.values():
        assert view.t[0] == 0 and view.config.eval_tasks == 4096
        E0, sd = view.E[..., 0], _e0_sd(view.config)
        assert np.abs(E0 - 2).max() < 5 * sd, view.name
        assert abs(E0.mean() - 2) < 4 * sd / np.sqrt(E0.size), view.name
    for view in release.dynamics.values():
        assert view.config.eval_tasks == 2048
        E0 = np.concatenate([c.E[:, 0] for c in view.curves])
        assert np.abs(E0 - 2).max() < 5 * _e0_sd(view.config), view.name


def test_linear_heatmaps(release):
    for name in ("latest_linear_heatmap", "linear_heatmap_20260416_150619"):
        view = release.heatmaps[name]
        assert view.attention == "linear" and view.E.shape == (15, 15, 32)
        assert view.M.tolist() == view.N.tolist() == LINEAR_GRID
        assert view.t.tolist() == list(range(32))
        cfg = view.config
        assert (cfg.D, cfg.lam, cfg.steps, cfg.batch, cfg.seed) == (50, 1e-3, 5000, 300, 941)
        assert (cfg.mask, cfg.trials, cfg.lr, cfg.data_weight) == ("data_only", 1, 1e-3, 1.0)
        assert cfg.raw["USE_HISTORY_AT_INFERENCE"] == "False"
        assert np.isfinite(view.E).all()
    latest = release.heatmaps["latest_linear_heatmap"]
    np.testing.assert_array_equal(latest.at(M=10, N=10)[:2], [1.9984153509, 2.7105967999])
    np.testing.assert_array_equal(latest.at(M=400, N=400), latest.E[-1, -1])


def test_heatmaps_agree_with_their_heat_files(release, stored):
    """Independently of the parser: heat_t28 / heat_t30 rows are M, columns N."""
    for view in release.heatmaps.values():
        for depth in (28, 30):
            path = f"{view.folder}/heat_t{depth}.csv"
            if path in stored:
                heat = np.loadtxt(io.StringIO(stored[path].decode()), delimiter=",", ndmin=2)
                np.testing.assert_array_equal(heat, view.E[:, :, depth])
    assert "linear_heatmap/results/latest_linear_heatmap/heat_t30.csv" in stored


def test_softmax_heatmaps(release):
    grids = {
        "softmax_heatmap_20260410_193511": ([10, 100], [10, 100], "history_cot"),
        "softmax_heatmap_20260410_193854": ([10, 100], [10, 100], "history_cot"),
        "softmax_heatmap_20260410_195447": (SOFTMAX_M_LOW, SOFTMAX_N, "history_cot"),
        "softmax_heatmap_20260411_003316": (SOFTMAX_M_HIGH, SOFTMAX_N, "history_cot"),
        "softmax_heatmap_20260417_195912": (SOFTMAX_M_HIGH, SOFTMAX_N, "data_only"),
    }
    for name, (M, N, mask) in grids.items():
        view = release.heatmaps[name]
        assert view.attention == "softmax" and view.config.mask == mask, name
        assert view.M.tolist() == M and view.N.tolist() == N, name
        assert view.E.shape == (len(M), len(N), 32), name
        assert view.config.raw["ATTN_MASK_MODE"] == mask


def test_figure_panels_and_marker_convention(release):
    figures = {name: (v.figure, v.figure_t) for name, v in release.runs.items() if v.figure}
    assert figures == {
        "latest_linear_heatmap": ("Figure 2B", 30),
        "softmax_heatmap_20260417_195912": ("Figure 2C", 30),
        FIGURE_2A: ("Figure 2A", None),
    }
    early = {name for name, v in release.runs.items() if v.early_marker}
    history = {n for n, v in release.heatmaps.items() if v.config.mask == "history_cot"}
    assert early == {"linear_heatmap_20260416_150619", *history} and len(history) == 4
    assert all(any("marker value 1" in n for n in release.runs[name].notes) for name in early)


def test_linear_dynamics_trials_mean_and_standard_error(release, stored):
    view = release.dynamics[FIGURE_2A]
    cfg = view.config
    assert (cfg.trials, cfg.steps, cfg.batch, cfg.lam, cfg.data_weight) == (5, 3000, 500, 1e-4, 0.5)
    assert list(zip(view.N.tolist(), view.M.tolist(), strict=True)) == DYNAMICS_PAIRS
    assert view.t.tolist() == list(range(22)) and view.rerun_of is None
    rows = list(csv.DictReader(io.StringIO(stored[f"{view.folder}/summary.csv"].decode())))
    assert len(rows) == 8 * 22
    for c in view.curves:
        assert c.E.shape == (5, 22) and c.E.dtype == np.float64
        # the authors' seed rule: trial k has seed 120 + 1000 k + 17 N + M
        assert c.seeds == tuple(120 + 1000 * k + 17 * c.N + c.M for k in range(5))
        sem = np.std(c.E, axis=0, ddof=1) / np.sqrt(5)
        np.testing.assert_allclose(c.sem, sem, rtol=1e-13)
        np.testing.assert_array_equal(c.mean, c.E.mean(axis=0))
        mine = [r for r in rows if (int(r["n"]), int(r["m"])) == (c.N, c.M)]
        assert [int(r["t"]) for r in mine] == list(range(22))
        np.testing.assert_allclose([float(r["mean_loss"]) for r in mine], c.mean, rtol=1e-14)
        np.testing.assert_allclose([float(r["se_loss"]) for r in mine], c.sem, rtol=1e-12)
    # Figure 2A's first pair overthinks: E_21 is over 20 times E_6 in every trial
    first = view.curve(N=30, M=200)
    assert (first.E[:, -1] > 20 * first.E[:, 6]).all()


def test_reruns_equal_trial_0(release):
    whole = release.dynamics[FIGURE_2A].curve(30, 200)
    for name in ("linear_dynamics_20260417_164420", "linear_dynamics_20260417_164550"):
        view = release.dynamics[name]
        assert view.rerun_of == (FIGURE_2A, 0) and view.config.trials == 1
        (c,) = view.curves
        assert (c.N, c.M, c.seeds) == (30, 200, (whole.seeds[0],))
        np.testing.assert_array_equal(c.E[0], whole.E[0])
        assert np.isnan(c.sem).all()
        assert any(name in note for note in release.dynamics[FIGURE_2A].notes)


def test_learned_matrices(release, stored):
    for name, view in release.learned.items():
        assert view.config.D == 10 and name == f"M{view.M}_N{view.N}"
        assert view.V.shape == view.W.shape == (22, 22)
        for which, matrix in (("v", view.V), ("w", view.W)):
            text = stored[f"{view.folder}/{which}_matrix.csv"].decode()
            np.testing.assert_array_equal(matrix, -np.loadtxt(io.StringIO(text), delimiter=","))
            assert np.isfinite(matrix).all() and np.abs(matrix).max() > 0.5
    assert {v.M for v in release.learned.values()} == {20, 200}


def test_notes_state_checked_facts(release):
    notes = release.heatmaps["latest_linear_heatmap"].notes
    assert any("same seeds as linear_heatmap_20260416_150619" in n for n in notes)
    old, new = (
        release.heatmaps[n] for n in ("linear_heatmap_20260416_150619", "latest_linear_heatmap")
    )
    np.testing.assert_array_equal(old.E[..., 0], new.E[..., 0])
    assert (old.E[..., 1:] != new.E[..., 1:]).all()
    assert any("protocol" in n for n in release.notes)


def test_views_are_read_only(release):
    with pytest.raises(ValueError, match="read-only"):
        release.heatmaps["latest_linear_heatmap"].E[0, 0, 0] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        release.dynamics[FIGURE_2A].curves[0].E[0, 0] = 0.0


def test_bad_input_names_the_parameter(release, tmp_path):
    with pytest.raises(ValueError, match="name must be one of"):
        runs.run("latest_heatmap")
    with pytest.raises(ValueError, match="directory must be an existing folder"):
        runs.release(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="directory must be an existing folder"):
        runs.release(7)
    with pytest.raises(records.ResultError, match="no such record"):
        runs.release(tmp_path)
    grid = release.heatmaps["latest_linear_heatmap"]
    with pytest.raises(ValueError, match="^M must be one of 10, 38"):
        grid.at(M=11, N=10)
    with pytest.raises(ValueError, match="^N must be one of 10, 38"):
        grid.at(M=10, N="10")
    with pytest.raises(ValueError, match=r"^N, M must be one of the run's pairs"):
        release.dynamics[FIGURE_2A].curve(N=200, M=30)


def _forged(tmp_path, monkeypatch, path, change):
    """A copy of the committed record whose stored file ``path`` is ``change(text)``, with its
    blob id recomputed and put in the manifest: only the parser can refuse it."""
    record = manifest.load()
    raw = json.loads(record.path.read_text())
    entry = next(e for e in raw["data"]["files"] if e["path"] == path)
    data = change(records.file_bytes(entry))
    if entry["encoding"] == "text":
        entry["content"] = data.decode()
    else:
        entry["content"] = base64.b64encode(data).decode()
    entry["blob"] = records.git_blob_id(data)
    monkeypatch.setitem(manifest.MANIFEST, path, entry["blob"])
    raw["data_sha256"] = records.data_hash(raw["data"])  # a consistent forgery
    raw["record_sha256"] = records.record_hash(raw)
    (tmp_path / f"{manifest.NAME}.json").write_text(json.dumps(raw))
    return tmp_path


def _change_last_value(text: bytes) -> bytes:
    lines = text.decode().splitlines(keepends=True)
    last = lines[-1].rstrip("\n").split(",")
    last[-1] = "1.2345678900e+00"
    lines[-1] = ",".join(last) + "\n"
    return "".join(lines).encode()


@pytest.mark.parametrize(
    "path, what",
    [
        ("linear_heatmap/results/latest_linear_heatmap/heat_t30.csv", "disagrees with"),
        ("softmax_heatmap/results/softmax_heatmap_20260410_195447/heat_t28.csv", "disagrees"),
        (f"linear_dynamics/results/{FIGURE_2A}/summary.csv", "disagrees with"),
    ],
)
def test_files_that_disagree_are_refused(tmp_path, monkeypatch, path, what):
    folder = _forged(tmp_path, monkeypatch, path, _change_last_value)
    with pytest.raises(records.ResultError, match=f"stored file {path}: {what}"):
        runs.release(folder)


def test_a_rerun_that_is_not_one_is_refused(tmp_path, monkeypatch):
    """The rerun facts are checked on the curves: claiming another trial fails."""
    run = "linear_dynamics_20260417_164550"
    copy = tmp_path / f"{manifest.NAME}.json"
    copy.write_bytes(manifest.load().path.read_bytes())
    monkeypatch.setitem(runs._RERUNS, run, (FIGURE_2A, 1))
    with pytest.raises(records.ResultError, match=f"{run}/raw_eval_curves.npz: is not trial 1"):
        runs.release(tmp_path)
