"""A Squad team over months: squadmem's spawn payload against what Squad loads with its own limits.

A team of 8 agents (``squad_team.py``) works for 180 days in a real
repository: learnings appended to history.md, decisions dropped in the inbox
and merged by the Scribe, team updates, the Scribe's 15 KB summarization
gate, decisions archival and a weekly ``squad nap``. squadmem is installed
on day 0 (``squadmem init`` with its hooks, ``migrate squad``) and
``squadmem maintain`` runs every evening (it takes in the day's entries
first).

Every morning each agent is spawned. With squadmem the spawn loads
``squadmem context --agent A``; Squad itself loads ``history.md`` and
``decisions.md`` as they stand that day (after its own gates). Then each
agent uses a few entries it or the team wrote earlier, drawn by a popularity
that drifts from topic to topic (a random walk) with a bonus for recent
entries; each use is recorded with squadmem (the section's id, as ``squadmem
touch`` does) and rides on the next commit. A use is a *hit* when the entry
was in that morning's spawn payload (its section, not a line of hot's Index
naming it; Squad's load has no Index).

The *ceiling* bounds any rule within the same bytes: each morning, before
the day's draw, the entries an agent could use are ranked by their exact
odds (the popularity the draw uses) per byte of their tier section, and
taken whole, best first, while the Core Context and they fit in the payload
budget (``hot.max_bytes``, 4096 B, with the spawn's frame). A rule that
knows only the history, as squadmem's does, stays under it; Squad's rule is
measured on the bytes it actually loads, about six times more.

A spawn's task (``--task-focus F ...``, one run per value, then a table):
each morning every agent gets a task topic drawn from the same topic
popularity (a stream of draws of its own, so F = 0 leaves every use as
without it) and a sentence a coordinator would write naming it; a share F of
its uses is drawn from that topic's entries, the rest as above. squadmem
without and with ``context --task`` and Squad are scored on the same uses.

    python -m bench.squad_bench [--days 180] [--agents 8] [--every 10] [--set hot.max_bytes=8192]...
    python -m bench.squad_bench --task-focus 0 0.25 0.5 0.75

``--set TABLE.KEY=VALUE`` writes a setting into the team's tiers.toml before
the migration (the payload budget and the ceiling follow ``hot.max_bytes``).

Prints one row per day (every ``--every`` days, and the last), then a
summary. Asserts nothing. Targets: payload ≤ 4096 B every day, Core Context
in every payload, a hit rate above Squad's own.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
import random
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.gitrun import squadmem
from bench.harness import commit, options, scratch_repo, table
from bench.squad_team import AGENTS, TOPICS, SquadTeam, Written
from squadmem.commands import context, maintain, scaffold
from squadmem.commands import migrate as migrating
from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import settings, templates, uses
from squadmem.model.places import SQUAD_PLACES

USES_PER_SPAWN = (2, 4)
TARGET_BYTES = 4096  # the spawn payload, every day
# the spawn prompt around hot's sections (templates/spawn.md with nothing in it)
_FRAME = templates.read("spawn.md").format(hot="", cold="", wiki="", sections="")
REAL_SIZES: dict[str, Any] = {"learning_lines": (11, 21), "decision_lines": 5}
WEIGHT = {"learning": 1.0, "summary": 0.3, "update": 0.3, "decision": 0.15}


@dataclasses.dataclass
class Row:
    day: int
    payload_max: int
    payload_mean: float
    squad_max: int
    squad_mean: float
    core: bool
    uses: int
    hits: int
    squad_hits: int
    ceiling_hits: int
    listed: int  # uses whose entry only the Index named (a pointer, not the entry: no hit)
    by_kind: dict[str, tuple[int, int, int, int]]  # kind -> (uses, squadmem, Squad, ceiling hits)
    task_hits: int = 0  # hits of ``squadmem context --task`` (the same uses)
    task_max: int = 0  # its largest payload that day
    task_mean: float = 0.0
    task_core: bool = True
    task_by_kind: dict[str, int] = dataclasses.field(default_factory=dict)  # kind -> task hits


class Popularity:
    """Topic weights doing a random walk: what the team works on drifts."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.log = {t: rng.gauss(0, 1) for t in TOPICS}

    def step(self) -> None:
        for t in self.log:
            self.log[t] = max(-3.0, min(3.0, self.log[t] + self.rng.gauss(0, 0.35)))

    def weight(self, entry: Written, day: int) -> float:
        topic = math.exp(self.log.get(entry.topic, 0.0))
        recent = 1.0 + 2.0 * math.exp(-(day - entry.day) / 14)
        return topic * recent * WEIGHT[entry.kind]


def pick(
    rng: random.Random,
    pool: Sequence[Written],
    pop: Popularity,
    day: int,
    count: int,
    task: Task | None = None,
) -> list[Written]:
    """``count`` entries of ``pool`` by their popularity, without repeats; with a task, each use is
    drawn from the task's topic alone with the task's focus (while the pool holds an entry of it)."""
    chosen: list[Written] = []
    candidates = list(pool)
    weights = [pop.weight(e, day) for e in candidates]
    for _ in range(min(count, len(candidates))):
        among: Sequence[int] = range(len(candidates))
        if task is not None and task.focused():
            on_topic = [n for n in among if candidates[n].topic == task.topic]
            among = on_topic or among
        n = rng.choices(among, weights=[weights[i] for i in among])[0]
        chosen.append(candidates.pop(n))
        weights.pop(n)
    return chosen


TASK_TEXTS = (
    "Work on the {topic} issue reported today.",
    "Fix the {topic} bug a user reported.",
    "Review the open pull request about {topic}.",
    "Investigate why {topic} failed last night.",
)


@dataclasses.dataclass
class Task:
    """A spawn's task: a topic drawn by the day's popularity, the sentence a coordinator would write,
    and how often a use follows it (its own random stream, so a focus of 0 leaves every draw as it was)."""

    topic: str
    text: str
    focus: float
    coin: random.Random

    @classmethod
    def draw(cls, coin: random.Random, pop: Popularity, focus: float) -> Task:
        topic = coin.choices(TOPICS, weights=[math.exp(pop.log[t]) for t in TOPICS])[0]
        return cls(topic, coin.choice(TASK_TEXTS).format(topic=topic), focus, coin)

    def focused(self) -> bool:
        return self.coin.random() < self.focus


def ceiling(pool: Sequence[Written], pop: Popularity, day: int, size: dict[str, int], room: int) -> set[str]:
    """The marks of the entries an informed rule loads in ``room`` bytes: best odds per byte first."""
    known = [e for e in pool if e.mark in size]
    return best_fit(known, lambda e: pop.weight(e, day) / size[e.mark], size, room)


def best_fit(
    pool: Iterable[Written], value: Callable[[Written], float], size: Mapping[str, int], room: int
) -> set[str]:
    """The marks of ``pool``'s entries taken best ``value`` first, each that still fits ``room``."""
    chosen: set[str] = set()
    for entry in sorted(pool, key=value, reverse=True):
        if size[entry.mark] <= room:
            chosen.add(entry.mark)
            room -= size[entry.mark]
    return chosen


def _sizes(memory: catalog.Memory, written: Sequence[Written], size: dict[str, int]) -> None:
    """Bytes of the tier section holding each entry written so far (as the spawn would load it)."""
    missing = [e for e in written if e.mark not in size]
    if not missing:
        return
    by_title: dict[str, list[catalog.Entry]] = {}
    for found in memory.entries:
        by_title.setdefault(found.title, []).append(found)
    for entry in missing:
        for found in by_title.get(entry.title, []):
            if entry.mark in found.text:
                size[entry.mark] = found.bytes
                break


def configure(path: Path, overrides: Sequence[str]) -> None:
    """``TABLE.KEY=VALUE`` settings written into the tiers.toml ``squadmem init`` made."""
    lines = path.read_text("utf-8").splitlines()
    for item in overrides:
        name, _, value = item.partition("=")
        table, _, key = name.partition(".")
        start = lines.index(f"[{table}]")
        end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("[")), len(lines))
        at = next((n for n in range(start + 1, end) if lines[n].split("=")[0].strip() == key), None)
        if at is None:
            lines.insert(start + 1, f"{key} = {value}")
        else:
            lines[at] = f"{key} = {value}"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    settings.load(path.parent)  # refuses a setting squadmem does not know


def simulate(
    days: int,
    agents: Sequence[str],
    root: Path,
    overrides: Sequence[str] = (),
    focus: float = 0.0,
    real_sizes: bool = False,
) -> tuple[list[Row], str, int]:
    team, budget = _set_up(root, agents, overrides, real_sizes)
    rng = random.Random(180)
    pop = Popularity(rng)
    coin = random.Random(8180)  # the tasks and their focus: a stream of their own
    rows = []
    size: dict[str, int] = {}
    for day in range(1, days + 1):
        morning = team.when(day, 8)
        with Repo(root) as repo:
            memory = catalog.load(repo.layout)
            payloads = {a: context.context(repo, a, morning, record=False).text for a in agents}
        sections = {a: _without_index(payloads[a], memory, a) for a in agents}
        loads = {a: team.squad_load(a) for a in agents}
        _sizes(memory, team.written, size)
        earlier = [e for e in team.written if e.day < day]
        pools = {a: [e for e in earlier if e.owner == a or e.kind == "decision"] for a in agents}
        best = {a: ceiling(pools[a], pop, day, size, _room(memory, a, budget)) for a in agents}
        pop.step()
        tasks = {a: Task.draw(coin, pop, focus) for a in agents}
        tasked = {a: context.build_for_task(memory, a, tasks[a].text, budget)[0] for a in agents}
        task_sections = {a: _without_index(tasked[a], memory, a) for a in agents}
        row = Row(day, 0, 0.0, 0, 0.0, True, 0, 0, 0, 0, 0, {})
        used_ids: list[str] = []
        for agent in agents:
            for entry in pick(rng, pools[agent], pop, day, rng.randint(*USES_PER_SPAWN), tasks[agent]):
                hit = entry.mark in sections[agent]
                task_hit = entry.mark in task_sections[agent]
                row.task_hits += task_hit
                row.task_by_kind[entry.kind] = row.task_by_kind.get(entry.kind, 0) + task_hit
                row.listed += entry.mark in payloads[agent] and not hit
                squad_hit = entry.mark in loads[agent]
                top = entry.mark in best[agent]
                row.uses += 1
                row.hits += hit
                row.squad_hits += squad_hit
                row.ceiling_hits += top
                u, h, s, c = row.by_kind.get(entry.kind, (0, 0, 0, 0))
                row.by_kind[entry.kind] = (u + 1, h + hit, s + squad_hit, c + top)
                found = _section(memory, entry)
                if found is not None:
                    used_ids.append(found)
        with Repo(root) as repo:
            uses.record(repo.state_dir, dict.fromkeys(used_ids), team.when(day, 9))
        _payload_sizes(row, payloads, loads, tasked)
        rows.append(row)
        team.grow(day)
        evening = team.when(day, 18, 30)
        _env(evening)
        with Repo(root) as repo:
            maintain.maintain(repo, now=evening)
    return rows, _verify(root, team.when(days, 19)), budget


def _verify(root: Path, when: dt.datetime) -> str:
    """``squadmem verify`` over the whole history, run from this checkout: "ok", or why not."""
    checkout = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    verify = squadmem(root, "verify", "--now", when.isoformat(), env=checkout, check=False)
    return "ok" if verify.returncode == 0 else f"FAILED ({verify.out or verify.err}".strip() + ")"


def _set_up(
    root: Path, agents: Sequence[str], overrides: Sequence[str], real_sizes: bool
) -> tuple[SquadTeam, int]:
    """A Squad team founded at ``root``, then squadmem set up (hooks, the Squad skill, ``overrides``)
    and the team's entries taken in: the team, and the hot budget."""
    scratch_repo(root)
    # real teams' entries (bench/squad_corpus.py): learnings about 1.1 KB, decisions about 535 B
    team = SquadTeam(root, agents, **(REAL_SIZES if real_sizes else {}))
    team.found()
    start = team.when(0, 9, 30)
    with Repo(root) as repo:
        scaffold.init(repo, [], hooks=True, squad_skill=True)
        configure(repo.layout.memory / "tiers.toml", overrides)
        budget = settings.load(repo.layout.memory).hot.max_bytes
    _env(start)
    commit(root, {}, "squadmem init", start.isoformat())
    with Repo(root) as repo:
        migrating.squad_team(repo, maintain.load_settings(repo), start)
    return team, budget


def _payload_sizes(row: Row, payloads: dict[str, str], loads: dict[str, str], tasked: dict[str, str]) -> None:
    """The day's spawn sizes into ``row``: squadmem's plain and task spawns, and Squad's own load."""
    sizes = [len(p.encode("utf-8")) for p in payloads.values()]
    squad_sizes = [len(t.encode("utf-8")) for t in loads.values()]
    row.payload_max, row.payload_mean = max(sizes), sum(sizes) / len(sizes)
    row.squad_max, row.squad_mean = max(squad_sizes), sum(squad_sizes) / len(squad_sizes)
    row.core = all("\n## Core Context\n" in p for p in payloads.values())
    task_sizes = [len(p.encode("utf-8")) for p in tasked.values()]
    row.task_max, row.task_mean = max(task_sizes), sum(task_sizes) / len(task_sizes)
    row.task_core = all("\n## Core Context\n" in p for p in tasked.values())


def _env(when: dt.datetime) -> None:
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = when.isoformat()


def _without_index(payload: str, memory: catalog.Memory, agent: str) -> str:
    """The payload without hot's Index: its lines name entries of deeper tiers, they do not hold them."""
    for entry in memory.in_file(SQUAD_PLACES.tier_rel("hot", agent)):
        if entry.is_index:
            payload = payload.replace(entry.text.rstrip("\n"), "")
    return payload


def _room(memory: catalog.Memory, agent: str, budget: int) -> int:
    """The payload budget left for entries once the spawn's frame and the agent's Core Context are in."""
    core = "".join(e.text for e in memory.in_file(SQUAD_PLACES.tier_rel("hot", agent)) if e.pinned)
    return budget - len(_FRAME.encode("utf-8")) - len(core.encode("utf-8"))


def _section(memory: catalog.Memory, entry: Written) -> str | None:
    """The id of the tier section holding ``entry`` (what ``squadmem touch`` is given), if taken in."""
    for found in memory.entries:
        if entry.mark in found.text:
            return str(found.id)
    return None


def _rate(hits: int, total: int) -> str:
    return f"{100 * hits / total:.0f}%" if total else "-"


def _kinds(rows: Sequence[Row]) -> dict[str, list[int]]:
    """Per kind over ``rows``: [uses, squadmem hits, Squad hits, ceiling hits]."""
    kinds: dict[str, list[int]] = {}
    for r in rows:
        for kind, counts in r.by_kind.items():
            acc = kinds.setdefault(kind, [0, 0, 0, 0])
            for n, value in enumerate(counts):
                acc[n] += value
    return kinds


def _totals(rows: Sequence[Row]) -> tuple[int, int, int, int]:
    return (
        sum(r.uses for r in rows),
        sum(r.hits for r in rows),
        sum(r.squad_hits for r in rows),
        sum(r.ceiling_hits for r in rows),
    )


def _day_cells(r: Row) -> tuple[object, ...]:
    return (
        *(r.day, f"{r.payload_max} / {r.payload_mean:.0f}", f"{r.squad_max} / {r.squad_mean:.0f}"),
        *("yes" if r.core else "NO", r.uses, _rate(r.hits, r.uses), _rate(r.squad_hits, r.uses)),
        _rate(r.ceiling_hits, r.uses),
    )


def _upto_cells(rows: Sequence[Row], r: Row, kinds: Sequence[str]) -> tuple[object, ...]:
    """The hit rates of every day up to ``r``'s: overall, then per kind."""
    upto = rows[: rows.index(r) + 1]
    total, hits, squad_hits, top = _totals(upto)
    per = _kinds(upto)
    cells = [
        f"{_rate(per[k][1], per[k][0])} / {_rate(per[k][2], per[k][0])} / {_rate(per[k][3], per[k][0])}"
        f" of {per[k][0]}"
        if k in per
        else "-"
        for k in kinds
    ]
    overall = f"{_rate(hits, total)} / {_rate(squad_hits, total)} / {_rate(top, total)}"
    return (r.day, total, overall, *cells)


def report(rows: Sequence[Row], every: int, verdict: str, budget: int) -> None:
    head = (
        *("day", "squadmem payload B (max / mean)", "Squad load B (max / mean)", "Core Context", "uses"),
        *("hit rate squadmem", "hit rate Squad", f"ceiling in {budget} B"),
    )
    shown = [r for r in rows if r.day % every == 0 or r.day in (1, 30, 90) or r is rows[-1]]
    table(head, [_day_cells(r) for r in shown], right=len(head))
    print(f"\nhit rates from day 1 to the day named (squadmem / Squad / ceiling in {budget} B):\n")
    kinds = sorted(_kinds(rows))
    table(("to day", "uses", "all", *kinds), [_upto_cells(rows, r, kinds) for r in shown])
    worst = max(rows, key=lambda r: r.payload_max)
    total, hits, squad_hits, top = _totals(rows)
    print(f"\nsummary over {len(rows)} days, {total} uses:")
    ok = "ok" if worst.payload_max <= TARGET_BYTES else f"MISSED by {worst.payload_max - TARGET_BYTES} B"
    print(f"  largest payload: {worst.payload_max} B (day {worst.day}); target ≤ {TARGET_BYTES} B: {ok}")
    missing = [r.day for r in rows if not r.core]
    print(f"  Core Context in every payload: {'yes' if not missing else f'NO (days {missing[:10]})'}")
    last = rows[-1]
    print(
        f"  day {last.day}: squadmem {last.payload_mean:.0f} B per spawn, Squad {last.squad_mean:.0f} B "
        f"({last.squad_mean / last.payload_mean:.1f}x)"
    )
    listed = sum(r.listed for r in rows)
    print(f"  uses whose entry only hot's Index named (not counted as hits): {listed}")
    ok = "ok" if hits > squad_hits else "MISSED"
    print(f"  hit rate: squadmem {_rate(hits, total)}, Squad {_rate(squad_hits, total)}; target above: {ok}")
    task_hits = sum(r.task_hits for r in rows)
    ok = "ok" if task_hits > squad_hits else "MISSED"
    largest = max(rows, key=lambda r: r.task_max)
    print(
        f"  with --task: hit rate {_rate(task_hits, total)} (target above Squad's: {ok}); largest payload "
        f"{largest.task_max} B (day {largest.day}); Core Context in every payload: "
        f"{'yes' if all(r.task_core for r in rows) else 'NO'}"
    )
    print(f"  ceiling (best whole entries by their exact odds, in {budget} B): {_rate(top, total)}")
    for kind, (u, h, s, c) in sorted(_kinds(rows).items()):
        t = sum(r.task_by_kind.get(kind, 0) for r in rows)
        rates = (
            f"squadmem {_rate(h, u)}, with --task {_rate(t, u)}, Squad {_rate(s, u)}, ceiling {_rate(c, u)}"
        )
        print(f"    {kind:9s} {u:5d} uses: {rates}")
    print(f"  squadmem verify over the whole history: {verdict}")


def sweep(results: Sequence[tuple[float, Sequence[Row]]], budget: int) -> None:
    """One row per task focus: the hit rates of the same uses, and the largest payloads."""
    print(f"\nhit rate by task focus (share of uses drawn from the spawn's task topic), {budget} B budget:\n")
    head = (
        *("task focus", "uses", "squadmem", "squadmem --task", "Squad (its own load)"),
        *("ceiling without the task", "largest payload / with --task"),
    )
    table(head, [_focus_cells(focus, rows) for focus, rows in results], right=len(head))


def _focus_cells(focus: float, rows: Sequence[Row]) -> tuple[object, ...]:
    total, hits, squad_hits, top = _totals(rows)
    task_hits = sum(r.task_hits for r in rows)
    return (
        *(f"{focus:g}", total, _rate(hits, total), _rate(task_hits, total), _rate(squad_hits, total)),
        *(_rate(top, total), f"{max(r.payload_max for r in rows)} / {max(r.task_max for r in rows)} B"),
    )


def main() -> None:
    parser = options(__doc__, days=180, agents=8)
    parser.add_argument("--every", type=int, default=10, help="print every Nth day")
    parser.add_argument(
        "--set", action="append", default=[], metavar="TABLE.KEY=VALUE", help="a tiers.toml setting"
    )
    parser.add_argument(
        "--task-focus",
        type=float,
        nargs="+",
        default=[0.0],
        metavar="F",
        help="share (0..1) of uses drawn from the spawn's task topic; several values: one run each",
    )
    parser.add_argument(
        "--real-sizes",
        action="store_true",
        help="entries as large as real teams' (learnings about 1.1 KB, decisions about 535 B)",
    )
    args = parser.parse_args()
    if any(not 0 <= f <= 1 for f in args.task_focus):
        parser.error("--task-focus: each value must be from 0 to 1")
    agents = AGENTS[: args.agents]
    results = []
    for focus in args.task_focus:
        print(f"a Squad team of {len(agents)} agents over {args.days} days, squadmem maintain every evening")
        sizes = "; entries sized like real teams'" if args.real_sizes else ""
        print(f"settings: {', '.join(args.set) or 'the defaults'}; task focus {focus:g}{sizes}\n")
        with tempfile.TemporaryDirectory(prefix="squadmem-squad-") as tmp:
            rows, verdict, budget = simulate(
                args.days, agents, Path(tmp) / "team", args.set, focus, args.real_sizes
            )
        report(rows, args.every, verdict, budget)
        results.append((focus, rows))
        print()
    sweep(results, budget)


if __name__ == "__main__":
    main()
