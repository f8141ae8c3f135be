"""OpenClaw's configuration, as far as squadmem reads it: where its state and config are, the
user's time zone (the host's day), the agents and their workspaces.

OpenClaw dates its daily logs (the pre-compaction flush's ``memory/YYYY-MM-DD.md``) and its
session files (``memory/YYYY-MM-DD-HHMM.md``) in ``agents.defaults.userTimezone``; ``init``
writes that zone into a workspace's ``tiers.toml`` so the logs' days are the host's.

The state folder is ``OPENCLAW_STATE_DIR``, else ``~/.openclaw`` (``~/.openclaw-<profile>``
with ``OPENCLAW_PROFILE``), where ``~`` is ``OPENCLAW_HOME`` or ``HOME``. The config is found as
OpenClaw finds it: ``OPENCLAW_CONFIG_PATH``; else the first that exists of ``openclaw.json``
(then the legacy ``clawdbot.json``) in the state folder, in ``~/.openclaw`` and in the legacy
``~/.clawdbot``.
It is JSON5 (comments, unquoted keys, single quotes, trailing commas); ``$include`` and
``${VAR}`` are not followed. Standard library only.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping

from squadmem.model import jsontext
from squadmem.model.errors import SquadmemError
from squadmem.model.settings import known_zone

CONFIG_NAMES = ("openclaw.json", "clawdbot.json")
STATE_DIRS = (".openclaw", ".clawdbot")
SETTING = "agents.defaults.userTimezone"
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def _set(env: Mapping[str, str], name: str) -> str | None:
    """An OpenClaw variable as OpenClaw reads it: blank, ``undefined`` and ``null`` are unset."""
    value = (env.get(name) or "").strip()
    return None if value in ("", "undefined", "null") else value


def home(env: Mapping[str, str]) -> str:
    """OpenClaw's home: ``OPENCLAW_HOME`` (``~`` in it is the user's), else the user's."""
    user = _set(env, "HOME") or os.path.expanduser("~")
    given = _set(env, "OPENCLAW_HOME")
    return _user_path(given, user) if given else os.path.abspath(user)


def _user_path(value: str, home: str) -> str:
    """A path as OpenClaw reads one from the environment: ``~`` is the home, relative is from here."""
    text = value.strip()
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    return os.path.abspath(text)


def expand(value: str, env: Mapping[str, str]) -> str:
    """A path the config names (``~`` is OpenClaw's home)."""
    return _user_path(value, home(env))


def state_dir(env: Mapping[str, str]) -> str:
    """OpenClaw's state folder (agents, sessions, the config) under ``env``."""
    given = _set(env, "OPENCLAW_STATE_DIR")
    if given:
        return _user_path(given, home(env))
    profile = _set(env, "OPENCLAW_PROFILE")
    name = f"{STATE_DIRS[0]}-{profile}" if profile and profile != "default" else STATE_DIRS[0]
    return os.path.join(home(env), name)


def config_path(env: Mapping[str, str]) -> str | None:
    """The OpenClaw config file OpenClaw would read under ``env``; None when there is none."""
    explicit = _set(env, "OPENCLAW_CONFIG_PATH")
    if explicit:
        path = _user_path(explicit, home(env))
        return path if os.path.exists(path) else None
    folders = [state_dir(env), *(os.path.join(home(env), name) for name in STATE_DIRS)]
    for folder in dict.fromkeys(folders):
        for name in CONFIG_NAMES:
            path = os.path.join(folder, name)
            if os.path.exists(path):
                return path
    return None


def read_config(path: str) -> dict[str, object]:
    """The config at ``path`` as an object; a one-line :class:`SquadmemError` naming the file when it
    is no regular file, too large, not UTF-8 or not JSON5."""
    return _load(path)


def agents(config: Mapping[str, object]) -> dict[str, dict[str, object]]:
    """Agent id -> its settings: ``agents.entries`` (2026.9), or ``agents.list`` (older)."""
    section = config.get("agents")
    if not isinstance(section, dict):
        return {}
    found: dict[str, dict[str, object]] = {}
    listed = section.get("list")
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            found[entry["id"]] = entry
    entries = section.get("entries")
    for ident, entry in (entries if isinstance(entries, dict) else {}).items():
        if isinstance(entry, dict):
            found[str(ident)] = entry
    return found


def user_timezone(path: str) -> str | None:
    """The ``agents.defaults.userTimezone`` the config at ``path`` sets (None: it sets none).

    Raises :class:`SquadmemError` naming the file when it cannot be read, is not JSON5, or sets
    something that is no time zone squadmem knows (OpenClaw would fall back to the machine's).
    """
    data = _load(path)
    value: object = data
    for key in SETTING.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return None
    zone = value.strip() if isinstance(value, str) else ""
    if not known_zone(zone):
        raise SquadmemError(
            f"{path}: {SETTING} {value!r} is not a known time zone",
            hint="set an IANA name such as Europe/Berlin (openclaw config set " + SETTING + " ...)",
        )
    return zone


def _load(path: str) -> dict[str, object]:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
            raise SquadmemError(
                f"{path}: not OpenClaw's config (not a regular file of at most 4 MiB)",
                hint="point OPENCLAW_CONFIG_PATH at the config, or fix the file",
            )
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise SquadmemError(f"{path}: cannot read OpenClaw's config: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
        data = jsontext.loads(text)
    except UnicodeDecodeError:
        data = None
    except ValueError:
        data = _json5(text)
    if not isinstance(data, dict):
        raise SquadmemError(
            f"{path}: OpenClaw's config is not a JSON5 object squadmem can read",
            hint="check it with: openclaw config validate",
        )
    return data


def _json5(text: str) -> object:
    """``text`` read as JSON5's common subset (None if it is not): comments, unquoted keys,
    single-quoted strings and trailing commas rewritten as JSON, then parsed."""
    try:
        return jsontext.loads(_as_json(text))
    except (ValueError, RecursionError):
        return None


def _as_json(text: str) -> str:
    out: list[str] = []
    at, size = 0, len(text)
    while at < size:
        char = text[at]
        if char in "\"'":
            end = _string_end(text, at)
            out.append(_json_string(text[at : end + 1]))
            at = end + 1
        elif text.startswith("//", at):
            at = text.find("\n", at) if "\n" in text[at:] else size
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close < 0:
                raise ValueError("unclosed comment")
            at = close + 2
        elif char.isdigit():  # a number, exponent included (1e-5), kept as it is
            end = at
            while end < size and (text[end].isalnum() or text[end] in ".+-"):
                end += 1
            out.append(text[at:end])
            at = end
        elif char.isalpha() or char in "_$":
            end = at
            while end < size and (text[end].isalnum() or text[end] in "_$"):
                end += 1
            word = text[at:end]
            out.append(word if word in ("true", "false", "null") else json.dumps(word))
            at = end
        elif char in "]}":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()  # a trailing comma
            out.append(char)
            at += 1
        else:
            out.append(char)
            at += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    quote, at = text[start], start + 1
    while at < len(text):
        if text[at] == "\\":
            at += 2
            continue
        if text[at] == quote:
            return at
        at += 1
    raise ValueError("unclosed string")


def _json_string(literal: str) -> str:
    """A JSON5 string literal (either quote) as a JSON one."""
    if literal[0] == '"':
        return literal
    body = literal[1:-1].replace("\\'", "'").replace('"', '\\"')
    return f'"{body}"'
