"""The book's machinery: nothing here is science, and no science module imports it.

Modules (each has one job):

- :mod:`.results`          -- every saved result's name; atomic, validated, provenanced records.
- :mod:`.studies`          -- the one loader "read the saved record, or run the study now".
- :mod:`.chapters`         -- deterministic execution of the chapters (the nbval copies).
- :mod:`.ledger`           -- verdicts and key numbers glued for the reproduction report.
- :mod:`.report`           -- checks and tables printed at a stable precision.
- :mod:`.plotting`         -- one look for every figure.
- :mod:`.sphinx_notebooks` -- Sphinx extension: .ipynb downloads, launch buttons.
"""
