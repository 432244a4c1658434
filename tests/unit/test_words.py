"""Words for readers: the chapters' prose and the command line's help say things in words.

A module constant (``explorer.QUANTUM``) stands for a number or a setting that the prose can
state; the history of the code ("X used to raise there; it now ...") belongs to the git log, not
to a chapter or to ``--help``; and ``--help`` is read in a terminal, where reStructuredText
markup shows raw.  The few names a reader does need (a function to call) are terms of the
glossary at the end of the chapter Running the book.  The API pages document names on purpose
and are left out.
"""

import ast
import importlib.util
import re
from pathlib import Path

import jupytext
import pytest

from cotbook import cli
from cotbook.book.build import chapters

ROOT = Path(__file__).resolve().parents[2]
PROSE_CHAPTERS = [p for p in chapters.chapter_paths(ROOT) if not p.stem.startswith("api")]
GLOSSARY_PAGE = ROOT / "book" / "running.md"

HISTORY = re.compile(
    r"\b(?:it|they|which)\s+used\s+to\b"
    r"|`\s+used\s+to\s+(?:raise|return|fail|accept|refuse|print|give|leave|read)\b"
    r"|\bno\s+longer\s+(?:raises|returns|fails|accepts|refuses|prints|reads|gives|needs)\b"
    r"|\bnow\s+(?:raises|returns|fails|accepts|refuses|leaves|prints|reads|gives|puts|has)\b"
    r"|\b(?:an|the|its|book's)\s+earlier\s+versions?\b"
    r"|\bhas\s+been\s+(?:fixed|changed|replaced|removed|rewritten|renamed)\b"
    r"|\bformerly\b|\bissue\s+\d+",
    re.IGNORECASE,
)
# reStructuredText in plain text: literals, roles and interpreted text, bold, directives
RST = re.compile(r"`|\*\*|^\s*\.\. [\w-]+::", re.MULTILINE)
SPAN = re.compile(r"`([^`\n]+)`")
DOTTED_CONSTANT = re.compile(r"\b[a-z_]\w*(?:\.\w+)*\.[A-Z][A-Z0-9_]*\b")
# a fenced block that is code (```bash, ```text, ...), not a directive (```{note})
FENCED_CODE = re.compile(r"^(```+)(?!\{).*?^\1\s*$", re.MULTILINE | re.DOTALL)


def prose(path) -> str:
    """The chapter's Markdown cells without their fenced code: what a reader reads as text."""
    cells = [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]
    return FENCED_CODE.sub("", "\n\n".join(cells))


def constants() -> set[str]:
    """Every public module-level ALL_CAPS name of the package, read from its source."""
    names = set()
    for path in (ROOT / "cotbook").rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            targets = getattr(node, "targets", [getattr(node, "target", None)])
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {n for n in names if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)}


def internal_names(text: str, known: set[str]) -> list[str]:
    """The constants ``text`` names: a dotted ``module.NAME`` in backticks, or a name of
    ``known``, in backticks or (with an underscore, so that no ordinary word counts) bare."""
    spans = SPAN.findall(text)
    found = [s for s in spans if DOTTED_CONSTANT.search(s) or s in known]
    bare = re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b", SPAN.sub("", text))
    return found + [name for name in bare if name in known]


def glossary_terms() -> set[str]:
    """The terms of the ``{glossary}`` in Running the book, backticks removed."""
    blocks = re.findall(r"^```\{glossary\}\n(.*?)^```$", GLOSSARY_PAGE.read_text(), re.M | re.S)
    assert len(blocks) == 1, "Running the book must hold one {glossary}"
    return {line.strip("`") for line in blocks[0].splitlines() if line and line[0] != " "}


def test_prose_states_a_constant_s_value_not_its_name():
    known = constants()
    assert {"QUANTUM", "RADIUS_TOL", "RESOLVE"} <= known
    assert internal_names("in steps of `explorer.QUANTUM` decades, `RESOLVE`", known) == [
        "explorer.QUANTUM",
        "RESOLVE",
    ]
    assert internal_names("RADIUS_TOL above it", known) == ["RADIUS_TOL"]
    # other projects' names and files are not the package's constants
    example = "`numpy.random.Generator`, `T_HEATMAP`, `LICENSE`, `MALLOC_TRIM_THRESHOLD_`, CPU"
    assert internal_names(example, known) == []
    found = {p.stem: internal_names(prose(p), known) for p in PROSE_CHAPTERS}
    assert not any(found.values()), {k: v for k, v in found.items() if v}


def test_prose_tells_no_history_of_the_code():
    for text in (
        "`asymptotic_law` used to raise there; it now leaves such a point out",
        "Each kernel now puts torch's count back",
        "An earlier version accepted the first two tori",
    ):
        assert HISTORY.search(text), text
    for text in (
        "the ridge's bias is no longer compensated by a gain",
        "the seed that is used to draw the tasks",
        "Now the closed system against the finite-D traces; recomputed now at a few points",
    ):
        assert not HISTORY.search(text), text
    found = {p.stem: [m.group() for m in HISTORY.finditer(prose(p))] for p in PROSE_CHAPTERS}
    assert not any(found.values()), {k: v for k, v in found.items() if v}


def resolves(name: str) -> bool:
    """Whether the dotted ``cotbook...`` ``name`` is a module or an attribute of one."""
    module, _, attr = name.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), attr)
    except ModuleNotFoundError:
        return importlib.util.find_spec(name) is not None


def test_glossary_names_are_the_package_s_names():
    terms = glossary_terms()
    names = {t for t in terms if t.startswith("cotbook.")}
    assert {"cotbook.theory.error_curve", "cotbook.theory.summary", "record"} <= terms
    assert [n for n in names if not resolves(n)] == []
    assert not resolves("cotbook.theory.no_such_name")


def test_names_a_reader_calls_are_in_the_glossary():
    """A chapter that shows a call of the package's, `theory.error_curve(...)`, shows a name the
    reader will type: the glossary has it, under its full name."""
    modules = {"cotbook"} | {
        p.stem if p.stem != "__init__" else p.parent.name for p in (ROOT / "cotbook").rglob("*.py")
    }
    terms = glossary_terms()
    missing = set()
    for path in PROSE_CHAPTERS:
        for span in SPAN.findall(prose(path)):
            called = re.match(r"([a-z_][\w.]*)\(", span)
            if called and called.group(1).split(".")[0] in modules:
                name = called.group(1)
                if not any(t == name or t.endswith("." + name) for t in terms):
                    missing.add(f"{path.stem}: {name}")
    assert not missing, sorted(missing)


def help_pages(capsys, command=()):
    """``(command, text)`` of ``--help`` for ``command`` and every subcommand under it, found
    from the help itself (a positional ``{a,b,...}`` line lists a command's subcommands)."""
    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    text = capsys.readouterr().out
    yield command, text
    listed = re.search(r"^positional arguments:\n\s+\{([\w,-]+)\}", text, re.MULTILINE)
    for name in listed.group(1).split(",") if listed else ():
        yield from help_pages(capsys, (*command, name))


def test_every_help_page_is_plain_text(capsys):
    """The top-level help once showed its docstring's ``` ``python -m cotbook <command>`` ```
    raw.  A dotted name appears only where the reader may call it: a glossary term."""
    pages = dict(help_pages(capsys))
    assert {(), ("bench", "coverage"), ("authors", "rerun"), ("theory",), ("finite-d",)} <= set(
        pages
    )  # a command's name may hold a hyphen
    terms = glossary_terms()
    for command, text in pages.items():
        where = " ".join(("cotbook", *command, "--help"))
        assert not RST.search(text), f"{where}: {RST.search(text).group()!r}"
        assert not HISTORY.search(text), f"{where}: {HISTORY.search(text).group()!r}"
        names = set(re.findall(r"(?<![/\w.])cotbook(?:\.\w+)+", text))  # not a file
        assert names <= terms, f"{where}: {names - terms}"
    assert not RST.search("python -m cotbook COMMAND; 'authors rerun --help'; t*, sigma^2")
    assert all(RST.search(t) for t in ("``--help``", ":mod:`cotbook`", "**bold**", ".. note::"))
