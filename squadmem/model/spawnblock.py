"""squadmem's blocks in the files Squad's spawn reads: found by what the lines say, put back byte for byte.

Squad's coordinator builds each spawn prompt from ``.squad/templates/spawn-reference.md``,
whose template tells every agent to read its whole ``history.md`` and the whole
``decisions.md``. squadmem replaces those lines, and the lines that repeat them
(``.github/agents/squad.agent.md``, the charter template and every agent's
``charter.md``, the agent-collaboration skill), with a marked block::

    <!-- squadmem:history -->
    MEMORY: run `squadmem context --agent {name} --task "..."` ...
    <!-- /squadmem:history -->

Each edit finds its line by what it says (a pattern), never by line number, so
a Squad version that moves the line still gets its block; one whose spawn
template no longer says it is refused with the file named. The line a block
replaced is kept (:class:`Record`), so :func:`restore` gives back Squad's text
byte for byte. Pure: text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from squadmem.model import jsontext
from squadmem.model.constants import CHARTERS, SPAWN_FILES, SPAWN_RECORD
from squadmem.model.places import is_spawn_file
from squadmem.model.values import Value

FILES = SPAWN_FILES
(
    SPAWN_TEMPLATE,
    COORDINATOR,
    TIERED_SKILL,
    CHARTER_TEMPLATE,
    COLLABORATION_SKILL,
    COPILOT_COLLABORATION_SKILL,
) = SPAWN_FILES
RECORD = SPAWN_RECORD

_BEGIN = re.compile(r"^(?P<indent>[ \t]*)<!-- squadmem:(?P<key>[a-z0-9-]+)(?: [^\r\n]*)? -->(?:\r?\n)?$")
_END = re.compile(r"^[ \t]*<!-- /squadmem:(?P<key>[a-z0-9-]+) -->(?:\r?\n)?$")

# What a spawn is told, each block at most 400 bytes for an agent name of 24 characters.
MEMORY_LINES = (
    'MEMORY: run `squadmem context --agent {name} --task "<your task, in one line>"`, not your whole'
    " history.md (without squadmem: `.squad/memory/hot/{name}.md`). Index: `--include <id>`;"
    ' more: `squadmem recall --agent {name} --beyond-spawn "<task>"`; `squadmem touch <id>` if useful',
)
DECISION_LINES = (
    'Team decisions: your task\'s are in the MEMORY output; `squadmem recall --agent {name} "<words>"`'
    " finds others. Do not read `.squad/decisions.md` whole.",
)
CHARTER_DECISIONS = (
    "Before starting work, I take the team decisions that affect me from `squadmem context` (my spawn's"
    ' MEMORY line); `squadmem recall "<words>"` finds others. I do not read `.squad/decisions.md` whole.',
)


class Edit(Value):
    """One of Squad's lines squadmem answers for: where, how it is found, and what replaces it."""

    __slots__ = ("files", "key", "pattern", "required", "rewrite")

    def __init__(
        self,
        key: str,
        files: tuple[str, ...],  # repository paths, or CHARTERS: every agent's charter
        pattern: re.Pattern[str],
        required: bool,
        rewrite: Callable[[str], tuple[str, ...]],  # Squad's line (no newline) -> the block's lines
    ) -> None:
        self.key = key
        self.files = files
        self.pattern = pattern
        self.required = required
        self.rewrite = rewrite

    def applies(self, rel: str) -> bool:
        return rel in self.files or (CHARTERS in self.files and rel not in SPAWN_FILES and is_spawn_file(rel))


def _lines(*lines: str) -> Callable[[str], tuple[str, ...]]:
    def rewrite(line: str) -> tuple[str, ...]:
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        return tuple(indent + text for text in lines)

    return rewrite


def _sentence(old: str, new: str) -> Callable[[str], tuple[str, ...]]:
    return lambda line: (line.replace(old, new),)


def _after(*lines: str) -> Callable[[str], tuple[str, ...]]:
    return lambda line: (line, *lines)


STILL_READS = "The agent still reads its own `history.md` and `decisions.md`."
ALREADY_READ = (
    "The coordinator's spawn prompt already instructs agents to read decisions.md and their history.md."
)
CHARTER_FILES = (CHARTER_TEMPLATE, CHARTERS)
COLLABORATION_SKILLS = (COLLABORATION_SKILL, COPILOT_COLLABORATION_SKILL)
EDITS = (
    Edit(
        "history",
        (SPAWN_TEMPLATE,),
        re.compile(r"^\s*Read `[^`]*agents/\{name\}/history\.md`"),
        True,
        _lines(*MEMORY_LINES),
    ),
    Edit(
        "decisions",
        (SPAWN_TEMPLATE,),
        re.compile(r"^\s*Read `[^`]*decisions\.md`"),
        True,
        _lines(*DECISION_LINES),
    ),
    Edit(
        "inline",
        (SPAWN_TEMPLATE,),
        re.compile(re.escape(STILL_READS)),
        False,
        _sentence(
            STILL_READS,
            "The agent reads its memory with `squadmem context` (the MEMORY line of the template below),"
            " not its whole `history.md` and `decisions.md`.",
        ),
    ),
    Edit(
        "template",
        (COORDINATOR,),
        re.compile(r"^\*\*Full Spawn Template\*\* \(inline charter/history/decisions"),
        False,
        _sentence(
            "(inline charter/history/decisions as needed)",
            "(inline the charter; the agent's memory comes from `squadmem context`, the MEMORY line of"
            " `.squad/templates/spawn-reference.md`, never the whole history or decisions)",
        ),
    ),
    Edit(
        "at-spawn",
        (COORDINATOR,),
        re.compile(r"^\s*- All agents READ from `\.squad/decisions\.md` at spawn time"),
        False,
        _lines(
            "- All agents get the decisions their task touches from `squadmem context` at spawn time"
            " (squadmem takes each merged decision into its wiki); `squadmem recall` finds the rest",
        ),
    ),
    Edit(
        "status",
        (TIERED_SKILL,),
        re.compile(r"^> \*\*Status \(v[^)]*\):\*\*"),
        False,
        _after(
            "",
            "> **In this repository** squadmem runs these tiers: every spawn reads `squadmem context --agent"
            ' {name} --task "..."` (Core Context, the task\'s matches, hot, an Index of what waits deeper)'
            " instead of the whole `history.md` and `decisions.md`:"
            " see `.squad/templates/spawn-reference.md`.",
        ),
    ),
    Edit(
        "charter-decisions",
        CHARTER_FILES,
        re.compile(r"^\s*Before starting work, read `\.squad/decisions\.md`"),
        False,
        _lines(*CHARTER_DECISIONS),
    ),
    Edit(
        "charter-read",
        CHARTER_FILES,
        re.compile(r"^\s*- Read decisions\.md before starting\s*$"),
        False,
        _lines(
            "- Take the team decisions my task touches from `squadmem context`, not the whole decisions.md"
        ),
    ),
    Edit(
        "collaboration-spawn",
        COLLABORATION_SKILLS,
        re.compile(re.escape(ALREADY_READ)),
        False,
        _sentence(
            ALREADY_READ,
            "The coordinator's spawn prompt has each agent run `squadmem context` for its memory and the"
            " decisions its task touches, not read the whole decisions.md and history.md.",
        ),
    ),
    Edit(
        "collaboration-context",
        COLLABORATION_SKILLS,
        re.compile(r"^- Don't read all agent charters — you only need your own context \+ decisions\.md"),
        False,
        _sentence("your own context + decisions.md", "your own context + what `squadmem context` prints"),
    ),
)


class Block(Value):
    __slots__ = ("end", "key", "start")

    def __init__(self, key: str, start: int, end: int) -> None:
        self.key = key
        self.start = start  # index of the begin marker line
        self.end = end  # index of the end marker line


def _split(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _eol(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def blocks(text: str) -> list[Block]:
    """squadmem's marked blocks in a file, in order; an unclosed or unknown one raises ValueError."""
    found: list[Block] = []
    lines = _split(text)
    open_at: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        begin, end = _BEGIN.match(line), _END.match(line)
        if begin and open_at is None:
            open_at = (begin["key"], i)
        elif end and open_at is not None and end["key"] == open_at[0]:
            found.append(Block(open_at[0], open_at[1], i))
            open_at = None
    if open_at is not None:
        raise ValueError(f"squadmem:{open_at[0]} opened on line {open_at[1] + 1} is never closed")
    return found


def _marked(edit: Edit, key: str, line: str) -> list[str]:
    """The block that stands for Squad's ``line``: begin marker, squadmem's lines, end marker."""
    body, last = line.rstrip("\r\n"), _eol(line)
    eol = last or "\n"
    indent = body[: len(body) - len(body.lstrip(" \t"))]
    inner = [text + eol for text in edit.rewrite(body)]
    return [f"{indent}<!-- squadmem:{key} -->{eol}", *inner, f"{indent}<!-- /squadmem:{key} -->{last}"]


def _base(key: str) -> str:
    return re.sub(r"-\d+$", "", key)


class Applied(Value):
    __slots__ = ("missing", "originals", "text")

    def __init__(self, text: str, originals: dict[str, str], missing: list[str]) -> None:
        self.text = text
        self.originals = originals  # block key -> Squad's line it replaced (with its line ending)
        self.missing = missing  # keys of required edits whose line this file does not have


def apply(rel: str, text: str) -> Applied:
    """``text`` with each edit of ``rel`` made where its line stands and no block does yet."""
    lines = _split(text)
    standing = blocks(text)
    inside = {i for b in standing for i in range(b.start, b.end + 1)}
    taken = {b.key for b in standing}
    out: list[str] = []
    originals: dict[str, str] = {}
    for i, line in enumerate(lines):
        edit = None if i in inside else _edit_for(rel, line)
        if edit is None:
            out.append(line)
            continue
        key, n = edit.key, 1
        while key in taken:
            n += 1
            key = f"{edit.key}-{n}"
        taken.add(key)
        originals[key] = line
        out += _marked(edit, key, line)
    done = {_base(k) for k in taken}
    missing = [e.key for e in EDITS if e.applies(rel) and e.required and e.key not in done]
    return Applied("".join(out), originals, missing)


def reword(rel: str, text: str, originals: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with each block written again whose lines are not what squadmem writes today for the
    Squad line it recorded (``originals``: key -> line), and the keys of those blocks. A squadmem
    upgrade that changes a block's wording reaches the files a team installed before; a block with
    no recorded line is left as it is."""
    lines = _split(text)
    out: list[str] = []
    at = 0
    reworded: list[str] = []
    for block in blocks(text):
        original = originals.get(block.key)
        edit = None if original is None else _edit_for(rel, original)
        if original is None or edit is None:
            continue
        fresh = _marked(edit, block.key, original)
        if lines[block.start : block.end + 1] != fresh:
            out += lines[at : block.start] + fresh
            at = block.end + 1
            reworded.append(block.key)
    out += lines[at:]
    return "".join(out), reworded


def _edit_for(rel: str, line: str) -> Edit | None:
    return next((e for e in EDITS if e.applies(rel) and e.pattern.search(line)), None)


def restore(text: str, originals: Mapping[str, str]) -> str:
    """``text`` with each block replaced by the line it replaced; a block with no record raises KeyError."""
    lines = _split(text)
    out: list[str] = []
    at = 0
    for block in blocks(text):
        out += lines[at : block.start]
        out.append(originals[block.key])
        at = block.end + 1
    out += lines[at:]
    return "".join(out)


def keys(text: str) -> list[str]:
    return [b.key for b in blocks(text)]


# -- the record: Squad's lines, kept so that `spawn off` gives them back ---------------------------


class Record(Value):
    __slots__ = ("on", "originals")

    def __init__(self, on: bool = False, originals: dict[str, dict[str, str]] | None = None) -> None:
        self.on = on
        self.originals = {} if originals is None else originals  # file -> key -> line

    def to_text(self) -> str:
        import json  # only writing a record needs it: the pre-commit hook reads records

        data = {"version": 1, "on": self.on, "originals": self.originals}
        return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"

    @classmethod
    def parse(cls, text: str) -> Record:
        data = jsontext.loads(text)
        if not isinstance(data, dict) or data.get("version") != 1:
            raise ValueError("not a version 1 record")
        originals = data.get("originals", {})
        if not isinstance(originals, dict) or not all(
            isinstance(v, dict) and all(isinstance(x, str) for x in v.values()) for v in originals.values()
        ):
            raise ValueError('"originals" is not a map of files to lines')
        return cls(bool(data.get("on")), {str(k): dict(v) for k, v in originals.items()})


class Planned(Value):
    """What ``spawn on`` writes: each file's new text (the record's under :data:`RECORD`), the blocks
    made and reworded per file, and the required lines a file does not have."""

    __slots__ = ("files", "made", "missing", "reworded")

    def __init__(
        self,
        files: dict[str, str],
        made: dict[str, list[str]],
        reworded: dict[str, list[str]],
        missing: dict[str, list[str]],
    ) -> None:
        self.files = files
        self.made = made
        self.reworded = reworded
        self.missing = missing


def plan(
    texts: Mapping[str, str], record: Record, record_text: str | None, *, reword_old: bool = True
) -> Planned:
    """Every block Squad's files (``texts``: path -> text) have a line for, the blocks in older
    wording written again (``reword_old``), and the record of the lines replaced, turned on (pure)."""
    files: dict[str, str] = {}
    made: dict[str, list[str]] = {}
    reworded: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    for rel, text in texts.items():
        applied = apply(rel, text)
        if applied.missing:
            missing[rel] = applied.missing
        if applied.originals:
            made[rel] = sorted(applied.originals)
            record.originals.setdefault(rel, {}).update(applied.originals)
        fresh = applied.text
        if reword_old:
            fresh, keys = reword(rel, fresh, record.originals.get(rel, {}))
            if keys:
                reworded[rel] = keys
        if fresh != text:
            files[rel] = fresh
    if files or not record.on:
        record.on = True
        if record_text != record.to_text():  # a rewording alone leaves it as it is
            files[RECORD] = record.to_text()
    return Planned(files, made, reworded, missing)
