"""The one name rule: what an agent, a wiki topic or an ``id=`` flag may be called.

Standard library only, and below every other model module that checks a name
(the settings' ``agent`` key, the layout's paths, a log entry's agent), so
none of them imports another for it.
"""

from __future__ import annotations

import re

from squadmem.model.errors import SquadmemError

MAX_NAME = 100  # characters in an agent, topic or id= name (file names stay far below 255 bytes)

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def is_name(name: str) -> bool:
    """A safe agent, topic or ``id=`` name: ``[A-Za-z0-9][A-Za-z0-9._-]*``, no ``..``, at most 100."""
    return len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None and ".." not in name


def check_name(name: str, what: str = "agent") -> str:
    """Return ``name`` if it is a safe agent or topic name, else raise."""
    if not is_name(name):
        shown = name.encode("unicode_escape", "backslashreplace").decode("ascii")
        if len(shown) > 60:
            shown = f"{shown[:40]}...({len(name)} characters)"
        raise SquadmemError(
            f"invalid {what} name {shown!r}",
            hint=f"{what} names are letters, digits, '.', '_' and '-', starting with a letter or digit,"
            f" at most {MAX_NAME} characters",
        )
    return name
