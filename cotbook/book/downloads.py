"""Data a reader can take away: the numbers behind a figure, offered as a file beside the page.

A chapter calls :func:`offer` under a figure with the arrays it plotted. The cell's output is a
download link (HTML) and a one-line description (plain text); the file's content travels inside
the executed notebook, in the output's metadata under the key :data:`KEY`, and the book's Sphinx
extension
(:mod:`cotbook.book.sphinx.data`) writes it to ``data/<name>`` beside the page, where the link
points. No file is written while the chapter runs, so a chapter executes the same way in the
book's build, under nbval and in JupyterLab.
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np

from .. import _checks

__all__ = ["KEY", "Download", "offer", "columns", "check_name"]

#: Key of the output metadata that carries the file (metadata, not a MIME type of the output's
#: data: myst-nb renders every data entry and warns on one it does not know).
KEY = "cotbook_download"
_NAME = re.compile(r"[a-z0-9][a-z0-9_\-]*\.(csv|json)")


class Download:
    """One offered file: ``name`` (``<stem>.csv`` or ``<stem>.json``), its text ``content`` and
    a short ``description``; displayed as a download link."""

    def __init__(self, name: str, content: str, description: str):
        self.name, self.content, self.description = name, content, description

    def _repr_mimebundle_(self, include=None, exclude=None):
        kind = self.name.rsplit(".", 1)[1].upper()
        html = (
            f'<p class="cotbook-download">Data behind this figure: <a href="data/{self.name}" '
            f"download>{self.name}</a> ({kind}, {self.description})</p>"
        )
        data = {"text/html": html, "text/plain": f"data: {self.name} ({self.description})"}
        return data, {KEY: {"name": self.name, "content": self.content}}


def check_name(name) -> str:
    """``name`` if it is a file name :func:`offer` accepts (lower-case letters, digits, ``_``
    and ``-``, ending in ``.csv`` or ``.json``: no folder, no ``..``), else ``ValueError``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            "name must be lower-case letters, digits, '_' or '-' ending in .csv or .json, "
            f"got {name!r}"
        )
    return name


def _csv(columns, digits) -> tuple[str, str]:
    if not isinstance(columns, dict) or not columns:
        raise ValueError("columns must be a non-empty dict {column name: 1-d array} for a .csv")
    arrays = {}
    for key, values in columns.items():
        array = np.asarray(values)
        if array.ndim != 1:
            raise ValueError(f"column {key!r} must be 1-d, got shape {array.shape}")
        arrays[str(key)] = array
    lengths = {a.size for a in arrays.values()}
    if len(lengths) != 1:
        raise ValueError(f"columns must have one length, got lengths {sorted(lengths)}")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(arrays)
    for row in zip(*arrays.values(), strict=True):
        writer.writerow(_cell(value, digits) for value in row)
    n = lengths.pop()
    return out.getvalue(), f"{n} rows, {len(arrays)} columns"


def _cell(value, digits):
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"data must hold finite numbers, got {value!r}")
        return f"{float(value):.{digits}g}"
    return value.item() if isinstance(value, np.generic) else value


def _json(data, digits) -> tuple[str, str]:
    if not isinstance(data, dict) or not data:
        raise ValueError("data must be a non-empty dict for a .json file")
    text = json.dumps(_plain(data, digits), separators=(",", ":"), allow_nan=False)
    return text + "\n", f"{len(data)} entries"


def _plain(value, digits):
    """``value`` as JSON-ready Python: arrays to (nested) lists, floats at ``digits``."""
    if isinstance(value, dict):
        return {str(k): _plain(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v, digits) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(_cell(value, digits))
    if isinstance(value, (bool, int, str, np.integer, np.bool_)) or value is None:
        return value.item() if isinstance(value, np.generic) else value
    kind = type(value).__name__
    raise ValueError(f"data must hold numbers, strings, lists and dicts, got {kind}")


def columns(names, rows) -> dict:
    """A long table given by its ``rows`` (tuples, one entry per name) as the ``{name: column}``
    dict :func:`offer` writes as a ``.csv``.

    Example::

        rows = [(tau, t, e) for tau, curve in curves.items() for t, e in enumerate(curve)]
        downloads.columns(["tau", "t", "E_t"], rows)
    """
    names = [str(n) for n in names]
    rows = [tuple(row) for row in rows]
    bad = [row for row in rows if len(row) != len(names)]
    if not names or not rows or bad:
        raise ValueError(
            f"rows must be a non-empty list of tuples of {len(names)} entries (one per name)"
            + (f", got {bad[0]!r}" if bad else "")
        )
    return {name: [row[k] for row in rows] for k, name in enumerate(names)}


def offer(name: str, data, *, digits: int = 10) -> Download:
    """Offer ``data`` as the file ``name`` beside the page, floats at ``digits`` significant
    digits (1 to 17).

    ``name.csv``: ``data`` is a dict ``{column: 1-d array}`` of equal lengths, written one row per
    index. ``name.json``: ``data`` is a dict of numbers, strings, arrays, lists and dicts.
    Names are unique across the book.

    Example (in a chapter, under the figure it belongs to)::

        downloads.offer("figure1b.csv", {"t": t, "E_t": errors})
    """
    name = check_name(name)
    digits = _checks.positive_int("digits", digits)
    if digits > 17:
        raise ValueError(f"digits must be 1 to 17, got {digits}")
    content, description = (_csv if name.endswith(".csv") else _json)(data, digits)
    return Download(name, content, description)
