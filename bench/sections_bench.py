"""Throughput of the section scanner on tier-file Markdown, next to markdown-it-py's full parse.

Run: ``python -m bench.sections_bench [--mb 5] [--repeat 5]``. Prints a table; asserts nothing.
Times are CPU seconds of this process (best of the repeats), so other work on the machine
disturbs them less than wall-clock time would.
"""

from __future__ import annotations

import argparse
import random

from bench.paired import best_cpu
from squadmem.model import sections

WORDS = [
    "token", "session", "decided", "auth", "refresh", "cache", "retry", "budget", "hot", "cold", "wiki",
    "archive", "index", "commit", "review", "agent", "scribe", "policy", "move", "verify", "hook", "branch",
    "merge", "section", "heading", "daily", "log", "picard", "riker", "data", "worf", "troi", "crusher",
    "expiry", "window", "trailer", "history", "shallow", "clone", "rebase", "fixture",
]  # fmt: skip


def sentence(rng: random.Random, low: int = 6, high: int = 16) -> str:
    words = rng.choices(WORDS, k=rng.randint(low, high))
    if rng.random() < 0.3:
        words[rng.randrange(len(words))] = f"`{rng.choice(WORDS)}()`"
    if rng.random() < 0.2:
        words[rng.randrange(len(words))] = f"[{rng.choice(WORDS)}](https://example.com/{rng.choice(WORDS)})"
    return " ".join(words).capitalize() + "."


def bullet_list(rng: random.Random) -> list[str]:
    out = []
    for _ in range(rng.randint(2, 8)):
        out.append(f"- {sentence(rng)}")
        if rng.random() < 0.2:
            out.append(f"  {sentence(rng)}")
        if rng.random() < 0.15:
            out.extend(f"  - {sentence(rng, 3, 8)}" for _ in range(rng.randint(1, 3)))
    return out


def ordered_list(rng: random.Random) -> list[str]:
    return [f"{n}. {sentence(rng)}" for n in range(1, rng.randint(3, 7))]


def paragraph(rng: random.Random) -> list[str]:
    return [sentence(rng, 8, 20) for _ in range(rng.randint(1, 4))]


def fence(rng: random.Random) -> list[str]:
    body = [f"{'    ' * rng.randint(0, 2)}{rng.choice(WORDS)} = {rng.choice(WORDS)}()" for _ in range(6)]
    if rng.random() < 0.3:
        body.append("## not a heading: inside code")
    return ["```python", *body[: rng.randint(2, 6)], "```"]


def quote(rng: random.Random) -> list[str]:
    return [f"> {sentence(rng)}" for _ in range(rng.randint(1, 3))]


def references(rng: random.Random) -> list[str]:
    return [f"[{n}]: https://example.com/{rng.choice(WORDS)} '{rng.choice(WORDS)}'" for n in range(1, 4)]


def section(rng: random.Random, number: int) -> list[str]:
    title = " ".join(rng.choices(WORDS, k=rng.randint(2, 5))).title()
    out = [title, "-" * len(title)] if rng.random() < 0.1 else [f"## {title} {number}"]  # setext or ATX
    if rng.random() < 0.4:
        kind = rng.choice(["kind=decision topic=security", "pin", "kind=fact"])
        out.append(f"<!-- squadmem: id={rng.choice(WORDS)}-{number} {kind} -->")
    blocks = (bullet_list, bullet_list, paragraph, paragraph, ordered_list, fence, quote, references)
    for _ in range(rng.randint(2, 6)):
        out.append("")
        if rng.random() < 0.25:
            out.extend([f"### {rng.choice(WORDS).title()}", ""])
        out.extend(rng.choice(blocks)(rng))
    out.append("")
    return out


def tier_markdown(size: int, seed: int = 7) -> str:
    """About ``size`` characters of hot/cold tier file: header, then sections."""
    rng = random.Random(seed)
    out = ["# Picard — cold memory", "", "<!-- squadmem tier file -->", ""]
    total = 0
    number = 0
    while total < size:
        chunk = section(rng, number)
        number += 1
        total += sum(len(line) + 1 for line in chunk)
        out.extend(chunk)
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=5.0, help="size of the generated Markdown")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (best is kept)")
    args = parser.parse_args()

    text = tier_markdown(int(args.mb * 1_000_000))
    megabytes = len(text.encode()) / 1e6
    crlf = text.replace("\n", "\r\n")
    found = len(sections.boundaries(text))
    print(f"{megabytes:.2f} MB, {text.count(chr(10))} lines, {found} sections")
    rows: list[tuple[str, float]] = [
        ("sections.split", best_cpu(args.repeat, lambda: sections.split(text))),
        ("sections.boundaries", best_cpu(args.repeat, lambda: sections.boundaries(text))),
        ("sections.split (CRLF)", best_cpu(args.repeat, lambda: sections.split(crlf))),
    ]
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        print("markdown-it-py not installed: no comparison")
    else:
        parse = MarkdownIt("commonmark").parse
        seconds = best_cpu(max(1, args.repeat // 3), lambda: parse(text))
        rows.append(("markdown-it-py parse (commonmark)", seconds))
    print(f"{'what':<36}{'CPU s':>10}{'MB/s':>10}")
    for name, seconds in rows:
        print(f"{name:<36}{seconds:>10.3f}{megabytes / seconds:>10.1f}")


if __name__ == "__main__":
    main()
