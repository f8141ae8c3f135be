"""Whether squadmem can read a memory file: the one rule the file check and ``verify`` share.

Standard library only.
"""

from __future__ import annotations

from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify, decode_tier


def unreadable(path: str, raw: bytes) -> str | None:
    """Why squadmem could not read the file ``path`` holding ``raw`` (``problem; fix``), or None."""
    try:
        text = decode_tier(raw, path)
        if classify(path) is not None:
            from squadmem.model import sections  # not for a daily log: its regexes cost a hook's start

            sections.split(text)
    except SquadmemError as exc:
        message = exc.message.removeprefix(f"{path}: ")
        return f"{message}; {exc.hint}" if exc.hint else message
    return None
