"""``migrate memory-tiers``: a memory-tiers skill workspace into one agent's tiers, one commit.

The skill keeps, in its workspace: ``MEMORY.md`` (tier 1, hot),
``memory/tier2-recent.md`` (tier 2, warm), ``memory/tier3-archive.md``
(tier 3, cold), raw daily logs ``memory/YYYY-MM-DD.md`` and
``state/access-log.json`` (per-file and per-section access times and counts).
They become the agent's hot, cold and archive files and squadmem's daily
logs, every section byte for byte. The skill's header lines (its ``# ...``
title, ``<!-- last_maintained: ... -->`` and ``<!-- tier: N ... -->``) are
recognised and dropped (the tier comment must agree with the file); any other
header text is kept in the target's header. ``## Index → Deeper Tiers`` is
squadmem's to write: it is not copied (``maintain`` writes the agent's own).

Each section-level access record becomes a dated use on the migration
commit, ``Squad-Memory-Used: <id>@<last access>``; history dates a section
brought in by a commit that carries a dated use of it at that use (see
``lastuse._last_use``), so the first ``maintain`` acts on the access history
the skill had. File-level records are not carried: a whole-file read (for
``MEMORY.md``, the load at spawn) says nothing of which section mattered.
A section already in the agent's tiers is skipped, a log already there with
the same bytes too, so a second run changes nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from squadmem.engine import catalog, index
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import accesslog, logs, render, sections, templates, uses
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import AGENT_TIERS, check_name, decode_tier

SOURCES = (
    ("MEMORY.md", "hot", 1),
    ("memory/tier2-recent.md", "cold", 2),
    ("memory/tier3-archive.md", "archive", 3),
)
ACCESS_LOG = where.WORKSPACE_ACCESS_LOG
HOST_NOTE = (
    "note: the host (OpenClaw) still loads the workspace's MEMORY.md in its main sessions, and squadmem"
    " maintains {hot} instead, not MEMORY.md; to keep MEMORY.md as the hot tier, run squadmem init"
    " in the workspace (it keeps the memory in place) rather than migrate"
)
LOG_FOLDER = "memory"
_TIER_COMMENT = re.compile(r"<!--\s*tier:\s*(\d+)\b.*?-->\s*", re.IGNORECASE)
_MAINTAINED = re.compile(r"<!--\s*last_maintained:\s*(.*?)\s*-->\s*", re.IGNORECASE)
_TITLE = re.compile(r"#[ \t]+\S.*")
_SKILL_HEADING = re.compile(r"(#{2,3})\s+(.+)")  # the skill's own section parser: ## or ###


@dataclasses.dataclass(frozen=True)
class Tier:
    """One skill tier file and what it gives its target."""

    source: str  # path in the workspace
    target: str  # repository path
    titles: tuple[str, ...]  # sections added
    skipped: int  # sections already there
    header_kept: bool  # other header text kept in the target's header
    last_maintained: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "sections": list(self.titles),
            "skipped": self.skipped,
            "header_kept": self.header_kept,
            "last_maintained": self.last_maintained,
        }


@dataclasses.dataclass(frozen=True)
class Use:
    id: str
    when: dt.datetime
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "last_access": _stamp(self.when), "count": self.count}


@dataclasses.dataclass(frozen=True)
class Result:
    agent: str
    tiers: tuple[Tier, ...]
    logs: tuple[str, ...]  # repository paths of the logs added
    logs_present: int
    uses: tuple[Use, ...]
    unmatched: tuple[str, ...]  # access-log section keys no migrated section answers
    file_records: int  # file-level access records, not carried
    ignored: tuple[str, ...]  # files of memory/ that are neither tier nor daily log
    dry_run: bool
    commit: writer.Made | None = None
    recovered: str | None = None

    @property
    def moved(self) -> int:
        return sum(len(t.titles) for t in self.tiers) + len(self.logs)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "agent": self.agent,
            "dry_run": self.dry_run,
            "tiers": [t.as_dict() for t in self.tiers],
            "logs": list(self.logs),
            "logs_present": self.logs_present,
            "uses": [u.as_dict() for u in self.uses],
            "unmatched": list(self.unmatched),
            "file_records": self.file_records,
            "ignored": list(self.ignored),
        }
        data["host_loads"] = "MEMORY.md"  # OpenClaw loads it in its main sessions: not maintained after this
        if self.commit is not None:
            data.update(self.commit.as_dict())
        return data

    def text(self) -> str:
        out = [f"squadmem: {self.recovered}"] if self.recovered else []
        verb = "would move" if self.dry_run else "moved"
        for tier in self.tiers:
            if tier.titles:
                out.append(f"{verb} {len(tier.titles)} section(s) {tier.source} -> {tier.target}:")
                out.extend(f"  {title}" for title in tier.titles)
            if tier.skipped:
                out.append(f"{tier.source}: {tier.skipped} section(s) already in {tier.target}")
        if self.logs:
            out.append(f"{verb} {len(self.logs)} daily log(s): {', '.join(self.logs)}")
        if self.logs_present:
            out.append(f"{self.logs_present} daily log(s) already there")
        for use in self.uses:
            out.append(f"use carried: {use.id} last accessed {_stamp(use.when)} ({use.count} access(es))")
        for key in self.unmatched:
            out.append(f"{ACCESS_LOG}: no migrated section for {key!r}: not carried")
        if self.file_records:
            out.append(
                f"{ACCESS_LOG}: {self.file_records} file-level record(s) not carried (no section named)"
            )
        out.extend(f"{rel}: not a tier file or daily log: left alone" for rel in self.ignored)
        if not self.moved:
            out.append("nothing to migrate: the workspace is already in .squad/memory/")
        if self.commit is not None:
            out.append(f"{self.commit.sha[:7]} {self.commit.subject}")
            out.append("next: squadmem maintain (sizes hot to its budget and writes the Index)")
        out.append(HOST_NOTE.format(hot=self.hot_target))
        return "\n".join(out)

    @property
    def hot_target(self) -> str:
        return next((t.target for t in self.tiers if t.source == "MEMORY.md"), "the agent's hot file")


def _stamp(when: dt.datetime) -> str:
    return render.timestamp(when) or ""


# -- pure text -----------------------------------------------------------------------------------


def strip_header(header: str, rel: str, tier: int) -> tuple[str, str | None]:
    """The header text squadmem keeps, and the ``last_maintained`` date if one was there.

    Drops the first ``# `` title line and the skill's ``last_maintained`` and
    ``tier`` comments; refuses a tier comment that names another tier.
    """
    kept: list[str] = []
    maintained = None
    titled = False
    for line in sections.lines(header):
        bare = line.rstrip("\r\n").lstrip("\ufeff")
        tier_match = _TIER_COMMENT.fullmatch(bare)
        maintained_match = _MAINTAINED.fullmatch(bare)
        if tier_match:
            if int(tier_match.group(1)) != tier:
                raise SquadmemError(
                    f"{rel}: its header says tier {tier_match.group(1)}, but this file is tier {tier}",
                    hint="rename the file to match its tier, or fix the <!-- tier: --> comment",
                )
        elif maintained_match:
            maintained = maintained_match.group(1)
        elif not titled and _TITLE.fullmatch(bare):
            titled = True
        else:
            kept.append(line)
    text = "".join(kept)
    return ("" if not text.strip() else text.strip("\r\n") + "\n"), maintained


def skill_titles(section: sections.Section) -> list[str]:
    """The titles the skill's tracker gives a section: its ``##`` and ``###`` headings' text."""
    found = []
    for line in sections.lines(section.text):
        match = _SKILL_HEADING.fullmatch(line.rstrip("\r\n"))
        if match:
            found.append(match.group(2).strip())
    return found


def with_header(text: str, kept: str) -> str:
    """``text`` with ``kept`` at the end of its header, after a blank line (once)."""
    if not kept:
        return text
    doc = sections.split(text)
    if sections.trimmed(kept) in sections.trimmed(doc.header):
        return text
    head = doc.header if not doc.header or index.ends_line(doc.header) else doc.header + "\n"
    gap = "\n" if head and not head.endswith("\n\n") else ""
    return head + gap + kept + "".join(s.text for s in doc.sections)


def append(text: str, new: Sequence[str], rel: str) -> str:
    for section in new:
        try:
            text = index.insert(text, section)
        except index.SpliceError:
            raise SquadmemError(
                f"{rel}: a migrated section would not stay a section of its own there",
                hint="close the code fence or HTML block left open at the end of the section before it",
            ) from None
    return text


def merge_tier(
    had: str | None, source: str, rel: str, tier: str, name: str, known: set[str]
) -> tuple[str | None, list[sections.Section], str, str | None, list[sections.Section]]:
    """A skill tier file merged into its target's text ``had`` (None: no file yet).

    Returns the new text (None when nothing changes), the sections added, the
    header text kept, the ``last_maintained`` date and every section but the
    Index. ``known`` (the agent's sections, normalized) is updated.
    """
    number = next(n for r, _, n in SOURCES if r == rel)
    doc = sections.split(source)
    kept, maintained = strip_header(doc.header, rel, number)
    body = [s for s in doc.sections if not index.is_index(s)]
    new = [s for s in body if sections.trimmed(s.text) not in known]
    known.update(sections.trimmed(s.text) for s in new)
    base = had if had is not None else templates.tier_header(tier, name, workspace=False) + "\n"
    merged = append(with_header(base, kept), [s.text for s in new], rel)
    return (None if merged == base else merged), new, kept, maintained, body


# -- the access log --------------------------------------------------------------------------------


def match_uses(
    records: Sequence[accesslog.Access],
    by_file: Mapping[str, Sequence[tuple[list[str], str]]],
) -> tuple[dict[str, tuple[dt.datetime, int]], list[str]]:
    """Access records -> section text -> (latest access, total count), and the keys that match nothing.

    ``by_file`` maps each skill file to its sections as ``(skill titles, text)``.
    A record names its file and a ``##`` or ``###`` title; the section is
    looked for in that file first, then in the others (the skill moves them).
    """
    found: dict[str, tuple[dt.datetime, int]] = {}
    unmatched = []
    for record in records:
        order = [record.file, *(f for f in by_file if f != record.file)]
        text = next((t for f in order for titles, t in by_file.get(f, ()) if record.title in titles), None)
        if text is None:
            unmatched.append(record.key)
            continue
        old = found.get(text)
        when, count = record.when, record.count
        found[text] = (max(old[0], when), old[1] + count) if old else (when, count)
    return found, unmatched


# -- the command ---------------------------------------------------------------------------------


def _read(path: Path, rel: str) -> str | None:
    if not path.exists():
        return None
    if path.is_symlink() or not path.is_file():
        raise SquadmemError(f"{rel}: is a symlink or not a regular file", hint="migrate a regular file")
    return decode_tier(path.read_bytes(), rel)


def _agent(repo: Repo, agent: str | None) -> str:
    if agent is not None:
        return check_name(agent)
    known = repo.layout.agents() if repo.layout.memory.is_dir() else []
    if len(known) == 1:
        return known[0]
    raise SquadmemError(
        "which agent's tiers? " + (f"this team has {len(known)}" if known else "no agent has tier files yet"),
        hint="name it: squadmem migrate memory-tiers --agent NAME",
    )


def _logs(workspace: Path) -> tuple[list[tuple[Path, str, dt.date]], list[str]]:
    folder = workspace / LOG_FOLDER
    found, ignored = [], []
    if folder.is_dir():
        skill_tiers = {Path(rel).name for rel, _, _ in SOURCES}
        for path in sorted(folder.iterdir()):
            day = logs.parse_log_name(path.name)
            if day is not None:
                found.append((path, f"{LOG_FOLDER}/{path.name}", day))
            elif path.name not in skill_tiers:
                ignored.append(f"{LOG_FOLDER}/{path.name}")
    return found, ignored


def memory_tiers(
    repo: Repo,
    workspace: Path | None = None,
    agent: str | None = None,
    dry_run: bool = False,
    now: dt.datetime | None = None,
) -> Result:
    """Migrate a memory-tiers workspace (default: the repository's root): one commit, or none."""
    root = _workspace_root(repo, workspace)
    name = _agent(repo, agent)
    layout = repo.layout
    texts = _read_sources(root)
    log_files, ignored = _logs(root)
    _refuse_future_logs(log_files, logs.today(now or logs.commit_now(), layout.settings.tz))
    access = root / ACCESS_LOG
    records, file_records = accesslog.read(access, ACCESS_LOG) if access.is_file() else ([], 0)
    with writer.session(repo) as scribe:
        targets = {tier: layout.rel(layout.tier_path(tier, name)) for tier in AGENT_TIERS}
        scribe.refuse_dirty(list(targets.values()))
        current = {tier: scribe.text(rel) for tier, rel in targets.items()}
        merged = _merge_tiers(texts, current, targets, name)
        added_logs, present = _add_logs(scribe, log_files)
        files = {**merged.files, **added_logs}
        carried, unmatched = _carried(records, merged, current, targets)
        result = Result(
            name,
            tuple(merged.tiers),
            tuple(added_logs),
            present,
            carried,
            tuple(unmatched),
            file_records,
            tuple(ignored),
            dry_run,
            recovered=scribe.recovered,
        )
        if dry_run or not files:
            return result
        made = _commit(scribe, files, result)
    return dataclasses.replace(result, commit=made)


def _workspace_root(repo: Repo, workspace: Path | None) -> Path:
    """The skill's workspace folder; refused when this repository keeps its memory in place."""
    root = (workspace or repo.root).resolve()
    if workspace is not None and not root.is_dir():
        raise SquadmemError(f"{workspace.name}: not a folder", hint="give the skill's workspace folder")
    if repo.layout.places.kind == where.WORKSPACE:
        raise SquadmemError(
            f"{where.WORKSPACE_SETTINGS}: this workspace's memory is kept in place: nothing to migrate",
            hint="squadmem maintains MEMORY.md and memory/ where they are (squadmem maintain)",
        )
    return root


def _read_sources(root: Path) -> dict[str, str | None]:
    """The skill's tier files' texts by workspace path (None: absent); refused if not a workspace."""
    texts = {rel: _read(root / rel, rel) for rel, _, _ in SOURCES}
    if all(t is None for t in texts.values()) and not (root / LOG_FOLDER).is_dir():
        raise SquadmemError(
            f"{root.name or root}: no MEMORY.md or memory/ here: not a memory-tiers workspace",
            hint="give the workspace folder: squadmem migrate memory-tiers DIR",
        )
    return texts


def _refuse_future_logs(log_files: Sequence[tuple[Path, str, dt.date]], today: dt.date) -> None:
    for _, rel, day in log_files:
        if day > today:
            raise SquadmemError(f"{rel}: a daily log of a future day", hint="check the file's name")


@dataclasses.dataclass(frozen=True)
class _Merged:
    """What the skill's tier files give the agent's tiers."""

    files: dict[str, str]  # target path -> new text (only the targets that change)
    tiers: list[Tier]
    by_file: dict[str, list[tuple[list[str], str]]]  # skill file -> its sections' (skill titles, text)
    added: set[str]  # texts of the sections added


def _merge_tiers(
    texts: Mapping[str, str | None],
    current: Mapping[str, str | None],
    targets: Mapping[str, str],
    name: str,
) -> _Merged:
    """Each skill tier file merged into its target's ``current`` text; a section already there is skipped."""
    known = {sections.trimmed(s.text) for t in current.values() if t for s in sections.split(t).sections}
    out = _Merged({}, [], {}, set())
    for rel, tier, _ in SOURCES:
        text = texts[rel]
        if text is None:
            continue
        merged, new, kept, maintained, body = merge_tier(current[tier], text, rel, tier, name, known)
        out.by_file[rel] = [(skill_titles(s), s.text) for s in body]
        out.added.update(s.text for s in new)
        if merged is not None:
            out.files[targets[tier]] = merged
        titles = tuple(s.raw_heading.strip() for s in new)
        out.tiers.append(Tier(rel, targets[tier], titles, len(body) - len(new), bool(kept), maintained))
    return out


def _add_logs(
    scribe: writer.Writer, log_files: Sequence[tuple[Path, str, dt.date]]
) -> tuple[dict[str, str], int]:
    """The daily logs to add, by target path, and how many are there already with the same bytes."""
    layout = scribe.repo.layout
    added: dict[str, str] = {}
    present = 0
    for path, rel, _ in log_files:
        data = _read(path, rel)
        assert data is not None
        target = layout.rel(layout.writable(layout.log_folder / path.name))  # a session file keeps its name
        there = scribe.text(target)
        if there == data:
            present += 1
            continue
        if there is not None:
            raise SquadmemError(
                f"{target}: already exists with other content than {rel}",
                hint="squadmem never changes a daily log: move one of them aside first",
            )
        added[target] = data
    return added, present


def _carried(
    records: Sequence[accesslog.Access],
    merged: _Merged,
    current: Mapping[str, str | None],
    targets: Mapping[str, str],
) -> tuple[tuple[Use, ...], list[str]]:
    """The uses carried onto the sections added (by id), and the access-log keys that match nothing."""
    texts_after = {targets[t]: merged.files.get(targets[t], current[t] or "") for t in AGENT_TIERS}
    ids = {
        sections.trimmed(e.text): e.id for e in catalog.from_texts(texts_after, where.SQUAD_PLACES).entries
    }
    matched, unmatched = match_uses(records, merged.by_file)
    found = (
        Use(ids[sections.trimmed(t)], when, count)
        for t, (when, count) in matched.items()
        if t in merged.added
    )
    return tuple(sorted(found, key=lambda u: u.id)), unmatched


def _commit(scribe: writer.Writer, files: dict[str, str], result: Result) -> writer.Made:
    sections_moved = sum(len(t.titles) for t in result.tiers)
    subject = (
        f"memory({result.agent}): migrate memory-tiers workspace "
        f"({sections_moved} sections, {len(result.logs)} daily logs)"
    )
    body = [
        f"{t.source}: {len(t.titles)} section(s) into {t.target}"
        + (f", {t.skipped} already there" if t.skipped else "")
        for t in result.tiers
        if t.titles or t.skipped
    ]
    if result.logs:
        body.append(f"memory/YYYY-MM-DD.md: {len(result.logs)} daily log(s) into .squad/memory/log/")
    body.extend(
        f"{u.id}: last accessed {_stamp(u.when)}, {u.count} access(es) ({ACCESS_LOG})" for u in result.uses
    )
    body.append("The skill's Index → Deeper Tiers is not copied: squadmem maintain writes the agent's own.")
    pending = uses.pending_ids(scribe.repo.state_dir)
    trailers = [(uses.TRAILER, uses.join(pending))] if pending else []
    trailers += [(uses.TRAILER, uses.dated(u.id, u.when)) for u in result.uses]
    scribe.refuse_dirty(list(files))
    sha = scribe.commit(files, writer.message(subject, "\n".join(body), trailers), pending)
    return writer.Made(sha, subject)
