"""Drift check: every chapter has an executed copy, and the copy's cells are the chapter's cells.

nbval re-executes the copies in tests/book/notebooks and compares their outputs, and the book build
in the tests renders those copies; a copy that no longer matches its chapter's source would make
both meaningless, so it fails here.
"""

from pathlib import Path

import jupytext
import nbformat
import pytest

from cotbook.book.build import chapters

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = chapters.chapter_paths(ROOT)


def test_toc_lists_existing_chapters():
    assert [p.stem for p in CHAPTERS][:3] == ["intro", "summary", "model"]
    for path in CHAPTERS:
        assert path.is_file(), path


def test_no_orphan_executed_copies():
    copies = {p.stem for p in (ROOT / chapters.NOTEBOOK_DIR).glob("*.ipynb")}
    assert copies == {p.stem for p in CHAPTERS}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_executed_copy_matches_chapter(chapter):
    copy = chapters.executed_copy(ROOT, chapter)
    assert copy.is_file(), f"missing {copy}: run `python -m cotbook chapters {chapter.stem}`"
    source = chapters.cell_sources(jupytext.read(chapter))
    executed = chapters.cell_sources(nbformat.read(copy, as_version=4))
    assert executed == source, (
        f"{copy.name} is stale: re-run `python -m cotbook chapters {chapter.stem}` and commit it"
    )


def test_chapter_titles_are_plain_text():
    """A title is in the sidebar of every page, and a page without math of its own loads no
    MathJax: "$D$" in a title is raw TeX there (it was, on three pages)."""
    for chapter in CHAPTERS:
        titles = [line for line in chapter.read_text().splitlines() if line.startswith("# ")]
        assert titles and "$" not in titles[0], f"{chapter.name}: {titles[:1]}"


def test_every_nbval_marker_is_one_nbval_reads():
    """nbval honours a marker comment only when the comment is exactly the marker: "#
    NBVAL_IGNORE_OUTPUT: why" is read as no marker, and the cell's output is compared (the
    status page's machine table was, and failed on any other machine)."""
    from nbval.plugin import comment_markers

    for chapter in CHAPTERS:
        for cell in jupytext.read(chapter).cells:
            for line in cell.source.splitlines():
                comment = line.strip().lstrip("#").strip()
                if line.strip().startswith("#") and comment.startswith("NBVAL"):
                    assert comment in comment_markers, f"{chapter.name}: {line.strip()!r}"
    assert "NBVAL_IGNORE_OUTPUT: why" not in comment_markers


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_executed_copy_has_chapter_metadata(chapter):
    """The tests build the book from the executed copies, so cell options (tags, figure names and
    captions, ...) and the notebook's front matter must be the chapter's too, not only the code."""
    source = jupytext.read(chapter)
    copy = chapters.executed_copy(ROOT, chapter)
    executed = nbformat.read(copy, as_version=4)
    stale = f"{copy.name} is stale: re-run `python -m cotbook chapters {chapter.stem}`, commit it"
    assert [c.metadata for c in executed.cells] == [c.metadata for c in source.cells], stale
    for key, value in source.metadata.items():
        assert executed.metadata.get(key) == value, f"{stale} (notebook metadata {key!r})"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_executed_copy_is_deterministic_in_form(chapter):
    nb = nbformat.read(chapters.executed_copy(ROOT, chapter), as_version=4)
    assert [c.id for c in nb.cells] == [f"{chapter.stem}-{i}" for i in range(len(nb.cells))]
    assert nb.metadata.kernelspec.name == "python3"
    for cell in nb.cells:
        assert "execution" not in cell.metadata  # no timings recorded
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.output_type == "error"]


#: The longest line a chapter may print (stdout/stderr): the monospace output box holds about
#: 81 characters at an 800-px window and 87 at 1400 px (tests/book/test_browser.py measures the
#: rendered page), so a printed line of at most 80 characters never needs scrolling.
MAX_PRINTED_LINE = 80


def _long_printed_lines(nb, limit: int) -> list[str]:
    """'cell <id>: <n> characters: <line>' for each stream output line longer than `limit`."""
    found = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream":
                continue
            for line in output.get("text", "").splitlines():
                if len(line) > limit:
                    found.append(f"cell {cell.get('id')}: {len(line)} characters: {line[:80]}")
    return found


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_printed_lines_fit_the_text_column(chapter):
    """No line a chapter prints is longer than MAX_PRINTED_LINE characters: the book shows
    printed output in a monospace box as wide as the text column, and cuts off what is wider."""
    nb = nbformat.read(chapters.executed_copy(ROOT, chapter), as_version=4)
    long_lines = _long_printed_lines(nb, MAX_PRINTED_LINE)
    assert not long_lines, (
        f"{chapter.name} prints {len(long_lines)} line(s) longer than {MAX_PRINTED_LINE} "
        "characters:\n" + "\n".join(long_lines)
    )


def test_long_printed_lines_are_found():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(...)", id="c0")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="ok\n" + "x" * 101 + "\n"),
        nbformat.v4.new_output("stream", name="stderr", text="y" * 100),
        nbformat.v4.new_output("execute_result", data={"text/plain": "z" * 300}),
    ]
    nb.cells = [cell, nbformat.v4.new_markdown_cell("w" * 300)]
    assert _long_printed_lines(nb, 100) == ["cell c0: 101 characters: " + "x" * 80]
    assert len(_long_printed_lines(nb, 99)) == 2


def test_drift_is_detected(tmp_path):
    """The comparison above really fails when a chapter's source changes."""
    chapter = CHAPTERS[1]
    nb = jupytext.read(chapter)
    nb.cells[-1].source += "\n# edited"
    assert chapters.cell_sources(nb) != chapters.cell_sources(jupytext.read(chapter))


def test_execute_is_deterministic_and_validates(tmp_path):
    md = tmp_path / "tiny.md"
    md.write_text(
        CHAPTERS[0].read_text().split("---\n\n", 1)[0]
        + "---\n\n# Tiny\n\n```{code-cell} ipython3\nprint(6 * 7)\n```\n"
    )
    first, second = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    chapters.execute(md, first)
    chapters.execute(md, second)
    assert first.read_bytes() == second.read_bytes()
    nb = nbformat.read(first, as_version=4)
    assert nb.cells[-1].outputs[0].text == "42\n"
    with pytest.raises(ValueError, match="chapter must be an existing .md file"):
        chapters.execute(tmp_path / "missing.md", first)
    with pytest.raises(ValueError, match="root must be the repository root"):
        chapters.chapter_paths(tmp_path)
