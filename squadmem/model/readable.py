"""Whether squadmem can read a memory file: the one rule the file check and ``verify`` share.

Standard library only.
"""

from __future__ import annotations

from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify, decode_tier

TYPE_CHECKING = False  # typing is not imported at run time: the file check imports this module
if TYPE_CHECKING:
    from squadmem.model.places import Places


def unreadable(path: str, raw: bytes, places: Places) -> str | None:
    """Why squadmem could not read the file ``path`` holding ``raw`` (``problem; fix``), or None;
    ``places``: the layout it is read in."""
    try:
        text = decode_tier(raw, path)
        if classify(path, places) is not None:
            from squadmem.model import sections  # not for a daily log: its regexes cost a hook's start

            sections.split(text)
    except SquadmemError as exc:
        message = exc.message.removeprefix(f"{path}: ")
        return f"{message}; {exc.hint}" if exc.hint else message
    return None


def owner_files(path: str, places: Places) -> list[str]:
    """The tier files that share ``path``'s id namespace, in the order ids are assigned (an agent's
    hot, cold and archive; a wiki page alone); [] for a path that is no tier file."""
    from squadmem.model.layout import AGENT_TIERS

    found = classify(path, places)
    if found is None:
        return []
    if found.tier not in AGENT_TIERS:
        return [path]
    return [places.tier_rel(tier, found.name) for tier in AGENT_TIERS]


def id_clashes(files: dict[str, bytes | None], places: Places) -> list[str]:
    """``path: id=X is also set in other; fix`` for each ``id=`` flag set twice among one owner's
    tier files (``files``: path -> bytes, in :func:`owner_files` order), which would leave the
    whole owner's memory out; files squadmem cannot read are judged by :func:`unreadable`."""
    from squadmem.model import sections

    seen: dict[str, str] = {}
    found = []
    for path, raw in files.items():
        if raw is None or unreadable(path, raw, places) is not None:
            continue
        for section in sections.split(decode_tier(raw, path)).sections:
            flag = section.flags.id
            if not flag:
                continue
            if flag in seen:
                found.append(
                    f"{path}: id={flag} is also set in {seen[flag]}, which would leave the whole"
                    f" owner's memory out; give each section its own id (change one id={flag})"
                )
            else:
                seen[flag] = path
    return found
