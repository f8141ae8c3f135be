"""Squadmem's marked blocks in Squad's spawn files: where they stand, the texts that put them in or
take them out, and their upkeep.

The blocks (:mod:`squadmem.model.spawnblock`) stand where Squad's spawn template,
coordinator, charters and collaboration skill tell each agent to read its whole
``history.md`` and ``decisions.md``; ``.squad/memory/squad-spawn.json`` keeps the lines
they replaced. ``spawn on|off|status`` turns them on and off, ``init`` writes them in the
work tree (:func:`apply_worktree`), ``uninstall`` takes them out (:func:`plan_off`),
``doctor`` says where they stand (:func:`status`), and :func:`upkeep` (the last step of
``maintain``) puts back in a commit of its own what a rewrite of Squad's files
(``squad upgrade``) dropped, and writes again a block an older squadmem worded otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from squadmem.engine.intake import sources as squad_sources
from squadmem.engine.writing import writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import spawnblock
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import CHARTERS, decode_tier

UPKEEP_SUBJECT = "memory: spawns read squadmem's memory again (Squad's files were rewritten)"
REWORD_SUBJECT = "memory: squadmem's spawn blocks in today's wording"
TURN_ON = "squadmem spawn on"


@dataclasses.dataclass
class State:
    """Where the blocks stand: per file, the blocks there and the Squad lines still without one."""

    on: bool
    blocks: dict[str, list[str]]
    waiting: dict[str, list[str]]
    missing: dict[str, list[str]]  # required Squad lines a file does not have
    absent: list[str]  # files of Squad's that are not there
    outdated: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # blocks in older wording

    @property
    def complete(self) -> bool:
        return self.on and not any(self.waiting.values()) and not any(self.missing.values())

    def as_dict(self) -> dict[str, Any]:
        files = {
            rel: {"blocks": self.blocks.get(rel, []), "waiting": self.waiting.get(rel, [])}
            for rel in self.blocks
        }
        for rel, keys in self.outdated.items():
            files[rel]["outdated"] = keys
        return {"on": self.on, "files": files, "absent": self.absent, "missing": self.missing}

    def text(self) -> str:
        lines = [f"spawn blocks: {'on' if self.on else 'off'}"]
        lines += [f"{rel}: not there" for rel in self.absent]
        for rel in self.blocks:
            blocks, waiting = self.blocks.get(rel, []), self.waiting.get(rel, [])
            shown = ", ".join(blocks) if blocks else "no block"
            lines.append(
                f"{rel}: {shown}"
                + (f"; Squad's lines without a block: {', '.join(waiting)}" if waiting else "")
            )
        if self.on and not self.complete:
            lines.append(f"some of Squad's spawn lines have no block (squad upgrade?): run {TURN_ON}")
        for rel, keys in self.outdated.items():
            lines.append(
                f"{rel}: {', '.join(keys)} in an older squadmem's wording: maintain (or {TURN_ON})"
                " writes today's"
            )
        if not self.on:
            lines.append(f"spawns read what Squad's files say; {TURN_ON} makes them read squadmem's memory")
        return "\n".join(lines)


def _read(repo: Repo, rel: str) -> str | None:
    path = repo.root / rel
    if not path.is_symlink() and not path.exists():
        return None
    repo.layout.writable(path)
    if not path.is_file():
        raise SquadmemError(f"{rel}: not a regular file", hint="put Squad's file back (squad upgrade)")
    return decode_tier(path.read_bytes(), rel)


def load_record(repo: Repo) -> spawnblock.Record:
    text = _read(repo, spawnblock.RECORD)
    if text is None:
        return spawnblock.Record()
    try:
        return spawnblock.Record.parse(text)
    except ValueError as exc:
        raise SquadmemError(
            f"{spawnblock.RECORD}: not squadmem's spawn record ({exc})",
            hint="restore it from git (git checkout -- " + spawnblock.RECORD + ")",
        ) from None


def _blocks(rel: str, text: str) -> list[str]:
    try:
        return spawnblock.keys(text)
    except ValueError as exc:
        raise SquadmemError(
            f"{rel}: {exc}", hint="put the missing end marker back, or git checkout the file"
        ) from None


def paths(repo: Repo) -> list[str]:
    """Squad's files that may hold spawn blocks: the fixed ones, then every agent's charter."""
    agents = repo.root / ".squad" / "agents"
    charters = sorted(
        CHARTERS.replace("*", child.name)
        for child in (agents.iterdir() if agents.is_dir() and not agents.is_symlink() else ())
        if child.is_dir() and not child.is_symlink() and (child / "charter.md").is_file()
    )
    return [*spawnblock.FILES, *charters]


def status(repo: Repo) -> State:
    record = load_record(repo)
    state = State(record.on, {}, {}, {}, [])
    for rel in paths(repo):
        text = _read(repo, rel)
        if text is None:
            state.absent.append(rel)
            continue
        state.blocks[rel] = _blocks(rel, text)
        applied = spawnblock.apply(rel, text)
        state.waiting[rel] = sorted(applied.originals)
        if applied.missing:
            state.missing[rel] = applied.missing
        _, reworded = spawnblock.reword(rel, text, record.originals.get(rel, {}))
        if reworded:
            state.outdated[rel] = reworded
    return state


def squad_team(repo: Repo) -> bool:
    return (repo.root / spawnblock.SPAWN_TEMPLATE).is_file()


@dataclasses.dataclass
class Changed:
    files: dict[str, str]  # rel -> new text (the record included)
    keys: dict[str, list[str]]  # rel -> blocks made or removed
    reworded: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # rel -> blocks rewritten

    def as_dict(self) -> dict[str, Any]:
        return {"files": sorted(self.files), "blocks": self.keys, "reworded": self.reworded}


def _squad_texts(repo: Repo) -> Iterator[tuple[str, str]]:
    """Squad's spawn files that are there, with their texts."""
    for rel in paths(repo):
        text = _read(repo, rel)
        if text is not None:
            yield rel, text


def plan_on(repo: Repo) -> Changed:
    """The texts that carry every block Squad's files have a line for, and the record of those lines."""
    texts = dict(_squad_texts(repo))
    for rel, text in texts.items():
        _blocks(rel, text)
    planned = spawnblock.plan(texts, load_record(repo), _read(repo, spawnblock.RECORD))
    missing = planned.missing.get(spawnblock.SPAWN_TEMPLATE)
    if missing:
        raise SquadmemError(
            f"{spawnblock.SPAWN_TEMPLATE}: no line tells the agent to read its {' or '.join(missing)}"
            " (this Squad version's spawn template is not one squadmem knows)",
            hint="squadmem changed nothing; spawns read what Squad's template says",
        )
    return Changed(planned.files, planned.made, planned.reworded)


def plan_off(repo: Repo) -> Changed:
    """The texts with each block replaced by Squad's line it stands for, and the record turned off."""
    record = load_record(repo)
    files: dict[str, str] = {}
    removed: dict[str, list[str]] = {}
    for rel, text in _squad_texts(repo):
        keys = _blocks(rel, text)
        if not keys:
            continue
        unknown = [k for k in keys if k not in record.originals.get(rel, {})]
        if unknown:
            raise SquadmemError(
                f"{rel}: squadmem:{unknown[0]} has no recorded Squad line in {spawnblock.RECORD}",
                hint="squad upgrade writes Squad's own text back; squadmem changed nothing",
            )
        files[rel] = spawnblock.restore(text, record.originals[rel])
        removed[rel] = keys
    if files or record.on or record.originals:
        files[spawnblock.RECORD] = spawnblock.Record().to_text()
    return Changed(files, removed)


def apply_worktree(repo: Repo) -> tuple[list[str], str | None]:
    """``init``: write the blocks into the work tree (the user commits them with init's files).

    Returns the files written, or why none were: ``init`` reports it and goes on.
    """
    if not squad_team(repo):
        return [], None
    kind = squad_sources.backend(repo.root)
    if kind in squad_sources.UNSUPPORTED_BACKENDS:
        return [], f"Squad's state backend is {kind!r}: spawns keep reading through Squad's state tools"
    try:
        changed = plan_on(repo)
    except SquadmemError as exc:
        return [], f"{exc.message}; {exc.hint}" if exc.hint else exc.message
    for rel, text in changed.files.items():
        path = repo.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return sorted(changed.files), None


def upkeep(repo: Repo, scribe: writer.Writer) -> tuple[writer.Made | None, str | None]:
    """``maintain``: with the record on, put back the blocks a rewrite of Squad's files dropped, and
    write again the blocks an older squadmem worded otherwise."""
    if not squad_team(repo) or not load_record(repo).on:
        return None, None
    kind = squad_sources.backend(repo.root)
    if kind in squad_sources.UNSUPPORTED_BACKENDS:
        return None, (
            f"Squad's state backend is {kind!r}: spawns read history through Squad's state tools, which"
            " squadmem cannot take in; squadmem leaves the spawn lines alone (squadmem spawn off)"
        )
    try:
        changed = plan_on(repo)
    except SquadmemError as exc:
        return None, f"{exc.message}: Squad's spawn reads its own files until this is solved"
    squad_files = [rel for rel in changed.files if rel != spawnblock.RECORD]
    if not squad_files:
        return None, None
    dirty = questions.dirty(repo.git, list(changed.files))
    if dirty:
        why = "is missing" if any(changed.keys.values()) else "is in an older squadmem's wording"
        return None, (
            f"{dirty[0]}: squadmem's spawn block {why} and the file has uncommitted changes:"
            f" commit them (squad upgrade?), then run {TURN_ON}"
        )
    subject = UPKEEP_SUBJECT if any(changed.keys.values()) else REWORD_SUBJECT
    return scribe.commit_files(changed.files, subject), None
