"""The API reference (book/api.md, the theory; book/api_experiments.md, simulations, attention and
saved results): every entry point it lists is documented on the built pages, from a docstring of
its own, with an executed example next to it; and it lists what a researcher starts from,
including everything ``cotbook.theory`` exports.

The page is Sphinx autodoc inside ``{eval-rst}`` blocks; the built page is the session's
``built_book`` (tests/book/conftest.py), so checking it costs no build of its own.
"""

import importlib
import inspect
import re

import jupytext
import nbformat
import pytest
from book_build import ROOT
from sphinx.pycode import ModuleAnalyzer

from cotbook import theory
from cotbook.book.build import chapters

PAGES = [ROOT / "book" / "api.md", ROOT / "book" / "api_experiments.md"]
DIRECTIVE = re.compile(
    r"^\.\. auto(function|class|exception|data):: (\S+)\n((?:   :[\w-]+:.*\n)*)", re.M
)
MEMBERS = re.compile(r"^   :members: (.+)$", re.M)

#: The entry points a researcher starts from (the issue's list); the page must document each.
REQUIRED = [
    "cotbook.theory.error_curve",
    "cotbook.theory.error_grid",
    "cotbook.theory.error_at",
    "cotbook.theory.errors_at",
    "cotbook.theory.phases.tau_c",
    "cotbook.theory.phases.regime",
    "cotbook.theory.phases.decay_rate",
    "cotbook.theory.phases.error_floor",
    "cotbook.theory.phases.optimal_depth",
    "cotbook.theory.phases.asymptotic_law",
    "cotbook.theory.scaling.kappa",
    "cotbook.theory.saturation.overtake",
    "cotbook.simulation.simulated_curve",
    "cotbook.simulation.SimulatedCurve",
    "cotbook.attention.Config",
    "cotbook.attention.train",
    "cotbook.attention.evaluate",
    "cotbook.attention.grid.GridSpec",
    "cotbook.attention.regimes.classify",
    "cotbook.attention.regimes.robust_verdict",
    "cotbook.attention.versus_theory.theory_curve",
    "cotbook.book.studies.grid",
    "cotbook.book.records.load",
]


def documented(pages=PAGES) -> dict[str, list[str]]:
    """``{target: [members]}`` of every autodoc directive of the pages, in page order."""
    found = {}
    for page in pages:
        for _, target, options in DIRECTIVE.findall(page.read_text()):
            members = MEMBERS.search(options)
            found[target] = [m.strip() for m in members.group(1).split(",")] if members else []
    return found


def resolve(target: str):
    """``(module name, object)`` of a dotted name, walked by attribute from its top package
    (a face such as ``cotbook.theory`` names modules that live in its sub-packages; a
    submodule no face names is imported on the way); the module is the last one the walk
    passes, where a variable's documentation is read."""
    top, *names = target.split(".")
    try:
        obj = importlib.import_module(top)
    except ImportError:
        raise ValueError(f"{target} does not name an object of an importable module") from None
    module = obj.__name__
    for name in names:
        if inspect.ismodule(obj) and not hasattr(obj, name):
            importlib.import_module(f"{obj.__name__}.{name}")
        obj = getattr(obj, name)
        if inspect.ismodule(obj):
            module = obj.__name__
    return module, obj


def attribute_doc(module: str, owner: str, name: str) -> str:
    """The documentation autodoc reads for a variable: the string after its assignment or its
    ``#:`` comment (``owner`` is "" for a module's variable, else the class's qualified name)."""
    docs = ModuleAnalyzer.for_module(module).find_attr_docs()
    return "\n".join(docs.get((owner, name), []))


def own_doc(target: str) -> str:
    """The docstring autodoc shows for ``target``, or "" where it would show an inherited one
    (a constant has only its type's docstring, e.g. float's)."""
    module, obj = resolve(target)
    if inspect.isroutine(obj) or inspect.isclass(obj):
        return inspect.getdoc(obj) or ""
    return attribute_doc(module, "", target.rpartition(".")[2])


def member_doc(cls, name: str) -> str:
    """The docstring of a class member: a method's or property's, or a field's (the string
    after it in the class body)."""
    value = inspect.getattr_static(cls, name, None)  # None: a dataclass field without default
    if inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod, property)):
        return inspect.getdoc(getattr(cls, name)) or ""
    return attribute_doc(cls.__module__, cls.__qualname__, name)


def test_pages_are_chapters_of_the_reference_part():
    """The API pages are chapters (executed, with an executed copy), side by side in the
    book's last part, after the report."""
    stems = [p.stem for p in chapters.chapter_paths(ROOT)]
    at = stems.index("api")
    assert stems[at : at + 2] == ["api", "api_experiments"]
    assert at > stems.index("reproduction_report") and at > stems.index("running")


def test_the_theory_has_its_own_page():
    """The theory's page documents cotbook.theory only; the other page none of it."""
    theory_page, experiments_page = (documented([page]) for page in PAGES)
    assert all(t.startswith("cotbook.theory.") for t in theory_page)
    assert not [t for t in experiments_page if t.startswith("cotbook.theory.")]


def test_page_lists_the_required_entry_points():
    """Each is on the page under the name a reader uses or where it is defined."""
    targets = documented()
    assert len(targets) >= 60, len(targets)
    objects = [resolve(target)[1] for target in targets]
    missing = [n for n in REQUIRED if not any(resolve(n)[1] is obj for obj in objects)]
    assert not missing, f"the API pages do not document {missing}"


def test_page_documents_every_export_of_cotbook_theory():
    """Every public name ``cotbook.theory`` exports (its modules aside) is on the page, under
    that name or where it is defined."""
    objects = [resolve(target)[1] for target in documented()]
    exported = [name for name in theory.__all__ if not inspect.ismodule(getattr(theory, name))]
    assert len(exported) >= 14, exported
    missing = [n for n in exported if not any(getattr(theory, n) is obj for obj in objects)]
    assert not missing, f"cotbook.theory exports {missing}, which the API pages do not document"


@pytest.mark.parametrize("target", list(documented()))
def test_entry_point_has_its_own_docstring(target):
    assert len(own_doc(target)) >= 20, f"{target}: no docstring of its own for autodoc to show"
    _, obj = resolve(target)
    for member in documented()[target]:
        assert len(member_doc(obj, member)) >= 10, f"{target}.{member}: no docstring"


def test_own_doc_tells_a_documented_constant_from_an_undocumented_one():
    assert "lambda = 0" in own_doc("cotbook.theory.closed_form.RTOL_DEFAULT")  # by the face
    assert resolve("cotbook.theory.closed_form.TINY")[0] == "cotbook.theory.exact.closed_form"
    assert resolve("cotbook.theory.ridge.coverage.tally")[0] == "cotbook.theory.ridge.coverage"
    assert own_doc("cotbook.theory.RTOL_DEFAULT") == ""  # re-exported: autodoc finds no comment
    assert own_doc("cotbook.theory.error_curve").startswith("E_0, ..., E_{t_max} of Result 1")
    assert own_doc("cotbook.attention.regimes.RULE").startswith("The book's rule")
    with pytest.raises(ValueError, match="importable"):
        resolve("nowhere.at_all")


def test_every_documented_block_is_followed_by_an_executed_example():
    """Each markdown cell with autodoc directives is followed by a code cell, and that cell
    printed something in the executed copy the book shows."""
    blocks = 0
    for page in PAGES:
        source = jupytext.read(page)
        executed = nbformat.read(chapters.executed_copy(ROOT, page), as_version=4)
        assert chapters.cell_sources(executed) == chapters.cell_sources(source)
        for index, cell in enumerate(executed.cells):
            if cell.cell_type == "markdown" and DIRECTIVE.search(cell.source + "\n"):
                blocks += 1
                example = executed.cells[index + 1]
                assert example.cell_type == "code", f"{page.name}: no example after {cell.id}"
                printed = "".join(o.get("text", "") for o in example.outputs)
                assert printed.strip(), f"{page.name}: example {example.id} prints nothing"
    assert blocks >= 20, blocks


def test_built_pages_document_every_entry_point(built_book):
    html = ""
    for page in PAGES:
        built = built_book.html / "book" / f"{page.stem}.html"
        assert built.is_file(), built_book.log[-3000:]
        html += built.read_text()
    targets = documented()
    missing = [t for t in targets if f'id="{t}"' not in html]
    assert not missing, f"the built API pages have no anchor for {missing}"
    members = [f"{t}.{m}" for t, ms in targets.items() for m in ms]
    assert members and not [m for m in members if f'id="{m}"' not in html]
    # the docstrings' numpydoc sections were turned into field lists, and the examples ran
    assert html.count('<dt class="field-odd">Parameters') >= 10
    assert "E_t, t = 0, 10, 20, 30, 40: [1." in html
