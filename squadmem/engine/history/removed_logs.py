"""``recall --history`` in the daily logs: lines history held that no log holds now.

A log only grows during its day and is frozen after it, but a log (a day's
own or a host's session file, ``memory/YYYY-MM-DD-2215.md``) can still be
changed or removed by a commit made past the hooks; ``verify`` reports that
commit, and this finds the text it took away. One streamed ``git log --raw``
over the log folder names each version a commit replaced or deleted; those
blobs are read through the one ``cat-file --batch`` process, and each line
that holds every query word and is not in that log's file now is a hit, with
the commit that removed it and the one that last held it. git's ``-G`` keeps
the walk to the commits that added or removed a line holding the query's
longest ASCII word, so an append of other lines is never read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import logs, render
from squadmem.model.errors import SquadmemError


@dataclasses.dataclass(frozen=True)
class RemovedLine:
    file: str
    line: str
    commit: str  # the last commit that held it
    removed_in: str
    removed: dt.datetime

    @property
    def show(self) -> str:
        return f"git show {self.commit[:12]}:{self.file}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "commit": self.commit,
            "removed_in": self.removed_in,
            "removed": render.timestamp(self.removed),
            "show": self.show,
        }


@dataclasses.dataclass(frozen=True)
class _Replaced:
    path: str
    blob: str
    commit: str  # the commit that replaced or deleted this version
    parent: str
    when: dt.datetime


def _word(terms: list[str]) -> str | None:
    """The longest term git can look for as it is (ASCII letters and digits; git's case folding is
    ASCII's, the query's is Unicode's), None when there is none."""
    plain = [t for t in terms if t.isascii() and t.isalnum()]
    return max(plain, key=len) if plain else None


def _replaced(repo: Repo, terms: list[str]) -> list[_Replaced]:
    """Each version of a log that a commit from HEAD replaced or deleted, newest first, each once
    (only commits that added or removed a line holding a term, where git can tell)."""
    prefix = repo.layout.places.log_prefix
    found: list[_Replaced] = []
    seen: set[tuple[str, str]] = set()
    for entry in questions.changes(repo.git, ("%H", "%P", "%ct"), [prefix.rstrip("/")], _word(terms)):
        sha, parents, stamp = (field.decode("ascii") for field in entry.fields)
        when = dt.datetime.fromtimestamp(int(stamp), dt.UTC)
        for change in entry.changes:
            old = change.olds[0] if change.olds else None
            if old is None or (change.path, old) in seen:
                continue
            if not isinstance(logs.log_day(change.path, repo.layout.places), dt.date):
                continue
            seen.add((change.path, old))
            found.append(_Replaced(change.path, old, sha, (parents.split() or [sha])[0], when))
    return found


def _lines_now(repo: Repo, rel: str) -> set[str]:
    try:
        raw = repo.layout.read_file(repo.root / rel)
    except SquadmemError:
        return set()
    return {line.strip() for line in (raw or b"").decode("utf-8", "replace").splitlines()}


def search(repo: Repo, terms: list[str], limit: int) -> tuple[list[RemovedLine], int]:
    """The newest ``limit`` log lines matching ``terms`` that the logs held and hold no more, and
    how many more match."""
    if questions.head(repo.git) is None:
        return [], 0
    versions = _replaced(repo, terms)
    texts = dict(repo.blobs(sorted({v.blob for v in versions})))
    now: dict[str, set[str]] = {}
    matched: list[RemovedLine] = []
    shown: set[tuple[str, str]] = set()
    for version in versions:
        text = (texts.get(version.blob) or b"").decode("utf-8", "replace")
        for raw_line in text.splitlines():
            line = raw_line.strip()
            if not line or not all(t in line.casefold() for t in terms) or (version.path, line) in shown:
                continue
            if version.path not in now:
                now[version.path] = _lines_now(repo, version.path)
            if line in now[version.path]:
                continue
            shown.add((version.path, line))
            gone = RemovedLine(version.path, line[:160], version.parent, version.commit, version.when)
            matched.append(gone)
    return matched[:limit], max(0, len(matched) - limit)
