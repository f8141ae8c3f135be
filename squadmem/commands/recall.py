"""``squadmem recall QUERY``: find what memory holds, in every tier and the daily logs.

A match is a section that holds any word of the query as the search index
cuts words (``squadmem.engine.search.index``: a path, ``#123``, ``FR-022`` or
``FooBar`` is a phrase of its parts; a word also matches as a prefix), stop
words left out, so a sentence is a query; or a log line that holds every one
of those words, case folded. Sections are ranked by BM25, titles weighing
twice, those holding more and rarer words first; ``score`` shows how often
the words occur in each.
The first ``limit`` are shown and, being what the agent
looked up, recorded as used (pending uses, committed later as
``Squad-Memory-Used``), so a cold or archive section recalled comes back to
hot at the next ``maintain``. Log lines are shown, never recorded: logs are
not tiers.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Collection

from squadmem.engine.search import index as search_index
from squadmem.engine.search import ranking
from squadmem.gitio.repo import Repo
from squadmem.model import logs, render, uses
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import TIERS, known_agent
from squadmem.model.values import Value

TYPE_CHECKING = False  # typing is not imported at run time: recall runs at every tool call
if TYPE_CHECKING:
    from typing import Any

    from squadmem.engine.history import removed, removed_logs


class Hit(Value):
    __slots__ = ("file", "id", "line", "score", "tier", "title")

    def __init__(self, id: str, tier: str, file: str, title: str, score: int, line: str) -> None:
        self.id = id
        self.tier = tier
        self.file = file
        self.title = title
        self.score = score
        self.line = line  # the first line holding a query word

    def as_dict(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in ("id", "tier", "file", "title", "score", "line")}


class LogHit(Value):
    __slots__ = ("file", "line", "line_number")

    def __init__(self, file: str, line_number: int, line: str) -> None:
        self.file = file
        self.line_number = line_number
        self.line = line

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line_number": self.line_number, "line": self.line}


class Recall(Value):
    __slots__ = (
        "hits",
        "log_hits",
        "more",
        "more_removed",
        "more_removed_lines",
        "query",
        "removed",
        "removed_lines",
        "spawn_held",
        "used",
    )

    def __init__(
        self,
        query: str,
        hits: tuple[Hit, ...],
        more: int,
        log_hits: tuple[LogHit, ...],
        used: tuple[str, ...],
        removed: tuple[removed.Removed, ...] | None = None,
        more_removed: int = 0,
        removed_lines: tuple[removed_logs.RemovedLine, ...] | None = None,
        more_removed_lines: int = 0,
        spawn_held: int | None = None,
    ) -> None:
        self.query = query
        self.hits = hits
        self.more = more  # matching sections past the limit
        self.log_hits = log_hits
        self.used = used
        self.removed = removed  # with --history: sections no tier holds now
        self.more_removed = more_removed
        self.removed_lines = removed_lines  # with --history (and the logs): log lines no log holds now
        self.more_removed_lines = more_removed_lines
        self.spawn_held = spawn_held  # with --beyond-spawn: the sections left out, as the spawn holds them

    def as_dict(self) -> dict[str, Any]:
        data = {
            "query": self.query,
            "sections": [h.as_dict() for h in self.hits],
            "more_sections": self.more,
            "logs": [h.as_dict() for h in self.log_hits],
            "used": list(self.used),
        }
        if self.spawn_held is not None:
            data["spawn_held"] = self.spawn_held
        if self.removed is not None:
            data["removed"] = [r.as_dict() for r in self.removed]
            data["more_removed"] = self.more_removed
        if self.removed_lines is not None:
            data["removed_log_lines"] = [r.as_dict() for r in self.removed_lines]
            data["more_removed_log_lines"] = self.more_removed_lines
        return data

    def text(self) -> str:
        if not self.hits and not self.log_hits and not self.removed and not self.removed_lines:
            where = "memory or its history" if self.removed is not None else "memory"
            return f"nothing in {where} matches {self.query!r}{self._beyond()}"
        out = []
        if self.hits:
            rows = [(h.id, h.tier, h.score, h.line) for h in self.hits]
            out.append(render.table(("id", "tier", "score", "first matching line"), rows, right=(2,)))
            if self.more:
                out.append(f"(+{self.more} more sections; raise --limit to see them)")
        if self.spawn_held:
            out.append(f"(left out: the {self.spawn_held} section(s) a spawn for these words holds)")
        if self.log_hits:
            out.append("")
            out += [f"{h.file}:{h.line_number}: {h.line}" for h in self.log_hits]
        if self.removed:
            out.append("\nremoved from every tier (found in history):")
            gone = [
                (r.id, r.removed.date().isoformat(), r.commit[:12], r.score, r.line) for r in self.removed
            ]
            out.append(render.table(("id", "removed", "last held in", "score", "first matching line"), gone))
            out += [f"  {r.restore}" for r in self.removed]
            if self.more_removed:
                out.append(f"(+{self.more_removed} more removed sections; raise --limit to see them)")
        if self.removed_lines:
            out.append("\nremoved from the daily logs (found in history):")
            out += [f"{r.file}: {r.line}  (last held: {r.show})" for r in self.removed_lines]
            if self.more_removed_lines:
                out.append(f"(+{self.more_removed_lines} more removed log lines; raise --limit to see them)")
        if self.used:
            out.append(f"\nrecorded {len(self.used)} use(s): they go into your next commit's trailer")
        return "\n".join(out).lstrip("\n")

    def _beyond(self) -> str:
        if not self.spawn_held:
            return ""
        return f" beyond the {self.spawn_held} section(s) a spawn for these words holds"


MAX_WORDS = 256  # a sentence is a query; a page is not (SQLite's query tree holds about a thousand)
MAX_LIMIT = 1_000_000


def words(query: str) -> list[str]:
    found = ranking.words(query)
    if not found:
        raise SquadmemError("recall needs a query", hint='e.g. squadmem recall "token rotation"')
    if len(set(found)) > MAX_WORDS:
        raise SquadmemError(
            f"recall: the query has {len(set(found))} different words, over {MAX_WORDS}"
            " (a sentence, not a page)",
            hint="search for the words that name what you want",
        )
    return found


def _first_line(text: str, terms: list[str]) -> str:
    for line in text.splitlines():
        if any(t in line.casefold() for t in terms):
            return line.strip()[:100]
    return ""


def _hit(found: search_index.Found, terms: list[str]) -> Hit:
    score = sum(ranking.counts(found, terms))
    return Hit(found.id, found.tier, found.file, found.title, score, _first_line(found.text, terms))


def _owners_left_out(problems: dict[str, SquadmemError]) -> None:
    for owner, problem in sorted(problems.items()):
        warnings.warn(
            SquadmemWarning(f"{problem.message} ({owner}'s memory is left out)", hint=problem.hint),
            stacklevel=2,
        )


def _left_out(problem: SquadmemError) -> None:
    warnings.warn(
        SquadmemWarning(f"{problem.message} (left out of the search)", hint=problem.hint), stacklevel=3
    )


def search_logs(repo: Repo, terms: list[str]) -> list[LogHit]:
    folder = repo.layout.log_folder
    odd = repo.layout.odd_log_folder()
    if odd is not None:
        _left_out(odd)
        return []
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.md"), reverse=True):
        if logs.parse_log_name(path.name) is None:
            continue
        try:
            raw = repo.layout.read_file(path)
        except SquadmemError as exc:
            _left_out(exc)
            continue
        text = (raw or b"").decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if all(t in line.casefold() for t in terms):
                found.append(LogHit(repo.layout.rel(path), number, line.strip()[:160]))
    return found


def recall(
    repo: Repo,
    query: str,
    now: dt.datetime,
    *,
    agent: str | None = None,
    tier: str | None = None,
    limit: int = 5,
    logs: bool = True,
    record: bool = True,
    history: bool = False,
    skip: Collection[str] | None = None,
) -> Recall:
    """The sections ``query`` finds (``limit`` of them, best first), and the log lines; ``skip``: the
    ids left out (``--beyond-spawn``: what a spawn for the query holds, ``context.spawn_held``)."""
    typed = words(query)
    terms = search_index.content_words(typed)
    if tier is not None and tier not in TIERS:
        raise SquadmemError(f"unknown tier {tier!r}", hint=f"tiers are {', '.join(TIERS)}")
    if not 1 <= limit <= MAX_LIMIT:
        raise SquadmemError(f"--limit {limit}: must be 1 to {MAX_LIMIT}", hint="e.g. --limit 5")
    with search_index.opened(repo.work_state_dir) as index:
        problems = index.refresh(repo.layout)
        for blocked in repo.layout.blocked_tiers().values():
            _left_out(blocked)
        _owners_left_out(problems)
        if agent is not None and agent in problems:
            raise problems[agent]
        if agent is not None:
            agent = known_agent(agent, index.agents())
        found, total = index.search(typed, agent, tier, limit, skip or ())
    shown = [_hit(f, terms) for f in found]
    used = tuple(h.id for h in shown) if record else ()
    if used:
        uses.record(repo.state_dir, used, now)
    log_hits = tuple(search_logs(repo, terms)) if logs else ()
    held = None if skip is None else len(skip)
    result = Recall(query, tuple(shown), total - len(shown), log_hits, used, spawn_held=held)
    if not history:
        return result
    from squadmem.engine import catalog
    from squadmem.engine.history import removed  # the history engine: only for --history

    memory = catalog.load(repo.layout)
    gone, more = removed.search(
        repo, memory, terms, ranking.score, _first_line, agent=agent, tier=tier, limit=limit
    )
    result = result.replaced(removed=tuple(gone), more_removed=more)
    if not logs:
        return result
    from squadmem.engine.history import removed_logs

    lines, more_lines = removed_logs.search(repo, terms, limit)
    return result.replaced(removed_lines=tuple(lines), more_removed_lines=more_lines)
