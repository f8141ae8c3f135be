"""What a session transcript says an agent did: the files it read or edited, the text it wrote.

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
  :mod:`squadmem.engine.hosts.openclaw`): a ``session`` header with the ``cwd``,
  then ``message`` events whose ``message.role`` is ``assistant`` with
  ``content`` blocks ``text`` and ``toolCall`` (``name``, ``arguments``):
  ``memory_get`` (``path``, ``from``, ``lines``), ``read`` (``path``,
  ``offset``, ``limit``), ``edit`` (``path``, ``edits`` of ``oldText`` /
  ``newText``), ``exec`` (``command``, ``workdir``). A ``memory_search`` hit
  counts when the agent follows it: reads it (``memory_get``, ``read``) or
  cites it (``Source: memory/tier2-recent.md#L12-L20`` in its text);
- the memory-tiers skill's ``state/access-log.json``
  (:mod:`squadmem.model.accesslog`): each section record is an event at its
  ``lastAccessed``.

Only the assistant's own actions and words are events: the prompt (user and
developer messages, where a spawn's hot load lives) and tool output are not.
A transcript must be a regular file under :data:`MAX_BYTES` (never a FIFO
or a device, so nothing waits or grows without end); a longer line than
:data:`MAX_LINE` is skipped, and a last line cut short (a host still
writing) is read once it is whole.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import re
import shlex
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from squadmem.engine.hosts import openclaw
from squadmem.model import accesslog, clock
from squadmem.model.errors import SquadmemError

MAX_BYTES = 1 << 30  # a transcript over 1 GiB is refused
MAX_LINE = 32 << 20  # a line over 32 MiB is skipped
_CITATION = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md)#L(\d+)(?:-L(\d+))?")
_OPENCLAW_SHELL = ("exec", "bash")
_EDIT_TEXTS = ("oldText", "newText", "old_string", "new_string")
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


def openclaw_file(path: Path) -> Iterator[tuple[str, dict[str, Any], int | None]]:
    for number, _, data in records(path):
        yield f"{path.name}:{number}", data, None


def openclaw_rows(
    path: Path, now: dt.datetime, after: Mapping[str, int], marks: dict[str, int], unread: list[str]
) -> Iterator[tuple[str, dict[str, Any], int | None]]:
    """The store's events after each session's mark in ``after``; ``marks`` gets each session's new
    mark, moved over the events read that are not after ``now`` (compressed events that could not
    be inflated go to ``unread``, and stop their session's mark), so the next run starts there."""
    stopped: set[str] = set()
    for row in openclaw.rows(path, after):
        data = _json(row.text)
        when = None if data is None else _time(data.get("timestamp")) or _from_ms(row.created_ms)
        if row.text is None:
            unread.append(row.where)
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


def store_key(path: Path) -> str:
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
