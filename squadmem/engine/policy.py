"""The tier rules: from sections, their last uses, the settings and ``now``, a plan of moves.

Pure: no git, no files, no clock. The plan a dry run prints is the object the
real run executes. Order (DESIGN, "Rules"):

1. demotions: a hot section unused for more than ``hot.stale_days`` goes to cold;
2. expiries: a cold section unused for more than ``cold.ttl_days`` goes to the
   wiki when it has ``kind=decision|fact`` (topic ``topic=``, else ``decisions``),
   otherwise to the archive;
3. promotions: a cold or archive section *used* (a ``Squad-Memory-Used`` trailer
   or a pending use, not merely written) within ``promote.window_hours`` comes
   back to hot; with ``promote.rule = "second-use"`` only if it was also used once
   before, at most ``promote.repeat_days`` before that use (else it waits, noted);
4. the budget pass: while a hot file, with its Index as it will be, is over
   ``hot.max_bytes`` or ``hot.max_lines``, its least recently used section goes
   to cold (sections used within the promote window last of all).

Within each step ties break by older last use, then file order. A section moves
at most once per run. Pinned sections, the ``## Session`` block, the Index and
wiki sections never move by the rules, nor does a section whose age is unknown
(a shallow clone's boundary). A promotion must fit: the sections coming back,
most recently used first, must fit the hot budget with every section the
budget pass may send out gone; one that cannot stays, with a warning. So the
budget pass never demotes a section that the promotion rule would bring
straight back, and a second run plans nothing.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import datetime as dt
import functools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Protocol

from squadmem.engine import catalog, index
from squadmem.engine.plan import IndexRefresh, Move, Plan
from squadmem.model import budget, sections
from squadmem.model.clock import days as _days
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, MEMORY_DIR, TIERS, check_name, classify, tier_rel
from squadmem.model.settings import Settings

USE_KINDS = ("trailer", "pending")  # what counts as a use for promotion (not a write)
DEFAULT_TOPIC = "decisions"
Header = Callable[[str, str], str]  # (tier, name) -> the text of a new tier file


class Use(Protocol):
    """A section's last use (``lastuse.LastUse`` has this shape)."""

    @property
    def when(self) -> dt.datetime | None: ...

    @property
    def kind(self) -> str: ...


def _no_header(tier: str, name: str) -> str:
    return ""


# -- ages ----------------------------------------------------------------------------------------


def _age(use: Use | None, now: dt.datetime) -> dt.timedelta | None:
    if use is None or use.when is None:
        return None
    return max(now - use.when, dt.timedelta(0))


def _number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def _ago(delta: dt.timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes}min" if minutes < 60 else f"{minutes // 60}h"


def recently_used(use: Use | None, now: dt.datetime, settings: Settings) -> bool:
    """Used (not written) within the promote window, and not stale by the hot rule either."""
    age = _age(use, now)
    if age is None or use is None or use.kind not in USE_KINDS:
        return False
    return age <= dt.timedelta(hours=settings.promote.window_hours) and _days(age) <= settings.hot.stale_days


def _ruled(entry: catalog.Entry, use: Use | None) -> bool:
    """May the rules move this section at all?"""
    if entry.tier == "wiki" or entry.pinned or entry.is_session or entry.is_index:
        return False
    return use is not None and use.when is not None


# -- the projection of a run ---------------------------------------------------------------------


def _owner(rel: str) -> str:
    tf = classify(rel)
    assert tf is not None
    return tf.owner


def _file_order(rel: str) -> tuple[int, str]:
    tf = classify(rel)
    assert tf is not None
    return TIERS.index(tf.tier), tf.name


class _Projection:
    """Tier files as the moves planned so far leave them, each spliced section by section.

    A move costs what it touches (the section, its neighbours), not the size of the
    files: a file is split once, when a move first touches it (:class:`index.Doc`).
    Ids are followed by owner: a section whose slug is the only one of its owner keeps
    it wherever it goes; only repeated slugs are numbered again over the owner's files.
    """

    def __init__(self, memory: catalog.Memory, header: Header) -> None:
        self.memory = memory
        self.header = header
        self.original = {rel: doc.text for rel, doc in memory.files.items()}
        self.docs: dict[str, index.Doc] = {}
        self.names: dict[str, list[tuple[str, str]]] = {}
        self.bases: dict[str, collections.Counter[str]] = {}
        self.by_owner: dict[str, set[str]] = {}
        self.splits = 0  # whole files split (a test counts them: at most once per file)
        self.wiki_version = 0  # changes whenever a wiki file does
        for rel in memory.files:
            self.by_owner.setdefault(_owner(rel), set()).add(rel)
        for entry in memory.entries:
            base = entry.section.flags.id or sections.slugify(entry.title)
            self.names.setdefault(entry.file, []).append((base, entry.title))
            self.bases.setdefault(_owner(entry.file), collections.Counter())[base] += 1
        self.left_out = memory.left_out

    def writable(self, rel: str, size: int) -> None:
        """Refuse (SpliceError) a splice that would leave ``rel`` a file squadmem refuses to read."""
        if rel in self.left_out:
            raise index.SpliceError(f"{rel} cannot be read: {self.left_out[rel].message}")
        tier = rel.removeprefix(MEMORY_DIR + "/").partition("/")[0]
        if tier in self.memory.blocked:
            raise index.SpliceError(self.memory.blocked[tier].message)
        if size > MAX_FILE_BYTES:
            raise index.SpliceError(f"{rel} would be {size} bytes, over the 1 MiB limit for a tier file")

    # -- files -----------------------------------------------------------------------------------
    def rels(self) -> list[str]:
        return list(dict.fromkeys([*self.original, *self.docs]))

    def text(self, rel: str) -> str:
        if rel in self.docs:
            return self.docs[rel].text()
        return self.original[rel]

    def texts(self) -> dict[str, str]:
        return {rel: self.text(rel) for rel in self.rels()}

    def size(self, rel: str) -> int:
        if rel in self.docs:
            return self.docs[rel].bytes
        return len(self.original[rel].encode("utf-8")) if rel in self.original else 0

    def doc(self, rel: str) -> index.Doc:
        """``rel`` as a Doc, made on first use (a file no tree has yet starts as its template)."""
        found = self.docs.get(rel)
        if found is None:
            if rel in self.memory.files:
                parsed = self.memory.files[rel]
                found = index.Doc(parsed.text, parsed.document, self.names.get(rel, []))
            else:
                tf = classify(rel)
                assert tf is not None
                found = index.Doc(self.header(tf.tier, tf.name))
                self.by_owner.setdefault(tf.owner, set()).add(rel)
            self.splits += 1
            self.docs[rel] = found
        return found

    def owner_files(self, owner: str) -> list[str]:
        return sorted(self.by_owner.get(owner, ()), key=_file_order)

    # -- ids -------------------------------------------------------------------------------------
    def _slugs(
        self, owner: str, skip: index.Node | None = None, put: tuple[str, index.Node] | None = None
    ) -> list[tuple[index.Node, str]]:
        """(node, id) of the owner's sections in id order; ``skip`` left out, ``put`` = (file, node)
        placed where :meth:`index.Doc.insert` would put it (the file is already a Doc)."""
        order: list[index.Node] = []
        for rel in self.owner_files(owner):
            nodes = [n for n in self.doc(rel).nodes() if n is not skip]
            if put is not None and put[0] == rel:
                before = self.doc(rel).index_node()
                at = nodes.index(before) if before is not None and before in nodes else len(nodes)
                nodes.insert(at, put[1])
            order.extend(nodes)
        slugs = sections.assign_slugs([n.base for n in order])
        return [(n, f"{owner}/{slug}") for n, slug in zip(order, slugs, strict=True)]

    def id_of(self, rel: str, node: index.Node) -> str:
        owner = _owner(rel)
        if self.bases[owner][node.base] == 1:
            return f"{owner}/{node.base}"
        return next(ident for n, ident in self._slugs(owner) if n is node)

    def id_after(self, node: index.Node, target: str) -> str:
        """The id ``node`` would have once inserted into ``target`` (same owner)."""
        owner = _owner(target)
        if self.bases[owner][node.base] == 1:
            return f"{owner}/{node.base}"
        return next(ident for n, ident in self._slugs(owner, skip=node, put=(target, node)) if n is node)

    def ids(self, owner: str) -> list[tuple[str, index.Node, str]]:
        """(file, node, id) of every section of ``owner``."""
        found = []
        slugs = iter(self._slugs(owner))
        for rel in self.owner_files(owner):
            for node in self.doc(rel).nodes():
                n, ident = next(slugs)
                assert n is node
                found.append((rel, node, ident))
        return found

    # -- moves -----------------------------------------------------------------------------------
    def move(self, source: str, tier: str, name: str, section_text: str) -> tuple[str, str]:
        """Apply a move; return the section's id (as it is, and stays) and the exact text cut.

        Raises index.SpliceError, changing nothing, if the splice is unsafe or the
        section's id would not follow it (two sections of one agent sharing a title).
        """
        target = tier_rel(tier, name)
        src, dst = self.doc(source), self.doc(target)
        node, section_id, placing = self.check(source, tier, name, section_text)
        src.cut(node)
        dst.insert(node.text, like=node, placing=placing)
        self._rebase(node.base, _owner(source), _owner(target))
        self.wiki_version += tier == "wiki" or _owner(source).startswith("wiki:")
        return section_id, node.text

    def check(
        self, source: str, tier: str, name: str, section_text: str
    ) -> tuple[index.Node, str, index.Placing]:
        """What :meth:`move` would do, changing nothing: the node, its id, where it lands.

        Raises index.SpliceError if the move cannot be made.
        """
        target = tier_rel(tier, name)
        src = self.doc(source)
        node = src.find(section_text)
        if node is None:
            raise index.SpliceError(f"{source} does not hold the section")
        section_id = self.id_of(source, node)
        dst = self.doc(target)
        src.check_remove(node)
        placing = dst.check_insert(node.text)
        self.writable(target, dst.bytes + len(node.text.encode("utf-8")) + 1)
        if tier != "wiki":
            arrived = self.id_after(node, target)
            if arrived != section_id:
                raise index.SpliceError(
                    f"its id would become {arrived}: another section has the same title; give one an id= flag"
                )
        return node, section_id, placing

    def _rebase(self, base: str, old: str | None, new: str) -> None:
        if old == new:
            return
        if old is not None:
            self.bases[old][base] -= 1
        self.bases.setdefault(new, collections.Counter())[base] += 1

    def insert(self, tier: str, name: str, section_text: str) -> str:
        """Add a section from outside (a restore); return the id it gets."""
        target = tier_rel(tier, name)
        self.writable(target, self.doc(target).bytes + len(section_text.encode("utf-8")) + 1)
        node = self.doc(target).insert(section_text)
        self._rebase(node.base, None, _owner(target))
        self.wiki_version += tier == "wiki"
        return self.id_of(target, node)


@dataclasses.dataclass(frozen=True)
class _Candidate:
    entry: catalog.Entry
    tier: str
    name: str
    rule: str
    reason: str
    why: str


@dataclasses.dataclass
class _Planner:
    memory: catalog.Memory
    uses: Mapping[str, Use]
    settings: Settings
    now: dt.datetime
    agent: str | None
    projection: _Projection
    moves: list[Move] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    moved: set[str] = dataclasses.field(default_factory=set)
    stuck: set[str] = dataclasses.field(default_factory=set)  # moves refused as unsafe
    refused: dict[str, str] = dataclasses.field(default_factory=dict)  # promotions that did not fit: why
    batch: list[_Candidate] = dataclasses.field(default_factory=list)
    deferred: list[_Candidate] = dataclasses.field(default_factory=list)
    demoted: Mapping[str, dt.datetime] = dataclasses.field(default_factory=dict)
    previous: Mapping[str, dt.datetime] = dataclasses.field(default_factory=dict)
    waiting: list[str] = dataclasses.field(default_factory=list)  # promotions second-use holds back
    _topics: tuple[int, dict[str, list[dt.datetime | None]]] | None = None

    def use(self, entry: catalog.Entry) -> Use | None:
        return self.uses.get(entry.id)

    def selected(self, tier: str) -> list[catalog.Entry]:
        found = [e for e in self.memory.entries if e.tier == tier and (self.agent in (None, e.name))]
        return sorted(found, key=self.tie_key)

    def tie_key(self, entry: catalog.Entry) -> tuple[dt.datetime, int, str, int]:
        use = self.use(entry)
        when = (
            use.when if use is not None and use.when is not None else dt.datetime.max.replace(tzinfo=dt.UTC)
        )
        return (when, TIERS.index(entry.tier), entry.name, entry.position)

    def add(self, entry: catalog.Entry, tier: str, name: str, rule: str, reason: str, why: str) -> None:
        """Queue a move of the current step (see :meth:`flush`)."""
        self.batch.append(_Candidate(entry, tier, name, rule, reason, why))

    def flush(self, final: bool = False) -> None:
        """Make the queued moves, in order; retry those refused while others still land.

        A move can be refused because its id would change (two sections of one agent
        sharing a title) only until another move has gone first, possibly in a later
        step: refused moves wait, and are tried once more after the last step (``final``).
        """
        pending, errors = self.batch, {}
        self.batch = []
        while pending:
            left = []
            for candidate in pending:
                error = self.attempt(
                    candidate.entry,
                    candidate.tier,
                    candidate.name,
                    candidate.rule,
                    candidate.reason,
                    candidate.why,
                )
                if error is not None:
                    left.append(candidate)
                    errors[candidate.entry.id] = error
            if len(left) == len(pending):
                break
            pending = left
        if not final:
            self.deferred.extend(pending)
            return
        for candidate in pending:
            self.refuse(candidate.entry, candidate.tier, errors[candidate.entry.id])

    def retry_deferred(self) -> None:
        self.batch, self.deferred = self.deferred, []
        self.flush(final=True)

    def refuse(self, entry: catalog.Entry, tier: str, error: str) -> None:
        self.warnings.append(f"{entry.id} stays in {entry.file}: it cannot move to {tier} ({error})")
        self.stuck.add(entry.id)

    def attempt(
        self, entry: catalog.Entry, tier: str, name: str, rule: str, reason: str, why: str
    ) -> str | None:
        """Make one move in the projection; None, or why it cannot be made."""
        try:
            section_id, cut = self.projection.move(entry.file, tier, name, entry.text)
        except index.SpliceError as exc:
            return str(exc)
        use = self.use(entry)
        self.moves.append(
            Move(
                id=section_id,
                title=entry.title,
                agent=entry.name,
                source=entry.file,
                source_tier=entry.tier,
                source_name=entry.name,
                target=tier_rel(tier, name),
                target_tier=tier,
                target_name=name,
                rule=rule,
                reason=reason,
                why=why,
                text=cut,
                last_used=use.when if use is not None else None,
            )
        )
        self.moved.add(entry.id)
        return None

    # -- the four steps --------------------------------------------------------------------------
    def demotions(self) -> None:
        limit = self.settings.hot.stale_days
        for entry in self.selected("hot"):
            age = _age(self.use(entry), self.now)
            if not _ruled(entry, self.use(entry)) or age is None or _days(age) <= limit:
                continue
            expiry = self.expiry(entry, age)
            if expiry is not None:  # it would expire from cold at once: straight to where it ends up
                self.add(entry, *expiry)
                continue
            days = budget.days_text(_days(age), limit)
            reason = f"stale {days}d > {_number(limit)}d"
            why = f"unused {days} d > {_number(limit)} d (hot.stale_days)"
            self.add(entry, "cold", entry.name, "stale", reason, why)
        self.flush()

    def expiries(self) -> None:
        for entry in self.selected("cold"):
            age = _age(self.use(entry), self.now)
            if entry.id in self.moved or not _ruled(entry, self.use(entry)) or age is None:
                continue
            expiry = self.expiry(entry, age)
            if expiry is not None:
                self.add(entry, *expiry)
        self.flush()

    def expiry(self, entry: catalog.Entry, age: dt.timedelta) -> tuple[str, str, str, str, str] | None:
        """(tier, name, rule, reason, why) if ``entry`` is past the cold TTL, else None."""
        limit = self.settings.cold.ttl_days
        if _days(age) <= limit:
            return None
        tier, name = self.expiry_target(entry)
        if not name:
            return None
        days = budget.days_text(_days(age), limit)
        where = f"the wiki ({name})" if tier == "wiki" else "the archive"
        why = f"unused {days} d > {_number(limit)} d (cold.ttl_days): to {where}"
        return tier, name, "ttl", f"ttl {days}d > {_number(limit)}d", why

    def expiry_target(self, entry: catalog.Entry) -> tuple[str, str]:
        if entry.kind not in ("decision", "fact"):
            return "archive", entry.name
        topic = entry.section.flags.topic or DEFAULT_TOPIC
        try:
            return "wiki", check_name(topic, "topic")
        except SquadmemError:
            self.warnings.append(f"{entry.id} stays in cold: topic={topic!r} is not a valid topic name")
            return "wiki", ""

    def promotions(self) -> None:
        window = self.settings.promote.window_hours
        candidates = self.selected("cold") + self.selected("archive")
        wanted: dict[str, list[catalog.Entry]] = {}
        for entry in sorted(candidates, key=self.tie_key):
            use = self.use(entry)
            if (
                entry.id in self.moved
                or not _ruled(entry, use)
                or not recently_used(use, self.now, self.settings)
                or self.demoted_since(entry, use)
            ):
                continue
            if not self.used_twice(entry, use):
                self.waiting.append(
                    f"{entry.id} stays in {entry.tier}: used once; second-use promotion waits for a second "
                    f"use (promote.rule, within {_number(self.settings.promote.repeat_days)} d)"
                )
                continue
            wanted.setdefault(entry.name, []).append(entry)
        admitted: set[str] = set()
        for agent, group in wanted.items():
            fits, refused = self.admit(agent, group, self.settings.hot.index_max_entries)
            admitted.update(e.id for e in fits)
            for entry in fits:
                self.refused.pop(entry.id, None)
            for entry, over in refused:
                self.refused[entry.id] = (
                    f"{entry.id} stays in {entry.tier}: promoting it ({entry.bytes} B) would put "
                    f"{tier_rel('hot', agent)} over budget ({over}) even with every other movable "
                    "section out"
                )
        for entry in sorted(candidates, key=self.tie_key):
            if entry.id not in admitted:
                continue
            age = _age(self.use(entry), self.now)
            assert age is not None
            ago = _ago(age)
            why = f"used {ago} ago, within the {_number(window)} h promote window (promote.window_hours)"
            if self.settings.promote.rule == "second-use":
                why += ", and used before that (promote.rule second-use)"
            self.add(entry, "hot", entry.name, "used", f"used {ago} ago", why)
        self.flush()

    def used_twice(self, entry: catalog.Entry, use: Use | None) -> bool:
        """Does the promotion rule let this recent use promote? Always under ``first-use``; under
        ``second-use`` only if the use before it came at most ``promote.repeat_days`` earlier (and
        after any demotion by hand)."""
        promote = self.settings.promote
        if promote.rule != "second-use":
            return True
        before = self.previous.get(entry.id)
        if before is None or use is None or use.when is None:
            return False
        demoted = self.demoted.get(entry.id)
        if demoted is not None and before <= demoted:
            return False
        return _days(use.when - before) <= promote.repeat_days

    def demoted_since(self, entry: catalog.Entry, use: Use | None) -> bool:
        """Moved out of hot by hand at or after its last use: a use from before does not bring it back."""
        when = self.demoted.get(entry.id)
        return when is not None and use is not None and use.when is not None and use.when <= when

    # -- budgets ---------------------------------------------------------------------------------
    @functools.cached_property
    def by_file(self) -> dict[str, list[catalog.Entry]]:
        found: dict[str, list[catalog.Entry]] = {}
        for entry in self.memory.entries:
            found.setdefault(entry.file, []).append(entry)
        return found

    def evictable(self, entry: catalog.Entry, recent: bool = False) -> bool:
        """May the budget pass send this hot section out? First those not used within the promote
        window; only when they are all out, the recently used ones (``recent``): the promotion rule
        does not bring them back, since a promotion must fit the budget they broke."""
        use = self.use(entry)
        if entry.id in self.moved or entry.id in self.stuck or not _ruled(entry, use):
            return False
        return recent or not recently_used(use, self.now, self.settings)

    def budget_candidates(self, rel: str) -> list[catalog.Entry]:
        return sorted(self.by_file.get(rel, []), key=self.tie_key)

    def budget_target(self, entry: catalog.Entry, agent: str, over: str) -> tuple[str, str, str, str, str]:
        rel = tier_rel("hot", agent)
        age = _age(self.use(entry), self.now)
        unused = f"unused {budget.days_text(_days(age))} d" if age is not None else "age unknown"
        why = f"{rel} is over budget ({over}); this is its least recently used section ({unused})"
        target = ("cold", agent, "budget", f"over budget {over}", why)
        expired = self.expiry(entry, age) if age is not None else None
        return expired or target

    def admit(
        self, agent: str, group: list[catalog.Entry], cap: int
    ) -> tuple[list[catalog.Entry], list[tuple[catalog.Entry, str]]]:
        """Which of ``group`` (sections to promote into the agent's hot file) fit its budget once
        every section the budget pass may send out is out; the most recently used first."""
        rel = tier_rel("hot", agent)
        doc = (
            self.projection.doc(rel)
            if rel in self.projection.rels()
            else index.Doc(self.projection.header("hot", agent))
        )
        model = self.index_model(agent, cap, doc)
        size, rows = model.base(doc)
        # A section sharing its id's slug with a newcomer may be unable to leave once the newcomer is
        # in (their ids would swap): it is not counted as room.
        arriving = {catalog.base(e.section) for e in group}
        for entry in self.budget_candidates(rel):
            if (
                self.evictable(entry)
                and catalog.base(entry.section) not in arriving
                and self.movable(entry, *self.where_out(entry))
            ):
                size, rows = size - entry.bytes, rows - entry.lines
                tier, name = self.where_out(entry)
                model.arrive(self.index_line(entry.id, entry, tier, name))
        fits, refused = [], []
        projected = self.projected_ids(agent)
        for entry in sorted(group, key=self.tie_key, reverse=True):
            line = model.leave(projected.get((entry.file, sections.trimmed(entry.text)), entry.id))
            grown = size + entry.bytes + (0 if index.ends_line(entry.text) else 1), rows + entry.lines
            over = budget.hot_over(*model.total(*grown), self.settings.hot)
            if over is None:
                fits.append(entry)
                size, rows = grown
            else:
                refused.append((entry, over))
                if line is not None:
                    model.arrive(line)
        return fits, refused

    def projected_ids(self, agent: str) -> dict[tuple[str, str], str]:
        """The id each of the agent's sections will have once the plan so far is carried out, by
        (file, trimmed text): the Index names sections by those ids, not by today's."""
        found: dict[tuple[str, str], str] = {}
        for rel, node, ident in self.projection.ids(agent):
            found.setdefault((rel, node.key), ident)
        return found

    def movable(self, entry: catalog.Entry, tier: str, name: str) -> bool:
        """Could ``entry`` move there now (its splices safe, its id kept)?"""
        try:
            self.projection.check(entry.file, tier, name, entry.text)
        except index.SpliceError:
            return False
        return True

    def where_out(self, entry: catalog.Entry) -> tuple[str, str]:
        """Where the budget pass would send ``entry``: cold, or where it expires to."""
        age = _age(self.use(entry), self.now)
        if age is not None and _days(age) > self.settings.cold.ttl_days:
            tier, name = self.expiry_target(entry)
            if name:
                return tier, name
        return "cold", entry.name

    def budgets(self, cap: int) -> None:
        """Each hot file over budget sends out its least recently used sections until it fits.

        Another agent's move into the wiki changes every Index's topic line: files are
        checked again until none changes.
        """
        for _ in range(len(self.hot_agents()) + 2):
            if not any([self.budget(agent, cap) for agent in self.hot_agents()]):
                break

    def budget(self, agent: str, cap: int) -> bool:
        """One hot file's budget pass; whether it moved anything.

        Sizes are followed as sections leave (bytes and lines subtracted, the Index
        rendered from lines kept in order): a pass costs what it moves. Where the
        followed size says it fits, the file is measured whole; should the two ever
        disagree, the pass measures whole from then on.
        """
        rel = tier_rel("hot", agent)
        doc = self.projection.doc(rel)
        model = self.index_model(agent, cap, doc)
        ordered = self.budget_candidates(rel)
        victims = iter(ordered)
        recent: Iterator[catalog.Entry] | None = None  # used within the window: they go last
        hot, whole, moved = self.settings.hot, False, False
        while True:
            over = budget.hot_over(*model.total(*model.base(doc)), hot) if not whole else None
            if over is None:
                over = budget.hot_over(*budget.measure(self.with_index(agent, cap)), hot)
                if over is None:
                    return moved
                whole = True
            victim = next((e for e in victims if self.evictable(e)), None)
            if victim is None:
                if recent is None:
                    recent = iter(self.fewest_recent(agent, cap, doc, ordered))
                victim = next((e for e in recent if self.evictable(e, recent=True)), None)
            if victim is None:
                if budget.hot_over(*model.base(doc), hot) is None:
                    return moved  # only the whole Index does not fit: it is written shorter (fitted_index)
                self.warnings.append(
                    f"{rel} stays over budget ({over}): nothing left in it may move (pinned, the Session "
                    "block, the Index or of unknown age)"
                )
                return moved
            target = self.budget_target(victim, agent, over)
            error = self.attempt(victim, *target)
            if error is not None:
                self.refuse(victim, target[0], error)
                continue
            moved = True
            model.arrive(self.index_line(self.moves[-1].id, victim, target[0], target[1]))

    def fewest_recent(
        self, agent: str, cap: int, doc: index.Doc, ordered: list[catalog.Entry]
    ) -> list[catalog.Entry]:
        """The recently used sections of a hot file still over budget, in the order the budget pass
        sends them out: first the fewest that make it fit (least recently used first, then any the
        file could keep after all taken back, since the next plan would promote those again), then
        the rest, should a move be refused."""
        candidates = [
            e for e in ordered if self.evictable(e, recent=True) and self.movable(e, *self.where_out(e))
        ]
        model = self.index_model(agent, cap, doc)
        size, rows = model.base(doc)
        chosen: list[catalog.Entry] = []
        for entry in candidates:
            if budget.hot_over(*model.total(size, rows), self.settings.hot) is None:
                break
            chosen.append(entry)
            size, rows = size - entry.bytes, rows - entry.lines
            model.arrive(self.index_line(entry.id, entry, *self.where_out(entry)))
        if len(chosen) <= _FEWEST_TRIES:  # each try renders the Index anew
            for entry in reversed(chosen[:]):
                rest = [e for e in chosen if e is not entry]
                if self.fits_without(agent, cap, doc, rest):
                    chosen = rest
        first = {e.id for e in chosen}
        return chosen + [e for e in ordered if e.id not in first]

    def fits_without(self, agent: str, cap: int, doc: index.Doc, leaving: list[catalog.Entry]) -> bool:
        """Would the agent's hot file fit its budget with ``leaving`` sent out?"""
        model = self.index_model(agent, cap, doc)
        size, rows = model.base(doc)
        for entry in leaving:
            size, rows = size - entry.bytes, rows - entry.lines
            model.arrive(self.index_line(entry.id, entry, *self.where_out(entry)))
        return budget.hot_over(*model.total(size, rows), self.settings.hot) is None

    # -- the Index -------------------------------------------------------------------------------
    def hot_agents(self) -> list[str]:
        names = set()
        for rel in self.projection.rels():
            tf = classify(rel)
            if tf is not None and tf.tier == "hot" and self.agent in (None, tf.name):
                names.add(tf.name)
        return sorted(names)

    def day(self, owner: str, key: str) -> dt.datetime | None:
        """The date an Index line shows for ``owner``'s section whose normalized text is ``key``:
        that owner's use of it (two agents' sections with the same words are each their own; one
        that moved in from another owner during this plan is found by its text)."""
        use = self.use_by_text.get((owner, key)) or self.use_by_text.get(("", key))
        return self._local(use)

    def _local(self, use: Use | None) -> dt.datetime | None:
        return use.when.astimezone(self.settings.tz) if use is not None and use.when is not None else None

    def index_line(self, ident: str, entry: catalog.Entry, tier: str, name: str) -> _Arrival:
        return _Arrival(ident, entry.title, tier, name, self._local(self.use(entry)))

    def index_lines(self, agent: str) -> tuple[list[index.Line], dict[str, list[dt.datetime | None]]]:
        """The agent's cold and archive lines, and each wiki topic's section dates, as things stand."""
        lines = []
        for rel, node, ident in self.projection.ids(agent):
            tf = classify(rel)
            assert tf is not None
            if tf.tier in ("cold", "archive"):
                lines.append(index.Line(ident, node.title, tf.tier, self.day(agent, node.key)))
        return lines, self.topics()

    def topics(self) -> dict[str, list[dt.datetime | None]]:
        version = self.projection.wiki_version
        if self._topics is None or self._topics[0] != version:
            found: dict[str, list[dt.datetime | None]] = {}
            for rel in sorted(self.projection.rels()):
                tf = classify(rel)
                if tf is not None and tf.tier == "wiki":
                    owner = f"wiki:{tf.name}"
                    found[tf.name] = [self.day(owner, node.key) for node in self.projection.doc(rel).nodes()]
            self._topics = (version, found)
        return {topic: list(days) for topic, days in self._topics[1].items()}

    def index_model(self, agent: str, cap: int, doc: index.Doc) -> _IndexModel:
        lines, topics = self.index_lines(agent)
        return _IndexModel(lines, topics, cap, agent, doc.index_node() is not None)

    def index_text(self, agent: str, cap: int) -> str | None:
        """The agent's Index as the projection stands, or None if it should have none."""
        rel = tier_rel("hot", agent)
        doc = self.projection.doc(rel)
        return self.index_model(agent, cap, doc).text()

    def fitted_index(self, agent: str, cap: int, doc: index.Doc) -> str | None:
        """The agent's Index as :meth:`index_text` has it, shortened to keep hot within its budget.

        The budget pass sends sections out to make room for the whole Index. What it
        may not move (a pinned Core Context filling the room, the Session block) must
        not be pushed over the budget by the Index itself: the Index then shows fewer
        lines, down to its last ("and N more"), and is left out ("") when even that
        does not fit. A file over its budget without any Index keeps the whole Index.
        """
        model = self.index_model(agent, cap, doc)
        wanted = model.text()
        if wanted is None:
            return None
        size, rows = model.base(doc)
        hot = self.settings.hot
        if budget.hot_over(size, rows, hot) is not None:
            return wanted
        if budget.hot_over(*model.total(size, rows), hot) is None:
            return wanted
        for shown in range(cap - 1, 0, -1):
            model.cap = shown
            if budget.hot_over(*model.total(size, rows), hot) is None:
                return model.text()
        return ""

    def with_index(self, agent: str, cap: int) -> str:
        text = self.projection.text(tier_rel("hot", agent))
        wanted = self.index_text(agent, cap)
        if wanted is None:
            return text
        try:
            return index.replace(text, wanted)
        except index.SpliceError:
            return text

    @functools.cached_property
    def use_by_text(self) -> dict[tuple[str, str], Use]:
        """(owner, normalized text) -> its use; ("", text) -> the first owner's, for a section that
        changes owner during the plan."""
        found: dict[tuple[str, str], Use] = {}
        for entry in self.memory.entries:
            use = self.use(entry)
            if use is not None:
                key = sections.trimmed(entry.text)
                found.setdefault((entry.id.rpartition("/")[0], key), use)
                found.setdefault(("", key), use)
        return found

    def refreshes(self, cap: int, agents: Iterable[str]) -> list[IndexRefresh]:
        refreshes: list[IndexRefresh] = []
        rels = set(self.projection.rels())
        for agent in agents:
            rel = tier_rel("hot", agent)
            if rel not in rels:
                continue
            doc = self.projection.doc(rel)
            wanted = self.fitted_index(agent, cap, doc)
            if wanted is None or (not wanted and doc.index_node() is None):
                continue
            if doc.index_text() == wanted and doc.tail is not None and doc.tail.index and doc.indexes == 1:
                continue
            before = doc.text()
            try:
                doc.replace_index(wanted)
            except index.SpliceError as exc:
                self.warnings.append(f"{rel}: the Index cannot be written ({exc})")
                continue
            if doc.text() == before:
                continue
            reads = tuple(r for t in ("cold", "archive") if (r := tier_rel(t, agent)) in rels)
            refreshes.append(IndexRefresh(agent, rel, wanted, reads))
        return refreshes

    def cold_warnings(self, advise: bool) -> None:
        limit = budget.limits("cold", self.settings)
        for rel in sorted(self.projection.rels()):
            tf = classify(rel)
            if tf is None or tf.tier != "cold" or self.agent not in (None, tf.name):
                continue
            size = self.projection.size(rel)
            if budget.over(size, 0, limit) is None:
                continue
            warning = f"{rel} is {size} B, over cold.max_bytes {limit.max_bytes} B"
            if advise:
                fix = cold_fix(
                    self.memory, self.uses, self.settings, self.now, rel, self.demoted, self.previous
                )
                warning += f"; {fix.advice}" if fix else "; nothing the rules may move brings it under"
            self.warnings.append(warning)

    def unknown_ages(self) -> None:
        unknown = [
            e.id
            for e in self.memory.entries
            if self.agent in (None, e.name)
            and _age(self.use(e), self.now) is None
            and not (e.tier == "wiki" or e.pinned or e.is_session or e.is_index)
        ]
        if unknown:
            self.warnings.append(
                f"{len(unknown)} section(s) of unknown age stay where they are: {', '.join(unknown[:5])}"
                + (" ..." if len(unknown) > 5 else "")
            )

    def result(self, refreshes: list[IndexRefresh]) -> Plan:
        warnings = tuple(dict.fromkeys([*self.warnings, *self.refused.values()]))
        waiting = tuple(dict.fromkeys(self.waiting))
        return Plan(self.now, tuple(self.moves), tuple(refreshes), warnings, self.projection.texts(), waiting)


@dataclasses.dataclass(frozen=True)
class _Arrival:
    """A section leaving hot, as its agent's Index will list it: its own line, or its topic's."""

    id: str
    title: str
    tier: str
    name: str
    when: dt.datetime | None


_LATEST = dt.datetime.max.replace(tzinfo=dt.UTC)
# The most recently used sections a budget pass checks one by one for a place back in hot: beyond
# this many, it sends them out least recently used first without checking.
_FEWEST_TRIES = 64


def _order_key(line: index.Line) -> tuple[int, dt.timedelta, str]:
    """index.order's order as a key: newest first, unknown dates last, then by id."""
    if line.last_used is None:
        return (1, dt.timedelta(0), line.id)
    return (0, _LATEST - line.last_used, line.id)


class _IndexModel:
    """An agent's Index lines kept in order as sections come and go; renders only what it shows."""

    def __init__(
        self,
        lines: list[index.Line],
        topics: dict[str, list[dt.datetime | None]],
        cap: int,
        agent: str,
        present: bool,
    ) -> None:
        self.cap, self.agent, self.present = cap, agent, present
        self.topics = topics
        ordered = sorted(lines + [_topic_line(t, d) for t, d in topics.items()], key=_order_key)
        self.keys = [_order_key(x) for x in ordered]
        self.lines = ordered
        self.by_id = {x.id: x for x in ordered}

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

    def arrive(self, item: _Arrival | index.Line) -> None:
        """A section arrives in cold or the archive (its line) or the wiki (its topic's line changes)."""
        if isinstance(item, index.Line):
            self._add(item)
            return
        if item.tier != "wiki":
            self._add(index.Line(item.id, item.title, item.tier, item.when))
            return
        self.leave(f"wiki:{item.name}")
        days = self.topics.setdefault(item.name, [])
        days.append(item.when)
        self._add(_topic_line(item.name, days))

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
        if last_text and not index.ends_line(last_text) and self.text() is not None:
            size += 1
        return size, rows

    def total(self, size: int, rows: int) -> tuple[int, int]:
        """The hot file's bytes and lines with the Index this model renders."""
        wanted = self.text()
        if wanted is None:
            return size, rows
        return size + len(wanted.encode("utf-8")), rows + budget.count_lines(wanted)


def _topic_line(topic: str, days: list[dt.datetime | None]) -> index.Line:
    known = [d for d in days if d is not None]
    count = f"{len(days)} section" + ("" if len(days) == 1 else "s")
    return index.Line(f"wiki:{topic}", count, "wiki", max(known) if known else None)


def _planner(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    agent: str | None,
    header: Header | None,
    demoted: Mapping[str, dt.datetime] | None = None,
    previous: Mapping[str, dt.datetime] | None = None,
) -> _Planner:
    projection = _Projection(memory, header or _no_header)
    return _Planner(
        memory, uses, settings, now, agent, projection, demoted=demoted or {}, previous=previous or {}
    )


def plan(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    *,
    agent: str | None = None,
    header: Header | None = None,
    demoted: Mapping[str, dt.datetime] | None = None,
    advise: bool = True,
    previous: Mapping[str, dt.datetime] | None = None,
) -> Plan:
    """What ``squadmem maintain`` does: the moves, in order, then the Index refreshes.

    ``demoted``: when sections were last moved out of hot by hand (``demote``); a use
    from before that does not promote them again. ``previous``: each section's use before
    its last (``lastuse.previous_uses``), read by ``promote.rule = "second-use"``. ``advise``:
    a cold file left over its budget gets a warning naming the ``--cold-ttl-days`` that fixes
    it (:func:`cold_fix`).
    """
    planner = _planner(memory, uses, settings, now, agent, header, demoted, previous)
    planner.demotions()
    planner.expiries()
    planner.promotions()
    planner.retry_deferred()
    cap = settings.hot.index_max_entries
    planner.budgets(cap)
    if planner.refused:  # the budget pass may have made the room a refused promotion needed
        planner.promotions()
        planner.budgets(cap)
    refreshes = planner.refreshes(cap, planner.hot_agents())
    planner.cold_warnings(advise)
    planner.unknown_ages()
    return planner.result(refreshes)


@dataclasses.dataclass(frozen=True)
class ColdFix:
    """A ``cold.ttl_days`` that brings a cold file under ``cold.max_bytes``, proved by planning with it."""

    file: str
    agent: str
    ttl_days: float
    ids: tuple[str, ...]  # the sections that leave the file
    size: int  # the file's bytes after that run

    @property
    def command(self) -> str:
        return f"squadmem maintain --agent {self.agent} --cold-ttl-days {_number(self.ttl_days)}"

    @property
    def advice(self) -> str:
        shown = ", ".join(self.ids[:5]) + (f" and {len(self.ids) - 5} more" if len(self.ids) > 5 else "")
        return f"run: {self.command} (moves out {shown}; {self.size} B after)"


def _own_memory(memory: catalog.Memory, agent: str) -> catalog.Memory:
    """An agent's tier files and the wiki: all that an ``--agent`` plan reads (ids are per owner)."""

    def mine(rel: str) -> bool:
        tf = classify(rel)
        return tf is not None and (tf.tier == "wiki" or tf.name == agent)

    files = {rel: doc for rel, doc in memory.files.items() if mine(rel)}
    return catalog.Memory(files, tuple(e for e in memory.entries if e.file in files))


def _below(days: float) -> float:
    """A round TTL just under an age of ``days``, so that the age is over it."""
    for step in (1, 10, 100):
        value = math.floor(days * step) / step
        if value < days:
            return value
    return max(days - 0.001, 0.0)


def cold_fix(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    rel: str,
    demoted: Mapping[str, dt.datetime] | None = None,
    previous: Mapping[str, dt.datetime] | None = None,
) -> ColdFix | None:
    """The largest ``cold.ttl_days`` under which ``maintain`` leaves the cold file ``rel`` within
    ``cold.max_bytes`` (the agent's whole plan is made to prove it), or None if no TTL does."""
    tf = classify(rel)
    assert tf is not None and tf.tier == "cold"
    ages = sorted(
        {
            _days(age)
            for e in memory.entries
            if e.file == rel and _ruled(e, uses.get(e.id)) and (age := _age(uses.get(e.id), now)) is not None
        },
        reverse=True,
    )
    ttls = sorted({_below(a) for a in ages if _below(a) < settings.cold.ttl_days}, reverse=True)

    own = _own_memory(memory, tf.name)

    def attempt(ttl: float) -> ColdFix | None:
        conf = settings.replace(cold={"ttl_days": ttl})
        made = plan(own, uses, conf, now, agent=tf.name, demoted=demoted, advise=False, previous=previous)
        size = len(made.files.get(rel, "").encode("utf-8"))
        if budget.over(size, 0, budget.limits("cold", settings)) is not None:
            return None
        gone = tuple(m.id for m in made.moves if m.source == rel)
        return ColdFix(rel, tf.name, ttl, gone, size)

    lo, hi, best = 0, len(ttls) - 1, None
    while lo <= hi:  # the largest TTL that works: fewer moves than any smaller one
        mid = (lo + hi) // 2
        found = attempt(ttls[mid])
        if found is not None:
            best, hi = found, mid - 1
        else:
            lo = mid + 1
    return best


def manual(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    entry: catalog.Entry,
    target_tier: str,
    target_name: str,
    *,
    header: Header | None = None,
) -> Plan:
    """One move asked for by name (``promote`` / ``demote``), then the agent's Index refresh.

    The caller has checked that the target differs from where the section is. A move
    into hot counts as a use of the section, so the stale rule does not send it straight back.
    A promotion into a hot file makes room first (its least recently used sections that the
    budget pass may move go out, each a move of its own), and is refused if even that is not
    enough.
    """
    planner = _planner(memory, uses, settings, now, None, header)
    cap = settings.hot.index_max_entries
    if target_tier == "hot":
        _, refused = planner.admit(target_name, [entry], cap)
        if refused:
            raise SquadmemError(
                f"{entry.id} ({entry.bytes} B) does not fit in {tier_rel('hot', target_name)}: "
                f"it would be over budget ({refused[0][1]}) even with every movable section out",
                hint="raise hot.max_bytes / hot.max_lines in tiers.toml, unpin sections, or split it",
            )
    if target_tier in memory.blocked:
        raise memory.blocked[target_tier]
    error = planner.attempt(entry, target_tier, target_name, "manual", "manual", "moved by hand")
    if error is not None:
        raise SquadmemError(
            f"{entry.id} cannot move to {tier_rel(target_tier, target_name)}: {error}",
            hint="fix what the message names (close a code block, give an id= flag, cut the file down),"
            " then try again",
        )
    if target_tier == "hot":
        planner.moves[0] = dataclasses.replace(planner.moves[0], used=(planner.moves[0].id,))
        planner.budget(target_name, cap)
    refreshes = planner.refreshes(cap, [entry.name])
    return planner.result(refreshes)


def restore(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    *,
    title: str,
    text: str,
    target_tier: str,
    target_name: str,
    rev: str,
    header: Header | None = None,
) -> Plan:
    """Put a section taken from history (at ``rev``) back into a tier file, counted as a use."""
    planner = _planner(memory, uses, settings, now, None, header)
    if target_tier in memory.blocked:
        raise memory.blocked[target_tier]
    try:
        section_id = planner.projection.insert(target_tier, target_name, text)
    except index.SpliceError as exc:
        raise SquadmemError(
            f"{title!r} cannot be restored into {tier_rel(target_tier, target_name)}: {exc}"
        ) from None
    planner.moves.append(
        Move(
            id=section_id,
            title=title,
            agent=target_name if target_tier != "wiki" else f"wiki:{target_name}",
            source=None,
            source_tier="history",
            source_name="history",
            target=tier_rel(target_tier, target_name),
            target_tier=target_tier,
            target_name=target_name,
            rule="restore",
            reason="manual",
            why=f"restored from {rev[:12]}",
            text=text,
            used=(section_id,),
            restore_rev=rev,
        )
    )
    agents = [target_name] if target_tier != "wiki" else []
    return planner.result(planner.refreshes(settings.hot.index_max_entries, agents))
