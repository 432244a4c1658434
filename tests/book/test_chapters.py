"""Drift check: every chapter has an executed copy, and the copy's cells are the chapter's cells.

nbval re-executes the copies in tests/book/notebooks and compares their outputs, and the book build
in the tests renders those copies; a copy that no longer matches its chapter's source would make
both meaningless, so it fails here.
"""

from pathlib import Path

import jupytext
import nbformat
import pytest

from cotbook.book import chapters

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = chapters.chapter_paths(ROOT)


def test_toc_lists_existing_chapters():
    assert [p.stem for p in CHAPTERS][:2] == ["intro", "model"]
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
