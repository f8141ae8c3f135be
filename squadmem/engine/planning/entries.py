"""New sections placed: where each entry taken in from Squad's files lands, planned in the projection.

Pure: no git, no files, no clock. The intake (:mod:`squadmem.engine.intake.take`) reads
the entries, their ages and the last uses of the sections already there, and
plans here, over the same :class:`~squadmem.engine.planning.projection.Projection`
the tier rules move sections in, with the fit arithmetic of
:mod:`squadmem.engine.planning.fit`:

- :func:`place`: each entry's tier by its age (:func:`rules.new_tier`): Core
  Context in hot, decisions in the wiki topic ``decisions``;
- :func:`fit_hot`: hot within its budget, Core Context first, then the newest;
  the rest go to cold. A newer Core Context retires the older ones (to the
  archive) and, when it does not fit, hot's least recently used sections make
  room for it (to cold): the spawn always carries Core Context;
- :func:`paged`: decisions onto the wiki pages ``decisions``, ``decisions-2``, …;
- :func:`put`: the entries into the projection, each before its file's Index
  (left as it stands: ``maintain`` refreshes it).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from squadmem.engine import catalog, index
from squadmem.engine.planning import fit, rules
from squadmem.engine.planning.projection import Projection, Unwritable
from squadmem.model import render, sections, squad
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, classify
from squadmem.model.places import Places
from squadmem.model.settings import Settings

TOPIC = rules.DEFAULT_TOPIC
PAGE_BYTES = MAX_FILE_BYTES // 2  # a decisions page fills to this, then the next one starts
_NEVER = dt.datetime.max.replace(tzinfo=dt.UTC)

LastUse = Callable[[str], float]  # a section's text -> its last use (seconds)


@dataclasses.dataclass(frozen=True)
class Placed:
    """A new entry and where it lands."""

    entry: squad.Entry
    tier: str
    name: str  # agent, or wiki topic
    when: dt.datetime | None  # first commit that held it
    places: Places

    @property
    def target(self) -> str:
        return self.places.tier_rel(self.tier, self.name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "title": self.entry.title,
            "kind": self.entry.kind,
            "source": self.entry.source,
            "target": self.target,
            "first_seen": render.timestamp(self.when),
        }


@dataclasses.dataclass(frozen=True)
class Relocated:
    """A section already in a tier file that the intake moves: its file, its text, its new tier."""

    source: str
    text: str
    tier: str


def place(
    new: Sequence[squad.Entry],
    first_seen: Mapping[bytes, dt.datetime | None],
    settings: Settings,
    now: dt.datetime,
    places: Places,
) -> list[Placed]:
    """Each new entry's tier, by its age, as ``maintain`` would put it (before the hot budget)."""
    placed = []
    for entry in new:
        when = first_seen.get(entry.key)
        if entry.decision:
            placed.append(Placed(entry, "wiki", TOPIC, when, places))
        elif entry.kind == "core":
            placed.append(Placed(entry, "hot", entry.owner, when, places))
        else:
            tier = rules.new_tier(now - (when or now), settings)
            placed.append(Placed(entry, tier, entry.owner, when, places))
    return placed


# -- hot within its budget ------------------------------------------------------------------------


@dataclasses.dataclass
class _Fitting:
    """What fitting hot decides, as it goes; relocations are made in the projection at once."""

    projection: Projection
    moved: dict[int, Placed] = dataclasses.field(default_factory=dict)  # id of a placement -> its new one
    relocated: list[Relocated] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)

    def relocate(self, source: str, text: str, tier: str) -> None:
        name = self.projection.owner(source)
        try:
            self.projection.move(source, tier, name, text, follow_id=False)
        except index.SpliceError as exc:
            raise refused(self.projection.places.tier_rel(tier, name), exc) from None
        self.relocated.append(Relocated(source, text, tier))


def fit_hot(
    projection: Projection,
    placed: list[Placed],
    old_cores: set[str],
    settings: Settings,
    last_use: LastUse,
) -> tuple[list[Placed], list[Relocated], list[str]]:
    """Hot within its budget: Core Context first, then the newest entries; the rest go to cold.

    A newer Core Context retires ``old_cores`` (content keys, hex) in hot and cold to the
    archive, and when it does not fit, hot's least recently used sections make room for it
    (to cold). Returns the placements, the relocations (made in ``projection``), and warnings.
    """
    fitting = _Fitting(projection)
    for agent, candidates in _hot_by_agent(placed).items():
        if any(p.entry.kind == "core" for p in candidates):
            candidates = _retire_cores(fitting, agent, candidates, old_cores)
        _fill_hot(fitting, agent, _cores_then_newest(candidates), settings, last_use)
    return [fitting.moved.get(id(p), p) for p in placed], fitting.relocated, fitting.warnings


def _hot_by_agent(placed: Iterable[Placed]) -> dict[str, list[Placed]]:
    by_agent: dict[str, list[Placed]] = {}
    for p in placed:
        if p.tier == "hot":
            by_agent.setdefault(p.name, []).append(p)
    return by_agent


def _retire_cores(
    fitting: _Fitting, agent: str, candidates: list[Placed], old_cores: set[str]
) -> list[Placed]:
    """The hot candidates without Core Context versions older than the current ones; both the older
    new ones and the sections ``old_cores`` names in hot and cold go to the archive."""
    cores = [p for p in candidates if p.entry.kind == "core"]
    current = _current(cores)
    for p in cores:  # an older version taken in with it (history-archive.md's) goes to the archive
        if p not in current:
            fitting.moved[id(p)] = dataclasses.replace(p, tier="archive")
    for tier in ("hot", "cold"):  # cold: one too large for hot waited there
        rel = fitting.projection.places.tier_rel(tier, agent)
        for node in fitting.projection.doc(rel).nodes():
            if sections.content_key(node.text).hex() in old_cores:
                fitting.relocate(rel, node.text, "archive")
    return [p for p in candidates if p in current or p.entry.kind != "core"]


def _current(cores: list[Placed]) -> list[Placed]:
    """An agent's current Core Context sections among new ones: every one in history.md (some agents
    keep two, and Squad loads both), else the newest of its archive's."""
    live = [p for p in cores if p.entry.source.endswith("/history.md")]
    if live:
        return live
    newest = max(cores, key=lambda p: p.when.timestamp() if p.when is not None else float("inf"))
    return [newest]


def _cores_then_newest(candidates: Iterable[Placed]) -> list[Placed]:
    return sorted(candidates, key=lambda p: (p.entry.kind != "core", -(p.when or _NEVER).timestamp()))


def _fill_hot(
    fitting: _Fitting, agent: str, ordered: Iterable[Placed], settings: Settings, last_use: LastUse
) -> None:
    """Each entry into hot while it stays within budget (tried in a copy of hot, in this order), else
    to cold; Core Context makes room by sending hot's least recently used sections to cold."""
    rel = fitting.projection.places.tier_rel("hot", agent)
    trial = index.Doc(fitting.projection.doc(rel).text())
    for p in ordered:
        try:
            if fit.over_with(trial, p.entry.text, settings.hot) is None:
                trial.insert(p.entry.text)
                continue
            if p.entry.kind == "core":
                evicted = fit.room(trial, p.entry.text, _movable(trial, last_use), settings.hot)
                if evicted:
                    for old in evicted:
                        trial.remove(old)
                        fitting.relocate(rel, old, "cold")
                    trial.insert(p.entry.text)
                    continue
                fitting.warnings.append(
                    f"{p.entry.source}: {p.entry.title} does not fit in {rel} "
                    f"({len(p.entry.text.encode())} bytes); kept in cold: shorten it in Squad's file"
                )
        except index.SpliceError as exc:
            raise refused(rel, exc) from None
        fitting.moved[id(p)] = dataclasses.replace(p, tier="cold")


def _movable(doc: index.Doc, last_use: LastUse) -> list[str]:
    """The sections of a hot file that may make room, least recently used first."""
    found = [
        s.text
        for s in index.split(doc.text()).sections
        if not s.flags.pin and not index.is_index(s) and s.raw_heading.strip() != catalog.SESSION_TITLE
    ]
    return sorted(found, key=last_use)


# -- the wiki's pages, and the entries put in ------------------------------------------------------


def paged(placed: list[Placed], projection: Projection) -> list[Placed]:
    """Decisions onto the wiki pages ``decisions``, ``decisions-2``, …: each new one on the last page
    while that stays within :data:`PAGE_BYTES`, else on a new page.

    Some teams' ``decisions.md`` alone is over 1 MiB, the most a tier file may hold;
    half of that per page leaves room for what moves back later.
    """
    pages: dict[int, int] = {}
    for rel in projection.rels():
        tf = classify(rel, projection.places)
        if tf is not None and tf.tier == "wiki" and (n := _page_number(tf.name)):
            pages[n] = projection.size(rel)
    page = max(pages, default=1)
    header = projection.header
    size = pages.get(page, index.size(header("wiki", TOPIC)))
    out = []
    for p in placed:
        if p.tier != "wiki" or p.name != TOPIC:
            out.append(p)
            continue
        grown = index.size(p.entry.text) + 1
        if size + grown > PAGE_BYTES and size > index.size(header("wiki", _page_name(page))):
            page += 1
            size = index.size(header("wiki", _page_name(page)))
        size += grown
        out.append(dataclasses.replace(p, name=_page_name(page)))
    return out


def _page_name(number: int) -> str:
    return TOPIC if number == 1 else f"{TOPIC}-{number}"


def _page_number(topic: str) -> int | None:
    if topic == TOPIC:
        return 1
    head, _, tail = topic.rpartition("-")
    return int(tail) if head == TOPIC and tail.isdigit() and int(tail) > 1 else None


def put(projection: Projection, placed: Iterable[Placed]) -> None:
    """Each placed entry into its file in the projection, in order, before the file's Index."""
    for p in placed:
        try:
            projection.insert(p.tier, p.name, p.entry.text)
        except index.SpliceError as exc:
            raise refused(p.target, exc) from None


def refused(rel: str, exc: index.SpliceError) -> SquadmemError:
    """The error for a splice the intake cannot make: nothing is written."""
    if isinstance(exc, Unwritable):
        return SquadmemError(
            str(exc),
            hint="cut the file down by hand first, or take in fewer entries; squadmem changed nothing",
        )
    return SquadmemError(
        f"{rel}: a Squad entry would not stay a section of its own there",
        hint="close the code fence or HTML block left open in the entry or the file, then run again",
    )
