"""``squadmem spawn on|off|status``: what Squad's spawn tells an agent to read.

``on`` puts squadmem's marked blocks where Squad's spawn template,
coordinator, charters and collaboration skill tell each agent to read its whole
``history.md`` and ``decisions.md`` (:mod:`squadmem.model.spawnblock`), and keeps
the lines they replaced in ``.squad/memory/squad-spawn.json``; ``off`` puts
those lines back, byte for byte. Both are one commit. ``on`` waits while Squad's
committed files hold entries not taken in (``squadmem intake`` first): a spawn
never reads memory that lacks them. ``squad upgrade`` rewrites Squad's files
and drops the blocks: the pre-commit hook puts them back before such a commit
(:mod:`squadmem.hooks.spawn_check`), ``verify`` names a commit that lost one,
``maintain`` puts back what is committed without them in a commit of its own,
and ``doctor`` says when they are missing. A block whose wording squadmem has
since changed (an upgrade of squadmem) is written again the same way, from the
Squad line the record keeps. Where the blocks stand and the texts that change
them are the engine's (:mod:`squadmem.engine.install.spawn_blocks`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from squadmem.engine.install import spawn_blocks as blocks
from squadmem.engine.install.spawn_blocks import status as status
from squadmem.engine.intake import sources as squad_sources
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import spawnblock
from squadmem.model.errors import SquadmemError

ON_SUBJECT = "memory: spawns read squadmem's memory (Squad's spawn lines in marked blocks)"
OFF_SUBJECT = "memory: spawns read Squad's history.md and decisions.md again"


def refuse_unsupported(repo: Repo) -> None:
    if not blocks.squad_team(repo):
        raise SquadmemError(
            f"{spawnblock.SPAWN_TEMPLATE}: not there: this is not a Squad team (or Squad keeps its spawn"
            " template elsewhere)",
            hint="run `squad init` first; squadmem changed nothing",
        )
    squad_sources.refuse_backend(repo.root)


def refuse_before_intake(repo: Repo) -> None:
    """Refuse to turn the blocks on while Squad's committed files hold entries not taken in: the spawn
    would read squadmem's memory without them."""
    if blocks.load_record(repo).on:
        return
    waiting = squad_sources.pending_count(repo)
    if waiting:
        raise SquadmemError(
            f"{waiting} entries of Squad's history.md and decisions files are not taken in yet:"
            " a spawn reading squadmem's memory would miss them",
            hint="run squadmem intake first (one commit), then squadmem spawn on; squadmem changed nothing",
        )


@dataclasses.dataclass
class Turned:
    on: bool
    changed: blocks.Changed
    made: writer.Made | None
    dry_run: bool

    def as_dict(self) -> dict[str, Any]:
        data = {"on": self.on, "dry_run": self.dry_run, **self.changed.as_dict()}
        data["commit"] = self.made.as_dict() if self.made else None
        return data

    def text(self) -> str:
        what = "squadmem's memory" if self.on else "Squad's whole history.md and decisions.md"
        if not self.changed.files:
            return f"nothing to do: spawns already read {what}"
        verb = "would put" if self.dry_run else "put"
        lines = [
            f"{rel}: {verb} {'blocks' if self.on else 'Squad lines back'}: {', '.join(keys)}"
            for rel, keys in self.changed.keys.items()
        ]
        reword = "would reword" if self.dry_run else "reworded"
        lines += [f"{rel}: {reword} blocks: {', '.join(keys)}" for rel, keys in self.changed.reworded.items()]
        if self.made is not None:
            lines.append(f"{self.made.sha[:12]} {self.made.subject}")
        elif self.dry_run:
            lines.append("dry run: nothing changed")
        return "\n".join(lines)


def turn(repo: Repo, on: bool, dry_run: bool = False) -> Turned:
    """``spawn on`` / ``spawn off``: one commit, or none when nothing changes."""
    if on:
        refuse_unsupported(repo)
        refuse_before_intake(repo)
    with writer.session(repo) as scribe:
        changed = blocks.plan_on(repo) if on else blocks.plan_off(repo)
        made = (
            None
            if dry_run or not changed.files
            else scribe.commit_files(changed.files, ON_SUBJECT if on else OFF_SUBJECT)
        )
    return Turned(on, changed, made, dry_run)
