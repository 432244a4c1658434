"""The claims ledger: verdicts and key numbers that the chapters hand to the reproduction report.

A chapter that checks a numbered item of the paper ends with a cell that calls :func:`verdict`
on conditions it has just measured, and :func:`record` on the numbers behind them.  Both *glue*
what they record (myst-nb) under a key, without printing it, and the report page pastes it with
``{glue:text}`<chapter>.md::<key>:s```; the chapter's last cell shows :func:`summary`, one
rendered table of everything it recorded.  The report therefore shows exactly what the chapter
computed when the book was built; no number or verdict is typed into it.  Glued values are
also stored in the chapters' executed copies, so the nbval tests compare them run to run.
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = ["VERDICTS", "verdict_word", "record", "verdict", "summary"]

VERDICTS = ("reproduced", "reproduced with a caveat", "not reproduced")
_KEY = re.compile(r"[a-z][a-z0-9_]*")
#: What this kernel has recorded, in order: (key, text) pairs for :func:`summary`.
_RECORDED: list[tuple[str, str]] = []


def _glue(key: str, text: str) -> None:
    from myst_nb import glue  # imported here: only chapters (inside a kernel) glue

    glue(key, text, display=False)


def _check_key(key) -> str:
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"key must be lower-case letters, digits and '_', got {key!r}")
    return key


def verdict_word(holds: bool, caveats: dict[str, bool] | None = None) -> str:
    """``"not reproduced"`` if the claim does not hold, ``"reproduced with a caveat"`` if it
    holds and any caveat's condition is true, else ``"reproduced"``."""
    holds = _flag("holds", holds)
    flags = [_flag(f"caveat {text!r}", flag) for text, flag in (caveats or {}).items()]
    if not holds:
        return VERDICTS[2]
    return VERDICTS[1] if any(flags) else VERDICTS[0]


def _flag(name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def record(key: str, value, fmt: str = "{:.3g}") -> None:
    """Format ``value`` (a string is kept as it is) and glue the text under ``key`` (shown later
    by :func:`summary`, not printed)."""
    key = _check_key(key)
    if isinstance(value, str):
        text = value
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"value must be a string or a real number, got {value!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"value for {key!r} must be finite, got {value!r}")
        text = fmt.format(value)
    _glue(key, text)
    _RECORDED.append((key, text))


def verdict(key: str, holds: bool, caveats: dict[str, bool] | None = None) -> None:
    """Decide the verdict on the claim ``key`` (:func:`verdict_word`) and glue it (not printed;
    :func:`summary` shows it) under ``<key>_verdict``, and the true caveats, joined by "; ",
    under ``<key>_caveats`` ("none" when there are none)."""
    key = _check_key(key)
    word = verdict_word(holds, caveats)
    active = [text for text, flag in (caveats or {}).items() if _flag("caveat", flag)]
    notes = "; ".join(active) if active else "none"
    _glue(f"{key}_verdict", word)
    _glue(f"{key}_caveats", notes)
    _RECORDED.append((f"{key}_verdict", f"**{word}**" + (f" ({notes})" if active else "")))


def summary():
    """Everything :func:`record` and :func:`verdict` glued in this kernel, in order, as one
    rendered table (key, value) for the chapter's "For the reproduction report" cell."""
    from . import report

    if not _RECORDED:
        raise ValueError("nothing recorded yet: call record() or verdict() first")
    rows = [(f"`{key}`", text) for key, text in _RECORDED]
    return report.markdown(
        ["glued as", "value"], rows, title="Handed to the reproduction report", align="ll"
    )
