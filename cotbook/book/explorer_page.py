"""The explorer as one HTML block a chapter displays: controls, two drawings, the data of
:mod:`cotbook.book.explorer` inline and the script ``explorer.js`` beside this module (no
library, no network): sliders for ``alpha`` and ``tau``, a choice of ``sigma2``, the curve
``E_t`` against ``t`` with ``E_inf``, and the map of ``E_t`` over the plane at a chosen depth
with ``tau_c`` and the point chosen.  The address can set the controls:
``explorer.html#alpha=0.5&tau=3&sigma2=0.01&t=40``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

__all__ = ["SCRIPT", "page"]

SCRIPT = Path(__file__).with_name("explorer.js")
"""The page's script; its interpolation is :func:`cotbook.book.explorer.interpolate`'s."""


def page(data, *, element_id="cotbook-explorer") -> str:
    """The explorer of ``data`` (:func:`cotbook.book.explorer.encode`) as an HTML block."""
    if not isinstance(data, dict) or "levels" not in data:
        raise ValueError("data must be the explorer's encoded data (cotbook.book.explorer.encode)")
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False)
    ident = html.escape(element_id)
    return (
        f'<div id="{ident}" class="cotbook-explorer"></div>\n'
        f'<script type="application/json" id="{ident}-data">{payload}</script>\n'
        f"<script>\n{SCRIPT.read_text()}\ncotbookExplorer({json.dumps(element_id)});\n</script>"
    )
