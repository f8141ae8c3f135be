"""Tier file texts cut into sections, incrementally: a new version is cut relative to the last.

Each section's content key (``sections.content_key``: normalized text,
hashed) is what history compares; the history pass cuts every version of
every tier file, so only the changed stretch of a version is scanned again.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import re
from collections.abc import Sequence

from squadmem.model import sections


@dataclasses.dataclass(frozen=True)
class Cut:
    """A tier file's text cut into sections: where each starts, where its heading ends, its content key."""

    text: str
    starts: tuple[int, ...]
    heads: tuple[int, ...]
    keys: tuple[bytes, ...]
    # (lo, old_hi, new_hi) when cut from a base: sections [lo, new_hi) stand where the base had
    # [lo, old_hi); before and after them, the base's sections in order with the same keys
    changed: tuple[int, int, int] | None = None


def _scan(text: str, offset: int = 0) -> tuple[list[int], list[int]]:
    """Section starts and heading ends of ``text`` read from a clean state, shifted by ``offset``.

    A part of a file (``offset`` > 0) that starts with U+FEFF is read behind a
    blank line: only a whole file's first character is a byte order mark.
    Text with no line that could open a block or make a heading other than
    ``## `` at the margin is cut by :func:`_quick`, the rest by the scanner.
    """
    quick = _quick(text, offset)
    if quick is not None:
        return quick
    lead = "\n" if offset and text.startswith("\ufeff") else ""
    found = sections.boundaries(lead + text)
    if not found:
        return [], []
    pos = [0, *itertools.accumulate(map(len, sections.lines(lead + text)))]
    offset -= len(lead)
    return [pos[b.line] + offset for b in found], [pos[b.line + b.heading_lines] + offset for b in found]


# A line :func:`_quick` leaves to the scanner: one that could open a fence (but at the margin), an HTML
# block (a comment closed on its own line is fine) or a block quote, make a setext underline, or hold a
# level-2 heading anywhere but at the margin (indented, or in a list item); list markers are looked through.
class _AtLines:
    """A pattern looked for at the start of each line, as ``^pattern`` in MULTILINE mode finds it.

    ``^`` gives the regex engine no first character to skip to, so it tries
    every position of the text; here the line starts are found through the
    newline before them (a literal it skips to), and the pattern is matched
    there. ``pos`` must be the start of a line.
    """

    def __init__(self, pattern: str) -> None:
        self._here = re.compile(pattern, re.MULTILINE)
        self._next = re.compile(f"\n(?:{pattern})", re.MULTILINE)

    def search(self, text: str, pos: int = 0, end: int | None = None) -> re.Match[str] | None:
        """The first match at a line start from ``pos`` on, ending by ``end``."""
        end = len(text) if end is None else end
        found = self._here.match(text, pos, end)
        if found is None:
            ahead = self._next.search(text, pos, end)
            found = self._here.match(text, ahead.start() + 1, end) if ahead is not None else None
        return found


_UNSURE = _AtLines(
    r"(?!##(?:[ \t]|$)|`{3}|~{3})(?:[ \t]*(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]|$))*[ \t]*"
    r"(?:<(?!!--.*-->)|>|##(?:[ \t]|$)|`{3}|~{3}|=+[ \t]*$|-+[ \t]*$)"
)
_MARGIN_H2 = _AtLines(r"##(?:[ \t][^\n]*)?(?:\n|\Z)")  # a match ends where the next line starts
_MARGIN_FENCE = _AtLines(r"(`{3,}|~{3,})([^\n]*)")
_INDENTED_FENCE = _AtLines(r"[ \t]+(?:`{3}|~{3})")


def _quick(text: str, offset: int) -> tuple[list[int], list[int]] | None:
    """:func:`_scan`'s answer without the scanner, or None when ``text`` needs it.

    Outside fences opened at the margin, when no line is :data:`_UNSURE`
    nothing can open that would hide a heading: every ATX ``## `` line at the
    margin ends what came before it (a paragraph, a list) and is a boundary,
    and nothing else is one. Inside such a fence every line is text, up to
    its closing line at the margin (or the end). A CR, U+FEFF, NUL, a fence
    line indented or a backtick in a backtick fence's info: the scanner's.
    ``tests/history_test.py`` holds it to the scanner.
    """
    if "\r" in text or "\ufeff" in text or "\0" in text:
        return None
    fenced = "```" in text or "~~~" in text
    starts: list[int] = []
    heads: list[int] = []
    pos = 0
    while True:
        fence = _MARGIN_FENCE.search(text, pos) if fenced else None
        stop = fence.start() if fence is not None else len(text)
        if _UNSURE.search(text, pos, stop):
            return None
        heading = _MARGIN_H2.search(text, pos, stop)
        while heading is not None:
            starts.append(heading.start() + offset)
            heads.append(heading.end() + offset)
            heading = _MARGIN_H2.search(text, heading.end(), stop)
        if fence is None:
            return starts, heads
        marker, info = fence.groups()
        if marker[0] == "`" and "`" in info:
            return None
        body = fence.end() + 1
        closing = _closer(marker).search(text, body)
        if _INDENTED_FENCE.search(text, body, closing.start() if closing else len(text)):
            return None
        if closing is None:
            return starts, heads
        pos = min(closing.end() + 1, len(text))


@functools.lru_cache(maxsize=64)
def _closer(marker: str) -> _AtLines:
    """The closing line at the margin of a fence opened with ``marker``."""
    return _AtLines(rf"{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")


def _keys(text: str, starts: Sequence[int], end: int) -> list[bytes]:
    if not starts:
        return []
    bounds = [*starts[1:], end]
    return [sections.content_key(text[a:b]) for a, b in zip(starts, bounds, strict=True)]


def _full(text: str) -> Cut:
    starts, heads = _scan(text)
    return Cut(text, tuple(starts), tuple(heads), tuple(_keys(text, starts, len(text))))


def cut(text: str, base: Cut | None = None) -> Cut:
    """``text`` cut into sections, reusing what is unchanged from ``base`` (an earlier version).

    After a top-level heading nothing is open, so from a section's start a
    document cuts exactly as the whole does. The sections in front whose
    headings both versions share are kept; from there, a section whose text
    and next heading are the old ones is stepped over with its old key, and
    only a changed stretch is scanned: from its start to the next old heading
    found after it, kept only if the scan finds a boundary exactly there (else
    the rest is scanned). The result is always the cut a full scan gives;
    ``tests/history_test.py`` holds that as a property.
    """
    if base is None or not base.starts:
        return _full(text)
    k = bisect.bisect_right(base.heads, _common_prefix(base.text, text)) - 1
    while k >= 0 and not _whole_line(text, base.heads[k], base.text[base.starts[k] : base.heads[k]]):
        k -= 1  # its heading was the old text's last line, and the new text goes on
    keep = max(k, 0)
    old = _Old(base)
    starts, heads, keys = list(base.starts[:keep]), list(base.heads[:keep]), list(base.keys[:keep])
    pos, expect = (base.starts[k], k) if k >= 0 else (0, 0)
    head: int | None = base.heads[k] if k >= 0 else None  # where the heading at pos ends; None: no heading
    while pos < len(text):
        at_boundary = head is not None
        if at_boundary and old.same_tail(text, pos, expect):
            shift = pos - base.starts[expect]
            changed = (keep, expect, len(starts))
            starts += map(shift.__add__, base.starts[expect:])
            heads += map(shift.__add__, base.heads[expect:])
            keys += base.keys[expect:]
            return Cut(text, tuple(starts), tuple(heads), tuple(keys), changed)
        hop = old.hop(text, pos, expect) if at_boundary else None
        if hop is not None:
            starts.append(pos)
            heads.append(pos + base.heads[hop] - base.starts[hop])
            keys.append(base.keys[hop])
            pos += old.ends[hop] - base.starts[hop]
            expect = hop + 1
            head = pos + base.heads[expect] - base.starts[expect] if expect < len(base.starts) else None
            continue
        found = old.resync(text, pos, expect, head)
        if found is None:
            more, more_heads = _scan(text[pos:], pos)
            starts += more
            heads += more_heads
            keys += _keys(text, more, len(text))
            break
        more, more_heads, pos, expect = found
        starts += more
        heads += more_heads
        keys += _keys(text, more, pos)
        head = pos + base.heads[expect] - base.starts[expect]
    return Cut(text, tuple(starts), tuple(heads), tuple(keys), (keep, len(base.starts), len(starts)))


class _Old:
    """An earlier cut, indexed for :func:`cut`."""

    def __init__(self, base: Cut) -> None:
        self.base = base
        self.ends = (*base.starts[1:], len(base.text))
        self._by_first_line: dict[str, list[int]] | None = None

    def body(self, index: int) -> str:
        return self.base.text[self.base.starts[index] : self.ends[index]]

    def heading(self, index: int) -> str:
        return self.base.text[self.base.starts[index] : self.base.heads[index]]

    def same_tail(self, text: str, pos: int, index: int) -> bool:
        """Is ``text`` from ``pos`` the old text from section ``index`` on, to the end?"""
        if index >= len(self.base.starts):
            return False
        start = self.base.starts[index]
        if not self.movable(start, pos):
            return False
        return len(text) - pos == len(self.base.text) - start and text.startswith(self.base.text[start:], pos)

    def movable(self, start: int, pos: int) -> bool:
        """May the old text at ``start`` be read the same at ``pos``? Not a U+FEFF between top and middle."""
        return self.base.text[start : start + 1] != "\ufeff" or (start == 0) == (pos == 0)

    def hop(self, text: str, pos: int, expect: int) -> int | None:
        """The old section that starts at ``pos`` unchanged and is followed by its old next heading."""
        line = _first_line(text, pos)
        if expect < len(self.base.starts):
            if self._follows(text, pos, expect):
                return expect
            if line == _first_line(self.base.text, self.base.starts[expect]):
                return None  # the expected section, edited
        if self._by_first_line is None:
            self._by_first_line = {}
            for index, start in enumerate(self.base.starts):
                self._by_first_line.setdefault(_first_line(self.base.text, start), []).append(index)
        for index in self._by_first_line.get(line, ()):
            if index != expect and self._follows(text, pos, index):
                return index
        return None

    def _follows(self, text: str, pos: int, index: int) -> bool:
        body = self.body(index)
        if not text.startswith(body, pos) or not self.movable(self.base.starts[index], pos):
            return False
        after = pos + len(body)
        if index + 1 == len(self.base.starts):
            return after == len(text)
        heading = self.heading(index + 1)
        return text.startswith(heading, after) and _whole_line(text, after + len(heading), heading)

    def resync(
        self, text: str, pos: int, expect: int, head: int | None
    ) -> tuple[list[int], list[int], int, int] | None:
        """Scan from ``pos`` to the nearest old heading found after it, if the scan confirms it there.

        Returns the section starts and heading ends before it, its position
        and its old index; None when no old heading can be confirmed. When
        ``pos`` starts a section whose heading ends at ``head`` and the text
        up to that old heading has no line that could make, hide or join a
        heading, no scan is needed: it is one section.
        """
        best: tuple[int, int] | None = None
        for index in range(expect, min(expect + 3, len(self.base.starts))):
            where = _find_line(text, self.heading(index), pos + 1)
            if (
                where >= 0
                and self.movable(self.base.starts[index], where)
                and (best is None or where < best[0])
            ):
                best = (where, index)
        if best is None:
            return None
        where, index = best
        heading = self.heading(index)
        if head is not None and head <= where and _plain(text[head:where], heading):
            return [pos], [head], where, index
        stop = where + len(heading)
        starts, heads = _scan(text[pos:stop], pos)
        if not starts or starts[-1] != where or heads[-1] != stop:
            return None
        return starts[:-1], heads[:-1], where, index


# A line that could be a level-2 heading or a setext underline, or open a fence, an HTML block (a
# comment closed on its own line is fine: the block ends there) or a block quote.
_RISKY = _AtLines(r"[ \t]*(?:##(?:[ \t]|$)|<(?!!--.*-->)|>|`{3}|~{3}|=+[ \t]*$|-+[ \t]*$)")


_ATX = re.compile(r"##(?:[ \t\r\n]|$)")


def _plain(body: str, heading: str) -> bool:
    """Can ``body``, after a section's heading, hold no boundary and leave ``heading`` one?

    True only when no line of it could begin a heading, an underline, a fence,
    an HTML block or a quote; the heading after it starts at the margin; and
    a setext heading has a blank line before it (else the paragraph would
    run into it). Anything else is left to the scanner.
    """
    if heading[:1] in (" ", "\t") or "\r" in body or _RISKY.search(body):
        return False
    return bool(_ATX.match(heading)) or not body or body.endswith("\n\n")


def _first_line(text: str, pos: int) -> str:
    end = text.find("\n", pos, pos + 200)
    return text[pos : pos + 200 if end < 0 else end + 1]


def _find_line(text: str, line: str, pos: int) -> int:
    """Where ``line`` (whole lines) next stands in ``text`` at or after ``pos``; -1 if nowhere."""
    while True:
        where = text.find(line, pos)
        if where < 0:
            return where
        if (where == 0 or text[where - 1] in "\r\n") and _whole_line(text, where + len(line), line):
            return where
        pos = where + 1


def _whole_line(text: str, end: int, piece: str) -> bool:
    """Does ``piece``, ending at ``end`` in ``text``, end where a line of ``text`` ends?"""
    if piece.endswith("\n"):
        return True
    if piece.endswith("\r"):
        return text[end : end + 1] != "\n"
    return end == len(text)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a.startswith(b) if len(b) <= len(a) else b.startswith(a):
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if b.startswith(a[lo:mid], lo):  # one copy a step, the half still in doubt
            lo = mid
        else:
            hi = mid
    return lo
