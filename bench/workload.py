"""A drifting workload for hot memory: what a Squad team writes, and which older entries it uses.

Seeded and deterministic (the same ``Params`` give the same workload on any
machine). Each of ``agents`` agents works ``days`` days:

- **writes**: every day it writes ``writes`` (1-2) new entries, each a
  ``## <Topic> <noun> nNNNN`` section of 3-7 bullet lines (about 200-450 B),
  on a topic drawn by the day's popularity; ``decision_share`` of them are
  decisions (a workload label only: no ``kind=`` flag, so they stay in the
  agent's tiers);
- **uses**: every day it uses ``uses`` (3-7) distinct entries written on
  earlier days: a topic is drawn by the day's popularity, then an entry of
  that topic with weight ``appeal * exp(-age / recency_days)`` (recent work
  is what is used), or, for a ``tail_share`` of the uses, with weight
  ``appeal`` whatever its age (the long tail: anything ever written may be
  looked up again). An entry's appeal is drawn once, log-normal
  (``appeal_sigma``): a few entries are the ones everybody goes back to,
  most are read once or never. The tail is a fixed share of the uses, so the
  workload does not drift towards old entries as history grows;
- **drift**: a topic's popularity is its Zipf base weight (``rank ** -zipf``)
  times ``focus_boost`` while it is in focus. ``hot_topics`` topics are in
  focus at a time; each focus spell ends with chance ``1 / focus_days`` a day
  and is replaced, with chance ``return_bias`` by a topic that was in focus
  before (hot topics fade and return), else by a fresh draw;
- **bursts**: with chance ``burst_chance`` a day, an agent goes back to one
  decision older than ``burst_min_age`` days and uses it every day for
  ``burst_days`` (2-4) days (an incident on an old decision).

Every agent also has a pinned ``## Core Context`` section (its charter),
always loaded and never counted as a use.

``build(Params())`` returns the :class:`Workload`; ``bench/hit_rate.py`` replays
it through squadmem and the yardsticks. The default is the team of the
measurements in ``docs/hit-rate.md``: 8 agents, 180 days, seed 13.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator

from squadmem.model import sections

NAMES = ("picard", "riker", "data", "worf", "troi", "crusher", "laforge", "yar", "obrien", "guinan")
TOPICS = (
    "ledger",
    "auth",
    "billing",
    "search",
    "deploys",
    "caching",
    "webhooks",
    "exports",
    "quotas",
    "alerts",
    "schema",
    "tracing",
    "payments",
    "onboarding",
    "storage",
    "routing",
)
NOUNS = ("notes", "findings", "plan", "gotchas", "checklist", "design", "review", "runbook", "decision")
WORDS = (
    "retry budget holds under load",
    "the writer lock is taken first",
    "keep timestamps in utc everywhere",
    "the replica lags behind the primary",
    "rollback needs the previous schema",
    "the queue drains before the deploy",
    "tokens rotate every quarter",
    "cache keys carry the tenant",
    "alerts page the owner, not the channel",
    "exports stream in pages of a thousand",
    "the parser rejects trailing commas",
    "quotas reset at midnight",
    "webhooks are signed and replay safe",
    "the index is rebuilt after a migration",
    "search ranks titles above bodies",
    "tracing samples one request in ten",
)


@dataclasses.dataclass(frozen=True)
class Params:
    agents: int = 8
    days: int = 180
    seed: int = 13
    topics: int = 12
    zipf: float = 1.2
    hot_topics: int = 3
    focus_days: float = 12.0
    focus_boost: float = 12.0
    return_bias: float = 0.6
    writes: tuple[int, int] = (1, 2)
    uses: tuple[int, int] = (3, 7)
    recency_days: float = 7.0
    tail_share: float = 0.15
    appeal_sigma: float = 1.0
    decision_share: float = 0.15
    burst_chance: float = 0.03
    burst_min_age: int = 30
    burst_days: tuple[int, int] = (2, 4)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One section an agent writes: its key is ``<agent>/<slug>``, squadmem's id."""

    agent: str
    number: int
    day: int
    topic: str
    title: str
    text: str
    decision: bool
    appeal: float

    @property
    def key(self) -> str:
        return f"{self.agent}/{slug(self.title)}"

    @property
    def token(self) -> str:
        """A word only this entry holds: ``recall`` finds it with it."""
        return f"n{self.number:04d}"

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def lines(self) -> int:
        return self.text.count("\n")


@dataclasses.dataclass(frozen=True)
class Workload:
    params: Params
    agents: tuple[str, ...]
    core: dict[str, str]  # agent -> its pinned Core Context section
    writes: dict[tuple[int, str], tuple[Entry, ...]]  # (day, agent) -> entries written that day
    uses: dict[tuple[int, str], tuple[str, ...]]  # (day, agent) -> keys of older entries used that day
    popularity: dict[tuple[int, str], dict[str, float]]  # (day, agent) -> topic weights that day

    @property
    def days(self) -> int:
        return self.params.days

    def entries(self) -> Iterator[Entry]:
        for written in self.writes.values():
            yield from written

    def by_key(self) -> dict[str, Entry]:
        return {e.key: e for e in self.entries()}

    def use_days(self) -> dict[str, list[int]]:
        """Key -> the days it is used, ascending."""
        found: dict[str, list[int]] = {}
        for (day, _), keys in sorted(self.uses.items()):
            for key in keys:
                found.setdefault(key, []).append(day)
        return found


def slug(title: str) -> str:
    return sections.slugify(title)


def core_context(agent: str) -> str:
    return (
        "## Core Context\n<!-- squadmem: pin -->\n"
        f"- {agent} owns the areas in the team charter and answers for them in review\n"
        "- ask the Scribe before rewriting a decision; link the decision page in the pull request\n"
    )


class _Agent:
    """One agent's random stream, focus topics and entries."""

    def __init__(self, params: Params, name: str) -> None:
        self.p = params
        self.name = name
        self.rng = random.Random(f"{params.seed}:{name}")
        topics = list(TOPICS[: params.topics])
        self.rng.shuffle(topics)
        self.topics = topics
        self.base = {t: (rank + 1) ** -params.zipf for rank, t in enumerate(topics)}
        self.focus = self.rng.sample(topics, params.hot_topics)
        self.was_focus = set(self.focus)
        self.entries: list[Entry] = []
        self.bursts: list[tuple[str, int]] = []  # (key, last day)

    def drift(self) -> None:
        for i in range(len(self.focus)):
            if self.rng.random() >= 1 / self.p.focus_days:
                continue
            rest = [t for t in self.topics if t not in self.focus]
            returning = [t for t in rest if t in self.was_focus]
            if returning and self.rng.random() < self.p.return_bias:
                self.focus[i] = self.rng.choice(returning)
            else:
                self.focus[i] = self.rng.choices(rest, [self.base[t] for t in rest])[0]
            self.was_focus.add(self.focus[i])

    def weight(self, topic: str) -> float:
        return self.base[topic] * (self.p.focus_boost if topic in self.focus else 1.0)

    def topic(self) -> str:
        return self.rng.choices(self.topics, [self.weight(t) for t in self.topics])[0]

    def write(self, day: int, number: int) -> Entry:
        topic = self.topic()
        decision = self.rng.random() < self.p.decision_share
        noun = "decision" if decision else self.rng.choice(NOUNS[:-1])
        title = f"{topic.title()} {noun} n{number:04d}"
        lines = [
            f"- {self.rng.choice(WORDS)}; {self.rng.choice(WORDS)}" for _ in range(self.rng.randint(3, 7))
        ]
        text = f"## {title}\n" + "\n".join(lines) + "\n"
        appeal = math.exp(self.rng.gauss(0.0, self.p.appeal_sigma))
        return Entry(self.name, number, day, topic, title, text, decision, appeal)

    def use(self, day: int) -> tuple[str, ...]:
        older = [e for e in self.entries if e.day < day]
        if not older:
            return ()
        chosen: list[str] = []
        for _ in range(self.rng.randint(*self.p.uses)):
            for _attempt in range(6):
                topic = self.topic()
                pool = [e for e in older if e.topic == topic and e.key not in chosen]
                if pool:
                    weights = self.pull(pool, day, self.rng.random() < self.p.tail_share)
                    chosen.append(self.rng.choices(pool, weights)[0].key)
                    break
        self.start_burst(day, older)
        for key, last in self.bursts:
            if last >= day and key not in chosen:
                chosen.append(key)
        return tuple(chosen)

    def pull(self, pool: list[Entry], day: int, tail: bool) -> list[float]:
        if tail:
            return [e.appeal for e in pool]
        return [e.appeal * math.exp(-(day - e.day) / self.p.recency_days) for e in pool]

    def start_burst(self, day: int, older: list[Entry]) -> None:
        if self.rng.random() >= self.p.burst_chance:
            return
        old = [e for e in older if e.decision and day - e.day > self.p.burst_min_age]
        if old:
            key = self.rng.choice(old).key
            self.bursts.append((key, day + self.rng.randint(*self.p.burst_days) - 1))


def build(params: Params | None = None) -> Workload:
    """The workload of ``params`` (deterministic)."""
    params = params or Params()
    names = NAMES[: params.agents]
    agents = [_Agent(params, name) for name in names]
    writes: dict[tuple[int, str], tuple[Entry, ...]] = {}
    uses: dict[tuple[int, str], tuple[str, ...]] = {}
    popularity: dict[tuple[int, str], dict[str, float]] = {}
    for day in range(1, params.days + 1):
        for agent in agents:
            agent.drift()
            popularity[day, agent.name] = {t: agent.weight(t) for t in agent.topics}
            uses[day, agent.name] = agent.use(day)
            new = tuple(
                agent.write(day, len(agent.entries) + i + 1) for i in range(agent.rng.randint(*params.writes))
            )
            agent.entries.extend(new)
            writes[day, agent.name] = new
    return Workload(params, tuple(names), {n: core_context(n) for n in names}, writes, uses, popularity)


def summary(workload: Workload) -> str:
    entries = list(workload.entries())
    used = sum(len(k) for k in workload.uses.values())
    distinct = len(workload.use_days())
    size = sum(e.bytes for e in entries) / max(len(entries), 1)
    return (
        f"{len(workload.agents)} agents x {workload.days} days: {len(entries)} entries written "
        f"(mean {size:.0f} B), {used} uses of {distinct} distinct entries"
    )
