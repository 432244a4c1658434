"""The book's Sphinx extensions (``_config.yml``'s ``extra_extensions``), one job each.

Each module is an extension with its own ``setup(app)``; Sphinx imports it by its dotted
name.  :mod:`.layout` serves the stylesheets in ``static/`` (also to :mod:`.pasted`).

Modules (each has one job):

- :mod:`.notebooks` -- .ipynb downloads, launch buttons, kernels.
- :mod:`.data`      -- offered data files, reproduction_report.json.
- :mod:`.pasted`    -- how values pasted from the chapters read.
- :mod:`.footer`    -- version, commit and licences on every page.
- :mod:`.layout`    -- the page layout's stylesheet.
- :mod:`.pages`     -- clean console, no glyph the book has no font for.
"""

from __future__ import annotations

from ... import _lazy

#: Every public name of the package, with the module that defines it (imported on first use).
_LAZY = {
    "notebooks": "cotbook.book.sphinx.notebooks",
    "data": "cotbook.book.sphinx.data",
    "pasted": "cotbook.book.sphinx.pasted",
    "footer": "cotbook.book.sphinx.footer",
    "layout": "cotbook.book.sphinx.layout",
    "pages": "cotbook.book.sphinx.pages",
}

__all__ = list(_LAZY)
__getattr__, __dir__ = _lazy.face(globals(), _LAZY)
