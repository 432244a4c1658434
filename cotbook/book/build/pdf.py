"""The book as one PDF, for reading offline and annotating: ``python -m cotbook pdf``.

Each page of the built HTML (``jupyter-book build .`` writes ``_build/html``) is printed by
headless Chromium, which typesets the math and applies the theme's print style (no sidebar,
code cells folded as on the page), and the pages are merged in the order of ``_toc.yml``, with
one bookmark per chapter.  Links between chapters point at the HTML files, so they work next to
the built book; the bookmarks are the PDF's own navigation.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path

__all__ = [
    "CHROMIUM_NAMES",
    "find_chromium",
    "reading_order",
    "chapter_title",
    "print_page",
    "build",
]

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-pdf-header-footer",
)
_BUDGET_MS = 20_000  # virtual time for MathJax to typeset before the page is printed


def find_chromium() -> str | None:
    """Path of a Chromium binary: ``$COTBOOK_CHROMIUM``, else the first of
    :data:`CHROMIUM_NAMES` on ``PATH`` (``None`` if there is none)."""
    explicit = os.environ.get("COTBOOK_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def reading_order(html_dir, root=ROOT) -> list[Path]:
    """The built pages of ``html_dir`` in the order of the table of contents of the book at
    ``root`` (its parts included)."""
    from .chapters import chapter_paths

    html_dir, root = Path(html_dir), Path(root)
    pages = [
        html_dir / chapter.relative_to(root).with_suffix(".html")
        for chapter in chapter_paths(root)
    ]
    missing = [str(p) for p in pages if not p.is_file()]
    if missing:
        raise ValueError(f"html_dir must hold the built book; missing {missing[:3]}")
    return pages


def chapter_title(page) -> str:
    """The page's first heading, as text."""
    found = re.search(r"<h1[^>]*>(.*?)</h1>", Path(page).read_text(), re.S)
    if not found:
        raise ValueError(f"{page} has no <h1> heading")
    text = re.sub(r"<[^>]+>", "", found.group(1))
    return " ".join(unescape(text).replace("#", "").split())


def print_page(page, out, *, chromium=None, timeout_s=180) -> Path:
    """Print one built page to the PDF file ``out`` with headless Chromium."""
    chromium = chromium or find_chromium()
    if chromium is None:
        raise RuntimeError(
            "Chromium is needed to print the book (Debian: apt-get install chromium)"
        )
    out = Path(out)
    subprocess.run(
        [
            chromium,
            *_FLAGS,
            f"--virtual-time-budget={_BUDGET_MS}",
            f"--print-to-pdf={out}",
            Path(page).resolve().as_uri(),
        ],
        capture_output=True,
        timeout=timeout_s,
        check=True,
    )
    if not out.is_file() or out.stat().st_size == 0:
        raise RuntimeError(f"Chromium printed nothing for {page}")
    return out


def build(html_dir, out, *, pages=None, chromium=None, jobs=2) -> Path:
    """Print ``pages`` of the built book in ``html_dir`` (default: all, in reading order) and
    merge them into ``out``, one bookmark per chapter; written atomically.  Returns ``out``."""
    from pypdf import PdfReader, PdfWriter

    pages = reading_order(html_dir) if pages is None else [Path(p) for p in pages]
    if not pages:
        raise ValueError("pages must name at least one built page")
    jobs = max(1, int(jobs))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        parts = [Path(tmp) / f"{k:03d}.pdf" for k in range(len(pages))]
        with ThreadPoolExecutor(jobs) as pool:
            list(
                pool.map(
                    lambda a: print_page(*a, chromium=chromium), zip(pages, parts, strict=True)
                )
            )
        writer = PdfWriter()
        for page, part in zip(pages, parts, strict=True):
            first = len(writer.pages)
            writer.append(PdfReader(part))
            writer.add_outline_item(chapter_title(page), first)
        staged = Path(tmp) / "book.pdf"
        with open(staged, "wb") as f:
            writer.write(f)
        os.replace(staged, out)
    return out
