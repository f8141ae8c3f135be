"""Is a held-out gap the luck of which teams were drawn? The spawn study's train teams, drawn again.

``bench/leak_free_study.py`` scores each team once; its held-out and new sets are 10 and 3 teams.
A margin those sets show (squadmem's share of relevant entries held, less a yardstick's, at 4, 8
and 16 KB; recall's top 5 less BM25's) could be the few teams drawn rather than how the rule does.
This draws ``--draws`` sets of as many train teams as each held-out set has, without replacement,
seeded (``--seed``, 0), from the rows a study's ``--cache`` holds, and prints, for each margin, the
share of draws in which squadmem falls behind, the 1st, 5th and 50th percentiles, the least drawn,
and the held-out and new sets' own margins beside them. A set's margin far under every draw of
train teams is not their luck: those teams differ from train's in what the margin measures.

    python -m bench.study_subsets --cache TRAIN --cache HELD --cache NEW [--draws 20000] [--seed 0]

Reads the rows only (nothing is run again); asserts nothing.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.harness import options, table

BUDGETS = ("4096", "8192", "16384")
YARDSTICKS = ("newest", "bm25", "bm25_newest")
Tally = dict[str, Any]
Margin = Callable[[Sequence[Tally]], float]


def rows(caches: Sequence[Path]) -> dict[str, list[Tally]]:
    """Each split's scored teams' tallies, from the rows in ``caches``."""
    found: dict[str, list[Tally]] = {}
    for cache in caches:
        for path in sorted(cache.glob("*.json")):
            row = json.loads(path.read_text(encoding="utf-8"))
            if "tally" in row:
                found.setdefault(row["split"], []).append(row["tally"])
    return found


def points(hits: int, teams: Sequence[Tally]) -> float:
    """``hits`` as percentage points of the teams' relevant entries."""
    return 100 * hits / max(1, sum(t["relevant"] for t in teams))


def fill_margin(budget: str, against: str | None) -> Margin:
    """squadmem's held share less ``against``'s (None: the best of the three yardsticks)."""

    def margin(teams: Sequence[Tally]) -> float:
        ours = sum(t["held"]["squadmem"][budget] for t in teams)
        names = YARDSTICKS if against is None else (against,)
        theirs = max(sum(t["held"][name][budget] for t in teams) for name in names)
        return points(ours - theirs, teams)

    return margin


def count_margin(ours: str, theirs: str) -> Margin:
    """A count of squadmem's less the yardstick's, both from the tallies (a row without one: 0):
    ``recall_found`` less ``bm25_beyond`` (recall's top 5 and BM25's of all it searches, both past
    what the spawn holds, as ``--beyond-spawn`` leaves out); ``one_away`` less ``one_away_bm25``
    (held at 4 KB or in those five)."""

    def margin(teams: Sequence[Tally]) -> float:
        return points(sum(t.get(ours, 0) - t.get(theirs, 0) for t in teams), teams)

    return margin


MARGINS: tuple[tuple[str, Margin], ...] = (
    *((f"fill {int(b) // 1024} KB − best yardstick", fill_margin(b, None)) for b in BUDGETS),
    *((f"fill {int(b) // 1024} KB − newest first", fill_margin(b, "newest")) for b in BUDGETS),
    ("recall top 5 − BM25's, past the spawn", count_margin("recall_found", "bm25_beyond")),
    ("held or recalled − held or BM25's", count_margin("one_away", "one_away_bm25")),
)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__)
    parser.add_argument("--cache", type=Path, action="append", required=True, help="a study's --cache folder")
    parser.add_argument("--draws", type=int, default=20000, help="sets of train teams drawn (20000)")
    parser.add_argument("--seed", type=int, default=0, help="the draws' seed (0)")
    args = parser.parse_args(argv)
    splits = rows(args.cache)
    train = splits.get("train", [])
    others = [s for s in ("held-out", "new") if splits.get(s)]
    if not train or not others:
        parser.error("the caches hold no train teams, or no held-out or new teams beside them")
    for split in others:
        size = len(splits[split])
        if size > len(train):
            continue
        chance = random.Random(args.seed)
        draws = [chance.sample(train, size) for _ in range(args.draws)]
        print(f"\n**{split}**: {size} teams; {args.draws} draws of {size} of the {len(train)} train teams\n")
        lines = []
        for name, margin in MARGINS:
            drawn = [margin(d) for d in draws]
            behind = sum(m < 0 for m in drawn) / len(drawn)
            lines.append(
                [
                    name,
                    f"{margin(train):+.1f}",
                    f"{behind:.1%}",
                    *(f"{percentile(drawn, q):+.1f}" for q in (0.01, 0.05, 0.5)),
                    f"{min(drawn):+.1f}",
                    f"**{margin(splits[split]):+.1f}**",
                ]
            )
        head = [
            "margin (points)",
            "all train",
            "draws behind",
            "1st pct",
            "5th pct",
            "median",
            "least",
            split,
        ]
        table(head, lines, right=7)


if __name__ == "__main__":
    main()
