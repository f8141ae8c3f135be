"""``squadmem init``: the layout, settings, attributes and hooks, idempotently.

Never overwrites what is there: a file that exists is left byte for byte, and
Squad's own files in ``.squad/memory/`` are never touched. A second run
changes nothing and says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from squadmem.commands import githooks, mergedriver, workflows
from squadmem.gitio.repo import Repo
from squadmem.model import settings, squad, templates
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import LOG_DIR, MEMORY_DIR, TIERS, Layout, check_name

ATTRIBUTES_HEADER = (
    "# squadmem: daily logs and the intake ledger only ever grow, so a union merge keeps both sides"
)
ATTRIBUTES = (f"{MEMORY_DIR}/{LOG_DIR}/*.md merge=union", f"{MEMORY_DIR}/intake.tsv merge=union")
SKILL = ".github/skills/squadmem-memory/SKILL.md"
DRIVER_HEADER = "# squadmem: tier files merge section by section (squadmem's merge driver; see squadmem init)"
DRIVER_ATTRIBUTES = tuple(f"{MEMORY_DIR}/{tier}/*.md merge={mergedriver.NAME}" for tier in TIERS)
KEEP_DIRS = ("wiki", "archive", LOG_DIR)


@dataclasses.dataclass
class InitResult:
    created: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    agents: list[str] = dataclasses.field(default_factory=list)
    existing_agents: list[str] = dataclasses.field(default_factory=list)  # with tier files already
    skipped_agents: list[str] = dataclasses.field(default_factory=list)
    hooks: githooks.HookResult = dataclasses.field(default_factory=githooks.HookResult)
    squad_entries: int = 0  # entries of Squad's files not taken in yet
    spawn: list[str] = dataclasses.field(default_factory=list)  # files given squadmem's spawn blocks
    spawn_left: str | None = None  # why Squad's spawn lines were left as they are
    workflows: workflows.Written | None = None

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.hooks.installed)

    @property
    def written(self) -> list[str]:
        """The files init created or changed in the work tree (not git's config or hooks)."""
        return [rel for rel in (*self.created, *self.updated) if not rel.startswith("git config ")]


def template(file: str, **values: str) -> str:
    text = templates.read(file)
    return text.format(**values) if values else text


def discover_agents(root: Path) -> tuple[list[str], list[str]]:
    """Agent names from ``.squad/agents/*/``: (valid, refused)."""
    folder = root / ".squad" / "agents"
    if not folder.is_dir():
        return [], []
    valid, refused = [], []
    for child in sorted(folder.iterdir()):
        if not child.is_dir():
            continue
        try:
            valid.append(check_name(child.name))
        except SquadmemError:
            refused.append(child.name)
    return valid, refused


def _create(layout: Layout, path: Path, text: str, result: InitResult) -> None:
    if path.exists() or path.is_symlink():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    result.created.append(layout.rel(path))


def _create_outside(root: Path, rel: str, text: str, result: InitResult) -> None:
    """A file of ours outside .squad/memory/ (the Squad skill), never over anything already there."""
    path = root / rel
    if path.exists() or path.is_symlink() or any(p.is_symlink() for p in path.parents if root in p.parents):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    result.created.append(rel)


def _attributes(root: Path, result: InitResult) -> None:
    """Append the attribute lines that are missing; a pattern that already sets ``merge`` is left alone."""
    path = root / ".gitattributes"
    current = path.read_bytes().decode("utf-8", "surrogateescape") if path.exists() else ""
    rows = [line.split() for line in current.splitlines()]
    present = {" ".join(row) for row in rows}
    merging = {
        row[0] for row in rows if row and any(a.startswith(("merge", "-merge", "!merge")) for a in row[1:])
    }
    blocks = []
    for header, lines in ((ATTRIBUTES_HEADER, ATTRIBUTES), (DRIVER_HEADER, DRIVER_ATTRIBUTES)):
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


def init(
    repo: Repo,
    agents: Sequence[str] = (),
    hooks: bool = True,
    squad_skill: bool = True,
    spawn_blocks: bool = True,
    with_workflows: bool = False,
    requirement: str | None = None,
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
        _create(layout, path, template(f"{tier}.md", name=agent), result)
    for path in keep:
        _create(layout, path, "", result)
    _attributes(repo.root, result)
    if spawn_blocks:
        from squadmem.commands import spawn  # spawn -> intake -> scaffold: imported when used

        result.spawn, result.spawn_left = spawn.apply_worktree(repo)
        result.created += [rel for rel in result.spawn if rel == spawn.spawnblock.RECORD]
        result.updated += [rel for rel in result.spawn if rel != spawn.spawnblock.RECORD]
    if squad_skill and not result.spawn and (repo.root / ".squad" / "agents").is_dir():
        _create_outside(repo.root, SKILL, template("squad-skill.md"), result)
    result.squad_entries = _squad_entries(repo.root)
    if pinned is not None:
        result.workflows = workflows.write(repo.root, pinned)
        result.created += result.workflows.created
    if mergedriver.configure(repo):
        result.updated.append(f"git config merge.{mergedriver.NAME} (the merge driver for tier files)")
    if hooks:
        result.hooks = githooks.install(repo.root, repo.git_dir / "hooks", hooks_path)
    result.existing_agents = layout.agents()
    return result


def _commit_path(rel: str) -> str:
    """What to ``git add`` for a file init wrote: the memory folder for its files, else the file."""
    return MEMORY_DIR if rel.startswith(MEMORY_DIR + "/") else rel


def describe(result: InitResult) -> str:
    lines = [f"created {path}" for path in result.created]
    lines += [f"updated {path}" for path in result.updated]
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
    if not result.agents and not result.existing_agents:
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
    if result.squad_entries:
        lines.append(
            f"{result.squad_entries} entries of Squad's history.md / decisions files are not taken in yet: "
            "commit, then run: squadmem migrate squad"
        )
    return "\n".join(lines)
