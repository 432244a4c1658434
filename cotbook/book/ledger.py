"""The claims ledger: verdicts and key numbers that the chapters hand to the reproduction report.

A chapter that checks a numbered item of the paper ends with a cell that calls :func:`verdict`
on conditions it has just measured, and :func:`record` on the numbers behind them.  Both print
what they record and *glue* it (myst-nb) under a key, and the report page pastes it with
``{glue:text}`<chapter>.md::<key>:s```.  The report therefore shows exactly what the chapter
computed when the book was built; no number or verdict is typed into it.  Glued values are
also stored in the chapters' executed copies, so the nbval tests compare them run to run.
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = ["VERDICTS", "verdict_word", "record", "verdict"]

VERDICTS = ("reproduced", "reproduced with a caveat", "not reproduced")
_KEY = re.compile(r"[a-z][a-z0-9_]*")


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
    """Format ``value`` (a string is kept as it is), print ``key: text`` and glue the text under
    ``key``."""
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
    print(f"{key}: {text}")
    _glue(key, text)


def verdict(key: str, holds: bool, caveats: dict[str, bool] | None = None) -> None:
    """Decide the verdict on the claim ``key`` (:func:`verdict_word`), print it, and glue it
    under ``<key>_verdict`` and the true caveats, joined by "; ", under ``<key>_caveats``
    ("none" when there are none)."""
    key = _check_key(key)
    word = verdict_word(holds, caveats)
    active = [text for text, flag in (caveats or {}).items() if _flag("caveat", flag)]
    notes = "; ".join(active) if active else "none"
    print(f"verdict on {key}: {word}" + (f" ({notes})" if active else ""))
    _glue(f"{key}_verdict", word)
    _glue(f"{key}_caveats", notes)
