"""Which spawn payload could beat Squad's hit rate: selection rules at byte budgets, same workload.

``squad_bench.py`` drives the real tool; this replays the same team (the same
seed, the same entries) and the same uses (the same popularity walk and
draws) without squadmem, and asks, for a payload of B bytes: which entries
would a rule load, and how many of the day's uses would they hold? An entry
costs the bytes of the tier section squadmem makes of it
(:func:`squadmem.model.squad.entries`); the spawn's frame and the agent's
Core Context come first, as in ``squadmem context``. Rules:

- ``informed``: the best odds per byte first (the odds the draw itself uses,
  as of the spawn): no rule that reads only the history does better on
  average; ``informed, own``: the same without decisions;
- ``newest``: Squad's own rule in the same bytes (what its gates keep: the
  newest entries, the agent's and the decisions, by the day they were written);
- ``lru``: the agent's own entries, most recently used or written first (what
  squadmem's tier rules keep in hot, without its Index);
- ``lru + decisions``: the same over the agent's entries and the decisions;
- ``lru + team decisions``: decisions ranked by the team's last use (any
  agent's spawn) instead of the agent's own;
- ``share N``: the team's most recently used or written decisions in N bytes,
  then the agent's own by ``lru``;
- ``lru x bytes``: the agent's own entries, smallest (days since last use or
  write) x bytes first (a size-aware LRU, as GreedyDual-Size);
- ``lru + title topic``: an entry counts as used when another entry of the
  agent whose title has the same words (numbers and dates left out) was
  used: the topic, as far as titles tell it.

With a spawn's task (``--task-focus F``: a share F of each agent's uses is
drawn from its task's topic, as in ``squad_bench.py``; ``--real-sizes``:
entries as large as real teams'), rules that read the task, each filling the
room with the sections matching its words in their order, then with the
agent's own by ``lru``:

- ``task: informed``: the draw's exact odds, the task's focus included, per
  byte: the ceiling for a rule that knows the task;
- ``task: squadmem``: ``context --task``'s order
  (:func:`squadmem.engine.search.ranking.rank`): the task's rarer words first, then
  more occurrences per character;
- ``task: most occurrences first (before)``: more of the task's words first,
  then more occurrences: the order squadmem used before;
- ``task: newest first``, ``task: densest x freshness`` (density times
  1 + 2·e^(-age/14), the draw's own recency bonus), ``task: bm25`` (Okapi
  BM25), and ``task: densest, 1/4 kept for hot`` (a quarter of the room kept
  from the matches for the agent's recently used entries).

    python -m bench.squad_ceiling [--days 180] [--agents 8] [--budgets 4096 6144 ...]
    python -m bench.squad_ceiling --real-sizes --task-focus 0.5 --budgets 4096

Prints one table (hit rate per rule and budget, Squad's own rule beside), then
each rule's hit rate per kind at the first budget. Asserts nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from bench import squad_bench
from bench.harness import options, scratch_repo, table
from bench.squad_team import AGENTS, SquadTeam, Written
from squadmem.engine.search import ranking
from squadmem.model import squad

DEFAULT_BUDGETS = (4096, 5120, 6144, 8192, 12288)
SHARES = (512, 1024)
Rule = Callable[[str, int], set[str]]  # (agent, room in bytes) -> marks loaded
TaskRule = Callable[[str, int, "squad_bench.Task"], set[str]]  # the same, knowing the spawn's task
Order = Callable[[Sequence["_Doc"], Sequence[str]], list["_Doc"]]  # the matches, best first


class Replay:
    """The team as squad_bench grows it, with each entry's size and every use so far."""

    def __init__(
        self, root: Path, agents: Sequence[str], *, real_sizes: bool = False, focus: float = 0.0
    ) -> None:
        scratch_repo(root)
        self.team = SquadTeam(root, agents, **(squad_bench.REAL_SIZES if real_sizes else {}))
        self.team.found()
        self.agents = tuple(agents)
        self.rng = random.Random(180)  # squad_bench's seed: the same walk, the same draws
        self.pop = squad_bench.Popularity(self.rng)
        self.coin = random.Random(8180)  # squad_bench's task stream
        self.focus = focus
        self.size: dict[str, int] = {}
        self.text: dict[str, str] = {}  # mark -> the tier section's text
        self.core: dict[str, int] = {}
        self.used: dict[tuple[str, str], int] = {}  # (agent or "team", mark) -> day of its last use
        self.day = 0
        self.measure()

    def measure(self) -> None:
        """Sizes of the entries written so far, and each agent's Core Context, as tier sections."""
        texts: list[str] = []
        for path in sorted(self.team.root.glob(".squad/**/*.md")):
            rel = path.relative_to(self.team.root).as_posix()
            for entry in squad.entries(rel, path.read_text("utf-8")):
                texts.append(entry.text)
                if entry.kind == "core":
                    self.core[entry.owner] = len(entry.text.encode("utf-8"))
        for written in self.team.written:
            if written.mark not in self.size:
                found = next((t for t in texts if written.mark in t), None)
                if found is not None:
                    self.size[written.mark] = len(found.encode("utf-8"))
                    self.text[written.mark] = found

    def pool(self, agent: str) -> list[Written]:
        return [
            e
            for e in self.team.written
            if e.day < self.day and e.mark in self.size and (e.owner == agent or e.kind == "decision")
        ]

    def room(self, agent: str, budget: int) -> int:
        return budget - len(squad_bench._FRAME.encode("utf-8")) - self.core.get(agent, 0)

    def recency(self, agent: str, entry: Written, team: bool = False) -> int:
        who = "team" if team and entry.kind == "decision" else agent
        return max(self.used.get((who, entry.mark), -1), entry.day)

    # -- rules -----------------------------------------------------------------------------------
    def informed(self, agent: str, room: int, own: bool = False) -> set[str]:
        pool = [e for e in self.pool(agent) if not own or e.owner == agent]
        return squad_bench.best_fit(
            pool, lambda e: self.pop.weight(e, self.day) / self.size[e.mark], self.size, room
        )

    def newest(self, agent: str, room: int) -> set[str]:
        return _fill(sorted(self.pool(agent), key=lambda e: e.day, reverse=True), self.size, room)

    def lru(self, agent: str, room: int, decisions: bool = False, team: bool = False) -> set[str]:
        pool = [e for e in self.pool(agent) if decisions or e.owner == agent]
        order = sorted(pool, key=lambda e: self.recency(agent, e, team), reverse=True)
        return _fill(order, self.size, room)

    def share(self, agent: str, room: int, part: int) -> set[str]:
        decisions = [e for e in self.pool(agent) if e.kind == "decision"]
        first = _fill(
            sorted(decisions, key=lambda e: self.recency(agent, e, True), reverse=True), self.size, part
        )
        left = room - sum(self.size[m] for m in first)
        return first | self.lru(agent, left)

    def rules(self) -> dict[str, Rule]:
        found: dict[str, Rule] = {
            "informed": self.informed,
            "informed, own": lambda a, r: self.informed(a, r, own=True),
            "newest": self.newest,
            "lru": self.lru,
            "lru + decisions": lambda a, r: self.lru(a, r, decisions=True),
            "lru + team decisions": lambda a, r: self.lru(a, r, decisions=True, team=True),
        }
        for part in SHARES:
            found[f"share {part}"] = functools.partial(self.share, part=part)
        found["lru x bytes"] = self.sized
        found["lru + title topic"] = self.topical
        return found

    def sized(self, agent: str, room: int) -> set[str]:
        own = [e for e in self.pool(agent) if e.owner == agent]
        cost = {e.mark: (self.day - self.recency(agent, e) + 0.5) * self.size[e.mark] for e in own}
        return squad_bench.best_fit(own, lambda e: -cost[e.mark], self.size, room)

    def topical(self, agent: str, room: int) -> set[str]:
        own = [e for e in self.pool(agent) if e.owner == agent]

        def key(e: Written) -> tuple[int, int]:
            topic = _words(e.title)
            shared = self.used.get((agent, "topic:" + topic), -1) if topic else -1
            return max(self.recency(agent, e), shared), self.recency(agent, e)

        return _fill(sorted(own, key=key, reverse=True), self.size, room)

    # -- rules that read the spawn's task (``--task-focus``) ----------------------------------------
    def task_informed(self, agent: str, room: int, task: squad_bench.Task) -> set[str]:
        """The exact odds of the day's draw, the task's focus included, per byte."""
        pool = self.pool(agent)
        weight = {e.mark: self.pop.weight(e, self.day) for e in pool}
        total = sum(weight.values()) or 1.0
        on_topic = sum(weight[e.mark] for e in pool if e.topic == task.topic)
        focus = task.focus if on_topic else 0.0

        def odds(e: Written) -> float:
            p = (1 - focus) * weight[e.mark] / total
            if e.topic == task.topic and on_topic:
                p += focus * weight[e.mark] / on_topic
            return p / self.size[e.mark]

        return squad_bench.best_fit(pool, odds, self.size, room)

    def task_matches(
        self, agent: str, room: int, task: squad_bench.Task, order: Order, reserve: float = 0.0
    ) -> set[str]:
        """The sections matching the task's words in ``order``, each while it fits (``reserve``: a share
        of the room kept from them); then the agent's own by ``lru`` in what is left (hot's sections,
        as ``context --task`` adds them; it follows hot's order, which ``lru`` stands for here)."""
        pool = self.pool(agent)
        docs = [_Doc(self.text[e.mark], e.title, e, self.recency(agent, e)) for e in pool]
        terms = ranking.task_terms(task.text, docs) if docs else []
        chosen: set[str] = set()
        kept = int(room * reserve)
        room -= kept
        for doc in order(docs, terms) if terms else []:
            if self.size[doc.entry.mark] <= room:
                chosen.add(doc.entry.mark)
                room -= self.size[doc.entry.mark]
        room += kept
        own = [e for e in pool if e.owner == agent and e.mark not in chosen]
        for entry in sorted(own, key=lambda e: self.recency(agent, e), reverse=True):
            if self.size[entry.mark] <= room:
                chosen.add(entry.mark)
                room -= self.size[entry.mark]
        return chosen

    def task_rules(self) -> dict[str, TaskRule]:
        def squadmem(docs: Sequence[_Doc], terms: Sequence[str]) -> list[_Doc]:
            return [d for d, _ in ranking.rank(docs, terms, every=False)]

        def by(key: Callable[[_Doc, int, int], float]) -> Order:
            def order(docs: Sequence[_Doc], terms: Sequence[str]) -> list[_Doc]:
                held = {id(d): ranking.match(d, terms) for d in docs}
                found = [d for d in docs if held[id(d)][1]]
                return sorted(found, key=lambda d: (-held[id(d)][0], -key(d, *held[id(d)])))

            return order

        def fresh(d: _Doc, held: int, points: int) -> float:
            return points / len(d.text) * (1 + 2 * math.exp(-(self.day - d.recency) / 14))

        return {
            "task: informed": self.task_informed,
            "task: squadmem": lambda a, r, t: self.task_matches(a, r, t, squadmem),
            "task: most occurrences first (before)": lambda a, r, t: self.task_matches(
                a, r, t, by(lambda d, held, points: points)
            ),
            "task: newest first": lambda a, r, t: self.task_matches(
                a, r, t, by(lambda d, held, points: d.recency)
            ),
            "task: densest x freshness": lambda a, r, t: self.task_matches(a, r, t, by(fresh)),
            "task: bm25": lambda a, r, t: self.task_matches(a, r, t, _bm25_order),
            "task: densest, 1/4 kept for hot": lambda a, r, t: self.task_matches(a, r, t, squadmem, 0.25),
        }

    # -- one day ---------------------------------------------------------------------------------
    def step(self, budgets: Sequence[int], tally: Callable[[str, int, str, bool], None]) -> None:
        self.day += 1
        loads = {a: self.team.squad_load(a) for a in self.agents}
        rules = self.rules()
        loaded = {
            (name, budget, a): rule(a, self.room(a, budget))
            for name, rule in rules.items()
            for budget in budgets
            for a in self.agents
        }
        self.pop.step()
        tasks = {a: squad_bench.Task.draw(self.coin, self.pop, self.focus) for a in self.agents}
        task_rules = self.task_rules()
        loaded.update(
            ((name, budget, a), rule(a, self.room(a, budget), tasks[a]))
            for name, rule in task_rules.items()
            for budget in budgets
            for a in self.agents
        )
        for agent in self.agents:
            pool = [
                e
                for e in self.team.written
                if e.day < self.day and (e.owner == agent or e.kind == "decision")
            ]
            count = self.rng.randint(*squad_bench.USES_PER_SPAWN)
            for entry in squad_bench.pick(self.rng, pool, self.pop, self.day, count, tasks[agent]):
                tally("Squad (its own load)", 0, entry.kind, entry.mark in loads[agent])
                for name in [*rules, *task_rules]:
                    for budget in budgets:
                        tally(name, budget, entry.kind, entry.mark in loaded[(name, budget, agent)])
                self.used[(agent, entry.mark)] = self.day
                self.used[(agent, "topic:" + _words(entry.title))] = self.day
                if entry.kind == "decision":
                    self.used[("team", entry.mark)] = self.day
        self.team.grow(self.day)
        self.measure()


@dataclasses.dataclass(frozen=True)
class _Doc:
    """An entry as a tier section (what ``squadmem.engine.search.ranking`` ranks), with its last use or
    write."""

    text: str
    title: str
    entry: Written
    recency: int


def _bm25_order(docs: Sequence[_Doc], terms: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[_Doc]:
    """Okapi BM25 over the agent's sections (the usual k1 and b), the newest first among equals."""
    folded = [d.text.casefold() for d in docs]
    df = {t: sum(1 for f in folded if t in f) for t in terms}
    avg = sum(len(d.text) for d in docs) / len(docs)
    scored = []
    for doc in docs:
        total = 0.0
        for term, tf in zip(terms, ranking.counts(doc, terms), strict=True):
            idf = math.log((len(docs) - df[term] + 0.5) / (df[term] + 0.5) + 1)
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc.text) / avg))
        if total:
            scored.append((total, doc))
    return [d for _, d in sorted(scored, key=lambda item: (-item[0], -item[1].recency))]


def _words(title: str) -> str:
    """A title's words, without numbers, dates and the update marker: what entries of one topic share."""
    words = re.findall(r"[^\W\d_]+", title.lower())
    return " ".join(w for w in words if w not in ("team", "update", "t", "z"))


def _fill(order: Iterable[Written], size: Mapping[str, int], room: int) -> set[str]:
    """Entries in ``order`` while they fit (the first that does not stops the fill, as a budget pass)."""
    chosen: set[str] = set()
    for entry in order:
        if size[entry.mark] > room:
            break
        chosen.add(entry.mark)
        room -= size[entry.mark]
    return chosen


def main() -> None:
    parser = options(__doc__, days=180, agents=8)
    parser.add_argument("--budgets", type=int, nargs="+", default=list(DEFAULT_BUDGETS))
    parser.add_argument(
        "--task-focus", type=float, default=0.0, metavar="F", help="share of uses drawn from the task's topic"
    )
    parser.add_argument("--real-sizes", action="store_true", help="entries as large as real teams'")
    args = parser.parse_args()
    counts: dict[tuple[str, int], dict[str, list[int]]] = {}

    def tally(rule: str, budget: int, kind: str, hit: bool) -> None:
        for k in (kind, "all"):
            acc = counts.setdefault((rule, budget), {}).setdefault(k, [0, 0])
            acc[0] += 1
            acc[1] += hit

    with tempfile.TemporaryDirectory(prefix="squadmem-ceiling-") as tmp:
        replay = Replay(
            Path(tmp) / "team", AGENTS[: args.agents], real_sizes=args.real_sizes, focus=args.task_focus
        )
        for _ in range(args.days):
            replay.step(args.budgets, tally)
    squad_rate = counts[("Squad (its own load)", 0)]["all"]
    print(f"a Squad team of {args.agents} agents over {args.days} days, {squad_rate[0]} uses")
    print(f"Squad's own rule (its whole gated load): {_rate(squad_rate)}\n")
    rules = list(dict.fromkeys(rule for rule, budget in counts if budget))
    rows = [(rule, *(_rate(counts[(rule, b)]["all"]) for b in args.budgets)) for rule in rules]
    table(("rule", *(f"{b:,} B" for b in args.budgets)), rows, len(args.budgets))
    first = args.budgets[0]
    kinds = sorted(k for k in counts[("Squad (its own load)", 0)] if k != "all")
    print(
        f"\nper kind, at {first:,} B (uses: "
        + ", ".join(f"{k} {counts[('Squad (its own load)', 0)][k][0]}" for k in kinds)
        + "):\n"
    )
    shown = [("Squad (its own load)", 0), *((r, first) for r in rules)]
    rows = [(rule, *(_rate(counts[(rule, b)].get(k)) for k in kinds)) for rule, b in shown]
    table(("rule", *kinds), rows, len(kinds))


def _rate(count: list[int] | None) -> str:
    """A [uses, hits] count as a share; "-" where there were no uses."""
    return squad_bench._rate(count[1], count[0]) if count else "-"


if __name__ == "__main__":
    main()
