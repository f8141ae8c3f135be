"""The tier rules: from sections, their last uses, the settings and ``now``, a plan of moves.

Pure: no git, no files, no clock. The plan a dry run prints is the object the
real run executes. Order (docs/concepts.md, "The tier rules"):

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
   to cold (with ``hot.evict = "age-bytes"`` the one of largest days unused
   times bytes; sections used within the promote window last of all).

Within each step ties break by older last use, then file order. A section moves
at most once per run. Pinned sections, the ``## Session`` block, the Index and
wiki sections never move by the rules, nor does a section whose age is unknown
(a shallow clone's boundary). A promotion must fit: the sections coming back,
most recently used first, must fit the hot budget with every section the
budget pass may send out gone; one that cannot stays, with a warning. So the
budget pass never demotes a section that the promotion rule would bring
straight back, and a second run plans nothing.

The rules themselves are small functions in :mod:`squadmem.engine.planning.rules`;
here they are applied in that order over the projection of the run
(:mod:`squadmem.engine.planning.projection`), the fit arithmetic is
:mod:`squadmem.engine.planning.fit`, the Index planning
:mod:`squadmem.engine.planning.index_plan`, and the advice for a cold file over its
budget :mod:`squadmem.engine.planning.coldfix`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from collections.abc import Iterator, Mapping

from squadmem.engine import catalog, index
from squadmem.engine.planning import coldfix, fit, rules
from squadmem.engine.planning.index_plan import IndexModel, IndexPlan
from squadmem.engine.planning.plan import IndexRefresh, Move, Plan
from squadmem.engine.planning.projection import Header, Projection, no_header
from squadmem.engine.planning.rules import DEFAULT_TOPIC, Facts, Target, Use, recently_used
from squadmem.model import budget
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify
from squadmem.model.settings import Settings

__all__ = ["DEFAULT_TOPIC", "Header", "IndexRefresh", "Move", "Plan", "Use", "dt", "recently_used"]


@dataclasses.dataclass(frozen=True)
class _Candidate:
    entry: catalog.Entry
    target: Target


@dataclasses.dataclass
class Run:
    """A plan being made: the moves so far, made in the projection, and what the rules left and why."""

    memory: catalog.Memory
    facts: Facts
    agent: str | None
    projection: Projection
    index_plan: IndexPlan
    moves: list[Move] = dataclasses.field(default_factory=list)
    moved: set[str] = dataclasses.field(default_factory=set)
    stuck: set[str] = dataclasses.field(default_factory=set)  # moves refused as unsafe
    refused: dict[str, str] = dataclasses.field(default_factory=dict)  # promotions that did not fit: why
    batch: list[_Candidate] = dataclasses.field(default_factory=list)
    deferred: list[_Candidate] = dataclasses.field(default_factory=list)
    waiting: list[str] = dataclasses.field(default_factory=list)  # promotions second-use holds back

    @property
    def warnings(self) -> list[str]:
        return self.facts.warnings

    def selected(self, tier: str) -> list[catalog.Entry]:
        found = [e for e in self.memory.entries if e.tier == tier and (self.agent in (None, e.name))]
        return sorted(found, key=self.facts.tie_key)

    # -- moves -----------------------------------------------------------------------------------
    def add(self, entry: catalog.Entry, target: Target) -> None:
        """Queue a move of the current step (see :meth:`flush`)."""
        self.batch.append(_Candidate(entry, target))

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
                error = self.attempt(candidate.entry, candidate.target)
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
            self.refuse(candidate.entry, candidate.target.tier, errors[candidate.entry.id])

    def retry_deferred(self) -> None:
        self.batch, self.deferred = self.deferred, []
        self.flush(final=True)

    def refuse(self, entry: catalog.Entry, tier: str, error: str) -> None:
        self.warnings.append(f"{entry.id} stays in {entry.file}: it cannot move to {tier} ({error})")
        self.stuck.add(entry.id)

    def attempt(self, entry: catalog.Entry, target: Target) -> str | None:
        """Make one move in the projection; None, or why it cannot be made."""
        try:
            section_id, cut = self.projection.move(entry.file, target.tier, target.name, entry.text)
        except index.SpliceError as exc:
            return str(exc)
        use = self.facts.use(entry)
        self.moves.append(
            Move(
                id=section_id,
                title=entry.title,
                agent=entry.name,
                source=entry.file,
                source_tier=entry.tier,
                source_name=entry.name,
                target=self.projection.places.tier_rel(target.tier, target.name),
                target_tier=target.tier,
                target_name=target.name,
                rule=target.rule,
                reason=target.reason,
                why=target.why,
                text=cut,
                last_used=use.when if use is not None else None,
            )
        )
        self.moved.add(entry.id)
        return None

    # -- the four steps --------------------------------------------------------------------------
    def demotions(self) -> None:
        for entry in self.selected("hot"):
            target = rules.stale(entry, self.facts)
            if target is not None:
                self.add(entry, target)
        self.flush()

    def expiries(self) -> None:
        for entry in self.selected("cold"):
            target = rules.expiry(entry, self.facts) if entry.id not in self.moved else None
            if target is not None:
                self.add(entry, target)
        self.flush()

    def promotions(self) -> None:
        candidates = sorted(self.selected("cold") + self.selected("archive"), key=self.facts.tie_key)
        wanted: dict[str, list[catalog.Entry]] = {}
        targets: dict[str, Target] = {}
        for entry in candidates:
            found = rules.promotion(entry, self.facts) if entry.id not in self.moved else None
            if isinstance(found, str):
                self.waiting.append(found)
            elif found is not None:
                wanted.setdefault(entry.name, []).append(entry)
                targets[entry.id] = found
        admitted = self.admit(wanted)
        for entry in candidates:
            if entry.id in admitted:
                self.add(entry, targets[entry.id])
        self.flush()

    def admit(self, wanted: dict[str, list[catalog.Entry]]) -> set[str]:
        """The ids of the sections to promote that fit their hot files; a warning kept for each other."""
        admitted: set[str] = set()
        for agent, group in wanted.items():
            fits, refused = fit.admit(self, agent, group)
            admitted.update(e.id for e in fits)
            for entry in fits:
                self.refused.pop(entry.id, None)
            for entry, over in refused:
                self.refused[entry.id] = (
                    f"{entry.id} stays in {entry.tier}: promoting it ({entry.bytes} B) would put "
                    f"{self.hot_rel(agent)} over budget ({over}) even with every other movable "
                    "section out"
                )
        return admitted

    # -- the budget pass -------------------------------------------------------------------------
    @functools.cached_property
    def by_file(self) -> dict[str, list[catalog.Entry]]:
        found: dict[str, list[catalog.Entry]] = {}
        for entry in self.memory.entries:
            found.setdefault(entry.file, []).append(entry)
        return found

    def hot_rel(self, agent: str) -> str:
        """The path of ``agent``'s hot file in the run's layout."""
        return self.projection.places.tier_rel("hot", agent)

    def candidates(self, rel: str) -> list[catalog.Entry]:
        return sorted(self.by_file.get(rel, []), key=self.facts.tie_key)

    def evictable(self, entry: catalog.Entry, recent: bool = False) -> bool:
        if entry.id in self.moved or entry.id in self.stuck:
            return False
        return rules.evictable(entry, self.facts, recent)

    def movable(self, entry: catalog.Entry, tier: str, name: str) -> bool:
        """Could ``entry`` move there now (its splices safe, its id kept)?"""
        try:
            self.projection.check(entry.file, tier, name, entry.text)
        except index.SpliceError:
            return False
        return True

    def budgets(self) -> None:
        """Each hot file over budget sends out its least recently used sections until it fits.

        Another agent's move into the wiki changes every Index's topic line: files are
        checked again until none changes.
        """
        for _ in range(len(self.index_plan.hot_agents()) + 2):
            if not any([self.budget(agent) for agent in self.index_plan.hot_agents()]):
                break

    def budget(self, agent: str) -> bool:
        """One hot file's budget pass; whether it moved anything.

        Sizes are followed as sections leave (bytes and lines subtracted, the Index
        rendered from lines kept in order): a pass costs what it moves. Where the
        followed size says it fits, the file is measured whole; should the two ever
        disagree, the pass measures whole from then on.
        """
        doc = self.projection.doc(self.hot_rel(agent))
        model = self.index_plan.model(agent, doc)
        victims = self._victims(agent, doc)
        whole, moved = False, False
        while True:
            over = None if whole else fit.followed(self, model, doc)
            if over is None:
                over = fit.whole(self, agent)
                if over is None:
                    return moved
                whole = True
            victim = next(victims, None)
            if victim is None:
                self._left_over(agent, model, doc, over)
                return moved
            target = rules.budget_out(victim, self.facts, over)
            error = self.attempt(victim, target)
            if error is not None:
                self.refuse(victim, target.tier, error)
                continue
            moved = True
            model.arrive(self.index_plan.line(self.moves[-1].id, victim, target.tier, target.name))

    def _victims(self, agent: str, doc: index.Doc) -> Iterator[catalog.Entry]:
        """The sections the budget pass sends out, each when asked for: the least recently used
        first (or as ``hot.evict`` orders them, :func:`rules.evict_key`), then those used within
        the promote window (:func:`fit.fewest_recent`)."""
        ordered = self.candidates(self.hot_rel(agent))
        victims = iter(sorted(ordered, key=lambda e: rules.evict_key(e, self.facts)))
        while (victim := next((e for e in victims if self.evictable(e)), None)) is not None:
            yield victim
        recent = iter(fit.fewest_recent(self, agent, doc, ordered))
        while (victim := next((e for e in recent if self.evictable(e, recent=True)), None)) is not None:
            yield victim

    def _left_over(self, agent: str, model: IndexModel, doc: index.Doc, over: str) -> None:
        """Nothing left may move: warn, unless only the whole Index does not fit (it is written
        shorter, :meth:`IndexPlan.fitted`)."""
        if budget.hot_over(*model.base(doc), self.facts.settings.hot) is not None:
            self.warnings.append(
                f"{self.hot_rel(agent)} stays over budget ({over}): nothing left in it may move "
                "(pinned, the Session block, the Index or of unknown age)"
            )

    # -- what the plan says besides its moves -----------------------------------------------------
    def cold_warnings(self, advise: bool) -> None:
        limit = budget.limits("cold", self.facts.settings)
        for rel in sorted(self.projection.rels()):
            tf = classify(rel, self.projection.places)
            if tf is None or tf.tier != "cold" or self.agent not in (None, tf.name):
                continue
            size = self.projection.size(rel)
            if budget.over(size, 0, limit) is None:
                continue
            warning = f"{rel} is {size} B, over cold.max_bytes {limit.max_bytes} B"
            if advise:
                facts = self.facts
                fix = coldfix.cold_fix(
                    self.memory,
                    facts.uses,
                    facts.settings,
                    facts.now,
                    rel,
                    plan,
                    facts.demoted,
                    facts.previous,
                )
                warning += f"; {fix.advice}" if fix else "; nothing the rules may move brings it under"
            self.warnings.append(warning)

    def unknown_ages(self) -> None:
        unknown = [
            e.id
            for e in self.memory.entries
            if self.agent in (None, e.name)
            and self.facts.age(e) is None
            and not (e.tier == "wiki" or e.pinned or e.is_session or e.is_index)
        ]
        if unknown:
            self.warnings.append(
                f"{len(unknown)} section(s) of unknown age stay where they are: {', '.join(unknown[:5])}"
                + (" ..." if len(unknown) > 5 else "")
                + " (this shallow clone lacks their history: unshallow with `git fetch --unshallow`)"
            )

    def result(self, refreshes: list[IndexRefresh]) -> Plan:
        warnings = tuple(dict.fromkeys([*self.warnings, *self.refused.values()]))
        waiting = tuple(dict.fromkeys(self.waiting))
        return Plan(
            self.facts.now, tuple(self.moves), tuple(refreshes), warnings, self.projection.texts(), waiting
        )


def _run(memory: catalog.Memory, facts: Facts, agent: str | None, header: Header | None) -> Run:
    projection = Projection(memory, header or no_header)
    return Run(memory, facts, agent, projection, IndexPlan(projection, facts, agent))


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
    it (:func:`squadmem.engine.planning.coldfix.cold_fix`).
    """
    run = _run(memory, Facts(uses, settings, now, demoted or {}, previous or {}), agent, header)
    run.demotions()
    run.expiries()
    run.promotions()
    run.retry_deferred()
    run.budgets()
    if run.refused:  # the budget pass may have made the room a refused promotion needed
        run.promotions()
        run.budgets()
    refreshes = run.index_plan.refreshes(run.index_plan.hot_agents())
    run.cold_warnings(advise)
    run.unknown_ages()
    return run.result(refreshes)


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
    run = _run(memory, Facts(uses, settings, now), None, header)
    if target_tier == "hot":
        _, refused = fit.admit(run, target_name, [entry])
        if refused:
            raise SquadmemError(
                f"{entry.id} ({entry.bytes} B) does not fit in {memory.places.tier_rel('hot', target_name)}: "
                f"it would be over budget ({refused[0][1]}) even with every movable section out",
                hint="raise hot.max_bytes / hot.max_lines in tiers.toml, unpin sections, or split it",
            )
    if target_tier in memory.blocked:
        raise memory.blocked[target_tier]
    error = run.attempt(entry, Target(target_tier, target_name, "manual", "manual", "moved by hand"))
    if error is not None:
        raise SquadmemError(
            f"{entry.id} cannot move to {memory.places.tier_rel(target_tier, target_name)}: {error}",
            hint="fix what the message names (close a code block, give an id= flag, cut the file down),"
            " then try again",
        )
    if target_tier == "hot":
        run.moves[0] = dataclasses.replace(run.moves[0], used=(run.moves[0].id,))
        run.budget(target_name)
    return run.result(run.index_plan.refreshes([entry.name]))


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
    run = _run(memory, Facts(uses, settings, now), None, header)
    if target_tier in memory.blocked:
        raise memory.blocked[target_tier]
    try:
        section_id = run.projection.insert(target_tier, target_name, text)
    except index.SpliceError as exc:
        raise SquadmemError(
            f"{title!r} cannot be restored into {memory.places.tier_rel(target_tier, target_name)}: {exc}"
        ) from None
    run.moves.append(
        Move(
            id=section_id,
            title=title,
            agent=target_name if target_tier != "wiki" else f"wiki:{target_name}",
            source=None,
            source_tier="history",
            source_name="history",
            target=memory.places.tier_rel(target_tier, target_name),
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
    return run.result(run.index_plan.refreshes(agents))
