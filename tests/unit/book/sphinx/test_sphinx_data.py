"""The download writer of the book's Sphinx extension never writes outside the build folder."""

from types import SimpleNamespace

import nbformat
import pytest

from cotbook.book import downloads
from cotbook.book.sphinx import data as sphinx_data


def _notebook(*offers):
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/plain": "x"}, metadata={downloads.KEY: o})
        for o in offers
    ]
    return nbformat.v4.new_notebook(cells=[cell])


@pytest.mark.parametrize(
    "name",
    ["../../../escaped.csv", "/tmp/absolute.json", "a/b.csv", "..", "UPPER.csv", 7, None],
)
def test_an_offered_name_outside_the_data_folder_is_refused(tmp_path, monkeypatch, name):
    warned = []
    monkeypatch.setattr(sphinx_data.logger, "warning", warned.append)
    out = tmp_path / "build" / "html"
    app = SimpleNamespace(outdir=str(out))
    good = {"name": "kept.csv", "content": "a\n1\n"}
    sphinx_data._write_offered(app, {"book/ch": _notebook({"name": name, "content": "x"}, good)})
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["build/html/book/data/kept.csv"]
    assert len(warned) == 1 and "book/ch offers a download not written" in warned[0]


def test_offered_content_must_be_text(tmp_path, monkeypatch):
    warned = []
    monkeypatch.setattr(sphinx_data.logger, "warning", warned.append)
    app = SimpleNamespace(outdir=str(tmp_path))
    sphinx_data._write_offered(app, {"ch": _notebook({"name": "a.json", "content": {"x": 1}})})
    assert not list(tmp_path.rglob("*.json")) and "content" in warned[0]
