"""cotbook: an executable reproduction of *An Asymptotic Theory of Chain-of-Thought in
In-Context Learning* (Takanami & Pehlevan).

Modules (each has one job):

- :mod:`cotbook.tasks`     -- sampling in-context regression tasks (Section 3, "Training data").
- :mod:`cotbook.model`     -- prompts, attention layer, readout and CoT (Section 3, App. B).
- :mod:`cotbook.pretrain`  -- the ridge objective and its minimiser A* = B C^{-1} (Eq. loss).
- :mod:`cotbook.simulate`  -- finite-D test error E_t of the trained model (Eq. gen. trace).
- :mod:`cotbook.report`    -- printing checks and numbers in chapters at a stable precision.
- :mod:`cotbook.plotting`  -- shared figure helpers for the chapters.
- :mod:`cotbook.chapters`  -- deterministic execution of the chapters for the nbval tests.
- :mod:`cotbook.ledger`    -- verdicts and key numbers glued by the chapters for the report.
- :mod:`cotbook.sphinx_notebooks` -- Sphinx extension: .ipynb downloads, launch buttons.
- :mod:`cotbook.cli`       -- ``python -m cotbook ...``.
"""

__version__ = "0.1.0"
