"""The order ``context --task`` fills a spawn in (pure: no git, no files).

One order over every section the agent may be given: each section's BM25 score on the task
(recall's ranking, :func:`squadmem.engine.search.ranking.bm25`) over the best section's, plus
``WEIGHT × e^(−age / HOURS)``, its age in hours before the newest candidate (no clock is read), best
first. A section that holds the task's words comes first; among sections that hold them about as
well, the newer does; and what the team wrote in its last hours comes before an old section that
matches a word in passing: recent work continues, whatever the task says. A section that matches
nothing and is older than ``FADED × HOURS`` (a day) is recommended by nothing: it comes after
the lines naming further matches, newest first. Newest is when a
section's text first reached history (the commit time ``history`` dates it by, as ``report`` and
``intake`` do); a section history does not hold yet (written since the last commit) is as new as
any, and without history the date its first line states decides (:func:`newest` orders ties and
the sections nothing matches and nothing dates). The constants were chosen on the study's train
teams (``bench/fill_tuning.py``; docs/squad.md): the setting whose least margin over the best of
newest first, BM25 and BM25 then newest, at 4, 8 and 16 KB, was largest, in the middle of the
settings that did as well.

:func:`fill` takes items whole, in an order, while they fit: what the spawn holds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence

from squadmem.engine import catalog
from squadmem.engine.search import ranking

WEIGHT = 0.25  # what being the newest adds to a score scaled to the best match's 1
HOURS = 3.0  # how fast that fades: e^(−age / HOURS), the age in hours before the newest candidate
FADED = 8.0  # past this many HOURS the lift (under WEIGHT × e^-8) counts for nothing
HOUR = 3600.0


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


def order(
    candidates: Sequence[Candidate], *, weight: float = WEIGHT, hours: float = HOURS
) -> tuple[list[int], list[int]]:
    """(the indexes of ``candidates`` something recommends, best first: score over the best score,
    plus ``weight`` × e^(−age / ``hours``) while the age is at most ``FADED × hours``, ties newest
    first; the others, which match nothing and are older than that or have no known age, newest
    first (:func:`newest`)): together a permutation of the indexes."""
    dated = any(c.seen is not None for c in candidates)
    moments = [c.seen if dated else _moment(c) for c in candidates]
    latest = max((m for m in moments if m is not None), default=None)
    if dated:  # a section history does not hold yet was written since: as new as any
        moments = [latest if m is None else m for m in moments]
    best = max((c.score for c in candidates), default=0.0) or 1.0

    def value(n: int) -> float:
        when = moments[n]
        age = math.inf if when is None or latest is None else max(0.0, latest - when) / HOUR / hours
        return candidates[n].score / best + (weight * math.exp(-age) if age <= FADED else 0.0)

    latest_first = newest(candidates)
    values = {n: value(n) for n in latest_first}
    first = sorted((n for n in latest_first if values[n] > 0), key=lambda n: -values[n])
    return first, [n for n in latest_first if values[n] <= 0]


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
