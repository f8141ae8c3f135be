"""The order ``context --task`` fills a spawn in (pure: no git, no files).

Recent work continues: what a team wrote last is often what the next spawn needs, whatever its
task says, so the newest sections take the first :data:`SHARE` of the room. Newest is when a
section's text first reached history (the commit time ``history`` dates it by, as ``report`` and
``intake`` do); a section history does not hold yet (written since the last commit) is newer than
any, and without history the date its first line states decides, then the nearer tier and the later
place (:func:`squadmem.engine.search.ranking.newest`'s order). Then come the task's matches: BM25 on the task
(recall's ranking, :func:`squadmem.engine.search.ranking.bm25`), each score raised for a recent section
(``score × (1 + WEIGHT / (1 + age / HALF_DAYS))``, the age in days before the newest candidate, so
no clock is read); then every other section newest first. The constants were chosen on the study's
train teams (``bench/fill_tuning.py``; docs/squad.md), with each entry dated by its own commit: a
tenth of the room to the newest and a raise of 2 held the most there, summed over 4, 8 and 16 KB.

:func:`fill` takes items whole, in an order, while they fit: what the spawn holds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence

from squadmem.engine import catalog
from squadmem.engine.search import ranking

SHARE = 0.1  # the share of the room the newest sections take before the task's matches
WEIGHT = 2.0  # how much a recent section raises a match's score
HALF_DAYS = 1.0  # the age (days) at which that raise is halved
DAY = 86400.0


@dataclasses.dataclass(frozen=True)
class Candidate:
    """What the order reads of a section."""

    score: float  # BM25 on the task; 0 when it holds no word of it
    stated: str | None  # the YYYY-MM-DD its first line states
    depth: int  # its tier's, ranking.DEPTH (hot 0 ... archive 3)
    position: int  # its place in its file
    seen: float | None = None  # when history first holds its text (epoch seconds); None: not in it
    size: int = 0  # its bytes in the spawn


def _date(stated: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(stated) if stated else None
    except ValueError:
        return None


def _moment(c: Candidate) -> float | None:
    """When the candidate arrived, as far as the order knows (epoch seconds)."""
    if c.seen is not None:
        return c.seen
    day = _date(c.stated)
    return None if day is None else dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


def newest(candidates: Sequence[Candidate], among: Iterable[int] | None = None) -> list[int]:
    """Indexes of ``candidates`` (or of ``among`` them) newest first: by when history first holds each
    (one it does not hold first, when history holds any), then as :func:`ranking.newest`."""
    chosen = range(len(candidates)) if among is None else among
    dated = any(c.seen is not None for c in candidates)
    return sorted(
        chosen,
        key=lambda n: (
            dated and candidates[n].seen is None,
            candidates[n].seen or 0.0,
            _date(candidates[n].stated) is not None,
            candidates[n].stated or "",
            -candidates[n].depth,
            candidates[n].position,
        ),
        reverse=True,
    )


def matches(
    candidates: Sequence[Candidate], *, weight: float = WEIGHT, half_days: float = HALF_DAYS
) -> list[int]:
    """Indexes of the task's matches, best first (ties: the given order)."""
    moments = [_moment(c) for c in candidates]
    latest = max((m for m in moments if m is not None), default=None)
    scored = []
    for n, c in enumerate(candidates):
        if c.score > 0:
            when = moments[n]
            age = None if when is None or latest is None else max(0.0, latest - when) / DAY
            lift = 0.0 if age is None else weight / (1 + age / half_days)
            scored.append((-c.score * (1 + lift), n))
    return [n for _, n in sorted(scored)]


def order(
    candidates: Sequence[Candidate],
    room: int,
    *,
    share: float = SHARE,
    weight: float = WEIGHT,
    half_days: float = HALF_DAYS,
) -> tuple[list[int], list[int]]:
    """(what goes first: the newest candidates that fit whole in ``share`` of ``room`` bytes, then the
    task's matches; every other candidate newest first): together a permutation of the indexes."""
    latest = newest(candidates)
    sizes = [c.size for c in candidates]
    cap = int(max(0.0, min(1.0, share)) * max(0, room))
    reserved = fill(sizes, latest, cap) if cap > 0 else []
    taken = set(reserved)
    first = reserved + [n for n in matches(candidates, weight=weight, half_days=half_days) if n not in taken]
    taken.update(first)
    return first, [n for n in latest if n not in taken]


def candidates_of(
    entries: Sequence[catalog.Entry],
    terms: Sequence[str],
    sizes: Sequence[int],
    seen: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """The candidates of ``entries`` (each ``sizes`` bytes) for a task's ``terms`` (BM25 as recall
    ranks); ``seen``: when history first holds each, by id."""
    scores = {id(e): s for e, s in ranking.bm25(entries, terms)}
    known = seen or {}
    return [
        Candidate(
            scores.get(id(e), 0.0),
            ranking.stated_date(e.text),
            ranking.DEPTH.get(e.tier, 4),
            e.position,
            known.get(e.id),
            size,
        )
        for e, size in zip(entries, sizes, strict=True)
    ]


def fill(sizes: Sequence[int], order_: Iterable[int], room: int) -> list[int]:
    """The items taken whole, in ``order_``, each while it fits in ``room`` bytes (each once)."""
    taken: list[int] = []
    seen: set[int] = set()
    used = 0
    for n in order_:
        if n not in seen and used + sizes[n] <= room:
            taken.append(n)
            used += sizes[n]
        seen.add(n)
    return taken
