"""``squadmem history ID`` and ``recall --history`` on a long history, against a warm ``report``.

    python bench/timeline_bench.py [--commits 20000] [--runs 11] [--repo DIR]

Generates a history with ``bench/generate.py`` (or reuses ``--repo``), fills
the caches once (``report``, ``history``, ``recall --history``), then times
whole processes, taking turns so a busy machine slows all alike, medians of
``--runs`` rounds: ``report --json`` with its cache up to date (the
yardstick; DESIGN target for ``history ID``: at most 1.5x), ``history ID``
for a hot section edited at every session (the longest walk), a hot note,
a cold section and a wiki section, and ``recall --history`` for a word.
Benchmarks are not tests: nothing here fails.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # a sibling script, not a package

NOW = "2026-01-01T00:00:00Z"
SQUADMEM = (sys.executable, "-m", "squadmem")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "squadmem-bench-pycache")


def run(repo: Path, *args: str) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the process and its git children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*SQUADMEM, *args], cwd=repo, env=ENV, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pick(repo: Path) -> dict[str, str]:
    """A few sections of different lives: the longest walk first."""
    out = subprocess.run(
        [*SQUADMEM, "list", "--json"], cwd=repo, env=ENV, capture_output=True, text=True, check=True
    ).stdout
    rows = json.loads(out)["sections"]
    by_tier = {t: [r["id"] for r in rows if r["tier"] == t] for t in ("hot", "cold", "wiki")}
    sessions = [i for i in by_tier["hot"] if i.endswith("/session")]
    notes = [
        i for i in by_tier["hot"] if not i.endswith("/session") and not i.endswith("/index-deeper-tiers")
    ]
    return {
        "hot session block (edited every session)": sessions[0],
        "hot note": notes[0],
        "cold section": by_tier["cold"][0],
        "wiki section": by_tier["wiki"][0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--repo", type=Path, help="reuse a repository bench/generate.py made")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        repo = args.repo or Path(tmp) / "repo"
        if args.repo is None:
            generate.main([str(repo), "--commits", str(args.commits)])
        ids = pick(repo)
        commands: dict[str, tuple[str, ...]] = {
            "report --json (warm cache)": ("report", "--json", "--now", NOW)
        }
        for what, ident in ids.items():
            commands[f"history {ident} ({what})"] = ("history", "--json", ident)
        commands["recall --history rollback --no-record"] = (
            "recall",
            "--history",
            "--no-record",
            "--json",
            "rollback",
        )
        first = {name: run(repo, *command)[0] for name, command in commands.items()}  # fill the caches
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                wall, cpu = run(repo, *command)
                walls[name].append(wall)
                cpus[name].append(cpu)
        count = subprocess.run(
            ["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        yard = "report --json (warm cache)"
        base, base_cpu = statistics.median(walls[yard]), statistics.median(cpus[yard])
        print(f"\n{count} commits; medians of {args.runs} rounds, whole processes, taken in turns\n")
        print(
            "| command | first run (fills its cache) | warm | vs warm `report` "
            "| CPU | CPU vs `report` | target |"
        )
        print("|---|---|---|---|---|---|---|")
        for name in commands:
            wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
            target = "≤ 1.5×" if name.startswith("history") else ""
            print(
                f"| `{name}` | {first[name]:.2f} s | {wall:.2f} s | {wall / base:.2f}× "
                f"| {cpu:.2f} s | {cpu / base_cpu:.2f}× | {target} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
