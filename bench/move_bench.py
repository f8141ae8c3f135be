"""Benchmark: one move commit during ``maintain`` against one ``git commit -q --no-verify`` process.

A generated history (``bench/generate.py``, 2,000 commits by default) is
checked out; one hot section is moved to cold and back, again and again:

- *move commit*: ``writer.Writer.commit`` for one move, what each move of a
  ``maintain`` run costs: git's ``index.lock`` taken, blobs, trees and commit
  object written in-process, the journal, ``git update-ref``
  (compare-and-swap), the two tier files replaced atomically, the index
  with those two paths refreshed in-process, put in place as git commits
  its lock;
- *git commit*: the same two-file change made by hand and staged (not timed),
  then one ``git commit -q --no-verify`` process (timed);
- *run overhead*: what a ``maintain`` run pays once, whatever its number of
  moves: the lock, the recovery check, ``git status`` of the tier files, the
  identity (``git var -l``), the rehearsal of the plan against HEAD.

The move commit and the git commit are paired round by round, taking turns
at going first (``bench/harness.py``); the table gives the medians and the
median of the per-round ratios (target: a move commit at most 1.3x a git
commit). The overhead and the whole command have no yardstick: medians.

    python -m bench.move_bench [--rounds 41] [--commits 2000]
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.generate import generated
from bench.gitrun import SQUADMEM, git
from bench.harness import Command, Stopwatch, compare_timings, options, table
from squadmem.engine import catalog, index
from squadmem.engine.planning import policy
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import settings, templates
from squadmem.model.places import SQUAD_PLACES

TARGET = 1.3


def _pick(repo: Repo) -> tuple[str, str, str]:
    """A hot file, its agent's cold file, and one movable section of the hot file."""
    memory = catalog.load(repo.layout)
    for entry in memory.entries:
        if entry.tier == "hot" and not (entry.is_index or entry.is_session or entry.pinned):
            return entry.file, entry.file.replace("/hot/", "/cold/"), entry.text
    raise SystemExit("no movable hot section in the generated history")


def _texts(repo: Repo, hot: str, cold: str, section: str, there: bool) -> dict[str, str]:
    """The two files after moving ``section`` hot -> cold (``there`` False) or back."""
    files = {rel: (repo.root / rel).read_text("utf-8") for rel in (hot, cold)}
    source, target = (hot, cold) if not there else (cold, hot)
    files[source], cut = index.remove(files[source], section)
    files[target] = index.insert(files[target], cut)
    return files


def time_move(repo: Repo, hot: str, cold: str, section: str, there: bool) -> float:
    files = _texts(repo, hot, cold, section, there)
    with writer.session(repo) as scribe:
        scribe.config()  # the identity is read once per run (counted in the overhead row)
        watch = Stopwatch()
        scribe.commit(
            files, writer.message("memory(bench): move", "bench", [("Squad-Memory-Reason", "bench")])
        )
        return watch.seconds()


def time_git_commit(repo: Repo, hot: str, cold: str, section: str, there: bool) -> float:
    for rel, text in _texts(repo, hot, cold, section, there).items():
        (repo.root / rel).write_text(text, "utf-8")
    git(repo.root, "add", hot, cold)
    watch = Stopwatch()
    git(repo.root, "commit", "-q", "--no-verify", "-m", "by hand")
    return watch.seconds()


def time_overhead(repo: Repo) -> float:
    """A run's fixed cost: session (lock, recovery), status, identity, rehearsal of an Index-only plan."""
    conf = settings.load(repo.layout.memory)
    memory = catalog.load(repo.layout)
    plan = policy.plan(memory, {}, conf, maintain_now())
    watch = Stopwatch()
    with writer.session(repo) as scribe:
        scribe.refuse_dirty(plan.read() or [memory.entries[0].file])
        scribe.config()
        scribe.rehearse(plan, templates.headers(SQUAD_PLACES))
    return watch.seconds()


def maintain_now() -> policy.dt.datetime:
    return policy.dt.datetime.now(policy.dt.UTC)


def time_command(root: Path, section_id: str, there: bool) -> float:
    """The whole ``squadmem demote``/``promote`` process: start, history, plan, move and Index commits."""
    verb = "promote" if there else "demote"
    return Command((*SQUADMEM, verb, section_id), cwd=root).run()


def main() -> None:
    parser = options(__doc__, rounds=41)
    parser.add_argument(
        "--commits", type=int, default=2000, help="commits of generated history (default 2000)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = generated(None, Path(tmp), args.commits)
        with Repo(root) as repo:
            hot, cold, section = _pick(repo)
            where = {"there": False}  # the section is in cold after an odd number of moves

            def flip(timer: Callable[[Repo, str, str, str, bool], float]) -> Callable[[], float]:
                def run() -> float:
                    took = timer(repo, hot, cold, section, where["there"])
                    where["there"] = not where["there"]
                    return took

                return run

            paired = compare_timings(flip(time_move), flip(time_git_commit), rounds=args.rounds)
            overhead = [time_overhead(repo) for _ in range(args.rounds)]
            section_id = next(e.id for e in catalog.load(repo.layout).entries if e.text == section)
            whole = []
            for _ in range(max(args.rounds // 4, 3)):
                whole.append(time_command(root, section_id, where["there"]))
                where["there"] = not where["there"]
        m, c = paired.candidate * 1000, paired.yardstick * 1000
        o, w = (statistics.median(x) * 1000 for x in (overhead, whole))
        print(
            f"one move commit vs one git commit ({args.commits}-commit history, {args.rounds} paired rounds, "
            "medians)"
        )
        print()
        mark = "✓" if paired.ratio <= TARGET else "✗"
        table(
            ("what", "median"),
            (
                ("one move commit during maintain (`writer.Writer.commit`)", f"{m:.1f} ms"),
                ("one `git commit -q --no-verify` of the same change", f"{c:.1f} ms"),
                (
                    f"paired ratio, median of the rounds' (target ≤ {TARGET:g}×)",
                    f"{paired.ratio:.2f}× {mark}",
                ),
                (
                    "a maintain run's fixed overhead, paid once (lock, status, identity, rehearsal)",
                    f"{o:.1f} ms",
                ),
                ("a whole `squadmem demote ID` process (start, history, plan, two commits)", f"{w:.1f} ms"),
            ),
        )


if __name__ == "__main__":
    main()
