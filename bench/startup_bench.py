"""Start-up: whole `squadmem` processes on a small repository, paired against `python -c pass`.

Agents run `squadmem context` at every spawn, so what a command costs before
it does anything is paid every time. A small repository (`squadmem init`,
two agents, a few hot and cold sections, a wiki page, committed) is made in
a temporary folder; then each command runs as a whole process, started as
users start it (the `squadmem` console script, as pip writes it for the
entry point in the checkout's pyproject.toml: the fast lane,
`squadmem.cli.lane:run`), alternating with the yardstick `python -c pass` (same
interpreter, same environment, bytecode compiled for both), and the table gives the medians of each side,
of the per-round ratios and of the per-round differences (what squadmem
costs above starting Python). Where GitPython is installed, the row
`import git` shows what it costs to import alone, against the same yardstick
(squadmem paid it at every command while its git gateway used GitPython).
`context --task` is timed too: it reads the history cache (made by the warm-up
runs) and asks git whether HEAD moved since.

    python -m bench.startup_bench [--rounds 41] [--checkout PATH]

`--checkout` times the squadmem found in another source folder (for a
before/after comparison); the default is this one. Targets: `context` at most
4x `python -c pass` (both started by the same interpreter, so both pay what its
site-packages' .pth files cost: run it with a fresh virtual environment's Python
holding squadmem's dependencies, as users install it); `--version` within 100 ms,
`context`, `list` and `recall` within 150 ms.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

from bench.gitrun import squadmem
from bench.harness import (
    COLUMNS,
    Command,
    commit,
    compare_both,
    compile_bytecode,
    environment,
    options,
    scratch_repo,
    table,
)

HERE = Path(__file__).resolve().parent.parent
TARGET = 4.0  # context against python -c pass
AGENTS = ("picard", "worf")
HOT = """
## Deploy checklist
Run the migrations first, then flip the flag; roll back by flag only.

## Auth tokens
Tokens rotate every 30 days; the staging keys live in the vault under kv/app.

## Open question
Whether the cache survives a deploy: measured once, not yet written down.
"""
COLD = """
## 2026-02-01: rotate the staging keys
Rotated the staging keys; the old ones stay valid for a day.

## Billing exports
Exports run nightly at 02:00 UTC and retry three times.
"""
WIKI = "Rotate signing keys every 90 days; announce it a week before.\n"


SCRIPT = """import re
import sys
from {module} import {function}
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit({function}())
"""


def console_script(checkout: Path, folder: Path) -> list[str]:
    """The argv of the `squadmem` console script of ``checkout``: the file pip writes for its entry
    point (pyproject.toml's [project.scripts]), in ``folder``, run by this interpreter."""
    entry = tomllib.loads((checkout / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]["squadmem"]
    module, _, function = entry.partition(":")
    script = folder / "squadmem"
    script.write_text(SCRIPT.format(module=module, function=function), "utf-8")
    return [sys.executable, str(script)]


def small_repository(root: Path, env: dict[str, str]) -> None:
    """`squadmem init` with two agents, a few sections in each tier, a wiki page: all committed."""
    scratch_repo(root, *AGENTS, env=env)
    files = {}
    for agent in AGENTS:
        for tier, text in (("hot", HOT), ("cold", COLD)):
            rel = f".squad/memory/{tier}/{agent}.md"
            files[rel] = (root / rel).read_text("utf-8") + text
    commit(root, files, "memory: a small team", env=env)
    squadmem(root, "wiki", "write", "security", "--title", "Key rotation", input=WIKI.encode(), env=env)


def commands(root: Path, env: dict[str, str], script: list[str]) -> list[tuple[str, Command]]:
    def squadmem(*args: str) -> Command:
        return Command([*script, *args], cwd=root, env=env)

    rows = [
        ("squadmem --version", squadmem("--version")),
        ("squadmem context --agent picard", squadmem("context", "--agent", "picard")),
        (
            'squadmem context --agent picard --task "rotate the staging keys"',
            squadmem("context", "--agent", "picard", "--task", "rotate the staging keys"),
        ),
        ("squadmem list", squadmem("list")),
        ('squadmem recall "staging keys"', squadmem("recall", "staging keys")),
    ]
    if importlib.util.find_spec("git") is not None:
        rows.append(
            (
                "python -c 'import git' (GitPython alone)",
                Command([sys.executable, "-c", "import git"], env=env),
            )
        )
    return rows


def main() -> None:
    parser = options(__doc__, rounds=41)
    parser.add_argument("--checkout", type=Path, default=HERE, help="source folder whose squadmem to time")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    compile_bytecode(checkout / "squadmem")
    env = environment(PYTHONPATH=str(checkout))
    with tempfile.TemporaryDirectory(prefix="squadmem-startup-") as tmp:
        root = Path(tmp) / "repo"
        small_repository(root, env)
        script = console_script(checkout, Path(tmp))
        yardstick = Command([sys.executable, "-c", "pass"], env=env)
        where = "this checkout" if checkout == HERE else str(checkout)
        print(f"squadmem from {where}; {args.rounds} paired rounds each\n")
        cpu_rows = []
        verdicts = []
        print("wall time\n")

        def wall_rows() -> Iterator[tuple[str, ...]]:
            for name, command in commands(root, env, script):
                wall, cpu = compare_both(command, yardstick, rounds=args.rounds)
                cpu_rows.append(cpu.cells(name, "python -c pass"))
                if " context " in name:
                    verdict = "ok" if wall.ratio <= TARGET else "over target"
                    verdicts.append(
                        f"{name}: {wall.ratio:.2f}x python -c pass (target <= {TARGET}x: {verdict})"
                    )
                yield wall.cells(name, "python -c pass")

        table(COLUMNS, wall_rows())
        print("\nCPU time (user + system, git's included), from the same rounds\n")
        table(COLUMNS, cpu_rows)
        print("\n" + "\n".join(verdicts))


if __name__ == "__main__":
    main()
