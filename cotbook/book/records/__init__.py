"""Result records: what ``python -m cotbook ...`` computes once and the chapters read.

Every saved result has a name registered in :data:`RESULTS` (:mod:`.registry`), with the
modules whose code produced its numbers and the command that re-creates it.  Its producers
are the import closure of those modules, hashed into the record (:mod:`.provenance`, with the
commit and the machine), so that a record stales when that code changes.  A record is a JSON
object of fixed fields with two SHA-256 hashes, checked field by field when read
(:mod:`.schema`); :func:`save` writes it atomically into the folder its scale belongs to and
:func:`load` reads it back validated (:mod:`.store`).  A long run saves each finished unit in
a locked, keyed :class:`Checkpoint` first (:mod:`.checkpoint`), so ``--resume`` finishes an
interrupted run with the same record.

Modules, in the order they import one another:

- :mod:`.provenance` -- the producing code (:func:`import_closure`, :func:`source_hash`), the
  commit (:func:`code_info`) and the machine (:func:`environment`).
- :mod:`.registry`   -- every record's name, scale, roots and command (:data:`RESULTS`).
- :mod:`.schema`     -- the fields, hashes, strict JSON and stored files of a record
  (:class:`Record`, :func:`validate`).
- :mod:`.store`      -- where a record is written, atomically (:func:`save`, :func:`load`).
- :mod:`.checkpoint` -- a long run's finished units (:class:`Checkpoint`).

Every name here is imported on first use (``_LAZY``; :func:`import_closure` reads it) and is
not kept here: ``records.RESULTS_DIR`` is always :data:`.store.RESULTS_DIR` as it is now, so a
test that patches a name patches it in the module that uses it.
"""

from __future__ import annotations

from ... import _lazy

#: Every public name of the records, with the module that defines it (imported on first use).
_LAZY = {
    "ROOT": "cotbook.book.records.provenance",
    "source_hash": "cotbook.book.records.provenance",
    "import_closure": "cotbook.book.records.provenance",
    "default_config": "cotbook.book.records.provenance",
    "code_info": "cotbook.book.records.provenance",
    "cpu": "cotbook.book.records.provenance",
    "cpu_text": "cotbook.book.records.provenance",
    "environment": "cotbook.book.records.provenance",
    "ResultSpec": "cotbook.book.records.registry",
    "RESULTS": "cotbook.book.records.registry",
    "PRECOMPUTED_ROOTS": "cotbook.book.records.registry",
    "ResultError": "cotbook.book.records.registry",
    "SCHEMA": "cotbook.book.records.schema",
    "Record": "cotbook.book.records.schema",
    "parse_json": "cotbook.book.records.schema",
    "canonical_json": "cotbook.book.records.schema",
    "data_hash": "cotbook.book.records.schema",
    "record_hash": "cotbook.book.records.schema",
    "git_blob_id": "cotbook.book.records.schema",
    "stored_file": "cotbook.book.records.schema",
    "file_bytes": "cotbook.book.records.schema",
    "validate": "cotbook.book.records.schema",
    "RESULTS_DIR": "cotbook.book.records.store",
    "SCRATCH_DIR": "cotbook.book.records.store",
    "default_directory": "cotbook.book.records.store",
    "target_directory": "cotbook.book.records.store",
    "check_writable": "cotbook.book.records.store",
    "write_atomic": "cotbook.book.records.store",
    "save": "cotbook.book.records.store",
    "load": "cotbook.book.records.store",
    "add_hashes": "cotbook.book.records.store",
    "Checkpoint": "cotbook.book.records.checkpoint",
    "CheckpointError": "cotbook.book.records.checkpoint",
    "provenance": "cotbook.book.records.provenance",
    "registry": "cotbook.book.records.registry",
    "schema": "cotbook.book.records.schema",
    "store": "cotbook.book.records.store",
    "checkpoint": "cotbook.book.records.checkpoint",
}

__all__ = list(_LAZY)
__getattr__, __dir__ = _lazy.face(globals(), _LAZY, keep=False)
