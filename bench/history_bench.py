"""How ``squadmem report`` holds up on a long history: squadmem's performance targets.

    python -m bench.history_bench [--commits 20000] [--rounds 11] [--cold-kb 60] [--fast|--cold] [--repo DIR]

Generates a history with ``bench/generate.py`` (about half the commits touch
``.squad/memory/``). Its cold files grow to ``--cold-kb`` KB (default 60)
against squadmem's ``cold.max_bytes`` of 12 KB: each is over its budget, as
in a team that has not run ``maintain`` for a while, and ``report`` (run a
day after the last commit) works out for each the ``--cold-ttl-days`` that
brings it under (``--cold-kb 12`` keeps them within, as ``maintain``
would). It then measures, each candidate paired round by round with its
yardstick (``bench/harness.py``: alternating, medians of the per-round
ratios; ``--fast``: the rows with a target only, no peak memory; ``--cold``: the
empty-cache rows only, row 1 and its CPU time):

1. ``squadmem report`` from an empty cache, against the raw floor: the same
   ``git log`` squadmem runs (its options, its paths), to its end, then one
   ``git cat-file --batch`` of exactly the blobs squadmem reads, in the order
   it reads them (tier files only: daily logs are never read; oldest first,
   as the log names them). Target: at most 1.5x. Squadmem's log lists every
   commit (a use recorded in a trailer of a commit that touches no memory
   counts too); a second row takes the smallest log instead, ``git log --raw
   -- .squad/memory`` (memory commits only), with the same blobs;
2. the peak memory of that ``report`` (the largest process of its run, git's
   included; target: under 200 MB);
3. ``report`` with a warm cache after one new commit, against ``report`` on a
   repository of one commit holding the same files (target: at most 1.0x: the
   cost does not grow with history).

Wall time and CPU time (user + system, git's included) of the cold runs come
from the same rounds: on a busy machine CPU time is the steadier figure, but
squadmem's Python runs beside its git processes, so on an idle 2-core
machine its wall time gains on its CPU time. The floor's output is read by
this script through a pipe, as squadmem reads its own; a last row takes the
floor at its cheapest, its output to /dev/null, where ``cat-file`` spends
about a third less CPU than writing into a pipe. A lower bound for the
first row sits beside it: the reader alone, a Python process (the same
interpreter) that runs squadmem's own ``memory_log`` and ``blobs`` over the
same log and blobs and does nothing with them (no cutting, no ``report``),
the least any Python engine that reads history as squadmem does (one streamed
log, one ``cat-file --batch``) can cost, against the floor at its cheapest
(the steady yardstick: the piped floor's own CPU time moves with how fast its
reader drains the pipe, 1.6 to 2.6 s at 20,000 commits). Peak memory is read by a
small wrapper process with ``resource.getrusage(RUSAGE_CHILDREN)``, so one
measurement never sees another's processes (nor the benchmark's own size: on
Linux a process started from a large one reports that size as its own peak).
Benchmarks are not tests: nothing here fails.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import generate, gitrun
from bench.generate import generated
from bench.harness import (
    AUTHOR,
    PEAK,
    PYCACHE,
    Chain,
    Command,
    Paired,
    commit,
    compare,
    compare_both,
    environment,
    measure,
    options,
    scratch_repo,
)
from squadmem.gitio.commits import LOG_OPTIONS, memory_log
from squadmem.gitio.formats import log_format
from squadmem.gitio.repo import Repo
from squadmem.model import squad
from squadmem.model.layout import MEMORY_DIR, classify
from squadmem.model.places import SQUAD_PLACES

DAY = 86400
CACHE = Path(".git/squadmem/history-cache")
# ``--now``: a day after the history's last commit, a team running ``report`` that day (:func:`now_of`).
REPORT = (sys.executable, "-m", "squadmem", "report", "--json", "--now")
ENV = environment(PYTHONPYCACHEPREFIX=PYCACHE)
NULL = "0" * 40
# The log squadmem's history engine runs for an empty cache: its options, its format, its paths.
PATHS = (MEMORY_DIR, squad.AGENTS_DIR, *squad.DECISION_FILES, squad.INBOX_DIR)
LOG = ("git", "log", *LOG_OPTIONS, log_format("%H", "%P", "%ct", "%B"), "HEAD", "--", *PATHS)
SMALL_LOG = ("git", "log", "--raw", "--no-abbrev", "--", MEMORY_DIR)  # memory commits only
# The same report in-process, printing the peak memory of the Python process alone (git's excluded).
_SELF_PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = ['squadmem', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('squadmem', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)
# The reader alone: squadmem's own log and blob reads, all it is given thrown away but two counts.
_READER = (
    "import sys\n"
    "from squadmem.gitio.commits import blobs, memory_log\n"
    "from squadmem.gitio.repo import Repo\n"
    "repo = Repo('.')\n"
    "commits = sum(1 for _ in memory_log(repo, ['HEAD'], squad_sources=True))\n"
    "read = sum(len(data) for _, data in blobs(repo, open(sys.argv[1]).read().split()))\n"
    "print(commits, read)\n"
)


def peak(cmd: Sequence[str], cwd: Path, stdin: Path | None = None) -> float:
    """Peak MB of one run of ``cmd`` (the largest process of its tree)."""
    return measure(cmd, cwd, ENV, stdin, ok=("0",))[1]


def git(cwd: Path, *args: str) -> str:
    return gitrun.git(cwd, *args, env=ENV).out


def read_order(root: Path) -> list[str]:
    """The blobs squadmem's history engine reads from an empty cache, in its order: the last
    version of each deleted tier file, then every tier blob and Squad source blob the log
    introduces, oldest first (daily logs, settings and other files are never read)."""
    introduced: dict[str, None] = {}  # in log order, newest first
    dropped: dict[str, None] = {}
    with Repo(root) as repo:
        for commit in memory_log(repo, ["HEAD"], squad_sources=True):
            for old, new, path in commit.changes:
                if new != NULL:
                    introduced.setdefault(new)
                elif classify(path, SQUAD_PLACES) is not None and old != NULL:
                    dropped.setdefault(old)
    return [sha for sha in dropped if sha not in introduced] + list(reversed(introduced))


def blob_list(root: Path, scratch: Path) -> tuple[Path, int, int]:
    """The blobs squadmem reads, in its order, in a file for cat-file; their count and bytes."""
    blobs = read_order(root)
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


def now_of(root: Path) -> int:
    """The moment the benchmark runs ``report`` at: a day after the last commit (its sections' ages
    as a team sees them that day; the cold files' sections within ``cold.ttl_days``, so ``report``
    works out the TTL that brings each over-budget cold file under)."""
    return int(git(root, "log", "-1", "--format=%ct", "HEAD")) + DAY


def iso(epoch: int) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def one_new_commit(root: Path, when: int) -> None:
    hot = ".squad/memory/hot/picard.md"
    text = (root / hot).read_text() + "\n## Bench note\n\nOne more commit.\n"
    commit(root, {hot: text}, "bench: one more", f"{when} +0000", ENV | AUTHOR)


def one_commit_copy(root: Path, dest: Path, when: int) -> None:
    """A repository of one commit, made at ``when``, holding the same files as ``root``'s HEAD."""
    scratch_repo(dest)
    archive = gitrun.git(root, "archive", "HEAD").stdout
    subprocess.run(["tar", "-x", "-m", "-C", str(dest)], input=archive, check=True)
    commit(dest, {}, "all at once", f"{when} +0000", ENV)


def drop_cache(root: Path) -> Callable[[], None]:
    def run() -> None:
        (root / CACHE).unlink(missing_ok=True)

    return run


def restore_cache(root: Path, saved: bytes) -> Callable[[], None]:
    def run() -> None:
        (root / CACHE).write_bytes(saved)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = options(__doc__, rounds=11, seed=1)
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument(
        "--cold-kb",
        type=int,
        default=60,
        help="the generated cold files' size in KB (default 60, over the 12 KB budget; 12: within it)",
    )
    parser.add_argument(
        "--fast", action="store_true", help="only the rows with a target: no smallest floor, no peak memory"
    )
    parser.add_argument(
        "--cold", action="store_true", help="only `report` from an empty cache against the raw floor"
    )
    parser.add_argument(
        "--repo", type=Path, help="generate into (or reuse) this folder; default: a temporary one"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="squadmem-bench-") as tmp:
        generate.COLD_MAX_BYTES = args.cold_kb * 1024  # the generator's cap, not squadmem's budget
        root = generated(args.repo, Path(tmp), args.commits, args.seed)
        run(root, Path(tmp), args.rounds, args.fast or args.cold, args.cold)
    return 0


@dataclasses.dataclass
class Figures:
    """What one run measured (``None``: not measured, under ``--fast``)."""

    cold: Paired
    cold_cpu: Paired
    null_cpu: Paired  # against the floor with its output to /dev/null
    reader_cpu: Paired  # the reader alone against the floor with its output to /dev/null
    parts: Paired
    warm: Paired | None = None
    warm_warm: Paired | None = None
    small: tuple[Paired, Paired, float] | None = None
    peaks: tuple[float, float, float] | None = None


def run(root: Path, scratch: Path, rounds: int, fast: bool = False, cold_only: bool = False) -> None:
    now = now_of(root)
    report = (*REPORT, iso(now))
    names, blob_count, blob_bytes = blob_list(root, scratch)
    report_cold = Command(report, cwd=root, env=ENV, before=drop_cache(root))
    log = Command(LOG, cwd=root, env=ENV)
    cat = Command(("git", "cat-file", "--batch"), cwd=root, env=ENV, input=names.read_bytes())
    parts = compare(log, cat, rounds=max(3, rounds // 2), warmup=1)  # the floor's two parts, each's median
    cold, cold_cpu = compare_both(report_cold, Chain((log, cat)), rounds=rounds, warmup=1)
    quiet = Chain(tuple(dataclasses.replace(c, discard=True) for c in (log, cat)))
    _, null_cpu = compare_both(report_cold, quiet, rounds=rounds, warmup=1)
    reader = Command((sys.executable, "-c", _READER, str(names)), cwd=root, env=ENV)
    _, reader_cpu = compare_both(reader, quiet, rounds=rounds, warmup=1)
    small = None
    if not fast:
        small_log = Command(SMALL_LOG, cwd=root, env=ENV)
        small_wall, small_cpu = compare_both(report_cold, Chain((small_log, cat)), rounds=rounds, warmup=1)
        small = small_wall, small_cpu, compare(small_log, cat, rounds=max(3, rounds // 2), warmup=1).candidate
    peaks = None if fast else measure_peaks(root, report, names)
    data = json.loads(
        subprocess.run(report, cwd=root, capture_output=True, text=True, check=True, env=ENV).stdout
    )
    warm, warm_warm = (None, None) if cold_only else measure_warm(root, scratch, report, now, rounds)
    commits = int(git(root, "rev-list", "--count", "HEAD"))
    memory_commits = int(git(root, "rev-list", "--count", "HEAD", "--", ".squad/memory"))
    over = [f for f in data["files"] if f["tier"] == "cold" and f["over_budget"]]
    print(
        f"history: {commits} commits, {memory_commits} touching .squad/memory, {len(data['sections'])} "
        f"sections at HEAD, {len(over)} cold file(s) over budget ({len([f for f in over if f['fix']])} "
        f"with a --cold-ttl-days fix), `report --now {iso(now)}`; the floor reads {blob_count} blobs, "
        f"{blob_bytes / 1e6:.1f} MB; {rounds} paired rounds, medians (the ratio: of the per-round ratios)"
    )
    print()
    table(Figures(cold, cold_cpu, null_cpu, reader_cpu, parts, warm, warm_warm, small, peaks))


def measure_peaks(root: Path, report: Sequence[str], names: Path) -> tuple[float, float, float]:
    """Peak MB of ``report`` from an empty cache (git's processes included), of the floor's git
    processes, and of squadmem's Python process alone."""
    report_peaks = []
    for _ in range(3):
        drop_cache(root)()
        report_peaks.append(peak(report, root))
    floor_peak = max(peak(LOG, root), peak(("git", "cat-file", "--batch"), root, names))
    own_peaks = []
    for _ in range(3):
        drop_cache(root)()
        own = subprocess.run(  # through the small wrapper: a child counts its parent's size as its own
            [sys.executable, "-c", PEAK, "-", sys.executable, "-c", _SELF_PEAK, *report[3:]],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            env=ENV,
        )
        own_peaks.append(int(own.stderr.split()[-1]) / 1024)
    return statistics.median(report_peaks), floor_peak, statistics.median(own_peaks)


def measure_warm(
    root: Path, scratch: Path, report: Sequence[str], now: int, rounds: int
) -> tuple[Paired, Paired]:
    """``report`` with a warm cache after one new commit, against ``report`` on a one-commit
    repository of the same files: from an empty cache, and with its cache up to date."""
    saved = (root / CACHE).read_bytes()
    work = scratch / "work"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(work)], check=True)
    (work / CACHE).parent.mkdir(parents=True, exist_ok=True)
    (work / CACHE).write_bytes(saved)
    one_new_commit(work, now - 3600)
    single = scratch / "single"
    one_commit_copy(work, single, now - 3600)
    report_warm = Command(report, cwd=work, env=ENV, before=restore_cache(work, saved))
    warm = compare(report_warm, Command(report, cwd=single, env=ENV, before=drop_cache(single)), rounds)
    return warm, compare(report_warm, Command(report, cwd=single, env=ENV), rounds)


def table(f: Figures) -> None:
    print("| measure | squadmem | against | paired ratio | target |")
    print("|---|---|---|---|---|")
    print(
        f"| `report`, empty cache | {f.cold.candidate:.2f} s | raw floor {f.cold.yardstick:.2f} s "
        f"(squadmem's `git log` {f.parts.candidate:.2f} s + `cat-file --batch` of the blobs it reads "
        f"{f.parts.yardstick:.2f} s) | {f.cold.ratio:.2f}× | ≤ 1.5× |"
    )
    if f.small is not None:
        small, _, small_log = f.small
        print(
            f"| the same | {small.candidate:.2f} s | smallest floor {small.yardstick:.2f} s "
            f"(`git log --raw -- .squad/memory` {small_log:.2f} s + the same `cat-file --batch`) "
            f"| {small.ratio:.2f}× | |"
        )
    if f.peaks is not None:
        print(
            f"| peak memory of that `report` (its git processes included) | {f.peaks[0]:.0f} MB "
            f"| the floor's git processes: {f.peaks[1]:.0f} MB | | < 200 MB |"
        )
        print(f"| the same, squadmem's Python process alone | {f.peaks[2]:.0f} MB | | | < 200 MB |")
    print(
        f"| CPU time of `report`, empty cache (git's included) | {f.cold_cpu.candidate:.2f} s | CPU time of "
        f"the raw floor {f.cold_cpu.yardstick:.2f} s | {f.cold_cpu.ratio:.2f}× | |"
    )
    print(
        f"| the same | {f.null_cpu.candidate:.2f} s | CPU time of the raw floor writing to /dev/null "
        f"(no reader: git's least work) {f.null_cpu.yardstick:.2f} s | {f.null_cpu.ratio:.2f}× | |"
    )
    print(
        f"| CPU time of the reader alone (squadmem's log and blob reads, nothing cut: a lower bound) "
        f"| {f.reader_cpu.candidate:.2f} s | CPU time of the raw floor writing to /dev/null "
        f"{f.reader_cpu.yardstick:.2f} s "
        f"| {f.reader_cpu.ratio:.2f}× | |"
    )
    if f.warm is None or f.warm_warm is None:
        return
    print(
        f"| `report` after one new commit, warm cache | {f.warm.candidate:.2f} s | `report` on a "
        f"one-commit repository with the same files, empty cache: {f.warm.yardstick:.2f} s "
        f"| {f.warm.ratio:.2f}× | ≤ 1.0× |"
    )
    print(
        f"| the same | {f.warm_warm.candidate:.2f} s | the one-commit repository, cache up to date: "
        f"{f.warm_warm.yardstick:.2f} s | {f.warm_warm.ratio:.2f}× | ≤ 1.0× |"
    )


if __name__ == "__main__":
    sys.exit(main())
