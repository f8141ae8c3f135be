"""``squadmem recall`` over 100,000 archived sections, against ``git grep`` over the same files.

A repository of ``--agents`` agents, each with an archive of ``--per-agent``
sections (titles and bodies of words drawn from a fixed vocabulary, seeded;
each body names its reference, ``ref0x`` and five hex digits), is committed
once. Then, as whole processes started as users start them (the
``squadmem`` console script pip writes for the checkout's entry point: the
fast lane, ``squadmem.cli.lane:run``), paired and alternating
(``bench/harness.py``), each median of ``--rounds`` rounds:

1. the first ``recall`` (the search index is built): one run, timed alone;
2. a warm ``recall QUERY --no-record`` against ``git grep -i`` over
   ``.squad/memory`` (the yardstick), for a precise identifier (one
   section's reference: fewer whole-word matches than the limit, so words
   inside longer ones are looked for too), a broad word (one that about a
   hundred sections hold) and a task sentence (``git grep`` given each of
   its words, ``-e``); and against ``python -c pass`` (what starting Python
   costs on the same machine); ``python -c pass`` and ``squadmem --version``
   (the lane's start, no search) against the precise identifier's ``git grep``,
   to show what part of the ratio is start-up, and ``python -c 'import re,
   sqlite3'`` (the least a Python recall over SQLite imports: no search, no
   output) against it, the floor of any such recall;
3. a warm ``recall`` after one archive file changed (that agent re-indexed).

``--checkout`` times the squadmem of another source folder; ``--before``
another too, in the same run, each on its own copy of the repository (its
own index): every query of step 2 timed for both, and one against the other.

    python -m bench.recall_scale_bench [--agents 100] [--per-agent 1000] [--rounds 21] [--before DIR]
"""

from __future__ import annotations

import random
import string
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.gitrun import git, squadmem
from bench.harness import (
    COLUMNS,
    Command,
    compare_both,
    compile_bytecode,
    environment,
    line,
    options,
    scratch_repo,
    table,
)
from bench.startup_bench import console_script
from squadmem.engine.search import index as search_index

ROOT = Path(__file__).resolve().parent.parent


def vocabulary(rng: random.Random, size: int = 20000) -> list[str]:
    return [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10))) for _ in range(size)
    ]


def archive(rng: random.Random, words: list[str], agent: str, sections: int, first: int = 0) -> str:
    """An agent's archive: sections ``first`` to ``first + sections - 1``, each naming its
    reference (:func:`reference`)."""
    parts = [f"# Archive: {agent}\n\n"]
    for n in range(sections):
        title = " ".join(rng.choice(words) for _ in range(4))
        body = [rng.choice(words) for _ in range(40)]
        body.insert(rng.randrange(41), f"(see {reference(first + n)})")
        parts.append(f"## {title} {n}\n{' '.join(body)}\n\n")
    return "".join(parts)


def reference(n: int) -> str:
    """The identifier section ``n`` names: ``ref0x`` and five hex digits, one section's own."""
    return f"ref0x{n:05x}"


def build(root: Path, agents: int, per_agent: int, seed: int) -> tuple[str, str, str]:
    """The repository; returns a precise identifier (one section's reference), a word that about a
    hundred sections hold and a task sentence of words sections hold."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    memory = root / ".squad" / "memory"
    (memory / "archive").mkdir(parents=True)
    (memory / "hot").mkdir()
    for a in range(agents):
        name = f"agent{a}"
        text = archive(rng, words, name, per_agent, a * per_agent)
        (memory / "archive" / f"{name}.md").write_text(text, "utf-8")
        (memory / "hot" / f"{name}.md").write_text(f"# Hot memory: {name}\n", "utf-8")
    identity = ("-c", "user.name=bench", "-c", "user.email=bench@example.com")
    git(root, *identity, "add", "-A")
    git(root, *identity, "commit", "-q", "--no-gpg-sign", "-m", "memory")
    task = f"Fix the {words[11]} handling in {words[12]} after the {words[13]} change"
    return reference(agents * per_agent // 2 + 7), words[7], task


class Side:
    """One checkout's ``recall`` on its own copy of the repository."""

    def __init__(self, checkout: Path, root: Path, folder: Path) -> None:
        folder.mkdir()
        compile_bytecode(checkout / "squadmem")
        self.root = root
        self.env = environment(PYTHONPATH=str(checkout))
        self.script = console_script(checkout.resolve(), folder)

    def recall(self, query: str, before: Callable[[], None] | None = None) -> Command:
        return Command(
            [*self.script, "recall", query, "--no-record"], cwd=self.root, env=self.env, before=before
        )

    def found(self, query: str) -> str:
        out = squadmem(self.root, "recall", query, "--no-record", env=self.env, check=False).out
        return out.splitlines()[-1] if out else ""


def grep(root: Path, words: Sequence[str]) -> Command:
    """``git grep -i`` for any of ``words`` over the memory folder."""
    patterns = [arg for w in words for arg in ("-e", w)]
    return Command(["git", "grep", "-i", *patterns, "--", ".squad/memory"], cwd=root, ok=(0, 1))


def rows(name: str, candidate: Command, yardstick: Command, against: str, rounds: int) -> None:
    wall, cpu = compare_both(candidate, yardstick, rounds=rounds)
    print(line(wall.cells(f"{name} (wall)", against)))
    print(line(cpu.cells(f"{name} (CPU)", against)))


def main() -> None:
    parser = options(__doc__, rounds=21, seed=5)
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--per-agent", type=int, default=1000)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--before", type=Path, help="a source folder of squadmem to time beside it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = scratch_repo(Path(tmp) / "repo")
        identifier, word, task = build(root, args.agents, args.per_agent, args.seed)
        sides = {"recall": Side(args.checkout, root, Path(tmp) / "after")}
        if args.before is not None:
            copy = Path(tmp) / "repo-before"
            git(Path(tmp), "clone", "-q", "--local", str(root), str(copy))
            sides["recall before"] = Side(args.before, copy, Path(tmp) / "before")
        sections = args.agents * args.per_agent
        print(f"{sections:,} archived sections")
        for label, side in sides.items():
            first = side.recall(word).run()  # paired.Command times the whole process
            print(f"{label}: first recall (the index built): {first:.2f} s")
        content = [w for w in task.split() if w.casefold() not in search_index.STOP_WORDS]
        queries = {"a precise identifier": (identifier, [identifier]), "a broad word": (word, [word])}
        queries["a task sentence"] = (task, content)
        for kind, (query, _) in queries.items():
            print(f"\n{kind}, {query!r}:")
            for label, side in sides.items():
                print(f"  {label}: {side.found(query)}")
        print()
        table(COLUMNS, ())
        for kind, (query, words) in queries.items():
            for label, side in sides.items():
                rows(
                    f"{label} {kind}, warm",
                    side.recall(query),
                    grep(side.root, words),
                    "git grep -i",
                    args.rounds,
                )
            if "recall before" in sides:
                after, before = sides["recall"].recall(query), sides["recall before"].recall(query)
                rows(f"recall {kind}, warm", after, before, "recall before", args.rounds)
        python = Command([sys.executable, "-c", "pass"], cwd=root)
        rows("recall a broad word, warm", sides["recall"].recall(word), python, "python -c pass", args.rounds)
        # what of the ratio is starting Python, and starting squadmem's lane, before any search
        precise = grep(root, [identifier])
        rows("python -c pass", python, precise, "git grep -i, the precise identifier", args.rounds)
        floor = Command([sys.executable, "-c", "import re, sqlite3"], cwd=root)
        against = "git grep -i, the precise identifier"
        rows("python -c 'import re, sqlite3'", floor, precise, against, args.rounds)
        lane = sides["recall"]
        version = Command([*lane.script, "--version"], cwd=root, env=lane.env)
        rows("squadmem --version", version, precise, "git grep -i, the precise identifier", args.rounds)
        for label, side in sides.items():
            changed = side.root / ".squad" / "memory" / "archive" / "agent0.md"

            def touch(changed: Path = changed) -> None:
                with changed.open("a", encoding="utf-8") as handle:
                    handle.write("## One more\nline\n")

            name = f"{label} after one file of {args.per_agent:,} sections changed"
            rows(name, side.recall(word, before=touch), grep(side.root, [word]), "git grep -i", args.rounds)


if __name__ == "__main__":
    main()
