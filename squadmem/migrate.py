"""``migrate squad``: a Squad team's ``history.md`` files and ``decisions.md`` into tiers, one commit.

Each top-level ``##`` section of ``.squad/agents/<agent>/history.md`` is
appended, byte for byte, to ``cold/<agent>.md`` (the file's header, its title,
is not copied). Each entry of ``.squad/decisions.md`` (its ``##`` sections, or
its ``###`` entries when it has them under a single ``##`` or none) becomes a
section ``## <title>`` flagged ``kind=decision`` of the wiki topic
``decisions``. A section whose content (trailing blank lines trimmed) is
already in one of the target owner's tier files is skipped, so a second run
changes nothing. The commit goes through :meth:`moves.Writer.commit_files`,
beside the user's index. Originals are left alone unless asked; asked, each
fully migrated ``history.md`` is cut down to its header and a marker line in
the work tree (not committed: squadmem's commits only ever hold files under
``.squad/memory/``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from squadmem import index, moves, scaffold, sections
from squadmem.errors import SquadmemError
from squadmem.layout import AGENT_TIERS, check_name, decode_tier
from squadmem.repo import Repo

AGENTS_DIR = ".squad/agents"
DECISIONS = ".squad/decisions.md"
TOPIC = "decisions"
FLAG = "<!-- squadmem: kind=decision -->"
MARKER = "<!-- moved to .squad/memory/ by squadmem migrate -->"


@dataclasses.dataclass(frozen=True)
class Source:
    """What one original gives one target: sections to add and how many were there already."""

    name: str  # the agent, or "decisions"
    source: str  # repository path of the original
    target: str  # repository path of the tier file
    titles: tuple[str, ...]
    skipped: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "target": self.target,
            "sections": list(self.titles),
            "skipped": self.skipped,
        }


@dataclasses.dataclass(frozen=True)
class Result:
    sources: tuple[Source, ...]
    dry_run: bool
    commit: moves.Made | None = None
    originals: tuple[str, ...] = ()  # history files cut down to their header in the work tree
    refused_agents: tuple[str, ...] = ()
    recovered: str | None = None

    @property
    def moved(self) -> int:
        return sum(len(s.titles) for s in self.sources)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dry_run": self.dry_run,
            "moved": self.moved,
            "sources": [s.as_dict() for s in self.sources],
            "originals_replaced": list(self.originals),
            "refused_agents": list(self.refused_agents),
        }
        if self.commit is not None:
            data.update(self.commit.as_dict())
        return data

    def text(self) -> str:
        out = [f"squadmem: {self.recovered}"] if self.recovered else []
        if self.refused_agents:
            out.append("skipped agent folders with names squadmem refuses: " + ", ".join(self.refused_agents))
        verb = "would move" if self.dry_run else "moved"
        for source in self.sources:
            if source.titles:
                out.append(f"{verb} {len(source.titles)} section(s) {source.source} -> {source.target}:")
                out.extend(f"  ## {title}" for title in source.titles)
            if source.skipped:
                out.append(f"{source.source}: {source.skipped} section(s) already in {source.target}")
        if not self.moved:
            out.append("nothing to migrate: every section is already in .squad/memory/")
        if self.commit is not None:
            out.append(f"{self.commit.sha[:7]} {self.commit.subject}")
        out.extend(
            f"replaced {rel} with its header (in the work tree only: commit it yourself)"
            for rel in self.originals
        )
        return "\n".join(out)


# -- pure text -----------------------------------------------------------------------------------


def _split(text: str, rel: str) -> sections.Document:
    try:
        return sections.split(text)
    except sections.FlagError as exc:
        raise SquadmemError(
            f"{rel}: {exc}", hint="flags are: id=NAME pin kind=decision|fact topic=NAME"
        ) from None


def _level3(text: str) -> list[tuple[int, str]]:
    """(line, title) of each top-level ``###`` heading of ``text``, as CommonMark sees them.

    ``###`` lines are read as ``##`` by the section scanner, so fences, HTML
    blocks, lists and quotes are honoured exactly as for sections.
    """
    rows = sections.lines(text)
    probe = []
    candidates = set()
    for number, row in enumerate(rows):
        stripped = row.lstrip(" ")
        if len(row) - len(stripped) <= 3 and (
            stripped.startswith("### ") or stripped.rstrip("\r\n") == "###"
        ):
            probe.append(row.replace("###", "##", 1))
            candidates.add(number)
        else:
            probe.append(row)
    return [(b.line, b.raw_heading) for b in sections.boundaries("".join(probe)) if b.line in candidates]


def decision_entries(text: str) -> list[tuple[str, str]]:
    """The entries of a decisions file: (title, body after the heading line), in order, byte for byte.

    Entries are its ``##`` sections, unless it has no ``##`` section or a
    single one, and ``###`` headings where they would be split: then its
    ``###`` entries (what is before the first one is not an entry).
    """
    doc = _split(text, DECISIONS)
    if len(doc.sections) <= 1:
        if doc.sections:
            only = doc.sections[0]
            rows = sections.lines(only.text)
            body = "".join(rows[only.heading_lines :])
        else:
            body = text
        found = _level3(body)
        if found:
            rows = sections.lines(body)
            ends = [line for line, _ in found[1:]] + [len(rows)]
            return [
                (title.strip(), "".join(rows[line + 1 : end]))
                for (line, title), end in zip(found, ends, strict=True)
            ]
    entries = []
    for section in doc.sections:
        rows = sections.lines(section.text)
        entries.append((section.raw_heading.strip(), "".join(rows[section.heading_lines :])))
    return entries


def decision_section(title: str, body: str) -> str:
    """``## <title>``, the ``kind=decision`` flag (unless the body starts with flags), the body."""
    first = sections.lines(body)[:1]
    flagged = bool(first) and sections.parse_flags(first[0].rstrip("\r\n")) is not None
    return f"## {title}\n" + ("" if flagged else FLAG + "\n") + body


def _append(text: str, new: Sequence[str], rel: str) -> str:
    for section in new:
        try:
            text = index.insert(text, section)
        except index.SpliceError:
            raise SquadmemError(
                f"{rel}: a migrated section would not stay a section of its own there",
                hint="close the code fence or HTML block left open at the end of the section before it",
            ) from None
    return text


def _known(texts: Sequence[str | None]) -> set[str]:
    return {index.normalized(s.text) for t in texts if t for s in sections.split(t).sections}


# -- the command ---------------------------------------------------------------------------------


def _read(root: Path, rel: str) -> str:
    path = root / rel
    base = (root / ".squad").resolve()
    if path.is_symlink() or base not in path.resolve().parents:
        raise SquadmemError(f"{rel}: is a symlink or leads outside .squad/", hint="migrate a regular file")
    return decode_tier(path.read_bytes(), rel)


def _agents(root: Path, agents: Sequence[str]) -> tuple[list[str], list[str]]:
    if agents:
        return sorted({check_name(a) for a in agents}), []
    if not (root / AGENTS_DIR).is_dir():
        raise SquadmemError(
            f"no {AGENTS_DIR}/ here: this does not look like a Squad team",
            hint="run squadmem migrate squad at the top of a repository where `squad init` ran",
        )
    valid, refused = scaffold.discover_agents(root)
    return [a for a in valid if (root / AGENTS_DIR / a / "history.md").is_file()], refused


def squad(
    repo: Repo, agents: Sequence[str] = (), remove_originals: bool = False, dry_run: bool = False
) -> Result:
    """Migrate the Squad histories (and decisions) into tiers: one commit, or none if nothing is new."""
    root, layout = repo.root, repo.layout
    names, refused = _agents(root, agents)
    histories: dict[str, tuple[str, sections.Document]] = {}
    for agent in names:
        rel = f"{AGENTS_DIR}/{agent}/history.md"
        if not (root / rel).is_file():
            raise SquadmemError(f"{rel}: not found", hint="check the agent's name: ls .squad/agents/")
        histories[agent] = (rel, _split(_read(root, rel), rel))
    decisions = _read(root, DECISIONS) if (root / DECISIONS).is_file() else None
    cold = {a: layout.rel(layout.tier_path("cold", a)) for a in names}
    wiki = layout.rel(layout.tier_path("wiki", TOPIC))
    with moves.session(repo) as writer:
        writer.refuse_dirty([*cold.values(), *([wiki] if decisions is not None else [])])
        files: dict[str, str] = {}
        found: list[Source] = []
        for agent, (rel, doc) in histories.items():
            tiers = [writer.text(layout.rel(layout.tier_path(t, agent))) for t in AGENT_TIERS]
            known = _known(tiers)
            new = [s for s in doc.sections if index.normalized(s.text) not in known]
            found.append(
                Source(
                    agent,
                    rel,
                    cold[agent],
                    tuple(s.raw_heading.strip() for s in new),
                    len(doc.sections) - len(new),
                )
            )
            if new:
                base = tiers[1] if tiers[1] is not None else scaffold.template("cold.md", name=agent) + "\n"
                files[cold[agent]] = _append(base, [s.text for s in new], cold[agent])
        if decisions is not None:
            page = writer.text(wiki)
            known = _known([page])
            entries = [(t, decision_section(t, b)) for t, b in decision_entries(decisions)]
            new_entries = [(t, s) for t, s in entries if index.normalized(s) not in known]
            found.append(
                Source(
                    TOPIC, DECISIONS, wiki, tuple(t for t, _ in new_entries), len(entries) - len(new_entries)
                )
            )
            if new_entries:
                base = page if page is not None else scaffold.template("wiki.md", name=TOPIC) + "\n"
                files[wiki] = _append(base, [s for _, s in new_entries], wiki)
        result = Result(tuple(found), dry_run, refused_agents=tuple(refused), recovered=writer.recovered)
        if dry_run:
            return result
        made = None
        if files:
            moved_agents = [s for s in found if s.titles and s.name in histories]
            subject = (
                f"memory: migrate squad history ({result.moved} sections from {len(moved_agents)} agents)"
            )
            body = "\n".join(
                f"{s.name}: {len(s.titles)} section(s) from {s.source} into {s.target}"
                + (f", {s.skipped} already there" if s.skipped else "")
                for s in found
                if s.titles
            )
            made = writer.commit_files(files, subject, body)
        replaced = _remove_originals(repo, histories, writer) if remove_originals else ()
    return dataclasses.replace(result, commit=made, originals=replaced)


def _remove_originals(
    repo: Repo, histories: dict[str, tuple[str, sections.Document]], writer: moves.Writer
) -> tuple[str, ...]:
    """Cut each history whose every section is now in the agent's tiers down to its header and MARKER."""
    done = []
    for agent, (rel, doc) in histories.items():
        known = _known([writer.text(repo.layout.rel(repo.layout.tier_path(t, agent))) for t in AGENT_TIERS])
        if not doc.sections or any(index.normalized(s.text) not in known for s in doc.sections):
            continue
        header = doc.header
        if header and not index.ends_line(header):
            header += "\n"
        path = repo.root / rel
        tmp = path.with_name(f".{path.name}.squadmem-tmp")
        tmp.write_bytes((header + MARKER + "\n").encode("utf-8"))
        tmp.chmod(path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
        done.append(rel)
    return tuple(done)
