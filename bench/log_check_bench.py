"""Benchmark: the daily-log pre-commit check against `check-added-large-files` on the same staged append.

Both run as installed console scripts (``squadmem-log-check`` and
``check-added-large-files`` from pre-commit-hooks), started by their absolute
paths next to this interpreter, as git or pre-commit would start them, in a
scratch repository where today's log has one staged append. The two are run
alternately; the table gives the median wall time of each and their ratio
(target: the log check at most 1.5x).

    python bench/log_check_bench.py [--runs 41]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from squadmem.model import settings

TARGET = 1.5


def script(name: str) -> str:
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name}: not installed; run: python3 -m pip install -e '.[test]'")
    return found


def scratch(root: Path, env: dict[str, str]) -> str:
    """A repository with today's log committed and one append staged; returns the log's path."""
    day = dt.datetime.now(dt.UTC).date().isoformat()
    rel = f".squad/memory/log/{day}.md"
    log = root / rel
    log.parent.mkdir(parents=True)
    (root / ".squad/memory/tiers.toml").write_text(settings.TEMPLATE)  # as `squadmem init` writes it
    log.write_text(
        f"# Daily log {day}\n\n" + "".join(f"- 09:{n % 60:02d} [picard] entry {n}\n" for n in range(200))
    )

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "--no-verify", "-m", "log")
    with open(log, "a", encoding="utf-8") as handle:
        handle.write("- 10:00 [picard] one more entry\n")
    git("add", rel)
    return rel


def time_once(command: list[str], root: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41, help="runs of each command (default 41)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com"
        )
        env.update(GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")
        rel = scratch(root, env)
        commands = {
            "squadmem-log-check": [script("squadmem-log-check")],
            "check-added-large-files": [script("check-added-large-files"), rel],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():  # warm the file cache once
            time_once(command, root, env)
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(time_once(command, root, env))
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    ratio = medians["squadmem-log-check"] / medians["check-added-large-files"]
    print(f"log check on a staged append, median of {args.runs} runs each (console scripts by absolute path)")
    print()
    print("| command | median ms |")
    print("|---|---:|")
    for name, value in medians.items():
        print(f"| `{name}` | {value:.1f} |")
    verdict = "ok" if ratio <= TARGET else "over target"
    print(f"| ratio (log check / check-added-large-files) | {ratio:.2f}x (target <= {TARGET}x: {verdict}) |")


if __name__ == "__main__":
    main()
