"""The reproduction report as data: its ledger table, filled with the values the chapters glued.

The report page (``book/reproduction_report.md``) holds a Markdown table whose cells paste glued
values with ``{glue:text}`<chapter>.md::<key>:s```. :func:`ledger_rows` reads that table,
:func:`glued_values` reads what an executed chapter glued, and :func:`records` joins them into
one record per row -- item, chapter, what the paper states, what was measured (text and the
values by key), verdict and caveats -- which the book's Sphinx extension writes as
``reproduction_report.json`` beside the report page. The file therefore says exactly what the
page shows.
"""

from __future__ import annotations

import ast
import re

__all__ = [
    "GLUE_REF",
    "glued_values",
    "stored_values",
    "ledger_rows",
    "verdict_rows",
    "records",
    "errata_count",
    "verdict_counts",
    "glued_in",
]

#: A value pasted from a chapter: ``{glue:text}`<chapter>.md::<key>:s```.
GLUE_REF = re.compile(r"\{glue:text\}`([a-z0-9_]+)\.md::([a-z0-9_]+):s`")
_ROLE = re.compile(r"\{(?:ref|cite|eq|numref)\}`([^`]*)`")
_CHAPTER = re.compile(r";\s*chapter:\s*\{ref\}`([a-z0-9-]+)`\s*$")
_GLUE_MIME = "application/papermill.record/text/plain"


def glued_values(notebook) -> dict[str, str]:
    """``{key: text}`` of every value glued (myst-nb ``glue``) in an executed ``notebook``
    (an ``nbformat`` node)."""
    values = {}
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None and _GLUE_MIME in out.get("data", {}):
                values[name] = _text(out["data"][_GLUE_MIME])
    return values


def stored_values(store: dict) -> dict[str, str]:
    """``{key: text}`` from a myst-nb glue store (the ``<page>.glue.json`` a build writes beside
    each executed notebook, where the glued outputs are moved)."""
    return {key: _text(out["data"]["text/plain"]) for key, out in store.items()}


def _text(stored: str) -> str:
    """The text a glued string shows on the page: its stored repr, evaluated (as myst-nb's
    ``{glue:text}`` does), so quotes of either kind are gone."""
    try:
        value = ast.literal_eval(stored)
    except (SyntaxError, ValueError):
        return stored
    return str(value)


def ledger_rows(markdown: str) -> list[list[str]]:
    """The cells of each row of the report's ``## Ledger`` table (header and rule excluded)."""
    if "## Ledger" not in markdown:
        raise ValueError("markdown must hold the report's '## Ledger' section")
    text = markdown.split("## Ledger", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    rows = [[cell.strip() for cell in line.strip().strip("|").split(" | ")] for line in lines[1:]]
    bad = [row[0] for row in rows if len(row) != 4]
    if bad:
        raise ValueError(f"every ledger row must have 4 cells; these do not: {bad}")
    return rows


def verdict_rows(markdown: str) -> list[list[str]]:
    """``[item, verdict, chapter]`` per ledger row, as MyST for a page that shows the verdicts
    (the intro): the item without its chapter, the verdict cell's glue reference without its
    bold (it renders where it is pasted) and the chapter as a ``{ref}`` link."""
    out = []
    for item, _, _, verdict in ledger_rows(markdown):
        chapter = _CHAPTER.search(item)
        if chapter is None or "**" not in verdict:
            raise ValueError(f"ledger row {item!r} names no chapter or has no bold verdict")
        out.append([item[: chapter.start()].strip(), verdict.split("**")[1],
                    f"{{ref}}`{chapter.group(1)}`"])  # fmt: skip
    return out


def _fill(text: str, glued: dict[str, dict[str, str]], values: dict[str, str]) -> str:
    def paste(match):
        chapter, key = match.groups()
        if key not in glued.get(chapter, {}):
            raise ValueError(f"the report pastes {chapter}.md::{key}, which is not glued")
        values[f"{chapter}::{key}"] = glued[chapter][key]
        return glued[chapter][key]

    text = GLUE_REF.sub(paste, text)
    return _ROLE.sub(r"\1", text).replace("**", "").strip()


def records(markdown: str, glued: dict[str, dict[str, str]]) -> list[dict]:
    """One record per ledger row of the report ``markdown``, its glue references replaced by
    ``glued[chapter][key]``: ``item``, ``chapter`` (the chapter's label), ``paper_states``,
    ``measured`` (text), ``measured_values`` (``{"<chapter>::<key>": text}``), ``verdict``,
    ``verdict_as_shown`` (the whole verdict cell) and ``caveats`` (``"none"`` when the row
    pastes none)."""
    out = []
    for item, states, measured, verdict in ledger_rows(markdown):
        chapter = _CHAPTER.search(item)
        if chapter is None:
            raise ValueError(f"ledger row {item!r} names no chapter ('; chapter: {{ref}}`...`')")
        refs = GLUE_REF.findall(verdict)
        if not refs or not refs[0][1].endswith("_verdict"):
            raise ValueError(f"ledger row {item!r}: its verdict is not pasted from a chapter")
        values: dict[str, str] = {}
        caveat_refs = [(c, k) for c, k in refs if k.endswith("_caveats")]
        out.append(
            {
                "item": _fill(item[: chapter.start()], glued, {}),
                "chapter": chapter.group(1),
                "paper_states": _fill(states, glued, {}),
                "measured": _fill(measured, glued, values),
                "measured_values": values,
                "verdict": _fill(verdict.split("**")[1], glued, {}),
                "verdict_as_shown": _fill(verdict, glued, {}),
                "caveats": "; ".join(
                    _fill(f"{{glue:text}}`{c}.md::{k}:s`", glued, {}) for c, k in caveat_refs
                )
                or "none",
            }
        )
    return out


def errata_count(markdown: str) -> int:
    """The number of items of the report's ``## Errata and inconsistencies`` list."""
    if "## Errata and inconsistencies" not in markdown:
        raise ValueError("markdown must hold the report's '## Errata and inconsistencies' section")
    text = markdown.split("## Errata and inconsistencies", 1)[1].split("\n## ", 1)[0]
    return len(re.findall(r"^\d+\. \*\*", text, flags=re.MULTILINE))


def verdict_counts(rows: list[dict]) -> dict[str, int]:
    """``{verdict: number of rows}`` of :func:`records`, for every verdict of
    :data:`cotbook.book.ledger.VERDICTS` (zero where none has it); a row with another verdict
    is an error."""
    from .ledger import VERDICTS

    counts = dict.fromkeys(VERDICTS, 0)
    for row in rows:
        if row["verdict"] not in counts:
            raise ValueError(f"row {row['item']!r} has verdict {row['verdict']!r}")
        counts[row["verdict"]] += 1
    return counts


def glued_in(folder) -> dict[str, dict[str, str]]:
    """``{chapter: {key: text}}`` glued in the executed notebooks of ``folder`` (the chapters'
    executed copies, :data:`cotbook.book.build.chapters.NOTEBOOK_DIR`), by file name."""
    from pathlib import Path

    import nbformat

    return {
        path.stem: glued_values(nbformat.read(path, as_version=4))
        for path in sorted(Path(folder).glob("*.ipynb"))
    }
