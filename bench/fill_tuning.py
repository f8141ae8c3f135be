"""The ``--task`` fill order tuned offline on the pools ``bench/leak_free_study.py`` wrote.

Each spawn's pool (every candidate's BM25 score on the task, stated date, when history first holds
it, tier, place and bytes, the room each budget leaves, which candidates hold which relevant entry)
is filled as ``context --task`` fills it, in the room its Index of what it left out leaves (the room
kept for it before the fill, as the pool records it): ``squadmem.engine.search.spawn_fill.order``'s
first part while each fits, then the rest of hot in its order, then a line naming each further match, then
every other deeper section newest first. Each setting of the order (``WEIGHT``: what being the
newest adds to a score scaled to the best match's 1; ``HOURS``: how fast that fades) is scored at
4, 8 and 16 KB: the share of relevant entries held, of all and of those at least 6 hours old, and
its least margin over the best of the three yardsticks filled from the same pool in the same room
(newest first; BM25 on the task, here squadmem's own BM25 scores; BM25 then newest). The rule kept
is the one with the largest least margin, all entries. Run it on the train teams' pools only; the
held-out figures come from the real command.

    python -m bench.leak_free_study --clones DIR --split train --cache TRAIN
    python -m bench.fill_tuning TRAIN/*.pools.jsonl [--index-lines] [--slices]

Prints the yardsticks, then one row per setting, best least margin first. ``--index-lines`` prints the
room kept for the Index scored at 0 to 4 of its newest lines (besides its heading and its last line,
at most a tenth of the budget), with the kept order. ``--slices`` prints the
yardsticks again for the spawns sliced by how long before the spawn the team last wrote (the newest
candidate's time in history; the moment read back from a relevant entry's time and age). Asserts
nothing."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.harness import options, table
from squadmem.engine.search import ranking, spawn_fill

BUDGETS = (4096, 8192, 16384)
WEIGHTS = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0)
HOURS = (0.5, 1.0, 2.0, 3.0, 6.0, 12.0, 24.0)
INDEX_LINES = (0, 1, 2, 3, 4)  # hot.index_max_entries is 5: its last line counts the rest
WEIGHT, HOURS_KEPT = spawn_fill.WEIGHT, spawn_fill.HOURS
MORE_HEAD = 150  # the named lines' heading and note, about
RECENT_HEAD = 20
YARDSTICKS = ("newest", "bm25", "bm25_newest")
Scores = dict[int, tuple[float, float]]  # budget -> (share of all relevant held, of those >= 6 h)


def candidates(record: dict[str, Any]) -> list[spawn_fill.Candidate]:
    return [
        spawn_fill.Candidate(
            c["score"], c["stated"], ranking.DEPTH.get(c["tier"], 4), c["position"], c.get("seen"), c["bytes"]
        )
        for c in record["candidates"]
    ]


def kept(record: dict[str, Any], budget: int, lines: int | None = None) -> int:
    """The room ``context --task`` keeps for its Index before the fill: the pool's own record of it
    (``reserves``), or with ``lines``, the heading, the last line and the newest ``lines`` lines of
    what it would leave out, at most a tenth of ``budget``; 0 for a pool that records neither."""
    if lines is None:
        return int(record.get("reserves", {}).get(str(budget), 0))
    if "index_least" not in record:
        return 0
    least = int(record["index_least"])
    return max(least, min(least + sum(record["index_lines"][:lines]), budget // 10))


def held(
    record: dict[str, Any], budget: int, weight: float, hours: float, index_lines: int | None = None
) -> set[int]:
    """The candidates the spawn holds at ``budget`` with that order (see the module's docstring), in
    the room its Index leaves (:func:`kept`)."""
    listed = record["candidates"]
    cands = candidates(record)
    room = record["rooms"][str(budget)] - kept(record, budget, index_lines)
    first, later = spawn_fill.order(cands, weight=weight, hours=hours)
    sizes = [c["bytes"] for c in listed]
    taken = spawn_fill.fill(sizes, first, room)
    left = room - sum(sizes[n] for n in taken)
    hot = sorted(
        (n for n, c in enumerate(listed) if c["hot"] and n not in taken), key=lambda n: listed[n]["position"]
    )
    for n in spawn_fill.fill(sizes, hot, left):
        taken.append(n)
        left -= sizes[n]
    chosen = set(taken)
    named: set[int] = set()
    left -= MORE_HEAD
    for n in first:
        if cands[n].score > 0 and n not in chosen and listed[n]["line"] <= left:
            named.add(n)
            left -= listed[n]["line"]
    rest = [n for n in later if not listed[n]["hot"] and n not in chosen and n not in named]
    chosen.update(spawn_fill.fill(sizes, rest, left - RECENT_HEAD))
    return chosen


def yardstick(record: dict[str, Any], budget: int, name: str) -> set[int]:
    """What newest first, BM25 or BM25 then newest takes whole from the pool into the same room."""
    cands = candidates(record)
    latest = spawn_fill.newest(cands)
    matches = sorted((n for n, c in enumerate(cands) if c.score > 0), key=lambda n: (-cands[n].score, n))
    order = {"newest": latest, "bm25": matches, "bm25_newest": matches + latest}[name]
    return set(spawn_fill.fill([c.size for c in cands], order, record["rooms"][str(budget)]))


def score(records: Sequence[dict[str, Any]], chooser: Callable[[dict[str, Any], int], set[int]]) -> Scores:
    out = {}
    for budget in BUDGETS:
        hits = aged_hits = total = aged = 0
        for record in records:
            chosen = chooser(record, budget)
            for holders, age in zip(record["holders"], record["ages_h"], strict=True):
                hit = bool(chosen & set(holders))
                total += 1
                hits += hit
                if age >= 6:
                    aged += 1
                    aged_hits += hit
        out[budget] = (hits / max(1, total), aged_hits / max(1, aged))
    return out


SLICES = ((0.0, 0.5), (0.5, 2.0), (2.0, 6.0), (6.0, 24.0), (24.0, float("inf")))  # hours


def quiet_hours(record: dict[str, Any]) -> float | None:
    """How long before the spawn the team last wrote: the moment (a relevant entry's time in history
    plus its age) less the newest candidate's time; None without a dated relevant entry."""
    listed = record["candidates"]
    moments = [
        min(seen) + age * 3600
        for holders, age in zip(record["holders"], record["ages_h"], strict=True)
        if (seen := [listed[n]["seen"] for n in holders if listed[n].get("seen")])
    ]
    newest = max((c.get("seen") or 0.0 for c in listed), default=0.0)
    return (max(moments) - newest) / 3600 if moments and newest else None


def slices(records: Sequence[dict[str, Any]]) -> None:
    rows = []
    for low, high in SLICES:
        chosen = [r for r in records if (q := quiet_hours(r)) is not None and low <= max(0.0, q) < high]
        found = [score(chosen, functools.partial(yardstick, name=name)) for name in YARDSTICKS]
        held = [" / ".join(f"{a:.1%}" for a, _ in f.values()) for f in found]
        rows.append([f"{low:g}–{high:g} h", len(chosen), sum(len(r["holders"]) for r in chosen), *held])
    print()
    heads = [f"{name}: 4 / 8 / 16 KB" for name in YARDSTICKS]
    table(["team last wrote before the spawn", "spawns", "relevant", *heads], rows, right=2 + len(heads))


def cells(found: Scores) -> list[str]:
    return [f"{a:.1%} / {g:.1%}" for a, g in found.values()]


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__)
    parser.add_argument("dump", type=Path, nargs="+", help="the pools leak_free_study.py --dump wrote")
    parser.add_argument("--slices", action="store_true", help="the yardsticks by how long the team was quiet")
    parser.add_argument(
        "--index-lines",
        action="store_true",
        help="the kept order with room kept for 0 to 4 of the Index's newest lines before the fill",
    )
    args = parser.parse_args(argv)
    records = [
        json.loads(line) for path in args.dump for line in path.read_text(encoding="utf-8").splitlines()
    ]
    yards = {name: score(records, functools.partial(yardstick, name=name)) for name in YARDSTICKS}
    best = {b: max(found[b][0] for found in yards.values()) for b in BUDGETS}
    rows = []
    for weight, hours in itertools.product(WEIGHTS, HOURS):
        found = score(records, functools.partial(held, weight=weight, hours=hours))
        rows.append((min(found[b][0] - best[b] for b in BUDGETS), weight, hours, found))
    print(f"{len(records)} spawns\n")
    head = ["order", *(f"{b // 1024} KB (all / ≥ 6 h)" for b in BUDGETS), "least margin"]
    lines = [[name, *cells(found), ""] for name, found in yards.items()]
    lines += [
        [f"weight {weight:g}, {hours:g} h", *cells(found), f"{margin * 100:+.1f}"]
        for margin, weight, hours, found in sorted(rows, key=lambda r: -r[0])
    ]
    table(head, lines, right=len(BUDGETS) + 1)
    if args.index_lines:
        print()
        index_rows = []
        for count in INDEX_LINES:
            chooser = functools.partial(held, weight=WEIGHT, hours=HOURS_KEPT, index_lines=count)
            found = score(records, chooser)
            margin = min(found[b][0] - best[b] for b in BUDGETS)
            index_rows.append([f"room for {count} Index line(s)", *cells(found), f"{margin * 100:+.1f}"])
        table(head, index_rows, right=len(BUDGETS) + 1)
    if args.slices:
        slices(records)


if __name__ == "__main__":
    main()
