"""cotbook: an executable reproduction of *An Asymptotic Theory of Chain-of-Thought in
In-Context Learning* (Takanami & Pehlevan).

The package is four wings over a small ground; science never imports the book, the command
line or the benchmarks, and no module imports in a circle (``tests/unit/test_imports.py``):

- ground: :mod:`cotbook._checks` (input validation) and :mod:`cotbook.tasks` (the paper's task
  distribution, Section 3).
- :mod:`cotbook.theory` -- the exact D -> infinity theory: Result 1 (``theory.error_curve``
  for any ridge), Appendices C and D, Results 2 and 3, Theorem 1.
- :mod:`cotbook.simulation` -- the simplified model at finite D: model, pretraining,
  simulation, the Appendix E study.
- :mod:`cotbook.attention` -- trained linear and softmax attention: the layer, the Figure 2
  runs and their analysis, the Appendix A structure.
- :mod:`cotbook.book` -- the book's machinery: result records, the saved-or-run loader,
  chapter execution, the claims ledger, tables and figures, the Sphinx extension.
- :mod:`cotbook.cli` (``python -m cotbook``; its commands' bodies in :mod:`cotbook.commands`)
  and :mod:`cotbook.bench` (timings) sit on top.

The wings are imported on first use (``cotbook.theory`` works after ``import cotbook``);
``cotbook.phases`` is :mod:`cotbook.theory.phases`.
"""

import importlib

__version__ = "0.1.0"

_LAZY = {
    "theory": "cotbook.theory",
    "simulation": "cotbook.simulation",
    "attention": "cotbook.attention",
    "book": "cotbook.book",
    "phases": "cotbook.theory.phases",
}


def __getattr__(name):
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        globals()[name] = module
        return module
    raise AttributeError(f"module 'cotbook' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])
