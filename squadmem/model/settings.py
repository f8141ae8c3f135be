"""``tiers.toml`` -> :class:`Settings`, with the defaults of the design.

Standard library only: the hooks read settings too, so this module stays
light. ``tomllib`` is imported only for a tiers.toml that is not the one
``squadmem init`` writes (:data:`TEMPLATE`, which holds the defaults),
``zoneinfo`` only for a time zone other than UTC, and the classes are plain
values, not dataclasses (:mod:`squadmem.model.values`).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import stat
from collections.abc import Mapping

from squadmem.model.errors import SquadmemError
from squadmem.model.names import MAX_NAME, is_name
from squadmem.model.values import Value

TYPE_CHECKING = False  # not typing's: importing typing costs every commit a few milliseconds
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, ClassVar


class _Table(Value):
    """One table of tiers.toml: its keys are its slots, each of the kind ``KINDS`` names."""

    KINDS: ClassVar[dict[str, type]] = {}


class HotSettings(_Table):
    __slots__ = ("evict", "index_max_entries", "max_bytes", "max_lines", "stale_days")
    KINDS: ClassVar[dict[str, type]] = {
        "stale_days": float,
        "max_bytes": int,
        "max_lines": int,
        "index_max_entries": int,
        "evict": str,
    }

    def __init__(
        self,
        stale_days: float = 7,
        max_bytes: int = 4096,
        max_lines: int = 100,
        index_max_entries: int = 5,
        evict: str = "least-recent",
    ) -> None:
        self.stale_days = stale_days
        self.max_bytes = max_bytes
        self.max_lines = max_lines
        self.index_max_entries = index_max_entries
        self.evict = evict  # "least-recent" or "age-bytes": which section the budget pass sends out first


class ColdSettings(_Table):
    __slots__ = ("max_bytes", "ttl_days")
    KINDS: ClassVar[dict[str, type]] = {"ttl_days": float, "max_bytes": int}

    def __init__(self, ttl_days: float = 30, max_bytes: int = 12288) -> None:
        self.ttl_days = ttl_days
        self.max_bytes = max_bytes


class PromoteSettings(_Table):
    __slots__ = ("repeat_days", "rule", "window_hours")
    KINDS: ClassVar[dict[str, type]] = {"window_hours": float, "rule": str, "repeat_days": float}

    def __init__(self, window_hours: float = 24, rule: str = "first-use", repeat_days: float = 3) -> None:
        self.window_hours = window_hours
        self.rule = rule  # "first-use" or "second-use"
        self.repeat_days = repeat_days  # second-use: the use before the last at most this many days before it


class LogSettings(_Table):
    __slots__ = ("grace_minutes",)
    KINDS: ClassVar[dict[str, type]] = {"grace_minutes": float}

    def __init__(self, grace_minutes: float = 0) -> None:
        self.grace_minutes = grace_minutes


class BudgetSettings(_Table):
    __slots__ = ("mode",)
    KINDS: ClassVar[dict[str, type]] = {"mode": str}

    def __init__(self, mode: str = "fail") -> None:
        self.mode = mode  # "fail" or "warn"


class Settings(Value):
    """Every setting of tiers.toml: the time zone and one value per table."""

    __slots__ = ("budget", "cold", "hot", "log", "promote", "timezone")

    def __init__(
        self,
        timezone: str = "UTC",
        hot: HotSettings | None = None,
        cold: ColdSettings | None = None,
        promote: PromoteSettings | None = None,
        log: LogSettings | None = None,
        budget: BudgetSettings | None = None,
    ) -> None:
        self.timezone = timezone
        self.hot = hot or HotSettings()
        self.cold = cold or ColdSettings()
        self.promote = promote or PromoteSettings()
        self.log = log or LogSettings()
        self.budget = budget or BudgetSettings()

    @property
    def tz(self) -> dt.tzinfo:
        """The time zone: UTC without importing ``zoneinfo``, any other by its name."""
        if self.timezone == "UTC":
            return dt.UTC
        import zoneinfo

        return zoneinfo.ZoneInfo(self.timezone)

    def replace(self, **overrides: Mapping[str, Any]) -> Settings:
        """A copy with some keys of some tables overridden (used by CLI flags)."""
        changes: dict[str, Any] = {}
        for table, values in overrides.items():
            values = {k: v for k, v in values.items() if v is not None}
            if values:
                changes[table] = getattr(self, table).replaced(**values)
        return self.replaced(**changes)


_TABLES: dict[str, type[_Table]] = {
    "hot": HotSettings,
    "cold": ColdSettings,
    "promote": PromoteSettings,
    "log": LogSettings,
    "budget": BudgetSettings,
}
_CHOICES = {
    ("budget", "mode"): ("fail", "warn"),
    ("promote", "rule"): ("first-use", "second-use"),
    ("hot", "evict"): ("least-recent", "age-bytes"),
}
# The largest value each number may take: a century for ages, a day of grace for logs, and
# a billion for counts (budgets and the Index) -- far beyond any real use, so nothing overflows.
_MAX = {
    ("hot", "stale_days"): 36500,
    ("cold", "ttl_days"): 36500,
    ("promote", "window_hours"): 876000,
    ("promote", "repeat_days"): 36500,
    ("log", "grace_minutes"): 1440,
}
MAX_COUNT = 1_000_000_000


def number_problem(table: str, key: str, value: object) -> str | None:
    """Why ``value`` is no valid ``[table] key``: finite, >= 0, at most its ceiling; None if it is."""
    whole = _TABLES[table].KINDS[key] is int
    kinds = int if whole else int | float
    ceiling = _MAX.get((table, key), MAX_COUNT)
    wanted = f"{'a whole number' if whole else 'a number'} from 0 to {ceiling}"
    if isinstance(value, bool) or not isinstance(value, kinds):
        return f"must be {wanted}, not {value!r}"
    if not math.isfinite(value) or not 0 <= value <= ceiling:
        return f"must be {wanted}, not {value!r}"
    return None


TEMPLATE = """\
# squadmem settings. Every key is optional; the values below are the defaults.

# Time zone that names daily logs (log/YYYY-MM-DD.md) and decides when a day ends.
timezone = "UTC"

[hot]
# A hot section unused this many days moves to cold.
stale_days = 7
# Budget of each hot file; over it, the least recently used sections move to cold.
max_bytes = 4096
max_lines = 100
# Most lines in the "## Index -> Deeper Tiers" section squadmem keeps in each hot file.
index_max_entries = 5
# Which section a hot file over budget sends out first: "least-recent" (the least recently used)
# or "age-bytes" (the largest days unused, plus one, times bytes).
evict = "least-recent"

[cold]
# A cold section unused this many days moves to the wiki (kind=decision|fact) or the archive.
ttl_days = 30
# A cold file over this size is reported.
max_bytes = 12288

[promote]
# A cold or archive section used within this many hours comes back to hot.
window_hours = 24
# "first-use": on any such use; "second-use": only if it was also used once before, at most
# repeat_days before that use (a section used once stays where it is).
rule = "first-use"
repeat_days = 3

[log]
# Minutes after midnight (in `timezone`) during which yesterday's log may still grow.
grace_minutes = 0

[budget]
# "fail": the budget hook refuses a commit over budget; "warn": it reports and lets it pass.
mode = "fail"
"""


WORKSPACE_HEAD = """\
# The agent whose memory this memory-tiers workspace holds (section ids read <agent>/<section>).
"""
# A workspace's logs close at the next noon, not at midnight: OpenClaw's flush of an evening is
# written to that day's memory/YYYY-MM-DD.md and committed the next morning.
WORKSPACE_GRACE_MINUTES = 720
_DEFAULTS_LINE = "# squadmem settings. Every key is optional; the values below are the defaults.\n"
_WORKSPACE_DEFAULTS_LINE = (
    "# squadmem settings. Every key is optional; the values below are the defaults, except\n"
    "# log.grace_minutes (a workspace's) and timezone when OpenClaw's config names one.\n"
)
_ZONE_LINES = """\
# Time zone that names daily logs (log/YYYY-MM-DD.md) and decides when a day ends.
timezone = "UTC"
"""
_WORKSPACE_ZONE_LINES = """\
# Time zone that names daily logs (memory/YYYY-MM-DD.md, and session files such as
# memory/YYYY-MM-DD-2215.md) and decides when a day ends: OpenClaw's
# agents.defaults.userTimezone, so that a log's day is the host's.
timezone = "{zone}"
"""
_GRACE_LINES = """\
# Minutes after midnight (in `timezone`) during which yesterday's log may still grow.
grace_minutes = 0
"""
_WORKSPACE_GRACE_LINES = f"""\
# Minutes after midnight (in `timezone`) during which yesterday's logs may still grow at their
# end: until noon in a workspace, so an evening's flush can be committed the next morning.
# Changing or removing a line already there is refused all the same; after it, a log is frozen.
grace_minutes = {WORKSPACE_GRACE_MINUTES}
"""


def workspace_template(agent: str, timezone: str = "UTC") -> str:
    """What ``init`` writes in a memory-tiers workspace: its agent, its time zone (OpenClaw's
    ``userTimezone``, a name :func:`known_zone` accepts) and the logs'
    grace until noon, then every default."""
    body = (
        TEMPLATE.replace(_DEFAULTS_LINE, _WORKSPACE_DEFAULTS_LINE)
        .replace(_ZONE_LINES, _WORKSPACE_ZONE_LINES.format(zone=timezone))
        .replace(_GRACE_LINES, _WORKSPACE_GRACE_LINES)
    )
    return f'{WORKSPACE_HEAD}agent = "{agent}"\n\n{body}'


def _workspace_written(text: str) -> tuple[str, Settings] | None:
    """The agent and settings of a tiers.toml exactly as ``init`` writes it in a workspace (today's
    :func:`workspace_template`, or an earlier init's: its agent and every default); None for any
    other text, which is parsed."""
    if not text.startswith(WORKSPACE_HEAD):
        return None
    line = text[len(WORKSPACE_HEAD) :].partition("\n\n")[0]
    name = line[len('agent = "') : -1] if line.startswith('agent = "') and line.endswith('"') else ""
    if not name or not all(c.isascii() and (c.isalnum() or c in "._-") for c in name):
        return None
    if text == f"{WORKSPACE_HEAD}{line}\n\n{TEMPLATE}":
        return name, Settings()
    _, found, rest = text.partition('\ntimezone = "')
    zone = rest.partition('"')[0]
    if not found or text != workspace_template(name, zone):
        return None
    if not known_zone(zone):
        return None  # parsed, so the error names the line
    return name, Settings(timezone=zone, log=LogSettings(WORKSPACE_GRACE_MINUTES))


def known_zone(name: str) -> bool:
    """Whether ``name`` is an IANA time zone this Python knows (``UTC`` without ``zoneinfo``)."""
    if name == "UTC":
        return True
    if not name or not all(c.isascii() and (c.isalnum() or c in "_+-/") for c in name):
        return False
    import zoneinfo

    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def _template_agent(text: str) -> str | None:
    """The agent of a tiers.toml as init writes it in a workspace (None for any other text)."""
    written = _workspace_written(text)
    return None if written is None else written[0]


def _line_of(text: str, table: str | None, key: str) -> int:
    """The 1-based line where ``key`` is set inside ``[table]`` (0 if not found)."""
    import re

    current: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"\s*\[([^\]]+)\]", line)
        if header:
            current = header.group(1).strip()
        elif current == table and re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
    return 0


def _bad(path: str | Path, text: str, table: str | None, key: str, why: str) -> SquadmemError:
    name = f"{table}.{key}" if table else key
    line = _line_of(text, table, key)
    where = f"{path}:{line}" if line else str(path)
    return SquadmemError(f"{where}: {name} {why}", hint="fix the value or delete the line to use the default")


def _coerce(path: str | Path, text: str, table: str, key: str, value: Any, kind: type) -> Any:
    if kind is not str:
        problem = number_problem(table, key, value)
        if problem is not None:
            raise _bad(path, text, table, key, problem)
        return value
    choices = _CHOICES.get((table, key))
    if not isinstance(value, str) or (choices and value not in choices):
        wanted = " or ".join(repr(c) for c in choices) if choices else "a string"
        raise _bad(path, text, table, key, f"must be {wanted}, not {value!r}")
    return value


# A value :func:`edited_template` reads itself: a string of printable ASCII with no quote nor
# backslash (no escape to read), a decimal integer, or a decimal fraction; anything else (signs,
# underscores, exponents, escapes, a comment after the value) is left to tomllib.
_PLAIN_STRING = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}
_DIGITS = frozenset("0123456789")


def _plain_value(raw: str) -> str | int | float | None:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        inner = raw[1:-1]
        return inner if _PLAIN_STRING.issuperset(inner) else None
    whole, dot, fraction = raw.partition(".")
    if not whole or not _DIGITS.issuperset(whole) or (len(whole) > 1 and whole[0] == "0"):
        return None
    if not dot:
        return int(whole)
    return float(raw) if fraction and _DIGITS.issuperset(fraction) else None


def edited_template(text: str) -> dict[str, Any] | None:
    """What ``tomllib.loads(text)`` gives, without tomllib, for :data:`TEMPLATE` with only values
    changed (the usual edit: ``timezone = "Europe/Paris"``): every line but a ``key = value``
    line the template's, each ``key = value`` line the template's key with a plain value
    (:func:`_plain_value`). None for any other text (tomllib reads it); ``tests/settings_fast_test.py``
    holds the two equal."""
    lines, model = text.split("\n"), TEMPLATE.split("\n")
    if len(lines) != len(model):
        return None
    data: dict[str, Any] = {}
    table = data
    for line, was in zip(lines, model, strict=True):
        if was.startswith("[") and was.endswith("]"):
            if line != was:
                return None
            table = data[was[1:-1]] = {}
            continue
        key, equals, _ = was.partition(" = ")
        if not equals or was.startswith("#"):
            if line != was:
                return None
            continue
        if not line.startswith(key + " = "):
            return None
        value = _plain_value(line[len(key) + 3 :])
        if value is None:
            return None
        table[key] = value
    return data


def parse(text: str, path: str | Path) -> Settings:
    if text == TEMPLATE:  # what init writes: every default (a test holds them equal)
        return Settings()
    written = _workspace_written(text)
    if written is not None:  # what init writes in a memory-tiers workspace
        return written[1]
    data = edited_template(text)  # init's text with values changed: no tomllib (every commit reads it)
    if data is None:
        import tomllib

        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise SquadmemError(f"{path}: not valid TOML: {exc}", hint="fix the line it names") from None
    changes: dict[str, Any] = {}
    for name, value in data.items():
        if name == "timezone":
            if not isinstance(value, str):
                raise _bad(path, text, None, name, f"must be a time zone name, not {value!r}")
            import zoneinfo

            try:
                zoneinfo.ZoneInfo(value)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
                raise _bad(path, text, None, name, f"is not a known time zone: {value!r}") from None
            changes["timezone"] = value
            continue
        if name == "agent":  # a memory-tiers workspace's agent: read by agent_of()
            _agent(path, text, value)
            continue
        cls = _TABLES.get(name)
        if cls is None or not isinstance(value, dict):
            raise _bad(path, text, None, name, "is not a squadmem setting")
        known = cls.KINDS
        values = {}
        for key, item in value.items():
            if key not in known:
                raise _bad(path, text, name, key, "is not a squadmem setting")
            values[key] = _coerce(path, text, name, key, item, known[key])
        changes[name] = cls(**values)
    return Settings(**changes)


def _agent(path: str | Path, text: str, value: object) -> str:
    if not isinstance(value, str) or not is_name(value):
        why = f"must be an agent name (letters, digits, '.', '_', '-'; at most {MAX_NAME}), not {value!r}"
        raise _bad(path, text, None, "agent", why)
    return value


def agent_of(text: str, path: str | Path) -> str | None:
    """The ``agent`` a memory-tiers workspace's tiers.toml names (None: it names none)."""
    name = _template_agent(text)
    if name is not None:
        return name
    parse(text, path)  # refuses what the commands would refuse
    import tomllib

    value = tomllib.loads(text).get("agent")
    return None if value is None else _agent(path, text, value)


def load(memory_dir: Path) -> Settings:
    """Settings from ``<memory_dir>/tiers.toml``; the defaults where it is absent."""
    text = read(memory_dir / "tiers.toml")
    return Settings() if text is None else parse(text, memory_dir / "tiers.toml")


def _read_regular(path: str | Path) -> bytes:
    """The bytes of a regular file; IsADirectoryError for anything else (a FIFO, a device, a
    folder), which is never read, so nothing hangs. (``writes.read_state`` does the same for
    squadmem's state files; this module is on every memory commit's path, where importing
    ``writes`` would add ``pathlib``.)"""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(f"{path}: not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def read(path: str | Path) -> str | None:
    """The text of the tiers.toml at ``path``; None where it is absent."""
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return None
    except IsADirectoryError:  # a folder, a FIFO, a device (a symlink to /dev/zero): never read
        raise SquadmemError(
            f"{path}: not a regular file", hint="make tiers.toml a plain file (or remove it for the defaults)"
        ) from None
    except OSError as exc:
        raise SquadmemError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SquadmemError(f"{path}: not UTF-8", hint="save tiers.toml as UTF-8") from None
    return text
