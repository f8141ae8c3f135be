"""OpenClaw's configuration, as far as squadmem reads it: the user's time zone, the host's day.

OpenClaw dates its daily logs (the pre-compaction flush's ``memory/YYYY-MM-DD.md``) and its
session files (``memory/YYYY-MM-DD-HHMM.md``) in ``agents.defaults.userTimezone``; ``init``
writes that zone into a workspace's ``tiers.toml`` so the logs' days are the host's.

The config is found as OpenClaw finds it: ``OPENCLAW_CONFIG_PATH``; else the first that exists
of ``openclaw.json`` (then the legacy ``clawdbot.json``) in ``OPENCLAW_STATE_DIR``, in
``~/.openclaw`` and in the legacy ``~/.clawdbot``, where ``~`` is ``OPENCLAW_HOME`` or ``HOME``.
It is JSON5 (comments, unquoted keys, single quotes, trailing commas); ``$include`` and
``${VAR}`` are not followed. Standard library only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from squadmem.model.errors import SquadmemError
from squadmem.model.settings import known_zone

CONFIG_NAMES = ("openclaw.json", "clawdbot.json")
STATE_DIRS = (".openclaw", ".clawdbot")
SETTING = "agents.defaults.userTimezone"
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def _home(env: Mapping[str, str]) -> str:
    home = (env.get("OPENCLAW_HOME") or "").strip() or env.get("HOME") or os.path.expanduser("~")
    return _user_path(home, env.get("HOME") or os.path.expanduser("~"))


def _user_path(value: str, home: str) -> str:
    """A path as OpenClaw reads one from the environment: ``~`` is the home, relative is from here."""
    text = value.strip()
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    return os.path.abspath(text)


def config_path(env: Mapping[str, str]) -> str | None:
    """The OpenClaw config file OpenClaw would read under ``env``; None when there is none."""
    home = _home(env)
    explicit = (env.get("OPENCLAW_CONFIG_PATH") or "").strip()
    if explicit:
        path = _user_path(explicit, home)
        return path if os.path.exists(path) else None
    folders = [os.path.join(home, name) for name in STATE_DIRS]
    state = (env.get("OPENCLAW_STATE_DIR") or "").strip()
    if state:
        folders.insert(0, _user_path(state, home))
    for folder in folders:
        for name in CONFIG_NAMES:
            path = os.path.join(folder, name)
            if os.path.exists(path):
                return path
    return None


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
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise SquadmemError(f"{path}: cannot read OpenClaw's config: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text) if len(raw) <= MAX_CONFIG_BYTES else None
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
        return json.loads(_as_json(text))
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
