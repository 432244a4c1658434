"""The book's MathJax macros reach JupyterLab: every chapter that uses one opens with
chapters.macro_cell, a Markdown cell the build removes (issue 31)."""

import re
from pathlib import Path

import jupytext
import yaml

from cotbook.book.build import chapters

ROOT = Path(__file__).resolve().parents[4]
MACROS = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"][
    "mathjax3_config"
]["tex"]["macros"]
USES = re.compile(r"\\(%s)(?![A-Za-z])" % "|".join(MACROS))


def test_macro_cell_defines_every_macro_as_the_build_does():
    cell = chapters.macro_cell(ROOT)
    assert cell.count("\\newcommand") == len(MACROS)
    assert r"$\newcommand{\vb}[1]{\mathbf{#1}}$" in cell.splitlines()
    assert r"$\newcommand{\calE}{\mathcal{E}}$" in cell.splitlines()


def test_every_chapter_using_a_macro_opens_with_the_macro_cell():
    cell = chapters.macro_cell(ROOT)
    using = []
    for path in chapters.chapter_paths(ROOT):
        nb = jupytext.read(path)
        body = [c.source for c in nb.cells[1:] if c.cell_type == "markdown"]
        if not any(USES.search(source) for source in body):
            continue
        using.append(path.name)
        first = nb.cells[0]
        assert first.cell_type == "markdown" and first.source == cell, path.name
        assert first.metadata.get("tags") == ["remove-cell"], path.name
    assert "model.md" in using and len(using) >= 15


def test_every_macro_is_used():
    text = "\n".join(p.read_text() for p in chapters.chapter_paths(ROOT))
    text = text.replace(chapters.macro_cell(ROOT), "")
    assert {m for m in MACROS if not re.search(rf"\\{m}(?![A-Za-z])", text)} == set()
