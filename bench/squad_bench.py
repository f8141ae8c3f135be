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
was in that morning's spawn payload.

    python bench/squad_bench.py [--days 180] [--agents 8] [--every 10]

Prints one row per day (every ``--every`` days, and the last), then a
summary. Asserts nothing. Targets: payload ≤ 4096 B every day, Core Context
in every payload, a hit rate above Squad's own.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import math
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from squad_team import AGENTS, TOPICS, SquadTeam, Written

from squadmem.commands import context, maintain, scaffold
from squadmem.commands import migrate as migrating
from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import uses

USES_PER_SPAWN = (2, 4)
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
    by_kind: dict[str, tuple[int, int, int]]  # kind -> (uses, squadmem hits, Squad hits)


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


def pick(rng: random.Random, pool: Sequence[Written], pop: Popularity, day: int, count: int) -> list[Written]:
    chosen: list[Written] = []
    candidates = list(pool)
    weights = [pop.weight(e, day) for e in candidates]
    for _ in range(min(count, len(candidates))):
        n = rng.choices(range(len(candidates)), weights=weights)[0]
        chosen.append(candidates.pop(n))
        weights.pop(n)
    return chosen


def simulate(days: int, agents: Sequence[str], root: Path) -> tuple[list[Row], str]:
    os.environ["GIT_AUTHOR_NAME"] = os.environ["GIT_COMMITTER_NAME"] = "Scribe"
    os.environ["GIT_AUTHOR_EMAIL"] = os.environ["GIT_COMMITTER_EMAIL"] = "scribe@example.com"
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    team = SquadTeam(root, agents)
    team.found()
    rng = random.Random(180)
    pop = Popularity(rng)
    start = team.when(0, 9, 30)
    with Repo(root) as repo:
        scaffold.init(repo, [], hooks=True, squad_skill=True)
    _env(start)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "squadmem init"], cwd=root, check=True)
    with Repo(root) as repo:
        migrating.squad_team(repo, maintain.load_settings(repo), start)
    rows = []
    for day in range(1, days + 1):
        morning = team.when(day, 8)
        with Repo(root) as repo:
            memory = catalog.load(repo.layout)
            payloads = {a: context.context(repo, a, morning, record=False).text for a in agents}
        loads = {a: team.squad_load(a) for a in agents}
        pop.step()
        row = Row(day, 0, 0.0, 0, 0.0, True, 0, 0, 0, {})
        used_ids: list[str] = []
        for agent in agents:
            pool = [e for e in team.written if e.day < day and (e.owner == agent or e.kind == "decision")]
            for entry in pick(rng, pool, pop, day, rng.randint(*USES_PER_SPAWN)):
                hit = entry.mark in payloads[agent]
                squad_hit = entry.mark in loads[agent]
                row.uses += 1
                row.hits += hit
                row.squad_hits += squad_hit
                u, h, s = row.by_kind.get(entry.kind, (0, 0, 0))
                row.by_kind[entry.kind] = (u + 1, h + hit, s + squad_hit)
                found = _section(memory, entry)
                if found is not None:
                    used_ids.append(found)
        with Repo(root) as repo:
            uses.record(repo.state_dir, dict.fromkeys(used_ids), team.when(day, 9))
        sizes = [len(p.encode("utf-8")) for p in payloads.values()]
        squad_sizes = [len(t.encode("utf-8")) for t in loads.values()]
        row.payload_max, row.payload_mean = max(sizes), sum(sizes) / len(sizes)
        row.squad_max, row.squad_mean = max(squad_sizes), sum(squad_sizes) / len(squad_sizes)
        row.core = all("\n## Core Context\n" in p for p in payloads.values())
        rows.append(row)
        team.grow(day)
        evening = team.when(day, 18, 30)
        _env(evening)
        with Repo(root) as repo:
            maintain.maintain(repo, now=evening)
    verify = subprocess.run(
        [sys.executable, "-m", "squadmem", "verify", "--now", team.when(days, 19).isoformat()],
        cwd=root,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent)),
    )
    verdict = "ok" if verify.returncode == 0 else f"FAILED ({verify.stdout or verify.stderr}".strip() + ")"
    return rows, verdict


def _env(when: dt.datetime) -> None:
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = when.isoformat()


def _section(memory: catalog.Memory, entry: Written) -> str | None:
    """The id of the tier section holding ``entry`` (what ``squadmem touch`` is given), if taken in."""
    for found in memory.entries:
        if entry.mark in found.text:
            return str(found.id)
    return None


def _rate(hits: int, total: int) -> str:
    return f"{100 * hits / total:.0f}%" if total else "-"


def report(rows: Sequence[Row], every: int, verdict: str) -> None:
    print(
        "| day | squadmem payload B (max / mean) | Squad load B (max / mean) | Core Context "
        "| uses | hit rate squadmem | hit rate Squad |"
    )
    print("|---:|---:|---:|:---:|---:|---:|---:|")
    for r in rows:
        if r.day % every == 0 or r.day in (1, 30, 90) or r is rows[-1]:
            print(
                f"| {r.day} | {r.payload_max} / {r.payload_mean:.0f} | {r.squad_max} / {r.squad_mean:.0f} "
                f"| {'yes' if r.core else 'NO'} | {r.uses} | {_rate(r.hits, r.uses)} "
                f"| {_rate(r.squad_hits, r.uses)} |"
            )
    worst = max(rows, key=lambda r: r.payload_max)
    total = sum(r.uses for r in rows)
    hits = sum(r.hits for r in rows)
    squad_hits = sum(r.squad_hits for r in rows)
    print(f"\nsummary over {len(rows)} days, {total} uses:")
    ok = "ok" if worst.payload_max <= 4096 else f"MISSED by {worst.payload_max - 4096} B"
    print(f"  largest payload: {worst.payload_max} B (day {worst.day}); target ≤ 4096 B: {ok}")
    missing = [r.day for r in rows if not r.core]
    print(f"  Core Context in every payload: {'yes' if not missing else f'NO (days {missing[:10]})'}")
    last = rows[-1]
    print(
        f"  day {last.day}: squadmem {last.payload_mean:.0f} B per spawn, Squad {last.squad_mean:.0f} B "
        f"({last.squad_mean / last.payload_mean:.1f}x)"
    )
    ok = "ok" if hits > squad_hits else "MISSED"
    print(f"  hit rate: squadmem {_rate(hits, total)}, Squad {_rate(squad_hits, total)}; target above: {ok}")
    kinds: dict[str, list[int]] = {}
    for r in rows:
        for kind, (u, h, s) in r.by_kind.items():
            acc = kinds.setdefault(kind, [0, 0, 0])
            acc[0] += u
            acc[1] += h
            acc[2] += s
    for kind, (u, h, s) in sorted(kinds.items()):
        print(f"    {kind:9s} {u:5d} uses: squadmem {_rate(h, u)}, Squad {_rate(s, u)}")
    print(f"  squadmem verify over the whole history: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--every", type=int, default=10, help="print every Nth day")
    args = parser.parse_args()
    agents = AGENTS[: args.agents]
    print(f"a Squad team of {len(agents)} agents over {args.days} days, squadmem maintain every evening\n")
    with tempfile.TemporaryDirectory(prefix="squadmem-squad-") as tmp:
        rows, verdict = simulate(args.days, agents, Path(tmp) / "team")
    report(rows, args.every, verdict)


if __name__ == "__main__":
    main()
