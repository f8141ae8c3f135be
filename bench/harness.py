"""The benchmarks' one harness: scratch repositories, paired whole-process timing, tables, options.

A timing bench builds (or reuses) a scratch git repository with dated
commits (:func:`scratch_repo`, :func:`commit`; a generated history: ``bench.generate.generated``), runs
squadmem and git as whole processes (:class:`Command`, over
``bench.gitrun``), pairs them round by round (below), prints one kind of
table (:func:`table`, or :func:`markdown` as text) and takes its options
from one parser (:func:`options`: ``--rounds``, ``--json``, ``--seed``,
``--days``, ``--agents``). A bench that runs squadmem in a home of its own
takes :func:`sealed`'s environment.

A candidate and its yardstick run alternately (A B, B A, A B, …, so neither
always goes first) for the same number of rounds, each as a whole process; a
round's ratio is candidate / yardstick of that round, and the figures quoted
are medians: of each side's wall time, of the per-round ratios and of the
per-round differences (what the candidate costs above its yardstick).
Pairing keeps a slow moment of the machine from landing on one side only.

Every duration a benchmark prints is taken here: the pairings above, a
whole process tree's time and peak memory (:func:`measure`), the CPU time of
in-process work (:func:`best_cpu`), and a stopwatch for how long a run took
(:class:`Stopwatch`: a duration to report, compared with nothing).

    from bench.harness import Command, compare
    result = compare(Command(["squadmem", "context"]), Command([sys.executable, "-c", "pass"]), rounds=41)
    table(COLUMNS, [result.cells("context", "python -c pass")])
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.gitrun import git, squadmem


@dataclass(frozen=True)
class Command:
    """A whole process to time: its argv, folder, environment and an optional reset run before each round."""

    argv: Sequence[str]
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    input: bytes | None = None
    before: Callable[[], None] | None = field(default=None, compare=False)
    ok: tuple[int, ...] = (0,)
    discard: bool = False  # its output to /dev/null: no reader's pipe costs the process anything

    def run(self) -> float:
        """Run once; seconds of wall time. A status outside ``ok`` stops the benchmark."""
        return self.timed()[0]

    def timed(self) -> tuple[float, float]:
        """Run once; seconds of wall time and of CPU time (user + system, the process and every
        process it waited for, such as git)."""
        if self.before is not None:
            self.before()
        env = None if self.env is None else dict(self.env)
        used = _children_cpu()
        start = time.perf_counter()
        out = subprocess.DEVNULL if self.discard else subprocess.PIPE
        proc = subprocess.run(
            list(self.argv), cwd=self.cwd, env=env, input=self.input, stdout=out, stderr=subprocess.PIPE
        )
        took = time.perf_counter() - start
        cpu = _children_cpu() - used
        if proc.returncode not in self.ok:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise SystemExit(f"{' '.join(map(str, self.argv))}: exit {proc.returncode}: {err[-400:]}")
        return took, cpu


@dataclass(frozen=True)
class Chain:
    """Commands run one after the other as one side of a round (a floor made of two git processes):
    its time is the sum of theirs."""

    commands: Sequence[Command]

    def run(self) -> float:
        return self.timed()[0]

    def timed(self) -> tuple[float, float]:
        times = [command.timed() for command in self.commands]
        return sum(t[0] for t in times), sum(t[1] for t in times)


Side = Command | Chain


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Paired:
    """The medians of a paired run, in seconds (``ratio`` and ``excess`` are medians of per-round
    ratios and differences)."""

    candidate: float
    yardstick: float
    ratio: float
    rounds: int
    excess: float = 0.0

    @classmethod
    def of(cls, mine: Sequence[float], theirs: Sequence[float]) -> Paired:
        """The medians of paired timings (``mine[i]`` and ``theirs[i]`` ran in the same round)."""
        pairs = list(zip(mine, theirs, strict=True))
        return cls(
            statistics.median(mine),
            statistics.median(theirs),
            statistics.median(a / b for a, b in pairs),
            len(pairs),
            statistics.median(a - b for a, b in pairs),
        )

    def cells(self, name: str, against: str) -> tuple[str, ...]:
        """One row of a :data:`COLUMNS` table: name, ms, yardstick, ms, ratio, ms above, rounds."""
        return (
            name,
            f"{self.candidate * 1000:.1f} ms",
            against,
            f"{self.yardstick * 1000:.1f} ms",
            f"{self.ratio:.2f}x",
            f"{self.excess * 1000:+.1f} ms",
            str(self.rounds),
        )


COLUMNS = (
    "candidate",
    "median",
    "yardstick",
    "median",
    "paired ratio (median)",
    "above it (median)",
    "rounds",
)


def compare(candidate: Side, yardstick: Side, rounds: int = 41, warmup: int = 3) -> Paired:
    """Time ``candidate`` against ``yardstick``, alternating which goes first, ``rounds`` pairs."""
    return compare_both(candidate, yardstick, rounds, warmup)[0]


def compare_both(
    candidate: Side, yardstick: Side, rounds: int = 41, warmup: int = 3
) -> tuple[Paired, Paired]:
    """As :func:`compare`, for wall time and for CPU time (user + system) from the same rounds.

    On a shared machine a busy moment stretches wall time far more than the
    CPU time a process needs, so CPU time is the steadier figure for short
    processes; on an idle machine the two agree within the time spent waiting
    for the disk."""
    for _ in range(warmup):
        candidate.run()
        yardstick.run()
    mine: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for round_ in range(rounds):
        if round_ % 2 == 0:
            a = candidate.timed()
            b = yardstick.timed()
        else:
            b = yardstick.timed()
            a = candidate.timed()
        mine.append(a)
        theirs.append(b)
    wall = Paired.of([a[0] for a in mine], [b[0] for b in theirs])
    cpu = Paired.of([a[1] for a in mine], [b[1] for b in theirs])
    return wall, cpu


def compare_timings(
    candidate: Callable[[], float], yardstick: Callable[[], float], rounds: int = 21
) -> Paired:
    """The pairing for in-process work that times itself: each call returns the seconds of the part that
    counts (its setup left out), such as one commit written in-process against one ``git commit``."""
    mine: list[float] = []
    theirs: list[float] = []
    for round_ in range(rounds):
        if round_ % 2 == 0:
            mine.append(candidate())
            theirs.append(yardstick())
        else:
            theirs.append(yardstick())
            mine.append(candidate())
    return Paired.of(mine, theirs)


class Stopwatch:
    """Seconds since it was made (``time.perf_counter``): how long one run took, to report."""

    def __init__(self) -> None:
        self.started = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self.started


PEAK = """
import resource, subprocess, sys, time
stdin = open(sys.argv[1], 'rb') if sys.argv[1] != '-' else subprocess.DEVNULL
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL)
took = time.perf_counter() - start
print(took, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
"""  # argv: a file for stdin (or -), then the command; a child reports its parent's size as its own


def measure(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    stdin: Path | None = None,
    ok: tuple[str, ...] = ("0", "1"),
) -> tuple[float, float]:
    """Seconds and peak MB of one run of ``argv`` (its whole process tree), taken by a small wrapper
    process (:data:`PEAK`) so this one's memory is left out. A status outside ``ok`` stops the
    benchmark."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK, str(stdin) if stdin else "-", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env=None if env is None else dict(env),
    ).stdout.split()
    if out[2] not in ok:
        raise SystemExit(f"{' '.join(argv)} failed in {cwd}")
    return float(out[0]), int(out[1]) / 1024


def best_cpu(repeat: int, action: Callable[[], object]) -> float:
    """The least CPU time (``time.process_time``) of ``repeat`` in-process runs of ``action``: a
    throughput figure for one function, where there is no process to pair."""
    timings = []
    for _ in range(repeat):
        started = time.process_time()
        action()
        timings.append(time.process_time() - started)
    return min(timings)


def environment(**extra: str) -> dict[str, str]:
    """The current environment with ``extra`` set (bytecode written, so both sides run compiled)."""
    env = dict(os.environ, **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_bytecode(*folders: Path) -> None:
    """Write the bytecode of every module under ``folders`` now, so no timed round compiles."""
    import compileall

    for folder in folders:
        compileall.compile_dir(str(folder), quiet=1)


# Python's bytecode cache on (an installed squadmem has its .pyc files), kept outside the source tree.
PYCACHE = str(Path(tempfile.gettempdir()) / "squadmem-bench-pycache")
IDENTITY = (("user.name", "Bench"), ("user.email", "bench@example.com"), ("commit.gpgsign", "false"))
# The same identity for a repository made without it (bench.generate's), through the environment.
AUTHOR = {
    f"GIT_{who}_{what}": value
    for who in ("AUTHOR", "COMMITTER")
    for what, value in (("NAME", "Bench"), ("EMAIL", "bench@example.com"))
}


def scratch_repo(
    root: Path, *agents: str, env: Mapping[str, str] | None = None, hooks: bool = False, branch: str = "main"
) -> Path:
    """A new repository at ``root`` (made if missing): on ``branch``, a bench identity, no signing;
    ``squadmem init`` for ``agents`` when named (its hooks only with ``hooks``)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", branch, env=env)
    identify(root, env)
    if agents:
        squadmem(
            root, "init", *(f"--agent={a}" for a in agents), *(() if hooks else ("--no-hooks",)), env=env
        )
    return root


def identify(root: Path, env: Mapping[str, str] | None = None) -> None:
    """The bench identity and no signing in the repository at ``root`` (a clone, or one made here)."""
    for key, value in IDENTITY:
        git(root, "config", key, value, env=env)


def sealed(home: Path, drop: tuple[str, ...] = ("GIT_", "SQUADMEM_"), **extra: str) -> dict[str, str]:
    """The current environment sealed at ``home``: no inherited variable starting with ``drop``, no
    system git config, the bench identity, and ``extra`` set over it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1", **AUTHOR)
    env.update(extra)
    return env


def commit(
    root: Path,
    files: Mapping[str, str],
    message: str,
    date: str | None = None,
    env: Mapping[str, str] | None = None,
) -> None:
    """Write ``files`` (paths relative to ``root``), stage everything and commit at ``date``, every hook
    skipped, unsigned."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    git(root, "add", "-A", env=env)
    skip = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false")
    git(root, *skip, "commit", "-q", "--no-verify", "-m", message, date=date, env=env)


def options(
    doc: str | None,
    rounds: int | None = None,
    seed: int | None = None,
    json: bool = False,
    days: int | None = None,
    agents: int | None = None,
) -> argparse.ArgumentParser:
    """The parser every bench starts from: its docstring's first line, and ``--rounds``, ``--seed``,
    ``--days`` and ``--agents`` where a default is given, ``--json`` with ``json``."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    if rounds is not None:
        parser.add_argument(
            "--rounds",
            type=int,
            default=rounds,
            help=f"rounds, paired where two sides are timed (default {rounds})",
        )
    if seed is not None:
        parser.add_argument("--seed", type=int, default=seed, help=f"random seed (default {seed})")
    if days is not None:
        parser.add_argument("--days", type=int, default=days, help=f"days simulated (default {days})")
    if agents is not None:
        parser.add_argument(
            "--agents", type=int, default=agents, help=f"agents in the team (default {agents})"
        )
    if json:
        parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser


def table(header: Sequence[str], rows: Iterable[Sequence[object]], right: int = 0) -> None:
    """A Markdown table printed: ``header``, then one line a row as it comes; the last ``right``
    columns aligned right."""
    print(heading(header, right))
    for row in rows:
        print(line(row), flush=True)


def markdown(header: Sequence[str], rows: Iterable[Sequence[object]], right: int = 0) -> str:
    """The same table as text, for a bench that hands its table on."""
    return "\n".join([heading(header, right), *(line(row) for row in rows)])


def heading(header: Sequence[str], right: int = 0) -> str:
    """A table's first two lines: the header and the alignment marks (the last ``right`` right)."""
    marks = ["---"] * (len(header) - right) + ["---:"] * right
    return "| " + " | ".join(header) + " |\n|" + "|".join(marks) + "|"


def line(row: Sequence[object]) -> str:
    """One row of a :func:`table`, for a table printed as its rows are measured."""
    return "| " + " | ".join(str(cell) for cell in row) + " |"
