"""Result 1 beside the finite-D simulations of :mod:`cotbook.simulation.finite_size`.

The simulation records hold simulations only, so that a change of the theory engine does not
stale hours of them; the ``D -> infinity`` curve of Result 1 (lambda = 0,
:func:`cotbook.theory.exact.closed_form.ridgeless_curve`) is added when a study is read
(:func:`with_theory`), by the theory of the checkout that reads it.
"""

from __future__ import annotations

import numpy as np

from ..theory import closed_form, phases
from . import finite_size

__all__ = ["with_theory", "run", "noise_reading_table"]


def with_theory(spec: finite_size.SimulationSpec, panels) -> dict:
    """``panels`` (:func:`finite_size.assemble`'s) with each panel's Result 1 curve at
    ``spec.sigma2`` for ``t <= spec.t_max`` as ``"theory"`` (a new dict; ``panels`` is left
    as it is)."""
    return {
        regime: {
            **panel,
            "theory": closed_form.ridgeless_curve(
                panel["alpha"], panel["tau"], spec.sigma2, spec.t_max
            ).tolist(),
        }
        for regime, panel in panels.items()
    }


def run(spec: finite_size.SimulationSpec, *, progress=False) -> tuple[dict, dict]:
    """:func:`finite_size.run` with Result 1's curves (:func:`with_theory`)."""
    panels, timings = finite_size.run(spec, progress=progress)
    return with_theory(spec, panels), timings


def noise_reading_table(t_max, sigma2_a=finite_size.SIGMA2, sigma2_b=1e-2):
    """How the panels change between two readings of the noise level (sigma2_a vs sigma2_b):
    the largest relative change of the theory curve over ``t <= t_max`` and the regime under
    each reading."""
    rows = []
    for regime, (alpha, tau) in finite_size.panels(sigma2_a).items():
        a = closed_form.ridgeless_curve(alpha, tau, sigma2_a, t_max)
        b = closed_form.ridgeless_curve(alpha, tau, sigma2_b, t_max)
        rows.append(
            [
                regime,
                float(np.max(np.abs(b / a - 1))),
                phases.regime(alpha, tau, sigma2_a),
                phases.regime(alpha, tau, sigma2_b),
            ]
        )
    headers = [
        "panel",
        f"max_t<={t_max} |change|",
        f"regime ({sigma2_a:g})",
        f"regime ({sigma2_b:g})",
    ]
    return headers, rows
