"""``--now``: the moment every age is computed against, reproducibly, read by one rule.

Only unambiguous ISO 8601 forms are read: ``YYYY-MM-DD`` (midnight UTC) or
``YYYY-MM-DDTHH:MM`` with optional ``:SS`` (and its fraction, as Python's
``isoformat`` writes it) and a zone (``Z`` or ``±HH:MM``; none is UTC), from
1970 to 9998. Anything else (``12/03/2026``, ``EST``, a
space for the ``T``) is refused, never guessed. The moment must not go back
before the newest commit: ages would then be read before the history they
are measured on (a use in that history would look "0 min ago"), and a
commit squadmem made would be dated before its parent. A command that
commits refuses a moment after the clock: a commit dated there is one
``verify`` reports as forged. ``verify`` and ``review`` judge commit dates
against ``--now``, and ``log add`` and ``log show`` name a day's log by it
(a backfill is a past day's): they take any moment in range.
"""

from __future__ import annotations

import datetime as dt
import re

from squadmem.model import clock
from squadmem.model.errors import SquadmemError

TYPE_CHECKING = False  # typing is not imported at start-up
if TYPE_CHECKING:
    from squadmem.gitio.repo import Repo

EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(9999, 1, 1, tzinfo=dt.UTC)  # exclusive: room for a day and a grace after it
SKEW = dt.timedelta(hours=1)  # as far after the clock as a commit may be dated (verify's allowance)
FORMS = "give YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] with Z or ±HH:MM (none: UTC), e.g. 2026-03-01T12:00Z"
ISO = re.compile(
    r"(?P<day>\d{4}-\d{2}-\d{2})"
    r"(?:T(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(?P<zone>Z|[+-]\d{2}:\d{2})?)?",
    flags=re.ASCII,
)


def parse(value: str) -> dt.datetime:
    """``--now``'s value as an aware UTC datetime; refuses what is not one of the ISO forms."""
    match = ISO.fullmatch(value)
    if match is None:
        raise SquadmemError(f"--now {value!r}: not a date in an ISO form", hint=FORMS)
    text = match["day"] + (f"T{match['time']}" if match["time"] else "")
    zone = match["zone"] or "Z"
    try:
        moment = dt.datetime.fromisoformat(text + ("+00:00" if zone == "Z" else zone))
        moment = clock.utc(moment)
    except (ValueError, OverflowError):
        raise SquadmemError(f"--now {value!r}: not a date", hint=FORMS) from None
    if not EARLIEST <= moment < LATEST:
        raise SquadmemError(
            f"--now {value!r}: out of range", hint="give a date from 1970-01-01 to 9998-12-31 (UTC)"
        )
    return moment


def checked(
    value: str,
    *,
    newest: dt.datetime | None,
    commits: bool = False,
    records: bool = False,
    earlier: bool = False,
) -> dt.datetime:
    """``--now`` read by :func:`parse`, then held to the history: not before ``newest`` (the newest
    commit's date; None: no commit yet) unless the command may look ``earlier`` (verify and review
    judge commit dates against it, log add and log show name a day's log by it); not after the
    clock when the command ``commits``, or ``records`` a use at that moment (a use is never
    pending in the future)."""
    moment = parse(value)
    if newest is not None and not earlier and moment < newest:
        raise SquadmemError(
            f"--now {value!r}: before the newest commit ({clock.stamp(newest)}); ages would be read"
            " before the history they are measured on",
            hint="give a moment at or after the newest commit's date, or leave out --now",
        )
    if commits and moment > clock.now() + SKEW:
        raise SquadmemError(
            f"--now {value!r}: after the clock; this command commits, and a commit dated in the future"
            " is one verify reports as forged",
            hint="give a moment that has passed (or --dry-run to see the plan)",
        )
    if records and moment > clock.now() + SKEW:
        raise SquadmemError(
            f"--now {value!r}: after the clock; a use is recorded when it happened, never in the future",
            hint="give a moment that has passed, or leave out --now",
        )
    return moment


def now(value: str | None = None) -> dt.datetime:
    """The current time, or ``value`` parsed, as an aware UTC datetime."""
    if value is None:
        return clock.now()
    return parse(value)


def at(
    value: str | None, repo: Repo, *, commits: bool = False, records: bool = False, earlier: bool = False
) -> dt.datetime:
    """``--now`` read and held to ``repo``'s history by the one rule (:func:`checked`), else the
    clock. A command that ``commits`` dates its commits at that moment; one that may look
    ``earlier`` than the newest commit (verify, review, log add, log show) is not held to it; one
    that ``records`` uses at that moment (touch, track) refuses a moment after the clock."""
    if value is None:
        return clock.now()
    seconds = repo.newest_commit_time()
    newest = None if seconds is None else clock.from_epoch(seconds)
    when = checked(value, newest=newest, commits=commits, records=records, earlier=earlier)
    if commits:
        repo.date_commits(int(when.timestamp()))
    return when
