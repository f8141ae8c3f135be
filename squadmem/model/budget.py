"""The budget rule and the age rule, in one place: what is over budget, and how old is a section.

A hot file is over budget when its bytes exceed ``hot.max_bytes`` or its lines
exceed ``hot.max_lines`` (lines as :func:`squadmem.model.sections.lines` counts
them: a last line without a line ending counts); a cold file when its bytes
exceed ``cold.max_bytes``. The archive, the wiki and the logs have no budget.
The pre-commit hook, ``verify``, the policy, ``report`` and ``review`` all ask
here.

A section's age is ``now`` minus its last use, in days, never negative; the
rules compare the exact value (``age > hot.stale_days``), and every message
shows it with :func:`days_text`, which never shows an age that looks equal to
the limit it is over.

Standard library only: the hooks import it.
"""

from __future__ import annotations

import datetime as dt
import math

from squadmem.model import clock, sections
from squadmem.model.settings import HotSettings, Settings
from squadmem.model.values import Value

FIX = "run: squadmem maintain"
STAGED_FIX = "run: squadmem maintain --commit-edits (it commits this edit, then moves sections out of hot)"


class Limits(Value):
    """A tier file's budget: None where that tier has none."""

    __slots__ = ("max_bytes", "max_lines")

    def __init__(self, max_bytes: int | None = None, max_lines: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_lines = max_lines


def limits(tier: str, conf: Settings) -> Limits:
    if tier == "hot":
        return Limits(conf.hot.max_bytes, conf.hot.max_lines)
    if tier == "cold":
        return Limits(conf.cold.max_bytes)
    return Limits()


def count_lines(text: str) -> int:
    return len(sections.lines(text))


def measure(text: str) -> tuple[int, int]:
    """(bytes, lines) of a tier file's text."""
    return len(text.encode("utf-8")), count_lines(text)


def reasons(size: int, rows: int, tier: str, limit: Limits) -> list[str]:
    """Why a file of ``size`` bytes and ``rows`` lines breaks its budget: one per limit, [] when it fits."""
    found = []
    if limit.max_bytes is not None and size > limit.max_bytes:
        found.append(f"{size} bytes > {limit.max_bytes} ({tier}.max_bytes)")
    if limit.max_lines is not None and rows > limit.max_lines:
        found.append(f"{rows} lines > {limit.max_lines} ({tier}.max_lines)")
    return found


def over(size: int, rows: int, limit: Limits) -> str | None:
    """The first reason a file is over its budget, short (``4300 B > 4096 B``), or None."""
    if limit.max_bytes is not None and size > limit.max_bytes:
        return f"{size} B > {limit.max_bytes} B"
    if limit.max_lines is not None and rows > limit.max_lines:
        return f"{rows} lines > {limit.max_lines} lines"
    return None


def hot_over(size: int, rows: int, hot: HotSettings) -> str | None:
    """:func:`over` for a hot file."""
    return over(size, rows, Limits(hot.max_bytes, hot.max_lines))


def hot_blob_over(raw: bytes, hot: HotSettings) -> list[str]:
    """Every reason a hot file's bytes (as committed) break the budget, each naming the fix."""
    rows = count_lines(raw.decode("utf-8", "replace"))
    return [f"{why}; {FIX}" for why in reasons(len(raw), rows, "hot", Limits(hot.max_bytes, hot.max_lines))]


# -- ages -------------------------------------------------------------------------------------------


def age_days(now: dt.datetime, when: dt.datetime | None) -> float | None:
    """Days from ``when`` to ``now`` (never negative); None when the last use is unknown."""
    if when is None:
        return None
    return max(clock.days(now - when), 0.0)


def days_text(days: float, limit: float | None = None) -> str:
    """An age for people: one decimal (``7.4``); over a ``limit``, whole days when they show it
    (``9 d > 7 d``), else as many decimals, cut down, as make it visibly over (``7.02 d > 7 d``)."""
    if limit is None or days <= limit:
        return f"{days:.1f}"
    if int(days) > limit:
        return str(int(days))
    for digits in range(1, 10):
        shown = math.floor(days * 10**digits) / 10**digits
        if shown > limit:
            return f"{shown:.{digits}f}"
    return repr(days)
