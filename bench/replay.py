"""Replay a workload through squadmem: the real tool in a real repository, or its policy in memory.

The day of each agent ``i`` (0-based) of day ``d``:

- ``09:00 + i h`` spawn: ``squadmem context --agent A`` is the payload; the
  tiers of the agent's sections are noted (``squadmem list --json``);
- ``+10 min`` the day's uses: a section in hot is a **hot hit**, one in cold a
  **cold hit** (the agent would have found it with ``--include-cold``), one in
  the archive a **miss needing recall**. Hot and cold uses are recorded with
  ``squadmem touch``, archive ones with ``squadmem recall <its token>
  --limit 1`` (what the agent would run to find it);
- ``+30 min`` the agent's new entries go into its hot file (before the Index)
  and one ``git commit`` at that time carries them, with the real hooks (the
  pending uses become its ``Squad-Memory-Used`` trailer);
- ``23:00`` ``squadmem maintain --now <day> 23:00``, its commits dated then.

:class:`Model` does the same in memory: the same tier texts, ages kept the way
``squadmem.engine.history.stream`` reads them (a section's content dates from the commit that
wrote it, a trailer from the commit carrying it, and the trailer use before the last for
second-use promotion), and each night
``squadmem.engine.planning.policy.plan`` (the code ``maintain`` runs) on the agent's files, its
``Plan.files`` becoming the next state. :func:`real` drives the real tool; the
two produce the same rows (``tests/hit_rate_test.py``; ``hit_rate.py --compare``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from bench import workload as wl
from bench.gitrun import git
from bench.harness import commit, scratch_repo
from squadmem.commands import context
from squadmem.engine import catalog, index
from squadmem.engine.planning import policy
from squadmem.model import sections, templates
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.settings import Settings

START = dt.datetime(2026, 1, 5, tzinfo=dt.UTC)
NIGHT_HOUR = 23
PINGPONG_DAYS = 7  # a move undoing the section's previous move within this many days is a ping-pong
MEMORY = ".squad/memory"


def at(day: int, hours: float) -> dt.datetime:
    return START + dt.timedelta(days=day, hours=hours)


def spawn_time(day: int, i: int) -> dt.datetime:
    return at(day, 9 + i)


def use_time(day: int, i: int) -> dt.datetime:
    return spawn_time(day, i) + dt.timedelta(minutes=10)


def commit_time(day: int, i: int) -> dt.datetime:
    return spawn_time(day, i) + dt.timedelta(minutes=30)


def night(day: int) -> dt.datetime:
    return at(day, NIGHT_HOUR)


@dataclasses.dataclass(frozen=True)
class Row:
    """One agent's day: what it used, where that was at spawn, what it loaded, how much moved that night."""

    day: int
    agent: str
    uses: int
    hot: int  # used sections that were in the spawn payload
    cold: int  # ... in cold (found with --include-cold)
    recall: int  # ... in the archive (found with recall)
    payload: int  # bytes of the spawn payload
    held: tuple[str, ...]  # ids in the payload, sorted
    moves: int  # moves of this agent's sections that night
    pingpong: int


def initial_texts(work: wl.Workload) -> dict[str, str]:
    """Each agent's hot file (its header and Core Context) and empty cold file."""
    texts = {}
    for agent in work.agents:
        texts[SQUAD_PLACES.tier_rel("hot", agent)] = (
            templates.tier_header("hot", agent, workspace=False) + work.core[agent]
        )
        texts[SQUAD_PLACES.tier_rel("cold", agent)] = templates.tier_header("cold", agent, workspace=False)
    return texts


def with_entries(hot_text: str, entries: tuple[wl.Entry, ...]) -> str:
    """The hot file with the new entries just before its Index (or at the end)."""
    for entry in entries:
        hot_text = index.insert(hot_text, entry.text)
    return hot_text


def classify(tiers: Mapping[str, str], used: tuple[str, ...]) -> tuple[int, int, int]:
    """(hot, cold, recall) counts of the used ids, given each id's tier at spawn."""
    counts = {"hot": 0, "cold": 0, "other": 0}
    for key in used:
        tier = tiers.get(key, "other")
        counts[tier if tier in counts else "other"] += 1
    return counts["hot"], counts["cold"], counts["other"]


class PingPong:
    """Counts moves that undo a section's previous move within PINGPONG_DAYS."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[str, str, dt.datetime]] = {}

    def count(self, moves: list[tuple[str, str, str]], when: dt.datetime) -> int:
        found = 0
        for key, source, target in moves:
            before = self.last.get(key)
            if before and (before[0], before[1]) == (target, source):
                found += when - before[2] <= dt.timedelta(days=PINGPONG_DAYS)
            self.last[key] = (source, target, when)
        return found


# -- the in-memory model -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Age:
    """A section's last use, shaped like ``squadmem.engine.history.lastuse.LastUse``."""

    when: dt.datetime | None
    kind: str


class Model:
    """squadmem's rules (``policy.plan``) replayed in memory."""

    def __init__(self, work: wl.Workload, settings: Settings) -> None:
        self.work = work
        self.settings = settings
        self.texts = initial_texts(work)
        self.content: dict[bytes, dt.datetime] = {}
        self.trailer: dict[str, dt.datetime] = {}
        self.before: dict[str, dt.datetime] = {}  # the trailer use before the last (second-use promotion)
        self.pingpong = PingPong()
        for text in self.texts.values():
            self.date_content(text, at(0, 8))

    def date_content(self, text: str, when: dt.datetime) -> None:
        for section in index.split(text).sections:
            self.content.setdefault(sections.content_key(section.text), when)

    def agent_texts(self, agent: str) -> dict[str, str]:
        return {rel: t for rel, t in self.texts.items() if rel.split("/")[-1] == f"{agent}.md"}

    def memory(self, agent: str) -> catalog.Memory:
        return index.memory(self.agent_texts(agent), SQUAD_PLACES)

    def ages(self, memory: catalog.Memory) -> dict[str, Age]:
        found = {}
        for entry in memory.entries:
            written = self.content.get(sections.content_key(entry.text))
            used = self.trailer.get(entry.id)
            if used is not None and (written is None or used >= written):
                found[entry.id] = Age(used, "trailer")
            elif written is not None:
                found[entry.id] = Age(written, "content")
        return found

    def run(self) -> Iterator[Row]:
        return days(self)

    def session(self, day: int, i: int, agent: str) -> Row:
        memory = self.memory(agent)
        text, _, _ = context.build(memory, agent)
        tiers = {e.id: e.tier for e in memory.entries}
        used = self.work.uses[day, agent]
        hot, cold, recall = classify(tiers, used)
        for key in used:
            if key in self.trailer:
                self.before[key] = self.trailer[key]
            self.trailer[key] = commit_time(day, i)
        rel = SQUAD_PLACES.tier_rel("hot", agent)
        self.texts[rel] = with_entries(self.texts[rel], self.work.writes[day, agent])
        self.date_content(self.texts[rel], commit_time(day, i))
        held = tuple(sorted(e.id for e in memory.in_file(rel)))
        return Row(day, agent, len(used), hot, cold, recall, len(text.encode("utf-8")), held, 0, 0)

    def maintain(self, day: int) -> dict[str, list[tuple[str, str, str]]]:
        moved = {}
        for agent in self.work.agents:
            memory = self.memory(agent)
            ages, when = self.ages(memory), night(day)
            plan = policy.plan(
                memory,
                ages,
                self.settings,
                when,
                header=templates.headers(SQUAD_PLACES),
                previous=self.before,
            )
            self.texts.update(plan.files)
            for text in plan.files.values():
                self.date_content(text, night(day))
            moved[agent] = [(m.id, m.source_tier, m.target_tier) for m in plan.moves]
        return moved


# -- the real tool -------------------------------------------------------------------------------


def settings_toml(settings: Settings) -> str:
    """tiers.toml for ``settings`` (the budget hook warns: agents write into hot all day)."""
    hot, cold = settings.hot, settings.cold
    return (
        f"[hot]\nstale_days = {hot.stale_days}\nmax_bytes = {hot.max_bytes}\nmax_lines = {hot.max_lines}\n"
        f'index_max_entries = {hot.index_max_entries}\nevict = "{hot.evict}"\n\n'
        f"[cold]\nttl_days = {cold.ttl_days}\n"
        f"max_bytes = {cold.max_bytes}\n\n[promote]\nwindow_hours = {settings.promote.window_hours}\n"
        f'rule = "{settings.promote.rule}"\nrepeat_days = {settings.promote.repeat_days}\n\n'
        '[budget]\nmode = "warn"\n'
    )


class Real:
    """The workload through the real squadmem in a real repository at ``root``."""

    def __init__(self, work: wl.Workload, settings: Settings, root: Path) -> None:
        from click.testing import CliRunner

        self.work, self.settings, self.root = work, settings, root
        self.runner = CliRunner()
        self.pingpong = PingPong()
        self.env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            self.env.pop(key, None)

    def squadmem(self, *args: str, when: dt.datetime, now: bool = True) -> str:
        from squadmem.cli.app import app

        env = {"GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}
        dated = ["--now", when.isoformat()] if now else []
        done = self.runner.invoke(app, ["-C", str(self.root), *args, *dated], env=env)
        if done.exit_code:
            raise RuntimeError(f"squadmem {' '.join(args)}: exit {done.exit_code}: {done.output}")
        return done.stdout

    def setup(self) -> None:
        scratch_repo(self.root, env=self.env)
        agents = [f"--agent={a}" for a in self.work.agents]
        self.squadmem("init", *agents, when=at(0, 8), now=False)
        (self.root / MEMORY / "tiers.toml").write_text(settings_toml(self.settings))
        commit(self.root, initial_texts(self.work), "squadmem init", at(0, 8).isoformat(), env=self.env)

    def run(self) -> Iterator[Row]:
        self.setup()
        return days(self)

    def session(self, day: int, i: int, agent: str) -> Row:
        payload = self.squadmem("context", "--agent", agent, when=spawn_time(day, i))
        listed = json.loads(
            self.squadmem("list", "--agent", agent, "--json", when=spawn_time(day, i), now=False)
        )
        tiers = {s["id"]: s["tier"] for s in listed["sections"]}
        used = self.work.uses[day, agent]
        hot, cold, recall = classify(tiers, used)
        by_key = {e.key: e for e in self.work.entries() if e.agent == agent}
        touched = [k for k in used if tiers.get(k) in ("hot", "cold")]
        if touched:
            self.squadmem("touch", *touched, when=use_time(day, i))
        for key in used:
            if tiers.get(key) not in ("hot", "cold"):
                token = by_key[key].token
                args = ("recall", token, "--agent", agent, "--limit", "1", "--no-logs")
                self.squadmem(*args, when=use_time(day, i))
        path = self.root / SQUAD_PLACES.tier_rel("hot", agent)
        path.write_bytes(
            with_entries(path.read_bytes().decode("utf-8"), self.work.writes[day, agent]).encode()
        )
        git(self.root, "add", "--", SQUAD_PLACES.tier_rel("hot", agent), env=self.env)
        git(
            self.root,
            "commit",
            "-q",
            "-m",
            f"{agent}: day {day}",
            date=commit_time(day, i).isoformat(),
            env=self.env,
        )
        held = tuple(sorted(k for k, t in tiers.items() if t == "hot"))
        return Row(day, agent, len(used), hot, cold, recall, len(payload.encode("utf-8")), held, 0, 0)

    def maintain(self, day: int) -> dict[str, list[tuple[str, str, str]]]:
        out = json.loads(self.squadmem("maintain", "--json", when=night(day)))
        moved: dict[str, list[tuple[str, str, str]]] = {}
        for move in out["moves"]:
            moved.setdefault(move["agent"], []).append((move["id"], move["from"], move["to"]))
        return moved

    def texts(self) -> dict[str, str]:
        """Every tier file in the work tree."""
        base = self.root / MEMORY
        return {
            p.relative_to(self.root).as_posix(): p.read_text("utf-8")
            for tier in ("hot", "cold", "archive")
            if (base / tier).is_dir()
            for p in sorted((base / tier).glob("*.md"))
        }


def days(runner: Model | Real) -> Iterator[Row]:
    """Each day: every agent's spawn, then the night's maintain; a row per agent with its moves."""
    for day in range(1, runner.work.days + 1):
        spawned = {a: runner.session(day, i, a) for i, a in enumerate(runner.work.agents)}
        moved = runner.maintain(day)
        for agent in runner.work.agents:
            row, moves = spawned[agent], moved.get(agent, [])
            yield dataclasses.replace(
                row, moves=len(moves), pingpong=runner.pingpong.count(moves, night(day))
            )


def model(work: wl.Workload, settings: Settings) -> tuple[list[Row], dict[str, str]]:
    """The rows of the in-memory replay, and the tier files it ends with."""
    runner = Model(work, settings)
    rows = list(runner.run())
    return rows, {rel: text for rel, text in sorted(runner.texts.items()) if text}


def real(work: wl.Workload, settings: Settings, root: Path) -> tuple[list[Row], dict[str, str]]:
    """The rows of the real replay, and the tier files it ends with."""
    runner = Real(work, settings, root)
    rows = list(runner.run())
    return rows, runner.texts()
