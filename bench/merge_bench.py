"""Benchmark: ``git merge`` of two branches that each ran ``maintain``, with and without the driver.

One repository (``squadmem init``, one agent with hot notes and cold facts of
different ages); branch *side* adds notes and runs ``maintain`` a week later
than *main* does, so the two runs move the same sections to different tiers
(main: hot -> cold; side: hot -> archive, cold -> wiki). Then, taking turns,
``git merge -X ours side`` and ``-X theirs`` with squadmem's merge driver and
with git's line merge (``merge=text`` in ``.git/info/attributes``), each
undone with ``git reset --hard`` before the next. The table gives, for each,
the sections after the merge (distinct titles, lost, doubled) and the median
time of the whole ``git merge`` process; the driver's merge is paired round
by round with git's line merge (``bench/paired.py``), and its ratio is the
median of the per-round ratios.

    python -m bench.merge_bench [--rounds 11] [--notes 10]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.gitrun import git, squadmem
from bench.harness import Command, compare, environment
from squadmem.model import sections
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"


def _commit(root: Path, files: dict[str, str], message: str, date: str) -> None:
    for rel, text in files.items():
        (root / rel).write_text(text, "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message, date=date)


def build(root: Path, notes: int) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "user.email", "bench@example.com")
    squadmem(root, "init", "--agent", "picard", "--no-hooks")
    early = "".join(f"## Note {n}\nnote {n}\n\n" for n in range(notes))
    facts = "".join(f"## Fact {n}\n<!-- squadmem: kind=fact -->\nfact {n}\n\n" for n in range(notes))
    _commit(root, {HOT: f"# Hot\n\n{early}", COLD: f"# Cold\n\n{facts}"}, "setup", "2026-01-01T10:00:00Z")
    later = "".join(f"## Later {n}\nlater {n}\n\n" for n in range(notes // 2))
    _commit(root, {HOT: f"# Hot\n\n{early}{later}"}, "more", "2026-01-20T10:00:00Z")
    git(root, "checkout", "-q", "-b", "side")
    side = (root / HOT).read_text("utf-8") + "## Side 1\ns1\n\n## Side 2\ns2\n"
    _commit(root, {HOT: side}, "side notes", "2026-02-05T10:00:00Z")
    squadmem(root, "maintain", "--now", "2026-02-06T12:00:00Z")
    git(root, "checkout", "-q", "main")
    squadmem(root, "maintain", "--now", "2026-01-25T12:00:00Z")


def titles(root: Path) -> list[str]:
    found = []
    for path in sorted((root / MEMORY_DIR).glob("*/*.md")):
        if path.parent.name != "log":
            text = path.read_text("utf-8", "replace")
            found += [s.raw_heading.strip() for s in sections.split(text).sections]
    return [t for t in found if t != "Index → Deeper Tiers"]


def _attributes(root: Path, driver: bool) -> None:
    attributes = root / ".git" / "info" / "attributes"
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("" if driver else f"{MEMORY_DIR}/** merge=text\n", "utf-8")


def merge(root: Path, strategy: str, driver: bool, tip: str) -> Command:
    """``git merge -X strategy side`` from ``tip``, with or without squadmem's driver (a conflict is
    an outcome, not a failure)."""

    def before() -> None:
        git(root, "reset", "-q", "--hard", tip)
        _attributes(root, driver)

    argv = ("git", "merge", "-q", "--no-edit", "-X", strategy, "side")
    return Command(argv, cwd=root, env=environment(), before=before, ok=(0, 1))


def merged_titles(root: Path, strategy: str, driver: bool, tip: str) -> list[str]:
    merge(root, strategy, driver, tip).run()
    found = titles(root)
    git(root, "reset", "-q", "--hard", tip)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--notes", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="squadmem-merge-bench-") as folder:
        root = Path(folder)
        build(root, args.notes)
        expected = set(titles(root))
        git(root, "checkout", "-q", "side")
        expected |= set(titles(root))
        git(root, "checkout", "-q", "main")
        tip = git(root, "rev-parse", "HEAD").out.strip()
        rows = []
        for strategy in ("ours", "theirs"):
            driver = merged_titles(root, strategy, True, tip)
            line = merged_titles(root, strategy, False, tip)
            timed = compare(
                merge(root, strategy, True, tip), merge(root, strategy, False, tip), rounds=args.rounds
            )
            rows.append((strategy, True, driver, timed.candidate, f"{timed.ratio:.2f}×"))
            rows.append((strategy, False, line, timed.yardstick, "yardstick"))
    print(
        f"two maintained branches, {len(expected)} distinct sections; {args.rounds} paired rounds, medians\n"
    )
    print("| merge | tier files merged by | sections | distinct | lost | doubled | time | paired ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for strategy, uses_driver, found, median, ratio in rows:
        lost = len(expected - set(found))
        doubled = len(found) - len(set(found))
        how = "squadmem's driver" if uses_driver else "git's line merge"
        counts = f"{len(found)} | {len(set(found))} | {lost} | {doubled}"
        print(f"| `-X {strategy}` | {how} | {counts} | {median * 1000:.0f} ms | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
