"""The Index planning: each hot file's ``## Index → Deeper Tiers`` as a run leaves the tiers.

Pure: no git, no files. :class:`IndexPlan` reads the projection of a run
(:mod:`squadmem.engine.planning.projection`) to render an agent's Index, shortened
where the hot budget needs it (:meth:`IndexPlan.fitted`), and the refreshes
a plan ends with; :class:`IndexModel` keeps an agent's Index lines in order
as sections come and go, so the fit arithmetic (:mod:`squadmem.engine.planning.fit`)
sizes a hot file with its Index without rendering it from scratch.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import functools
from collections.abc import Iterable

from squadmem.engine import catalog, index
from squadmem.engine.planning.plan import IndexRefresh
from squadmem.engine.planning.projection import Projection
from squadmem.engine.planning.rules import Facts, Use
from squadmem.model import budget, sections
from squadmem.model.layout import classify
from squadmem.model.places import Places


@dataclasses.dataclass(frozen=True)
class Arrival:
    """A section leaving hot, as its agent's Index will list it: its own line, or its topic's."""

    id: str
    title: str
    tier: str
    name: str
    when: dt.datetime | None


_LATEST = dt.datetime.max.replace(tzinfo=dt.UTC)


def _order_key(line: index.Line) -> tuple[int, dt.timedelta, str]:
    """index.order's order as a key: newest first, unknown dates last, then by id."""
    if line.last_used is None:
        return (1, dt.timedelta(0), line.id)
    return (0, _LATEST - line.last_used, line.id)


class IndexModel:
    """An agent's Index lines kept in order as sections come and go; renders only what it shows."""

    def __init__(
        self,
        lines: list[index.Line],
        topics: dict[str, list[dt.datetime | None]],
        cap: int,
        agent: str,
        present: bool,
        places: Places,
    ) -> None:
        self.cap, self.agent, self.present = cap, agent, present
        self.topics = topics
        self.places = places  # where each line's file is
        ordered = sorted(lines + [topic_line(t, d, places) for t, d in topics.items()], key=_order_key)
        self.keys = [_order_key(x) for x in ordered]
        self.lines = ordered
        self.by_id = {x.id: x for x in ordered}

    def dated(self, known: dict[str, dt.datetime]) -> IndexModel:
        """This model with the date of each line whose date is unknown taken from ``known``."""
        for line in [x for x in self.lines if x.last_used is None]:
            date = known.get(line.id) or known.get(index.line_key(line.title, line.file))
            if date is not None:
                self.leave(line.id)
                self._add(dataclasses.replace(line, last_used=date))
        return self

    def _add(self, line: index.Line) -> None:
        key = _order_key(line)
        at = bisect.bisect_left(self.keys, key)
        self.keys.insert(at, key)
        self.lines.insert(at, line)
        self.by_id[line.id] = line

    def leave(self, ident: str) -> index.Line | None:
        """Take a section's line out (it goes to hot); the line, or None if it had none."""
        line = self.by_id.pop(ident, None)
        if line is not None:
            at = bisect.bisect_left(self.keys, _order_key(line))
            del self.keys[at]
            del self.lines[at]
        return line

    def arrive(self, item: Arrival | index.Line) -> None:
        """A section arrives in cold or the archive (its line) or the wiki (its topic's line changes)."""
        if isinstance(item, index.Line):
            self._add(item)
            return
        if item.tier != "wiki":
            self._add(
                index.Line(
                    item.id, item.title, item.tier, item.when, self.places.tier_rel(item.tier, item.name)
                )
            )
            return
        self.leave(f"wiki:{item.name}")
        days = self.topics.setdefault(item.name, [])
        days.append(item.when)
        self._add(topic_line(item.name, days, self.places))

    def text(self) -> str | None:
        if self.cap <= 0 or (not self.present and not self.lines):
            return None
        return index.render_ordered(self.lines[: self.cap], len(self.lines), self.cap, self.agent)

    def base(self, doc: index.Doc) -> tuple[int, int]:
        """The hot file's bytes and lines without its Index (with the line ending an Index needs)."""
        node = doc.index_node()
        size, rows = doc.bytes, doc.lines
        last = doc.tail
        if node is not None:
            size -= len(node.text.encode("utf-8"))
            rows -= budget.count_lines(node.text)
            if node is doc.tail:
                last = node.prev
        last_text = doc.header if last is None else last.text
        if self.text() is not None:  # the blank line (and line ending) set before an Index
            ended = index.blank_ended(last_text)
            size += len(ended.encode("utf-8")) - len(last_text.encode("utf-8"))
            rows += budget.count_lines(ended) - budget.count_lines(last_text)
        return size, rows

    def total(self, size: int, rows: int) -> tuple[int, int]:
        """The hot file's bytes and lines with the Index this model renders."""
        wanted = self.text()
        if wanted is None:
            return size, rows
        return size + len(wanted.encode("utf-8")), rows + budget.count_lines(wanted)


def topic_line(topic: str, days: list[dt.datetime | None], places: Places) -> index.Line:
    known = [d for d in days if d is not None]
    count = f"{len(days)} section" + ("" if len(days) == 1 else "s")
    when = max(known) if known else None
    return index.Line(f"wiki:{topic}", topic, "wiki", when, places.tier_rel("wiki", topic), count)


class IndexPlan:
    """The Index of each agent's hot file as the projection stands (``agent``: only that one's)."""

    def __init__(self, projection: Projection, facts: Facts, agent: str | None = None) -> None:
        self.projection, self.facts, self.agent = projection, facts, agent
        self.cap = facts.settings.hot.index_max_entries
        self._topics: tuple[int, dict[str, list[dt.datetime | None]]] | None = None

    def hot_agents(self) -> list[str]:
        names = set()
        for rel in self.projection.rels():
            tf = classify(rel, self.projection.places)
            if tf is not None and tf.tier == "hot" and self.agent in (None, tf.name):
                names.add(tf.name)
        return sorted(names)

    # -- the lines -------------------------------------------------------------------------------
    @functools.cached_property
    def use_by_text(self) -> dict[tuple[str, str], Use]:
        """(owner, normalized text) -> its use; ("", text) -> the first owner's, for a section that
        changes owner during the plan."""
        found: dict[tuple[str, str], Use] = {}
        for entry in self.projection.memory.entries:
            use = self.facts.use(entry)
            if use is not None:
                key = sections.trimmed(entry.text)
                found.setdefault((entry.id.rpartition("/")[0], key), use)
                found.setdefault(("", key), use)
        return found

    def day(self, owner: str, key: str) -> dt.datetime | None:
        """The date an Index line shows for ``owner``'s section whose normalized text is ``key``:
        that owner's use of it (two agents' sections with the same words are each their own; one
        that moved in from another owner during this plan is found by its text)."""
        use = self.use_by_text.get((owner, key)) or self.use_by_text.get(("", key))
        return self._local(use)

    def _local(self, use: Use | None) -> dt.datetime | None:
        if use is None or use.when is None:
            return None
        return use.when.astimezone(self.facts.settings.tz)

    def line(self, ident: str, entry: catalog.Entry, tier: str, name: str) -> Arrival:
        """The line ``entry`` will have once it arrives in ``tier`` (its topic's, in the wiki)."""
        return Arrival(ident, entry.title, tier, name, self._local(self.facts.use(entry)))

    def lines(self, agent: str) -> tuple[list[index.Line], dict[str, list[dt.datetime | None]]]:
        """The agent's cold and archive lines, and each wiki topic's section dates, as things stand."""
        lines = []
        for rel, node, ident in self.projection.ids(agent):
            tf = classify(rel, self.projection.places)
            assert tf is not None
            if tf.tier in ("cold", "archive"):
                lines.append(index.Line(ident, node.title, tf.tier, self.day(agent, node.key), rel))
        return lines, self.topics()

    def topics(self) -> dict[str, list[dt.datetime | None]]:
        version = self.projection.wiki_version
        if self._topics is None or self._topics[0] != version:
            found: dict[str, list[dt.datetime | None]] = {}
            for rel in sorted(self.projection.rels()):
                tf = classify(rel, self.projection.places)
                if tf is not None and tf.tier == "wiki":
                    owner = f"wiki:{tf.name}"
                    found[tf.name] = [self.day(owner, node.key) for node in self.projection.doc(rel).nodes()]
            self._topics = (version, found)
        return {topic: list(days) for topic, days in self._topics[1].items()}

    # -- the Index -------------------------------------------------------------------------------
    def model(self, agent: str, doc: index.Doc) -> IndexModel:
        lines, topics = self.lines(agent)
        model = IndexModel(
            lines, topics, self.cap, agent, doc.index_node() is not None, self.projection.places
        )
        return model.dated(self.known_dates(doc))

    def known_dates(self, doc: index.Doc) -> dict[str, dt.datetime]:
        """The dates the hot file's Index shows now, for the lines whose date history cannot tell
        (a shallow clone's boundary): kept, so a refresh never turns known dates into unknown."""
        text = doc.index_text()
        if not text:
            return {}
        tz = self.facts.settings.tz
        return {
            ident: dt.datetime.combine(day, dt.time(), tz) for ident, day in index.listed_dates(text).items()
        }

    def text(self, agent: str) -> str | None:
        """The agent's Index as the projection stands, or None if it should have none."""
        doc = self.projection.doc(self.projection.places.tier_rel("hot", agent))
        return self.model(agent, doc).text()

    def fitted(self, agent: str, doc: index.Doc) -> str | None:
        """The agent's Index as :meth:`text` has it, shortened to keep hot within its budget.

        The budget pass sends sections out to make room for the whole Index. What it
        may not move (a pinned Core Context filling the room, the Session block) must
        not be pushed over the budget by the Index itself: the Index then shows fewer
        lines, down to its last ("and N more"), and is left out ("") when even that
        does not fit. A file over its budget without any Index keeps the whole Index.
        """
        model = self.model(agent, doc)
        wanted = model.text()
        if wanted is None:
            return None
        size, rows = model.base(doc)
        hot = self.facts.settings.hot
        if budget.hot_over(size, rows, hot) is not None:
            return wanted
        if budget.hot_over(*model.total(size, rows), hot) is None:
            return wanted
        for shown in range(self.cap - 1, 0, -1):
            model.cap = shown
            if budget.hot_over(*model.total(size, rows), hot) is None:
                return model.text()
        return ""

    def with_index(self, agent: str) -> str:
        """The agent's hot file with its Index as the projection stands."""
        text = self.projection.text(self.projection.places.tier_rel("hot", agent))
        wanted = self.text(agent)
        if wanted is None:
            return text
        try:
            return index.replace(text, wanted)
        except index.SpliceError:
            return text

    def refreshes(self, agents: Iterable[str]) -> list[IndexRefresh]:
        """The Index rewrites the plan ends with, made in the projection; a warning for each that
        cannot be written."""
        refreshes: list[IndexRefresh] = []
        rels = set(self.projection.rels())
        for agent in agents:
            rel = self.projection.places.tier_rel("hot", agent)
            if rel not in rels:
                continue
            refresh = self._refresh(agent, rel, rels)
            if refresh is not None:
                refreshes.append(refresh)
        return refreshes

    def _refresh(self, agent: str, rel: str, rels: set[str]) -> IndexRefresh | None:
        doc = self.projection.doc(rel)
        wanted = self.fitted(agent, doc)
        if wanted is None or (not wanted and doc.index_node() is None):
            return None
        if doc.index_text() == wanted and doc.tail is not None and doc.tail.index and doc.indexes == 1:
            return None
        before = doc.text()
        try:
            doc.replace_index(wanted)
        except index.SpliceError as exc:
            self.facts.warnings.append(f"{rel}: the Index cannot be written ({exc})")
            return None
        if doc.text() == before:
            return None
        reads = tuple(
            r for t in ("cold", "archive") if (r := self.projection.places.tier_rel(t, agent)) in rels
        )
        day = self.facts.now.astimezone(self.facts.settings.tz).date().isoformat()
        return IndexRefresh(agent, rel, wanted, reads, day if doc.stamp(day) else None)
