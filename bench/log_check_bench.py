"""Benchmark: the installed pre-commit hook against `check-added-large-files` on the same staged change.

The candidate is what ``git commit`` runs: the shim ``squadmem init`` writes to
``.git/hooks/pre-commit`` (``sh``, then squadmem's checks in the Python it was
installed with), started as git starts it, in the repository's top folder with
``GIT_INDEX_FILE`` set. The yardstick is pre-commit-hooks'
``check-added-large-files`` console script, given the staged file's name as the
pre-commit framework would. Three cases, each in its own scratch repository
initialised by ``squadmem init``:

- a memory append: today's daily log gains one line (every check reads it);
- the same with an edited tiers.toml (``timezone = "Europe/Paris"``): the
  hook then parses it (``tomllib``, ``zoneinfo``); with the tiers.toml
  ``init`` writes, it knows the defaults without parsing;
- no memory file: a README gains one line (the hook only starts and looks).

A further row sets the hook of the no-memory case against bare start-up (``sh``
starting the same Python with ``-I -S`` and nothing to do): the shim answers
that case itself (one ``git diff --cached --quiet`` and two file tests).

The target is what a commit costs: the whole ``git commit`` of the log append
(and of the README append) with every hook squadmem installs (pre-commit,
prepare-commit-msg, commit-msg), against the same commit with the yardstick
installed the same way, as a plain ``pre-commit`` hook script: the staged
files' names (``git diff --cached --name-only``, as the pre-commit framework
asks), then ``check-added-large-files`` on them (its own ``git diff`` of the
added files included), started as squadmem's shim starts its checks: the
same Python with ``-I -S``, the package's folder appended to its path, so
neither side pays for the site-packages' ``.pth`` files (an editable
install's finder, certifi's) that its console script would. A row with the
console script as the hook shows what those cost. Each run starts from the
same HEAD and index. Two more rows set each against the same commit with no
hook at all (``core.hooksPath`` an empty folder; ``--no-verify`` would still
run prepare-commit-msg).

Paired whole-process runs (``bench/paired.py``): the two alternate, bytecode is
written for both (a warm-up compiles it), and the figures are the medians of
each side and of the per-round ratios. Target (issue 24): the whole commit
with squadmem's hooks at most 1.0x the commit with the yardstick's.

    python -m bench.log_check_bench [--rounds 41]
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import subprocess
import sys
import tempfile
import zoneinfo
from pathlib import Path

from bench.paired import HEADER, Command, Paired, compare, environment

TARGET = 1.0


def script(name: str) -> str:
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"{name}: not installed; run: python3 -m pip install -e '.[test]'")
    return found


def scratch(root: Path, env: dict[str, str], memory: bool, zone: str = "UTC") -> str:
    """A repository set up by ``squadmem init`` with one append staged; returns the staged path."""
    day = dt.datetime.now(zoneinfo.ZoneInfo(zone)).date().isoformat()
    root.mkdir(parents=True)

    def run(*args: str) -> None:
        subprocess.run(args, cwd=root, env=env, check=True, capture_output=True)

    run("git", "init", "-q", "-b", "main")
    run(sys.executable, "-m", "squadmem", "init", "--agent", "picard")
    if zone != "UTC":
        tiers = root / ".squad/memory/tiers.toml"
        tiers.write_text(tiers.read_text("utf-8").replace('timezone = "UTC"', f'timezone = "{zone}"'))
    rel = f".squad/memory/log/{day}.md" if memory else "README.md"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"# Daily log {day}\n\n" + "".join(f"- 00:{n % 60:02d} [picard] entry {n}\n" for n in range(200))
        if memory
        else "# A project\n"
    )
    run("git", "add", "-A")
    run("git", "commit", "-q", "--no-verify", "-m", "start")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- 00:00 [picard] one more entry\n" if memory else "One more line.\n")
    run("git", "add", rel)
    return rel


YARDSTICK_HOOK = """#!/bin/sh
# check-added-large-files as the pre-commit framework runs it: on the names of the staged files
files=$(git diff --cached --name-only --no-ext-diff --diff-filter=ACMRT) || exit 1
[ -n "$files" ] || exit 0
exec {command} $files
"""
# The yardstick started as squadmem's shim starts its checks (templates/hook.sh).
SAME_START = (
    "'{python}' -I -S -c 'import sys; sys.path.append(sys.argv.pop(1)); "
    "from pre_commit_hooks.check_added_large_files import main; raise SystemExit(main())' '{root}'"
)


def hook_folder(folder: Path, command: str | None) -> Path:
    """A ``core.hooksPath`` folder: a pre-commit hook that runs the yardstick ``command`` (a shell
    command line) on the staged files, or no hook at all (None)."""
    folder.mkdir(exist_ok=True)
    if command is not None:
        hook = folder / "pre-commit"
        hook.write_text(YARDSTICK_HOOK.format(command=command), "utf-8")
        hook.chmod(0o755)
    return folder


def same_start() -> str:
    """The shell command that starts the yardstick as squadmem's shim starts squadmem's checks."""
    import importlib.util

    spec = importlib.util.find_spec("pre_commit_hooks")
    if spec is None or spec.origin is None:
        raise SystemExit("pre-commit-hooks: not installed; run: python3 -m pip install -e '.[bench]'")
    root = Path(spec.origin).resolve().parent.parent
    return SAME_START.format(python=sys.executable, root=root)


def head(root: Path, env: dict[str, str]) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def whole_commit(root: Path, env: dict[str, str], rounds: int, hooks: Path, base: str) -> Paired:
    """A whole ``git commit`` of the staged append (every hook squadmem installed: pre-commit,
    prepare-commit-msg, commit-msg) against the same commit run with the hooks of ``hooks``
    (``core.hooksPath``); each run starts from HEAD ``base`` with the append staged."""

    def reset() -> None:
        subprocess.run(["git", "reset", "-q", "--soft", base], cwd=root, env=env, check=True)

    commit = ["git", "commit", "-q", "--no-gpg-sign", "-m", "one more entry"]
    hooked = Command(commit, cwd=root, env=env, before=reset)
    other = Command(["git", "-c", f"core.hooksPath={hooks}", *commit[1:]], cwd=root, env=env, before=reset)
    return compare(hooked, other, rounds=rounds)


CASES = (
    (True, "UTC", "a staged daily-log append"),
    (True, "Europe/Paris", "a staged daily-log append, tiers.toml edited"),
    (False, "UTC", "a staged README append (no memory file)"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41, help="paired rounds per case (default 41)")
    args = parser.parse_args()
    yardstick = script("check-added-large-files")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = {k: v for k, v in environment().items() if not k.startswith("GIT_")}
        env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="b")
        env.update(GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="b")
        env.update(GIT_COMMITTER_EMAIL="b@example.com")
        for number, (memory, zone, label) in enumerate(CASES):
            root = Path(tmp) / f"case{number}"
            rel = scratch(root, env, memory, zone)
            hook_env = dict(env, GIT_INDEX_FILE=".git/index")  # as git commit starts its hooks
            hook = Command([str(root / ".git/hooks/pre-commit")], cwd=root, env=hook_env)
            large = Command([yardstick, rel], cwd=root, env=hook_env)
            results.append((label, compare(hook, large, rounds=args.rounds)))
        plain = Path(tmp) / f"case{len(CASES) - 1}"
        hook = Command([str(plain / ".git/hooks/pre-commit")], cwd=plain, env=hook_env)
        start = Command(["sh", "-c", f'"{sys.executable}" -I -S -c pass'], cwd=plain, env=hook_env)
        bare_start = compare(hook, start, rounds=args.rounds)
        large_hooks = hook_folder(Path(tmp) / "yardstick-hooks", same_start())
        script_hooks = hook_folder(Path(tmp) / "script-hooks", f"'{yardstick}'")
        no_hooks = hook_folder(Path(tmp) / "no-hooks", None)
        log = Path(tmp) / "case0"
        bases = {log: head(log, env), plain: head(plain, env)}
        whole = whole_commit(log, env, args.rounds, large_hooks, bases[log])
        whole_plain = whole_commit(plain, env, args.rounds, large_hooks, bases[plain])
        whole_script = whole_commit(log, env, args.rounds, script_hooks, bases[log])
        bare = whole_commit(log, env, args.rounds, no_hooks, bases[log])
        bare_plain = whole_commit(plain, env, args.rounds, no_hooks, bases[plain])
    print("The installed pre-commit hook (what git commit runs) against check-added-large-files, paired")
    print()
    print(HEADER)
    for label, result in results:
        print(result.row(f"installed pre-commit hook, {label}", "`check-added-large-files`"))
    print(bare_start.row("installed pre-commit hook, no memory file", "`sh` starting `python -I -S -c pass`"))
    yardstick_commit = "`git commit`, `check-added-large-files` as its pre-commit hook (`-I -S`)"
    print(whole.row("`git commit` of the log append, squadmem's hooks", yardstick_commit))
    print(whole_plain.row("`git commit` of the README append, squadmem's hooks", yardstick_commit))
    script_commit = "`git commit`, `check-added-large-files`'s console script as its pre-commit hook"
    print(whole_script.row("`git commit` of the log append, squadmem's hooks", script_commit))
    print(bare.row("`git commit` of the log append, squadmem's hooks", "`git commit`, no hook"))
    print(bare_plain.row("`git commit` of the README append, squadmem's hooks", "`git commit`, no hook"))
    print()
    for label, result in (("whole commit, log append", whole), ("whole commit, README append", whole_plain)):
        verdict = "ok" if result.ratio <= TARGET else "over target"
        print(f"{label}: {result.ratio:.2f}x (target <= {TARGET}x: {verdict})")


if __name__ == "__main__":
    main()
