"""Paired whole-process timing: the one method every squadmem benchmark uses.

A candidate and its yardstick run alternately (A B, B A, A B, …, so neither
always goes first) for the same number of rounds, each as a whole process; a
round's ratio is candidate / yardstick of that round, and the figures quoted
are medians: of each side's wall time and of the per-round ratios. Pairing
keeps a slow moment of the machine from landing on one side only.

    from paired import Command, compare
    result = compare(Command(["squadmem", "context"]), Command([sys.executable, "-c", "pass"]), rounds=41)
    print(result.row("context", "python -c pass"))
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Command:
    """A whole process to time: its argv, folder, environment and an optional reset run before each round."""

    argv: Sequence[str]
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    input: bytes | None = None
    before: Callable[[], None] | None = field(default=None, compare=False)
    ok: tuple[int, ...] = (0,)

    def run(self) -> float:
        """Run once; seconds of wall time. A status outside ``ok`` stops the benchmark."""
        if self.before is not None:
            self.before()
        env = None if self.env is None else dict(self.env)
        start = time.perf_counter()
        proc = subprocess.run(list(self.argv), cwd=self.cwd, env=env, input=self.input, capture_output=True)
        took = time.perf_counter() - start
        if proc.returncode not in self.ok:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise SystemExit(f"{' '.join(map(str, self.argv))}: exit {proc.returncode}: {err[-400:]}")
        return took


@dataclass(frozen=True)
class Paired:
    """The medians of a paired run, in seconds (``ratio`` is the median of per-round ratios)."""

    candidate: float
    yardstick: float
    ratio: float
    rounds: int

    def row(self, name: str, against: str) -> str:
        """One Markdown table row: name, ms, yardstick, ms, ratio, rounds."""
        return (
            f"| {name} | {self.candidate * 1000:.1f} ms | {against} | {self.yardstick * 1000:.1f} ms "
            f"| {self.ratio:.2f}x | {self.rounds} |"
        )


HEADER = (
    "| candidate | median | yardstick | median | paired ratio (median) | rounds |\n"
    "|---|---:|---|---:|---:|---:|"
)


def compare(candidate: Command, yardstick: Command, rounds: int = 41, warmup: int = 3) -> Paired:
    """Time ``candidate`` against ``yardstick``, alternating which goes first, ``rounds`` pairs."""
    for _ in range(warmup):
        candidate.run()
        yardstick.run()
    mine: list[float] = []
    theirs: list[float] = []
    for round_ in range(rounds):
        if round_ % 2 == 0:
            a = candidate.run()
            b = yardstick.run()
        else:
            b = yardstick.run()
            a = candidate.run()
        mine.append(a)
        theirs.append(b)
    ratios = [a / b for a, b in zip(mine, theirs, strict=True)]
    return Paired(statistics.median(mine), statistics.median(theirs), statistics.median(ratios), rounds)


def compare_calls(
    candidate: Callable[[], object], yardstick: Callable[[], object], rounds: int = 21
) -> Paired:
    """The same pairing for in-process work (a whole command run through a function), for benchmarks
    whose unit is bigger than a process start."""

    def timed(call: Callable[[], object]) -> float:
        start = time.perf_counter()
        call()
        return time.perf_counter() - start

    mine: list[float] = []
    theirs: list[float] = []
    for round_ in range(rounds):
        first, second = (candidate, yardstick) if round_ % 2 == 0 else (yardstick, candidate)
        one, two = timed(first), timed(second)
        a, b = (one, two) if round_ % 2 == 0 else (two, one)
        mine.append(a)
        theirs.append(b)
    ratios = [a / b for a, b in zip(mine, theirs, strict=True)]
    return Paired(statistics.median(mine), statistics.median(theirs), statistics.median(ratios), rounds)


def environment(**extra: str) -> dict[str, str]:
    """The current environment with ``extra`` set (bytecode written, so both sides run compiled)."""
    env = dict(os.environ, **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
