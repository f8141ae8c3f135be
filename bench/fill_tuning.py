"""The ``--task`` fill order tuned offline on the pools ``bench/leak_free_study.py`` wrote.

Each spawn's pool (every candidate's BM25 score on the task, stated date, when history first holds
it, tier, place and bytes, the room each budget leaves, which candidates hold which relevant entry)
is filled as ``context --task`` fills it: ``squadmem.engine.search.spawn_fill.order``'s first part (the
newest in a share of the room, then the matches) while each fits, then the rest of hot in its
order, then a line naming each further one, then every other deeper section newest first. Each
setting of the order (the newest's share of the room, how much a recent section raises a match) is
scored at 4, 8 and 16 KB: the share of relevant entries held, of all and of those at least 6 hours
old. Run it on the train teams' pools only; the held-out figures come from the real command.

    python -m bench.leak_free_study --clones DIR --split train --cache TRAIN
    python -m bench.fill_tuning TRAIN/*.pools.jsonl

Prints one row per setting, best (summed over the budgets) first. Asserts nothing."""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from squadmem.engine.search import ranking, spawn_fill

BUDGETS = (4096, 8192, 16384)
SHARES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)
WEIGHTS = (0.0, 0.5, 1.0, 2.0)
HALF_DAYS = spawn_fill.HALF_DAYS
MORE_HEAD = 150  # the named lines' heading and note, about
RECENT_HEAD = 20


def held(record: dict[str, Any], budget: int, share: float, weight: float) -> set[int]:
    """The candidates the spawn holds at ``budget`` with that order (see the module's docstring)."""
    listed = record["candidates"]
    cands = [
        spawn_fill.Candidate(
            c["score"], c["stated"], ranking.DEPTH.get(c["tier"], 4), c["position"], c.get("seen"), c["bytes"]
        )
        for c in listed
    ]
    room = record["rooms"][str(budget)]
    first, later = spawn_fill.order(cands, room, share=share, weight=weight, half_days=HALF_DAYS)
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
        if n not in chosen and listed[n]["line"] <= left:
            named.add(n)
            left -= listed[n]["line"]
    rest = [n for n in later if not listed[n]["hot"] and n not in chosen and n not in named]
    chosen.update(spawn_fill.fill(sizes, rest, left - RECENT_HEAD))
    return chosen


def score(records: Sequence[dict[str, Any]], share: float, weight: float) -> dict[int, tuple[float, float]]:
    out = {}
    for budget in BUDGETS:
        hits = aged_hits = total = aged = 0
        for record in records:
            chosen = held(record, budget, share, weight)
            for holders, age in zip(record["holders"], record["ages_h"], strict=True):
                hit = bool(chosen & set(holders))
                total += 1
                hits += hit
                if age >= 6:
                    aged += 1
                    aged_hits += hit
        out[budget] = (hits / max(1, total), aged_hits / max(1, aged))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path, nargs="+", help="the pools leak_free_study.py --dump wrote")
    args = parser.parse_args(argv)
    records = [
        json.loads(line) for path in args.dump for line in path.read_text(encoding="utf-8").splitlines()
    ]
    rows = []
    for share, weight in itertools.product(SHARES, WEIGHTS):
        found = score(records, share, weight)
        rows.append((sum(a for a, _ in found.values()), share, weight, found))
    print(f"{len(records)} spawns\n")
    print("| newest share | weight | " + " | ".join(f"{b // 1024} KB (all / ≥ 6 h)" for b in BUDGETS) + " |")
    print("|---:|---:|" + "---:|" * len(BUDGETS))
    for _, share, weight, found in sorted(rows, key=lambda r: -r[0]):
        cells = [f"{a:.1%} / {g:.1%}" for a, g in found.values()]
        print(f"| {share:g} | {weight:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
