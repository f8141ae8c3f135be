"""Where OpenClaw keeps an agent's session transcripts, and their events read without disturbing it.

OpenClaw (2026.9) keeps each agent's sessions and transcripts in SQLite,
``<agentDir>/openclaw-agent.sqlite``, table ``transcript_events``: one row
per event (``session_id``, ``seq``, ``created_at`` in milliseconds), the
event's original JSON in ``event_json``, or, for an event of 1 KiB or more,
a level-1 Zstd frame in ``event_zstd`` with its size in
``event_utf8_bytes``. Older versions wrote one JSONL file per session,
``~/.openclaw/agents/<id>/sessions/<session>.jsonl``, the same events one a
line; ``openclaw doctor --session-sqlite import`` moves them into SQLite.

Where things are: the state folder is ``OPENCLAW_STATE_DIR``, else
``~/.openclaw`` (``~/.openclaw-<profile>`` with ``OPENCLAW_PROFILE``; the
home is ``OPENCLAW_HOME`` before ``HOME``); the config is
``OPENCLAW_CONFIG_PATH``, else ``openclaw.json`` there (JSON5). The config's
``agents.entries.<id>`` (``agents.list`` in older versions) names each
agent's ``workspace`` and ``agentDir``; ``agents.defaults.workspace`` the
default. The agent whose workspace is this repository is the one read, else
the workspace's own agent (``agent`` in ``memory/tiers.toml``).

SQLite is opened read-only (``mode=ro``) with a short busy timeout, so a
running host is never written to or waited on for long. Compressed rows
are inflated with the system's libzstd through ctypes where it is
installed; without it they are counted and skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from squadmem.model import openclaw as config
from squadmem.model.errors import SquadmemError

if TYPE_CHECKING:
    import sqlite3  # imported where a store is read: maintain and report pay for it only then

STORE = "openclaw-agent.sqlite"
MAGIC = b"SQLite format 3\x00"
MAX_EVENT = 16 * 1024 * 1024
BUSY_SECONDS = 1.0


@dataclasses.dataclass(frozen=True)
class Store:
    """One agent's transcripts: its SQLite store and its legacy JSONL folder (either may be absent)."""

    agent: str
    sqlite: Path
    sessions: Path
    warnings: tuple[str, ...] = ()

    def transcripts(self) -> list[Path]:
        """The store if it exists, then the legacy session files, oldest name first."""
        found = [self.sqlite] if self.sqlite.is_file() else []
        if self.sessions.is_dir():
            found.extend(sorted(p for p in self.sessions.glob("*.jsonl") if p.is_file()))
        return found


@dataclasses.dataclass(frozen=True)
class Row:
    """One transcript event as SQLite holds it: where it is, its JSON text (None: not readable)."""

    where: str
    text: str | None
    created_ms: int | None
    session: str = ""
    seq: int = 0


# -- where things are -----------------------------------------------------------------------------


def _same(path: object, root: Path, env: Mapping[str, str]) -> bool:
    if not isinstance(path, str) or not path.strip():
        return False
    try:
        return Path(config.expand(path, env)).resolve() == root.resolve()
    except (OSError, RuntimeError):
        return False


def _workspace_agent(settings: Mapping[str, Any], root: Path, env: Mapping[str, str]) -> str | None:
    """The agent whose workspace is ``root`` (its own setting, or the default one)."""
    known = config.agents(settings)
    for ident, entry in known.items():
        if _same(entry.get("workspace"), root, env):
            return ident
    section = settings.get("agents")
    defaults = section.get("defaults") if isinstance(section, dict) else None
    if isinstance(defaults, dict) and _same(defaults.get("workspace"), root, env):
        return next((i for i, e in known.items() if not e.get("workspace")), None)
    return None


def _settings(env: Mapping[str, str], warnings: list[str]) -> Mapping[str, Any]:
    path = config.config_path(env)
    try:
        return config.read_config(path) if path else {}
    except SquadmemError as problem:
        warnings.append(f"{problem.message}; reading the default places")
        return {}


def locate(root: Path, agent: str, env: Mapping[str, str]) -> Store:
    """The store of the agent working in ``root``: a broken config is a warning, and the defaults hold."""
    state = Path(config.state_dir(env))
    warnings: list[str] = []
    settings = _settings(env, warnings)
    ident = _workspace_agent(settings, root, env) or agent
    agent_dir = config.agents(settings).get(ident, {}).get("agentDir")
    folder = (
        Path(config.expand(agent_dir, env))
        if isinstance(agent_dir, str) and agent_dir.strip()
        else state / "agents" / ident / "agent"
    )
    return Store(ident, folder / STORE, state / "agents" / ident / "sessions", tuple(warnings))


# -- reading the SQLite store ---------------------------------------------------------------------


def is_sqlite(path: Path) -> bool:
    """Whether a regular file starts with SQLite's header (anything else: False, never a wait)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, len(MAGIC)) == MAGIC
    finally:
        os.close(fd)


@functools.cache
def _zstd() -> Any:
    """The system's libzstd through ctypes (imported here: only a compressed row needs it), or None."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("zstd") or "libzstd.so.1"
    try:
        lib = ctypes.CDLL(name)
        lib.ZSTD_decompress.restype = ctypes.c_size_t
        lib.ZSTD_decompress.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t)
        lib.ZSTD_isError.restype = ctypes.c_uint
        lib.ZSTD_isError.argtypes = (ctypes.c_size_t,)
    except (OSError, AttributeError):
        return None
    return lib


def inflate(frame: bytes, size: int) -> bytes | None:
    """A Zstd frame's ``size`` bytes, or None (no libzstd, a bad frame, another size)."""
    lib = _zstd()
    if lib is None or not 0 < size <= MAX_EVENT:
        return None
    import ctypes

    out = ctypes.create_string_buffer(size)
    made = lib.ZSTD_decompress(out, size, frame, len(frame))
    return None if lib.ZSTD_isError(made) or made != size else out.raw[:size]


def _connect(path: Path) -> sqlite3.Connection:
    import sqlite3

    uri = f"{path.resolve().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, check_same_thread=False)


def _refused(path: Path, exc: sqlite3.Error) -> SquadmemError:
    return SquadmemError(
        f"{path}: cannot read OpenClaw's session store: {exc}",
        hint="is it openclaw-agent.sqlite? a store locked by a writer can be read again later",
    )


def rows(path: Path, after: Mapping[str, int] | None = None) -> Iterator[Row]:
    """The events of ``transcript_events`` that may be a session header or an assistant's message,
    session by session in order, each session's from after its ``after`` sequence number (read
    before); a one-line error if the store cannot be read."""
    if not is_sqlite(path):
        raise SquadmemError(f"{path}: not a SQLite file", hint="give OpenClaw's openclaw-agent.sqlite")
    import sqlite3

    try:
        connection = _connect(path)
    except sqlite3.Error as exc:
        raise _refused(path, exc) from None
    try:
        yield from _select(connection, path, after or {})
    except sqlite3.Error as exc:
        raise _refused(path, exc) from None
    finally:
        connection.close()


def _select(connection: sqlite3.Connection, path: Path, after: Mapping[str, int]) -> Iterator[Row]:
    columns = {r[1] for r in connection.execute("PRAGMA table_info(transcript_events)")}
    if not {"session_id", "seq", "event_json"} <= columns:
        raise SquadmemError(
            f"{path}: no transcript_events table",
            hint="give OpenClaw's openclaw-agent.sqlite (2026.9 or later)",
        )
    wanted = ["seq", "created_at", "event_json", "event_zstd", "event_utf8_bytes"]
    chosen = ", ".join(c if c in columns else "NULL" for c in wanted)
    # Only a session header or an assistant's message can give a use: the rest (the prompt, tool
    # output, most of the bytes) is left in SQLite; a compressed row is inflated to be judged.
    wanted_rows = (
        "event_json IS NULL OR instr(event_json, '\"assistant\"') OR instr(event_json, '\"session\"')"
    )
    query = (
        f"SELECT {chosen} FROM transcript_events"
        f" WHERE session_id = ? AND seq > ? AND ({wanted_rows}) ORDER BY seq"
    )
    sessions = [r[0] for r in connection.execute("SELECT DISTINCT session_id FROM transcript_events")]
    for session in sorted(str(s) for s in sessions):
        for seq, created, text, frame, size in connection.execute(query, (session, after.get(session, -1))):
            created_ms = created if isinstance(created, int) else None
            yield Row(f"{path.name}:{session}:{seq}", _text(text, frame, size), created_ms, session, seq)


def _text(text: object, frame: object, size: object) -> str | None:
    if isinstance(text, str):
        return text if len(text) <= MAX_EVENT else None
    if isinstance(frame, bytes) and isinstance(size, int):
        raw = inflate(frame, size)
        try:
            return None if raw is None else raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None
