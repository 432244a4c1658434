"""The book's machinery: nothing here is science, and no science module imports it.

Modules (each has one job):

- :mod:`.results`          -- every saved result's name; atomic, validated, provenanced records.
- :mod:`.studies`          -- the one loader "read the saved record, or run the study now".
- :mod:`.precomputed`      -- the chapters' slow computations as records: registry and loader.
- :mod:`.precompute`       -- what each precomputed record computes, one module each (its roots).
- :mod:`.runner`           -- a long run unit by unit, checkpointed, saved as a record.
- :mod:`.execution`        -- where a long run's units execute: this process or a Dask cluster.
- :mod:`.kernel_cache`     -- numba's cache of the compiled kernels, warmed before workers start.
- :mod:`.scaling`          -- the Figure 2 grid over Dask workers: measured, and predicted.
- :mod:`.explorer`         -- the explorer's precomputed data (:mod:`.explorer_page`: its page).
- :mod:`.status`           -- the status page's machine (processor, cores, device, versions).
- :mod:`.pdf`              -- the book as one PDF.
- :mod:`.versus_authors`   -- the book's runs against the authors' released ones.
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
- :mod:`.sphinx_pasted`    -- Sphinx extension: how values pasted from the chapters read.
- :mod:`.sphinx_footer`    -- Sphinx extension: version, commit and licences on every page.
- :mod:`.sphinx_pages`     -- Sphinx extension: clean console, no glyph the book has no font for.
"""
