"""The reader's build (``python -m cotbook build``: the committed executed chapters, no kernel),
its refusal of a chapter edited since its copy, and the trap of a notebook written next to its
chapter (``jupytext --to notebook --execute book/x.md``)."""

import subprocess

import jupytext
import nbformat
import pytest
import yaml
from book_build import ROOT, build_book

from cotbook.book.build import chapters, read_build


def _chapter(title: str) -> nbformat.NotebookNode:
    kernelspec = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernelspec})
    notebook.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}"),
        nbformat.v4.new_code_cell('print("computed " + "here")'),
    ]
    return notebook


def _tiny_root(root):
    """A repository with the real book's exclude patterns and one chapter, book/one.md, whose
    executed copy printed "computed here" (text only the copy's output holds)."""
    real = yaml.safe_load((ROOT / "_config.yml").read_text())
    config = {
        "title": "tiny",
        "only_build_toc_files": True,
        "exclude_patterns": real["exclude_patterns"],
        "execute": {"execute_notebooks": "force"},
    }
    (root / "_config.yml").write_text(yaml.safe_dump(config))
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/one\n")
    (root / "book").mkdir()
    notebook = _chapter("One")
    (root / "book" / "one.md").write_text(jupytext.writes(notebook, fmt="md:myst"))
    notebook.cells[1].outputs = [nbformat.v4.new_output("stream", text="computed here\n")]
    copy = chapters.executed_copy(root, root / "book" / "one.md")
    copy.parent.mkdir(parents=True)
    nbformat.write(notebook, copy)
    return root


def test_read_build_executes_nothing_and_refuses_an_edited_chapter(tmp_path):
    root = _tiny_root(tmp_path)
    (root / "_build" / "html").mkdir(parents=True)
    (root / "_build" / "html" / "old.html").write_text("an earlier build")
    built = read_build.build(root)
    assert built.returncode == 0, built.log[-3000:]
    assert built.html == root / "_build" / "html"
    page = (built.html / "book" / "one.html").read_text()
    assert "computed here" in page  # the copy's output: nothing was executed
    assert "execution_mode='off'" in built.log and "Executing notebook" not in built.log
    assert not (built.html / "old.html").exists()  # the new pages replace the old ones
    assert [p.name for p in (root / "_build").iterdir()] == ["html"]  # the staging is gone

    chapter = root / "book" / "one.md"
    chapter.write_text(chapter.read_text().replace("# One", "# One, edited"))
    assert read_build.drifted(root) == ["one"]
    with pytest.raises(ValueError, match=r"edited since .*: one; .*cotbook chapters one"):
        read_build.build(root)
    assert "# One, edited" not in (built.html / "book" / "one.html").read_text()


def test_a_notebook_next_to_its_chapter_does_not_break_the_build(tmp_path):
    """`jupytext --to notebook --execute book/one.md` leaves book/one.ipynb: the book's exclude
    patterns keep it out of the next build (no "multiple files found", the page is the .md's),
    git ignores it, and the reader's build does not stage it."""
    root = _tiny_root(tmp_path)
    stray = _chapter("Stray")
    nbformat.write(stray, root / "book" / "one.ipynb")
    built = build_book(root, root / "out", timeout_s=300)
    assert built.returncode == 0, built.log[-3000:]
    assert "multiple files found" not in built.log
    page = (built.html / "book" / "one.html").read_text()
    assert "<h1>One" in page and "Stray" not in page
    staged = read_build.stage(root, tmp_path / "staged")
    assert "Stray" not in (staged / "book" / "one.ipynb").read_text()
    assert (
        read_build.STRAY_NOTEBOOKS
        not in yaml.safe_load((staged / "_config.yml").read_text())["exclude_patterns"]
    )
    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "-q", "book/attention_mean.ipynb"]
    )
    assert ignored.returncode == 0  # git ignores it
