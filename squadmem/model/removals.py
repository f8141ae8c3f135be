"""Sections a change removes from the tier files: what a ``Squad-Memory-Delete`` trailer records.

A section of the tree before is *removed* when the tree after holds its text
in no tier file and it was neither edited in place (a section with its id
and a text the tree before did not hold is there) nor renamed (its body
arrived under another heading), nor one of two places of one title (the
other kept): the rule ``verify``'s conservation check applies to a commit
(:mod:`squadmem.engine.verify.conservation`), so a change whose removals are named
in its message is one ``verify`` accepts. Archive sections count too: their
removal is allowed without a trailer, and recorded all the same.

Ids are assigned as the catalog assigns them (hot, cold, archive, then file
order; ``-2`` for a repeat; an ``id=`` flag first). The caller gives the
title rule: the engine its exact one, the hooks :func:`rough_title`, which
reads the plain text of a heading with the standard library only (the
same as the exact rule for a heading without Markdown markup, and for
emphasis, code spans, links, images, entities and inline HTML as they are
commonly written).

Standard library only: the message hooks ask it on every commit that
changes a tier file.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping

from squadmem.model import constants, sections
from squadmem.model.places import TIERS, Places

SESSION_TITLE = "Session"
_SPAN = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")  # a link or an image: its text
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--.*?-->")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_MARKS = re.compile(r"[*`]|~~")
_NUMBERED = re.compile(r"^\d{1,9}[.)](?=\s|$)")  # read as an ordered list's item, as the parser does


def rough_title(raw_heading: str) -> str:
    """A heading's plain text without a Markdown parser: links and images by their text, tags and
    emphasis marks dropped, escapes and entities read, whitespace runs made one space."""
    text = _SPAN.sub(r"\1", _NUMBERED.sub("", raw_heading.lstrip(), count=1))
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub("", text)
    text = _ESCAPE.sub(r"\1", _MARKS.sub("", text))
    return " ".join(html.unescape(text).split()) or raw_heading.strip()


class _Place:
    __slots__ = ("body", "id", "key", "tier", "title")

    def __init__(self, ident: str, tier: str, title: str, key: str, body: str) -> None:
        self.id, self.tier, self.title, self.key, self.body = ident, tier, title, key, body


def owner_of(places: Places, rel: str) -> str | None:
    """The owner of a tier file's sections: its agent, or ``wiki:<topic>``; None for any other path."""
    found = places.split(rel)
    if found is None:
        return None
    tier, name = found
    return f"wiki:{name}" if tier == "wiki" else name


def _body(text: str) -> str:
    return sections.trimmed(text.split("\n", 1)[1] if "\n" in text else "")


def _places(texts: Mapping[str, str], places: Places, title: Callable[[str], str]) -> list[_Place]:
    """Every section of the tier files ``texts`` holds (the Session block and the Index left out),
    with its id."""
    order = {tier: n for n, tier in enumerate(TIERS)}
    files = []
    for rel, text in texts.items():
        found = places.split(rel)
        if found is not None:
            files.append((order[found[0]], found[1], found[0], owner_of(places, rel) or "", text))
    by_owner: dict[str, list[tuple[str, str, sections.Section]]] = {}
    for _, _, tier, owner, text in sorted(files, key=lambda f: (f[0], f[1])):
        for section in sections.split(text).sections:
            by_owner.setdefault(owner, []).append((tier, title(section.raw_heading), section))
    found_places = []
    for owner, items in by_owner.items():
        bases = [s.flags.id or sections.slugify(t) for _, t, s in items]
        for (tier, heading, section), slug in zip(items, sections.assign_slugs(bases), strict=True):
            if tier == "hot" and heading in (constants.INDEX_TITLE, SESSION_TITLE):
                continue
            key = sections.trimmed(section.text)
            found_places.append(_Place(f"{owner}/{slug}", tier, heading, key, _body(section.text)))
    return found_places


def removed(
    before: Mapping[str, str],
    after: Mapping[str, str],
    places: Places,
    title: Callable[[str], str] = rough_title,
) -> list[str]:
    """The ids of the sections ``before`` holds that ``after`` removed, in order, each once.

    Both map repository paths to texts and should hold every tier file of each owner involved
    (an owner's ids are assigned across its files); other paths are ignored. Raises
    ``sections.FlagError`` for a malformed flag comment.
    """
    old = _places(before, places, title)
    new = _places(after, places, title)
    new_keys = {p.key for p in new}
    old_keys = {p.key for p in old}
    arrived = [p for p in new if p.key not in old_keys]
    arrived_ids = {p.id for p in arrived}
    arrived_bodies = {p.body for p in arrived}
    tiers_after = _tiers_of_titles(new)
    tiers_before = _tiers_of_titles(old)
    found: dict[str, None] = {}
    for place in old:
        if place.key in new_keys or place.id in arrived_ids or (place.body and place.body in arrived_bodies):
            continue  # still there, edited in place, or renamed
        title_key = (place.id.rpartition("/")[0], place.title)
        if 0 < len(tiers_after.get(title_key, ())) < len(tiers_before.get(title_key, ())):
            continue  # one of its two places, the other kept
        found[place.id] = None
    return list(found)


def _tiers_of_titles(found: Iterable[_Place]) -> dict[tuple[str, str], set[str]]:
    tiers: dict[tuple[str, str], set[str]] = {}
    for place in found:
        tiers.setdefault((place.id.rpartition("/")[0], place.title), set()).add(place.tier)
    return tiers
