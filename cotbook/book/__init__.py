"""The book's machinery: nothing here is science, and no science module imports it.

Here lies what a chapter calls; its sub-packages hold the rest by job.  The layers, each
importing only its own or a lower one (``tests/unit/test_imports.py``): the precomputed
records' computations, the authors' script, the suite's timing, sampling and report; then
:mod:`.records`; :mod:`.runs`; :mod:`.authors`; the ledger, report file, downloads, plotting,
explorer and status; :mod:`.build`; the loaders (studies, precomputed); :mod:`.sphinx`.  No
sub-package is named in this file: it is a producer of every record under it.

Sub-packages (each has one job):

- :mod:`.records`    -- every saved result's name; atomic, validated, provenanced records.
- :mod:`.runs`       -- long runs: unit by unit, checkpointed, here or on a Dask cluster; the
  Figure 2 grid over Dask workers (``engine_scaling``).
- :mod:`.authors`    -- the paper authors' runs: their released files as a checked record,
  parsed into named views, their script's reruns, and the book's runs set against both.
- :mod:`.build`      -- the chapters executed deterministically, the readable book, the PDF.
- :mod:`.sphinx`     -- the Sphinx extensions (``_config.yml``'s ``extra_extensions``).
- :mod:`.precompute` -- what each precomputed record computes, one module each (its roots).

Modules (each has one job):

- :mod:`.studies`        -- the one loader "read the saved record, or run the study now".
- :mod:`.precomputed`    -- the chapters' slow computations as records: registry and loader.
- :mod:`.explorer`       -- the explorer's precomputed data (:mod:`.explorer_page`: its page).
- :mod:`.status`         -- the status page's machine (processor, cores, device, versions).
- :mod:`.ledger`         -- verdicts and key numbers glued for the reproduction report.
- :mod:`.report`         -- checks at a stable precision; tables rendered as Markdown.
- :mod:`.report_file`    -- the reproduction report as data (its ledger, filled with the glue).
- :mod:`.downloads`      -- the data behind a figure, offered as a file beside the page.
- :mod:`.plotting`       -- one look for every figure, sized for the text column.
- :mod:`.sampling`       -- what a random sample bounds.
- :mod:`.authors_script` -- the authors' training script, run unmodified (the root of the record
  ``authors_reruns``, so it stays here; :mod:`.authors.rerun` keeps that record).
- :mod:`.suite_timing`   -- the test suite's cost (the root of the record ``test_suite``).
"""
