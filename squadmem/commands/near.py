"""``squadmem near --from-hook``: memory that arrives when the agent touches the thing.

An opt-in Claude Code ``PostToolUse`` hook. When an agent reads or edits a
file, or names an issue in a shell command, the entries of its memory (its
cold and archive, and the wiki) that name that file or issue are added to
the conversation, through the hook's ``additionalContext``:

- what the tool touched: ``tool_input``'s ``file_path`` / ``notebook_path`` /
  ``path`` (each by its file name: ``src/auth/token.py`` is looked up as
  ``token.py``, as entries usually name it), and in a ``Bash`` command its
  ``#123`` issue numbers and the file names of its paths; memory's own files
  (``.squad/``) are not looked up;
- each looked up as ``recall`` looks (the search index, BM25), best first;
  hot is left out (the spawn carried it), and so is an entry this session
  was given already (the hook remembers the ids by ``session_id``, in
  ``.git/squadmem/near/``, for a week);
- whole entries while they fit in ``--max-bytes`` (1,024 by default) per
  event; the matches that do not fit are named, a line each, while room is
  left.

What it adds is a candidate, not a use: nothing is recorded. When there is
nothing to add it prints nothing; it never fails the agent's tool call (a
problem is one line on standard error and exit 0).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from squadmem.engine.search import index as search_index
from squadmem.gitio.repo import Repo
from squadmem.model import jsontext
from squadmem.model.errors import SquadmemError
from squadmem.model.render import named
from squadmem.model.values import Value

TYPE_CHECKING = False  # typing is not imported at run time: near runs at every tool call
if TYPE_CHECKING:
    from typing import Any

MAX_BYTES = 1024
PER_THING = 5  # matches looked at for each thing touched
KEEP_DAYS = 7
_ISSUE = re.compile(r"(?<![\w#])#\d+\b")
_PATH = re.compile(r"(?<![\w.-])(?:[\w.-]+/)*[\w-]+\.[A-Za-z][\w]{0,9}\b")
PATH_KEYS = ("file_path", "notebook_path", "path")


class Event(Value):
    __slots__ = ("session", "tool", "touched")

    def __init__(self, session: str, tool: str, touched: tuple[str, ...]) -> None:
        self.session = session
        self.tool = tool
        self.touched = touched  # what to look up: file names and issue numbers


def _file_name(path: str) -> str | None:
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or ".squad" in parts or ".git" in parts:
        return None
    return parts[-1]


def parse(stdin_text: str) -> Event:
    """What a PostToolUse hook's JSON says the tool touched."""
    try:
        data = jsontext.loads(stdin_text)
        tool_input = data.get("tool_input") or {}
        assert isinstance(tool_input, dict)
    except (ValueError, AttributeError, AssertionError):
        raise SquadmemError(
            "--from-hook: standard input is not a Claude Code hook's JSON",
            hint="use it as a PostToolUse hook command (see squadmem near --help)",
        ) from None
    found: list[str] = []
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and (name := _file_name(value)):
            found.append(name)
    command = tool_input.get("command")
    if isinstance(command, str):
        found += _ISSUE.findall(command)
        found += [n for p in _PATH.findall(command) if (n := _file_name(p)) and "." in n.strip(".")]
    return Event(
        str(data.get("session_id") or ""), str(data.get("tool_name") or ""), tuple(dict.fromkeys(found))
    )


def _given_path(repo: Repo, session: str) -> Path:
    digest = hashlib.blake2b(session.encode("utf-8"), digest_size=10).hexdigest()
    return repo.state_dir / "near" / f"{digest}.txt"


def _given(repo: Repo, session: str) -> set[str]:
    if not session:
        return set()
    path = _given_path(repo, session)
    try:
        return set(path.read_text("utf-8").split())
    except OSError:
        return set()


def _remember(repo: Repo, session: str, ids: Sequence[str]) -> None:
    if not session or not ids:
        return
    path = _given_path(repo, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(f"{i}\n" for i in ids))
    cutoff = time.time() - KEEP_DAYS * 86400
    for old in path.parent.iterdir():
        if old.stat().st_mtime < cutoff:
            old.unlink(missing_ok=True)


def _header(touched: Sequence[str]) -> str:
    return f"Memory naming {', '.join(touched)} (squadmem; a candidate: `squadmem touch ID` if it helps):\n"


ALSO = "\nAlso naming it (`squadmem context --agent A --include ID`):\n"


def _whole(hit: search_index.Found) -> str:
    return f"\n<!-- {hit.id} ({hit.tier}) -->\n{hit.text.rstrip()}\n"


def _line(hit: search_index.Found) -> str:
    return named(hit.id, hit.tier, hit.title) + "\n"


class Near(Value):
    __slots__ = ("entries", "named", "touched")

    def __init__(
        self, touched: tuple[str, ...], entries: list[search_index.Found], named: list[search_index.Found]
    ) -> None:
        self.touched = touched
        self.entries = entries
        self.named = named

    @property
    def text(self) -> str:
        if not self.entries and not self.named:
            return ""
        out = [_header(self.touched), *map(_whole, self.entries)]
        if self.named:
            out += [ALSO, *map(_line, self.named)]
        return "".join(out)

    def as_hook_output(self) -> str:
        if not self.text:
            return ""
        output = {"hookEventName": "PostToolUse", "additionalContext": self.text}
        return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "touched": list(self.touched),
            "entries": [e.id for e in self.entries],
            "named": [e.id for e in self.named],
            "bytes": len(self.text.encode("utf-8")),
            "text": self.text,
        }


def _matches(
    index: search_index.SearchIndex, event: Event, agent: str | None, skip: set[str]
) -> list[search_index.Found]:
    found: dict[str, search_index.Found] = {}
    for thing in event.touched:
        hits, _ = index.search([thing], agent, None, PER_THING + len(skip))
        for hit in hits:
            own_hot = hit.tier == "hot" and (agent is None or hit.name == agent)
            if hit.id not in skip and hit.id not in found and not own_hot:
                found[hit.id] = hit
    return list(found.values())


def near(repo: Repo, event: Event, agent: str | None = None, max_bytes: int = MAX_BYTES) -> Near:
    """The entries naming what ``event`` touched, within ``max_bytes``, none given twice in a session."""
    result = Near(event.touched, [], [])
    if not event.touched:
        return result
    given = _given(repo, event.session)
    with search_index.opened(repo.work_state_dir) as index:
        index.refresh(repo.layout)
        if agent is not None and agent not in index.agents():
            raise SquadmemError(f"agent {agent}: no tier file belongs to this agent", hint="check --agent")
        candidates = _matches(index, event, agent, given)
    left = max_bytes - len(_header(event.touched).encode("utf-8"))
    for hit in candidates:
        cost = len(_whole(hit).encode("utf-8"))
        if cost <= left:
            result.entries.append(hit)
            left -= cost
    left -= len(ALSO.encode("utf-8"))
    for hit in candidates:
        cost = len(_line(hit).encode("utf-8"))
        if hit not in result.entries and cost <= left:
            result.named.append(hit)
            left -= cost
    _remember(repo, event.session, [e.id for e in (*result.entries, *result.named)])
    return result


def manual(things: Sequence[str]) -> Event:
    """An event for ``squadmem near THING...`` typed by hand: file names of paths, issues as given."""
    found = [(_file_name(t) or t) if "/" in t else t for t in things]
    return Event("", "", tuple(dict.fromkeys(f for f in found if f.strip())))


def agent_from_env() -> str | None:
    return os.environ.get("SQUADMEM_AGENT") or None
