"""Figure helpers shared by the chapters (one look for every plot in the book).

Every chapter makes its figures with :func:`figure`: 7.5 in wide at 100 dpi, the width of the
book's text column (about 770 px in a 1400-px window), so a figure is shown at full size and
its 9-10 pt text stays legible; the colours are the Okabe-Ito palette (:data:`PALETTE`), safe
for colour-blind readers.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap, LogNorm

from .. import _checks
from ..theory import phases

__all__ = [
    "PALETTE",
    "COLUMN_IN",
    "figure",
    "error_curve",
    "block_heatmap",
    "theory_vs_simulation",
    "deviation_curves",
    "phase_heatmap",
    "REGIME_STYLES",
    "attention_grid",
    "regime_curves",
    "versus_theory",
    "trials_and_single",
    "REGIME_COLOURS",
    "regime_map",
    "regime_legend",
    "significant",
    "percent",
    "value_grid",
    "VERDICT_COLOURS",
    "verdict_summary",
    "richardson",
]

#: Okabe-Ito colours (blue, vermillion, green, purple, orange, sky blue, black, yellow).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
#: Width of a figure, inches: the text column at 100 dpi.
COLUMN_IN = 7.5
_STYLE = {
    "figure.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.framealpha": 0.9,
    "axes.prop_cycle": mpl.cycler(color=PALETTE),
    "lines.linewidth": 1.5,
}


def figure(nrows: int = 1, ncols: int = 1, *, height: float | None = None, **subplots):
    """``fig, axes`` sized for the text column (:data:`COLUMN_IN` wide, constrained layout) in
    the book's style. At most three panels per row; ``height`` (inches) defaults to 4.2 for one
    panel and 3.3 per row otherwise. ``subplots`` go to :func:`matplotlib.pyplot.subplots`."""
    nrows = _checks.positive_int("nrows", nrows)
    ncols = _checks.positive_int("ncols", ncols)
    if ncols > 3:
        raise ValueError(
            f"ncols must be 1, 2 or 3 (panels per row at the column's width), got {ncols}"
        )
    if height is None:
        height = 4.2 if nrows == ncols == 1 else 3.3 * nrows
    height = _checks.positive("height", height)
    mpl.rcParams.update(_STYLE)
    return plt.subplots(nrows, ncols, figsize=(COLUMN_IN, height), layout="constrained", **subplots)


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
    structure of :func:`cotbook.finite_size.run`. The lines are labelled (``$D = 50$``, ...,
    theory) for one legend of the figure; no axis gets a legend of its own.
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
                label=f"$D = {D}$",
                color=colour,
                ls="none",
                marker="o",
                ms=2.5,
            )
        ax.plot(np.arange(last), theory[:last], color="k", lw=1.2, label=r"theory ($D\to\infty$)")
        # Keep the theory readable: small-D runs that blow up at large t go off scale.
        ax.set_ylim(theory[:last].min() / 3, theory[:last].max() * 30)
        ax.set_title(rf"{regime}: $\alpha = {panel['alpha']:g}$, $\tau = {panel['tau']:.3g}$")
    return axes


def deviation_curves(axes, panels):
    """One axis per regime: |relative deviation| of the simulated mean from theory against t,
    one line per ``$D = ...$`` (labelled for a figure legend; no axis legend)."""
    axes = np.ravel(axes)
    if len(axes) != len(panels):
        raise ValueError(f"axes must provide one axis per panel ({len(panels)}), got {len(axes)}")
    for ax, (regime, panel) in zip(axes, panels.items(), strict=True):
        theory = np.asarray(panel["theory"])
        dims = sorted(panel["sims"], key=int)
        colours = plt.cm.viridis(np.linspace(0.0, 0.85, len(dims)))
        for colour, D in zip(colours, dims, strict=True):
            dev = np.abs(np.asarray(panel["sims"][D]["mean"]) / theory - 1)
            ax.semilogy(np.arange(1, theory.size), dev[1:], color=colour, label=f"$D = {D}$")
        ax.set_title(regime)
        ax.set_xlabel("CoT depth $t$")
    axes[0].set_ylabel("|relative deviation|")
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


def phase_heatmap(ax, alphas, taus, grid, sigma2, t, *, vmin=1e-8, vmax=1e4):
    """Figure 1A: ``E_t`` (at depth ``t``) over (tau - 1, alpha), log colours and axes, with the
    tau_c(alpha) curve.

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
    t = _checks.nonneg_int("t", t)
    plt.colorbar(image, ax=ax, label=rf"$\mathcal{{E}}_{{{t}}}$")
    return ax


REGIME_STYLES = {"decay": "-", "overthinking": "--", "saturation": ":"}


def attention_grid(ax, Ls, Ms, grid, D, *, vmin=None, vmax=None, theory=True, label=None):
    """Figure 2A/2C: ``E_t`` over the (L, M) grid of trained models, log colour, log axes.

    ``grid[i, j]`` is the error at ``(Ls[i], Ms[j])``.  With ``theory``, the simplified model's
    ``tau_c(alpha, 0)`` mapped to ``M = D tau_c(L / D)`` (dashed white) and ``L = D`` (dotted
    white) are drawn where they lie on the plot; the caption names them (no legend over the
    data). ``label``: the colour bar's label.
    """
    Ls, Ms, grid = _grid("Ls", Ls, "Ms", Ms, grid)
    image = _log_image(ax, Ls, Ms, grid.T, "nearest", vmin, vmax)
    if theory:
        fine = np.geomspace(Ls.min(), Ls.max(), 200)
        boundary = np.array([D * phases.tau_c(L / D, 0.0) for L in fine])
        shown = np.isfinite(boundary) & (boundary <= Ms.max())
        ax.plot(fine[shown], boundary[shown], "w--", lw=1.5, label=r"$M = D\,\tau_c(L/D)$")
        ax.axvline(D, color="w", lw=0.8, ls=":")
    ax.set_xlabel("context length $L$")
    ax.set_ylabel("training tasks $M$")
    plt.colorbar(image, ax=ax, label=label)
    return ax


def regime_curves(ax, curves, **legend):
    """Figure 2B/2D: ``{label: (mean, sem, regime)}``, each ``E_t`` against ``t`` with SEM
    bars, line style by regime (solid decay, dashed overthinking, dotted saturation); one legend,
    placed by ``legend`` (:meth:`matplotlib.axes.Axes.legend` options)."""
    for label, (mean, sem, regime) in curves.items():
        if regime not in REGIME_STYLES:
            raise ValueError(f"regime must be one of {sorted(REGIME_STYLES)}, got {regime!r}")
        error_curve(ax, mean, sem, label=f"{label} ({regime})", ls=REGIME_STYLES[regime], lw=1.2)
    ax.legend(**legend)
    return ax


def versus_theory(ax, curves, **legend):
    """``{label: (mean, sem, theory)}``: each trained ``E_t`` (solid, SEM bars) with the
    theory's curve ``theory`` dashed in the same colour (``None``: no theory drawn); one legend
    with a "theory" key, placed by ``legend`` (:meth:`matplotlib.axes.Axes.legend` options)."""
    for label, (mean, sem, theory) in curves.items():
        error_curve(ax, mean, sem, label=label, lw=1.2)
        if theory is not None:
            color = ax.containers[-1][0].get_color()  # the errorbar's data line
            theory = _checks.array("theory", theory, ndim=1)
            ax.plot(np.arange(theory.size), theory, ls="--", lw=1.0, color=color)
    (key,) = ax.plot([], [], "k--", lw=1.0)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend([*handles, key], [*labels, "theory"], **legend)
    return ax


def trials_and_single(ax, cells, **legend):
    """``{label: (trials, single)}``: each cell's trials ``(trials, t)`` as thin lines and one
    single-seed run of the same cell ``(t,)`` as dots, one colour per cell, ``E_t`` on a log
    scale; one legend with a key for each kind of mark, placed by ``legend``."""
    for k, (label, (trials, single)) in enumerate(cells.items()):
        trials = np.asarray(trials, dtype=float)
        single = _checks.array("single", single, ndim=1)
        if trials.ndim != 2 or trials.shape[1] != single.size:
            raise ValueError(
                f"trials of {label!r} must be (trials, {single.size}), got {trials.shape}"
            )
        color = PALETTE[k % len(PALETTE)]
        t = np.arange(single.size)
        for row in trials:
            ax.plot(t, row, color=color, lw=0.9, alpha=0.8)
        ax.plot(t, single, "o", color=color, ms=2.5, label=label)
    (ours,) = ax.plot([], [], "-", color="0.4", lw=0.9)
    (theirs,) = ax.plot([], [], "o", color="0.4", ms=2.5)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend([*handles, ours, theirs], [*labels, "book's trials", "single seed"], **legend)
    ax.set_yscale("log")
    ax.set_xlabel("CoT depth $t$")
    ax.set_ylabel(r"$\mathcal{E}_t$")
    return ax


def _cell_axes(ax, Ls, Ms) -> None:
    """Axes of an ``(L, M)`` grid drawn as equal cells (index coordinates): ticks labelled by the
    grid's values, ``M`` upwards."""
    ax.set_xticks(range(Ls.size), [f"{v:g}" for v in Ls], rotation=90)
    ax.set_yticks(range(Ms.size), [f"{v:g}" for v in Ms])
    ax.set_xlabel("context length $L$")
    ax.set_ylabel("training tasks $M$")


#: Colours of the measured regimes in :func:`regime_map`.
REGIME_COLOURS = {"decay": PALETTE[0], "saturation": PALETTE[4], "overthinking": PALETTE[1]}


def regime_map(ax, Ls, Ms, measured, theory=None, *, title=None):
    """A regime map over the ``(L, M)`` grid: each cell coloured by its measured regime
    (:data:`REGIME_COLOURS`), and, with ``theory`` (same nested ``[L][M]`` shape, ``None`` where
    the theory has no regime), a black cross on each cell whose regime differs from the
    theory's and a grey dot where the theory is silent -- agreement is an unmarked cell.
    Cells are equal squares, labelled by the grid's values; M grows upwards."""
    Ls = _checks.array("Ls", Ls, ndim=1)
    Ms = _checks.array("Ms", Ms, ndim=1)
    names = list(REGIME_COLOURS)
    maps = {"measured": measured} if theory is None else {"measured": measured, "theory": theory}
    for what, grid in maps.items():
        if len(grid) != Ls.size or any(len(row) != Ms.size for row in grid):
            raise ValueError(f"{what} must be nested lists [L][M] of shape {(Ls.size, Ms.size)}")
    bad = {m for row in measured for m in row} - set(names)
    if bad:
        raise ValueError(f"measured regimes must be among {names}, got {sorted(bad)}")
    codes = np.array([[names.index(m) for m in row] for row in measured], dtype=float)
    ax.imshow(
        codes.T,
        origin="lower",
        cmap=ListedColormap(list(REGIME_COLOURS.values())),
        vmin=-0.5,
        vmax=len(names) - 0.5,
        aspect="equal",
    )
    if theory is not None:
        for i, (row_m, row_t) in enumerate(zip(measured, theory, strict=True)):
            for j, (m, t) in enumerate(zip(row_m, row_t, strict=True)):
                if t is None:
                    ax.plot(i, j, "o", color="0.35", ms=3)
                elif t != m:
                    ax.plot(i, j, "x", color="k", ms=7, mew=1.6)
    _cell_axes(ax, Ls, Ms)
    if title:
        ax.set_title(title)
    return ax


def regime_legend(fig, *, theory=True, **legend):
    """One legend for :func:`regime_map` panels (the regimes' colours, and the theory's marks
    with ``theory``), placed by ``legend`` (e.g. ``loc="outside lower center"``)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(color=c, label=name) for name, c in REGIME_COLOURS.items()]
    if theory:
        handles += [
            Line2D([], [], ls="none", marker="x", color="k", mew=1.6, label="differs from theory"),
            Line2D(
                [], [], ls="none", marker="o", color="0.35", ms=3, label=r"no theory ($M\leq D$)"
            ),
        ]
    return fig.legend(handles=handles, ncols=len(handles), **legend)


# --- Annotated grids (tables of numbers over (L, M), shown as heatmaps) ---------------------


def significant(value, digits: int = 2) -> str:
    """``value`` at ``digits`` significant digits, never in exponent notation above 1 (a
    number of at least ``10**digits`` is rounded to an integer): the label of a heatmap cell.

    Examples
    --------
    >>> significant(0.00621), significant(99.7), significant(390.648), significant(2.0)
    ('0.0062', '100', '391', '2')
    """
    value = _checks.real("value", value)
    digits = _checks.positive_int("digits", digits)
    text = f"{value:.{digits}g}"
    return f"{value:.0f}" if "e+" in text else text


def value_grid(ax, Ls, Ms, values, *, fmt=significant, log=False, vmin=None, vmax=None):
    """A table of numbers over the ``(L, M)`` grid drawn as an annotated heatmap: ``values[i][j]``
    (at ``Ls[i]``, ``Ms[j]``) coloured with viridis (log colours with ``log``) and written in its
    cell by ``fmt`` (a callable, default :func:`significant`), in black or white by the cell's
    brightness; a NaN cell is left blank. Equal square cells labelled by the grid's values, M
    growing upwards, as :func:`regime_map`. Returns the image, for a colorbar."""
    Ls, Ms, grid = _grid("Ls", Ls, "Ms", Ms, values)
    if not callable(fmt):
        raise ValueError(f"fmt must be a callable turning a number into a label, got {fmt!r}")
    shown = grid[np.isfinite(grid)]
    if log and np.any(shown <= 0):
        raise ValueError("values must be > 0 (or NaN) for log colours")
    lo = (shown.min() if shown.size else 1.0) if vmin is None else vmin
    hi = (shown.max() if shown.size else 1.0) if vmax is None else vmax
    norm = LogNorm(vmin=lo, vmax=hi) if log else mpl.colors.Normalize(vmin=lo, vmax=hi)
    cmap = mpl.colormaps["viridis"].with_extremes(bad="white")
    image = ax.imshow(
        np.ma.masked_invalid(grid.T), origin="lower", cmap=cmap, norm=norm, aspect="equal"
    )
    for i in range(Ls.size):
        for j in range(Ms.size):
            value = grid[i, j]
            if not np.isfinite(value):
                continue
            r, g, b, _ = cmap(norm(value))
            ink = "k" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "w"
            ax.text(i, j, fmt(value), ha="center", va="center", color=ink, fontsize=9)
    _cell_axes(ax, Ls, Ms)
    return image


def mark_cells(ax, marked, *, color="#d62728"):
    """Outline the cells of a :func:`value_grid` or :func:`regime_map` where ``marked[i][j]``
    (nested ``[L][M]`` booleans of the grid's shape) is true. Returns the number marked."""
    marked = np.asarray(marked, dtype=bool)
    if marked.ndim != 2:
        raise ValueError(f"marked must be nested lists [L][M] of booleans, got {marked.shape}")
    from matplotlib.patches import Rectangle

    for i, j in zip(*np.nonzero(marked), strict=True):
        ax.add_patch(
            Rectangle((i - 0.46, j - 0.46), 0.92, 0.92, fill=False, ec=color, lw=1.6, zorder=3)
        )
    return int(marked.sum())


def percent(share) -> str:
    """A share in ``[0, 1]`` as a percentage label to 0.1 percentage point ("99.7", "0.4"),
    with "100" and "0" for the ends: the cell label of a :func:`value_grid` of shares.

    Examples
    --------
    >>> percent(0.997), percent(0.0042), percent(1.0), percent(0.0)
    ('99.7', '0.4', '100', '0')
    """
    share = _checks.real("share", share, "a number in [0, 1]")
    if not 0 <= share <= 1:
        raise ValueError(f"share must be a number in [0, 1], got {share!r}")
    text = f"{100 * share:.1f}"
    return text[:-2] if text.endswith(".0") else text


#: Colours of the three verdicts (:data:`cotbook.book.ledger.VERDICTS`).
VERDICT_COLOURS = {
    "reproduced": PALETTE[2],
    "reproduced with a caveat": PALETTE[4],
    "not reproduced": PALETTE[1],
}


def verdict_summary(rows):
    """The reproduction report in one figure: one line per ledger row (``rows`` of
    :func:`cotbook.book.report_file.records`, top to bottom), a dot in the column of its
    verdict; the column titles count the rows per verdict. Returns the figure."""
    if not rows:
        raise ValueError("rows must hold at least one ledger record")
    verdicts = list(VERDICT_COLOURS)
    bad = {row["verdict"] for row in rows} - set(verdicts)
    if bad:
        raise ValueError(f"verdicts must be among {verdicts}, got {sorted(bad)}")
    fig, ax = figure(height=0.27 * len(rows) + 1.0)
    for y, row in enumerate(rows):
        x = verdicts.index(row["verdict"])
        ax.plot(x, y, "o", ms=11, color=VERDICT_COLOURS[row["verdict"]])
        ax.axhline(y, color="0.9", lw=0.8, zorder=0)
    counts = [sum(row["verdict"] == v for row in rows) for v in verdicts]
    titles = ("reproduced", "with a caveat", "not reproduced")
    ax.set_xticks(range(3), [f"{v}\n({n})" for v, n in zip(titles, counts, strict=True)])
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(rows)), [row["item"].split(" (", 1)[0] for row in rows])
    ax.set_xlim(-0.5, 2.5)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig


def richardson(ax, dims, rows, *, title=None):
    """The Richardson extrapolation of the finite-D correction, one line per row of
    :func:`cotbook.simulation.against_theory.corrections_table` (one point, several depths):
    the measured ``D (E_t(D) - E_t)`` with one standard error against ``1/D``, the fitted ``c_t
    + d_t/D`` down to ``1/D = 0``, and ``c_t`` there with its error (statistical and
    systematic); a row without a fit (tail-dominated) shows its points only."""
    inverse = 1.0 / np.asarray(dims, dtype=float)
    line = np.linspace(0.0, inverse.max() * 1.05, 50)
    for k, row in enumerate(rows):
        colour = PALETTE[k % len(PALETTE)]
        ax.errorbar(inverse, row["shift_per_D"], row["sem_per_D"], fmt="o", ms=4, capsize=2,
                    color=colour, label=f"t = {row['t']}")  # fmt: skip
        fit = row["fit"]
        if fit is not None:
            ax.plot(line, fit["c"] + fit["d"] * line, color=colour, lw=1)
            error = float(np.hypot(fit["sem"], fit["systematic"]))
            ax.errorbar([0.0], [fit["c"]], [error], fmt="s", ms=5, capsize=3, color=colour)
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel("1 / D")
    ax.set_ylabel("D (E_t(D) - E_t)")
    if title:
        ax.set_title(title)
