"""``squadmem history ID`` and ``recall --history`` on a long history, against a warm ``report``.

    python -m bench.timeline_bench [--commits 20000] [--rounds 11] [--repo DIR]

Generates a history with ``bench/generate.py`` (or reuses ``--repo``), fills
the caches once (``report``, ``history``, ``recall --history``), then times
whole processes, each paired round by round with the yardstick, ``report
--json`` with its cache up to date (``bench/harness.py``: taking turns at
going first; medians, the ratios the medians of the per-round ratios; the
target for ``history ID``: at most 1.5x): ``history ID`` for a hot section
edited at every session (the longest walk), a hot note, a cold section and a
wiki section, and ``recall --history`` for a word; then the longest walk
again with its kept walk (``.git/squadmem/timeline-walks``) removed before
each round: what a section's first ``history`` costs. Wall time and CPU time
(user + system, git's included) come from the same rounds.
Benchmarks are not tests: nothing here fails.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.generate import generated
from bench.gitrun import SQUADMEM, git, squadmem
from bench.harness import PYCACHE, Command, compare_both, environment, options, table

NOW = "2026-01-01T00:00:00Z"
ENV = environment(PYTHONPYCACHEPREFIX=PYCACHE)


def command(repo: Path, *args: str) -> Command:
    return Command((*SQUADMEM, *args), cwd=repo, env=ENV)


def pick(repo: Path) -> dict[str, str]:
    """A few sections of different lives: the longest walk first."""
    out = squadmem(repo, "list", "--json", env=ENV).out
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
    parser = options(__doc__, rounds=11)
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--repo", type=Path, help="reuse a repository bench/generate.py made")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        repo = generated(args.repo, Path(tmp), args.commits)
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
        first = {name: command(repo, *words).run() for name, words in commands.items()}  # fill the caches
        yard = "report --json (warm cache)"
        report = command(repo, *commands[yard])
        count = git(repo, "rev-list", "--count", "HEAD").out.strip()
        print(f"\n{count} commits; whole processes, each paired with a warm `report`, {args.rounds} rounds\n")
        longest = next(iter(ids.values()))
        walks = repo / ".git" / "squadmem" / "timeline-walks"
        rows = {name: command(repo, *words) for name, words in commands.items() if name != yard}
        rows[f"history {longest}, its kept walk removed first (the whole walk)"] = dataclasses.replace(
            command(repo, "history", "--json", longest), before=lambda: walks.unlink(missing_ok=True)
        )
        whole = first[next(n for n in commands if n.startswith(f"history {longest} "))]  # a whole walk too

        def cells() -> Iterator[tuple[str, ...]]:
            for name, candidate in rows.items():
                wall, cpu = compare_both(candidate, report, rounds=args.rounds, warmup=1)
                target = "≤ 1.5×" if name.startswith("history") and "removed" not in name else ""
                first_run = f"{first.get(name, whole):.2f} s"
                times = (wall.candidate, wall.yardstick, cpu.candidate, cpu.yardstick)
                warm, yard, mine, theirs = (f"{t:.2f} s" for t in times)
                yield (
                    f"`{name}`",
                    first_run,
                    warm,
                    yard,
                    f"{wall.ratio:.2f}×",
                    mine,
                    theirs,
                    f"{cpu.ratio:.2f}×",
                    target,
                )

        header = ("command", "first run (fills its cache)", "warm", "warm `report`", "paired ratio", "CPU")
        table((*header, "CPU of `report`", "paired CPU ratio", "target"), cells())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
