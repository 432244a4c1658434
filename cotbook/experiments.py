"""The paper's Figure 2: trained linear and softmax attention over an (L, M) grid.

Every configuration of :mod:`cotbook.attention` with the paper's settings (D = 50, no label
noise, lambda = 1e-5, Adam 1e-3, batch 300, 3000 steps) is trained once; its test error is
evaluated for ``t = 0..t_max`` under both masks.  All ``M`` values and trials of one ``(model,
L)`` are trained side by side (:func:`cotbook.attention.train`).  ``python -m cotbook
experiments --scale paper`` saves the result to ``book/results/attention_grid.json``.
"""

from __future__ import annotations

import time

import numpy as np

from . import attention, results

__all__ = ["SCALES", "GRID_RESULT", "grid_configs", "run_grid", "saved_grid", "regime_of_curve"]

GRID_RESULT = "attention_grid"
SCALES = {
    # L and M geometric, from well below D = 50 to well above it.
    "book": dict(Ls=(10, 25, 60, 150), Ms=(25, 100, 400, 1600), trials=2, t_max=40),
    "paper": dict(
        Ls=(10, 15, 25, 35, 50, 75, 110, 160),
        Ms=(25, 50, 100, 200, 400, 800, 1600, 3200),
        trials=5,
        t_max=40,
    ),
}


def grid_configs(Ls, Ms, trials, **settings):
    """``{(model, L): [Config for every M and trial]}``, one training group each."""
    return {
        (model, L): [
            attention.Config(model=model, L=L, M=M, trial=r, **settings)
            for M in Ms
            for r in range(trials)
        ]
        for model in attention.MODELS
        for L in Ls
    }


def run_grid(Ls, Ms, trials, t_max, *, progress=False, **settings):
    """Train and evaluate the grid.  Returns ``{"E": {model: {mask: array [L][M][trial][t]}},
    "final_loss": {model: [L][M][trial]}, "timings_s": {"<model>/L=<L>": seconds}}``,
    JSON-ready."""
    groups = grid_configs(Ls, Ms, trials, **settings)
    shape = (len(Ls), len(Ms), trials)
    E = {m: {k: np.zeros(shape + (t_max + 1,)) for k in attention.MASKS} for m in attention.MODELS}
    loss = {m: np.zeros(shape) for m in attention.MODELS}
    timings = {}
    items = groups.items()
    if progress:
        from tqdm import tqdm

        items = tqdm(items, desc="groups", unit="group")
    for (model, L), configs in items:
        start = time.perf_counter()
        params, losses = attention.train(configs, progress=progress)
        for g, c in enumerate(configs):
            index = (Ls.index(L), Ms.index(c.M), c.trial)
            one = {k: v[g : g + 1] for k, v in params.items()}
            for mask, curve in attention.evaluate(c, one, t_max).items():
                E[model][mask][index] = curve
            loss[model][index] = float(losses[-100:, g].mean())
        timings[f"{model}/L={L}"] = time.perf_counter() - start
    return {
        "E": {m: {k: v.tolist() for k, v in E[m].items()} for m in E},
        "final_loss": {m: v.tolist() for m, v in loss.items()},
        "timings_s": timings,
    }


def saved_grid():
    """The saved paper-scale grid ``(record)`` or ``None``."""
    return results.load(GRID_RESULT)


def regime_of_curve(curve, *, rise=1.1, decay=0.5):
    """Classify a measured ``E_t`` curve (t = 0..T) the way Figure 2's line styles do.

    - ``"overthinking"``: the error at ``T`` exceeds its minimum by more than ``rise`` times;
    - ``"decay"``: otherwise, if ``E_T < decay * E_{T//2}`` (still falling markedly);
    - ``"saturation"``: otherwise (a plateau at long depth).
    """
    curve = np.asarray(curve, dtype=float)
    if curve.ndim != 1 or curve.size < 3 or not np.all(np.isfinite(curve)):
        raise ValueError("curve must be a finite 1-d array of at least 3 errors")
    if curve[-1] > rise * curve.min():
        return "overthinking"
    if curve[-1] < decay * curve[curve.size // 2]:
        return "decay"
    return "saturation"
