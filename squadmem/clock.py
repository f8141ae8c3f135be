"""``--now``: the moment every age is computed against, reproducibly.

Any date python-dateutil parses; a value without a time zone is read in UTC.
"""

from __future__ import annotations

import datetime as dt

from dateutil import parser as date_parser

from squadmem.errors import SquadmemError


def utc(value: dt.datetime) -> dt.datetime:
    """``value`` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def now(value: str | None = None) -> dt.datetime:
    """The current time, or ``value`` parsed, as an aware UTC datetime."""
    if value is None:
        return dt.datetime.now(dt.UTC)
    try:
        return utc(date_parser.parse(value))
    except (ValueError, OverflowError):
        raise SquadmemError(
            f"--now {value!r}: not a date",
            hint="give a date such as 2026-03-01 or '2026-03-01T12:00:00+02:00'",
        ) from None


def days(delta: dt.timedelta) -> float:
    return delta.total_seconds() / 86400
