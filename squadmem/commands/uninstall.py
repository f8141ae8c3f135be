"""``squadmem uninstall``: take out what ``init`` put into the repository's machinery, keep the memory.

Removed: squadmem's git hooks (a hook squadmem chained is put back in its place), the merge
driver's ``git config`` section, squadmem's ``.gitattributes`` lines, and the spawn blocks (as
``spawn off`` gives Squad's lines back). The tracked changes are one commit; the tier files,
logs, wiki and ``tiers.toml`` are left as they are. A second run finds nothing to do.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from squadmem.engine.install import githooks, mergedriver, spawn_blocks
from squadmem.engine.writing import writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model.errors import SquadmemError

SUBJECT = "squadmem: uninstall (merge attributes and spawn blocks out; memory files kept)"
ATTRIBUTES = ".gitattributes"
SQUADMEM_LINES = frozenset(
    (
        mergedriver.ATTRIBUTES_HEADER,
        mergedriver.DRIVER_HEADER,
        *mergedriver.ATTRIBUTES,
        *mergedriver.DRIVER_ATTRIBUTES,
        *mergedriver.WORKSPACE_ATTRIBUTES,
        *mergedriver.WORKSPACE_DRIVER_ATTRIBUTES,
    )
)


@dataclasses.dataclass
class Removed:
    hooks: list[str] = dataclasses.field(default_factory=list)
    restored_hooks: list[str] = dataclasses.field(default_factory=list)
    driver: bool = False
    files: list[str] = dataclasses.field(default_factory=list)  # tracked or not, rewritten
    made: writer.Made | None = None
    notes: list[str] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "hooks": self.hooks,
            "restored_hooks": self.restored_hooks,
            "merge_driver": self.driver,
            "files": self.files,
            "commit": self.made.as_dict() if self.made else None,
            "notes": self.notes,
        }

    def text(self) -> str:
        lines = [f"removed git hook {event}" for event in self.hooks]
        lines += [f"put back the earlier git hook {event}" for event in self.restored_hooks]
        if self.driver:
            lines.append(f"removed git config merge.{mergedriver.NAME} (the merge driver)")
        lines += [f"{rel}: squadmem's lines taken out" for rel in self.files]
        if self.made is not None:
            lines.append(f"{self.made.sha[:12]} {self.made.subject}")
        lines += self.notes
        if not (self.hooks or self.restored_hooks or self.driver or self.files):
            lines.insert(0, "nothing to do: squadmem is not installed here")
        else:
            lines.append("memory files kept; squadmem init sets everything up again")
        return "\n".join(lines)


def without_our_lines(text: str) -> str:
    """``.gitattributes`` without the lines ``init`` writes (each at most once, as it writes them)."""
    kept = [line for line in text.splitlines(keepends=True) if line.rstrip("\r\n") not in SQUADMEM_LINES]
    return "".join(kept)


def _hooks(hooks_dir: Path, removed: Removed) -> None:
    for event in githooks.EVENTS:
        path = hooks_dir / event
        try:
            ours = path.is_file() and (githooks.MARKER + event).encode() in path.read_bytes()
        except OSError:
            ours = False
        if not ours:
            continue
        earlier = hooks_dir / (event + githooks.LEGACY)
        if earlier.exists() or earlier.is_symlink():
            os.replace(earlier, path)
            removed.restored_hooks.append(event)
        else:
            path.unlink()
            removed.hooks.append(event)


def _tracked_changes(repo: Repo) -> tuple[dict[str, str], dict[str, str]]:
    """(files to commit, files to rewrite in the work tree only) without squadmem's lines and blocks."""
    committed: dict[str, str] = {}
    loose: dict[str, str] = {}
    path = repo.root / ATTRIBUTES
    if path.is_file():
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        new = without_our_lines(text)
        if new != text:
            head = questions.head(repo.git)
            tracked = head is not None and ATTRIBUTES in questions.tree_paths(repo.git, head, [ATTRIBUTES])
            (committed if tracked else loose)[ATTRIBUTES] = new
    if questions.head(repo.git) is not None:
        committed.update(spawn_blocks.plan_off(repo).files)
    return committed, loose


def uninstall(repo: Repo) -> Removed:
    """Take squadmem out of the repository's hooks, config, attributes and spawn files."""
    removed = Removed()
    committed, loose = _tracked_changes(repo)
    dirty = questions.dirty(repo.git, sorted(committed))
    if dirty:
        raise SquadmemError(
            f"{dirty[0]}: has uncommitted changes; squadmem uninstall changed nothing",
            hint="commit or undo them, then run squadmem uninstall again",
        )
    if committed:
        with writer.session(repo) as scribe:
            try:
                removed.made = scribe.commit_files(committed, SUBJECT)
            except SquadmemError as exc:
                raise SquadmemError(
                    f"{exc.message}; squadmem uninstall changed nothing", hint=exc.hint
                ) from None
    for rel, text in loose.items():
        (repo.root / rel).write_bytes(text.encode("utf-8", "surrogateescape"))
    removed.files = sorted({*committed, *loose})
    if repo.config("core.hooksPath") is None:
        _hooks(repo.git_dir / "hooks", removed)
    if mergedriver.configured(repo):
        questions.remove_config_section(repo.git, f"merge.{mergedriver.NAME}")
        removed.driver = True
    if _framework_names_squadmem(repo.root):
        removed.notes.append(
            ".pre-commit-config.yaml names squadmem's hooks: take them out there by hand"
            " (squadmem never writes that file)"
        )
    return removed


def _framework_names_squadmem(root: Path) -> bool:
    try:
        return b"squadmem" in (root / ".pre-commit-config.yaml").read_bytes()
    except OSError:
        return False
