"""The paper authors' released measurement files, as a checked record.

The authors' repository ``taka255/cot_asymptotics`` held, at commit ``1ed6569`` (the parent
of the commit the book pins, which deleted them), the raw result files of their trained
attention runs: CSV, JSON, NPZ and configuration text, no code.  This module names those
files (:data:`MANIFEST`: path -> git blob id), reads them from a checkout of that commit
(:func:`read_release`, which refuses a missing or altered file, naming it, before anything is
written) and saves them, byte for byte, as the record ``authors_released``
(:func:`save_release`, ``python -m cotbook authors --from CHECKOUT``).  :func:`load` gives
the committed record back after checking every stored file against the manifest; the blob ids
of the stored bytes are recomputed by :func:`cotbook.book.records.load` itself.  The parsed
runs are :mod:`cotbook.book.authors.runs`.

>>> len(MANIFEST), REPOSITORY, COMMIT[:7]
(68, 'taka255/cot_asymptotics', '1ed6569')
"""

from __future__ import annotations

import time
from pathlib import Path

from .. import records

__all__ = [
    "NAME",
    "REPOSITORY",
    "COMMIT",
    "MANIFEST",
    "LEFT_OUT",
    "ReleaseError",
    "read_release",
    "save_release",
    "load",
    "files",
]

NAME = "authors_released"
"""The record's name in :data:`cotbook.book.records.RESULTS`."""
REPOSITORY = "taka255/cot_asymptotics"
"""The authors' repository on GitHub."""
COMMIT = "1ed6569d8f16e29d5288288788d734c143b58c16"
"""Its commit holding the files ("Freeze current NeurIPS code state", 2026-05-12)."""

# every expected file, by run folder: file name -> git blob id
_RUNS = {
    "learned_parameter_heatmap/results/latest_learned_parameter_heatmap/M200_N20": {
        "config.txt": "bf52ef471142078cdd49cb8e3b89feff7c2702d6",
        "v_matrix.csv": "232f971b8ab9502f50ee765669f1d74d4850eab6",
        "w_matrix.csv": "fb05810946c611975bb874178b2ace2cdef9b5b8",
    },
    "learned_parameter_heatmap/results/latest_learned_parameter_heatmap/M200_N200": {
        "config.txt": "cbdcc75dd9115e4ff363ac4b9e864ca81ea5cee3",
        "v_matrix.csv": "2f5ddc0ee711a78ec38e76c02b7b8644a8a00efc",
        "w_matrix.csv": "f8ec93c8294f3c5327d8e8bdb465b18907d2ac24",
    },
    "learned_parameter_heatmap/results/latest_learned_parameter_heatmap/M20_N20": {
        "config.txt": "7b1b7341a5aa6b709a9be2752b0daa8b2d8c8b9d",
        "v_matrix.csv": "1c3a98fc3f8c48af4fedef667ed716e741514c55",
        "w_matrix.csv": "705b9979732f0690e84ce62b5d82e64aa179bb4f",
    },
    "learned_parameter_heatmap/results/latest_learned_parameter_heatmap/M20_N200": {
        "config.txt": "312257eb67a462f60c0e84897bb4eed83c5d47d4",
        "v_matrix.csv": "dd2a19111ed7942e8228a386273be424615b3c9d",
        "w_matrix.csv": "4327088ff80381a3f0db2b77d4294f42b154fecb",
    },
    "linear_dynamics/results/linear_dynamics_20260417_164420": {
        "config.json": "aa2745dae0696c8b09c584ef8113338c77b966e7",
        "raw_eval_curves.npz": "e1b349cd44c4a779a2c53fbb3c9fc0b9f4c4d271",
        "summary.csv": "8da99f2f6136e13461a7f0a920ad14f055c746e2",
        "trial_meta.json": "cf220c3017bd044344d2a85cb49d2ad4f1f8c88c",
    },
    "linear_dynamics/results/linear_dynamics_20260417_164550": {
        "config.json": "eeb267ccd847d1090f1d78f6dde34cea80944268",
        "raw_eval_curves.npz": "e1b349cd44c4a779a2c53fbb3c9fc0b9f4c4d271",
        "summary.csv": "8da99f2f6136e13461a7f0a920ad14f055c746e2",
        "trial_meta.json": "cf220c3017bd044344d2a85cb49d2ad4f1f8c88c",
    },
    "linear_dynamics/results/linear_dynamics_20260417_170446": {
        "config.json": "e43e9b96dc8b97950d0fcd0658add121289ccc5a",
        "raw_eval_curves.npz": "1a3b4e46822064e03ef8f395fca8ca2dc08be524",
        "summary.csv": "77b54cf41a3dd4dbdc5fa98fbe4f2bb41c268e29",
        "trial_meta.json": "2f563309ef7746d5d4e203f025a0e8be60fc6f6a",
    },
    "linear_heatmap/results/latest_linear_heatmap": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "80e3de1ffe140025f6ba0be51aebdee8962b586a",
        "N_list.csv": "80e3de1ffe140025f6ba0be51aebdee8962b586a",
        "config.txt": "d45058162563ecb0efac961a8f5692d52692c49f",
        "curves_long.csv": "db809373b6185cba6537103346a2629eb875778c",
        "heat_t28.csv": "d407f00e63eb804284fc6c81331f015527e61362",
        "heat_t30.csv": "8d41ee8ce1685b1ac344868db823b8df1151cbcf",
    },
    "linear_heatmap/results/linear_heatmap_20260416_150619": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "80e3de1ffe140025f6ba0be51aebdee8962b586a",
        "N_list.csv": "80e3de1ffe140025f6ba0be51aebdee8962b586a",
        "config.txt": "baf0b9db11eecdfb9e301383fb7dc32419e603e4",
        "curves_long.csv": "19bd940efa8b6b51fa8221f8cd15f30eaf7b0832",
        "heat_t28.csv": "cf987a5842bcf92fdb73f2f811d5ce013789646b",
    },
    "softmax_heatmap/results/softmax_heatmap_20260410_193511": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "d1b0adfaa289bc45432c20b6ecd49a6c2f5fd571",
        "N_list.csv": "d1b0adfaa289bc45432c20b6ecd49a6c2f5fd571",
        "config.txt": "e38a5bfe9563e55bb9af13399c9ee05fc276c499",
        "curves_long.csv": "4d5369482c5d1c992c93311dba4419e90f985b0d",
        "heat_t28.csv": "4b1ed2a45b257153661da6b45aefad9438471ffc",
    },
    "softmax_heatmap/results/softmax_heatmap_20260410_193854": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "d1b0adfaa289bc45432c20b6ecd49a6c2f5fd571",
        "N_list.csv": "d1b0adfaa289bc45432c20b6ecd49a6c2f5fd571",
        "config.txt": "cdc1de20b90a1748cc620d27412bd66aeef27e5d",
        "curves_long.csv": "4d5369482c5d1c992c93311dba4419e90f985b0d",
        "heat_t28.csv": "4b1ed2a45b257153661da6b45aefad9438471ffc",
    },
    "softmax_heatmap/results/softmax_heatmap_20260410_195447": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "be3bf897412cc9182e2552c1ed2e52592769efe3",
        "N_list.csv": "65abab55f26e17618343436c8f45923b376d2026",
        "config.txt": "20c64b0fbeb2e6fc8ad541126f08839d08c98bf3",
        "curves_long.csv": "3806579d78871b957c6c31ab1142b84de02c6db4",
        "heat_t28.csv": "2ba64b4c543c112fa72cf3ab431bc984371efe7f",
    },
    "softmax_heatmap/results/softmax_heatmap_20260411_003316": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "eda06a4d8636dafdbc658ff87c2f9e90252cd6d2",
        "N_list.csv": "65abab55f26e17618343436c8f45923b376d2026",
        "config.txt": "4c3a438a470979e36f20bd47d8412055678fbdaa",
        "curves_long.csv": "ae1ee3eb967e51c60d06fa9418cc1109282dc30e",
        "heat_t28.csv": "e9cd527bc207f5f2b9363af74c8766cde2d3b048",
    },
    "softmax_heatmap/results/softmax_heatmap_20260417_195912": {
        "EVAL_T_list.csv": "4874205950c6cb811e82b1c7828492187a6aaca6",
        "M_list.csv": "eda06a4d8636dafdbc658ff87c2f9e90252cd6d2",
        "N_list.csv": "65abab55f26e17618343436c8f45923b376d2026",
        "config.txt": "2aeee7906e2cb1b5d103e8b372ff29d422121eb7",
        "curves_long.csv": "5ebd9548846ca0081e114f5e891e56d4ec2d6fba",
        "heat_t28.csv": "9280beb813088d67aa59ad6aa8cf0e6f42681d6d",
        "heat_t30.csv": "e5fd783ee992c8bdb0c2f6f4e26fdf713bfb1ac6",
    },
}
MANIFEST = {
    f"{folder}/{name}": blob for folder, names in _RUNS.items() for name, blob in names.items()
}
"""Every file the record keeps: path in the repository -> git blob id."""
LEFT_OUT = tuple(
    f"{folder}/train_loss_histories.npz" for folder in _RUNS if folder.startswith("linear_dyn")
)
"""Files of the release the record leaves out (training-loss histories, not needed)."""


class ReleaseError(ValueError):
    """A folder that is not the release: files missing or with other bytes (each named)."""


def read_release(directory) -> dict:
    """The record's data: every file of :data:`MANIFEST`, read from ``directory`` and checked.

    Parameters
    ----------
    directory : str or Path
        A checkout of :data:`REPOSITORY` at :data:`COMMIT`, or any folder holding its files
        at the same relative paths.

    Returns
    -------
    dict
        ``{"repository", "commit", "files"}``; ``files`` lists one
        :func:`cotbook.book.records.stored_file` entry per path of :data:`MANIFEST`, in its
        order.

    Raises
    ------
    ReleaseError
        Naming every file that is missing or whose git blob id is not the manifest's.
    ValueError
        If ``directory`` is not a folder.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:
    ...     read_release(empty)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cotbook.book.authors.manifest.ReleaseError: ... is not the release ...: 68 files missing (...
    """
    if not isinstance(directory, (str, Path)) or not Path(directory).is_dir():
        raise ValueError(f"directory must be an existing folder, got {directory!r}")
    directory = Path(directory)
    entries, missing, altered = [], [], []
    for path, blob in MANIFEST.items():
        file = directory / path
        if not file.is_file():
            missing.append(path)
            continue
        entry = records.stored_file(REPOSITORY, COMMIT, path, file.read_bytes())
        if entry["blob"] != blob:
            altered.append(f"{path} (git blob id {entry['blob']}, expected {blob})")
        entries.append(entry)
    problems = []
    if missing:
        problems.append(f"{len(missing)} files missing ({', '.join(missing)})")
    if altered:
        problems.append(f"{len(altered)} files with other bytes ({', '.join(altered)})")
    if problems:
        raise ReleaseError(
            f"{directory} is not the release {REPOSITORY}@{COMMIT[:7]}: {'; '.join(problems)}"
        )
    return {"repository": REPOSITORY, "commit": COMMIT, "files": entries}


def save_release(directory, out=None) -> Path:
    """Read and check the release in ``directory`` (:func:`read_release`), then save it as the
    record :data:`NAME` into ``out`` (default: ``book/results/``); returns its path.  Nothing
    is written when a file is missing or altered."""
    code = records.code_info(records.RESULTS[NAME].producers)
    start = time.perf_counter()
    data = read_release(directory)
    scale = records.RESULTS[NAME].scale
    config = {
        "repository": REPOSITORY,
        "commit": COMMIT,
        "files": len(MANIFEST),
        "left_out": list(LEFT_OUT),
    }
    target = records.check_writable(records.target_directory(NAME, scale, out))
    return records.save(
        NAME,
        scale=scale,
        config=config,
        data=data,
        timings={"total": time.perf_counter() - start},
        code=code,
        directory=target,
    )


def load(directory=records.RESULTS_DIR) -> records.Record:
    """The record :data:`NAME` in ``directory``, checked against :data:`MANIFEST`.

    :func:`cotbook.book.records.load` has recomputed each stored file's blob id; here every
    path of the manifest must be stored, with the manifest's blob id, from :data:`REPOSITORY`
    at :data:`COMMIT`, and nothing else.  Raises :class:`cotbook.book.records.ResultError`
    naming the file otherwise, or when there is no record.

    >>> record = load()
    >>> record.name, len(record.data["files"])
    ('authors_released', 68)
    """
    record = records.load(NAME, directory)
    if record is None:
        raise records.ResultError(
            f"{Path(directory) / (NAME + '.json')}: no such record; create it with "
            f"`{records.RESULTS[NAME].command}`"
        )
    stored = {entry["path"]: entry for entry in record.data["files"]}
    for path, blob in MANIFEST.items():
        entry = stored.get(path)
        if entry is None:
            raise records.ResultError(f"{record.path}: stored file {path} is missing")
        if (entry["repository"], entry["commit"], entry["blob"]) != (REPOSITORY, COMMIT, blob):
            raise records.ResultError(
                f"{record.path}: stored file {path} is {entry['repository']}@"
                f"{entry['commit'][:7]} blob {entry['blob']}, not {REPOSITORY}@{COMMIT[:7]} "
                f"blob {blob}"
            )
    extra = sorted(set(stored) - set(MANIFEST))
    if extra:
        raise records.ResultError(f"{record.path}: stored file {extra[0]} is not in the manifest")
    return record


def files(record=None) -> dict:
    """``{path: bytes}`` of every stored file of ``record`` (default: :func:`load`)."""
    if record is None:
        record = load()
    elif not isinstance(record, records.Record) or record.name != NAME:
        raise ValueError(f"record must be the {NAME} record (see load), got {record!r}")
    return {entry["path"]: records.file_bytes(entry) for entry in record.data["files"]}
