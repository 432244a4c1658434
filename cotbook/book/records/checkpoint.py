"""Checkpoints of a long run: its finished units, so that ``--resume`` finishes it.

:class:`Checkpoint` keeps the finished units of a long run, so that ``--resume`` finishes an
interrupted run with the same final record.  It holds a lock on its record in the output
folder (``<name>.lock``) while open, so a second run of the same record there fails at once;
every unit file carries the run id of its checkpoint and an HMAC-SHA-256 of its content keyed
by a secret of the run (in its ``meta.json``, never in a unit), and a unit that does not
match, or a checkpoint folder without its ``meta.json``, is refused by name
(:class:`CheckpointError`), never taken over or recomputed silently.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import uuid
from pathlib import Path

from . import provenance
from .registry import _spec
from .schema import _as_loaded, canonical_json, parse_json
from .store import write_atomic


def _slug(unit: str) -> str:
    return (
        re.sub(r"[^A-Za-z0-9_.=-]+", "_", unit) + "-" + hashlib.sha1(unit.encode()).hexdigest()[:8]
    )


class CheckpointError(ValueError):
    """A checkpoint that cannot be used as it is (the message names the folder or file, what
    is wrong and how to proceed), or a lock on a record held by another run."""


class _Lock:
    """An exclusive ``fcntl.flock`` on the file ``path``, taken at once or not at all: a
    holder in another process makes :class:`CheckpointError` with the message ``busy(lock)``,
    ``lock`` naming ``path`` and its holder's process id.  Within one process runs are
    sequential, so a new lock on a path this process already holds takes it over (the run
    that held it ended without releasing it, e.g. by an exception whose traceback keeps its
    checkpoint alive).  The kernel releases it when its holder dies, so a killed run leaves no
    lock behind; a released lock's file is removed (while still locked, so that whoever opened
    it in the meantime sees it gone and opens the new one)."""

    _held_here: dict = {}  # real path -> the _Lock of this process holding it

    def __init__(self, path: Path, busy):
        self.path = path
        self._key = os.path.realpath(path)
        previous = _Lock._held_here.get(self._key)
        if previous is not None:
            previous.release()
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                try:
                    holder = path.read_text().strip()
                except OSError:
                    holder = ""
                held = f" (process {holder})" if holder.isdigit() else ""
                raise CheckpointError(busy(f"{path}{held}")) from None
            except BaseException:
                os.close(fd)
                raise
            try:
                current = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                current = False
            if current:
                break
            os.close(fd)  # locked a file its holder had just released and removed: again
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        _Lock._held_here[self._key] = self

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is None:
            return
        if _Lock._held_here.get(self._key) is self:
            del _Lock._held_here[self._key]
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)
            self._fd = None


_UNIT_FIELDS = ("unit", "run_id", "hmac", "result")


def _unit_mac(key, unit, run_id, result) -> str:
    """HMAC-SHA-256, keyed by a checkpoint's secret ``key``, of a unit's canonical JSON."""
    message = canonical_json({"unit": unit, "run_id": run_id, "result": result})
    return hmac.new(bytes.fromhex(key), message.encode("ascii"), hashlib.sha256).hexdigest()


def _remove_tree(path: Path) -> None:
    """Remove ``path`` and what it holds; what is already gone (removed by another process
    meanwhile) is no error."""
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        path.unlink(missing_ok=True)
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _remove_tree(Path(entry.path))
        else:
            Path(entry.path).unlink(missing_ok=True)
    try:
        path.rmdir()
    except FileNotFoundError:
        pass


class Checkpoint:
    """The finished units of one run of ``name``: ``<directory>/<name>.partial/``.

    Opening one takes the lock ``<directory>/<name>.lock`` (held until :meth:`close` or
    :meth:`remove`, or the end of a ``with`` block; a killed process's lock goes with it): a
    second run of ``name`` on the same folder raises :class:`CheckpointError` at once, naming
    the folder and the lock.  ``meta.json`` holds the run's scale, configuration, code hash
    and run id (a random uuid, new for each fresh run) and the run's secret ``key`` (random);
    each finished unit is one atomically written JSON file ``{"unit", "run_id", "hmac",
    "result"}``, ``hmac`` being the HMAC-SHA-256 of its unit, run id and result keyed by the
    run's secret, so a unit edited together with a recomputed plain hash is still refused
    (the key lies in the same folder: this catches edits by hand and damage, not a forger who
    reads ``meta.json``).  :class:`CheckpointError`, saying why and
    how to proceed, is raised for:

    - a checkpoint of a different configuration or code (``resume=True``), or any checkpoint
      when ``resume`` is false: a resumed run never mixes two runs;
    - a checkpoint folder without its ``meta.json`` (not a checkpoint this run can trust);
    - a unit file that is not valid strict JSON, not such an object, holds a unit under
      another unit's file name, carries another run id, or whose content does not match its
      ``hmac`` (edited or damaged): :meth:`done` names it and refuses it rather than
      recompute it, since its unit might have been changed by hand; removing that file makes
      ``--resume`` compute its unit again;
    - :meth:`add` to a checkpoint folder that another process removed (it is not re-created).
    """

    def __init__(self, name, directory, *, scale, config, resume):
        spec = _spec(name)
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.folder = directory / f"{name}.partial"
        self._lock = _Lock(
            directory / f"{name}.lock",
            lambda lock: (
                f"another run of {name} is writing to {directory}: it holds the lock {lock}; "
                "wait for it to finish, or write this run elsewhere (--out DIR)"
            ),
        )
        try:
            self.meta = self._open(
                {
                    "name": name,
                    "scale": scale,
                    "config": config,
                    "source_hash": provenance.source_hash(spec.producers),
                },
                resume,
            )
        except BaseException:
            self._lock.release()
            raise

    def _open(self, meta, resume) -> dict:
        meta_path = self.folder / "meta.json"
        start_over = f"remove the folder {self.folder} to start over"
        if not self.folder.exists() and not self.folder.is_symlink():
            self.folder.mkdir()
            meta = dict(meta, run_id=uuid.uuid4().hex, key=secrets.token_hex(32))
            text = json.dumps(meta, indent=1, allow_nan=False) + "\n"
            write_atomic(meta_path, text, parents=False)
            return meta
        if not self.folder.is_dir():
            raise CheckpointError(f"{self.folder} is in the way of the checkpoint: {start_over}")
        if not meta_path.is_file():
            raise CheckpointError(
                f"{self.folder} has no meta.json, so nothing says which run its units belong "
                f"to (a run that did not start, or files put there by hand): {start_over}"
            )
        if not resume:
            raise CheckpointError(
                f"an interrupted run of {self.name} is saved in {self.folder}: pass --resume to "
                f"finish it, or {start_over}"
            )
        try:
            old = parse_json(meta_path.read_text())
        except (ValueError, UnicodeDecodeError) as err:
            raise CheckpointError(f"{meta_path}: not valid JSON ({err}); {start_over}") from None
        if not (
            isinstance(old, dict)
            and isinstance(old.get("run_id"), str)
            and old["run_id"]
            and isinstance(old.get("key"), str)
            and re.fullmatch(r"[0-9a-f]{64}", old["key"])
        ):
            raise CheckpointError(
                f"{meta_path}: not a checkpoint's meta.json with a run id and key (written by "
                f"hand, or by an older cotbook whose units carry no keyed hash): {start_over}"
            )
        for key in ("name", "scale", "config", "source_hash"):
            if old.get(key) != meta[key]:
                what = "code" if key == "source_hash" else key
                raise CheckpointError(
                    f"cannot resume {self.folder}: it was written with a different {what} "
                    f"({start_over})"
                )
        return dict(meta, run_id=old["run_id"], key=old["key"])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _held(self):
        if not self._lock.held:
            raise CheckpointError(f"the checkpoint {self.folder} was closed")

    def _unit(self, path):
        """The ``(unit, result)`` of the unit file ``path``, checked."""

        def damaged(what):
            return CheckpointError(
                f"{path}: {what}. The unit is not used: remove that file to compute it again "
                f"(--resume), or remove the folder {self.folder} to start over"
            )

        try:
            entry = parse_json(path.read_text())
        except (ValueError, UnicodeDecodeError) as err:
            raise damaged(f"not valid JSON ({err})") from None
        if not isinstance(entry, dict) or sorted(entry) != sorted(_UNIT_FIELDS):
            raise damaged(f"not a unit of a checkpoint (a JSON object of {list(_UNIT_FIELDS)})")
        unit = entry["unit"]
        if not all(isinstance(entry[k], str) for k in ("unit", "run_id", "hmac")):
            raise damaged("its unit, run_id and hmac must be strings")
        if entry["run_id"] != self.meta["run_id"]:
            raise damaged(
                f"it belongs to the run {entry['run_id']!r}, not to this checkpoint's run "
                f"{self.meta['run_id']!r}"
            )
        if path.name != f"unit-{_slug(unit)}.json":
            raise damaged(f"it holds the unit {unit!r}, whose file is unit-{_slug(unit)}.json")
        mac = _unit_mac(self.meta["key"], unit, entry["run_id"], entry["result"])
        if not hmac.compare_digest(mac, entry["hmac"]):
            raise damaged(
                "its content does not have the keyed hash (hmac) this run wrote with it: it "
                "was edited or damaged after it was saved"
            )
        return unit, entry["result"]

    def done(self) -> dict:
        """``{unit: result}`` of the units finished so far, each checked (see the class)."""
        self._held()
        out = {}
        for path in sorted(self.folder.glob("unit-*.json")):
            unit, result = self._unit(path)
            out[unit] = result
        return out

    def add(self, unit, result) -> None:
        """Save the finished ``unit`` (its ``result`` JSON without NaN; kept as it reads back,
        so that its keyed hash is the one :meth:`done` computes)."""
        self._held()
        result = _as_loaded(result, "result")
        entry = {
            "unit": unit,
            "run_id": self.meta["run_id"],
            "hmac": _unit_mac(self.meta["key"], unit, self.meta["run_id"], result),
            "result": result,
        }
        path = self.folder / f"unit-{_slug(unit)}.json"
        try:
            write_atomic(path, json.dumps(entry, allow_nan=False), parents=False)
        except FileNotFoundError:
            raise CheckpointError(
                f"the checkpoint {self.folder} was removed while this run was writing to it "
                f"(by hand, or by another process): the unit {unit!r} is lost; run again"
            ) from None

    def close(self) -> None:
        """Release the lock, keeping the checkpoint (for ``--resume``)."""
        self._lock.release()

    def remove(self) -> None:
        """Remove the checkpoint (files another process removed already are no error) and
        release the lock."""
        self._held()
        try:
            _remove_tree(self.folder)
        finally:
            self._lock.release()
