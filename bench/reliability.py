"""Reliability figures: crashes injected at every step of a move, and concurrent writers.

- *crash at every step*: in a fresh copy of a seeded repository (three agents,
  moves of every kind due), ``squadmem maintain`` is killed at each step of
  the n-th commit (``SQUADMEM_FAULT=<step>@<n>``, every step of ``writer.STEPS``,
  n = 1..3), then ``squadmem doctor --fix`` and a second ``maintain`` run. It
  counts runs where a section went missing or doubled in HEAD (checked right
  after the crash and after recovery), where the work tree or index differ
  from HEAD after recovery, and where the final tier files differ from those
  of an uninterrupted run.
- *concurrent writers*: rounds of eight ``squadmem`` writing processes
  (``demote``, ``promote``, ``maintain``) started at once on one repository;
  it counts failed processes, lost and doubled sections.

    python -m bench.reliability [--rounds 5]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.gitrun import SQUADMEM, git, squadmem
from bench.harness import Stopwatch, commit, options, scratch_repo, table
from squadmem.engine import catalog
from squadmem.engine.writing import writer
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.sections import trimmed

OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-02-20T12:00:00+00:00"


def locked(fault: str | None = None) -> dict[str, str]:
    """squadmem's environment: a long wait on a busy lock, and a crash injected at ``fault`` if given."""
    env = {k: v for k, v in os.environ.items() if k != writer.FAULT_ENV}
    if fault:
        env[writer.FAULT_ENV] = fault
    env.setdefault(writer.LOCK_TIMEOUT_ENV, "300")
    return env


def seed(root: Path) -> None:
    """Three agents; stale, expired, used and over-budget sections; an unrelated staged file."""
    scratch_repo(root)
    files = {}
    for agent in ("picard", "worf", "data"):
        hot = "".join(f"## {agent} note {n}\n{'detail ' * 40}\n\n" for n in range(12))
        cold = f"## {agent} decision\n<!-- squadmem: kind=decision -->\nchose\n\n## {agent} old\nold\n\n"
        files[f"{MEMORY_DIR}/hot/{agent}.md"] = f"# Hot\n\n## Session\n- task\n\n{hot}"
        files[f"{MEMORY_DIR}/cold/{agent}.md"] = f"# Cold\n\n{cold}"
    commit(root, files, "memory", OLD)
    git(root, "commit", "-q", "--allow-empty", "-m", "use\n\nSquad-Memory-Used: worf/worf-old", date=NOW)
    (root / "mine.txt").write_text("staged\n")
    git(root, "add", "mine.txt")


def head_files(root: Path) -> dict[str, bytes]:
    names = git(root, "ls-tree", "-r", "--name-only", "HEAD", "--", MEMORY_DIR).out.split()
    return {n: git(root, "cat-file", "blob", f"HEAD:{n}").stdout for n in names}


def work_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / MEMORY_DIR).rglob("*.md")}


def sections(files: dict[str, bytes]) -> Counter[str]:
    return Counter(trimmed(e.text) for e in catalog.from_blobs(files, SQUAD_PLACES).entries if not e.is_index)


def compare(expected: Counter[str], found: Counter[str]) -> tuple[int, int]:
    """(sections lost, sections doubled)."""
    lost = sum((expected - found).values())
    doubled = sum((found - expected).values())
    return lost, doubled


def crashes(base: Path, work: Path) -> list[tuple[str, int, int, int, int, int]]:
    """Per step: (step, runs, lost or doubled, work tree/index wrong, final state differs, not reached)."""
    clean = work / "clean"
    shutil.copytree(base, clean)
    squadmem(clean, "maintain", "--now", NOW, env=locked(), check=False)
    final = work_files(clean)
    expected = sections(head_files(base))
    rows = []
    for step in writer.STEPS:
        bad = wrong = differs = unreached = 0
        for nth in (1, 2, 3):
            root = work / f"{step}-{nth}"
            shutil.copytree(base, root)
            crashed = squadmem(root, "maintain", "--now", NOW, env=locked(fault=f"{step}@{nth}"), check=False)
            if crashed.returncode != writer.FAULT_STATUS:
                unreached += 1
            lost, doubled = compare(expected, sections(head_files(root)))
            squadmem(root, "doctor", "--fix", env=locked(), check=False)
            after = compare(expected, sections(head_files(root)))
            bad += int(lost + doubled + sum(after) > 0)
            status = git(root, "status", "--porcelain", "--", MEMORY_DIR).stdout
            wrong += int(bool(status) or work_files(root) != head_files(root))
            squadmem(root, "maintain", "--now", NOW, env=locked(), check=False)
            differs += int(work_files(root) != final)
        rows.append((step, 3, bad, wrong, differs, unreached))
    return rows


def concurrent(base: Path, work: Path, rounds: int) -> tuple[int, int, int, int]:
    """(processes, failed, lost, doubled) over ``rounds`` rounds of eight writers."""
    failed = lost = doubled = 0
    for number in range(rounds):
        root = work / f"concurrent-{number}"
        shutil.copytree(base, root)
        expected = sections(head_files(root))
        commands = [["demote", f"picard/picard-note-{n}"] for n in range(3)]
        commands += [["promote", "worf/worf-old"], ["demote", "data/data-old"], ["maintain", "--now", NOW]]
        commands += [["demote", "worf/worf-note-1", "--to", "archive"], ["maintain", "--now", NOW]]
        # every writer's commit dated NOW, so a maintain --now NOW never goes back before one
        env = dict(
            os.environ, **{writer.LOCK_TIMEOUT_ENV: "300", "GIT_AUTHOR_DATE": NOW, "GIT_COMMITTER_DATE": NOW}
        )
        procs = [
            subprocess.Popen(
                [*SQUADMEM, *c],
                cwd=root,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for c in commands
        ]
        for proc in procs:
            _, err = proc.communicate()
            if proc.returncode != 0:
                failed += 1
                print(f"failed ({proc.returncode}): {err.decode(errors='replace').strip()}", file=sys.stderr)
        found_head = compare(expected, sections(head_files(root)))
        found_work = compare(expected, sections(work_files(root)))
        lost += max(found_head[0], found_work[0])
        doubled += max(found_head[1], found_work[1])
    return rounds * 8, failed, lost, doubled


def main() -> None:
    args = options(__doc__, rounds=5).parse_args()
    clock = Stopwatch()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        seed(base)
        rows = crashes(base, Path(tmp))
        processes, failed, lost, doubled = concurrent(base, Path(tmp), args.rounds)
    print(
        "crash injected at every step of the n-th commit of a maintain run (n = 1, 2, 3), then doctor --fix"
    )
    print()
    cells = [(s, f"{n} ({u} not reached)" if u else n, b, w, d) for s, n, b, w, d, u in rows]
    total, bad, wrong, differs = (sum(int(r[k]) for r in rows) for k in (1, 2, 3, 4))
    head = ("step", "runs", "sections lost or doubled", "work tree/index ≠ HEAD, recovered")
    table((*head, "end ≠ clean run"), [*cells, ("all", total, bad, wrong, differs)])
    print()
    print(f"concurrent writers: {args.rounds} rounds of 8 processes")
    print()
    table(("processes", "failed", "sections lost", "sections doubled"), [(processes, failed, lost, doubled)])
    print()
    print(f"({clock.seconds():.0f} s)")


if __name__ == "__main__":
    main()
