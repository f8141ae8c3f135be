"""The section scanner: split a tier file into header + sections, join it back.

Standard library only: hooks use it. A section is a top-level level-2
heading (ATX ``## `` or setext ``---``) and everything up to the next one;
its ``###`` children go with it. Splitting is byte-exact: ``split(x).join() == x``.

PLACEHOLDER scanner (ATX + backtick fences only); the CommonMark-exact one
replaces it.
"""

from __future__ import annotations

import dataclasses
import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_FLAGS = re.compile(r"\s*<!--\s*squadmem:(.*?)-->\s*")
_SLUG_RUN = re.compile(r"[\W_]+")
KINDS = ("decision", "fact")


def lines(text: str) -> list[str]:
    """Lines with their endings (``\\n``, ``\\r\\n`` or a lone ``\\r``), nothing else splits."""
    return _LINE.findall(text)


@dataclasses.dataclass(frozen=True)
class Boundary:
    line: int  # 0-based index of the section's first line
    heading_lines: int  # lines the heading spans (setext: paragraph lines + underline)
    raw_heading: str  # heading source text: ATX content without the #s, setext lines joined by a space


def boundaries(text: str) -> list[Boundary]:
    found = []
    fence: str | None = None
    for index, line in enumerate(lines(text)):
        stripped = line.rstrip("\r\n")
        if fence:
            if stripped.strip().startswith(fence):
                fence = None
            continue
        if stripped.startswith("```"):
            fence = "```"
            continue
        match = re.match(r" {0,3}##(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$", stripped)
        if match:
            found.append(Boundary(index, 1, (match.group(1) or "").strip()))
    return found


@dataclasses.dataclass(frozen=True)
class Flags:
    id: str | None = None
    pin: bool = False
    kind: str | None = None
    topic: str | None = None


class FlagError(ValueError):
    """A ``<!-- squadmem: ... -->`` comment squadmem cannot accept."""


def parse_flags(line: str) -> Flags | None:
    """The flags a ``<!-- squadmem: ... -->`` line sets, None if it is not one."""
    match = _FLAGS.fullmatch(line)
    if not match:
        return None
    values: dict[str, object] = {}
    for word in match.group(1).split():
        key, eq, value = word.partition("=")
        if key == "pin" and not eq:
            values["pin"] = True
        elif key in ("id", "kind", "topic") and eq and value:
            values[key] = value
        else:
            raise FlagError(f"unknown squadmem flag {word!r}")
    if values.get("kind") not in (None, *KINDS):
        raise FlagError(f"kind must be {' or '.join(KINDS)}, not {values['kind']!r}")
    return Flags(**values)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class Section:
    text: str  # exact source, heading through the line before the next section
    raw_heading: str
    heading_lines: int
    line: int  # 0-based line in the file where it starts
    flags: Flags

    @property
    def flag_line(self) -> str | None:
        """The ``<!-- squadmem: -->`` line right after the heading, if any."""
        body = lines(self.text)[self.heading_lines : self.heading_lines + 1]
        return body[0] if body and _FLAGS.fullmatch(body[0].rstrip("\r\n")) else None


@dataclasses.dataclass(frozen=True)
class Document:
    header: str
    sections: tuple[Section, ...]

    def join(self) -> str:
        return self.header + "".join(s.text for s in self.sections)


def split(text: str) -> Document:
    """Header + sections; raises FlagError on a malformed flags comment."""
    all_lines = lines(text)
    found = boundaries(text)
    header = "".join(all_lines[: found[0].line]) if found else text
    sections = []
    for number, bound in enumerate(found):
        end = found[number + 1].line if number + 1 < len(found) else len(all_lines)
        body = all_lines[bound.line : end]
        after = body[bound.heading_lines] if len(body) > bound.heading_lines else ""
        flags = parse_flags(after.rstrip("\r\n")) or Flags()
        sections.append(Section("".join(body), bound.raw_heading, bound.heading_lines, bound.line, flags))
    return Document(header, tuple(sections))


def slugify(title: str) -> str:
    """Lowercase, each run of characters that are not letters or digits turned into ``-``."""
    return _SLUG_RUN.sub("-", title.lower()).strip("-") or "section"


def assign_slugs(base: list[str]) -> list[str]:
    """Repeats within one owner get ``-2``, ``-3``... in file order."""
    seen: dict[str, int] = {}
    taken = set(base)
    result = []
    for slug in base:
        count = seen.get(slug, 0) + 1
        seen[slug] = count
        candidate = slug if count == 1 else f"{slug}-{count}"
        while count > 1 and candidate in taken:
            count += 1
            candidate = f"{slug}-{count}"
        seen[slug] = count
        taken.add(candidate)
        result.append(candidate)
    return result
