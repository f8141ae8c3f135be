"""``squadmem doctor``: is squadmem set up and is memory whole?

Checks: the git hooks are installed (or the pre-commit framework / core.hooksPath
names squadmem's), tier files merge through squadmem's merge driver, tiers.toml
is valid, every tier file reads, no section is in two places (the same content
twice across tiers), no file under a tier folder is invisible to squadmem,
every Index line points at something, no move was left half-finished, no
merge left an edit at a section's old place, whether the clone is shallow, and how many uses wait
to be committed. ``--fix`` finishes or rolls back a half-finished move.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from squadmem.engine import catalog, index
from squadmem.engine.install import githooks, mergedriver
from squadmem.engine.install import spawn_blocks as spawn
from squadmem.engine.intake import sources as squad_sources
from squadmem.engine.writing import settle, writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import logs, render, settings, uses
from squadmem.model.errors import Exit, SquadmemError
from squadmem.model.layout import MEMORY_DIR, TIERS, classify

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclasses.dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok, warn or fail
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def framework_hooks(config: Path, folder: Path) -> Check:
    """The pre-commit framework: squadmem's hooks listed in its config, and its script installed
    for every hook type they need (listed is not installed until `pre-commit install`)."""
    text = config.read_text("utf-8", "replace")
    listed = [h for h in githooks.MANIFEST if re.search(rf"\bid:\s*{h['id']}\b", text)]
    if not listed:
        return Check("hooks", WARN, "pre-commit framework: squadmem's hooks not listed; see squadmem init")
    problems = []
    unlisted = [str(h["id"]) for h in githooks.MANIFEST if h not in listed]
    if unlisted:
        problems.append(f"not listed: {', '.join(unlisted)} (see squadmem init)")
    needed = [t for t in githooks.HOOK_TYPES if any(t in h["stages"] for h in listed)]  # type: ignore[operator]
    installed = githooks.framework_hooks(folder)
    missing = [t for t in needed if t not in installed]
    if missing:
        flags = " ".join(f"--hook-type {t}" for t in missing)
        problems.append(
            f"listed but not installed for {', '.join(missing)} (run: pre-commit install {flags})"
        )
    where = ", ".join(installed) or "none"
    head = f"pre-commit framework: {len(listed)} squadmem hooks listed, installed for {where}"
    return Check("hooks", WARN if problems else OK, "; ".join([head, *problems]))


def hooks(repo: Repo) -> Check:
    config = repo.root / ".pre-commit-config.yaml"
    hooks_path = repo.config("core.hooksPath")
    folder = (repo.root / hooks_path) if hooks_path else repo.git_dir / "hooks"
    if config.exists():
        return framework_hooks(config, folder)
    missing = []
    for event in githooks.EVENTS:
        path = folder / event
        text = path.read_text("utf-8", "replace") if path.is_file() else ""
        if "squadmem" not in text:
            missing.append(event)
    if missing:
        return Check(
            "hooks", WARN, f"not installed in {folder.name}/: {', '.join(missing)} (run: squadmem init)"
        )
    return Check("hooks", OK, f"{', '.join(githooks.EVENTS)} installed")


def merge_driver(repo: Repo) -> Check:
    why = mergedriver.problem(repo)
    if why:
        return Check("merge driver", WARN, f"{why}: tier files merge line by line (run: squadmem init)")
    return Check("merge driver", OK, "tier files merge section by section")


def tiers_toml(repo: Repo) -> Check:
    try:
        settings.load(repo.layout.memory)
    except SquadmemError as exc:
        return Check("settings", FAIL, exc.message)
    present = (repo.layout.memory / "tiers.toml").exists()
    return Check("settings", OK, "tiers.toml is valid" if present else "no tiers.toml: the defaults apply")


def duplicates(memory: catalog.Memory) -> Check:
    """A section twice in one agent's tiers, or twice in the wiki (:func:`settle.repeat_key`)."""
    seen: dict[tuple[str, str], list[catalog.Entry]] = {}
    for entry in memory.entries:
        if entry.is_index or entry.is_session:
            continue
        seen.setdefault(settle.repeat_key(entry), []).append(entry)
    twice = [group for group in seen.values() if len(group) > 1]
    if not twice:
        return Check("duplicates", OK, f"{len(memory.entries)} sections, none in two places")
    shown = "; ".join(" = ".join(f"{e.id} ({e.tier})" for e in group) for group in twice[:3])
    more = f" and {len(twice) - 3} more" if len(twice) > 3 else ""
    return Check(
        "duplicates", FAIL, f"the same section in two places: {shown}{more} (run: squadmem doctor --fix)"
    )


def orphans(repo: Repo, memory: catalog.Memory) -> Check:
    problems = []
    for tier in TIERS:
        folder_rel = repo.layout.tier_folder(tier)
        folder = repo.root / folder_rel
        if not folder_rel or tier in memory.blocked or not folder.is_dir():  # never a walk out
            continue
        if repo.layout.places.kind != "squad" and tier != "wiki":
            continue  # a workspace's memory/ holds its logs and settings too: only its wiki is tier files
        for path in sorted(folder.rglob("*")):
            rel = repo.layout.rel(path)
            if path.is_file() and path.name != ".gitkeep" and classify(rel, repo.layout.places) is None:
                problems.append(f"{rel} is not a tier file squadmem reads")
    ids = {e.id for e in memory.entries}
    topics = {f"wiki:{doc.tier_file.name}" for doc in memory.files.values() if doc.tier_file.tier == "wiki"}
    places = {(e.file, e.title) for e in memory.entries}
    for entry in memory.entries:
        if entry.is_index:
            for listed in index.listed_ids(entry.text):
                if listed not in ids and listed not in topics:
                    problems.append(
                        f"the Index of {entry.file} lists {listed}, which is gone (run squadmem maintain)"
                    )
            for title, rel in index.listed_places(entry.text):
                topic = rel in memory.files and rel == memory.places.tier_rel("wiki", title)
                if (rel, title) not in places and not topic:
                    problems.append(
                        f"the Index of {entry.file} lists {title!r} in {rel}, which is not there"
                        " (run squadmem maintain)"
                    )
    if problems:
        return Check("orphans", WARN, "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else ""))
    shown = MEMORY_DIR if repo.layout.places.kind == "squad" else repo.layout.places.tier_folders[-1]
    return Check("orphans", OK, f"every file under {shown}/ tiers is read; every Index line points somewhere")


def odd_log_files(repo: Repo) -> list[SquadmemError]:
    """Why each ``log/*.md`` squadmem would refuse to read is refused (a folder, a FIFO, a symlink...)."""
    folder = repo.layout.log_folder
    odd = repo.layout.odd_log_folder()
    if odd is not None:
        return [odd]
    found = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if logs.parse_log_name(path.name) is None and repo.layout.places.kind != "squad":
            continue  # a workspace's memory/ holds its tier files too
        try:
            repo.layout.regular(path)
        except SquadmemError as exc:
            found.append(exc)
    return found


def journal(repo: Repo, fix: bool) -> Check:
    found = writer.pending(repo)
    stale_lock = writer.IndexLock(repo).ours() and not writer.Lock(repo.work_state_dir).held_by_other()
    if found is None and not stale_lock:
        return Check("moves", OK, "no half-finished move")
    if not fix:
        what = (
            f"a move was interrupted: {found.subject}"
            if found is not None
            else "an interrupted squadmem command left git's index.lock"
        )
        return Check("moves", FAIL, f"{what} (run: squadmem doctor --fix)")
    with writer.Lock(repo.work_state_dir):
        note = writer.recover(repo)
    return Check("moves", OK, f"fixed: {note}")


def merges(repo: Repo, fix: bool) -> Check:
    """Edits a merge kept at a section's old place; ``--fix`` settles them and sections in two places."""
    found = settle.pending(repo)
    if not fix:
        redo = settle.rebased_moves(repo)
        if redo:
            shown = "; ".join(f"{item.title!r} ({item.commit[:7]})" for item in redo[:3])
            detail = (
                f"a move rebased onto an edit of its section carried the unedited text: {shown}"
                " (run: squadmem doctor --fix, which makes the move again with the edit)"
            )
            return Check("merges", FAIL, detail)
        if not found:
            return Check("merges", OK, "no merge left an edit at a section's old place")
        shown = "; ".join(item.describe(repo.layout.places) for item in found[:3])
        detail = f"a merge kept edits at their old place: {shown} (run: squadmem doctor --fix)"
        return Check("merges", FAIL, detail)
    if questions.head(repo.git) is None:
        return Check("merges", OK, "no commit yet")
    try:
        notes = settle.settle(repo)
    except SquadmemError as exc:
        return Check("merges", FAIL, f"{exc.message} ({exc.hint})")
    return Check("merges", OK, "fixed: " + "; ".join(notes) if notes else "nothing to settle")


def settle_merges(repo: Repo) -> list[str]:
    """``squadmem settle``: what a merge or a rebased move left, committed at the new place (what
    ``doctor --fix`` does for the merges check); a note each."""
    return settle.settle(repo)


GIT_LOCK_BUSY_SECONDS = 60  # an index.lock younger than this may belong to a git command running now


def lock(repo: Repo) -> Check:
    if writer.Lock(repo.work_state_dir).held_by_other():
        return Check("lock", WARN, "another squadmem command is writing right now")
    index_lock = writer.IndexLock(repo)
    if not index_lock.ours():
        try:
            age = time.time() - index_lock.path.stat().st_mtime
        except OSError:
            age = None
        if age is not None:
            shown = index_lock.shown()
            if age < GIT_LOCK_BUSY_SECONDS:
                running = f"git's {shown} is there: a git command is running in this work tree"
                return Check("lock", WARN, running)
            return Check(
                "lock",
                FAIL,
                f"git's {shown} is {int(age)} s old: a git command was killed and left it, and git refuses"
                f" every commit, add and checkout here until it is gone (if no git command is running,"
                f" delete it: rm {shown})",
            )
    return Check("lock", OK, "no squadmem command is writing; git's index is not locked")


def shallow(repo: Repo) -> Check:
    if repo.is_shallow():
        return Check(
            "history",
            WARN,
            "shallow clone: sections older than its boundary have unknown ages and never move",
        )
    return Check("history", OK, "full history")


def pending_uses(repo: Repo) -> Check:
    count = len(uses.pending_ids(repo.state_dir))
    detail = (
        f"{count} pending use(s): they go into the next commit's {uses.TRAILER} trailer"
        if count
        else "no pending uses"
    )
    return Check("uses", OK, detail)


def squad_intake(repo: Repo) -> Check:
    if not squad_sources.has_squad_memory(repo.root):
        return Check("intake", OK, "not a Squad team: nothing to take in")
    kind = squad_sources.backend(repo.root)
    if kind in squad_sources.UNSUPPORTED_BACKENDS:
        return Check("intake", WARN, f"Squad's state backend is {kind!r}: squadmem cannot read its histories")
    waiting = squad_sources.pending_count(repo)
    if waiting:
        return Check("intake", WARN, f"{waiting} Squad entries not taken in yet (run: squadmem intake)")
    return Check("intake", OK, "every committed Squad entry is taken in")


def spawn_blocks(repo: Repo) -> Check:
    """Does Squad's spawn template tell agents to read squadmem's memory (``squadmem spawn``)?"""
    if not spawn.squad_team(repo):
        return Check("spawn", OK, f"no {spawn.spawnblock.SPAWN_TEMPLATE}: no spawn lines to answer for")
    try:
        state = spawn.status(repo)
    except SquadmemError as exc:
        return Check("spawn", WARN, exc.message)
    if not state.on:
        return Check(
            "spawn", WARN, f"spawns read Squad's whole history.md and decisions.md (run: {spawn.TURN_ON})"
        )
    waiting = [rel for rel, keys in state.waiting.items() if keys]
    if waiting:
        return Check(
            "spawn",
            WARN,
            f"{waiting[0]}: Squad's lines are back without squadmem's block (squad upgrade?);"
            f" maintain puts it back, or run: {spawn.TURN_ON}",
        )
    if state.outdated:
        rel, keys = next(iter(state.outdated.items()))
        return Check(
            "spawn",
            WARN,
            f"{rel}: squadmem:{keys[0]} is in an older squadmem's wording; maintain writes today's,"
            f" or run: {spawn.TURN_ON}",
        )
    count = sum(len(keys) for keys in state.blocks.values())
    return Check("spawn", OK, f"spawns read squadmem's memory ({count} blocks in Squad's files)")


def run(repo: Repo, fix: bool = False) -> list[Check]:
    checks: list[Check] = [journal(repo, fix), merges(repo, fix), lock(repo), hooks(repo)]
    checks += [merge_driver(repo), tiers_toml(repo)]
    try:
        memory = catalog.load(repo.layout)
    except SquadmemError as exc:
        checks.append(Check("tier files", FAIL, exc.message))
    else:
        odd_logs = odd_log_files(repo)
        if memory.left_out or memory.blocked or odd_logs:
            # each tier folder something else occupies, one per owner left out, each odd log
            problems = list(dict.fromkeys([*memory.blocked.values(), *memory.left_out.values(), *odd_logs]))
            problem = problems[0]
            detail = f"{problem.message}; {problem.hint}" if problem.hint else problem.message
            if len(problems) > 1:
                detail += f" (and {len(problems) - 1} more file(s) squadmem cannot read)"
            checks.append(Check("tier files", FAIL, detail))
        else:
            checks.append(Check("tier files", OK, f"{len(memory.files)} tier files read"))
        rest: list[Callable[[], Check]] = [lambda: duplicates(memory), lambda: orphans(repo, memory)]
        checks.extend(check() for check in rest)
    checks += [shallow(repo), pending_uses(repo), squad_intake(repo), spawn_blocks(repo)]
    return checks


def exit_code(checks: list[Check]) -> Exit:
    return Exit.VIOLATIONS if any(c.status == FAIL for c in checks) else Exit.OK


def text(checks: list[Check]) -> str:
    return render.table(("check", "status", "detail"), [(c.name, c.status, c.detail) for c in checks])


def as_dict(checks: list[Check]) -> dict[str, Any]:
    return {"ok": exit_code(checks) == Exit.OK, "checks": [c.as_dict() for c in checks]}
