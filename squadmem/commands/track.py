"""``squadmem track``: the sections an agent read or cited, from its session transcripts, as uses.

Two transcript formats are read, one JSON object per line:

- Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``):
  lines of ``type`` ``user`` / ``assistant`` with ``timestamp``, ``cwd`` and
  ``message.content`` blocks: ``text``, ``tool_use`` (``Read`` with
  ``input.file_path``, ``offset``, ``limit``), ``tool_result``;
- OpenAI Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``):
  lines ``{"timestamp", "type", "payload"}``; ``session_meta`` gives the
  ``cwd``; ``response_item`` payloads of type ``message`` (``output_text``
  blocks) and ``function_call`` (``shell`` with an argv ``command``,
  ``shell_command`` / ``exec_command`` with a command string, ``workdir``).

A use is recorded (as ``squadmem touch`` does, at the line's time) for:

1. a file read of a tier file: the sections its line range covers (Claude's
   ``offset``/``limit``; ``sed -n A,Bp``, ``head``/``tail -n`` in a shell
   command), or every section of the file when it was read whole. A whole
   hot file is never a use: that is the spawn's load;
2. a section id (``picard/auth-tokens``) in the agent's own output text;
3. a section's heading quoted in the agent's output: ``## Title``, or the
   title in quotes, backticks or bold.

The prompt (user and developer messages, where the spawn's hot load lives)
is never read. Each transcript line that gave uses is remembered by its
digest in ``.git/squadmem/tracked-lines``, so a transcript read again (or
grown since) records only its new lines.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import clock, render, sections, uses, writes
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify

FORMATS = ("auto", "claude", "codex")
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcripts": [{"file": f, "format": k} for f, k in self.transcripts],
            "uses": [u.as_dict() for u in self.uses],
            "lines_read": self.lines_read,
            "lines_seen_before": self.lines_seen_before,
            "recorded": list(self.recorded),
        }

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


def records(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, raw line, object) for each JSON object line; other lines are skipped."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise SquadmemError(f"{path}: cannot read: {exc.strerror}", hint="give a transcript file") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
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
    """The entry's first and last line (1-based) in its file's text."""
    start = text.find(entry.text)
    if start < 0:
        return None
    first = text.count("\n", 0, start) + 1
    return first, first + len(sections.lines(entry.text)) - 1


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
    if wanted != "auto":
        return wanted
    for _, _, data in records(path):
        kind = detect(data)
        if kind is not None:
            return kind
    raise SquadmemError(
        f"{path}: not a Claude Code or Codex CLI transcript",
        hint="give --format claude|codex, or check the file",
    )


def track(
    repo: Repo,
    files: Sequence[Path],
    now: dt.datetime,
    *,
    fmt: str = "auto",
    dry_run: bool = False,
) -> Result:
    """Record a use of each section the transcripts show an agent read or cited."""
    if fmt not in FORMATS:
        raise SquadmemError(f"--format {fmt}: unknown", hint=f"one of {', '.join(FORMATS)}")
    if not files:
        raise SquadmemError("no transcript given", hint="squadmem track SESSION.jsonl [...]")
    memory = catalog.load(repo.layout)
    texts = {tf.rel: repo.layout.read_tier(tf) for tf in repo.layout.tier_files()}
    seen = _seen(repo)
    found: list[Use] = []
    fresh: list[str] = []
    kinds = []
    count = before = 0
    for path in files:
        kind = _format_of(path, fmt)
        kinds.append((str(path), kind))
        events = claude_events(path) if kind == "claude" else codex_events(path)
        done_lines: set[str] = set()
        for event in events:
            digest = _digest(event.line)
            if digest in seen:
                if digest not in done_lines:
                    before += 1
                    done_lines.add(digest)
                continue
            if digest not in done_lines:
                count += 1
                done_lines.add(digest)
            when = min(event.when or now, now)
            for ident, how in _event_uses(repo, memory, texts, event):
                found.append(Use(ident, when, how, event.where))
                fresh.append(digest)
    recorded = tuple(sorted({u.id for u in found}))
    if not dry_run:
        latest: dict[str, dt.datetime] = {}
        for use in found:
            latest[use.id] = max(latest.get(use.id, use.when), use.when)
        for when in sorted(set(latest.values())):
            uses.record(repo.state_dir, [i for i, w in latest.items() if w == when], when)
        _remember(repo, fresh)
    return Result(tuple(kinds), tuple(_unique(found)), count, before, () if dry_run else recorded)


def _event_uses(
    repo: Repo, memory: catalog.Memory, texts: dict[str, str], event: Event
) -> list[tuple[str, str]]:
    if event.text is not None:
        return text_uses(memory, event.text)
    assert event.path is not None
    rel = _tier_rel(repo, event.path, event.cwd)
    if rel is None:
        return []
    return [(i, "read") for i in read_uses(memory, texts, rel, event)]


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
