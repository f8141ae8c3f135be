"""Benchmark: the installed pre-commit hook against `check-added-large-files` on the same staged change.

The candidate is what ``git commit`` runs: the shim ``squadmem init`` writes to
``.git/hooks/pre-commit`` (``sh``, then squadmem's checks in the Python it was
installed with), started as git starts it, in the repository's top folder with
``GIT_INDEX_FILE`` set. The yardstick is pre-commit-hooks'
``check-added-large-files`` console script (of a virtualenv made as the
pre-commit framework makes one, below), given the staged file's name as the
pre-commit framework would. Three cases, each in its own scratch repository
initialised by ``squadmem init``:

- a memory append: today's daily log gains one line (every check reads it);
- the same with an edited tiers.toml (``timezone = "Europe/Paris"``): the
  hook then parses it (``tomllib``, ``zoneinfo``); with the tiers.toml
  ``init`` writes, it knows the defaults without parsing;
- no memory file: a README gains one line (the hook only starts and looks);
- a Squad team with spawn on (``squad init`` by the real Squad CLI, ``--squad``
  or ``SQUADMEM_SQUAD_CLI``, an agent's charter cast from Squad's template, then
  ``squadmem init``, ``intake`` and ``spawn on``, which puts squadmem's blocks in): the
  agent's charter gains one line of Squad's, its block kept (the spawn check
  reads the record and the charter; no memory file). Left out without the CLI.

A further row sets the hook of the no-memory case against bare start-up (``sh``
starting the same Python with ``-I -S`` and nothing to do): the shim answers
that case itself (one ``git diff --cached --quiet`` and two file tests).

The target is what a commit costs: the whole ``git commit`` of the log append
(and of the README append) with every hook squadmem installs (pre-commit,
prepare-commit-msg, commit-msg), against the same commit with the yardstick
installed the same way, as a plain ``pre-commit`` hook script: the staged
files' names (``git diff --cached --name-only``, as the pre-commit framework
asks), then ``check-added-large-files`` on them (its own ``git diff`` of the
added files and ``git check-attr`` included). The yardstick is started two
ways, and both are measured and quoted:

- **as users run it** (the verdict): the pre-commit framework runs a Python
  hook as the console script of a virtualenv of its own, made with
  ``python -m virtualenv`` and ``pip install`` (its ``site`` runs, with the
  ``.pth`` files such an environment has: setuptools'
  ``distutils-precedence.pth``). The bench makes that environment the same
  way in a scratch folder (``pre-commit-hooks`` at the installed version;
  ``--venv DIR`` reuses one, such as the framework's own under
  ``~/.cache/pre-commit``) and puts that console script in the hook. This
  leaves out the framework's own start (a Python process that reads its
  configuration before it runs any hook, well over the hook's cost), so it
  is a lower bound of what a user of ``check-added-large-files`` pays, not a
  flattering one. The console script of the Python running the bench is not
  used: its site-packages are this machine's (an editable install's finder,
  a sandbox's ``.pth`` files), not a user's.
- **started as squadmem's shim starts its checks**: the same Python with
  ``-I -S``, the package's folder appended to its path, no ``site`` at all.
  The stricter of the two (about 10 ms cheaper than the console script on
  a quiet VM): squadmem must not lean on the yardstick's start-up to pass.

Each run starts from the same HEAD and index. Two more rows set squadmem's
commit against the same commit with no hook at all (``core.hooksPath`` an
empty folder; ``--no-verify`` would still run prepare-commit-msg).

Paired whole-process runs (``bench/harness.py``): the two alternate, bytecode is
written for both (a warm-up compiles it), and the figures are the medians of
each side and of the per-round ratios, of wall time and of CPU time (user +
system of the whole process tree: the steadier figure on a loaded machine).
Target: the whole commit with squadmem's hooks at most 1.0x the
commit with the yardstick's, as users run it; the ``-I -S`` row is quoted
beside it.

    python -m bench.log_check_bench [--rounds 41] [--venv DIR] [--squad CLI]
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import zoneinfo
from pathlib import Path

from bench.gitrun import git, squadmem
from bench.harness import (
    COLUMNS,
    Command,
    Paired,
    commit,
    compare,
    compare_both,
    options,
    scratch_repo,
    sealed,
    table,
)

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
    scratch_repo(root, "picard", env=env, hooks=True)
    if zone != "UTC":
        tiers = root / ".squad/memory/tiers.toml"
        tiers.write_text(tiers.read_text("utf-8").replace('timezone = "UTC"', f'timezone = "{zone}"'))
    rel = f".squad/memory/log/{day}.md" if memory else "README.md"
    log = f"# Daily log {day}\n\n" + "".join(f"- 00:{n % 60:02d} [picard] entry {n}\n" for n in range(200))
    commit(root, {rel: log if memory else "# A project\n"}, "start", env=env)
    with open(root / rel, "a", encoding="utf-8") as handle:
        handle.write("- 00:00 [picard] one more entry\n" if memory else "One more line.\n")
    git(root, "add", rel, env=env)
    return rel


def squad_scratch(root: Path, env: dict[str, str], cli: Path) -> str:
    """A Squad team (``squad init``, one agent's charter cast from Squad's template) with squadmem
    init, intake and spawn on (its blocks in), committed; one line of Squad's appended to the charter and
    staged. Returns the charter's path."""
    from bench.squad_spawn_paths import cast_charters
    from bench.squad_spawn_reads import run_squad

    scratch_repo(root, env=env)
    founded = run_squad(cli, root, "init")
    if founded.returncode != 0:
        raise SystemExit(f"squad init: {founded.stderr.strip()[-300:]}")
    (rel,) = cast_charters(root, ["picard"])
    squadmem(root, "init", env=env)  # Squad's entries are taken in before spawn on
    commit(root, {}, "squad init, squadmem init", env=env)
    squadmem(root, "intake", env=env)
    squadmem(root, "spawn", "on", env=env)
    record = root / ".squad/memory/squad-spawn.json"
    if not record.exists() or '"on": true' not in record.read_text("utf-8"):
        raise SystemExit("squadmem spawn on left spawn off in the Squad team")
    with open(root / rel, "a", encoding="utf-8") as handle:
        handle.write("\n- Prefers small pull requests.\n")
    git(root, "add", rel, env=env)
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


def user_venv(folder: Path, given: str | None) -> Path | None:
    """A virtualenv with ``pre-commit-hooks`` as the pre-commit framework makes one (``python -m
    virtualenv``, then its pip installs the hook's package, at the version installed here): ``given``
    when named, else made in ``folder``; None (and why, on stderr) when it cannot be made, as offline."""
    if given:
        return Path(given)
    from importlib import metadata

    pin = f"pre-commit-hooks=={metadata.version('pre-commit-hooks')}"
    for step in (
        [sys.executable, "-m", "virtualenv", "-q", str(folder)],
        [str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", pin],
    ):
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            print(
                f"no virtualenv for the yardstick ({' '.join(step[:4])}): {done.stderr.strip()[-300:]}",
                file=sys.stderr,
            )
            return None
    return folder


def head(root: Path, env: dict[str, str]) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def whole_commit(
    root: Path, env: dict[str, str], rounds: int, hooks: Path, base: str
) -> tuple[Paired, Paired]:
    """A whole ``git commit`` of the staged append (every hook squadmem installed: pre-commit,
    prepare-commit-msg, commit-msg) against the same commit run with the hooks of ``hooks``
    (``core.hooksPath``); each run starts from HEAD ``base`` with the append staged. Wall and CPU."""

    def reset() -> None:
        subprocess.run(["git", "reset", "-q", "--soft", base], cwd=root, env=env, check=True)

    commit = ["git", "commit", "-q", "--no-gpg-sign", "-m", "one more entry"]
    hooked = Command(commit, cwd=root, env=env, before=reset)
    other = Command(["git", "-c", f"core.hooksPath={hooks}", *commit[1:]], cwd=root, env=env, before=reset)
    return compare_both(hooked, other, rounds=rounds)


CASES = (
    (True, "UTC", "a staged daily-log append"),
    (True, "Europe/Paris", "a staged daily-log append, tiers.toml edited"),
    (False, "UTC", "a staged README append (no memory file)"),
)


def main() -> None:
    parser = options(__doc__, rounds=41)
    parser.add_argument(
        "--venv", help="a virtualenv with pre-commit-hooks (default: made as pre-commit makes one)"
    )
    parser.add_argument(
        "--squad",
        type=Path,
        default=os.environ.get("SQUADMEM_SQUAD_CLI"),
        help="the Squad CLI for the Squad team's case (default: $SQUADMEM_SQUAD_CLI; none: left out)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = sealed(home, drop=("GIT_", "PYTHONDONTWRITEBYTECODE"))
        venv = user_venv(Path(tmp) / "venv", args.venv)
        own = str(venv / "bin" / "check-added-large-files") if venv else script("check-added-large-files")
        hooks = hook_rows(Path(tmp), env, own, args.rounds)
        team = None
        if args.squad is not None:
            team = Path(tmp) / "squad"
            rel = squad_scratch(team, env, args.squad.absolute())
            hook_env = dict(env, GIT_INDEX_FILE=".git/index")
            hook = Command([str(team / ".git/hooks/pre-commit")], cwd=team, env=hook_env)
            large = Command([own, rel], cwd=team, env=hook_env)
            label = "installed pre-commit hook, a Squad team with spawn on: a charter's line"
            hooks.append(compare(hook, large, rounds=args.rounds).cells(label, "`check-added-large-files`"))
        wholes, verdicts = whole_rows(Path(tmp), env, venv, args.rounds, team)
    print("The installed pre-commit hook (what git commit runs) against check-added-large-files, paired")
    print()
    table(COLUMNS, hooks + wholes)
    print()
    for label, result in verdicts:
        verdict = "ok" if result.ratio <= TARGET else "over target"
        print(f"{label}: {result.ratio:.2f}x (target <= {TARGET}x: {verdict})")


def hook_rows(tmp: Path, env: dict[str, str], yardstick: str, rounds: int) -> list[tuple[str, ...]]:
    """The pre-commit shim alone, in each case, against the yardstick's console script given the
    staged file, and, without a memory file, against ``sh`` starting Python with nothing to do."""
    rows = []
    for number, (memory, zone, label) in enumerate(CASES):
        root = tmp / f"case{number}"
        rel = scratch(root, env, memory, zone)
        hook_env = dict(env, GIT_INDEX_FILE=".git/index")  # as git commit starts its hooks
        hook = Command([str(root / ".git/hooks/pre-commit")], cwd=root, env=hook_env)
        large = Command([yardstick, rel], cwd=root, env=hook_env)
        rows.append(
            compare(hook, large, rounds=rounds).cells(
                f"installed pre-commit hook, {label}", "`check-added-large-files`"
            )
        )
    start = Command(["sh", "-c", f'"{sys.executable}" -I -S -c pass'], cwd=root, env=hook_env)
    bare = compare(hook, start, rounds=rounds)
    rows.append(
        bare.cells("installed pre-commit hook, no memory file", "`sh` starting `python -I -S -c pass`")
    )
    return rows


def whole_rows(
    tmp: Path, env: dict[str, str], venv: Path | None, rounds: int, team: Path | None = None
) -> tuple[list[tuple[str, ...]], list[tuple[str, Paired]]]:
    """Whole commits of the log append, of the README append and (given ``team``) of the Squad
    team's charter line: squadmem's three hooks against the yardstick's hook (as users run it, and
    started as squadmem's shim starts its checks), and against no hook; wall and CPU rows, and the
    wall figures the verdicts are drawn from."""
    log, plain = tmp / "case0", tmp / f"case{len(CASES) - 1}"
    cases = [(log, "log append"), (plain, "README append")]
    if team is not None:
        cases.append((team, "Squad team's charter line (spawn on)"))
    bases = {root: head(root, env) for root, _ in cases}
    sides = []
    if venv is not None:
        user = hook_folder(tmp / "venv-hooks", f"'{venv / 'bin' / 'check-added-large-files'}'")
        sides.append(
            (user, "`check-added-large-files`, its virtualenv's console script (as pre-commit runs it)")
        )
    sides.append(
        (hook_folder(tmp / "same-start-hooks", same_start()), "`check-added-large-files` started `-I -S`")
    )
    rows: list[tuple[str, ...]] = []
    verdicts: list[tuple[str, Paired]] = []
    for hooks, against in sides:
        for root, what in cases:
            wall, cpu = whole_commit(root, env, rounds, hooks, bases[root])
            name = f"`git commit` of the {what}, squadmem's hooks"
            rows += [
                wall.cells(name, f"the same, {against}"),
                cpu.cells(f"{name} (CPU)", f"the same (CPU), {against}"),
            ]
            verdicts.append((f"whole commit, {what}, against {against}", wall))
    no_hooks = hook_folder(tmp / "no-hooks", None)
    for root, what in cases:
        wall, _ = whole_commit(root, env, rounds, no_hooks, bases[root])
        rows.append(wall.cells(f"`git commit` of the {what}, squadmem's hooks", "`git commit`, no hook"))
    return rows, verdicts


if __name__ == "__main__":
    main()
