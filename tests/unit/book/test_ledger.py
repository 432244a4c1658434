"""The claims ledger (cotbook.ledger) and the reproduction report that pastes it.

The report page holds no numbers of its own: every value in it is a glue reference
``{glue:text}`<chapter>.md::<key>:s``` to a chapter's output.  These tests check the pieces
without building the book (the build, in test_book.py, fails on a missing glue key too): each
reference names a key that the chapter's executed copy really glues, every verdict a chapter
glues appears in the report, and the report covers every numbered item of the paper.
"""

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from cotbook.book import ledger, report_file
from cotbook.book.build import chapters

ROOT = Path(__file__).resolve().parents[3]
REPORT = ROOT / "book" / "reproduction_report.md"
GLUE_REF = report_file.GLUE_REF

# The paper's numbered results, theorem and figures, and the appendices that state something
# checkable: each must be the subject of at least one ledger row.
PAPER_ITEMS = [
    "Result 1",
    "Result 2",
    "Result 3",
    "Theorem 1",
    "Figure 1A",
    "Figure 1B",
    "Figure 1C",
    "Figure 2A",
    "Figure 2C",
    "Appendix A figure",
    "Appendix B",
    "Appendix C",
    "Appendix D",
    "Appendix E figure",
]


def glued_values(chapter: str) -> dict[str, str]:
    """``{key: text}`` of every value glued in the executed copy of ``chapter``."""
    path = ROOT / chapters.NOTEBOOK_DIR / f"{chapter}.ipynb"
    return report_file.glued_values(nbformat.read(path, as_version=4))


def ledger_rows() -> list[list[str]]:
    """The cells of each row of the report's ledger table (header and rule excluded)."""
    return report_file.ledger_rows(REPORT.read_text())


def test_verdict_word():
    assert ledger.verdict_word(True) == "reproduced"
    assert ledger.verdict_word(True, {"a caveat": False}) == "reproduced"
    assert ledger.verdict_word(True, {"a": False, "b": True}) == "reproduced with a caveat"
    assert ledger.verdict_word(False, {"b": True}) == "not reproduced"
    assert ledger.verdict_word(np.bool_(True), {"a": np.bool_(True)}) == "reproduced with a caveat"
    with pytest.raises(ValueError, match="holds must be a bool"):
        ledger.verdict_word(1)
    with pytest.raises(ValueError, match="caveat 'x' must be a bool"):
        ledger.verdict_word(True, {"x": "yes"})


@pytest.fixture
def glued(monkeypatch):
    store = {}
    monkeypatch.setattr(ledger, "_glue", lambda key, text: store.__setitem__(key, text))
    monkeypatch.setattr(ledger, "_RECORDED", [])
    return store


def test_record_formats_and_glues_without_printing(glued, capsys):
    ledger.record("gap", 0.012345, "{:.1%}")
    ledger.record("count", 7, "{}")
    ledger.record("note", "3 of 4")
    assert glued == {"gap": "1.2%", "count": "7", "note": "3 of 4"}
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="must be finite"):
        ledger.record("bad", float("nan"))
    with pytest.raises(ValueError, match="string or a real number"):
        ledger.record("bad", [1, 2])
    with pytest.raises(ValueError, match="key must be lower-case"):
        ledger.record("Bad key", 1.0)


def test_verdict_glues_word_and_true_caveats(glued, capsys):
    ledger.verdict("claim", True, {"first": True, "second": False, "third": True})
    assert glued == {"claim_verdict": "reproduced with a caveat", "claim_caveats": "first; third"}
    ledger.verdict("other", False)
    assert glued["other_verdict"] == "not reproduced" and glued["other_caveats"] == "none"
    assert capsys.readouterr().out == ""


def test_summary_is_one_table_of_everything_recorded(glued):
    with pytest.raises(ValueError, match="nothing recorded"):
        ledger.summary()
    ledger.record("gap", 0.5, "{:.0%}")
    ledger.verdict("claim", True, {"a caveat": True})
    lines = ledger.summary().data.splitlines()
    assert lines[0] == "**Handed to the reproduction report**"
    assert lines[2:] == [
        "| glued as | value |",
        "|:---|:---|",
        "| `gap` | 50% |",
        "| `claim_verdict` | **reproduced with a caveat** (a caveat) |",
    ]


def test_every_glue_reference_is_glued_by_its_chapter():
    refs = GLUE_REF.findall(REPORT.read_text())
    assert len(refs) > 50
    toc = {p.stem for p in chapters.chapter_paths(ROOT)}
    missing = []
    for chapter in sorted({c for c, _ in refs}):
        assert chapter in toc, f"{chapter} is not a chapter of the book"
        values = glued_values(chapter)
        missing += [f"{chapter}::{key}" for c, key in refs if c == chapter and key not in values]
    assert not missing, f"keys pasted by the report but not glued by their chapter: {missing}"


def test_every_verdict_a_chapter_glues_is_in_the_report():
    text = REPORT.read_text()
    for path in chapters.chapter_paths(ROOT):
        for key, value in glued_values(path.stem).items():
            if key.endswith("_verdict"):
                assert value in ledger.VERDICTS, (path.stem, key, value)
                assert f"{path.stem}.md::{key}:s" in text, f"{path.stem}::{key} not reported"


def test_ledger_covers_every_numbered_item_and_each_row_has_a_verdict():
    rows = ledger_rows()
    assert all(len(row) == 4 for row in rows), [row[0] for row in rows if len(row) != 4]
    items = " ".join(row[0] for row in rows)
    missing = [item for item in PAPER_ITEMS if item not in items]
    assert not missing, f"no ledger row for {missing}"
    for row in rows:
        assert re.fullmatch(
            r"\*\*\{glue:text\}`[a-z0-9_]+\.md::[a-z0-9_]+_verdict:s`\*\*.*", row[3]
        ), f"row {row[0]!r}: verdict is not pasted from a chapter"
        assert re.search(r"; chapter: \{ref\}`[a-z0-9-]+`$", row[0]), f"{row[0]!r} links no chapter"


def test_verdict_rows_give_each_item_its_pasted_verdict_and_chapter_link():
    rows = report_file.verdict_rows(REPORT.read_text())
    assert len(rows) == len(ledger_rows())
    for (item, verdict, chapter), full in zip(rows, ledger_rows(), strict=True):
        assert full[0].startswith(item) and "; chapter:" not in item
        assert re.fullmatch(r"\{glue:text\}`[a-z0-9_]+\.md::[a-z0-9_]+_verdict:s`", verdict)
        assert full[0].endswith(chapter) and chapter.startswith("{ref}`")
    with pytest.raises(ValueError, match="names no chapter"):
        report_file.verdict_rows(
            "## Ledger\n| a | b | c | d |\n|---|---|---|---|\n| x | y | z | w |\n"
        )


def test_summary_counts_are_the_ledger_s_verdicts_and_the_errata_items():
    page = REPORT.read_text()
    rows = report_file.records(page, report_file.glued_in(ROOT / chapters.NOTEBOOK_DIR))
    counts = report_file.verdict_counts(rows)
    assert list(counts) == list(ledger.VERDICTS) and sum(counts.values()) == len(ledger_rows())
    numbered = page.split("## Errata and inconsistencies")[1].split("\n## ")[0]
    assert report_file.errata_count(page) == max(
        int(n) for n in re.findall(r"^(\d+)\. ", numbered, flags=re.MULTILINE)
    )
    with pytest.raises(ValueError, match="verdict 'maybe'"):
        report_file.verdict_counts([{"item": "x", "verdict": "maybe"}])
    with pytest.raises(ValueError, match="Errata"):
        report_file.errata_count("## Ledger\n")


# Each row of README.md's verdict table, by the start of its first cell, and the verdicts that
# the chapters glue for it (chapter, claim key).
README_ROWS = {
    "Section 3 / Appendix B": [("model", "readout")],
    "Result 1:": [("theory_vs_simulation", "result1")],
    "Appendix C:": [("derivation", "appendix_c")],
    "Appendix D:": [("numerics", "appendix_d")],
    "Result 2: scaling": [("result2", "result2")],
    'Result 2: "K': [("saturation", "k_positive")],
    "Theorem 1": [("exponential_regime", "theorem1")],
    "Result 3": [("overthinking", "result3")],
    "Figure 1A, 1B, 1C": [("phase_diagram", f"figure1{x}") for x in "abc"],
    "Section 5.3": [("saturation", "floor"), ("saturation", "overtake")],
    "Figure 2, linear attention, as plotted": [("attention_claims", "fig2_linear_mean")],
    "Figure 2, linear attention, typical": [("attention_claims", "fig2_linear_median")],
    "Figure 2, softmax": [("attention_claims", f"fig2_softmax_{s}") for s in ("mean", "median")],
    "Appendix A figure": [("parameter_structure", "appendix_a")],
    "Appendix E figure": [("theory_vs_simulation", "appendix_e")],
}


def test_readme_verdicts_are_the_chapters_verdicts():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## What holds", 1)[1].split("\n## ", 1)[0]
    rows = [
        [c.strip() for c in line.strip("|").split(" | ")]
        for line in table.splitlines()
        if line.startswith("| ")
    ][1:]
    assert len(rows) == len(README_ROWS)
    covered = set()
    for start, claims in README_ROWS.items():
        row = next((r for r in rows if r[0].startswith(start)), None)
        assert row is not None, f"README has no row starting {start!r}"
        for chapter, key in claims:
            glued = glued_values(chapter)[f"{key}_verdict"]
            assert row[1] == glued, (
                f"README says {row[1]!r} for {start!r}; {chapter} computes {glued!r}"
            )
            covered.add((chapter, key))
    computed = {
        (p.stem, k.removesuffix("_verdict"))
        for p in chapters.chapter_paths(ROOT)
        for k in glued_values(p.stem)
        if k.endswith("_verdict")
    }
    assert computed == covered, f"verdicts missing from README: {computed - covered}"


def test_readme_counts_the_report_s_items_and_names_the_rows_that_merge_them():
    """The table has fewer rows than the report has items, so its introduction says how many
    items, with which verdicts, and which rows hold several (those of README_ROWS with more
    than one claim): its counts are the report's (they once read as 8/5/2 beside 11/5/3)."""
    readme = (ROOT / "README.md").read_text()
    intro = " ".join(readme.split("## What holds", 1)[1].split("\n| ", 1)[0].split())
    said = re.search(
        r"its (\d+) items \((\d+) reproduced, (\d+) with a caveat, (\d+) not reproduced\) "
        r"in (\d+) rows",
        intro,
    )
    assert said, intro
    items, *verdicts, n_rows = map(int, said.groups())
    rows = report_file.records(
        REPORT.read_text(), report_file.glued_in(ROOT / chapters.NOTEBOOK_DIR)
    )
    assert items == len(rows) == sum(map(len, README_ROWS.values()))
    assert verdicts == list(report_file.verdict_counts(rows).values())
    assert n_rows == len(README_ROWS)
    merged = "; ".join(start for start, claims in README_ROWS.items() if len(claims) > 1)
    assert f"a row naming several items ({merged})" in intro


def test_readme_figure_is_the_chapters_figure():
    chapter, name, rel = chapters.README_FIGURE
    nb = nbformat.read(ROOT / chapters.NOTEBOOK_DIR / f"{chapter}.ipynb", as_version=4)
    assert (ROOT / rel).read_bytes() == chapters.figure_png(nb, name), (
        f"{rel} is stale: re-run `python -m cotbook chapters {chapter}`"
    )
    assert f"]({rel.as_posix()})" in (ROOT / "README.md").read_text()
    with pytest.raises(ValueError, match="name must be a figure"):
        chapters.figure_png(nb, "no-such-figure")


# Greek letters and operators spelled in ASCII, which would sit next to typeset math on the
# report page (a pasted value cannot hold math: glue pastes plain text across pages).
ASCII_MATH = re.compile(r"\b(alpha|tau|sigma2?|lambda|Lambda|psi|sqrt)\b|\^")


def test_pasted_values_spell_symbols_as_symbols():
    refs = GLUE_REF.findall(REPORT.read_text())
    ascii_math = []
    for chapter in sorted({c for c, _ in refs}):
        values = glued_values(chapter)
        ascii_math += [
            f"{chapter}::{key}: {values[key]}"
            for c, key in refs
            if c == chapter and key in values and ASCII_MATH.search(values[key])
        ]
    assert not ascii_math, "pasted values with ASCII math:\n" + "\n".join(ascii_math)
