"""How `recall` orders its best hundred, looked at offline on the real-team study's recalls.

``python -m bench.squad_study ... --dump-recalls FILE`` writes, for every recall the study runs (the
one an agent types when its work touches a thing: a file stem, ``#123``, a name), the real
command's best 100 sections in its order, with their texts, and the relevant entries that recall
should find. This reads such a file and scores orders of those same candidates: the share of
(recall, relevant entry) pairs whose entry is in the first 5, as the study counts "one recall
away". Each order re-sorts the real order stably by a key, so "today" is exactly what `recall`
listed and every other row is what `recall` would list with that key in front of its own.

Choose an order on the train split's file only; the held-out split is measured by the study itself,
with the real command, after the choice is in the code.

    python -m bench.recall_rerank FILE [--top 5]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from squadmem.engine import ranking
from squadmem.engine.search_index import literal_key, names

Candidate = tuple[str, str, str]  # id, content key (hex), text
Key = Callable[[str, str, Candidate], Any]  # query, agent, candidate


def read(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def in_title(query: str, text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0].casefold()
    return all(w in first for w in ranking.tokens(query))


KEYS: dict[str, Key] = {
    "today (recall's own order)": lambda q, a, c: 0,
    "names it first": lambda q, a, c: not names(q, c[2]),
    "in its title first": lambda q, a, c: not in_title(q, c[2]),
    "newest first (stated date)": lambda q, a, c: _newest_key(c[2]),
    "shortest first": lambda q, a, c: len(c[2]),
    "the agent's own first": lambda q, a, c: not c[0].startswith(f"{a}/"),
    "most mentions first": lambda q, a, c: -mentions(q, c[2]),
    "names it, then newest": lambda q, a, c: (not names(q, c[2]), _newest_key(c[2])),
    "names it, then title": lambda q, a, c: (not names(q, c[2]), not in_title(q, c[2])),
    "names it, then the agent's own": lambda q, a, c: (not names(q, c[2]), not c[0].startswith(f"{a}/")),
    "names it, then most mentions": lambda q, a, c: (not names(q, c[2]), -mentions(q, c[2])),
}


AVGDL, TITLE_AVGDL = 247.0, 5.9  # words in a section and in its title, on average, in the train dump


def _saturated(tf: int, length: int, b: float, average: float) -> float:
    """BM25's weight for ``tf`` occurrences in a text of ``length`` words (:data:`ranking.K1`)."""
    return 0.0 if tf == 0 else tf * (ranking.K1 + 1) / (tf + ranking.K1 * (1 - b + b * length / average))


def _phrase_count(words: Sequence[str], parts: Sequence[str]) -> int:
    """How often ``parts`` stand in ``words`` in order, the last as a prefix (as FTS5 matches them)."""
    n = len(parts)
    return sum(
        words[i : i + n - 1] == list(parts[:-1]) and words[i + n - 1].startswith(parts[-1])
        for i in range(len(words) - n + 1)
    )


def bm25_order(b: float) -> Key:
    """Naming first, as ``recall`` (``search_index.literal_first``), then BM25 for the one phrase a
    recall's word makes, over the title (weighing twice) and the text, the text's length normalized by
    ``b`` (SQLite's ``bm25()``: 0.75, which gives recall's own order back)."""

    def key(query: str, agent: str, c: Candidate) -> tuple[int, int, int, float]:
        parts = ranking.tokens(query)
        text = c[2]
        title = ranking.tokens(text.lstrip().split("\n", 1)[0].lstrip("#"))
        body = ranking.tokens(text)
        weight = 2 * _saturated(_phrase_count(title, parts), len(title), 0.75, TITLE_AVGDL)
        weight += _saturated(_phrase_count(body, parts), len(body), b, AVGDL)
        return (*literal_key([query])(text), -weight)

    return key


KEYS.update({f"names it, then BM25 with b = {b}": bm25_order(b) for b in (0.75, 0.5, 0.2)})


def mentions(query: str, text: str) -> int:
    """How often the query, case folded, stands in the text."""
    return text.casefold().count(query.casefold())


def _newest_key(text: str) -> str:
    date = ranking.stated_date(text) or "0000-00-00"
    return "".join(chr(0x7F - ord(ch)) for ch in date)  # later dates sort first


def score(rows: Sequence[dict[str, Any]], key: Key, top: int) -> tuple[int, int]:
    """(relevant entries in the first ``top``, relevant entries asked for) over every recall."""
    hits = asked = 0
    for row in rows:
        query, agent = str(row["query"]), str(row.get("agent", ""))
        candidates = [(str(i), str(k), str(t)) for i, k, t in row["candidates"]]
        ordered = sorted(candidates, key=lambda c: key(query, agent, c))
        first = {c[1] for c in ordered[:top]}
        wanted = set(row["wanted"])
        hits += len(wanted & first)
        asked += len(wanted)
    return hits, asked


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path, help="the file squad_study.py --dump-recalls wrote")
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args(argv)
    rows = list(read(args.dump))
    print(f"{len(rows)} recalls from {args.dump.name}\n")
    print(f"| order | relevant in the first {args.top} | share |")
    print("|---|---:|---:|")
    for name, key in KEYS.items():
        hits, asked = score(rows, key, args.top)
        print(f"| {name} | {hits} of {asked} | {100 * hits / max(1, asked):.1f}% |")
    hits, asked = score(rows, KEYS["today (recall's own order)"], 100)
    bound = f"{100 * hits / max(1, asked):.1f}%"
    print(f"| (the bound: anywhere in the best 100) | {hits} of {asked} | {bound} |")


if __name__ == "__main__":
    main()
