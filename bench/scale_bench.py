"""How ``squadmem maintain`` scales with the size of the memory and the number of moves.

    python -m bench.scale_bench [--runs 3] [--sections 10000] [--real-sections N] [--real-runs 1]
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
(``bench/harness.py``), each round's maintain and git commits run back to back.

Benchmarks are not tests: nothing here fails.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from bench.generate import generated
from bench.gitrun import SQUADMEM, git, squadmem
from bench.harness import (
    AUTHOR,
    PYCACHE,
    Command,
    Paired,
    commit,
    compare_timings,
    measure,
    options,
    scratch_repo,
    table,
)

TARGET = 2.0
SEEDED = "2026-01-01T00:00:00Z"
NOW = "2026-01-03T00:00:00Z"
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "SQUADMEM_"))}
ENV |= AUTHOR | {"PYTHONPYCACHEPREFIX": PYCACHE}


def sections(agent: str, count: int) -> str:
    return "".join(
        f"## {agent} note {n}\n\nA small fact, number {n}, about {agent}'s work.\n\n" for n in range(count)
    )


def seed(root: Path, hot: dict[str, int]) -> None:
    """A repository made by ``squadmem init``, then one commit of hot files of these many sections."""
    scratch_repo(root, next(iter(hot)), env=ENV, hooks=True)
    files = {
        f".squad/memory/hot/{agent}.md": f"# Hot memory: {agent}\n\n## Session\n\n- task: bench\n\n"
        + sections(agent, count)
        for agent, count in hot.items()
    }
    commit(root, files, "seed", SEEDED, ENV)


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD", env=ENV).out)


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
        git(root, "add", "--", hot.name, cold.name, env=ENV)
        argv = ["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "--no-gpg-sign"]
        total += Command([*argv, "-m", f"y{n_}"], cwd=root, env=ENV).run()
    return total


def copy(src: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, symlinks=True)
    return dest


def row(name: str, seconds: float, peak: float, extra: str = "") -> tuple[str, ...]:
    return name, f"{seconds:.2f} s", f"{peak:.0f} MB", extra


def big_file(scratch: Path, count: int, runs: int, real_runs: int, real_count: int) -> list[tuple[str, ...]]:
    base = scratch / "big"
    seed(base, {"picard": count})
    dry = [measure([*SQUADMEM, "maintain", "--dry-run", "--now", NOW], base, ENV) for _ in range(runs)]
    out = [row(f"one hot file of {count} sections: maintain --dry-run", *_median(dry))]
    if real_count != count:
        count, base = real_count, scratch / "big-real"
        seed(base, {"picard": count})
    paired, peak, made = maintain_against_commits(base, scratch, NOW, real_runs)
    out.append(
        row(
            f"one hot file of {count} sections: maintain",
            paired.candidate,
            peak,
            f"{made} commits; {made} git commits: {paired.yardstick:.2f} s ({paired.ratio:.2f}x)",
        )
    )
    return out


def many_agents(scratch: Path, agents: int, per_agent: int, runs: int) -> list[tuple[str, ...]]:
    base = scratch / "agents"
    seed(base, {f"agent{n:03d}": per_agent for n in range(agents)})
    dry = [measure([*SQUADMEM, "maintain", "--dry-run", "--now", NOW], base, ENV) for _ in range(runs)]
    return [row(f"{agents} agents x {per_agent} sections: maintain --dry-run", *_median(dry))]


def history_moves(scratch: Path, history: int, moves: int, runs: int) -> list[tuple[str, ...]]:
    base = scratch / "history"
    generated(base, scratch, history)
    last = git(base, "log", "-1", "--format=%cI", env=ENV).out.strip()
    now = f"{last[:10]}T23:00:00Z"
    squadmem(base, "report", "--json", "--now", now, env=ENV, check=False)
    out = []
    for count in (max(moves // 10, 1), moves):
        added = copy(base, scratch / f"history-{count}")
        hot = ".squad/memory/hot/picard.md"
        commit(added, {hot: (added / hot).read_text() + sections("bulk", count)}, "bulk notes", last, ENV)
        paired, peak, made = maintain_against_commits(added, scratch, now, runs)
        out.append(
            row(
                f"{history}-commit history, {made} commits due: maintain",
                paired.candidate,
                peak,
                f"{made} git commits: {paired.yardstick:.2f} s ({paired.ratio:.2f}x, target <= {TARGET:g}x)",
            )
        )
    return out


def maintain_against_commits(base: Path, scratch: Path, now: str, runs: int) -> tuple[Paired, float, int]:
    """The real ``maintain`` on a copy of ``base`` against as many ``git commit`` processes as it makes
    commits, round by round (``bench.harness``): the medians, its median peak MB, and the commits."""
    made = _count_commits(base, now)
    peaks: list[float] = []

    def candidate() -> float:
        work = copy(base, scratch / "run")
        before = commits(work)
        seconds, peak = measure([*SQUADMEM, "maintain", "--now", now], work, ENV)
        if commits(work) - before != made:
            raise SystemExit(f"maintain made {commits(work) - before} commits, its dry run said {made}")
        peaks.append(peak)
        return seconds

    def commits_alone() -> float:
        return yardstick(copy(base, scratch / "yard"), made)

    return compare_timings(candidate, commits_alone, runs), statistics.median(peaks), made


def _count_commits(root: Path, now: str) -> int:
    """How many commits ``maintain`` will make: its dry run's moves and Index refreshes."""
    out = squadmem(root, "maintain", "--dry-run", "--json", "--now", now, env=ENV).out
    data = json.loads(out)
    return len(data["moves"]) + len(data["indexes"])


def _median(found: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(t for t, _ in found), statistics.median(p for _, p in found)


def main(argv: list[str] | None = None) -> int:
    parser = options(__doc__)
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
    table(("run", "time (median)", "peak memory", "against the yardstick (paired ratio)"), rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
