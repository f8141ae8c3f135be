"""The sections an agent read or cited, from its session transcripts, as uses: ``squadmem track``,
and, in a workspace kept in place, ``maintain`` and ``report`` reading what the host left.

Transcripts of Claude Code, the Codex CLI and OpenClaw are read by
:mod:`squadmem.engine.hosts.transcripts` into events (a file read, an edit, the
agent's text).

In a memory-tiers workspace, ``track`` without files reads what the host
left for the workspace's agent: its SQLite store, its legacy session files,
and the memory-tiers skill's access log (``skills/memory-tiers/state/`` or
``state/access-log.json``: each section's ``lastAccessed``); a source that
cannot be read is a one-line warning and is skipped. A file named on the
command line that cannot be read is an error, and nothing is recorded.

A use is recorded (as ``squadmem touch`` does, at the line's time) for:

1. a file read of a tier file: the sections its line range covers (Claude's
   ``offset``/``limit``; ``sed -n A,Bp``, ``head``/``tail -n`` in a shell
   command), or every section of the file when it was read whole. A whole
   hot file is never a use: that is the spawn's load;
2. a section id (``picard/auth-tokens``) in the agent's own output text;
3. a section's heading quoted in the agent's output: ``## Title``, or the
   title in quotes, backticks or bold;
4. an edit of a tier file: the sections holding the text it wrote or replaced;
5. a section the skill's access log names (its ``##`` or ``###`` title), at its ``lastAccessed``.

The prompt (user and developer messages, where the spawn's hot load lives)
is never read. Each transcript line that gave uses is remembered by its
digest in ``.git/squadmem/tracked-lines`` (an OpenClaw event by its JSON
with sorted keys, so the same event read from a session file and, after
``openclaw doctor --session-sqlite import``, from SQLite is one line), so a
transcript read again (or grown since) records only its new lines.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from squadmem.engine import catalog
from squadmem.engine.hosts import openclaw, transcripts
from squadmem.engine.hosts.transcripts import Event
from squadmem.gitio.repo import Repo
from squadmem.model import places, render, sections, uses, writes
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import classify
from squadmem.model.places import Places

FORMATS = ("auto", "claude", "codex", "openclaw")
SQLITE = "openclaw-sqlite"
MARKS_FILE = "tracked-rows.json"  # each store's sessions read to which sequence number
ACCESS = "access-log"
SEEN_FILE = "tracked-lines"
_ID = re.compile(r"(?<![\w/:.-])((?:wiki:)?[A-Za-z0-9][A-Za-z0-9._-]*/[a-z0-9][a-z0-9-]*)(?![\w/-])")


@dataclasses.dataclass(frozen=True)
class Use:
    id: str
    when: dt.datetime
    how: str  # read | id | heading
    where: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "when": render.timestamp(self.when),
            "how": self.how,
            "where": self.where,
        }


@dataclasses.dataclass(frozen=True)
class Result:
    transcripts: tuple[tuple[str, str], ...]  # (file, format)
    uses: tuple[Use, ...]
    lines_read: int
    lines_seen_before: int
    recorded: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # sources found on their own and skipped, and why
    digests: tuple[str, ...] = dataclasses.field(default=(), repr=False)  # the lines that gave uses
    # Each SQLite store's sessions read, to which sequence number: store -> session -> seq.
    marks: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcripts": [{"file": f, "format": k} for f, k in self.transcripts],
            "uses": [u.as_dict() for u in self.uses],
            "lines_read": self.lines_read,
            "lines_seen_before": self.lines_seen_before,
            "recorded": list(self.recorded),
            "warnings": list(self.warnings),
        }

    def latest(self) -> dict[str, dt.datetime]:
        """Id -> its latest use found."""
        found: dict[str, dt.datetime] = {}
        for use in self.uses:
            found[use.id] = max(found.get(use.id, use.when), use.when)
        return found

    def text(self) -> str:
        out = [f"{u.where}: {u.id} ({u.how}, {render.timestamp(u.when)})" for u in self.uses]
        seen = f", {self.lines_seen_before} tracked before" if self.lines_seen_before else ""
        out.append(
            f"tracked {len(self.transcripts)} transcript(s), {self.lines_read} line(s){seen}: "
            f"recorded {len(self.recorded)} use(s)"
        )
        return "\n".join(out)


# -- from events to sections -----------------------------------------------------------------------


def _tier_rel(repo: Repo, path: str, cwd: str | None) -> str | None:
    """The repository path of a file the agent named, if it is a tier file."""
    candidate = PurePosixPath(path)
    if not candidate.is_absolute() and cwd:
        candidate = PurePosixPath(cwd) / candidate
    if candidate.is_absolute():
        try:
            resolved = Path(candidate).resolve().relative_to(repo.root.resolve())
        except ValueError:
            return _suffix_rel(str(candidate), repo.layout.places)
        rel = resolved.as_posix()
    else:
        rel = candidate.as_posix()
    places = repo.layout.places
    return rel if classify(rel, places) is not None else _suffix_rel(rel, places)


def _suffix_rel(path: str, places: Places) -> str | None:
    """A path from another checkout of the same repository: its ``.squad/memory/...`` tail (a
    workspace's ``MEMORY.md`` or ``memory/...``)."""
    for tail in (".squad/memory/", "/memory/", "/MEMORY.md"):
        at = path.rfind(tail) if tail[0] == "/" else path.find(tail)
        if at >= 0 and classify(rel := path[at + (tail[0] == "/") :], places) is not None:
            return rel
    return None


def _lines_of(entry: catalog.Entry, text: str) -> tuple[int, int] | None:
    """The entry's first and last line (1-based) in its file's text, its trailing blank lines left out."""
    start = text.find(entry.text)
    if start < 0:
        return None
    first = text.count("\n", 0, start) + 1
    return first, first + max(len(sections.lines(sections.trimmed(entry.text))), 1) - 1


def read_uses(memory: catalog.Memory, texts: dict[str, str], rel: str, event: Event) -> list[str]:
    """The sections of ``rel`` a read returned: those its line range overlaps (a whole hot file: none)."""
    tf = classify(rel, memory.places)
    assert tf is not None
    whole = event.first is None and event.last is None
    if whole and tf.tier == "hot":
        return []  # the spawn's load, or the same read again: never a use
    low, high = event.first or 1, event.last if event.last is not None else float("inf")
    if low < 0:  # tail -n N: the last N lines
        low = max(len(sections.lines(texts.get(rel, ""))) + low + 1, 1)
    found = []
    for entry in memory.in_file(rel):
        if entry.is_index or entry.is_session:
            continue
        span = _lines_of(entry, texts.get(rel, ""))
        if whole or (span is not None and span[0] <= high and low <= span[1]):
            found.append(entry.id)
    return found


def text_uses(memory: catalog.Memory, text: str) -> list[tuple[str, str]]:
    """(id, how) for each section the text names by id or quotes by heading."""
    known = memory.by_id()
    found = [(m, "id") for m in dict.fromkeys(_ID.findall(text)) if m in known]
    named = {i for i, _ in found}
    for entry in memory.entries:
        if entry.id in named or entry.is_index or entry.is_session or len(entry.title) < 3:
            continue
        title = entry.title
        quoted = (f'"{title}"', f"“{title}”", f"'{title}'", f"`{title}`", f"**{title}**", f"## {title}")
        if any(q in text for q in quoted):
            found.append((entry.id, "heading"))
    return found


def _digest(line: str) -> str:
    return hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


def _seen(repo: Repo) -> set[str]:
    try:
        return set(writes.read_state(repo.state_dir / SEEN_FILE).decode("ascii").split())
    except (OSError, UnicodeDecodeError):
        return set()


def _remember(repo: Repo, digests: Iterable[str]) -> None:
    new = sorted(set(digests))
    if not new:
        return
    repo.state_dir.mkdir(parents=True, exist_ok=True)
    with (repo.state_dir / SEEN_FILE).open("a", encoding="ascii") as handle:
        handle.write("".join(f"{d}\n" for d in new))


def _format_of(path: Path, wanted: str) -> str:
    if wanted in ("auto", "openclaw") and openclaw.is_sqlite(path):
        return SQLITE
    if wanted != "auto":
        return wanted
    for _, _, data in transcripts.records(path):
        kind = transcripts.detect(data)
        if kind is not None:
            return kind
    raise SquadmemError(
        f"{path}: not a Claude Code, Codex CLI or OpenClaw transcript",
        hint="give --format claude|codex|openclaw, or check the file",
    )


@dataclasses.dataclass(frozen=True)
class Source:
    """A file to read: its kind (a format, ``openclaw-sqlite`` or ``access-log``), and whether the
    user named it (an error then stops the command; else it is a warning and the file is skipped)."""

    path: Path
    kind: str
    named: bool


@dataclasses.dataclass
class _Tally:
    found: list[Use] = dataclasses.field(default_factory=list)
    fresh: list[str] = dataclasses.field(default_factory=list)
    count: int = 0
    before: int = 0
    unread: list[str] = dataclasses.field(default_factory=list)  # compressed events not inflated
    marks: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # store -> session -> seq

    def add(self, other: _Tally) -> None:
        self.found += other.found
        self.fresh += other.fresh
        self.count += other.count
        self.before += other.before
        self.unread += other.unread
        for store, sessions in other.marks.items():
            self.marks.setdefault(store, {}).update(sessions)


def host_sources(repo: Repo, env: Mapping[str, str]) -> tuple[list[Source], list[str]]:
    """In a workspace: what the host left for its agent (store, session files, access log), and the
    warnings finding them gave; elsewhere nothing."""
    where = repo.layout.places
    if where.kind != places.WORKSPACE:
        return [], []
    store = openclaw.locate(repo.root, where.agent, env)
    notes = list(store.warnings)
    try:
        listed = store.transcripts()
    except OSError as exc:
        notes.append(f"skipped {exc.filename}: cannot read: {exc.strerror}")
        listed = []
    found = [Source(p, SQLITE if p == store.sqlite else "openclaw", False) for p in listed]
    for rel in places.WORKSPACE_ACCESS_LOGS:
        path = repo.root / rel
        if path.exists() or path.is_symlink():
            found.append(Source(path, ACCESS, False))
    return found, notes


def host_latest(repo: Repo, now: dt.datetime) -> dict[str, dt.datetime] | None:
    """In a workspace: each section's latest use its host left and nothing recorded yet (``report``'s
    last use, ``maintain``'s plan); elsewhere None."""
    if repo.layout.places.kind != places.WORKSPACE:
        return None
    return track(repo, (), now, dry_run=True).latest()


def _events(
    source: Source, root: str, tally: _Tally, now: dt.datetime, marks: Mapping[str, Mapping[str, int]]
) -> Iterator[Event]:
    if source.kind == "claude":
        return transcripts.claude_events(source.path)
    if source.kind == "codex":
        return transcripts.codex_events(source.path)
    if source.kind == SQLITE:
        key = transcripts.store_key(source.path)
        rows = transcripts.openclaw_rows(
            source.path, now, marks.get(key, {}), tally.marks.setdefault(key, {}), tally.unread
        )
        return transcripts.openclaw_events(rows, root)
    if source.kind == ACCESS:
        return transcripts.access_events(source.path)
    return transcripts.openclaw_events(transcripts.openclaw_file(source.path), root)


def _read(
    repo: Repo,
    memory: catalog.Memory,
    texts: dict[str, str],
    source: Source,
    seen: set[str],
    now: dt.datetime,
    marks: Mapping[str, Mapping[str, int]],
) -> _Tally:
    """What one source shows: its uses, the digests of the lines that gave them, its line counts."""
    tally = _Tally()
    done_lines: set[str] = set()
    for event in _events(source, str(repo.root), tally, now, marks):
        if event.when is not None and event.when > now:
            continue  # after the moment asked about (--now): not yet a use, read again later
        digest = _digest(event.line)
        if digest in seen:
            if digest not in done_lines:
                tally.before += 1
                done_lines.add(digest)
            continue
        if digest not in done_lines:
            tally.count += 1
            done_lines.add(digest)
        when = event.when or now
        for ident, how in _event_uses(repo, memory, texts, event):
            tally.found.append(Use(ident, when, how, event.where))
            tally.fresh.append(digest)
    return tally


def track(
    repo: Repo,
    files: Sequence[Path],
    now: dt.datetime,
    *,
    fmt: str = "auto",
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> Result:
    """Record a use of each section the transcripts show an agent read or cited.

    No files: in a workspace, what the host left (:func:`host_sources`); elsewhere an error.
    Nothing is recorded until every source is read.
    """
    if fmt not in FORMATS:
        raise SquadmemError(f"--format {fmt}: unknown", hint=f"one of {', '.join(FORMATS)}")
    sources, notes = host_sources(repo, os.environ if env is None else env) if not files else ([], [])
    if not files and repo.layout.places.kind != places.WORKSPACE:
        raise SquadmemError("no transcript given", hint="squadmem track SESSION.jsonl [...]")
    sources += [Source(path, _format_of(path, fmt), True) for path in files]
    memory = catalog.load(repo.layout)
    texts = {tf.rel: repo.layout.read_tier(tf) for tf in repo.layout.tier_files()}
    seen, marks = _seen(repo), _marks(repo)
    total, kinds = _Tally(), []
    for source in sources:
        try:
            part = _read(repo, memory, texts, source, seen, now, marks)
        except SquadmemError as problem:
            if source.named:
                raise
            notes.append(f"skipped {problem.message}")
            continue
        kinds.append((str(source.path), source.kind))
        total.add(part)
        if part.unread:
            notes.append(f"{source.path}: {len(part.unread)} compressed event(s) not read (no libzstd)")
    for note in notes:
        warnings.warn(SquadmemWarning(note), stacklevel=2)
    result = Result(tuple(kinds), tuple(_unique(total.found)), total.count, total.before, (), tuple(notes))
    result = dataclasses.replace(result, digests=tuple(dict.fromkeys(total.fresh)), marks=total.marks)
    return result if dry_run else record(repo, result)


def record(repo: Repo, result: Result) -> Result:
    """Record what a dry run found: each section's latest use as a pending use, and the lines that
    gave them as tracked."""
    latest = result.latest()
    for when in sorted(set(latest.values())):
        uses.record(repo.state_dir, [i for i, w in latest.items() if w == when], when)
    _remember(repo, result.digests)
    _save_marks(repo, result.marks)
    return dataclasses.replace(result, recorded=tuple(sorted(latest)))


def _marks(repo: Repo) -> dict[str, dict[str, int]]:
    """Each store's sessions read before, to which sequence number (unreadable: none)."""
    try:
        data = json.loads(writes.read_state(repo.state_dir / MARKS_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(store): {str(k): v for k, v in sessions.items() if isinstance(v, int) and not isinstance(v, bool)}
        for store, sessions in data.items()
        if isinstance(sessions, dict)
    }


def _save_marks(repo: Repo, marks: Mapping[str, Mapping[str, int]]) -> None:
    if not any(marks.values()):
        return
    merged = _marks(repo)
    for store, sessions in marks.items():
        merged.setdefault(store, {}).update(sessions)
    repo.state_dir.mkdir(parents=True, exist_ok=True)
    writes.atomic_text(repo.state_dir / MARKS_FILE, json.dumps(merged, indent=1, sort_keys=True) + "\n")


def _event_uses(
    repo: Repo, memory: catalog.Memory, texts: dict[str, str], event: Event
) -> list[tuple[str, str]]:
    if event.text is not None:
        return text_uses(memory, event.text)
    if event.access is not None:
        return [(i, "access-log") for i in access_uses(memory, *event.access)]
    assert event.path is not None
    rel = _tier_rel(repo, event.path, event.cwd)
    if rel is None:
        return []
    if event.edits:
        return [(i, "edit") for i in edit_uses(memory, rel, event.edits)]
    return [(i, "read") for i in read_uses(memory, texts, rel, event)]


def edit_uses(memory: catalog.Memory, rel: str, edits: Sequence[str]) -> list[str]:
    """The sections of ``rel`` that hold a text an edit wrote or replaced."""
    return [
        e.id
        for e in memory.in_file(rel)
        if not (e.is_index or e.is_session) and any(t.strip() in e.text for t in edits)
    ]


def access_uses(memory: catalog.Memory, file: str, title: str) -> list[str]:
    """The section the skill's access log names: its ``##`` title (or a ``###`` in it), in the file the
    log names first, else wherever it is now (sections move); nothing if that is not one section."""
    if not title:
        return []
    rel = _suffix_rel("/" + file.lstrip("/"), memory.places) or file
    candidates = [e for e in memory.entries if not (e.is_index or e.is_session)]
    for match in (lambda e: e.title == title, lambda e: f"\n### {title}\n" in f"\n{e.text}\n"):
        named = [e for e in candidates if match(e)]
        here = [e for e in named if e.file == rel] or named
        if len(here) == 1:
            return [here[0].id]
    return []


def _unique(found: Sequence[Use]) -> list[Use]:
    return list({(u.id, u.where): u for u in found}.values())
