"""The examples in the package's docstrings are executed (they cannot rot), and every public
entry point a reader starts from has one."""

import doctest
import importlib
import pkgutil

import pytest

import cotbook

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(cotbook.__path__, "cotbook.")
    if m.name != "cotbook.__main__"
)
FUNCTIONS = [
    "cotbook.theory.error_curve",
    "cotbook.theory.error_at",
    "cotbook.theory.error_grid",
    "cotbook.theory.phases.tau_c",
    "cotbook.theory.phases.regime",
    "cotbook.theory.ridge.ridge_curve",
    "cotbook.theory.numerics.accuracy_rows",
    "cotbook.simulation.simulated_curve",
    "cotbook.attention.train",
    "cotbook.attention.evaluate",
]
ENTRY_POINTS = [
    *FUNCTIONS,
    "cotbook.simulation.finite_size.SimulationSpec",
    "cotbook.attention.grid.GridSpec",
]


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.slow
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed"


@pytest.mark.parametrize("path", ENTRY_POINTS)
def test_entry_points_have_an_executed_example(path):
    module, _, name = path.rpartition(".")
    obj = getattr(importlib.import_module(module), name)
    examples = doctest.DocTestFinder(recurse=False).find(obj, name)
    assert examples and examples[0].examples, f"{path} has no example in its docstring"


@pytest.mark.parametrize("path", FUNCTIONS)
def test_entry_points_document_parameters_and_returns(path):
    module, _, name = path.rpartition(".")
    doc = getattr(importlib.import_module(module), name).__doc__
    for section in ("Parameters\n    ----------", "Returns\n    -------", "Examples\n    --------"):
        assert section in doc, f"{path}: no numpydoc section {section.split()[0]!r}"
