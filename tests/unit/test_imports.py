"""The package's architecture, enforced: science never imports the book, the command line or
the benchmarks; the ground imports no wing; nothing imports the benchmarks but the command line;
and no module imports in a circle."""

import ast
from pathlib import Path

import pytest

import cotbook

PACKAGE = Path(cotbook.__file__).parent
SCIENCE = ("cotbook.theory", "cotbook.simulation", "cotbook.attention")
GROUND = ("cotbook._checks", "cotbook.tasks")
TOP = ("cotbook.book", "cotbook.cli", "cotbook.bench", "cotbook.__main__")


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
            if target == "cotbook.bench" and module != "cotbook.cli":
                bad.append(f"{module} -> {target} (only the command line runs benchmarks)")
    return sorted(bad)


@pytest.mark.slow
def test_the_package_has_no_circle_and_science_never_imports_the_book():
    graph = import_graph()
    assert {"cotbook.theory.closed_form", "cotbook.book.results"} <= set(graph)
    assert "cotbook.theory.result1" in graph["cotbook.theory.derivation"]
    assert _cycles(graph) == []
    assert _violations(graph) == []


def test_the_lambda0_tiers_never_call_back_into_their_route():
    """The tiers of the lambda = 0 route (``tier_*`` and their interface ``_tier``) import
    neither the route nor the entry points that walk it, and the route does not import the
    entry points: which tier answers a depth is decided in :mod:`route` alone."""
    graph = import_graph()

    def leaf(module):
        return module.rpartition(".")[2]

    (route,) = [m for m in graph if m.startswith("cotbook.theory") and leaf(m) == "route"]
    (entry,) = [m for m in graph if leaf(m) == "closed_form"]
    tiers = [m for m in graph if leaf(m) == "_tier" or leaf(m).startswith("tier_")]
    assert len(tiers) >= 5 and set(tiers) <= graph[route]  # the route lists them all
    assert [m for m in tiers if {route, entry} & graph[m]] == []
    assert entry not in graph[route] and route in graph[entry]


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
