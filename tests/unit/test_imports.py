"""The package's architecture, enforced: science never imports the book, the command line or
the benchmarks; the ground imports no wing; nothing imports the benchmarks but the command line;
no module imports in a circle; inside a package, a module imports only its own layer or lower
ones (:data:`LAYERS`); no module is over 700 lines and no folder holds over 15 modules; and the
records' producers follow every import."""

import ast
from pathlib import Path

import pytest

import cotbook

PACKAGE = Path(cotbook.__file__).parent
SCIENCE = ("cotbook.theory", "cotbook.simulation", "cotbook.attention")
GROUND = ("cotbook._checks", "cotbook.tasks", "cotbook.wick")
COMMAND_LINE = ("cotbook.cli", "cotbook.commands")
TOP = ("cotbook.book", *COMMAND_LINE, "cotbook.bench", "cotbook.__main__")

#: Inside each package, its parts from the bottom layer up (a tuple is one layer): a module may
#: import only modules of its own layer or of a lower one.  A part is the name of a module or
#: sub-package right below the package, and every one must be listed (the face ``__init__``
#: itself is no part).
LAYERS = {
    # the theory: two engines, the laws read off them, and the faces on top
    "cotbook.theory": (
        "domain",
        "exact",
        ("_torus", "derivation"),
        "ridge",
        ("asymptotics", "phases"),
        "laws",
        ("finite_d", "curve", "overview", "numerics"),
    ),
    "cotbook.theory.exact": (
        ("result1", "_recurrences", "contour", "_tier"),
        ("lagrange", "ball"),
        ("tier_curve", "tier_stream", "tier_contour", "tier_mp"),
        "route",
        "closed_form",
    ),
    "cotbook.theory.ridge": (
        "_nodes",
        ("_cut", "_residues"),
        "_loop_pole",
        "_loop_sums",
        "torus",
        ("pole", "loop"),
        "cross",
        "_certify",
        "beyond",
        "engine",
        "coverage",
    ),
    "cotbook.theory.laws": (("scaling", "upturn"), "saturation", "stopping"),
    # the book: what a chapter calls stays at its top, its sub-packages hold the rest by job
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

#: The folders the size rules hold for (each with every folder below it): the whole package.
SIZED = ("cotbook",)
MAX_LINES, MAX_MODULES = 700, 15


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


def _faces(modules) -> dict:
    """``{package: {name: module}}``: the ``_LAZY`` table of every face (a package whose
    public names are imported on first use), read from the source."""
    out = {}
    for module, path in modules.items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_LAZY":
                pairs = zip(node.value.keys, node.value.values, strict=True)
                out[module] = {k.value: v.value for k, v in pairs}
    return out


def _reached(package, faces, seen=()) -> set:
    """What binding a face may reach as attributes: its table, and its sub-faces' tables."""
    out = set()
    for module in faces.get(package, {}).values():
        if module not in seen and module != package:
            out |= {module} | _reached(module, faces, {*seen, package})
    return out


def import_graph(root=PACKAGE) -> dict:
    """``{module: {cotbook modules it imports}}`` read from the source (ast), at module level
    and inside functions alike.  ``from X import name`` counts as importing ``X.name`` when that
    is a module of the package, else ``X``; a module that binds a face (``from cotbook import
    theory``) imports every module the face's table reaches, since any is an attribute away."""
    modules = {_module(p, root): p for p in root.rglob("*.py")}
    faces = _faces(modules)
    graph = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        edges = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("cotbook"):
                        edges |= {a.name} | _reached(a.name, faces)
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
                    if sub in modules:  # a module, or a face bound by name: all it reaches
                        edges |= {sub} | _reached(sub, faces)
                    else:  # a name, through its face's table where it has one
                        edges.add(faces.get(target, {}).get(alias.name, target))
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


def _layer_violations(graph, layers=LAYERS):
    """Every import that reaches up a package's layers, every part no layer lists, and every
    listed part that is not there."""
    bad = []
    for package, order in layers.items():
        rank = {
            part: k
            for k, layer in enumerate(order)
            for part in ((layer,) if isinstance(layer, str) else layer)
        }

        def part(module, package=package):
            return (
                module[len(package) + 1 :].split(".")[0]
                if module.startswith(package + ".")
                else None
            )

        for module, edges in sorted(graph.items()):
            own = part(module)
            if own is None:
                continue
            if own not in rank:
                bad.append(f"{module} (no layer of {package} lists {own!r})")
                continue
            for target in sorted(edges):
                other = part(target)
                if other is not None and other != own and rank.get(other, -1) > rank[own]:
                    bad.append(f"{module} -> {target} (up the layers of {package})")
        present = {part(m) for m in graph} - {None}
        bad += [
            f"{package}.{p} (listed in a layer, not there)" for p in sorted(rank.keys() - present)
        ]
    return bad


def _oversized(root=PACKAGE, packages=SIZED):
    """Every module over :data:`MAX_LINES` lines and every folder over :data:`MAX_MODULES`
    ``.py`` files (its ``__init__`` counted) under ``packages``."""
    bad = []
    for package in packages:
        folder = root.parent.joinpath(*package.split("."))
        for sub in [folder, *sorted(p for p in folder.rglob("*") if p.is_dir())]:
            modules = sorted(sub.glob("*.py"))
            if len(modules) > MAX_MODULES:
                bad.append(f"{sub.relative_to(root.parent)}: {len(modules)} modules")
            for path in modules:
                lines = len(path.read_text().splitlines())
                if lines > MAX_LINES:
                    bad.append(f"{path.relative_to(root.parent)}: {lines} lines")
    return bad


@pytest.mark.slow
def test_the_package_has_no_circle_and_science_never_imports_the_book():
    graph = import_graph()
    assert {"cotbook.theory.exact.closed_form", "cotbook.book.records.store"} <= set(graph)
    assert "cotbook.theory.exact.result1" in graph["cotbook.theory.derivation"]
    assert _cycles(graph) == []
    assert _violations(graph) == []
    assert _layer_violations(graph) == []


def test_every_module_and_folder_is_within_its_size():
    assert _oversized() == []


def test_the_layer_and_size_checks_catch_what_breaks_them(tmp_path):
    """The rules really fail: an import up the layers, a part no layer lists, a module too
    long and a folder too full."""
    pkg = tmp_path / "cotbook"
    theory = pkg / "theory"
    for folder in (pkg, theory, theory / "exact", theory / "full"):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    (theory / "domain.py").write_text("from .exact import closed_form\n")
    (theory / "exact" / "closed_form.py").write_text("from .. import domain\n")
    (theory / "stray.py").write_text("x = 1\n" * (MAX_LINES + 1))
    for k in range(MAX_MODULES):
        (theory / "full" / f"m{k}.py").write_text("")
    layers = {"cotbook.theory": ("domain", "exact", "full"), "cotbook.theory.exact": ()}
    assert _layer_violations(import_graph(pkg), layers) == [
        "cotbook.theory.domain -> cotbook.theory.exact.closed_form (up the layers of "
        "cotbook.theory)",
        "cotbook.theory.stray (no layer of cotbook.theory lists 'stray')",
        "cotbook.theory.exact.closed_form (no layer of cotbook.theory.exact lists 'closed_form')",
    ]
    assert _oversized(pkg, ("cotbook.theory",)) == [
        f"cotbook/theory/stray.py: {MAX_LINES + 1} lines",
        f"cotbook/theory/full: {MAX_MODULES + 1} modules",
    ]


def test_an_import_through_a_face_is_an_import_of_what_it_reaches(tmp_path):
    """Binding a face (``from cotbook import theory``) reaches every module of its table, and
    of its sub-faces' tables, as an attribute: the layer and circle checks see those arrows; a
    name imported from a face counts only its own module."""
    pkg = tmp_path / "cotbook"
    for folder in (pkg, pkg / "theory", pkg / "theory" / "exact", pkg / "theory" / "laws"):
        folder.mkdir()
    (pkg / "__init__.py").write_text('_LAZY = {"theory": "cotbook.theory"}\n')
    (pkg / "theory" / "__init__.py").write_text(
        '_LAZY = {"laws": "cotbook.theory.laws", "cf": "cotbook.theory.exact.closed_form"}\n'
    )
    (pkg / "theory" / "laws" / "__init__.py").write_text(
        '_LAZY = {"scaling": "cotbook.theory.laws.scaling"}\n'
    )
    (pkg / "theory" / "exact" / "__init__.py").write_text("")
    (pkg / "theory" / "exact" / "closed_form.py").write_text("from cotbook import theory\n")
    (pkg / "theory" / "laws" / "scaling.py").write_text("from ..exact import closed_form\n")
    (pkg / "theory" / "laws" / "other.py").write_text("from .. import cf\n")
    graph = import_graph(pkg)
    assert "cotbook.theory.laws.scaling" in graph["cotbook.theory.exact.closed_form"]
    assert graph["cotbook.theory.laws.other"] == {"cotbook.theory.exact.closed_form"}
    assert ["cotbook.theory.exact.closed_form", "cotbook.theory.laws.scaling"] in _cycles(graph)
    layers = {"cotbook.theory": ("exact", "laws", "gone")}
    assert _layer_violations(graph, layers) == [
        "cotbook.theory.exact.closed_form -> cotbook.theory.laws (up the layers of cotbook.theory)",
        "cotbook.theory.exact.closed_form -> cotbook.theory.laws.scaling (up the layers of "
        "cotbook.theory)",
        "cotbook.theory.gone (listed in a layer, not there)",
    ]


def test_the_records_producers_follow_every_import():
    """A record stales when the code of a producer changes, and its producers are the static
    closure of its roots (:func:`cotbook.book.records.import_closure`), which skips a name it
    cannot find as a file: after a move, a closure that lost a module would stale too seldom.
    So every producer's imports are producers too, every root is one, and the records of the
    lambda > 0 engine hold its modules under their new names."""
    from cotbook.book.records import RESULTS

    graph = import_graph()
    for name, spec in RESULTS.items():
        held = set(spec.producers)
        assert set(spec.roots) <= held, name
        for module in held:
            assert graph[module] <= held, (name, module, graph[module] - held)
    ridge = {f"cotbook.theory.ridge.{m}" for m in ("engine", "_certify", "beyond", "torus")}
    ridge |= {f"cotbook.theory.ridge.{m}" for m in ("pole", "loop", "cross", "_nodes", "_cut")}
    assert ridge <= set(RESULTS["ridge_depths"].producers)
    assert ridge | {"cotbook.theory.ridge.coverage"} <= set(RESULTS["ridge_coverage"].producers)
    lam0 = {f"cotbook.theory.exact.{m}" for m in ("closed_form", "lagrange", "contour", "result1")}
    for name in ("stopping_maps", "optimal_depths", "saturation_approach", "theory_accuracy"):
        assert lam0 <= set(RESULTS[name].producers), name


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
