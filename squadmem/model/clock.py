"""Time, in one rule: aware UTC datetimes, to the second where they are stored or shown.

A naive datetime is taken to be UTC. Stored and shown moments drop their
microseconds and spell UTC as ``Z`` (``2026-03-01T12:00:00Z``). Ages are
measured in days (:func:`days`). Reading ``--now`` is the engine's
(:mod:`squadmem.engine.clock`, which needs python-dateutil); this module is
standard library only: the hooks import it.
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


def from_epoch(seconds: float) -> dt.datetime:
    """Seconds since 1970 (a commit time), as an aware UTC datetime."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def from_iso(text: str) -> dt.datetime:
    """An ISO 8601 time (``Z`` allowed, naive taken as UTC), to the second; ValueError if it is not one."""
    return whole(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))


def stamp(value: dt.datetime) -> str:
    """The one stored and shown form of a moment: UTC, whole seconds, ``Z``."""
    return whole(value).isoformat().replace("+00:00", "Z")


def days(delta: dt.timedelta) -> float:
    """A duration in days (fractional)."""
    return delta.total_seconds() / 86400
