"""``squadmem init``: the layout, settings, attributes and hooks, idempotently.

Never overwrites what is there: a file that exists is left byte for byte, and
Squad's own files in ``.squad/memory/`` are never touched. A second run
changes nothing and says so.

In a memory-tiers skill workspace (``MEMORY.md`` and ``memory/``, no
``.squad/memory/``) ``init`` keeps the memory where its host reads it
(:mod:`squadmem.model.places`): ``memory/tiers.toml`` names the workspace's one
agent, ``MEMORY.md`` is its hot tier, ``memory/tier2-recent.md`` cold,
``memory/tier3-archive.md`` the archive and ``memory/YYYY-MM-DD.md`` the logs
(with the host's session files, ``memory/YYYY-MM-DD-<suffix>.md``). The log day is the
host's: a new ``memory/tiers.toml`` takes its ``timezone`` from OpenClaw's
``agents.defaults.userTimezone`` (:mod:`squadmem.model.openclaw`) and gives the logs
until noon the next day (``log.grace_minutes = 720``). An OpenClaw config that cannot be
read is a warning, not a refusal: the workspace is set up all the same, on UTC, and
``timezone`` can be set later.
``--layout`` chooses; a repository that could be either is refused.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Sequence
from pathlib import Path

from squadmem.engine.install import githooks, mergedriver, workflows
from squadmem.engine.install.mergedriver import (
    ATTRIBUTES,
    ATTRIBUTES_HEADER,
    DRIVER_ATTRIBUTES,
    DRIVER_HEADER,
    WORKSPACE_ATTRIBUTES,
    WORKSPACE_DRIVER_ATTRIBUTES,
)
from squadmem.engine.intake.sources import discover_agents
from squadmem.gitio.repo import Repo
from squadmem.model import openclaw, settings, squad, templates
from squadmem.model import places as where
from squadmem.model.constants import SPAWN_FILES
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import LOG_DIR, MEMORY_DIR, Layout, check_name

SKILL = ".github/skills/squadmem-memory/SKILL.md"  # for a team whose spawn squadmem does not edit
SPAWN_TEMPLATE = SPAWN_FILES[0]
KEEP_DIRS = ("wiki", "archive", LOG_DIR)
SQUAD_LAYOUT, IN_PLACE = "squad", "in-place"  # init --layout
ACCESS_LOGS = where.WORKSPACE_ACCESS_LOGS  # read as uses in place (track, maintain)


@dataclasses.dataclass
class InitResult:
    created: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    kept: list[str] = dataclasses.field(
        default_factory=list
    )  # files of init's already there, left as they are
    agents: list[str] = dataclasses.field(default_factory=list)
    existing_agents: list[str] = dataclasses.field(default_factory=list)  # with tier files already
    skipped_agents: list[str] = dataclasses.field(default_factory=list)
    hooks: githooks.HookResult = dataclasses.field(default_factory=githooks.HookResult)
    squad_entries: int = 0  # entries of Squad's files not taken in yet
    spawn: list[str] = dataclasses.field(default_factory=list)  # files given squadmem's spawn blocks
    spawn_left: str | None = None  # why Squad's spawn lines were left as they are
    workflows: workflows.Written | None = None
    workspace: str | None = None  # a memory-tiers workspace kept in place: its agent
    access_log: str | None = None  # the skill's access log, where the workspace has one
    chosen: bool = False  # in place because init recognised the workspace (no --layout)
    host_day: str | None = None  # what init found of OpenClaw's time zone, said once

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.hooks.installed)

    @property
    def written(self) -> list[str]:
        """The files init created or changed in the work tree (not git's config or hooks)."""
        return [rel for rel in (*self.created, *self.updated) if not rel.startswith("git config ")]


def _create(layout: Layout, path: Path, text: str, result: InitResult) -> None:
    if path.exists() or path.is_symlink():
        result.kept.append(layout.rel(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    result.created.append(layout.rel(path))


def _create_outside(root: Path, rel: str, text: str, result: InitResult) -> None:
    """A file of ours outside .squad/memory/ (the Squad skill), never over anything already there."""
    path = root / rel
    if path.exists() or path.is_symlink() or any(p.is_symlink() for p in path.parents if root in p.parents):
        result.kept.append(rel)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    result.created.append(rel)


def _attributes(root: Path, result: InitResult, in_place: bool = False) -> None:
    """Append the attribute lines that are missing; a pattern that already sets ``merge`` is left alone."""
    path = root / ".gitattributes"
    current = path.read_bytes().decode("utf-8", "surrogateescape") if path.exists() else ""
    rows = [line.split() for line in current.splitlines()]
    present = {" ".join(row) for row in rows}
    merging = {
        row[0] for row in rows if row and any(a.startswith(("merge", "-merge", "!merge")) for a in row[1:])
    }
    blocks = []
    wanted = (
        ((ATTRIBUTES_HEADER, WORKSPACE_ATTRIBUTES), (DRIVER_HEADER, WORKSPACE_DRIVER_ATTRIBUTES))
        if in_place
        else ((ATTRIBUTES_HEADER, ATTRIBUTES), (DRIVER_HEADER, DRIVER_ATTRIBUTES))
    )
    for header, lines in wanted:
        missing = [line for line in lines if line not in present and line.split()[0] not in merging]
        if missing:
            blocks.append("\n".join([header, *missing]) + "\n")
    if not blocks:
        return
    addition = ("" if not current or current.endswith("\n") else "\n") + "".join(blocks)
    with open(path, "a", encoding="utf-8", newline="") as handle:
        handle.write(addition)
    (result.updated if current else result.created).append(".gitattributes")


def _squad_entries(root: Path) -> int:
    """Entries in Squad's files (as the work tree has them) that the intake ledger does not list."""
    ledger = root / MEMORY_DIR / "intake.tsv"
    taken = set()
    if ledger.is_file():
        for line in ledger.read_text("utf-8", "replace").splitlines():
            if line and not line.startswith("#"):
                taken.add(line.split("\t", 1)[0])
    count = 0
    for path in sorted((root / ".squad").rglob("*.md")) if (root / ".squad").is_dir() else []:
        rel = path.relative_to(root).as_posix()
        if squad.is_source(rel) and path.is_file() and not path.is_symlink():
            text = path.read_bytes().decode("utf-8", "replace")
            try:
                count += sum(1 for e in squad.entries(rel, text) if e.key.hex() not in taken)
            except ValueError:
                continue
    return count


def in_place(root: Path, wanted: str | None) -> bool:
    """Whether ``init`` keeps a memory-tiers workspace in place (else the ``.squad/memory/`` layout).

    ``wanted`` is ``--layout``; without it a workspace is recognised by ``MEMORY.md`` and
    ``memory/`` (or a ``memory/tiers.toml`` init wrote) and no ``.squad/memory/``. A Squad team
    that is also such a workspace is refused: it could be either.
    """
    squad_memory = (root / MEMORY_DIR).is_dir()
    set_up = (root / where.WORKSPACE_SETTINGS).is_file()
    if wanted == SQUAD_LAYOUT:
        if set_up and not squad_memory:
            raise SquadmemError(
                f"{where.WORKSPACE_SETTINGS}: this workspace's memory is already kept in place",
                hint="run squadmem init without --layout; to copy it into .squad/memory/ instead, delete "
                f"{where.WORKSPACE_SETTINGS} first",
            )
        return False
    if wanted == IN_PLACE:
        if squad_memory:
            raise SquadmemError(
                f"{MEMORY_DIR}/: this repository already keeps its memory there",
                hint="run squadmem init without --layout "
                "(squadmem migrate memory-tiers copies a workspace in)",
            )
        return True
    if squad_memory:
        return False
    workspace = (root / where.WORKSPACE_FILES["hot"]).is_file() and (root / where.WORKSPACE_DIR).is_dir()
    if (workspace or set_up) and (root / ".squad").is_dir():
        raise SquadmemError(
            "both a Squad team (.squad/) and a memory-tiers workspace (MEMORY.md, memory/) here",
            hint="choose: squadmem init --layout in-place (MEMORY.md stays what the host loads) "
            "or --layout squad (.squad/memory/)",
        )
    return workspace or set_up


def _workspace_agent(root: Path, names: Sequence[str]) -> str:
    """The one agent of a workspace kept in place: the one named, else the one tiers.toml names."""
    path = root / where.WORKSPACE_SETTINGS
    text = settings.read(path)
    had = None if text is None else settings.agent_of(text, where.WORKSPACE_SETTINGS)
    if len(names) > 1:
        raise SquadmemError(
            f"a memory-tiers workspace holds one agent's memory, not {len(names)}",
            hint="name one agent: squadmem init --agent NAME",
        )
    owner = had or where.DEFAULT_AGENT
    if names and text is not None and names[0] != owner:
        raise SquadmemError(
            f"{where.WORKSPACE_SETTINGS}: this workspace is agent {owner}'s, not {names[0]}",
            hint=f"leave out --agent, or change agent in {where.WORKSPACE_SETTINGS} first",
        )
    return names[0] if names else owner


def init_in_place(repo: Repo, names: Sequence[str], hooks: bool, result: InitResult) -> None:
    """A memory-tiers workspace kept where its host reads it: settings, tier files, attributes."""
    agent = _workspace_agent(repo.root, names)
    places = where.Places(where.WORKSPACE, agent)
    layout = repo.layout
    layout.places = places
    targets = [(layout.tier_path(tier, agent), tier) for tier in ("hot", "cold")]  # refused before writing
    hooks_path = repo.config("core.hooksPath")
    result.workspace, result.agents = agent, [agent]
    result.access_log = next((rel for rel in ACCESS_LOGS if (repo.root / rel).is_file()), None)
    if (repo.root / where.WORKSPACE_SETTINGS).exists():  # a timezone set before is never overwritten
        result.host_day = _other_zone(layout.settings.timezone)
    else:
        zone = _host_zone(result)
        text = settings.workspace_template(agent, zone)
        _create(layout, repo.root / where.WORKSPACE_SETTINGS, text, result)
    for path, tier in targets:
        _create(layout, path, templates.tier_header(tier, agent, workspace=True) + "\n", result)
    _attributes(repo.root, result, in_place=True)
    if mergedriver.configure(repo):
        result.updated.append(f"git config merge.{mergedriver.NAME} (the merge driver for tier files)")
    if hooks:
        result.hooks = githooks.install(repo.root, repo.git_dir / "hooks", hooks_path)


def _host_zone(result: InitResult) -> str:
    """The time zone a new workspace's tiers.toml names: OpenClaw's ``userTimezone`` where its
    config sets one, else UTC; a config squadmem cannot read is a warning, and UTC."""
    path = openclaw.config_path(os.environ)
    if path is None:
        return "UTC"
    try:
        zone = openclaw.user_timezone(path)
    except SquadmemError as exc:
        warnings.warn(SquadmemWarning(f"{exc.message}; timezone stays UTC", hint=exc.hint), stacklevel=2)
        return "UTC"
    if zone is None:
        result.host_day = (
            f"{path} sets no {openclaw.SETTING}: OpenClaw dates its logs in this machine's time zone;"
            f" set timezone in {where.WORKSPACE_SETTINGS} to match (it stays UTC)"
        )
        return "UTC"
    result.host_day = (
        f"timezone {zone} (OpenClaw's {openclaw.SETTING}, from {path}): the logs' days are the host's"
    )
    return zone


def _other_zone(current: str) -> str | None:
    """What to say when OpenClaw's config names another zone than the tiers.toml already there
    (None: it names the same, none, or cannot be read: init said so when it wrote tiers.toml)."""
    path = openclaw.config_path(os.environ)
    try:
        zone = None if path is None else openclaw.user_timezone(path)
    except SquadmemError:
        return None
    if zone is None or zone == current:
        return None
    return (
        f"{where.WORKSPACE_SETTINGS} says timezone {current}, OpenClaw's {openclaw.SETTING} {zone}"
        f" (from {path}): the host dates its logs in {zone}; set timezone to match (init leaves"
        " tiers.toml as it is)"
    )


def init(
    repo: Repo,
    agents: Sequence[str] = (),
    hooks: bool = True,
    squad_skill: bool = True,
    spawn_blocks: bool = True,
    with_workflows: bool = False,
    requirement: str | None = None,
    layout_choice: str | None = None,
) -> InitResult:
    layout = repo.layout
    result = InitResult()
    if requirement is not None and not with_workflows:
        raise SquadmemError(
            "--requirement goes with --workflows", hint="add --workflows, or drop --requirement"
        )
    pinned = None
    if with_workflows:  # refused before anything is written
        pinned = (
            workflows.check_requirement(requirement) if requirement else workflows.installed_requirement()
        )
    names = [check_name(a) for a in agents]
    if in_place(repo.root, layout_choice):
        result.chosen = layout_choice is None
        init_in_place(repo, names, hooks, result)
        _workflows(repo, pinned, result)
        return result
    if not names:
        names, result.skipped_agents = discover_agents(repo.root)
    result.agents = sorted(set(names))
    # Check every path before writing any, so a refusal leaves the repository as it was.
    targets = [(layout.tier_path(tier, a), tier, a) for a in result.agents for tier in ("hot", "cold")]
    keep = [layout.memory / d / ".gitkeep" for d in KEEP_DIRS]
    for folder in {layout.memory, *(p.parent for p, _, _ in targets), *(k.parent for k in keep)}:
        if folder.exists():
            layout.inside(folder)
    hooks_path = repo.config("core.hooksPath")
    _create(layout, layout.memory / "tiers.toml", settings.TEMPLATE, result)
    for path, tier, agent in targets:
        _create(layout, path, templates.tier_header(tier, agent, workspace=False), result)
    for path in keep:
        _create(layout, path, "", result)
    _attributes(repo.root, result)
    result.squad_entries = _squad_entries(repo.root)
    spawn_template = (repo.root / SPAWN_TEMPLATE).is_file()
    if spawn_blocks:
        _spawn_blocks(repo, result)
    if squad_skill and not (spawn_blocks and spawn_template) and (repo.root / ".squad" / "agents").is_dir():
        _create_outside(repo.root, SKILL, templates.read("squad-skill.md"), result)
    _workflows(repo, pinned, result)
    if mergedriver.configure(repo):
        result.updated.append(f"git config merge.{mergedriver.NAME} (the merge driver for tier files)")
    if hooks:
        result.hooks = githooks.install(repo.root, repo.git_dir / "hooks", hooks_path)
    result.existing_agents = layout.agents()
    return result


def _spawn_blocks(repo: Repo, result: InitResult) -> None:
    """Squad's spawn files get squadmem's blocks (``spawn on`` in the work tree), unless ``spawn off``
    turned them off here, or Squad's files hold entries not taken in yet: a spawn told to read
    squadmem's memory would miss them, so the blocks wait for the intake (``squadmem spawn on``
    after ``squadmem intake``), and Squad's own lines go on being read meanwhile."""
    # imported when used: they read Squad's files
    from squadmem.engine.install import spawn_blocks as spawn
    from squadmem.engine.intake import sources

    if not spawn.squad_team(repo):
        return
    record = repo.root / spawn.spawnblock.RECORD
    if record.is_file() and not spawn.load_record(repo).on:
        result.kept.append(spawn.spawnblock.RECORD)
        result.spawn_left = (
            f"squadmem spawn off was run here, so the blocks stay off ({spawn.TURN_ON} turns them on)"
        )
        return
    readable = sources.backend(repo.root) not in sources.UNSUPPORTED_BACKENDS
    if result.squad_entries and readable and not (record.is_file() and spawn.load_record(repo).on):
        result.spawn_left = (
            f"spawns keep reading Squad's whole files until its {result.squad_entries} entries are taken in"
            f" (a spawn reading squadmem's memory would miss them): commit, run squadmem intake, then"
            f" {spawn.TURN_ON}"
        )
        return
    existed = record.is_file()
    result.spawn, result.spawn_left = spawn.apply_worktree(repo)
    fresh = spawn.spawnblock.RECORD in result.spawn and not existed
    result.created += [rel for rel in result.spawn if rel == spawn.spawnblock.RECORD and fresh]
    result.updated += [rel for rel in result.spawn if rel != spawn.spawnblock.RECORD or not fresh]


def _workflows(repo: Repo, pinned: str | None, result: InitResult) -> None:
    """``--workflows``: the GitHub workflows, pinned to ``pinned`` (None: not asked for)."""
    if pinned is not None:
        result.workflows = workflows.write(repo.root, pinned)
        result.created += result.workflows.created


def _commit_path(rel: str) -> str:
    """What to ``git add`` for a file init wrote: the memory folder for its files, else the file."""
    return MEMORY_DIR if rel.startswith(MEMORY_DIR + "/") else rel


def describe(result: InitResult) -> str:
    lines = [f"created {path}" for path in result.created]
    lines += [f"updated {path}" for path in result.updated]
    lines += [f"kept {path}" for path in result.kept if path not in result.updated]
    if result.skipped_agents:
        lines.append("skipped agent folders with names squadmem refuses: " + ", ".join(result.skipped_agents))
    hooks = result.hooks
    lines += [f"installed git hook {e}" for e in hooks.installed if e not in hooks.chained]
    lines += [
        f"installed git hook {e} (the hook that was there runs first: {e}.squadmem-legacy)"
        for e in hooks.chained
    ]
    if hooks.instead:
        lines += [hooks.instead + "; add these lines instead:", hooks.snippet or ""]
    if not result.changed:
        lines.insert(0, "nothing to do: squadmem is already set up here")
    if result.workspace is not None:
        lines += _in_place_lines(result)
    elif not result.agents and not result.existing_agents:
        lines.append("no agents yet: pass --agent NAME, or run `squad init` to create .squad/agents/")
    elif not result.changed:
        lines.append(f"agents: {', '.join(sorted({*result.agents, *result.existing_agents}))}")
    if result.written:
        folders = sorted({_commit_path(rel) for rel in result.written})
        lines.append(
            "commit these files before other squadmem commands (they write only on committed tier"
            f' files): git add {" ".join(folders)} && git commit -m "squadmem init"'
        )
    if result.workflows is not None:
        lines += [f"kept {rel} (already there)" for rel in result.workflows.kept]
        lines.append(f"the workflows install {result.workflows.requirement}")
    if result.spawn:
        lines.append(
            "Squad's spawn template now tells each agent to run "
            "`squadmem context --agent <name> --task '<its task>'` instead of reading its whole history.md"
            " and decisions.md (squadmem spawn off puts Squad's lines back)"
        )
    if result.spawn_left:
        lines.append(f"left Squad's spawn lines as they are: {result.spawn_left}")
    if SKILL in result.created:
        lines.append(
            f"Squad's coordinator finds {SKILL}: spawns load "
            "`squadmem context --agent <name> --task '<the task>'`"
        )
    if result.squad_entries and not result.spawn_left:
        lines.append(
            f"{result.squad_entries} entries of Squad's history.md / decisions files are not taken in yet: "
            "commit, then run: squadmem intake"
        )
    return "\n".join(lines)


def _in_place_lines(result: InitResult) -> list[str]:
    """What keeping a memory-tiers workspace in place means, said once."""
    lines = [
        f"memory-tiers workspace kept in place, agent {result.workspace}: MEMORY.md is the hot tier"
        " (what the host loads in its main sessions, kept within hot.max_bytes and hot.max_lines),"
        f" {where.WORKSPACE_FILES['cold']} cold, {where.WORKSPACE_FILES['archive']} the archive,"
        f" {where.WORKSPACE_WIKI}/ the wiki, {where.WORKSPACE_DIR}/YYYY-MM-DD.md and the session files"
        f" {where.WORKSPACE_DIR}/YYYY-MM-DD-<suffix>.md the daily logs (append-only; frozen"
        " once their day and log.grace_minutes are over)",
        "next: commit, then squadmem maintain (it writes MEMORY.md's ## Index → Deeper Tiers)",
    ]
    if result.host_day is not None:
        lines.insert(1, result.host_day)
    if result.access_log and result.changed:
        lines.append(
            f"{result.access_log}: the skill's access times count as uses: maintain reads them, and"
            " OpenClaw's session transcripts, before each plan (squadmem track alone)"
        )
    if result.chosen and result.changed:
        lines.append(
            "(squadmem init --layout squad keeps squadmem's memory in .squad/memory/ instead;"
            " then the host still loads a MEMORY.md squadmem does not maintain)"
        )
    return lines
