"""Figure helpers shared by the chapters (one look for every plot in the book)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm

from .. import _checks
from ..theory import phases

__all__ = [
    "error_curve",
    "block_heatmap",
    "theory_vs_simulation",
    "deviation_curves",
    "phase_heatmap",
    "REGIME_STYLES",
    "attention_grid",
    "regime_curves",
    "versus_theory",
]


def error_curve(ax, mean, sem=None, *, label=None, **style):
    """Plot ``E_t`` against ``t = 0, 1, ...`` on a log scale, with ``+-`` SEM bars if given."""
    mean = _checks.array("mean", mean, ndim=1)
    t = np.arange(mean.size)
    if sem is None:
        ax.plot(t, mean, label=label, **style)
    else:
        sem = _checks.array("sem", sem, ndim=1)
        if sem.shape != mean.shape:
            raise ValueError(f"sem must have the shape of mean {mean.shape}, got {sem.shape}")
        ax.errorbar(t, mean, yerr=sem, label=label, capsize=2, **style)
    ax.set_yscale("log")
    ax.set_xlabel("CoT depth $t$")
    ax.set_ylabel(r"$\mathcal{E}_t$")
    return ax


def block_heatmap(ax, matrix, D, *, title=None):
    """Show a ``(2D+2) x (2D+2)`` parameter matrix with its ``(D, 1, D, 1)`` blocks outlined."""
    matrix = _checks.array("matrix", matrix, ndim=2)
    D = _checks.positive_int("D", D)
    if matrix.shape != (2 * D + 2, 2 * D + 2):
        raise ValueError(f"matrix must have shape {(2 * D + 2,) * 2}, got {matrix.shape}")
    scale = np.max(np.abs(matrix)) or 1.0
    image = ax.imshow(matrix, cmap="RdBu_r", vmin=-scale, vmax=scale)
    for edge in (D, D + 1, 2 * D + 1):
        ax.axhline(edge - 0.5, color="0.5", lw=0.6)
        ax.axvline(edge - 0.5, color="0.5", lw=0.6)
    names = ["$x$", "$y$", r"$\hat w$", "1"]
    centres = [(D - 1) / 2, D, D + 1 + (D - 1) / 2, 2 * D + 1]
    ax.set_xticks(centres, names)
    ax.set_yticks(centres, names)
    if title:
        ax.set_title(title)
    plt.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def theory_vs_simulation(axes, panels, t_max=None):
    """One axis per regime: theory curve (line) and simulations at each ``D`` (markers +- SEM).

    The y-range is the theory's range widened by 3x below and 30x above, so points of small-D
    runs that blow up at large depth can lie off scale.

    ``panels`` is the ``{regime: {"alpha", "tau", "theory", "sims": {D: {"mean", "sem"}}}}``
    structure of :func:`cotbook.finite_size.run`.
    """
    axes = np.ravel(axes)
    if len(axes) != len(panels):
        raise ValueError(f"axes must provide one axis per panel ({len(panels)}), got {len(axes)}")
    colours = plt.cm.viridis(np.linspace(0.0, 0.85, max(len(p["sims"]) for p in panels.values())))
    for ax, (regime, panel) in zip(axes, panels.items(), strict=True):
        theory = np.asarray(panel["theory"])
        last = theory.size if t_max is None else t_max + 1
        for colour, (D, sim) in zip(colours, panel["sims"].items(), strict=False):
            error_curve(
                ax,
                np.asarray(sim["mean"])[:last],
                np.asarray(sim["sem"])[:last],
                label=f"D = {D}",
                color=colour,
                ls="none",
                marker="o",
                ms=2.5,
            )
        ax.plot(np.arange(last), theory[:last], color="k", lw=1.2, label=r"theory ($D\to\infty$)")
        # Keep the theory readable: small-D runs that blow up at large t go off scale.
        ax.set_ylim(theory[:last].min() / 3, theory[:last].max() * 30)
        ax.set_title(rf"{regime}: $\alpha = {panel['alpha']:g}$, $\tau = {panel['tau']:.3g}$")
    axes[0].legend(fontsize=7)
    return axes


def deviation_curves(axes, panels):
    """One axis per regime: |relative deviation| of the simulated mean from theory against t."""
    axes = np.ravel(axes)
    if len(axes) != len(panels):
        raise ValueError(f"axes must provide one axis per panel ({len(panels)}), got {len(axes)}")
    for ax, (regime, panel) in zip(axes, panels.items(), strict=True):
        theory = np.asarray(panel["theory"])
        dims = sorted(panel["sims"], key=int)
        colours = plt.cm.viridis(np.linspace(0.0, 0.85, len(dims)))
        for colour, D in zip(colours, dims, strict=True):
            dev = np.abs(np.asarray(panel["sims"][D]["mean"]) / theory - 1)
            ax.semilogy(np.arange(1, theory.size), dev[1:], color=colour, label=f"D = {D}")
        ax.set_title(regime)
        ax.set_xlabel("CoT depth $t$")
    axes[0].set_ylabel("|relative deviation|")
    axes[0].legend(fontsize=7)
    return axes


def _grid(row_name, rows, col_name, cols, grid):
    """Validated 1-d axes and a ``(rows, cols)`` float grid of values over them."""
    rows = _checks.array(row_name, rows, ndim=1)
    cols = _checks.array(col_name, cols, ndim=1)
    grid = np.asarray(grid, dtype=float)
    if grid.shape != (rows.size, cols.size):
        raise ValueError(f"grid must have shape {(rows.size, cols.size)}, got {grid.shape}")
    return rows, cols, grid


def _log_image(ax, x, y, values, shading, vmin, vmax):
    """``values[j, i]`` at ``(x[i], y[j])`` as a heatmap with log colours and log axes."""
    image = ax.pcolormesh(
        x, y, values, shading=shading, cmap="viridis", norm=LogNorm(vmin=vmin, vmax=vmax)
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    return image


def phase_heatmap(ax, alphas, taus, grid, sigma2, *, vmin=1e-8, vmax=1e4):
    """Figure 1A: ``log10 E_t`` over (tau - 1, alpha) on log axes, with the tau_c(alpha) curve.

    ``grid[i, j]`` is ``E_t`` at ``(alphas[i], taus[j])``; colours are clipped to
    ``[vmin, vmax]`` (overthinking errors reach 1e150 and more).
    """
    alphas, taus, grid = _grid("alphas", alphas, "taus", taus, grid)
    image = _log_image(ax, taus - 1, alphas, np.clip(grid, vmin, vmax), "auto", vmin, vmax)
    critical = np.array([phases.tau_c(a, sigma2) for a in alphas])
    shown = critical - 1 <= (taus - 1).max()
    ax.plot(critical[shown] - 1, alphas[shown], "w--", lw=1.5, label=r"$\tau_c(\alpha,\sigma^2)$")
    ax.set_xlabel(r"$\tau - 1$")
    ax.set_ylabel(r"$\alpha$")
    plt.colorbar(image, ax=ax, label=r"$\mathcal{E}_t$")
    return ax


REGIME_STYLES = {"decay": "-", "overthinking": "--", "saturation": ":"}


def attention_grid(ax, Ls, Ms, grid, D, *, vmin=None, vmax=None, theory=True):
    """Figure 2A/2C: ``E_t`` over the (L, M) grid of trained models, log colour, log axes.

    ``grid[i, j]`` is the error at ``(Ls[i], Ms[j])``.  With ``theory``, the simplified model's
    ``tau_c(alpha, 0)`` mapped to ``M = D tau_c(L / D)`` is drawn where it lies on the plot.
    """
    Ls, Ms, grid = _grid("Ls", Ls, "Ms", Ms, grid)
    image = _log_image(ax, Ls, Ms, grid.T, "nearest", vmin, vmax)
    if theory:
        fine = np.geomspace(Ls.min(), Ls.max(), 200)
        boundary = np.array([D * phases.tau_c(L / D, 0.0) for L in fine])
        shown = np.isfinite(boundary) & (boundary <= Ms.max())
        ax.plot(fine[shown], boundary[shown], "w--", lw=1.5, label=r"$M = D\,\tau_c(L/D)$")
        ax.axvline(D, color="w", lw=0.8, ls=":")
        ax.legend(fontsize=7, loc="lower left")
    ax.set_xlabel("context length $L$")
    ax.set_ylabel("training tasks $M$")
    plt.colorbar(image, ax=ax)
    return ax


def regime_curves(ax, curves):
    """Figure 2B/2D: ``{label: (mean, sem, regime)}``, each ``E_t`` against ``t`` with SEM
    bars, line style by regime (solid decay, dashed overthinking, dotted saturation)."""
    for label, (mean, sem, regime) in curves.items():
        if regime not in REGIME_STYLES:
            raise ValueError(f"regime must be one of {sorted(REGIME_STYLES)}, got {regime!r}")
        error_curve(ax, mean, sem, label=f"{label} ({regime})", ls=REGIME_STYLES[regime], lw=1.2)
    ax.legend(fontsize=7)
    return ax


def versus_theory(ax, curves):
    """``{label: (mean, sem, theory)}``: each trained ``E_t`` (solid, SEM bars) with the
    theory's curve ``theory`` dashed in the same colour (``None``: no theory drawn)."""
    for label, (mean, sem, theory) in curves.items():
        error_curve(ax, mean, sem, label=label, lw=1.2)
        if theory is not None:
            color = ax.containers[-1][0].get_color()  # the errorbar's data line
            theory = _checks.array("theory", theory, ndim=1)
            ax.plot(np.arange(theory.size), theory, ls="--", lw=1.0, color=color)
    (key,) = ax.plot([], [], "k--", lw=1.0)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend([*handles, key], [*labels, "theory"], fontsize=7)
    return ax
