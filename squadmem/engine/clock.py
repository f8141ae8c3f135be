"""``--now``: the moment every age is computed against, reproducibly.

Any date python-dateutil parses, from 1970 to 9998 (UTC). A value without a
time zone is read in UTC; a zone is a numeric offset (``+02:00``, ``-0530``)
or ``Z``, ``UTC``, ``GMT``. Any other zone name (``EST``, ``CET``) is refused,
never guessed: abbreviations are ambiguous, and dateutil would read them as UTC.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings

from dateutil import parser as date_parser

from squadmem.model import clock
from squadmem.model.errors import SquadmemError

EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(9999, 1, 1, tzinfo=dt.UTC)  # exclusive: room for a day and a grace after it
_UTC_NAMES = ("UTC", "GMT", "Z")
_NAME_AND_OFFSET = re.compile(r"(?i)(?:utc|gmt)\s*[+-]\s*\d")  # POSIX "GMT+3" is 3 h *behind*
FORMS = "give a date such as 2026-03-01 or '2026-03-01T12:00:00+02:00' (zones: +HH:MM, Z, UTC)"


class _ZoneRefused(Exception):
    pass


def _zone(name: str | None, offset: int | None) -> dt.tzinfo:
    """dateutil's ``tzinfos`` callback: only offsets and the names of UTC."""
    if name is not None and name.upper() not in _UTC_NAMES:
        raise _ZoneRefused(name)
    return dt.timezone(dt.timedelta(seconds=offset)) if offset else dt.UTC


def parse(value: str) -> dt.datetime:
    """``--now``'s value as an aware UTC datetime; refuses what it cannot read exactly."""
    if _NAME_AND_OFFSET.search(value):
        raise SquadmemError(
            f"--now {value!r}: write the offset alone (+03:00), not after UTC or GMT", hint=FORMS
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            moment = clock.utc(date_parser.parse(value, tzinfos=_zone))
    except _ZoneRefused as exc:
        raise SquadmemError(f"--now {value!r}: unknown time zone {str(exc)!r}", hint=FORMS) from None
    except (ValueError, OverflowError, TypeError):
        raise SquadmemError(f"--now {value!r}: not a date", hint=FORMS) from None
    if not EARLIEST <= moment < LATEST:
        raise SquadmemError(
            f"--now {value!r}: out of range", hint="give a date from 1970-01-01 to 9998-12-31 (UTC)"
        )
    return moment


def now(value: str | None = None) -> dt.datetime:
    """The current time, or ``value`` parsed, as an aware UTC datetime."""
    if value is None:
        return clock.now()
    return parse(value)
