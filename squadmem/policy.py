"""The tier rules: from sections, their last uses, the settings and ``now``, a plan of moves.

Pure: no git, no files, no clock. The plan a dry run prints is the object the
real run executes. Order (DESIGN, "Rules"):

1. demotions: a hot section unused for more than ``hot.stale_days`` goes to cold;
2. expiries: a cold section unused for more than ``cold.ttl_days`` goes to the
   wiki when it has ``kind=decision|fact`` (topic ``topic=``, else ``decisions``),
   otherwise to the archive;
3. promotions: a cold or archive section *used* (a ``Squad-Memory-Used`` trailer
   or a pending use, not merely written) within ``promote.window_hours`` comes
   back to hot;
4. the budget pass: while a hot file, with its Index as it will be, is over
   ``hot.max_bytes`` or ``hot.max_lines``, its least recently used section goes
   to cold.

Within each step ties break by older last use, then file order. A section moves
at most once per run. Pinned sections, the ``## Session`` block, the Index and
wiki sections never move by the rules, nor does a section whose age is unknown
(a shallow clone's boundary). The budget pass never demotes a section that the
promotion rule would bring straight back, so a second run plans nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from squadmem import catalog, index, render, sections
from squadmem.errors import SquadmemError
from squadmem.layout import MAX_FILE_BYTES, TIERS, check_name, classify, tier_rel
from squadmem.settings import Settings

USE_KINDS = ("trailer", "pending")  # what counts as a use for promotion (not a write)
DEFAULT_TOPIC = "decisions"
Header = Callable[[str, str], str]  # (tier, name) -> the text of a new tier file


class Use(Protocol):
    """A section's last use (``history.LastUse`` has this shape)."""

    @property
    def when(self) -> dt.datetime | None: ...

    @property
    def kind(self) -> str: ...


def _no_header(tier: str, name: str) -> str:
    return ""


@dataclasses.dataclass(frozen=True)
class Move:
    """One section going from one tier file to another: one commit."""

    id: str
    title: str
    agent: str  # whose memory: the agent of the source (or, restoring, of the destination)
    source: str | None  # repository path of the source tier file; None when restoring from history
    source_tier: str  # hot, cold, archive, wiki or history
    source_name: str
    target: str
    target_tier: str
    target_name: str  # agent, or wiki topic
    rule: str  # stale, ttl, used, budget, manual or restore
    reason: str  # short, for the Squad-Memory-Reason trailer
    why: str  # a sentence, for the commit body
    text: str  # the section's exact text as it leaves the source
    last_used: dt.datetime | None = None
    used: tuple[str, ...] = ()  # ids this move counts as used (a manual promote, a restore)
    restore_rev: str | None = None

    @property
    def verb(self) -> str:
        if self.rule == "restore":
            return "restore"
        if self.target_tier == "archive":
            return "archive"
        if self.target_tier in ("hot", "wiki") or (self.source_tier, self.target_tier) == ("archive", "cold"):
            return "promote"
        return "demote"

    @property
    def source_label(self) -> str:
        return _label(self.source_tier, self.source_name)

    @property
    def target_label(self) -> str:
        return _label(self.target_tier, self.target_name)

    @property
    def subject(self) -> str:
        return f'memory({self.agent}): {self.verb} "{self.title}" {self.source_tier} → {self.target_tier}'

    def trailers(self) -> list[tuple[str, str]]:
        found = [
            ("Squad-Memory-Move", f"{self.id} {self.source_label} -> {self.target_label}"),
            ("Squad-Memory-Reason", self.reason),
        ]
        if self.restore_rev:
            found.append(("Squad-Memory-Restore", self.restore_rev))
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "agent": self.agent,
            "from": self.source_label,
            "to": self.target_label,
            "source": self.source,
            "target": self.target,
            "verb": self.verb,
            "rule": self.rule,
            "reason": self.reason,
            "why": self.why,
            "last_used": render.timestamp(self.last_used),
            "bytes": len(self.text.encode("utf-8")),
        }


def _label(tier: str, name: str) -> str:
    return f"wiki:{name}" if tier == "wiki" else tier


@dataclasses.dataclass(frozen=True)
class IndexRefresh:
    """A rewrite of one hot file's Index section: one commit of its own, after the moves."""

    agent: str
    file: str
    text: str  # the new Index section
    reads: tuple[str, ...]  # tier files whose content it lists (they must be committed)

    @property
    def subject(self) -> str:
        return f"memory({self.agent}): refresh index"

    def trailers(self) -> list[tuple[str, str]]:
        return [("Squad-Memory-Index", self.agent)]

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "file": self.file, "lines": len(index.listed_ids(self.text))}


@dataclasses.dataclass(frozen=True)
class Plan:
    now: dt.datetime
    moves: tuple[Move, ...]
    indexes: tuple[IndexRefresh, ...]
    warnings: tuple[str, ...]
    files: Mapping[str, str]  # every tier file as the plan leaves it

    @property
    def empty(self) -> bool:
        return not self.moves and not self.indexes

    def written(self) -> list[str]:
        """Tier files the plan writes, in first-written order."""
        paths = [m.source for m in self.moves if m.source] + [m.target for m in self.moves]
        paths += [r.file for r in self.indexes]
        return list(dict.fromkeys(paths))

    def read(self) -> list[str]:
        """Tier files the plan writes or lists in an Index."""
        return list(dict.fromkeys([*self.written(), *(p for r in self.indexes for p in r.reads)]))

    def as_dict(self) -> dict[str, Any]:
        return {
            "now": render.timestamp(self.now),
            "moves": [m.as_dict() for m in self.moves],
            "indexes": [r.as_dict() for r in self.indexes],
            "warnings": list(self.warnings),
        }


# -- ages ----------------------------------------------------------------------------------------


def _age(use: Use | None, now: dt.datetime) -> dt.timedelta | None:
    if use is None or use.when is None:
        return None
    return max(now - use.when, dt.timedelta(0))


def _days(delta: dt.timedelta) -> float:
    return delta.total_seconds() / 86400


def _number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def _over(value: float, limit: float) -> str:
    """``value`` shown so that it visibly exceeds ``limit``: whole days unless that would tie."""
    return str(int(value)) if int(value) > limit else f"{value:.1f}".rstrip("0").rstrip(".")


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


class _Projection:
    """Tier file texts as the moves planned so far leave them."""

    def __init__(self, memory: catalog.Memory, header: Header) -> None:
        self.texts = {rel: doc.text for rel, doc in memory.files.items()}
        self.header = header
        self.left_out = memory.left_out

    def writable(self, rel: str, text: str) -> str:
        """``text``, if squadmem may write it to ``rel``: never a file it would refuse to read."""
        if rel in self.left_out:
            raise index.SpliceError(f"{rel} cannot be read: {self.left_out[rel].message}")
        size = len(text.encode("utf-8"))
        if size > MAX_FILE_BYTES:
            raise index.SpliceError(f"{rel} would be {size} bytes, over the 1 MiB limit for a tier file")
        return text

    def text(self, tier: str, name: str) -> str:
        rel = tier_rel(tier, name)
        return self.texts[rel] if rel in self.texts else self.header(tier, name)

    def move(self, source: str, tier: str, name: str, section_text: str) -> tuple[str, str]:
        """Apply a move; return the section's id (as it is, and stays) and the exact text cut.

        Raises index.SpliceError, changing nothing, if the splice is unsafe or the
        section's id would not follow it (two sections of one agent sharing a title).
        """
        target = tier_rel(tier, name)
        section_id = self.id_of(source, section_text)
        new_source, cut = index.remove(self.texts[source], section_text)
        new_target = self.writable(target, index.insert(self.text(tier, name), cut))
        saved = dict(self.texts)
        self.texts[source] = new_source
        self.texts[target] = new_target
        arrived = self.id_of(target, cut)
        if tier != "wiki" and arrived != section_id:
            self.texts = saved
            raise index.SpliceError(
                f"its id would become {arrived}: another section has the same title; give one an id= flag"
            )
        return section_id, cut

    def insert(self, tier: str, name: str, section_text: str) -> str:
        """Add a section from outside (a restore); return the id it gets."""
        target = tier_rel(tier, name)
        self.texts[target] = self.writable(target, index.insert(self.text(tier, name), section_text))
        return self.id_of(target, section_text)

    def id_of(self, rel: str, section_text: str) -> str:
        """The id of the section of ``rel`` equal to ``section_text``, as the projection stands."""
        tf = classify(rel)
        assert tf is not None
        mine = {
            r: t
            for r, t in self.texts.items()
            if (other := classify(r)) is not None and other.owner == tf.owner
        }
        wanted = index.normalized(section_text)
        for entry in index.memory(mine).in_file(rel):
            if index.normalized(entry.text) == wanted:
                return entry.id
        raise index.SpliceError(f"{rel} does not hold the section")


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
    batch: list[_Candidate] = dataclasses.field(default_factory=list)
    deferred: list[_Candidate] = dataclasses.field(default_factory=list)

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
            days = _over(_days(age), limit)
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
        days = _over(_days(age), limit)
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
        for entry in sorted(candidates, key=self.tie_key):
            use = self.use(entry)
            if (
                entry.id in self.moved
                or not _ruled(entry, use)
                or not recently_used(use, self.now, self.settings)
            ):
                continue
            age = _age(use, self.now)
            assert age is not None
            ago = _ago(age)
            why = f"used {ago} ago, within the {_number(window)} h promote window (promote.window_hours)"
            self.add(entry, "hot", entry.name, "used", f"used {ago} ago", why)
        self.flush()

    def budgets(self, index_cap: int) -> None:
        for agent in self.hot_agents():
            while True:
                rel = tier_rel("hot", agent)
                text = self.with_index(agent, index_cap)
                size, rows = len(text.encode("utf-8")), len(sections.lines(text))
                over = self.over_budget(size, rows)
                if over is None:
                    break
                victim = self.budget_victim(rel)
                if victim is None:
                    self.warnings.append(f"{rel} stays over budget ({over}): nothing left in it may move")
                    break
                use = self.use(victim)
                age = _age(use, self.now)
                unused = f"unused {_number(round(_days(age), 1))} d" if age is not None else "age unknown"
                why = f"{rel} is over budget ({over}); this is its least recently used section ({unused})"
                target = ("cold", agent, "budget", f"over budget {over}", why)
                if age is not None:
                    target = self.expiry(victim, age) or target
                error = self.attempt(victim, *target)
                if error is not None:
                    self.refuse(victim, target[0], error)

    def over_budget(self, size: int, rows: int) -> str | None:
        hot = self.settings.hot
        if size > hot.max_bytes:
            return f"{size} B > {hot.max_bytes} B"
        if rows > hot.max_lines:
            return f"{rows} lines > {hot.max_lines} lines"
        return None

    def budget_victim(self, rel: str) -> catalog.Entry | None:
        for entry in sorted(self.memory.in_file(rel), key=self.tie_key):
            use = self.use(entry)
            if entry.id in self.moved or entry.id in self.stuck or not _ruled(entry, use):
                continue
            if not recently_used(use, self.now, self.settings):
                return entry
        return None

    # -- the Index -------------------------------------------------------------------------------
    def hot_agents(self) -> list[str]:
        names = set()
        for rel in self.projection.texts:
            tf = classify(rel)
            if tf is not None and tf.tier == "hot" and self.agent in (None, tf.name):
                names.add(tf.name)
        return sorted(names)

    def index_text(self, agent: str, cap: int) -> str | None:
        """The agent's Index as the projection stands, or None if it should have none."""
        if cap <= 0:
            return None
        texts = self.projection.texts
        mine = {
            rel: text
            for rel, text in texts.items()
            if (tf := classify(rel)) is not None and (tf.tier == "wiki" or tf.name == agent)
        }
        lines = _index_lines(index.memory(mine), agent, self.use_by_text, self.settings)
        current = index.current(texts[tier_rel("hot", agent)])
        if current is None and not lines:
            return None
        return index.render(lines, cap, agent)

    def with_index(self, agent: str, cap: int) -> str:
        text = self.projection.texts[tier_rel("hot", agent)]
        wanted = self.index_text(agent, cap)
        if wanted is None:
            return text
        try:
            return index.replace(text, wanted)
        except index.SpliceError:
            return text

    @functools.cached_property
    def use_by_text(self) -> dict[str, Use]:
        found: dict[str, Use] = {}
        for entry in self.memory.entries:
            use = self.use(entry)
            if use is not None:
                found.setdefault(index.normalized(entry.text), use)
        return found

    def refreshes(self, cap: int, agents: Iterable[str]) -> list[IndexRefresh]:
        refreshes: list[IndexRefresh] = []
        for agent in agents:
            rel = tier_rel("hot", agent)
            wanted = self.index_text(agent, cap)
            if rel not in self.projection.texts or wanted is None:
                continue
            try:
                refreshed = index.replace(self.projection.texts[rel], wanted)
            except index.SpliceError as exc:
                self.warnings.append(f"{rel}: the Index cannot be written ({exc})")
                continue
            if refreshed == self.projection.texts[rel]:
                continue
            self.projection.texts[rel] = refreshed
            reads = tuple(
                r for t in ("cold", "archive") if (r := tier_rel(t, agent)) in self.projection.texts
            )
            refreshes.append(IndexRefresh(agent, rel, wanted, reads))
        return refreshes

    def cold_warnings(self) -> None:
        limit = self.settings.cold.max_bytes
        for rel, text in sorted(self.projection.texts.items()):
            tf = classify(rel)
            size = len(text.encode("utf-8"))
            if tf is not None and tf.tier == "cold" and self.agent in (None, tf.name) and size > limit:
                self.warnings.append(f"{rel} is {size} B, over cold.max_bytes {limit} B")

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
        return Plan(
            self.now, tuple(self.moves), tuple(refreshes), tuple(self.warnings), dict(self.projection.texts)
        )


def _index_lines(
    memory: catalog.Memory, agent: str, uses: Mapping[str, Use], settings: Settings
) -> list[index.Line]:
    def day(entry: catalog.Entry) -> dt.datetime | None:
        use = uses.get(index.normalized(entry.text))
        return use.when.astimezone(settings.tz) if use is not None and use.when is not None else None

    lines = [
        index.Line(e.id, e.title, e.tier, day(e))
        for e in memory.entries
        if e.tier in ("cold", "archive") and e.name == agent
    ]
    topics: dict[str, list[dt.datetime | None]] = {}
    for entry in memory.entries:
        if entry.tier == "wiki":
            topics.setdefault(entry.name, []).append(day(entry))
    for doc in memory.files.values():
        if doc.tier_file.tier == "wiki":
            topics.setdefault(doc.tier_file.name, [])
    for topic, days in topics.items():
        known = [d for d in days if d is not None]
        count = f"{len(days)} section" + ("" if len(days) == 1 else "s")
        lines.append(index.Line(f"wiki:{topic}", count, "wiki", max(known) if known else None))
    return lines


def _planner(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    agent: str | None,
    header: Header | None,
) -> _Planner:
    return _Planner(memory, uses, settings, now, agent, _Projection(memory, header or _no_header))


def plan(
    memory: catalog.Memory,
    uses: Mapping[str, Use],
    settings: Settings,
    now: dt.datetime,
    *,
    agent: str | None = None,
    header: Header | None = None,
) -> Plan:
    """What ``squadmem maintain`` does: the moves, in order, then the Index refreshes."""
    planner = _planner(memory, uses, settings, now, agent, header)
    planner.demotions()
    planner.expiries()
    planner.promotions()
    planner.retry_deferred()
    cap = settings.hot.index_max_entries
    planner.budgets(cap)
    refreshes = planner.refreshes(cap, planner.hot_agents())
    planner.cold_warnings()
    planner.unknown_ages()
    return planner.result(refreshes)


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
    """
    planner = _planner(memory, uses, settings, now, None, header)
    error = planner.attempt(entry, target_tier, target_name, "manual", "manual", "moved by hand")
    if error is not None:
        raise SquadmemError(
            f"{entry.id} cannot move to {tier_rel(target_tier, target_name)}: {error}",
            hint="fix what the message names (close a code block, give an id= flag, cut the file down),"
            " then try again",
        )
    if target_tier == "hot":
        planner.moves[0] = dataclasses.replace(planner.moves[0], used=(planner.moves[0].id,))
    refreshes = planner.refreshes(settings.hot.index_max_entries, [entry.name])
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
