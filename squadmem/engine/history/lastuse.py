"""Each section's last use: the latest of its content's age, its trailer uses, a pending use,
an uncommitted edit (docs/concepts.md, "Ages come from commits"). The caller says what time it
is: nothing here reads the clock."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping

from squadmem.engine import catalog
from squadmem.engine.history.facts import NO_TIME, First, Used
from squadmem.engine.history.stream import read_facts
from squadmem.gitio.repo import Repo
from squadmem.model import clock, sections, uses

KINDS = ("content", "trailer", "pending", "edit", "unknown")


@dataclasses.dataclass(frozen=True)
class LastUse:
    when: dt.datetime | None  # aware UTC; None when unknown (reaches a shallow boundary)
    kind: str  # "content" | "trailer" | "pending" | "edit" | "unknown"
    commit: str | None


@dataclasses.dataclass(frozen=True)
class Usage:
    """Everything history says about one section's uses."""

    last: LastUse
    trailer_commits: int  # commits whose Squad-Memory-Used trailer names the id
    pending: dt.datetime | None  # a use not yet carried by a commit
    previous: dt.datetime | None = None  # the use (trailer or pending) before the latest one


_PRIORITY = {"edit": 4, "pending": 3, "trailer": 2, "content": 1}


def usage(
    repo: Repo,
    memory: catalog.Memory,
    *,
    now: dt.datetime,
    verbose: bool = False,
    cache: bool = True,
    extra: Mapping[str, dt.datetime] | None = None,
) -> dict[str, Usage]:
    """Every entry's uses, by id. ``now`` is the time of uncommitted edits; ``extra``: uses found but
    not recorded (``maintain --dry-run``'s host uses), counted as pending ones."""
    facts = read_facts(repo, cache=cache, verbose=verbose)
    pending = uses.pending(repo.state_dir)
    committed = {i: clock.from_epoch(facts.used[i][0]) for i in pending if i in facts.used}
    for ident in uses.settle(repo.state_dir, committed) if committed else ():
        pending.pop(ident, None)
    for ident, when in (extra or {}).items():
        pending[ident] = max(pending.get(ident, when), when)
    result: dict[str, Usage] = {}
    for entry in memory.entries:
        trail = facts.used.get(entry.id)
        result[entry.id] = Usage(
            _last_use(facts.first.get(sections.content_key(entry.text)), trail, pending.get(entry.id), now),
            trail[2] if trail else 0,
            pending.get(entry.id),
            _previous(trail, pending.get(entry.id)),
        )
    return result


def _previous(trail: Used | None, pending: dt.datetime | None) -> dt.datetime | None:
    """The second latest of the trailer uses and the pending use."""
    times = [clock.from_epoch(t) for t in (trail[0], trail[3]) if t != NO_TIME] if trail else []
    if pending is not None:
        times.append(pending)
    return sorted(times)[-2] if len(times) >= 2 else None


def _last_use(
    first: First | None, trail: Used | None, pending: dt.datetime | None, now: dt.datetime
) -> LastUse:
    candidates = []
    bound: First | None = None
    if first is not None and trail is not None and trail[1] == first[2].hex() and trail[0] < first[0]:
        first = (trail[0], first[1], first[2])  # brought in with a dated use: an import keeps its age
    if first is None:
        candidates.append(LastUse(now, "edit", None))
    elif first[1]:
        bound = first
    else:
        candidates.append(LastUse(clock.from_epoch(first[0]), "content", first[2].hex()))
    if trail is not None:
        candidates.append(LastUse(clock.from_epoch(trail[0]), "trailer", trail[1]))
    if pending is not None:
        candidates.append(LastUse(pending, "pending", None))
    best = max(candidates, key=lambda c: (c.when, _PRIORITY[c.kind]), default=None)
    if bound is not None and (best is None or best.when is None or best.when < clock.from_epoch(bound[0])):
        return LastUse(None, "unknown", bound[2].hex())
    assert best is not None
    return best


def last_uses(
    repo: Repo, memory: catalog.Memory, *, now: dt.datetime, verbose: bool = False
) -> dict[str, LastUse]:
    """Each entry's last use, by id, for every entry of ``memory`` (normally ``catalog.load(...)``)."""
    return {k: v.last for k, v in usage(repo, memory, now=now, verbose=verbose).items()}


def previous_uses(found: dict[str, Usage]) -> dict[str, dt.datetime]:
    """Id -> the use before its latest, where it has one (what second-use promotion asks)."""
    return {k: v.previous for k, v in found.items() if v.previous is not None}
