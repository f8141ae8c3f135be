"""How ``squadmem maintain`` scales with the size of the memory and the number of moves.

    python bench/scale_bench.py [--runs 3] [--sections 10000] [--real-sections N] [--real-runs 1]
                                [--agents 100] [--per-agent 500]
                                [--commits 20000] [--moves 1840] [--history-runs N]

Rows of the table (whole ``squadmem`` processes, each under a small wrapper that
times it and reads its peak memory; medians of ``--runs`` rounds):

1. one hot file of ``--sections`` small sections, all used two days ago, so
   the budget pass must send out all but a few: ``maintain --dry-run``, and the
   real run (``--real-runs`` rounds, of ``--real-sections``; one commit per
   move) against as many ``git commit -q --no-verify``, the two taking turns
   at going first;
2. ``--agents`` agents with a hot file of ``--per-agent`` sections each:
   ``maintain --dry-run``;
3. a generated history of ``--commits`` commits (``bench/generate.py``) with
   ``--moves`` sections added to one hot file at its end: the real ``maintain``
   against the same number of ``git commit -q --no-verify`` processes, each
   committing a change already staged (staging is not timed), the two taking
   turns round by round (target: at most 2x). Its peak memory is shown next to
   a run with a tenth of the moves: flat, not growing with the moves.

A ratio against a yardstick is the median of the per-round ratios
(``bench/paired.py``), each round's maintain and git commits run back to back.

Benchmarks are not tests: nothing here fails.
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
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # a sibling script, not a package
from paired import Paired

TARGET = 2.0
SEEDED = "2026-01-01T00:00:00Z"
NOW = "2026-01-03T00:00:00Z"
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "SQUADMEM_"))}
ENV |= {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com"}
ENV |= {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "squadmem-bench-pycache")
_WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
took = time.perf_counter() - start
print(took, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
"""


def measure(cmd: Sequence[str], cwd: Path) -> tuple[float, float]:
    """Seconds and peak MB of one run of ``cmd`` (its whole process tree)."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *cmd], cwd=cwd, capture_output=True, text=True, check=True, env=ENV
    ).stdout.split()
    if out[2] not in ("0", "1"):
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}")
    return float(out[0]), int(out[1]) / 1024


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    env = dict(ENV, **({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}))
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env).stdout


def squadmem(*args: str) -> list[str]:
    return [sys.executable, "-m", "squadmem", *args]


def sections(agent: str, count: int) -> str:
    return "".join(
        f"## {agent} note {n}\n\nA small fact, number {n}, about {agent}'s work.\n\n" for n in range(count)
    )


def seed(root: Path, hot: dict[str, int]) -> None:
    """A repository made by ``squadmem init``, then one commit of hot files of these many sections."""
    git(root.parent, "init", "-q", "-b", "main", str(root))
    subprocess.run(
        squadmem("-C", str(root), "init", "--agent", next(iter(hot))),
        check=True,
        capture_output=True,
        env=ENV,
    )
    for agent, count in hot.items():
        path = root / f".squad/memory/hot/{agent}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Hot memory: {agent}\n\n## Session\n\n- task: bench\n\n" + sections(agent, count))
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "seed", date=SEEDED)


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


def yardstick(root: Path, n: int) -> float:
    """Seconds spent in ``n`` ``git commit -q --no-verify`` processes, each of a staged two-file change
    (hooks off: plain git's cost)."""
    hot, cold = root / "yard-hot.md", root / "yard-cold.md"
    body = sections("yard", 200)
    hot.write_text(body)
    cold.write_text("")
    total = 0.0
    for n_ in range(n):
        hot.write_text(body[: len(body) - n_ % 50])
        cold.write_text(body[: n_ % 50])
        git(root, "add", "--", hot.name, cold.name)
        start = time.perf_counter()
        git(
            root,
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "-q",
            "--no-verify",
            "--no-gpg-sign",
            "-m",
            f"y{n_}",
        )
        total += time.perf_counter() - start
    return total


def copy(src: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, symlinks=True)
    return dest


def row(name: str, seconds: float, peak: float, extra: str = "") -> str:
    return f"| {name} | {seconds:.2f} s | {peak:.0f} MB | {extra} |"


def big_file(scratch: Path, count: int, runs: int, real_runs: int, real_count: int) -> list[str]:
    base = scratch / "big"
    seed(base, {"picard": count})
    dry = [measure(squadmem("maintain", "--dry-run", "--now", NOW), base) for _ in range(runs)]
    out = [row(f"one hot file of {count} sections: maintain --dry-run", *_median(dry))]
    if real_count != count:
        count, base = real_count, scratch / "big-real"
        seed(base, {"picard": count})
    made = _count_commits(base, NOW)
    timed, yards, peaks = [], [], []
    for number in range(real_runs):
        work = copy(base, scratch / "big-run")
        yard_root = copy(base, scratch / "big-yard")
        before = commits(work)
        if number % 2:
            yards.append(yardstick(yard_root, made))
        seconds, peak = measure(squadmem("maintain", "--now", NOW), work)
        if not number % 2:
            yards.append(yardstick(yard_root, made))
        if commits(work) - before != made:
            raise SystemExit(f"maintain made {commits(work) - before} commits, its dry run said {made}")
        timed.append(seconds)
        peaks.append(peak)
    paired = Paired.of(timed, yards)
    out.append(
        row(
            f"one hot file of {count} sections: maintain",
            paired.candidate,
            statistics.median(peaks),
            f"{made} commits; {made} git commits: {paired.yardstick:.2f} s ({paired.ratio:.2f}x)",
        )
    )
    return out


def many_agents(scratch: Path, agents: int, per_agent: int, runs: int) -> list[str]:
    base = scratch / "agents"
    seed(base, {f"agent{n:03d}": per_agent for n in range(agents)})
    dry = [measure(squadmem("maintain", "--dry-run", "--now", NOW), base) for _ in range(runs)]
    return [row(f"{agents} agents x {per_agent} sections: maintain --dry-run", *_median(dry))]


def history_moves(scratch: Path, history: int, moves: int, runs: int) -> list[str]:
    base = scratch / "history"
    generate.generate(base, history)
    git(base, "repack", "-adq")
    last = git(base, "log", "-1", "--format=%cI").strip()
    now = f"{last[:10]}T23:00:00Z"
    subprocess.run(squadmem("-C", str(base), "report", "--json", "--now", now), capture_output=True, env=ENV)
    out = []
    for count in (max(moves // 10, 1), moves):
        added = copy(base, scratch / f"history-{count}")
        hot = added / ".squad/memory/hot/picard.md"
        hot.write_text(hot.read_text() + sections("bulk", count))
        git(added, "add", "-A")
        git(added, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "bulk notes", date=last)
        timed, yards, peaks = [], [], []
        made = _count_commits(added, now)
        for number in range(runs):
            work = copy(added, scratch / "history-run")
            yard_root = copy(added, scratch / "history-yard")
            before = commits(work)
            if number % 2:
                yard = yardstick(yard_root, made)
            seconds, peak = measure(squadmem("maintain", "--now", now), work)
            if not number % 2:
                yard = yardstick(yard_root, made)
            if commits(work) - before != made:
                raise SystemExit(f"maintain made {commits(work) - before} commits, its dry run said {made}")
            timed.append(seconds)
            yards.append(yard)
            peaks.append(peak)
        paired = Paired.of(timed, yards)
        out.append(
            row(
                f"{history}-commit history, {made} commits due: maintain",
                paired.candidate,
                statistics.median(peaks),
                f"{made} git commits: {paired.yardstick:.2f} s ({paired.ratio:.2f}x, target <= {TARGET:g}x)",
            )
        )
    return out


def _count_commits(root: Path, now: str) -> int:
    """How many commits ``maintain`` will make: its dry run's moves and Index refreshes."""
    out = subprocess.run(
        squadmem("-C", str(root), "maintain", "--dry-run", "--json", "--now", now),
        capture_output=True,
        text=True,
        env=ENV,
        check=True,
    ).stdout
    data = json.loads(out)
    return len(data["moves"]) + len(data["indexes"])


def _median(found: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(t for t, _ in found), statistics.median(p for _, p in found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--real-runs", type=int, default=1)
    parser.add_argument("--sections", type=int, default=10000)
    parser.add_argument(
        "--real-sections", type=int, help="hot sections for the real run (default: --sections)"
    )
    parser.add_argument("--history-runs", type=int, help="rounds of the history rows (default: --runs)")
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--per-agent", type=int, default=500)
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--moves", type=int, default=1840)
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="squadmem-scale-"))
    try:
        real = args.real_sections or args.sections
        rows = big_file(scratch, args.sections, args.runs, args.real_runs, real)
        rows += many_agents(scratch, args.agents, args.per_agent, args.runs)
        rows += history_moves(scratch, args.commits, args.moves, args.history_runs or args.runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("| run | time (median) | peak memory | against the yardstick (paired ratio) |")
    print("|---|---:|---:|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
