"""The package's architecture, enforced: science never imports the book, the command line or
the benchmarks; the ground imports no wing; nothing imports the benchmarks but the command line;
no module imports in a circle; a package's parts import only their own or a lower layer; and
no module is over 700 lines, no folder holds more than 15 modules."""

import ast
from pathlib import Path

import pytest

import cotbook

PACKAGE = Path(cotbook.__file__).parent
SCIENCE = ("cotbook.theory", "cotbook.simulation", "cotbook.attention")
GROUND = ("cotbook._checks", "cotbook.tasks")
COMMAND_LINE = ("cotbook.cli", "cotbook.commands")
TOP = ("cotbook.book", *COMMAND_LINE, "cotbook.bench", "cotbook.__main__")


def _module(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module, is_package, level, name):
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def import_graph(root=PACKAGE) -> dict:
    """``{module: {cotbook modules it imports}}`` read from the source (ast), at module level
    and inside functions alike.  ``from X import name`` counts as importing ``X.name`` when that
    is a module of the package, else ``X``."""
    modules = {_module(p, root): p for p in root.rglob("*.py")}
    graph = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name.startswith("cotbook")}
            elif isinstance(node, ast.ImportFrom):
                target = (
                    _resolve(module, is_package, node.level, node.module)
                    if node.level
                    else node.module
                )
                if not target.startswith("cotbook"):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    edges.add(sub if sub in modules else target)
        edges.discard(module)
        graph[module] = {e for e in edges if e in modules}
    return graph


def _within(module, wings):
    return any(module == w or module.startswith(w + ".") for w in wings)


def _cycles(graph):
    """Every module that lies on a circle of imports (Tarjan's strongly connected components)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def _violations(graph):
    bad = []
    for module, edges in graph.items():
        for target in edges:
            if _within(module, SCIENCE + GROUND) and _within(target, TOP):
                bad.append(f"{module} -> {target} (science reaches into the book/CLI/benchmarks)")
            if _within(module, GROUND) and _within(target, SCIENCE):
                bad.append(f"{module} -> {target} (the ground imports a wing)")
            if target == "cotbook.bench" and module not in COMMAND_LINE:
                bad.append(f"{module} -> {target} (only the command line runs benchmarks)")
    return sorted(bad)


def _part(module, package):
    """The part of ``package`` that ``module`` is or lies in, ``None`` outside it."""
    if not module.startswith(package + "."):
        return None
    return module.split(".")[package.count(".") + 1]


def _layer_violations(graph, layers) -> list:
    """Every import from a lower layer to a higher one, and every part in no layer.

    ``layers`` maps a package to its parts' layers, lowest first (a tuple is one layer of
    several parts); a module (and anything below it) may import only modules of its own layer
    or a lower one.  Imports leaving the package are left to the other rules."""
    bad = []
    for package, order in layers.items():
        rank = {}
        for k, layer in enumerate(order):
            for name in (layer,) if isinstance(layer, str) else layer:
                rank[name] = k
        for module in sorted(m for m in graph if _part(m, package) is not None):
            part = _part(module, package)
            if part not in rank:
                bad.append(f"{module} is in no layer of {package}")
                continue
            for target in sorted(graph[module]):
                if rank.get(_part(target, package), -1) > rank[part]:
                    bad.append(
                        f"{module} -> {target} (a lower layer of {package} imports a higher)"
                    )
    return bad


#: The book's layers, lowest first: what a chapter calls stays at the top of cotbook.book, its
#: sub-packages hold the rest by job (issue 64).
BOOK_LAYERS = {
    "cotbook.book": (
        ("precompute", "authors_script", "suite_timing", "sampling", "report"),
        "records",
        "runs",
        "authors",
        ("ledger", "report_file", "downloads", "plotting", "explorer", "explorer_page", "status"),
        "build",
        ("studies", "precomputed"),
        "sphinx",
    ),
    "cotbook.book.records": ("provenance", "registry", "schema", "store", "checkpoint"),
    "cotbook.book.runs": (("execution", "kernel_cache"), "runner", "scaling"),
    "cotbook.book.authors": ("manifest", ("runs", "rerun"), ("versus", "floors")),
    "cotbook.book.build": ("chapters", ("read_build", "pdf")),
    "cotbook.book.sphinx": (("layout", "notebooks", "data", "footer", "pages"), "pasted"),
}


@pytest.mark.slow
def test_the_book_imports_only_downwards():
    assert _layer_violations(import_graph(), BOOK_LAYERS) == []


def test_the_layer_check_catches_an_upward_import_and_an_unplaced_part():
    graph = {
        "cotbook.book.records.store": {"cotbook.book.records.schema", "cotbook._checks"},
        "cotbook.book.records.schema": {"cotbook.book.records.store"},
        "cotbook.book.records.extra": set(),
        "cotbook.book.records": set(),
    }
    layers = {"cotbook.book.records": ("schema", "store")}
    assert _layer_violations(graph, layers) == [
        "cotbook.book.records.extra is in no layer of cotbook.book.records",
        "cotbook.book.records.schema -> cotbook.book.records.store (a lower layer of "
        "cotbook.book.records imports a higher)",
    ]


MAX_LINES, MAX_MODULES = 700, 15


def _oversized(folder: Path) -> list:
    """Every module under ``folder`` over :data:`MAX_LINES` lines, and every folder holding
    more than :data:`MAX_MODULES` modules (``__init__`` counted)."""
    bad = []
    for path in sorted(folder.rglob("*.py")):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            bad.append(f"{path.relative_to(folder.parent)}: {lines} lines")
    for sub in sorted({folder, *(p.parent for p in folder.rglob("*.py"))}):
        modules = len(list(sub.glob("*.py")))
        if modules > MAX_MODULES:
            bad.append(f"{sub.relative_to(folder.parent)}/: {modules} modules")
    return bad


# cotbook.theory joins the list when its own move (issue 64) lands
@pytest.mark.parametrize("wing", ["book", "attention", "simulation"])
def test_no_module_is_too_long_and_no_folder_too_full(wing):
    assert _oversized(PACKAGE / wing) == []
    top = [p for p in PACKAGE.glob("*.py") if len(p.read_text().splitlines()) > MAX_LINES]
    assert len(list(PACKAGE.glob("*.py"))) <= MAX_MODULES and top == []


def test_the_size_check_catches_a_long_module_and_a_full_folder(tmp_path):
    wing = tmp_path / "wing"
    (wing / "sub").mkdir(parents=True)
    (wing / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    for k in range(MAX_MODULES + 1):
        (wing / "sub" / f"m{k}.py").write_text("")
    assert _oversized(wing) == [
        f"wing/long.py: {MAX_LINES + 1} lines",
        f"wing/sub/: {MAX_MODULES + 1} modules",
    ]


@pytest.mark.slow
def test_the_package_has_no_circle_and_science_never_imports_the_book():
    graph = import_graph()
    assert {"cotbook.theory.closed_form", "cotbook.book.records.store"} <= set(graph)
    assert "cotbook.theory.result1" in graph["cotbook.theory.derivation"]
    assert _cycles(graph) == []
    assert _violations(graph) == []


def test_the_checks_catch_a_circle_and_a_forbidden_arrow(tmp_path):
    """The rules really fail on a package that breaks them."""
    pkg = tmp_path / "cotbook"
    (pkg / "theory").mkdir(parents=True)
    (pkg / "book").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "theory" / "__init__.py").write_text("")
    (pkg / "book" / "__init__.py").write_text("")
    (pkg / "theory" / "a.py").write_text("from . import b\n")
    (pkg / "theory" / "b.py").write_text(
        "def f():\n    from ..book import results\n    from . import a\n"
    )
    (pkg / "book" / "results.py").write_text("import json\n")
    graph = import_graph(pkg)
    assert _cycles(graph) == [["cotbook.theory.a", "cotbook.theory.b"]]
    assert _violations(graph) == [
        "cotbook.theory.b -> cotbook.book.results (science reaches into the book/CLI/benchmarks)"
    ]


@pytest.mark.parametrize("face", ["theory", "simulation", "attention", "book", "phases"])
def test_the_wings_are_reachable_from_the_package(face):
    assert getattr(cotbook, face).__name__.startswith("cotbook.")
    assert face in dir(cotbook)
