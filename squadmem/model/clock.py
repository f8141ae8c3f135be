"""Time, in one rule: aware UTC datetimes, to the second where they are stored or shown.

A naive datetime is taken to be UTC. Stored and shown moments drop their
microseconds and spell UTC as ``Z`` (``2026-03-01T12:00:00Z``). Ages are
measured in days (:func:`days`). Reading ``--now`` is the engine's
(:mod:`squadmem.engine.clock`); this module is what the hooks import.
"""

from __future__ import annotations

import datetime as dt


def utc(value: dt.datetime) -> dt.datetime:
    """``value`` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def whole(value: dt.datetime) -> dt.datetime:
    """:func:`utc`, to the second (as commit times are)."""
    return utc(value).replace(microsecond=0)


def now() -> dt.datetime:
    """The clock, as an aware UTC datetime."""
    return dt.datetime.now(dt.UTC)


LAST_EPOCH = 253402300799  # 9999-12-31T23:59:59Z, the last second a datetime holds


def from_epoch(seconds: float) -> dt.datetime:
    """Seconds since 1970 (a commit time), as an aware UTC datetime; a time outside 1970 to 9999
    (a commit object written by hand) is read as the nearest end of that span."""
    return dt.datetime.fromtimestamp(min(max(seconds, 0), LAST_EPOCH), dt.UTC)


def git_epoch(text: str | bytes) -> int:
    """A commit time as git prints it (``%ct``, ``%at``), in 1970 to 9999.

    git prints nothing for a commit whose date it cannot read (none, a negative time, a line cut
    short) and shows such a commit as dated 1970-01-01: so is it read here, as 0. A time after 9999
    (git's own parser makes none, a hand-written object can) is read as the last second of 9999.
    Refusing instead would lock out everyone who pulls such a commit: history is not rewritten.
    """
    word = text.strip()
    return min(int(word), LAST_EPOCH) if word.isdigit() and word.isascii() else 0


def odd_epoch(text: str | bytes) -> bool:
    """Whether :func:`git_epoch` reads ``text`` as other than it says (no date, or after 9999)."""
    word = text.strip()
    return not (word.isdigit() and word.isascii()) or int(word) > LAST_EPOCH


def from_iso(text: str) -> dt.datetime:
    """An ISO 8601 time (``Z`` allowed, naive taken as UTC), to the second; ValueError if it is not one."""
    return whole(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))


def stamp(value: dt.datetime) -> str:
    """The one stored and shown form of a moment: UTC, whole seconds, ``Z``."""
    return whole(value).isoformat().replace("+00:00", "Z")


def days(delta: dt.timedelta) -> float:
    """A duration in days (fractional)."""
    return delta.total_seconds() / 86400
