"""``squadmem log add``: an entry appended to its day's log, never to one the next commit may not change.

A past day's log is frozen once its day (plus ``log.grace_minutes``) has
ended, as of the date the next commit will carry (``GIT_COMMITTER_DATE``, else
the clock). ``log add --now`` for such a day whose log HEAD already holds is
refused up front, as ``session end --now`` is: the pre-commit hook would
refuse the commit. A past day with no committed log is a backfill, which the
log rules allow.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from squadmem.gitio import questions
from squadmem.gitio.objects import Objects
from squadmem.gitio.repo import Repo
from squadmem.model import logs
from squadmem.model.errors import SquadmemError


def committed(repo: Repo, rel: str) -> bool:
    """Whether HEAD holds ``rel``."""
    head = questions.head(repo.git)
    if head is None:
        return False
    objects = Objects(repo)
    return objects.content(objects.tree_of(head), rel) is not None


def add(repo: Repo, text: str, now: dt.datetime, agent: str | None = None) -> str:
    """Append ``text`` to the log of ``now``'s day; return the log's repository path."""
    layout = repo.layout
    conf = layout.settings
    if agent is not None:
        agent = layout.require_agent(agent)
    day = logs.today(now, conf.tz)
    rel = layout.rel(layout.log_path(day))
    commit_date = logs.commit_now()
    rules = logs.Rules(conf.tz, conf.log.grace_minutes, layout.places)
    if logs.is_frozen(rel, commit_date, rules) and committed(repo, rel):
        closed = logs.closes_at(day, conf.tz, conf.log.grace_minutes)
        raise SquadmemError(
            f"{rel}: the log of {day.isoformat()} froze at {closed:%Y-%m-%d %H:%M %Z}; a past day's log"
            " is frozen and the next commit would be refused",
            hint="leave out --now to add it to today's log",
        )
    return layout.rel(logs.append(layout, conf.tz, text, now, agent))


@dataclasses.dataclass(frozen=True)
class Shown:
    """A day's log as ``log show`` prints it, and the session files of that day (``rel`` None: the
    day has session files only)."""

    day: dt.date
    rel: str | None
    text: str
    sessions: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, object]:
        entries = [e.as_dict() for e in logs.entries(self.text)]
        data: dict[str, object] = {
            "date": self.day.isoformat(),
            "file": self.rel,
            "entries": entries,
            "text": self.text,
        }
        if self.sessions:
            data["sessions"] = [{"file": rel, "text": text} for rel, text in self.sessions]
        return data

    def output(self) -> str:
        """The text ``log show`` prints: the day's log, then each session file under its name."""
        parts = [self.text] if self.rel is not None else []
        for rel, text in self.sessions:
            gap = "" if not parts else "\n" if parts[-1].endswith("\n") else "\n\n"  # one blank line
            parts.append(f"{gap}==> {rel} <==\n{text}")
        return "".join(parts)


def show(repo: Repo, day: str | None, now: str | None) -> Shown:
    """The log of ``day`` (YYYY-MM-DD; default: today in tiers.toml's time zone, as of ``--now``)."""
    from squadmem.engine import clock

    date = (
        logs.parse_day(day) if day else logs.today(clock.at(now, repo, earlier=True), repo.layout.settings.tz)
    )
    sessions = tuple(logs.read_sessions(repo.layout, date))
    try:
        rel, text = logs.read(repo.layout, date)
    except SquadmemError:
        if not sessions:
            raise
        return Shown(date, None, "", sessions)
    return Shown(date, rel, text, sessions)
