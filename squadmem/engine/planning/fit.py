"""The fit arithmetic: will a hot file, with its Index as it will be, fit its budget?

Pure: no git, no files. Sizes are followed as sections come and go (bytes
and lines added or subtracted, the Index kept as ordered lines by
:class:`squadmem.engine.planning.index_plan.IndexModel`), so a question costs what it
moves, not the size of the file. The questions:

- :func:`admit`: which sections the promotion rule wants back fit a hot file
  once every section the budget pass may send out is out;
- :func:`fewest_recent`: which recently used sections a hot file still over
  budget must send out, the fewest first;
- :func:`over_with` and :func:`room`, for new sections (the intake's entries, each
  put in before the Index as it stands, which the intake leaves for ``maintain``):
  whether one fits a hot file, and which sections must go out so that it does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from squadmem.engine import catalog, index
from squadmem.engine.planning.index_plan import IndexModel, IndexPlan
from squadmem.engine.planning.projection import Projection
from squadmem.engine.planning.rules import Facts, where_out
from squadmem.model import budget, sections
from squadmem.model.settings import HotSettings

# The most recently used sections a budget pass checks one by one for a place back in hot: beyond
# this many, it sends them out least recently used first without checking.
_FEWEST_TRIES = 64

Size = tuple[int, int]  # bytes, lines


class Planning(Protocol):
    """What the arithmetic reads of a run in progress (:class:`squadmem.engine.planning.policy.Run`)."""

    projection: Projection
    index_plan: IndexPlan
    facts: Facts

    def evictable(self, entry: catalog.Entry, recent: bool = False) -> bool: ...

    def movable(self, entry: catalog.Entry, tier: str, name: str) -> bool: ...

    def candidates(self, rel: str) -> list[catalog.Entry]: ...


def _out(run: Planning, model: IndexModel, size: Size, entry: catalog.Entry, where: tuple[str, str]) -> Size:
    """``size`` with ``entry`` gone to ``where``, its line arriving in ``model``."""
    model.arrive(run.index_plan.line(entry.id, entry, *where))
    return size[0] - entry.bytes, size[1] - entry.lines


def _over(run: Planning, model: IndexModel, size: Size) -> str | None:
    return budget.hot_over(*model.total(*size), run.facts.settings.hot)


def admit(
    run: Planning, agent: str, group: list[catalog.Entry]
) -> tuple[list[catalog.Entry], list[tuple[catalog.Entry, str]]]:
    """Which of ``group`` (sections to promote into the agent's hot file) fit its budget once
    every section the budget pass may send out is out; the most recently used first."""
    projection = run.projection
    rel = projection.places.tier_rel("hot", agent)
    doc = projection.doc(rel) if rel in projection.rels() else index.Doc(projection.header("hot", agent))
    model = run.index_plan.model(agent, doc)
    size = model.base(doc)
    # A section sharing its id's slug with a newcomer may be unable to leave once the newcomer is
    # in (their ids would swap): it is not counted as room.
    arriving = {catalog.base(e.section) for e in group}
    for entry in run.candidates(rel):
        if run.evictable(entry) and catalog.base(entry.section) not in arriving:
            where = where_out(entry, run.facts)
            if run.movable(entry, *where):
                size = _out(run, model, size, entry, where)
    fits, refused = [], []
    projected = projected_ids(projection, agent)
    for entry in sorted(group, key=run.facts.tie_key, reverse=True):
        line = model.leave(projected.get((entry.file, sections.trimmed(entry.text)), entry.id))
        grown = size[0] + entry.bytes + (0 if index.ends_line(entry.text) else 1), size[1] + entry.lines
        over = _over(run, model, grown)
        if over is None:
            fits.append(entry)
            size = grown
        else:
            refused.append((entry, over))
            if line is not None:
                model.arrive(line)
    return fits, refused


def projected_ids(projection: Projection, agent: str) -> dict[tuple[str, str], str]:
    """The id each of the agent's sections will have once the plan so far is carried out, by
    (file, trimmed text): the Index names sections by those ids, not by today's."""
    found: dict[tuple[str, str], str] = {}
    for rel, node, ident in projection.ids(agent):
        found.setdefault((rel, node.key), ident)
    return found


def fewest_recent(
    run: Planning, agent: str, doc: index.Doc, ordered: list[catalog.Entry]
) -> list[catalog.Entry]:
    """The recently used sections of a hot file still over budget, in the order the budget pass
    sends them out: first the fewest that make it fit (least recently used first, then any the
    file could keep after all taken back, since the next plan would promote those again), then
    the rest, should a move be refused."""
    candidates = [
        e for e in ordered if run.evictable(e, recent=True) and run.movable(e, *where_out(e, run.facts))
    ]
    model = run.index_plan.model(agent, doc)
    size = model.base(doc)
    chosen: list[catalog.Entry] = []
    for entry in candidates:
        if _over(run, model, size) is None:
            break
        chosen.append(entry)
        size = _out(run, model, size, entry, where_out(entry, run.facts))
    if len(chosen) <= _FEWEST_TRIES:  # each try renders the Index anew
        for entry in reversed(chosen[:]):
            rest = [e for e in chosen if e is not entry]
            if fits_without(run, agent, doc, rest):
                chosen = rest
    first = {e.id for e in chosen}
    return chosen + [e for e in ordered if e.id not in first]


def fits_without(run: Planning, agent: str, doc: index.Doc, leaving: list[catalog.Entry]) -> bool:
    """Would the agent's hot file fit its budget with ``leaving`` sent out?"""
    model = run.index_plan.model(agent, doc)
    size = model.base(doc)
    for entry in leaving:
        size = _out(run, model, size, entry, where_out(entry, run.facts))
    return _over(run, model, size) is None


def followed(run: Planning, model: IndexModel, doc: index.Doc) -> str | None:
    """How a hot file is over budget by its followed size (its Index as ``model`` renders it)."""
    return budget.hot_over(*model.total(*model.base(doc)), run.facts.settings.hot)


def whole(run: Planning, agent: str) -> str | None:
    """How a hot file is over budget, measured whole with its Index written in."""
    return budget.hot_over(*budget.measure(run.index_plan.with_index(agent)), run.facts.settings.hot)


def grown(doc: index.Doc, section_text: str) -> Size:
    """The bytes and lines of ``doc`` with ``section_text`` put in (:meth:`index.Doc.insert`: before
    the Index, or at the end), changing nothing; raises index.SpliceError where it cannot go."""
    placing = doc.check_insert(section_text)
    size, lines = doc.bytes + index.size(placing.placed), doc.lines + index.line_count(placing.placed)
    if placing.fixed is not None:  # a line ending added to the last section (or the header)
        last = doc.header if doc.tail is None else doc.tail.text
        size += index.size(placing.fixed) - index.size(last)
        lines += index.line_count(placing.fixed) - index.line_count(last)
    return size, lines


def over_with(doc: index.Doc, section_text: str, hot: HotSettings) -> str | None:
    """How a hot file would be over budget with ``section_text`` put in; None if it fits."""
    return budget.hot_over(*grown(doc, section_text), hot)


def room(doc: index.Doc, wanted: str, leaving: Iterable[str], hot: HotSettings) -> list[str]:
    """The first of ``leaving`` (texts of sections of ``doc``, in the order they may go out) that
    must go for ``wanted`` to fit; [] if even all of them are not enough. ``doc`` is left as it was."""
    trial = index.Doc(doc.text())
    out: list[str] = []
    for text in leaving:
        trial.remove(text)
        out.append(text)
        if over_with(trial, wanted, hot) is None:
            return out
    return []
