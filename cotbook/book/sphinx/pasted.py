"""Sphinx extension: how values pasted from the chapters (myst-nb glue) read on the page.

- **Math.** Chapters glue plain text (``{glue:text}``), and a caveat such as "τ_c is not the
  boundary: E_t still grows" would otherwise show its underscores on the report page (myst-nb's
  ``{glue:md}``, which could carry Markdown math, pastes only within one page). After myst-nb
  has pasted the values (``doctree-resolved`` comes after its cross-page post-transform), every
  pasted text is split at :data:`SUBSCRIPTED` tokens, a single Latin or Greek letter, an
  underscore and a short subscript, and each token becomes inline math (``\\tau_{c}``). File
  names such as ``M20_N20`` or ``data_only`` do not match, and the text the report's JSON
  file gives is read from the glue store, not from the page.
- **Weight.** myst-nb sets every pasted value in bold. A verdict's caveats (keys ending in
  ``_caveats``) are sentences: their reference is wrapped, when the page is read, in a span of
  class ``glued-caveats``, which ``static/cotbook-pasted.css`` sets in the text's own weight.

Enable it in ``_config.yml`` under ``sphinx.extra_extensions`` as
``cotbook.book.sphinx.pasted``.
"""

from __future__ import annotations

import re
import unicodedata

from .layout import add_stylesheet

CSS = "cotbook-pasted.css"

#: A one-letter symbol with a subscript of one to three letters, digits or ∞, standing alone:
#: "τ_c", "E_t", "E_∞" (not "M20_N20", "data_only", "x_max2").
SUBSCRIPTED = re.compile(r"(?<![\w.])([A-Za-z\u0391-\u03a9\u03b1-\u03c9])_([A-Za-z0-9∞]{1,3})(?!\w)")


def _tex(char: str) -> str:
    """A letter as TeX: Latin as it is, Greek by name (``τ`` → ``\\tau``, ``Λ`` → ``\\Lambda``),
    ∞ as ``\\infty``."""
    if char == "∞":
        return r"\infty"
    if char.isascii():
        return char
    name = unicodedata.name(char).split()[-1].lower()  # "GREEK SMALL LETTER TAU" -> "tau"
    return "\\" + (name.capitalize() if char.isupper() else name)


def split_math(text: str) -> list[tuple[str, bool]]:
    """``text`` as ``(piece, is_math)`` pieces, each :data:`SUBSCRIPTED` token as TeX.

    Examples
    --------
    >>> for piece in split_math("τ_c is not the boundary: E_t grows"):
    ...     print(piece)
    ('\\\\tau_{c}', True)
    (' is not the boundary: ', False)
    ('E_{t}', True)
    (' grows', False)
    >>> split_math("M20_N20 and data_only")
    [('M20_N20 and data_only', False)]
    """
    pieces, start = [], 0
    for match in SUBSCRIPTED.finditer(text):
        if match.start() > start:
            pieces.append((text[start : match.start()], False))
        base, sub = match.groups()
        pieces.append((f"{_tex(base)}_{{{''.join(map(_tex, sub))}}}", True))
        start = match.end()
    if start < len(text):
        pieces.append((text[start:], False))
    return pieces


def _typeset(app, doctree, docname) -> None:
    from docutils import nodes

    for node in list(doctree.findall(nodes.inline)):
        if "pasted-text" not in node["classes"]:
            continue
        pieces = split_math(node.astext())
        if not any(is_math for _, is_math in pieces):
            continue
        del node[:]
        for piece, is_math in pieces:
            node += nodes.math(piece, piece) if is_math else nodes.Text(piece)


def _mark_caveats(app, doctree) -> None:
    from docutils import nodes
    from myst_nb.ext.glue.utils import PendingGlueReference

    for ref in list(doctree.findall(PendingGlueReference)):
        if ref.key.endswith("_caveats"):
            wrapper = nodes.inline(classes=["glued-caveats"])
            ref.replace_self(wrapper)
            wrapper += ref


def setup(app):
    add_stylesheet(app, CSS)
    app.connect("doctree-read", _mark_caveats)
    # doctree-resolved runs after every post-transform, myst-nb's cross-page glue included
    app.connect("doctree-resolved", _typeset)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
