"""Data offered beside a figure (cotbook.book.downloads) and the report as data (report_file)."""

import csv
import io
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest

from cotbook.book import downloads, report_file
from cotbook.book.build import chapters

ROOT = Path(__file__).resolve().parents[3]


def test_csv_round_trips_at_the_requested_digits():
    t = np.arange(4)
    errors = np.array([1.0, 0.5, 1 / 3, 2.5e-300])
    offered = downloads.offer("curve.csv", {"t": t, "E_t": errors}, digits=6)
    rows = list(csv.reader(io.StringIO(offered.content)))
    assert rows[0] == ["t", "E_t"]
    assert [int(r[0]) for r in rows[1:]] == [0, 1, 2, 3]
    back = np.array([float(r[1]) for r in rows[1:]])
    assert np.allclose(back, errors, rtol=5e-6, atol=0) and back[2] != errors[2]
    bundle, metadata = offered._repr_mimebundle_()
    assert metadata[downloads.KEY] == {"name": "curve.csv", "content": offered.content}
    assert (
        'href="data/curve.csv"' in bundle["text/html"]
        and "4 rows, 2 columns" in bundle["text/plain"]
    )


def test_json_keeps_structure_and_rounds_floats():
    offered = downloads.offer(
        "grid.json",
        {"alphas": np.array([0.5, 2.0]), "E": np.array([[1 / 3, 1.0]]), "n": 3},
        digits=3,
    )
    data = json.loads(offered.content)
    assert data == {"alphas": [0.5, 2.0], "E": [[0.333, 1.0]], "n": 3}


@pytest.mark.parametrize(
    ("name", "data", "match"),
    [
        ("Bad.csv", {"x": [1]}, "name must be lower-case"),
        ("x.txt", {"x": [1]}, "name must be"),
        ("x.csv", {}, "columns must be a non-empty dict"),
        ("x.csv", {"x": [1, 2], "y": [1]}, "one length"),
        ("x.csv", {"x": [[1, 2]]}, "must be 1-d"),
        ("x.csv", {"x": [float("nan")]}, "finite"),
        ("x.json", {"x": object()}, "numbers, strings"),
        ("x.json", [1], "non-empty dict"),
    ],
)
def test_bad_offers_are_refused_by_name(name, data, match):
    with pytest.raises(ValueError, match=match):
        downloads.offer(name, data)
    with pytest.raises(ValueError, match="digits must be 1 to 17"):
        downloads.offer("x.csv", {"x": [1.0]}, digits=18)


def _glued():
    return {
        p.stem: report_file.glued_values(nbformat.read(p, as_version=4))
        for p in sorted((ROOT / chapters.NOTEBOOK_DIR).glob("*.ipynb"))
    }


def test_report_records_say_what_the_chapters_glued():
    markdown = (ROOT / "book" / "reproduction_report.md").read_text()
    glued = _glued()
    rows = report_file.records(markdown, glued)
    assert len(rows) == len(report_file.ledger_rows(markdown)) >= 19
    for row in rows:
        assert row["verdict"] in ("reproduced", "reproduced with a caveat", "not reproduced")
        assert "{glue" not in row["measured"] + row["item"] + row["verdict_as_shown"], row["item"]
        for ref, value in row["measured_values"].items():
            chapter, key = ref.split("::")
            assert glued[chapter][key] == value and value in row["measured"]
    result2 = next(r for r in rows if r["item"].startswith("Result 2 (test-time"))
    assert result2["chapter"] == "result2"
    assert result2["verdict"] == glued["result2"]["result2_verdict"]
    assert result2["caveats"] == glued["result2"]["result2_caveats"]


def test_report_records_refuse_a_missing_glue_key():
    markdown = (ROOT / "book" / "reproduction_report.md").read_text()
    glued = _glued()
    del glued["model"]["readout_gap"]
    with pytest.raises(ValueError, match=r"model.md::readout_gap, which is not glued"):
        report_file.records(markdown, glued)
    with pytest.raises(ValueError, match="'## Ledger' section"):
        report_file.ledger_rows("no ledger here")


def test_columns_turn_rows_into_a_csv_table():
    table = downloads.columns(["tau", "t", "E_t"], [(2.0, 0, 1.0), (2.0, 1, 0.5)])
    assert table == {"tau": [2.0, 2.0], "t": [0, 1], "E_t": [1.0, 0.5]}
    rows = list(csv.reader(io.StringIO(downloads.offer("c.csv", table).content)))
    assert rows == [["tau", "t", "E_t"], ["2", "0", "1"], ["2", "1", "0.5"]]
    with pytest.raises(ValueError, match="tuples of 3 entries"):
        downloads.columns(["tau", "t", "E_t"], [(2.0, 0)])
    with pytest.raises(ValueError, match="non-empty"):
        downloads.columns(["tau"], [])
