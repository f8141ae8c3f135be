"""Fill orders for a spawn of fixed bytes, scored offline on real teams' logged spawns.

``squad_replay.py --dump DIR`` writes, for every spawn a team's orchestration
logs record, what the agent's tiers held just before it (each section's text,
its file, whether pinned, when it was first seen) and which entries the
logged work turned out to name (``squad_spawns.py``'s relevant entries). This
scores ways to fill the room the pinned sections leave in ``--budget`` bytes
on those records in seconds, without a replay, so an order can be tried and
kept or dropped on the evidence; ``squad_replay.py`` then measures the one
squadmem ships with the real command.

Every order is given the same room: the budget less the spawn's frame and
its pinned sections. A section goes in whole or not at all, in the order's
turn, while it fits. The bound no order passes is the relevant sections
themselves, smallest first (the most of them that fit).

``--pointers R ...`` scores a spawn that also *names* what did not fit:
squadmem's order fills the room less ``R`` bytes with whole sections, then
the rest of the room with one line per further match under the heading and
note ``context --task`` writes, as hot's Index names a section (``- id (tier,
date): title``; squadmem's own lines leave the date out), for the agent to
bring. A
relevant entry is then held, named, or neither.

    python -m bench.squad_replay REPO... --dump DIR
    python -m bench.spawn_study DIR [--budget 4096 ...] [--pointers 0 512 ...]

Prints one row per order: the share of relevant entries held, at each
budget, over every repository, and over each half of them (the repositories
in name order, alternately), so an order chosen on one half can be checked
on the other; with ``--pointers``, a row per reserve. Asserts nothing.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from bench.harness import options, table
from squadmem.commands.context import MORE_HEADING, MORE_NOTE, TASK_HEADING
from squadmem.engine.search import ranking
from squadmem.model import render, sections, templates


@dataclasses.dataclass(frozen=True)
class Section:
    key: str
    title: str
    text: str
    file: str
    pinned: bool
    born: int  # the order the replay first saw its entry in; -1 when it never did (a wiki page)

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))


@dataclasses.dataclass(frozen=True)
class Spawn:
    repo: str
    agent: str
    task: str
    relevant: frozenset[str]
    sections: tuple[Section, ...]

    @property
    def candidates(self) -> list[Section]:
        return [s for s in self.sections if not s.pinned]

    @property
    def hot(self) -> list[Section]:
        return [s for s in self.candidates if s.file.startswith(".squad/memory/hot/")]

    def room(self, budget: int) -> int:
        frame = templates.read("spawn.md").format(hot="", cold="", wiki="", sections=f"\n{TASK_HEADING}\n\n")
        return budget - len(frame.encode()) - sum(s.bytes for s in self.sections if s.pinned)


Order = Callable[[Spawn], list[Section]]


def spawns(folder: Path) -> Iterator[Spawn]:
    for path in sorted(folder.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                yield Spawn(
                    path.stem,
                    record["agent"],
                    record["task"],
                    frozenset(record["relevant"]),
                    tuple(Section(**s) for s in record["sections"]),
                )


def fill(order: Sequence[Section], room: int) -> set[str]:
    """The keys of the sections taken whole, in ``order``, while they fit in ``room`` bytes."""
    taken: set[str] = set()
    used = 0
    for section in order:
        if section.key not in taken and used + section.bytes <= room:
            taken.add(section.key)
            used += section.bytes
    return taken


def ranked(spawn: Spawn) -> list[Section]:
    """``context --task``'s matches, best first (squadmem's ranking)."""
    candidates = spawn.candidates
    terms = ranking.task_terms(spawn.task, candidates)
    return [s for s, _ in ranking.rank(candidates, terms, every=False)] if terms else []


def newest(spawn: Spawn) -> list[Section]:
    return sorted(spawn.candidates, key=lambda s: -s.born)


def own_first(order: Order) -> Order:
    def ordered(spawn: Spawn) -> list[Section]:
        found = order(spawn)
        return [s for s in found if "/wiki/" not in s.file] + [s for s in found if "/wiki/" in s.file]

    return ordered


def then(*orders: Order) -> Order:
    def ordered(spawn: Spawn) -> list[Section]:
        return [s for order in orders for s in order(spawn)]

    return ordered


def oracle(spawn: Spawn) -> list[Section]:
    return sorted((s for s in spawn.candidates if s.key in spawn.relevant), key=lambda s: s.bytes)


def per_byte(spawn: Spawn) -> list[Section]:
    """The matches by the weight of the task words they hold per square root of their bytes."""
    candidates = spawn.candidates
    terms = ranking.task_terms(spawn.task, candidates)
    if not terms:
        return []
    weight = ranking.weights(candidates, terms)
    scored = []
    for s in candidates:
        held = [t for t, n in zip(terms, ranking.counts(s, terms), strict=True) if n]
        if held:
            scored.append((sum(weight[t] for t in held) / math.sqrt(s.bytes), s))
    scored.sort(key=lambda pair: -pair[0])
    return [s for _, s in scored]


ORDERS: dict[str, Order] = {
    "the relevant ones, smallest first (the bound)": oracle,
    "squadmem: the task's matches, then hot": then(ranked, lambda s: s.hot),
    "the task's matches, then the newest": then(ranked, newest),
    "the agent's own matches first, then hot": then(own_first(ranked), lambda s: s.hot),
    "matches by weight per root of bytes, then hot": then(per_byte, lambda s: s.hot),
    "the newest": newest,
    "hot": lambda s: s.hot,
}


def pointer_bytes(section: Section) -> int:
    """What naming ``section`` costs: a line as hot's Index writes one."""
    tier, name = section.file.split("/")[-2], section.file.rsplit("/", 1)[-1].removesuffix(".md")
    ident = f"{name}/{sections.slugify(section.title)}"
    return len((render.named(ident, f"{tier}, 2026-01-01", section.title) + "\n").encode("utf-8"))


def pointed(spawn: Spawn, budget: int, reserve: int) -> tuple[set[str], set[str]]:
    """(held, named): squadmem's order in the room less ``reserve``, then a line for each further match
    while the room lasts."""
    order = ranked(spawn)
    room = spawn.room(budget)
    held = fill([*order, *spawn.hot], room - reserve)
    left = room - sum(s.bytes for s in spawn.candidates if s.key in held)
    head = f"\n{MORE_HEADING}\n\n{MORE_NOTE.format(agent=spawn.agent)}\n\n"
    left -= len(head.encode("utf-8"))  # paid once, with the first line
    named: set[str] = set()
    for section in order:
        if section.key in held or section.key in named:
            continue
        cost = pointer_bytes(section)
        if cost > left:
            break
        named.add(section.key)
        left -= cost
    return held, named


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__)
    parser.add_argument("dump", type=Path, help="the folder squad_replay.py --dump wrote")
    parser.add_argument("--budget", type=int, nargs="+", default=[4096], help="payload budgets (4096)")
    parser.add_argument(
        "--pointers",
        type=int,
        nargs="+",
        metavar="R",
        help="also score naming what did not fit, reserving R B",
    )
    args = parser.parse_args(argv)
    found = list(spawns(args.dump))
    repos = sorted({s.repo for s in found})
    halves = [set(repos[0::2]), set(repos[1::2])]
    uses = [sum(len(s.relevant) for s in found if s.repo in half) for half in halves]
    total = sum(uses)
    print(f"{len(found)} spawns of {len(repos)} repositories, {total} relevant entries", end=" ")
    print(f"({uses[0]} / {uses[1]})\n")
    rows = []
    for name, order in ORDERS.items():
        cells = []
        for budget in args.budget:
            hits = [0, 0]
            for spawn in found:
                taken = fill(order(spawn), spawn.room(budget))
                hits[spawn.repo in halves[1]] += len(spawn.relevant & taken)
            a, b = (hits[n] / max(1, uses[n]) for n in (0, 1))
            cells.append(f"{sum(hits) / max(1, total):.1%} ({a:.1%} / {b:.1%})")
        rows.append((name, *cells))
    table(("order", *(f"{b:,} B (half A / half B)" for b in args.budget)), rows)
    if args.pointers:
        print("\nsquadmem's order, then a line naming each further match: held + named = either\n")
        rows = []
        for reserve in args.pointers:
            cells = []
            for budget in args.budget:
                held = named = 0
                for spawn in found:
                    kept, lines = pointed(spawn, budget, reserve)
                    held += len(spawn.relevant & kept)
                    named += len(spawn.relevant & lines)
                n = max(1, total)
                cells.append(f"{held / n:.1%} + {named / n:.1%} = {(held + named) / n:.1%}")
            rows.append((f"{reserve:,} B", *cells))
        table(("reserved for lines", *(f"{b:,} B" for b in args.budget)), rows)


if __name__ == "__main__":
    main()
