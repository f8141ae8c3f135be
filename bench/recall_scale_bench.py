"""``squadmem recall`` over 100,000 archived sections, against ``git grep`` over the same files.

A repository of ``--agents`` agents, each with an archive of ``--per-agent``
sections (titles and bodies of words drawn from a fixed vocabulary, seeded),
is committed once. Then, as whole processes started as users start them (the
``squadmem`` console script pip writes for the checkout's entry point: the
fast lane, ``squadmem.cli.lane:run``), paired and alternating
(``bench/paired.py``), each median of ``--rounds`` rounds:

1. the first ``recall`` (the search index is built): one run, timed alone;
2. a warm ``recall WORD --no-record`` against ``git grep -i WORD --
   .squad/memory`` (the yardstick the issue names) and against ``python -c
   pass`` (what starting Python costs on the same machine);
3. a warm ``recall`` after one archive file changed (that agent re-indexed).

``--checkout`` times the squadmem of another source folder (before/after).

    python -m bench.recall_scale_bench [--agents 100] [--per-agent 1000] [--rounds 21]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import tempfile
from pathlib import Path

from bench.gitrun import git, squadmem
from bench.paired import HEADER, Command, compare_both, compile_bytecode, environment
from bench.startup_bench import console_script

ROOT = Path(__file__).resolve().parent.parent


def vocabulary(rng: random.Random, size: int = 20000) -> list[str]:
    return [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 10))) for _ in range(size)
    ]


def archive(rng: random.Random, words: list[str], agent: str, sections: int) -> str:
    parts = [f"# Archive: {agent}\n\n"]
    for n in range(sections):
        title = " ".join(rng.choice(words) for _ in range(4))
        body = " ".join(rng.choice(words) for _ in range(40))
        parts.append(f"## {title} {n}\n{body}\n\n")
    return "".join(parts)


def build(root: Path, agents: int, per_agent: int, seed: int) -> str:
    """The repository; returns a word that about a hundred sections hold."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    memory = root / ".squad" / "memory"
    (memory / "archive").mkdir(parents=True)
    (memory / "hot").mkdir()
    for a in range(agents):
        name = f"agent{a}"
        (memory / "archive" / f"{name}.md").write_text(archive(rng, words, name, per_agent), "utf-8")
        (memory / "hot" / f"{name}.md").write_text(f"# Hot memory: {name}\n", "utf-8")
    identity = ("-c", "user.name=bench", "-c", "user.email=bench@example.com")
    git(root, *identity, "add", "-A")
    git(root, *identity, "commit", "-q", "--no-gpg-sign", "-m", "memory")
    return words[7]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--per-agent", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    args = parser.parse_args()
    compile_bytecode(args.checkout / "squadmem")
    env = environment(PYTHONPATH=str(args.checkout))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        word = build(root, args.agents, args.per_agent, args.seed)
        script = console_script(args.checkout.resolve(), Path(tmp))
        recall = Command([*script, "recall", word, "--no-record"], cwd=root, env=env)
        grep = Command(["git", "grep", "-i", word, "--", ".squad/memory"], cwd=root, env=env, ok=(0, 1))
        python = Command([sys.executable, "-c", "pass"], cwd=root, env=env)
        first = recall.run()  # paired.Command times the whole process
        found = squadmem(root, "recall", word, "--no-record", env=env, check=False).out
        sections = args.agents * args.per_agent
        print(f"{sections:,} archived sections; the word {word!r}: {found.splitlines()[-1] if found else ''}")
        print(f"first recall (the index built): {first:.2f} s\n")
        print(HEADER)
        for name, yardstick in (("git grep -i", grep), ("python -c pass", python)):
            wall, cpu = compare_both(recall, yardstick, rounds=args.rounds)
            print(wall.row("recall, warm (wall)", name))
            print(cpu.row("recall, warm (CPU)", name))
        changed = root / ".squad" / "memory" / "archive" / "agent0.md"

        def touch() -> None:
            with changed.open("a", encoding="utf-8") as handle:
                handle.write("## One more\nline\n")

        edited = Command(recall.argv, cwd=root, env=env, before=touch)
        wall, cpu = compare_both(edited, grep, rounds=args.rounds)
        print(wall.row(f"recall after one file of {args.per_agent:,} sections changed (wall)", "git grep -i"))
        print(cpu.row(f"recall after one file of {args.per_agent:,} sections changed (CPU)", "git grep -i"))


if __name__ == "__main__":
    main()
