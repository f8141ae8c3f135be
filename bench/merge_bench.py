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
by round with git's line merge (``bench/harness.py``), and its ratio is the
median of the per-round ratios.

    python -m bench.merge_bench [--rounds 11] [--notes 10]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.gitrun import git, squadmem
from bench.harness import Command, commit, compare, environment, options, scratch_repo, table
from squadmem.model import sections
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"


def build(root: Path, notes: int) -> None:
    scratch_repo(root, "picard")
    early = "".join(f"## Note {n}\nnote {n}\n\n" for n in range(notes))
    facts = "".join(f"## Fact {n}\n<!-- squadmem: kind=fact -->\nfact {n}\n\n" for n in range(notes))
    commit(root, {HOT: f"# Hot\n\n{early}", COLD: f"# Cold\n\n{facts}"}, "setup", "2026-01-01T10:00:00Z")
    later = "".join(f"## Later {n}\nlater {n}\n\n" for n in range(notes // 2))
    commit(root, {HOT: f"# Hot\n\n{early}{later}"}, "more", "2026-01-20T10:00:00Z")
    git(root, "checkout", "-q", "-b", "side")
    side = (root / HOT).read_text("utf-8") + "## Side 1\ns1\n\n## Side 2\ns2\n"
    commit(root, {HOT: side}, "side notes", "2026-02-05T10:00:00Z")
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
    parser = options(__doc__, rounds=11)
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
    header = ("merge", "tier files merged by", "sections", "distinct", "lost", "doubled", "time")
    table((*header, "paired ratio"), (cells(expected, *row) for row in rows), right=6)
    return 0


def cells(
    expected: set[str], strategy: str, driver: bool, found: list[str], median: float, ratio: str
) -> tuple[object, ...]:
    """A table row: the merge, how tier files merged, the sections counted, its time and ratio."""
    how = "squadmem's driver" if driver else "git's line merge"
    distinct = len(set(found))
    lost, doubled = len(expected - set(found)), len(found) - distinct
    return f"`-X {strategy}`", how, len(found), distinct, lost, doubled, f"{median * 1000:.0f} ms", ratio


if __name__ == "__main__":
    raise SystemExit(main())
