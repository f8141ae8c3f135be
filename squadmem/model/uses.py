"""Pending uses, and the ``Squad-Memory-Used`` trailers they become.

A use of a section (``squadmem touch``) is recorded at once in
``.git/squadmem/pending-uses.json`` and counts locally from that moment. The
prepare-commit-msg hook writes the pending ids into the next commit message
as a trailer, ``Squad-Memory-Used: a/x, b/y``; once a commit carrying them
exists (history shows a trailer at or after the recorded time) they are
dropped, so a commit that fails loses nothing and nothing is counted twice.

Standard library only: the hooks import this module.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from squadmem.model import clock, constants, writes
from squadmem.model.errors import SquadmemError

TRAILER = constants.TRAILER
FILE = constants.PENDING_USES
LOCK = "pending-uses.lock"
VERSION = 1

_TRAILER_LINE = re.compile(rf"^{TRAILER}[ \t]*:(.*)$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[,\s]+")


def _locked(state_dir: Path) -> writes.FileLock:
    """Serialize read-modify-write of the pending file between processes."""
    return writes.FileLock(state_dir / LOCK)


def _read(state_dir: Path) -> dict[str, dt.datetime]:
    """The pending uses on disk; an unreadable file counts as none (it is rewritten on the next record).

    A use dated after the file was written (a clock set wrong, an edit by hand) counts as made
    when the file was written: a use in the future would otherwise ride on every commit forever.
    """
    path = state_dir / FILE
    try:
        raw = writes.read_state(path)
    except OSError:
        return {}  # none pending (the usual case: json is then not imported)
    from squadmem.model import jsontext

    try:
        data = jsontext.loads(raw.decode("utf-8"))
        uses = data["uses"] if data.get("version") == VERSION else {}
        written = dt.datetime.fromtimestamp(int(path.stat().st_mtime), dt.UTC)
        return {str(k): min(clock.utc(dt.datetime.fromisoformat(v)), written) for k, v in uses.items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, OverflowError):
        return {}


def _write(state_dir: Path, uses: Mapping[str, dt.datetime]) -> None:
    """Atomically (:mod:`squadmem.model.writes`); no pending use, no file."""
    path = state_dir / FILE
    if path.is_dir() and not path.is_symlink():
        raise SquadmemError(
            f"{path}: a folder where squadmem keeps its pending uses", hint=f"remove it: rm -r {path}"
        )
    if not uses:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    body = {"version": VERSION, "uses": {k: uses[k].isoformat() for k in sorted(uses)}}
    import json

    writes.atomic_text(path, json.dumps(body, indent=1) + "\n")


def record(state_dir: Path, ids: Iterable[str], when: dt.datetime) -> None:
    """Record a use of each id at ``when`` (to the second, as commit times are), keeping the latest per id.

    A ``when`` after the clock is recorded at the clock: a use is never pending in the future.
    """
    when = clock.whole(min(clock.utc(when), clock.now()))
    with _locked(state_dir):
        uses = _read(state_dir)
        for ident in ids:
            if ident not in uses or uses[ident] < when:
                uses[ident] = when
        _write(state_dir, uses)


def pending(state_dir: Path) -> dict[str, dt.datetime]:
    """Id -> latest pending use (aware UTC)."""
    return _read(state_dir)


def pending_ids(state_dir: Path) -> tuple[str, ...]:
    """The ids of the pending uses, sorted: what the next commit's trailer names."""
    return tuple(sorted(_read(state_dir)))


def join(ids: Iterable[str]) -> str:
    """Ids as one trailer value: ``a/x, b/y``."""
    return ", ".join(ids)


def consume(state_dir: Path, ids: Iterable[str]) -> None:
    """Drop the pending uses of ``ids``: a commit carrying them exists now."""
    drop = set(ids)
    if not drop or not (state_dir / FILE).exists():
        return
    with _locked(state_dir):
        uses = _read(state_dir)
        kept = {k: v for k, v in uses.items() if k not in drop}
        if kept != uses:
            _write(state_dir, kept)


def settle(state_dir: Path, committed: Mapping[str, dt.datetime]) -> list[str]:
    """Drop each pending use that a commit made at or after it already carries; return those ids.

    ``committed`` maps an id to the time of the latest commit whose trailer
    names it. A use recorded after that commit stays pending.
    """
    if not (state_dir / FILE).exists():
        return []
    with _locked(state_dir):
        uses = _read(state_dir)
        done = [k for k, v in uses.items() if k in committed and clock.utc(committed[k]) >= v]
        if done:
            _write(state_dir, {k: v for k, v in uses.items() if k not in done})
    return sorted(done)


def parse_used(message: str) -> list[str]:
    """The ids named by ``Squad-Memory-Used:`` lines of a commit message, in order, each once.

    A trailer line may sit anywhere in the message (squash merges keep them in
    the body), its key is matched without regard to case, ids are separated
    by commas or spaces, and an indented line right after continues it. A
    dated use, ``<id>@<ISO time>``, names ``<id>``.
    """
    return list(dict.fromkeys(ident for ident, _ in parse_dated(message)))


def parse_dated(message: str) -> list[tuple[str, dt.datetime | None]]:
    """Each use a message's trailers name: ``(id, when)``, ``when`` None for a plain id.

    ``<id>@<ISO time>`` is a use at that time (a migration carries the access
    times another tool recorded); it never counts later than its commit,
    which the reader of history enforces. A time that does not parse leaves
    the whole token as an id, as before this form existed.
    """
    found: list[tuple[str, dt.datetime | None]] = []
    for token in _tokens(message):
        ident, at, when = token.partition("@")
        moment = _parse_time(when) if at else None
        found.append((ident, moment) if moment is not None else (token, None))
    return found


def _parse_time(value: str) -> dt.datetime | None:
    try:
        return clock.from_iso(value)
    except ValueError:
        return None


def dated(ident: str, when: dt.datetime) -> str:
    """A dated use as a trailer names it: ``<id>@2026-03-01T10:00:00Z``."""
    return f"{ident}@{clock.stamp(when)}"


DATED_AFTER = dt.timedelta(hours=1)  # a use this much older than the commit carrying it names its time


def carried(pending: Mapping[str, dt.datetime], ids: Iterable[str], commit_time: dt.datetime) -> list[str]:
    """The tokens a trailer names ``ids`` by: a pending use an hour or more older than the commit that
    carries it names its own time (``<id>@<time>``: a use a host's transcript shows the morning, carried
    by the evening's commit, is dated the morning), any other a plain id (the commit's time)."""
    return [
        dated(i, pending[i]) if i in pending and commit_time - pending[i] >= DATED_AFTER else i for i in ids
    ]


def _tokens(message: str) -> list[str]:
    found: list[str] = []
    continued = False
    for line in message.splitlines():
        match = _TRAILER_LINE.match(line)
        if match:
            found.extend(_ids(match.group(1)))
            continued = True
        elif continued and line[:1] in (" ", "\t") and line.strip():
            found.extend(_ids(line))
        else:
            continued = False
    return found


def _ids(value: str) -> list[str]:
    return [part for part in _SEPARATORS.split(value.strip()) if part]


def trailer_line(ids: Iterable[str]) -> str:
    return f"{TRAILER}: {join(ids)}"
