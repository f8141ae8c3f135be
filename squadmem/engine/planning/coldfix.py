"""The advice for a cold file over ``cold.max_bytes``: the ``maintain --cold-ttl-days`` run that fixes it.

Pure: no git, no files, no clock. Worked out from the sections' last uses by
the rules themselves (:mod:`squadmem.engine.planning.rules`), without planning: under
a TTL, ``maintain`` takes out of the cold file every section the rules may
move that is unused for longer than the TTL (:func:`rules.expiry`) and every
section the promotion rule takes back to hot, and brings in the agent's hot
sections the stale rule sends to cold rather than further
(:func:`rules.stale`). The least recently used leave first, so the largest
TTL that leaves the file within its budget is also the one that moves the
fewest sections.

What the last uses alone cannot tell: whether a promotion fits the hot file,
whether the hot budget pass sends sections to cold, whether a move keeps
its id (two sections of one agent sharing a title are numbered, and a move
that would renumber them is refused). Where any of them can matter (a hot
file without room for every section the promotion rule wants back and the
longest Index it could have, two of the agent's sections sharing an id's
slug, a tier file left out or a tier blocked), the answer is found by
planning the agent's run under each TTL tried (:func:`_searched`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Callable, Mapping

from squadmem.engine import catalog, index
from squadmem.engine.planning import rules
from squadmem.engine.planning.plan import Plan
from squadmem.model import budget
from squadmem.model.clock import days as _days
from squadmem.model.layout import classify
from squadmem.model.settings import Settings

Planner = Callable[..., Plan]  # policy.plan


@dataclasses.dataclass(frozen=True)
class ColdFix:
    """A ``cold.ttl_days`` that brings a cold file under ``cold.max_bytes``."""

    file: str
    agent: str
    ttl_days: float
    ids: tuple[str, ...]  # the sections that leave the file
    size: int  # the file's bytes after that run

    @property
    def command(self) -> str:
        return f"squadmem maintain --agent {self.agent} --cold-ttl-days {rules.number(self.ttl_days)}"

    @property
    def advice(self) -> str:
        shown = ", ".join(self.ids[:5]) + (f" and {len(self.ids) - 5} more" if len(self.ids) > 5 else "")
        return f"run: {self.command} (moves out {shown}; {self.size} B after)"


def _below(days: float) -> float:
    """A round TTL just under an age of ``days``, so that the age is over it."""
    for step in (1, 10, 100):
        value = math.floor(days * step) / step
        if value < days:
            return value
    return max(days - 0.001, 0.0)


def ttls(entries: list[catalog.Entry], facts: rules.Facts) -> list[float]:
    """The TTLs worth trying, largest first: one just under each age in the file, below today's."""
    ages = {_days(age) for e in entries if rules.ruled(e, facts.use(e)) and (age := facts.age(e)) is not None}
    return sorted({_below(a) for a in ages if _below(a) < facts.settings.cold.ttl_days}, reverse=True)


def _leaving(entries: list[catalog.Entry], facts: rules.Facts) -> list[catalog.Entry]:
    """The sections of a cold file that ``maintain`` takes out under ``facts``: the expired, least
    recently used first, then those promoted back to hot."""
    expired = [e for e in entries if rules.expiry(e, facts) is not None]
    out = {e.id for e in expired}
    promoted = [e for e in entries if e.id not in out and isinstance(rules.promotion(e, facts), rules.Target)]
    return expired + promoted


def _arriving(hot: list[catalog.Entry], facts: rules.Facts) -> int:
    """The bytes the stale rule brings into the agent's cold file from its hot file under ``facts``."""
    size = 0
    for entry in hot:
        target = rules.stale(entry, facts)
        if target is not None and target.tier == "cold":
            size += entry.bytes + (0 if index.ends_line(entry.text) else 1)
    return size


def cold_fix(
    memory: catalog.Memory,
    uses: Mapping[str, rules.Use],
    settings: Settings,
    now: dt.datetime,
    rel: str,
    planner: Planner,
    demoted: Mapping[str, dt.datetime] | None = None,
    previous: Mapping[str, dt.datetime] | None = None,
) -> ColdFix | None:
    """The largest ``cold.ttl_days`` under which ``maintain`` leaves the cold file ``rel`` within
    ``cold.max_bytes``, or None if no TTL does. ``planner`` is :func:`squadmem.engine.planning.policy.plan`,
    asked only where the last uses cannot tell (the policy asks this module for its warnings, so it
    hands itself in rather than being imported)."""
    tf = classify(rel, memory.places)
    assert tf is not None and tf.tier == "cold"
    facts = rules.Facts(uses, settings, now, demoted or {}, previous or {})
    mine = sorted((e for e in memory.entries if e.file == rel), key=facts.tie_key)
    if not _plain(memory, tf.name, facts):
        return _searched(memory, facts, rel, tf.name, ttls(mine, facts), planner)
    hot_rel = memory.places.tier_rel("hot", tf.name)
    hot = [e for e in memory.entries if e.file == hot_rel]
    limit = budget.limits("cold", settings)
    for ttl in ttls(mine, facts):
        under = dataclasses.replace(facts, settings=settings.replace(cold={"ttl_days": ttl}), warnings=[])
        gone = _leaving(mine, under)
        size = memory.files[rel].bytes - sum(e.bytes for e in gone) + _arriving(hot, under)
        if budget.over(size, 0, limit) is None:
            return ColdFix(rel, tf.name, ttl, tuple(e.id for e in gone), size)
    return None


def _plain(memory: catalog.Memory, agent: str, facts: rules.Facts) -> bool:
    """Do the last uses alone tell what leaves the agent's cold file? Room in hot for every section
    the promotion rule wants back and the longest Index it could have, no two sections of the agent
    sharing an id's slug, nothing left out or blocked."""
    own = [e for e in memory.entries if e.name == agent and e.tier != "wiki"]
    if memory.left_out or memory.blocked:
        return False
    bases = [catalog.base(e.section) for e in own]
    return len(bases) == len(set(bases)) and _room(memory, own, agent, facts)


def _room(memory: catalog.Memory, own: list[catalog.Entry], agent: str, facts: rules.Facts) -> bool:
    """Would the agent's hot file fit its budget with every section the promotion rule wants back
    in and the longest Index it could have? Then every promotion fits, and the budget pass sends
    nothing to cold."""
    hot = memory.files.get(memory.places.tier_rel("hot", agent))
    size, rows = (hot.bytes, hot.lines) if hot is not None else (0, 0)
    size += 1  # the line ending an Index may need
    for entry in own:
        if entry.is_index and entry.tier == "hot":
            size, rows = size - entry.bytes, rows - entry.lines
        elif entry.tier != "hot" and isinstance(rules.promotion(entry, facts), rules.Target):
            size, rows = size + entry.bytes + 1, rows + entry.lines
    cap = facts.settings.hot.index_max_entries
    if cap <= 0:
        return budget.hot_over(size, rows, facts.settings.hot) is None
    total = len(memory.entries) + 1  # more than any count a line can show
    topics = [
        tf.name
        for rel in memory.files
        if (tf := classify(rel, memory.places)) is not None and tf.tier == "wiki"
    ]
    topics += [rules.expiry_target(e)[1] for e in own]
    wiki = max(len(t.encode()) for t in topics) if topics else 0
    longest = max(
        [len(f"- {e.id} (archive, date unknown): {e.title}".encode()) for e in own]
        + [len(f"- wiki: (wiki, date unknown): {total} sections".encode()) + wiki]
        + [len(f"- and {total} more: squadmem list --agent {agent}".encode())]
    )
    head = len(f"{index.HEADING}\n{index.NOTE}\n\n".encode())
    return budget.hot_over(size + head + cap * (longest + 1), rows + 3 + cap, facts.settings.hot) is None


def _own_memory(memory: catalog.Memory, agent: str) -> catalog.Memory:
    """An agent's tier files and the wiki: all that an ``--agent`` plan reads (ids are per owner)."""

    def mine(rel: str) -> bool:
        tf = classify(rel, memory.places)
        return tf is not None and (tf.tier == "wiki" or tf.name == agent)

    files = {rel: doc for rel, doc in memory.files.items() if mine(rel)}
    return catalog.Memory(files, tuple(e for e in memory.entries if e.file in files), memory.places)


def _searched(
    memory: catalog.Memory, facts: rules.Facts, rel: str, agent: str, tried: list[float], planner: Planner
) -> ColdFix | None:
    """The largest of the TTLs ``tried`` under which the agent's plan leaves ``rel`` within its budget."""
    own = _own_memory(memory, agent)
    limit = budget.limits("cold", facts.settings)

    def attempt(ttl: float) -> ColdFix | None:
        conf = facts.settings.replace(cold={"ttl_days": ttl})
        made = planner(
            own,
            facts.uses,
            conf,
            facts.now,
            agent=agent,
            demoted=facts.demoted,
            advise=False,
            previous=facts.previous,
        )
        size = len(made.files.get(rel, "").encode("utf-8"))
        if budget.over(size, 0, limit) is not None:
            return None
        return ColdFix(rel, agent, ttl, tuple(m.id for m in made.moves if m.source == rel), size)

    lo, hi, best = 0, len(tried) - 1, None
    while lo <= hi:  # the largest TTL that works: fewer moves than any smaller one
        mid = (lo + hi) // 2
        found = attempt(tried[mid])
        if found is not None:
            best, hi = found, mid - 1
        else:
            lo = mid + 1
    return best
