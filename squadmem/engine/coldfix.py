"""The advice for a cold file over ``cold.max_bytes``: the ``maintain --cold-ttl-days`` run that fixes it.

Pure: no git, no files, no clock. Worked out from the sections' last uses by
the rules themselves (:mod:`squadmem.engine.rules`), without planning: under
a TTL, ``maintain`` takes out of the cold file every section the rules may
move that is unused for longer than the TTL (:func:`rules.expiry`) and every
section the promotion rule takes back to hot, and brings in the agent's hot
sections the stale rule sends to cold rather than further
(:func:`rules.stale`). The least recently used leave first, so the largest
TTL that leaves the file within its budget is also the one that moves the
fewest sections. What this does not foresee: sections the hot budget pass
sends to cold, a promotion refused because it does not fit, a move refused
as unsafe (each is reported by ``maintain`` itself).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Mapping

from squadmem.engine import catalog, index, rules
from squadmem.model import budget
from squadmem.model.clock import days as _days
from squadmem.model.layout import classify, tier_rel
from squadmem.model.settings import Settings


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
    demoted: Mapping[str, dt.datetime] | None = None,
    previous: Mapping[str, dt.datetime] | None = None,
) -> ColdFix | None:
    """The largest ``cold.ttl_days`` under which ``maintain`` leaves the cold file ``rel`` within
    ``cold.max_bytes``, or None if no TTL does."""
    tf = classify(rel)
    assert tf is not None and tf.tier == "cold"
    facts = rules.Facts(uses, settings, now, demoted or {}, previous or {})
    mine = sorted((e for e in memory.entries if e.file == rel), key=facts.tie_key)
    hot = [e for e in memory.entries if e.file == tier_rel("hot", tf.name)]
    limit = budget.limits("cold", settings)
    for ttl in ttls(mine, facts):
        under = dataclasses.replace(facts, settings=settings.replace(cold={"ttl_days": ttl}), warnings=[])
        gone = _leaving(mine, under)
        size = memory.files[rel].bytes - sum(e.bytes for e in gone) + _arriving(hot, under)
        if budget.over(size, 0, limit) is None:
            return ColdFix(rel, tf.name, ttl, tuple(e.id for e in gone), size)
    return None
