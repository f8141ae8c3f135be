"""``migrate squad``: a Squad team's memory into tiers, entry by entry (an intake), one commit.

The first intake of a Squad team (:mod:`squadmem.engine.intake.take`): every entry of the
agents' ``history.md`` / ``history-archive.md``, of ``decisions.md`` /
``decisions-archive.md`` and of ``decisions/inbox/`` lands where its age puts
it. Running it again takes in only what is new, like ``squadmem intake`` and
``maintain``. Originals are left alone unless asked; asked, each history.md
whose every entry is taken in is cut down to its header and a marker line in
the work tree (not committed: squadmem's commits only ever hold files under
``.squad/memory/``). Entries Squad's agents append after the marker are taken
in by the next intake.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from squadmem.engine.intake import sources as squad_sources
from squadmem.engine.intake import take as intake
from squadmem.engine.intake_ledger import read_ledger
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import sections, squad, writes
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import decode_tier
from squadmem.model.settings import Settings

MARKER = "<!-- moved to .squad/memory/ by squadmem migrate; new entries below are taken in by intake -->"


@dataclasses.dataclass(frozen=True)
class Result:
    intake: intake.Result
    originals: tuple[str, ...] = ()  # history files cut down to their header in the work tree
    refused_agents: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        data = self.intake.as_dict()
        data["originals_replaced"] = list(self.originals)
        data["refused_agents"] = list(self.refused_agents)
        return data

    def text(self) -> str:
        out = []
        if self.refused_agents:
            out.append("skipped agent folders with names squadmem refuses: " + ", ".join(self.refused_agents))
        out.append(self.intake.text())
        out.extend(
            f"replaced {rel} with its header (in the work tree only: commit it yourself)"
            for rel in self.originals
        )
        return "\n".join(out)


def squad_team(
    repo: Repo, conf: Settings, now: dt.datetime, *, remove_originals: bool = False, dry_run: bool = False
) -> Result:
    """Take in every Squad entry not yet taken; optionally cut the histories down in the work tree."""
    root = repo.root
    if not squad_sources.has_squad_memory(root):
        raise SquadmemError(
            f"no {squad.AGENTS_DIR}/ or {squad.DECISIONS} here: this does not look like a Squad team",
            hint="run squadmem migrate squad at the top of a repository where `squad init` ran",
        )
    _, refused = squad_sources.discover_agents(root)
    with writer.session(repo) as scribe:
        result = intake.intake(repo, conf, now, dry_run=dry_run, scribe=scribe)
        replaced = () if dry_run or not remove_originals else _remove_originals(repo, scribe)
    return Result(result, replaced, tuple(refused))


def _remove_originals(repo: Repo, scribe: writer.Writer) -> tuple[str, ...]:
    """Cut each history.md whose every entry is taken in, as HEAD and the work tree agree, to its header."""
    taken = {r.key for r in read_ledger(scribe.text(squad_sources.PLACES.ledger))}
    done = []
    for rel in squad_sources.source_paths(repo, scribe.head):
        if not rel.endswith("/history.md"):
            continue
        path = repo.root / rel
        committed = scribe.text(rel)
        if committed is None or not path.is_file() or path.is_symlink():
            continue
        current = decode_tier(path.read_bytes(), rel)
        if current != committed:
            continue  # uncommitted appends: keep them where Squad wrote them
        found = squad.entries(rel, current)
        if not found or any(e.key.hex() not in taken for e in found):
            continue
        header = sections.split(current).header
        if header and not header.endswith(("\n", "\r")):
            header += "\n"
        writes.atomic_text(path, header + MARKER + "\n", mode=path.stat().st_mode, locked=True)
        done.append(rel)
    return tuple(done)
