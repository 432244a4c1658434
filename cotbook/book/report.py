"""Checks and numbers in the chapters at a stable precision, and tables rendered as Markdown.

A chapter never just *claims* that two computations agree: it calls :func:`check`, which prints
the measured discrepancy and raises if it exceeds the tolerance, so a chapter that stops agreeing
fails to execute (and its nbval test fails).  Discrepancies at round-off level (below 1e-10)
differ between machines in their last digits; the nbval sanitizer replaces exactly those.  A
number whose digits are round-off at any size (a round-off difference over a round-off error
bound; an error bound made of round-off) is not printed as it is: ``check(..., verdict=True)``
prints only the outcome, and :func:`bound` with :data:`DECADES` the power of ten above it.  The
nbval tests execute the chapters on another floating-point path than the one that wrote their
copies (``tests/book/perturbed.py``), so a number that depends on the last bits fails them.
"""

from __future__ import annotations

import numpy as np

from .. import _checks

__all__ = ["max_rel_diff", "check", "markdown", "bound", "DECADES"]

#: Powers of ten from 1e-16 to 1: :func:`bound` levels that print a value at decade resolution.
DECADES = tuple(10.0**k for k in range(-16, 1))


def max_rel_diff(a, b) -> float:
    """``max |a - b| / max |b|``: the discrepancy of ``a`` from the reference ``b``."""
    a = _checks.array("a", a)
    b = _checks.array("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    scale = np.max(np.abs(b))
    if scale == 0:
        raise ValueError("b must not be identically zero (no scale for a relative difference)")
    return float(np.max(np.abs(a - b)) / scale)


def check(label: str, error, tol, *, verdict: bool = False) -> None:
    """Print ``<label>: max error <error> <= <tol>``; raise ``AssertionError`` if it is larger.

    With ``verdict=True`` only the outcome is printed, ``<label> <= <tol>: yes``: for an
    ``error`` whose digits are themselves round-off at any size (a round-off difference divided
    by a round-off error bound), which change with the machine's floating-point path."""
    error = _checks.nonnegative("error", error)
    tol = _checks.positive("tol", tol)
    if error > tol:
        raise AssertionError(f"{label}: max error {error:.1e} exceeds the tolerance {tol:.0e}")
    print(f"{label} <= {tol:g}: yes" if verdict else f"{label}: max error {error:.1e} <= {tol:.0e}")


def _cells(headers, rows, fmt):
    """``rows`` as strings: numbers formatted with ``fmt`` (one format, or one per column),
    strings and integers as they are, ``None`` (nothing measured) as an em dash."""
    fmts = [fmt] * len(headers) if isinstance(fmt, str) else list(fmt)
    if len(fmts) != len(headers):
        raise ValueError(
            f"fmt must be one format or one per column ({len(headers)}), got {len(fmts)}"
        )
    cells = []
    for row in rows:
        row = list(row)
        if len(row) != len(headers):
            raise ValueError(f"every row must have {len(headers)} entries, got {len(row)}: {row}")
        cells.append(
            [
                v
                if isinstance(v, str)
                else "—"
                if v is None
                else str(v)
                if isinstance(v, (int, np.integer))
                else f.format(v)
                for v, f in zip(row, fmts, strict=True)
            ]
        )
    return cells


def markdown(headers, rows, fmt="{:.3g}", *, title=None, align=None):
    """``rows`` under ``headers`` as a rendered (Markdown) table, for a chapter to display:
    headers may hold math (``$\\Lambda$``); numbers are formatted with ``fmt`` (one format,
    or one per column), strings and integers shown as they are; ``title``
    (optional) is a bold line above the table, in the same output; ``align`` is one letter per
    column, ``l``, ``c`` or ``r`` (default: every column right-aligned)."""
    from IPython.display import Markdown  # only chapters (inside a kernel) render

    headers = [str(h) for h in headers]
    cells = _cells(headers, rows, fmt)
    if any("|" in c for c in headers + [c for r in cells for c in r]):
        raise ValueError("headers and cells must not contain '|' (it splits a Markdown table "
                         "cell); write \\vert in math")
    lines = [f"**{title}**", ""] if title else []
    align = "r" * len(headers) if align is None else align
    if not isinstance(align, str) or len(align) != len(headers) or set(align) - set("lcr"):
        raise ValueError(f"align must be one of l, c, r per column ({len(headers)}), got {align!r}")
    rule = {"l": ":---", "c": ":---:", "r": "---:"}
    lines += ["| " + " | ".join(headers) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in cells]
    return Markdown("\n".join(lines))


def bound(value, levels=(1e-12, 1e-11, 1e-10)) -> str:
    """``"< L"`` for the smallest level ``L`` above ``value``: a round-off-level error printed as
    an upper bound, identical on every machine; a larger value is printed as it is.
    :data:`DECADES` as ``levels`` gives any value from 1e-16 to 1 as the power of ten above it
    (an error bound whose digits are round-off)."""
    value = _checks.nonnegative("value", value)
    for level in sorted(levels):
        if value < level:
            return f"< {level:.0e}"
    return f"{value:.1e}"
