"""The book's machinery: nothing here is science, and no science module imports it.

Modules (each has one job):

- :mod:`.results`          -- every saved result's name; atomic, validated, provenanced records.
- :mod:`.studies`          -- the one loader "read the saved record, or run the study now".
- :mod:`.authors_release`  -- the authors' released files: manifest, checked record.
- :mod:`.authors`          -- the authors' released runs, parsed into named views.
- :mod:`.chapters`         -- deterministic execution of the chapters (the nbval copies).
- :mod:`.ledger`           -- verdicts and key numbers glued for the reproduction report.
- :mod:`.report`           -- checks at a stable precision; tables rendered as Markdown.
- :mod:`.report_file`      -- the reproduction report as data (its ledger, filled with the glue).
- :mod:`.downloads`        -- the data behind a figure, offered as a file beside the page.
- :mod:`.plotting`         -- one look for every figure, sized for the text column.
- :mod:`.sphinx_notebooks` -- Sphinx extension: .ipynb downloads, launch buttons, kernels.
- :mod:`.sphinx_data`      -- Sphinx extension: offered data files, reproduction_report.json.
"""
