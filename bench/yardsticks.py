"""The rules squadmem is measured against, each choosing what an agent's spawn loads, at one byte budget.

Every yardstick sees the same workload (``bench/workload.py``) and holds, per
agent, a set of entries loaded at spawn besides the pinned Core Context. The
budget is squadmem's hot budget less what every policy spends on the hot
file's header and the Core Context (so squadmem alone pays for its Index).
Each night a yardstick sees that day's writes and uses (what ``maintain``
sees), except where it is clairvoyant:

- **belady**: the offline optimum of demand caching. A section enters hot when
  written or used (as in squadmem); each night, while over budget, the held
  section whose next use is furthest in the future leaves (never used again
  first; ties: the larger). Greedy by bytes, not an exact knapsack: with
  sizes that differ, furthest-first is within a small factor of the exact
  optimum, not always equal to it;
- **ceiling**: clairvoyant with free reshuffling: each spawn holds as many of
  that day's uses as fit (the smallest first, exact for equal values). No
  demand rule can beat it; it bounds what any rule could reach;
- **informed**: an online rule that knows the workload's own odds: each
  night it keeps the sections with the most expected uses tomorrow per byte,
  from the day's true topic popularity, each entry's true appeal and its age
  (``bench/workload.py``); it does not know which draws will come, nor the
  bursts. What no rule reading only history can beat on average;
- **lru**: least recently used (written or used) leaves first;
- **nap**: ``squad nap``'s rule: keep the Core Context and the last five
  entries written;
- **memory-tiers**: the memory-tiers skill's thresholds: a tier-1 section not
  used for 7 days goes to tier 2, a tier-2 one not used for 30 days to tier 3,
  a tier-2/3 one used within 24 hours comes back to tier 1, and over the limit
  (100 lines, and here the byte budget too) the least used (fewest uses, then
  oldest use) leaves. Its tier-2 uses count as cold hits.

Rules the seeds do not have, measured the same way (``CANDIDATES``):
**second-use** (LRU, but a section not held comes back only on its second
use within 14 days) and **decayed** (frequency-aware: the section with the
fewest uses, each decayed with a half-life of 3, 7 or 14 days, leaves).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator

from bench import replay
from bench import workload as wl
from squadmem.model import templates
from squadmem.model.settings import Settings

NEVER = 10**9


class Yardstick:
    """One agent's held set, changed each night."""

    name = "?"

    def __init__(self, work: wl.Workload, agent: str, cap_bytes: int, cap_lines: int) -> None:
        self.work = work
        self.agent = agent
        self.cap_bytes = cap_bytes
        self.cap_lines = cap_lines
        self.entries = {e.key: e for e in work.entries() if e.agent == agent}
        self.held: set[str] = set()
        self.last: dict[str, int] = {}  # key -> last day written or used
        self.count: dict[str, int] = {}  # key -> days written or used

    def spawn(self, day: int) -> set[str]:
        return set(self.held)

    def cold(self) -> set[str]:
        return set()

    def over(self, keys: set[str]) -> bool:
        size = sum(self.entries[k].bytes for k in keys)
        rows = sum(self.entries[k].lines for k in keys)
        return size > self.cap_bytes or rows > self.cap_lines

    def night(self, day: int, written: tuple[wl.Entry, ...], used: tuple[str, ...]) -> None:
        for key in [e.key for e in written] + list(used):
            self.last[key] = day
            self.count[key] = self.count.get(key, 0) + 1
        self.held = self.choose(day, self.held | {e.key for e in written} | set(used))

    def choose(self, day: int, candidates: set[str]) -> set[str]:
        kept = set(candidates)
        for key in sorted(candidates, key=lambda k: self.victim_order(day, k)):
            if not self.over(kept):
                break
            kept.discard(key)
        return kept

    def victim_order(self, day: int, key: str) -> tuple[float, ...]:
        raise NotImplementedError


class Belady(Yardstick):
    name = "belady"

    def __init__(self, work: wl.Workload, agent: str, cap_bytes: int, cap_lines: int) -> None:
        super().__init__(work, agent, cap_bytes, cap_lines)
        self.use_days = work.use_days()

    def next_use(self, key: str, day: int) -> int:
        days = self.use_days.get(key, [])
        at = bisect.bisect_right(days, day)
        return days[at] if at < len(days) else NEVER

    def victim_order(self, day: int, key: str) -> tuple[float, ...]:
        return (-self.next_use(key, day), -self.entries[key].bytes, self.entries[key].number)


class Ceiling(Yardstick):
    name = "ceiling"

    def spawn(self, day: int) -> set[str]:
        kept: set[str] = set()
        for key in sorted(self.work.uses[day, self.agent], key=lambda k: self.entries[k].bytes):
            if not self.over(kept | {key}):
                kept.add(key)
        return kept

    def choose(self, day: int, candidates: set[str]) -> set[str]:
        return set()


class Informed(Yardstick):
    name = "informed"

    def night(self, day: int, written: tuple[wl.Entry, ...], used: tuple[str, ...]) -> None:
        self.odds = self.expected(day)
        super().night(day, written, used)

    def expected(self, day: int) -> dict[str, float]:
        """Key -> expected uses on day + 1, from the day's popularity and each entry's appeal and age."""
        params, weights = self.work.params, self.work.popularity[day, self.agent]
        known = [e for e in self.entries.values() if e.day <= day]
        recent = {e.key: e.appeal * math.exp(-(day + 1 - e.day) / params.recency_days) for e in known}
        recent_sum: dict[str, float] = {}
        appeal_sum: dict[str, float] = {}
        for e in known:
            recent_sum[e.topic] = recent_sum.get(e.topic, 0.0) + recent[e.key]
            appeal_sum[e.topic] = appeal_sum.get(e.topic, 0.0) + e.appeal
        total, draws, tail = sum(weights.values()), sum(params.uses) / 2, params.tail_share
        return {
            e.key: draws
            * weights[e.topic]
            / total
            * ((1 - tail) * recent[e.key] / recent_sum[e.topic] + tail * e.appeal / appeal_sum[e.topic])
            for e in known
        }

    def victim_order(self, day: int, key: str) -> tuple[float, ...]:
        return (self.odds.get(key, 0.0) / self.entries[key].bytes, self.entries[key].number)


class Lru(Yardstick):
    name = "lru"

    def victim_order(self, day: int, key: str) -> tuple[float, ...]:
        return (self.last[key], self.entries[key].number)


class SecondUse(Lru):
    """A rule the seeds do not have: a section not held comes back on its second use within 14 days."""

    name = "second-use"
    window_days = 14

    def night(self, day: int, written: tuple[wl.Entry, ...], used: tuple[str, ...]) -> None:
        before = dict(self.last)
        for key in [e.key for e in written] + list(used):
            self.last[key] = day
            self.count[key] = self.count.get(key, 0) + 1
        admitted = {k for k in used if k in self.held or day - before.get(k, -NEVER) <= self.window_days}
        self.held = self.choose(day, self.held | {e.key for e in written} | admitted)


class Decayed(Lru):
    """A rule the seeds do not have: the section with the fewest uses, decayed by ``half_life``, leaves."""

    name = "decayed"
    half_life = 7.0

    def __init__(self, work: wl.Workload, agent: str, cap_bytes: int, cap_lines: int) -> None:
        super().__init__(work, agent, cap_bytes, cap_lines)
        self.score: dict[str, float] = {}

    def value(self, key: str, day: int) -> float:
        return self.score[key] * 0.5 ** ((day - self.last[key]) / self.half_life)

    def night(self, day: int, written: tuple[wl.Entry, ...], used: tuple[str, ...]) -> None:
        for key in [e.key for e in written] + list(used):
            self.score[key] = (self.value(key, day) if key in self.score else 0.0) + 1
            self.last[key] = day
        super().night(day, written, used)

    def victim_order(self, day: int, key: str) -> tuple[float, ...]:
        return (self.value(key, day), self.last[key], self.entries[key].number)


def decayed(half_life: float) -> type[Yardstick]:
    values = {"half_life": half_life, "name": f"decayed {half_life:g} d"}
    return type(f"Decayed{half_life:g}", (Decayed,), values)


class Nap(Yardstick):
    name = "nap"

    def choose(self, day: int, candidates: set[str]) -> set[str]:
        newest = sorted((e for e in self.entries.values() if e.day <= day), key=lambda e: -e.number)
        kept = {e.key for e in newest[:5]}
        for entry in sorted((self.entries[k] for k in kept), key=lambda e: e.number):
            if not self.over(kept):
                break
            kept.discard(entry.key)
        return kept


class MemoryTiers(Yardstick):
    """Tier 1 is ``held``; tier 2 ``warm``; everything else written is tier 3."""

    name = "memory-tiers"
    stale_days = 7
    warm_days = 30

    def __init__(self, work: wl.Workload, agent: str, cap_bytes: int, cap_lines: int) -> None:
        super().__init__(work, agent, cap_bytes, cap_lines)
        self.warm: set[str] = set()

    def cold(self) -> set[str]:
        return set(self.warm)

    def choose(self, day: int, candidates: set[str]) -> set[str]:
        used_today = {k for k in candidates if self.last.get(k) == day}
        hot = {k for k in self.held if day - self.last[k] <= self.stale_days} | used_today
        self.warm = (self.warm | (self.held - hot)) - used_today
        self.warm = {k for k in self.warm if day - self.last[k] <= self.warm_days}
        for key in sorted(hot, key=lambda k: (self.count[k], self.last[k], self.entries[k].number)):
            if not self.over(hot):
                break
            hot.discard(key)
            self.warm.add(key)
        return hot


KINDS: tuple[type[Yardstick], ...] = (Ceiling, Belady, Informed, Lru, Nap, MemoryTiers)
CANDIDATES: tuple[type[Yardstick], ...] = (Lru, SecondUse, decayed(3), decayed(7), decayed(14))


def caps(work: wl.Workload, agent: str, settings: Settings) -> tuple[int, int]:
    """(bytes, lines) an agent's entries may take: the hot budget less the file's header and Core Context."""
    fixed = templates.tier_header("hot", agent, workspace=False) + work.core[agent]
    budget = settings.hot
    return budget.max_bytes - len(fixed.encode("utf-8")), budget.max_lines - fixed.count("\n")


def run(kind: type[Yardstick], work: wl.Workload, settings: Settings) -> Iterator[replay.Row]:
    """The rows of one yardstick over the workload (bytes: Core Context and held entries)."""
    sticks = {a: kind(work, a, *caps(work, a, settings)) for a in work.agents}
    pingpong = replay.PingPong()
    for day in range(1, work.days + 1):
        rows = []
        for agent in work.agents:
            stick = sticks[agent]
            held, warm = stick.spawn(day), stick.cold()
            used = work.uses[day, agent]
            hot = sum(k in held for k in used)
            cold = sum(k in warm for k in used)
            size = len(work.core[agent].encode()) + sum(stick.entries[k].bytes for k in held)
            written = work.writes[day, agent]
            before = stick.held | {e.key for e in written}
            stick.night(day, written, used)
            moves = [(k, "cold", "hot") for k in stick.held - before]
            moves += [(k, "hot", "cold") for k in before - stick.held]
            flips = pingpong.count(moves, replay.night(day))
            row = (day, agent, len(used), hot, cold, len(used) - hot - cold, size, tuple(sorted(held)))
            rows.append(replay.Row(*row, len(moves), flips))
        yield from rows
