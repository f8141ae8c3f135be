"""Where a moved section lands in a tier file, and the ``## Index → Deeper Tiers`` section.

Pure text, no git and no files: the policy projects a run with these
functions and the executor makes its commits with the very same ones, so a
dry run shows exactly what the real run writes.

A moved section is cut out of its source byte for byte and put into its
destination just before the destination's Index section if it has one,
otherwise at the end. Where the destination does not end with a line ending,
or the moved text does not and something follows it, one ``\\n`` is added:
the only byte squadmem ever adds. Every splice is checked by splitting the
result again: the sections must be the old ones, in order, plus or minus the
moved one (compared with trailing blank lines and line endings trimmed),
or the splice is refused (a section ending in an unclosed code fence or
HTML block would otherwise swallow what follows it).

The Index is the last section of a hot file, written by squadmem: one line
per cold or archive section of the agent and per wiki topic, newest first,
at most ``hot.index_max_entries`` lines.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re
from collections.abc import Mapping, Sequence

from squadmem import catalog, sections, titles
from squadmem.catalog import INDEX_TITLE
from squadmem.layout import classify

HEADING = f"## {INDEX_TITLE}"
NOTE = "<!-- Written by squadmem maintain after each run; edits here are replaced. -->"
EMPTY = "- nothing in cold, archive or the wiki yet"
_LINE_ID = re.compile(r"- (\S+) \(")


class SpliceError(ValueError):
    """A splice would change other sections' boundaries; nothing was changed."""


@functools.lru_cache(maxsize=256)
def split(text: str) -> sections.Document:
    """``sections.split``, remembered: a run splits the same few texts many times."""
    return sections.split(text)


def memory(texts: Mapping[str, str]) -> catalog.Memory:
    """``catalog.from_texts`` over texts already known to parse, with :func:`split`'s memory."""
    docs = []
    for rel, text in texts.items():
        tf = classify(rel)
        if tf is not None:
            docs.append(catalog.TierDoc(tf, text, split(text)))
    return catalog.build(docs)


def normalized(text: str) -> str:
    """``text`` without its trailing blank lines and final line ending (how sections are compared)."""
    rows = sections.lines(text)
    while rows and not rows[-1].strip():
        rows.pop()
    return "".join(rows).rstrip("\r\n")


def ends_line(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def is_index(section: sections.Section) -> bool:
    return titles.plain(section.raw_heading) == INDEX_TITLE


def _index_position(doc: sections.Document) -> int | None:
    for position, section in enumerate(doc.sections):
        if is_index(section):
            return position
    return None


def _shape(doc: sections.Document) -> list[str]:
    return [normalized(doc.header), *(normalized(s.text) for s in doc.sections)]


def _check(result: str, expected: list[str], what: str) -> str:
    if _shape(split(result)) != expected:
        raise SpliceError(what)
    return result


def find(text: str, section_text: str) -> int:
    """Position of the first section of ``text`` equal to ``section_text`` (normalized), or -1."""
    wanted = normalized(section_text)
    for position, section in enumerate(split(text).sections):
        if normalized(section.text) == wanted:
            return position
    return -1


def remove(text: str, section_text: str) -> tuple[str, str]:
    """``text`` without the section equal to ``section_text``; also the exact text removed."""
    doc = split(text)
    position = find(text, section_text)
    if position < 0:
        raise SpliceError("the section is not in the file")
    cut = doc.sections[position].text
    rest = [s.text for n, s in enumerate(doc.sections) if n != position]
    result = doc.header + "".join(rest)
    expected = _shape(doc)
    del expected[position + 1]
    return _check(result, expected, "removing it would merge what is left around it"), cut


def insert(text: str, section_text: str) -> str:
    """``text`` with ``section_text`` just before the Index section, or at the end."""
    doc = split(text)
    position = _index_position(doc)
    expected = _shape(doc)
    if position is None:
        base = text if not text or ends_line(text) else text + "\n"
        expected.append(normalized(section_text))
        return _check(base + section_text, expected, "it would not stay a section of its own there")
    moved = section_text if ends_line(section_text) else section_text + "\n"
    before = doc.header + "".join(s.text for s in doc.sections[:position])
    after = "".join(s.text for s in doc.sections[position:])
    expected.insert(position + 1, normalized(section_text))
    return _check(before + moved + after, expected, "it would not stay a section of its own there")


def current(text: str) -> str | None:
    """The exact text of the Index section of ``text``, if it has one."""
    doc = split(text)
    position = _index_position(doc)
    return None if position is None else doc.sections[position].text


def replace(text: str, index_text: str) -> str:
    """``text`` with ``index_text`` as its Index section, always the last section (verify wants it last)."""
    doc = split(text)
    position = _index_position(doc)
    expected = _shape(doc)
    if position is not None:
        del expected[position + 1]
        text = doc.header + "".join(s.text for n, s in enumerate(doc.sections) if n != position)
    base = text if not text or ends_line(text) else text + "\n"
    expected.append(normalized(index_text))
    return _check(base + index_text, expected, "the Index would not stay a section of its own")


@dataclasses.dataclass(frozen=True)
class Line:
    """One line of an Index: a cold or archive section of the agent, or a wiki topic."""

    id: str
    title: str
    tier: str
    last_used: dt.datetime | None  # in the team's time zone; the line shows its date

    def render(self) -> str:
        when = self.last_used.date().isoformat() if self.last_used else "date unknown"
        return f"- {self.id} ({self.tier}, {when}): {self.title}"


def order(lines: Sequence[Line]) -> list[Line]:
    """Newest first; unknown dates last; then by id."""
    known = sorted((x for x in lines if x.last_used), key=lambda x: x.id)
    known.sort(key=lambda x: x.last_used or dt.datetime.min.replace(tzinfo=dt.UTC), reverse=True)
    return known + sorted((x for x in lines if not x.last_used), key=lambda x: x.id)


def render(lines: Sequence[Line], cap: int, agent: str) -> str:
    """The Index section's text: heading, note, at most ``cap`` lines (the last says what is left out)."""
    ordered = order(lines)
    if len(ordered) > cap:
        shown = [x.render() for x in ordered[: max(cap - 1, 0)]]
        shown.append(f"- and {len(ordered) - len(shown)} more: squadmem list --agent {agent}")
    else:
        shown = [x.render() for x in ordered] or [EMPTY]
    return "\n".join([HEADING, NOTE, "", *shown]) + "\n"


def listed_ids(index_text: str) -> list[str]:
    """The ids an Index section lists (doctor checks they exist)."""
    found = []
    for row in sections.lines(index_text):
        match = _LINE_ID.match(row)
        if match:
            found.append(match.group(1))
    return found
