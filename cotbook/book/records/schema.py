"""What a record is: its fields, its hashes, strict JSON, the files it stores, validation.

A record (JSON) carries its name, the schema version, the scale, its configuration, the code
version (:func:`~.provenance.code_info`), library versions and thread counts, the time it was
written, its timings and its data.

- JSON is read strictly (:func:`parse_json`: no ``NaN``/``Infinity``, no key twice), the data
  must be a non-empty object, and a record carries ``data_sha256``, the SHA-256 of its data's
  canonical JSON (:func:`data_hash`), and ``record_sha256``, the SHA-256 of every other field
  (:func:`record_hash`: name, schema, scale, config, code, environment, time, timings and the
  data's hash): :func:`validate` refuses a record whose data, configuration, provenance or
  timings were edited, raising :class:`~.registry.ResultError` naming the file.
- :attr:`Record.stale` compares the recorded code hash with the code now; a chapter's caption
  says so.
- A record of someone else's files (``ResultSpec.stored_files``) keeps their raw bytes, each
  with its repository, commit, path and git blob id (:func:`stored_file`); :func:`validate`
  recomputes every blob id from the stored bytes and refuses the record, naming the file, if
  one differs (:func:`file_bytes` gives the bytes back).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

from . import provenance
from .registry import RESULTS, ResultError, ResultSpec

SCHEMA = 2


_FIELDS = {
    "name": str,
    "schema": int,
    "scale": str,
    "config": dict,
    "code": dict,
    "environment": dict,
    "created": str,
    "timings_s": dict,
    "record_sha256": str,
    "data_sha256": str,
    "data": dict,
}
_HASHES = ("record_sha256", "data_sha256")
_CODE_FIELDS = ("version", "commit", "dirty", "source_hash")


@dataclass(frozen=True)
class Record:
    """A validated result record, read from ``path``."""

    path: Path
    name: str
    scale: str
    config: dict
    code: dict
    environment: dict
    created: str
    timings_s: dict
    data: dict
    data_sha256: str
    record_sha256: str

    @property
    def spec(self) -> ResultSpec:
        return RESULTS[self.name]

    @property
    def stale(self) -> bool:
        """Whether the code that produced the record differs from the code now (an unknown
        hash, from before hashes were recorded, counts as different)."""
        return self.code["source_hash"] != provenance.source_hash(self.spec.producers)

    def written_by(self) -> str:
        """``cotbook <version> (git <commit>[+dirty])``, or ``(no git)``."""
        commit = self.code["commit"]
        if commit is None:
            return f"cotbook {self.code['version']} (no git)"
        dirty = "+dirty" if self.code["dirty"] else ""
        return f"cotbook {self.code['version']} (git {commit[:7]}{dirty})"


def _no_constant(token):
    raise ValueError(f"{token} is not a JSON number")


def _finite_float(token):
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(f"{token} is beyond the float64 range")
    return value


def _unique_keys(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {twice!r} appears twice in one object")
    return out


def parse_json(text):
    """``json.loads(text)``, strictly: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python
    writes but JSON has not), a number beyond the float64 range (``1e400``, which Python reads
    as infinity) and a key given twice in one object (of which Python would keep the last,
    silently) raise ``ValueError``.

    >>> parse_json('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> parse_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: the key 'a' appears twice in one object
    """
    return json.loads(
        text,
        parse_constant=_no_constant,
        parse_float=_finite_float,
        object_pairs_hook=_unique_keys,
    )


def canonical_json(value) -> str:
    """The canonical JSON text of ``value``: keys sorted, no spaces, ASCII, no NaN."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def data_hash(value) -> str:
    """SHA-256 (64 hex digits) of :func:`canonical_json` of ``value``: what a record's
    ``data_sha256`` and a checkpoint unit's ``sha256`` hold."""
    return hashlib.sha256(canonical_json(value).encode("ascii")).hexdigest()


def record_hash(raw) -> str:
    """:func:`data_hash` of every field of the record ``raw`` but ``data`` (which its
    ``data_sha256`` covers) and ``record_sha256`` itself: what a record's ``record_sha256``
    holds."""
    return data_hash({k: v for k, v in raw.items() if k not in ("data", "record_sha256")})


def _as_loaded(value, what):
    """``value`` as it reads back from the JSON written for it (tuples become lists, numbers
    keep their repr), so that the hash written is the hash a reader computes."""
    try:
        return parse_json(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{what} must be JSON without NaN or infinities ({err})") from None


def _invalid(path, what):
    return ResultError(f"{path}: {what}")


_TEXT_SUFFIXES = (".csv", ".json", ".txt", ".md")
_FILE_FIELDS = ("repository", "commit", "path", "blob", "encoding", "content")


def git_blob_id(data: bytes) -> str:
    """Git's id of a file holding ``data``: ``sha1(b"blob <len>\\0" + data)``, 40 hex digits.

    >>> git_blob_id(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    if not isinstance(data, bytes):
        raise ValueError(f"data must be bytes, got {type(data).__name__}")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def stored_file(repository: str, commit: str, path: str, data: bytes) -> dict:
    """The record entry keeping the file ``path`` of ``repository`` at ``commit``: its git
    blob id and its bytes, as text when it is a CSV, JSON, text or Markdown file in UTF-8,
    else in base64.

    >>> entry = stored_file("owner/repo", "0" * 40, "a/b.csv", b"1,2\\n")
    >>> entry["encoding"], entry["content"], file_bytes(entry)
    ('text', '1,2\\n', b'1,2\\n')
    """
    for key, value in (("repository", repository), ("commit", commit), ("path", path)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{key} must be a non-empty string, got {value!r}")
    blob = git_blob_id(data)
    encoding = "base64"
    if path.lower().endswith(_TEXT_SUFFIXES):
        try:
            content = data.decode("utf-8")
            encoding = "text"
        except UnicodeDecodeError:
            pass
    if encoding == "base64":
        content = base64.b64encode(data).decode("ascii")
    return {
        "repository": repository,
        "commit": commit,
        "path": path,
        "blob": blob,
        "encoding": encoding,
        "content": content,
    }


def file_bytes(entry: dict) -> bytes:
    """The bytes a :func:`stored_file` entry keeps (``ValueError`` if they cannot be decoded;
    their blob id is checked by :func:`load`, not here)."""
    if not isinstance(entry, dict) or not all(k in entry for k in _FILE_FIELDS):
        raise ValueError(f"entry must be a stored file with fields {list(_FILE_FIELDS)}")
    content = entry["content"]
    if not isinstance(content, str):
        raise ValueError(f"entry content must be a string, got {type(content).__name__}")
    if entry["encoding"] == "text":
        return content.encode("utf-8")
    if entry["encoding"] == "base64":
        try:
            return base64.b64decode(content.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError) as err:
            raise ValueError(f"entry content is not valid base64 ({err})") from None
    raise ValueError(f"entry encoding must be 'text' or 'base64', got {entry['encoding']!r}")


def _check_stored_files(data, path, spec) -> None:
    """Every stored file's bytes have the blob id it records; the first that does not is
    named."""
    files = data.get("files")
    if not isinstance(files, list) or not files:
        raise _invalid(path, "data must hold 'files', a non-empty list of stored files")
    seen = set()
    for entry in files:
        if not isinstance(entry, dict) or any(
            not isinstance(entry.get(k), str) for k in _FILE_FIELDS
        ):
            raise _invalid(path, f"a stored file lacks a string field of {list(_FILE_FIELDS)}")
        name = entry["path"]
        if name in seen:
            raise _invalid(path, f"stored file {name} appears twice")
        seen.add(name)
        try:
            blob = git_blob_id(file_bytes(entry))
        except ValueError as err:
            raise _invalid(path, f"stored file {name}: {err}") from None
        if blob != entry["blob"]:
            raise _invalid(
                path,
                f"stored file {name} has git blob id {blob}, not the {entry['blob']} it records "
                f"(the record was altered): re-create it with `{spec.command}`",
            )


def validate(raw, path) -> Record:
    """The :class:`Record` of the parsed JSON ``raw``; :class:`ResultError` naming ``path``
    and the first thing that is wrong otherwise."""
    if not isinstance(raw, dict):
        raise _invalid(path, "not a JSON object")
    if raw.get("schema") != SCHEMA:
        raise _invalid(path, f"schema must be {SCHEMA}, got {raw.get('schema')!r}")
    spec = RESULTS.get(raw["name"]) if isinstance(raw.get("name"), str) else None
    for key, kind in _FIELDS.items():
        if key in _HASHES and key not in raw and isinstance(raw.get("data"), dict):
            raise _invalid(
                path,
                f"missing field {key!r} (a record written before records carried it): if the "
                "record is as its producer wrote it, add the field with "
                "cotbook.book.records.add_hashes(path); else re-create it"
                + (f" with `{spec.command}`" if spec else ""),
            )
        if key not in raw:
            raise _invalid(path, f"missing field {key!r}")
        if not isinstance(raw[key], kind) or (kind is int and isinstance(raw[key], bool)):
            raise _invalid(path, f"field {key!r} must be a {kind.__name__}")
    if raw["name"] not in RESULTS:
        raise _invalid(path, f"unknown result name {raw['name']!r}")
    if path.stem != raw["name"]:
        raise _invalid(path, f"holds the record {raw['name']!r}, not {path.stem!r}")
    missing = [k for k in _CODE_FIELDS if k not in raw["code"]]
    if missing:
        raise _invalid(path, f"code lacks {missing}")
    spec = RESULTS[raw["name"]]
    if not raw["data"]:
        raise _invalid(path, f"its data are empty: re-create it with `{spec.command}`")
    if spec.stored_files:  # first: names the stored file that was altered
        _check_stored_files(raw["data"], path, spec)
    if data_hash(raw["data"]) != raw["data_sha256"]:
        raise _invalid(
            path,
            "its data do not have the SHA-256 written with them (data_sha256): the record was "
            f"edited or damaged after it was saved; re-create it with `{spec.command}`",
        )
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise _invalid(path, f"unknown fields {unknown}: not written by save")
    if record_hash(raw) != raw["record_sha256"]:
        raise _invalid(
            path,
            "its name, scale, config, code, environment, created time, timings or data hash do "
            "not have the SHA-256 written with them (record_sha256): the record was edited or "
            f"damaged after it was saved; re-create it with `{spec.command}`",
        )
    fields = {k: raw[k] for k in _FIELDS if k != "schema"}
    return Record(path=path, **fields)
