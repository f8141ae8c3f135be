"""``squadmem track``: the sections an agent read or cited, from its session transcripts, as uses.

Three hosts' transcripts are read, one JSON object per line or per row:

- Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``):
  lines of ``type`` ``user`` / ``assistant`` with ``timestamp``, ``cwd`` and
  ``message.content`` blocks: ``text``, ``tool_use`` (``Read`` with
  ``input.file_path``, ``offset``, ``limit``), ``tool_result``;
- OpenAI Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``):
  lines ``{"timestamp", "type", "payload"}``; ``session_meta`` gives the
  ``cwd``; ``response_item`` payloads of type ``message`` (``output_text``
  blocks) and ``function_call`` (``shell`` with an argv ``command``,
  ``shell_command`` / ``exec_command`` with a command string, ``workdir``);
- OpenClaw session events (``transcript_events`` rows of the agent's
  ``openclaw-agent.sqlite``, or the older ``sessions/<id>.jsonl`` lines; see
  :mod:`squadmem.commands.openclaw`): a ``session`` header with the ``cwd``,
  then ``message`` events whose ``message.role`` is ``assistant`` with
  ``content`` blocks ``text`` and ``toolCall`` (``name``, ``arguments``):
  ``memory_get`` (``path``, ``from``, ``lines``), ``read`` (``path``,
  ``offset``, ``limit``), ``edit`` (``path``, ``edits`` of ``oldText`` /
  ``newText``), ``exec`` (``command``, ``workdir``). A ``memory_search`` hit
  counts when the agent follows it: reads it (``memory_get``, ``read``) or
  cites it (``Source: memory/tier2-recent.md#L12-L20`` in its text).

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
transcript read again (or grown since) records only its new lines. A
transcript must be a regular file under :data:`MAX_BYTES`; a longer line than
:data:`MAX_LINE` is skipped, and a line cut short (a host still writing)
is read when it is whole.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
import shlex
import stat
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

from squadmem.commands import openclaw
from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import accesslog, clock, places, render, sections, uses, writes
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import classify

FORMATS = ("auto", "claude", "codex", "openclaw")
MAX_BYTES = 1 << 30  # a transcript over 1 GiB is refused
MAX_LINE = 32 << 20  # a line over 32 MiB is skipped
SQLITE = "openclaw-sqlite"
MARKS_FILE = "tracked-rows.json"  # each store's sessions read to which sequence number
ACCESS = "access-log"
_CITATION = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)#L(\d+)(?:-L(\d+))?")
_OPENCLAW_SHELL = ("exec", "bash")
_EDIT_TEXTS = ("oldText", "newText", "old_string", "new_string")
SEEN_FILE = "tracked-lines"
_ID = re.compile(r"(?<![\w/:.-])((?:wiki:)?[A-Za-z0-9][A-Za-z0-9._-]*/[a-z0-9][a-z0-9-]*)(?![\w/-])")
_CAT_N = re.compile(r"^\s*(\d+)[\t→]", re.MULTILINE)
_SED = re.compile(r"^(\d+)(?:,(\d+|\$))?p$")
_CLAUDE_READ = ("Read",)
_CODEX_SHELL = ("shell", "shell_command", "exec_command", "local_shell", "container.exec")
_READERS = ("cat", "sed", "head", "tail", "nl", "less", "more", "bat")


@dataclasses.dataclass(frozen=True)
class Event:
    """Something a transcript line says the agent did: read lines of a file, or wrote text."""

    line: str  # the raw transcript line (its digest is what is remembered)
    where: str  # "transcript:number"
    when: dt.datetime | None
    path: str | None = None  # read: the file's path as the agent named it
    cwd: str | None = None
    first: int | None = None  # read: first line (1-based; -N: the last N lines), None for the whole file
    last: int | None = None  # read: last line, None to the end
    text: str | None = None  # the agent's output text
    edits: tuple[str, ...] = ()  # edit: the text it replaced and wrote
    access: tuple[str, str] | None = None  # the skill's access log: (file, title) of a section


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


# -- reading transcripts ---------------------------------------------------------------------------


def _time(value: object) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return clock.from_iso(value)
    except ValueError:
        return None


def detect(first: dict[str, Any]) -> str | None:
    message = first.get("message")
    if (first.get("type") == "session" and "version" in first) or (
        first.get("type") == "message" and isinstance(message, dict) and "role" in message
    ):
        return "openclaw"
    if "payload" in first and first.get("type") in (
        "session_meta",
        "response_item",
        "turn_context",
        "event_msg",
    ):
        return "codex"
    if first.get("type") in ("user", "assistant", "system", "summary") or "sessionId" in first:
        return "claude"
    return None


def _open(path: Path) -> IO[bytes]:
    """A transcript opened for reading: a regular file under :data:`MAX_BYTES`, never a wait."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise SquadmemError(f"{path}: cannot read: {exc.strerror}", hint="give a transcript file") from None
    handle = os.fdopen(fd, "rb")
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        handle.close()
        raise SquadmemError(f"{path}: not a regular file", hint="give a transcript file")
    if info.st_size > MAX_BYTES:
        handle.close()
        raise SquadmemError(
            f"{path}: {info.st_size} bytes, over the {MAX_BYTES} a transcript may have",
            hint="give a session transcript file",
        )
    return handle


def _raw_lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """(number, line) for each whole line (ending in a newline) of at most :data:`MAX_LINE` bytes."""
    number, skipping, left = 0, False, MAX_BYTES
    while left > 0:
        raw = handle.readline(min(MAX_LINE + 1, left))
        if not raw or not raw.endswith(b"\n"):
            if len(raw) > MAX_LINE:
                skipping = True
                left -= len(raw)
                continue
            return  # the end, or a last line cut short: read when it is whole
        left -= len(raw)
        number += 1
        if not skipping:
            yield number, raw
        skipping = False


def records(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, raw line, object) for each JSON object line; other lines are skipped."""
    with _open(path) as handle:
        for number, raw in _raw_lines(handle):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(data, dict):
                yield number, line, data


def _blocks(content: object) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def claude_events(path: Path) -> Iterator[Event]:
    for number, line, data in records(path):
        message = data.get("message")
        if data.get("type") != "assistant" or not isinstance(message, dict):
            continue
        where, when, cwd = f"{path.name}:{number}", _time(data.get("timestamp")), data.get("cwd")
        for block in _blocks(message.get("content")):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                yield Event(line, where, when, text=block["text"])
            elif block.get("type") == "tool_use" and block.get("name") in _CLAUDE_READ:
                given = block.get("input")
                args: dict[str, Any] = given if isinstance(given, dict) else {}
                file = args.get("file_path")
                if isinstance(file, str):
                    first, last = _claude_range(args.get("offset"), args.get("limit"))
                    yield Event(line, where, when, file, cwd if isinstance(cwd, str) else None, first, last)


def _claude_range(offset: object, limit: object) -> tuple[int | None, int | None]:
    """Claude's Read: ``offset`` is the first line (1-based), ``limit`` how many; neither: the whole file."""
    start = offset if isinstance(offset, int) and offset > 0 else None
    count = limit if isinstance(limit, int) and limit > 0 else None
    if start is None and count is None:
        return None, None
    first = start or 1
    return first, None if count is None else first + count - 1


def codex_events(path: Path) -> Iterator[Event]:
    cwd: str | None = None
    for number, line, data in records(path):
        payload = data.get("payload")
        if not isinstance(payload, dict):
            continue
        if data.get("type") == "session_meta" and isinstance(payload.get("cwd"), str):
            cwd = payload["cwd"]
            continue
        if data.get("type") != "response_item":
            continue
        where, when = f"{path.name}:{number}", _time(data.get("timestamp"))
        kind = payload.get("type")
        if kind == "message" and payload.get("role") == "assistant":
            for block in _blocks(payload.get("content")):
                if block.get("type") in ("output_text", "text") and isinstance(block.get("text"), str):
                    yield Event(line, where, when, text=block["text"])
        elif kind in ("function_call", "local_shell_call") and (
            payload.get("name") in _CODEX_SHELL or kind == "local_shell_call"
        ):
            args = _arguments(payload)
            workdir = args.get("workdir") or args.get("cwd") or cwd
            for file, first, last in shell_reads(args.get("command") or args.get("cmd")):
                yield Event(
                    line, where, when, file, workdir if isinstance(workdir, str) else cwd, first, last
                )


def _arguments(payload: dict[str, Any]) -> dict[str, Any]:
    raw = payload.get("arguments", payload.get("action"))
    if isinstance(raw, str):
        with contextlib.suppress(ValueError):
            raw = json.loads(raw)
    return raw if isinstance(raw, dict) else {}


def _canonical(data: dict[str, Any]) -> str:
    """An event's JSON with sorted keys: the same event from a session file or from SQLite."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _from_ms(value: object) -> dt.datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return clock.whole(clock.from_epoch(value / 1000))
    except (ValueError, OverflowError, OSError):
        return None


def openclaw_events(items: Iterable[tuple[str, dict[str, Any], int | None]], root: str) -> Iterator[Event]:
    """Events of OpenClaw transcript events ``(where, event, row time in ms)``, one session after another."""
    cwd = root
    for where, data, created in items:
        if data.get("type") == "session":
            cwd = data["cwd"] if isinstance(data.get("cwd"), str) else root
            continue
        message = data.get("message")
        if (
            data.get("type") != "message"
            or not isinstance(message, dict)
            or message.get("role") != "assistant"
        ):
            continue
        line = _canonical(data)
        when = _time(data.get("timestamp")) or _from_ms(message.get("timestamp")) or _from_ms(created)
        for block in _blocks(message.get("content")):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                yield Event(line, where, when, text=block["text"])
                for file, first, last in citations(block["text"]):
                    yield Event(line, where, when, file, cwd, first, last)
            elif block.get("type") == "toolCall" and isinstance(block.get("name"), str):
                args = _arguments({"arguments": block.get("arguments")})
                yield from _tool_events(Event(line, where, when, cwd=cwd), block["name"], args, root)


def citations(text: str) -> list[tuple[str, int, int]]:
    """``path#L5-L8`` (or ``#L5``) in a text: (path, first line, last line)."""
    found = []
    for match in _CITATION.finditer(text):
        first = int(match.group(2))
        found.append((match.group(1), first, int(match.group(3) or first)))
    return found


def _tool_events(base: Event, name: str, args: dict[str, Any], root: str) -> Iterator[Event]:
    path = args.get("path", args.get("file_path"))
    if name == "memory_get" and isinstance(path, str):
        first, last = _memory_get_range(args.get("from"), args.get("lines"))
        yield dataclasses.replace(base, path=path, cwd=root, first=first, last=last)
    elif name == "read" and isinstance(path, str):
        first, last = _claude_range(args.get("offset"), args.get("limit"))
        yield dataclasses.replace(base, path=path, first=first, last=last)
    elif name == "edit" and isinstance(path, str):
        listed = args.get("edits")
        changes: list[Any] = listed if isinstance(listed, list) else [args]
        texts = [c.get(k) for c in changes if isinstance(c, dict) for k in _EDIT_TEXTS]
        kept = tuple(t for t in texts if isinstance(t, str) and len(t.strip()) >= 3)
        if kept:
            yield dataclasses.replace(base, path=path, edits=kept)
    elif name in _OPENCLAW_SHELL:
        workdir = args.get("workdir")
        cwd = workdir if isinstance(workdir, str) and workdir.strip() else base.cwd
        for file, first, last in shell_reads(args.get("command")):
            yield dataclasses.replace(base, path=file, cwd=cwd, first=first, last=last)


def _memory_get_range(start: object, count: object) -> tuple[int | None, int | None]:
    """``memory_get``'s ``from`` (1-based) and ``lines``; neither: the whole file."""
    first = start if isinstance(start, int) and not isinstance(start, bool) and start > 0 else None
    lines = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else None
    if first is None and lines is None:
        return None, None
    return first or 1, None if lines is None else (first or 1) + lines - 1


def _openclaw_file(path: Path) -> Iterator[tuple[str, dict[str, Any], int | None]]:
    for number, _, data in records(path):
        yield f"{path.name}:{number}", data, None


def _openclaw_rows(
    path: Path, tally: _Tally, now: dt.datetime, after: Mapping[str, int]
) -> Iterator[tuple[str, dict[str, Any], int | None]]:
    """The store's events not read before; each session's mark moves over the events read that
    are not after ``now`` (and not left unread), so the next run starts after them."""
    marks = tally.marks.setdefault(_store_key(path), {})
    stopped: set[str] = set()
    for row in openclaw.rows(path, after):
        data = _json(row.text)
        when = None if data is None else _time(data.get("timestamp")) or _from_ms(row.created_ms)
        if row.text is None:
            tally.unread.append(row.where)
        if row.text is None or when is None or when > now:
            stopped.add(row.session)
        elif row.session not in stopped:
            marks[row.session] = row.seq
        if data is not None:
            yield row.where, data, row.created_ms


def _json(text: str | None) -> dict[str, Any] | None:
    try:
        data = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _store_key(path: Path) -> str:
    return str(path.resolve())


def access_events(path: Path) -> Iterator[Event]:
    """A use of each section the memory-tiers skill's access log names, at its last access."""
    records, _ = accesslog.read(path, str(path))
    for record in records:
        line = f"access-log {record.key} {clock.stamp(record.when)}"
        yield Event(line, f"{path.name}:{record.key}", record.when, access=(record.file, record.title))


def shell_reads(command: object) -> list[tuple[str, int | None, int | None]]:
    """The files a shell command prints, with a line range when it names one.

    ``command`` is an argv list (``["bash", "-lc", "sed -n '1,40p' f"]``) or a
    command string; each ``&&``, ``;`` or ``|`` part is looked at on its own.
    """
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if (
            len(command) >= 3
            and command[1] in ("-lc", "-c")
            and Path(command[0]).name in ("bash", "sh", "zsh")
        ):
            return shell_reads(command[2])
        parts: list[list[str]] = [list(command)]
    elif isinstance(command, str):
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:
            return []
        parts = []
        current: list[str] = []
        for word in words:
            if word and set(word) <= set("();<>|&"):
                parts.append(current)
                current = []
            else:
                current.append(word)
        parts.append(current)
    else:
        return []
    found = []
    for part in parts:
        found.extend(_one_read(part))
    return found


def _one_read(argv: list[str]) -> list[tuple[str, int | None, int | None]]:
    if not argv or Path(argv[0]).name not in _READERS:
        return []
    tool, args = Path(argv[0]).name, argv[1:]
    first: int | None = None
    last: int | None = None
    files = []
    index = 0
    while index < len(args):
        word = args[index]
        if tool == "sed" and _SED.match(word):
            match = _SED.match(word)
            assert match is not None
            first = int(match.group(1))
            last = None if match.group(2) in (None, "$") else int(match.group(2))
            last = first if match.group(2) is None else last
        elif tool in ("head", "tail") and word in ("-n", "--lines") and index + 1 < len(args):
            index += 1
            count = args[index].lstrip("+-")
            if count.isdigit():
                first, last = (1, int(count)) if tool == "head" else (-int(count), None)
        elif not word.startswith("-"):
            files.append(word)
        index += 1
    return [(f, first, last) for f in files if f.endswith(".md")]


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
            return _suffix_rel(str(candidate))
        rel = resolved.as_posix()
    else:
        rel = candidate.as_posix()
    return rel if classify(rel) is not None else _suffix_rel(rel)


def _suffix_rel(path: str) -> str | None:
    """A path from another checkout of the same repository: its ``.squad/memory/...`` tail (a
    workspace's ``MEMORY.md`` or ``memory/...``)."""
    for tail in (".squad/memory/", "/memory/", "/MEMORY.md"):
        at = path.rfind(tail) if tail[0] == "/" else path.find(tail)
        if at >= 0 and classify(rel := path[at + (tail[0] == "/") :]) is not None:
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
    tf = classify(rel)
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
    for _, _, data in records(path):
        kind = detect(data)
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
        return claude_events(source.path)
    if source.kind == "codex":
        return codex_events(source.path)
    if source.kind == SQLITE:
        after = marks.get(_store_key(source.path), {})
        return openclaw_events(_openclaw_rows(source.path, tally, now, after), root)
    if source.kind == ACCESS:
        return access_events(source.path)
    return openclaw_events(_openclaw_file(source.path), root)


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
    rel = _suffix_rel("/" + file.lstrip("/")) or file
    candidates = [e for e in memory.entries if not (e.is_index or e.is_session)]
    for match in (lambda e: e.title == title, lambda e: f"\n### {title}\n" in f"\n{e.text}\n"):
        named = [e for e in candidates if match(e)]
        here = [e for e in named if e.file == rel] or named
        if len(here) == 1:
            return [here[0].id]
    return []


def _unique(found: Sequence[Use]) -> list[Use]:
    return list({(u.id, u.where): u for u in found}.values())


def hook_transcript(stdin_text: str) -> Path:
    """The ``transcript_path`` of a Claude Code hook's JSON input."""
    try:
        data = json.loads(stdin_text)
        return Path(str(data["transcript_path"]))
    except (ValueError, KeyError, TypeError):
        raise SquadmemError(
            "--from-hook: standard input is not a hook's JSON with a transcript_path",
            hint="use it as a Claude Code SessionEnd or Stop hook command",
        ) from None
