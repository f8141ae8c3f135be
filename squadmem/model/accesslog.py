"""The memory-tiers skill's access log, ``state/access-log.json``: when each section was last read.

The skill's ``track`` script keeps, per file and per section, the last access
time (``lastAccessed``: ISO 8601, or milliseconds since 1970) and a count
(``accessCount``). A section record's key is ``<file>#<title>`` (``##`` or
``###`` title), and may also say ``file`` and ``section``. File-level records
say nothing of which section mattered: they are counted, not returned.

``migrate memory-tiers`` carries these times onto its commit; in a workspace
kept in place, ``track`` and ``maintain`` read them as the host's uses.

Standard library only.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import stat
from pathlib import Path

from squadmem.model import clock, jsontext
from squadmem.model.errors import SquadmemError

MAX_BYTES = 16 * 1024 * 1024  # a bigger file is not the skill's log


@dataclasses.dataclass(frozen=True)
class Access:
    """One section record: the skill's key, the file and title it names, its last access, its count."""

    key: str
    file: str
    title: str
    when: dt.datetime
    count: int


def _moment(value: object, rel: str, key: str) -> dt.datetime:
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, int | float):
            return clock.whole(clock.from_epoch(value / 1000))
        if isinstance(value, str):
            return clock.from_iso(value)
        raise TypeError
    except (TypeError, ValueError, OverflowError, OSError):
        raise SquadmemError(
            f"{rel}: {key}: lastAccessed {value!r} is not a time",
            hint="an ISO 8601 time (2026-03-01T10:00:00Z) or milliseconds since 1970",
        ) from None


def _bytes(path: Path, rel: str) -> bytes:
    """The file's bytes: a regular file under :data:`MAX_BYTES`, else a one-line error."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise SquadmemError(f"{rel}: cannot read: {exc.strerror}", hint="fix or move the file") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SquadmemError(f"{rel}: not a regular file", hint="the access log is a JSON file")
        if info.st_size > MAX_BYTES:
            raise SquadmemError(
                f"{rel}: {info.st_size} bytes, over {MAX_BYTES}", hint="is this the skill's access log?"
            )
        return handle.read(MAX_BYTES + 1)


def read(path: Path, rel: str) -> tuple[list[Access], int]:
    """The section records and the number of file-level ones; a one-line error if it is not the log."""
    try:
        data = jsontext.loads(_bytes(path, rel).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SquadmemError(
            f"{rel}: not valid JSON", hint="fix or move the file; squadmem changed nothing"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("sections"), dict):
        raise SquadmemError(
            f'{rel}: expected an object with "sections"',
            hint='is this the skill\'s access log? it has "sections": {} when nothing was read yet;'
            " fix or move the file; squadmem changed nothing",
        )
    records = []
    for key, record in data["sections"].items():
        if not isinstance(record, dict):
            raise SquadmemError(f"{rel}: {key}: not an object", hint="is this the skill's access log?")
        file, _, title = str(key).partition("#")
        file = str(record.get("file", file))
        title = str(record.get("section", title)).strip()
        count = record.get("accessCount", 1)
        count = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
        when = _moment(record.get("lastAccessed"), rel, str(key))
        records.append(Access(str(key), file, title, when, count))
    files = data.get("files", {})
    return records, len(files) if isinstance(files, dict) else 0
