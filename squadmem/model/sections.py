"""The document model: a tier file as header + sections, split and joined back byte for byte.

Standard library only: hooks use it. A section is a top-level level-2
heading (ATX ``## `` or setext ``---``) and everything up to the next one;
its ``###`` children go with it. Splitting is byte-exact: ``split(x).join() == x``.
Which headings are boundaries is :mod:`squadmem.model.scanner`'s answer
(CommonMark's, as markdown-it-py gives it). Here: sections, their flag
comments, how sections are compared (:func:`normalize`, :func:`trimmed`), slugs.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from squadmem.model import scanner
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_NAME, is_name
from squadmem.model.scanner import boundaries
from squadmem.model.slug import slugify as slugify  # re-exported: ids are made here
from squadmem.model.values import Value

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_FLAGS = re.compile(r"\s*<!--\s*squadmem:(.*?)-->\s*")
KINDS = ("decision", "fact")
# The code that decides where a file is cut: history's cache is keyed on its source.
SOURCES = (Path(__file__), Path(scanner.__file__))


def lines(text: str) -> list[str]:
    """Lines with their endings (``\\n``, ``\\r\\n`` or a lone ``\\r``), nothing else splits."""
    if text.count("\r") != text.count("\r\n"):
        return _LINE.findall(text)  # a lone CR somewhere
    rows = text.split("\n")  # CRLF rows keep their CR
    last = rows.pop()
    found = [row + "\n" for row in rows]
    if last:
        found.append(last)
    return found


class Flags(Value):
    __slots__ = ("id", "kind", "pin", "topic")

    def __init__(
        self, id: str | None = None, pin: bool = False, kind: str | None = None, topic: str | None = None
    ) -> None:
        self.id = id
        self.pin = pin
        self.kind = kind
        self.topic = topic


FLAG_HINT = "flags are: id=NAME pin kind=decision|fact topic=NAME, each at most once"


class FlagError(SquadmemError, ValueError):
    """A ``<!-- squadmem: ... -->`` comment squadmem cannot accept."""

    def __init__(self, message: str) -> None:
        super().__init__(message, hint=FLAG_HINT)


def _shown(word: str) -> str:
    return repr(word if len(word) <= 60 else f"{word[:40]}...({len(word)} characters)")


def parse_flags(line: str) -> Flags | None:
    """The flags a ``<!-- squadmem: ... -->`` line sets, None if it is not one."""
    match = _FLAGS.fullmatch(line)
    if not match:
        return None
    values: dict[str, object] = {}
    for word in match.group(1).split():
        key, eq, value = word.partition("=")
        if key in values:
            raise FlagError(f"squadmem flag {key!r} given twice")
        if key == "pin" and not eq:
            values["pin"] = True
        elif key in ("id", "kind", "topic") and eq and value:
            if key != "kind" and not is_name(value):
                raise FlagError(
                    f"{key}={_shown(value)}: names are letters, digits, '.', '_' and '-',"
                    f" starting with a letter or digit, at most {MAX_NAME} characters"
                )
            values[key] = value
        else:
            raise FlagError(f"unknown squadmem flag {_shown(word)}")
    if values.get("kind") not in (None, *KINDS):
        raise FlagError(f"kind must be {' or '.join(KINDS)}, not {_shown(str(values['kind']))}")
    return Flags(**values)  # type: ignore[arg-type]


class Section(Value):
    __slots__ = ("flags", "heading_lines", "line", "raw_heading", "text")

    def __init__(self, text: str, raw_heading: str, heading_lines: int, line: int, flags: Flags) -> None:
        self.text = text  # exact source, heading through the line before the next section
        self.raw_heading = raw_heading
        self.heading_lines = heading_lines
        self.line = line  # 0-based line in the file where it starts
        self.flags = flags


class Document(Value):
    __slots__ = ("header", "sections")

    def __init__(self, header: str, sections: tuple[Section, ...]) -> None:
        self.header = header
        self.sections = sections

    def join(self) -> str:
        return self.header + "".join(s.text for s in self.sections)


def split(text: str) -> Document:
    """Header + sections; raises FlagError on a malformed flags comment."""
    found = boundaries(text)
    if not found:
        return Document(text, ())
    all_lines = lines(text)
    starts = [0, *itertools.accumulate(map(len, all_lines))]  # offset of each line, then len(text)
    sections = []
    for number, bound in enumerate(found):
        end = found[number + 1].line if number + 1 < len(found) else len(all_lines)
        flag_at = bound.line + bound.heading_lines
        flags = parse_flags(all_lines[flag_at].rstrip("\r\n")) if flag_at < end else None
        body = text[starts[bound.line] : starts[end]]
        sections.append(Section(body, bound.raw_heading, bound.heading_lines, bound.line, flags or Flags()))
    return Document(text[: starts[found[0].line]], tuple(sections))


def normalize(text: str) -> str:
    """A section's text as compared across history: LF line endings, trailing blank lines trimmed."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.lstrip("\ufeff").rstrip()


def trimmed(text: str) -> str:
    """A section's text as compared within one tree: trailing blank lines and the last line ending dropped.

    The one rule for "the same section" in moves, merges and ``verify`` (line endings otherwise
    kept, unlike :func:`normalize`, which history uses across commits).
    """
    rows = lines(text)
    while rows and not rows[-1].strip():
        rows.pop()
    return "".join(rows).rstrip("\r\n")


def content_key(text: str) -> bytes:
    """How history, intake and verify know a section's content: a hash of its normalized text."""
    import hashlib  # here: loading OpenSSL's hashes costs every command's start-up a few milliseconds

    return hashlib.blake2b(normalize(text).encode("utf-8", "surrogatepass"), digest_size=16).digest()


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
