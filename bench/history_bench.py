"""How ``squadmem report`` holds up on a long history: the DESIGN's performance targets.

    python bench/history_bench.py [--commits 20000] [--runs 5] [--repo DIR]

Generates a history with ``bench/generate.py`` (about half the commits touch
``.squad/memory/``), then measures, side by side in one run, medians of
``--runs`` runs:

1. ``squadmem report`` from an empty cache, against the raw floor: ``git log
   --raw --no-abbrev -- .squad/memory`` to its end, then one ``git cat-file
   --batch`` of every blob it names (target: at most 3x);
2. the peak memory of that ``report`` (the largest process of its run, git's
   included; target: under 200 MB);
3. ``report`` with a warm cache after one new commit, against ``report`` on a
   repository of one commit holding the same files (target: at most 1.3x: the
   cost does not grow with history).

Each command runs under a small wrapper process that times it and reads its
peak memory with ``resource.getrusage(RUSAGE_CHILDREN)``, so one measurement
never sees another's processes. Benchmarks are not tests: nothing here fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # a sibling script, not a package

NOW = "2026-01-01T00:00:00Z"
CACHE = Path(".git/squadmem/history-cache")
REPORT = (sys.executable, "-m", "squadmem", "report", "--json", "--now", NOW)
# Python's bytecode cache on (an installed squadmem has its .pyc files), kept outside the source tree.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "squadmem-bench-pycache")
# The same report in-process, printing the peak memory of the Python process alone (git's excluded).
_SELF_PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = ['squadmem', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('squadmem', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)
_WRAPPER = """
import resource, subprocess, sys, time
stdin = open(sys.argv[1], 'rb') if sys.argv[1] != '-' else subprocess.DEVNULL
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL)
took = time.perf_counter() - start
print(took, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
"""


def measure(cmd: Sequence[str], cwd: Path, stdin: Path | None = None) -> tuple[float, float]:
    """Seconds and peak MB of one run of ``cmd`` (its whole process tree)."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, str(stdin) if stdin else "-", *cmd],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    ).stdout.split()
    if out[2] != "0":
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}")
    return float(out[0]), int(out[1]) / 1024


Step = tuple[Callable[[], None], Sequence[str], Path, Path | None]


def interleaved(runs: int, steps: dict[str, Step]) -> dict[str, tuple[float, float]]:
    """Median seconds and peak MB of each step, the steps taking turns so a busy machine hits all alike."""
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in steps}
    for _ in range(runs):
        for name, (before, cmd, cwd, stdin) in steps.items():
            before()
            found[name].append(measure(cmd, cwd, stdin))
    return {
        name: (statistics.median(t for t, _ in got), statistics.median(p for _, p in got))
        for name, got in found.items()
    }


def nothing() -> None:
    pass


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}
    ).stdout


def blob_list(root: Path, scratch: Path) -> tuple[Path, int, int]:
    """Every blob ``git log --raw -- .squad/memory`` names, in a file for cat-file; their count and bytes."""
    raw = git(root, "log", "--raw", "--no-abbrev", "--format=", "--", ".squad/memory")
    blobs = sorted({line.split()[3] for line in raw.splitlines() if line.startswith(":")} - {"0" * 40})
    names = scratch / "blobs.txt"
    names.write_text("\n".join(blobs) + "\n")
    sizes = subprocess.run(
        ["git", "cat-file", "--batch-check=%(objectsize)"],
        cwd=root,
        input=names.read_bytes(),
        capture_output=True,
        check=True,
    ).stdout.split()
    return names, len(blobs), sum(int(n) for n in sizes)


def one_new_commit(root: Path) -> None:
    hot = root / ".squad/memory/hot/picard.md"
    hot.write_text(hot.read_text() + "\n## Bench note\n\nOne more commit.\n")
    git(root, "add", "-A")
    stamp = "1767225600 +0000"
    env = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_NAME": "bench"}
    env |= {"GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "bench"}
    env |= {"GIT_COMMITTER_EMAIL": "bench@example.com"}
    git(
        root,
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "-q",
        "--no-gpg-sign",
        "-m",
        "bench: one more",
        env=env,
    )


def one_commit_copy(root: Path, dest: Path) -> None:
    """A repository of one commit holding the same files as ``root``'s HEAD."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=root, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    git(dest, "add", "-A")
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com"}
    env |= {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    git(dest, "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-gpg-sign", "-m", "all at once", env=env)


def drop_cache(root: Path) -> Callable[[], None]:
    def run() -> None:
        (root / CACHE).unlink(missing_ok=True)

    return run


def restore_cache(root: Path, saved: bytes) -> Callable[[], None]:
    def run() -> None:
        (root / CACHE).write_bytes(saved)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repo", type=Path, help="generate into (or reuse) this folder; default: a temporary one"
    )
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="squadmem-bench-"))
    try:
        root = args.repo or scratch / "history"
        if not (root / ".git").exists():
            print(f"generating {args.commits} commits into {root} ...", file=sys.stderr)
            generate.generate(root, args.commits, args.seed)
            git(root, "repack", "-adq")
        run(root, scratch, args.runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def run(root: Path, scratch: Path, runs: int) -> None:
    commits = int(git(root, "rev-list", "--count", "HEAD"))
    memory_commits = int(git(root, "rev-list", "--count", "HEAD", "--", ".squad/memory"))
    names, blob_count, blob_bytes = blob_list(root, scratch)
    cold = interleaved(
        runs,
        {
            "log": (nothing, ("git", "log", "--raw", "--no-abbrev", "--", ".squad/memory"), root, None),
            "cat": (nothing, ("git", "cat-file", "--batch"), root, names),
            "report": (drop_cache(root), REPORT, root, None),
        },
    )
    data = json.loads(
        subprocess.run(REPORT, cwd=root, capture_output=True, text=True, check=True, env=ENV).stdout
    )
    drop_cache(root)()
    own = subprocess.run(
        [sys.executable, "-c", _SELF_PEAK, *REPORT[3:]],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
    own_peak = int(own.stderr.split()[-1]) / 1024
    saved = (root / CACHE).read_bytes()
    work = scratch / "work"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(work)], check=True)
    (work / CACHE).parent.mkdir(parents=True, exist_ok=True)
    (work / CACHE).write_bytes(saved)
    one_new_commit(work)
    single = scratch / "single"
    one_commit_copy(work, single)
    warm = interleaved(
        runs,
        {
            "warm": (restore_cache(work, saved), REPORT, work, None),
            "single": (drop_cache(single), REPORT, single, None),
            "single-warm": (nothing, REPORT, single, None),
        },
    )
    log_s, cat_s, cold_s = cold["log"][0], cold["cat"][0], cold["report"][0]
    floor_s = log_s + cat_s
    floor_peak = max(cold["log"][1], cold["cat"][1])
    warm_s, single_s, single_warm_s = warm["warm"][0], warm["single"][0], warm["single-warm"][0]
    print(
        f"history: {commits} commits, {memory_commits} touching .squad/memory, {len(data['sections'])} "
        f"sections at HEAD; the floor reads {blob_count} blobs, {blob_bytes / 1e6:.1f} MB; "
        f"medians of {runs} runs"
    )
    print()
    print("| measure | squadmem | against | ratio | target |")
    print("|---|---|---|---|---|")
    print(
        f"| `report`, empty cache | {cold_s:.2f} s | raw floor {floor_s:.2f} s (`git log --raw` {log_s:.2f} s"
        f" + `cat-file --batch` {cat_s:.2f} s) | {cold_s / floor_s:.2f}× | ≤ 3× |"
    )
    print(
        f"| peak memory of that `report` (its git processes included) | {cold['report'][1]:.0f} MB "
        f"| the floor's git processes: {floor_peak:.0f} MB | | < 200 MB |"
    )
    print(f"| the same, squadmem's Python process alone | {own_peak:.0f} MB | | | < 200 MB |")
    print(
        f"| `report` after one new commit, warm cache | {warm_s:.2f} s | `report` on a one-commit repository "
        f"with the same files, empty cache: {single_s:.2f} s | {warm_s / single_s:.2f}× | ≤ 1.3× |"
    )
    print(
        f"| the same | {warm_s:.2f} s | the one-commit repository, cache up to date: {single_warm_s:.2f} s "
        f"| {warm_s / single_warm_s:.2f}× | ≤ 1.3× |"
    )


if __name__ == "__main__":
    sys.exit(main())
