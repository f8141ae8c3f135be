"""The block scanner: where a tier file's top-level level-2 headings are.

Standard library only: hooks use it (through :mod:`squadmem.model.sections`).

Which headings are boundaries is CommonMark's answer, and the contract is
markdown-it-py in ``commonmark`` mode: a boundary is exactly a ``heading_open``
``h2`` token at level 0 (not inside a list item or a block quote), at the
line of its ``map[0]``. ``_Blocks`` below follows markdown-it's block
algorithm rule for rule, its departures from the spec included (they are
pinned in the tests), but keeps only the structure: no tokens and no inline
parsing, a string test or a regex per line. One departure: a leading BOM is
skipped (as cmark does; markdown-it would read it as text), so a file saved
with a BOM still has its first ``## A`` as a boundary.
"""

from __future__ import annotations

import re

from squadmem.model.values import Value


class Boundary(Value):
    __slots__ = ("heading_lines", "line", "raw_heading")

    def __init__(self, line: int, heading_lines: int, raw_heading: str) -> None:
        self.line = line  # 0-based index of the section's first line
        self.heading_lines = heading_lines  # lines the heading spans (setext: paragraph lines + underline)
        self.raw_heading = raw_heading  # heading source text: ATX content without the #s, setext lines joined


def boundaries(text: str) -> list[Boundary]:
    """One Boundary per top-level level-2 heading (ATX or setext), in file order."""
    # A leading byte order mark is not text (cmark skips it too): `\ufeff## A` is a heading.
    blocks = _Blocks(text.removeprefix("\ufeff"))
    blocks.tokenize(0, blocks.line_max)
    return blocks.found


# --- the block scanner -------------------------------------------------------------------------

_MAX_NESTING = 20  # markdown-it's maxNesting: deeper containers swallow the rest of their range
# A line can end a paragraph (or a block quote's lazy run) only if it starts with one of these,
# and a block other than a paragraph can start only with one of these or ``[`` (a definition).
_INTERRUPT_START = frozenset("`~>#<*-_+0123456789")
_BLOCK_START = _INTERRUPT_START | {"["}
# What markdown-it's mdTrim strips: JavaScript's trim() set minus U+FEFF.
_MD_TRIM = (
    "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_ATX = re.compile(r"#{1,6}(?=[ \t]|$)")
_HR = re.compile(r"([*_-])[ \t]*(?:\1[ \t]*){2,}$")
_UNDERLINE = re.compile(r"(?:-+|=+)[ \t]*$")
_MARKER = re.compile(r"(?:([0-9]{1,9})[.)]|[*+-])(?=[ \t]|$)")  # ordered: group 1 holds the number
_ESCAPE_OR_ENTITY = re.compile(r"\\([!-/:-@[-`{-~])|&([a-z#][a-z0-9]{1,31});", re.IGNORECASE)
_NUMERIC_ENTITY = re.compile(r"#(?:([0-9]{1,8})|[xX]([0-9a-fA-F]{1,8}))")
# Runs of characters the link destination and title parsers just step over.
_PLAIN_DESTINATION = re.compile(r"[^\x00-\x20\x7f\\()]+")
_PLAIN_BRACKETED = re.compile(r"[^\n<>\\]+")
_PLAIN_TITLE = {closer: re.compile(rf"[^\\(){re.escape(closer)}]+") for closer in "\"')"}
_BAD_PROTOCOL = re.compile(r"(?:vbscript|javascript|file|data):")
_GOOD_DATA = re.compile(r"data:image/(?:gif|png|jpeg|webp);")

# The seven CommonMark HTML block kinds, as markdown-it writes them: (start, end, can interrupt a
# paragraph). An end of None means the block ends at a blank line (kinds 6 and 7).
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|"
    "head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|"
    "p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_ATTRIBUTE = (
    r"(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*"
    r"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)"
)
_OPEN_OR_CLOSE_TAG = rf"(?:<[A-Za-z][A-Za-z0-9\-]*{_ATTRIBUTE}*\s*/?>|</[A-Za-z][A-Za-z0-9\-]*\s*>)"
_IC = re.IGNORECASE
_HTML_BLOCKS = (  # (start, end, can interrupt a paragraph, flags), compiled as a row first needs each
    (r"<(?a:script|pre|style|textarea)(?=\s|>|$)", r"</(?a:script|pre|style|textarea)>", True, _IC),
    (r"<!--", r"-->", True, 0),
    (r"<\?", r"\?>", True, 0),
    (r"<![A-Za-z]", r">", True, 0),
    (r"<!\[CDATA\[", r"\]\]>", True, 0),
    (rf"</?(?a:{_BLOCK_TAGS})(?=\s|/?>|$)", None, True, _IC),
    (rf"{_OPEN_OR_CLOSE_TAG}\s*$", None, False, 0),
)
# Compiling kind 7's pattern alone takes milliseconds, which every command would pay at start-up
# (the hooks too); most files never reach it.
_compiled: list[tuple[re.Pattern[str], re.Pattern[str] | None, bool]] = []


def _html_kind(row: str, pos: int) -> tuple[re.Pattern[str] | None, bool] | None:
    """The end condition and interrupt flag of the HTML block starting at row[pos], if one does."""
    for kind, (start, end, interrupts, flags) in enumerate(_HTML_BLOCKS):
        if kind == len(_compiled):
            _compiled.append(
                (re.compile(start, flags), None if end is None else re.compile(end, flags), interrupts)
            )
        pattern, ended, interrupts = _compiled[kind]
        if pattern.match(row, pos):
            return ended, interrupts
    return None


def _indent_width(row: str, count: int) -> int:
    """Columns taken by the first ``count`` characters (spaces and tabs, tab stops of 4)."""
    width = 0
    for char in row[:count]:
        width += 4 - width % 4 if char == "\t" else 1
    return width


def _unescape(text: str) -> str:
    """markdown-it's unescapeAll: backslash escapes and entity references."""
    return _ESCAPE_OR_ENTITY.sub(_unescape_one, text) if "\\" in text or "&" in text else text


def _unescape_one(match: re.Match[str]) -> str:
    if match.group(1):
        return match.group(1)
    name = match.group(2)
    import html.entities  # here: only a link definition with an entity in it needs the table

    if name + ";" in html.entities.html5:
        return html.entities.html5[name + ";"]
    number = _NUMERIC_ENTITY.fullmatch(name)
    if number is None:
        return match.group()
    code = int(number.group(1), 10) if number.group(1) else int(number.group(2), 16)
    invalid = (
        0xD800 <= code <= 0xDFFF
        or 0xFDD0 <= code <= 0xFDEF
        or code & 0xFFFF in (0xFFFE, 0xFFFF)
        or code <= 0x08
        or code == 0x0B
        or 0x0E <= code <= 0x1F
        or 0x7F <= code <= 0x9F
        or code > 0x10FFFF
    )
    return match.group() if invalid else chr(code)


def _link_destination(text: str, pos: int) -> tuple[int, str] | None:
    """markdown-it's parseLinkDestination: where it ends and its unescaped text, or None."""
    start = pos
    if pos < len(text) and text[pos] == "<":
        pos += 1
        while pos < len(text):
            if plain := _PLAIN_BRACKETED.match(text, pos):
                pos = plain.end()
                continue
            char = text[pos]
            if char in "\n<":
                return None
            if char == ">":
                return pos + 1, _unescape(text[start + 1 : pos])
            pos += 2 if char == "\\" and pos + 1 < len(text) else 1
        return None
    level = 0
    while pos < len(text):
        if plain := _PLAIN_DESTINATION.match(text, pos):
            pos = plain.end()
            continue
        char = text[pos]
        if char == " " or char < " " or char == "\x7f":
            break
        if char == "\\" and pos + 1 < len(text):
            if text[pos + 1] == " ":
                break
            pos += 2
            continue
        if char == "(":
            level += 1
            if level > 32:
                return None
        elif char == ")":
            if level == 0:
                break
            level -= 1
        pos += 1
    if pos == start or level:
        return None
    return pos, _unescape(text[start:pos])


def _link_title(text: str, pos: int, closer: str) -> tuple[str, int, str]:
    """markdown-it's parseLinkTitle: ("ok" | "more" | "no", position, closing character).

    ``closer`` is empty for a new title, else the closing character of one continued from the
    line before. "more" means the text ended inside the title.
    """
    if not closer:
        if pos >= len(text) or text[pos] not in "\"'(":
            return "no", pos, closer
        closer = ")" if text[pos] == "(" else text[pos]
        pos += 1
    plain_run = _PLAIN_TITLE[closer]
    while pos < len(text):
        if plain := plain_run.match(text, pos):
            pos = plain.end()
            continue
        char = text[pos]
        if char == closer:
            return "ok", pos + 1, closer
        if char == "(" and closer == ")":
            return "no", pos, closer
        pos += 2 if char == "\\" and pos + 1 < len(text) else 1
    return "more", pos, closer


def _skip_spaces(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _safe_link(destination: str) -> bool:
    """markdown-it's validateLink, on the destination as normalizeLink would give it to it.

    normalizeLink (mdurl) trims the destination and percent-encodes it; neither changes whether it
    starts with a protocol markdown-it refuses, so trimming and lowercasing here is enough.
    """
    url = destination.strip().lower()
    return not _BAD_PROTOCOL.match(url) or _GOOD_DATA.match(url) is not None


class _State:
    """markdown-it's block parser reduced to structure: its state, the lines and their caches.

    Each rule below mirrors the markdown-it-py rule of the same name (``rules_block/*.py``), and
    the per-line arrays are its StateBlock caches, with offsets local to each line:
    ``bm`` bMarks, ``ts`` tShift, ``sc`` sCount, ``bs`` bsCount. Block quotes and list items
    rewrite them for their lines and restore them afterwards, exactly as markdown-it does.
    """

    def __init__(self, text: str) -> None:
        rows = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.unterminated = len(rows) - 1  # the last line, when no newline ends it
        if not rows[-1].strip(" \t"):
            self.unterminated = -1
            rows.pop()  # after the last newline, or a last line of blanks: markdown-it gives it no line
        self.line_max = len(rows)
        self.ts = [len(row) - len(row.lstrip(" \t")) for row in rows]
        if "\t" in text:
            self.sc = [
                _indent_width(r, t) if "\t" in r[:t] else t for r, t in zip(rows, self.ts, strict=True)
            ]
        else:
            self.sc = self.ts.copy()
        rows.append("")  # markdown-it's fake last line, for bounds
        self.rows = rows
        self.ts.append(0)
        self.sc.append(0)
        self.bm = [0] * len(rows)
        self.bs = [0] * len(rows)
        self.blk = 0  # blkIndent: the content column of the innermost list item
        self.list_indent = -1  # listIndent: the blkIndent around that list item
        self.level = 0  # containers open (block quotes, lists, list items): 0 is the top level
        self.line = 0  # state.line: where the rule that just ran stopped
        self.found: list[Boundary] = []

    def is_empty(self, line: int) -> bool:
        return self.bm[line] + self.ts[line] >= len(self.rows[line])

    def interrupts(self, line: int, in_paragraph: bool) -> bool:
        """Whether a block starting at ``line`` ends a paragraph (:meth:`_Blocks.interrupts`)."""
        raise NotImplementedError


class _Leaves(_State):
    """markdown-it's leaf block rules: code, fence, heading, paragraph, reference, html_block."""

    @staticmethod
    def fence_opens(row: str, pos: int) -> bool:
        match = _FENCE.match(row, pos)
        return match is not None and not (row[pos] == "`" and "`" in match.group(2))

    def code(self, start: int, end: int) -> None:
        rows, bm, ts, sc, blk = self.rows, self.bm, self.ts, self.sc, self.blk
        last = line = start + 1
        while line < end:
            if bm[line] + ts[line] >= len(rows[line]):
                line += 1
            elif sc[line] - blk >= 4:
                line += 1
                last = line
            else:
                break
        self.line = last

    def fence(self, start: int, end: int) -> bool:
        row = self.rows[start]
        pos = self.bm[start] + self.ts[start]
        if not self.fence_opens(row, pos):
            return False
        marker = row[pos]
        size = len(row) - len(row[pos:].lstrip(marker)) - pos
        rows, bm, ts, sc, blk = self.rows, self.bm, self.ts, self.sc, self.blk
        line = start + 1
        closed = False
        while line < end:
            row = rows[line]
            pos = bm[line] + ts[line]
            if pos < len(row):
                if sc[line] < blk:
                    break
                if row[pos] == marker and sc[line] - blk < 4:
                    run = row[pos:].lstrip(marker)
                    if len(row) - pos - len(run) >= size and not run.strip(" \t"):
                        closed = True
                        break
            line += 1
        self.line = line + 1 if closed else line
        return True

    def heading(self, line: int, row: str, pos: int) -> bool:
        match = _ATX.match(row, pos)
        if match is None:
            return False
        self.line = line + 1
        if self.level == 0 and match.end() - pos == 2:
            content = row[match.end() :].rstrip(" \t")
            bare = content.rstrip("#")
            if bare and bare[-1] in " \t":
                content = bare
            self.found.append(Boundary(line, 1, content.strip(_MD_TRIM)))
        return True

    def paragraph(self, start: int, end: int) -> None:
        """A paragraph, or a setext heading when an underline ends it (lheading + paragraph)."""
        rows, bm, ts, sc, blk = self.rows, self.bm, self.ts, self.sc, self.blk
        line = start + 1
        line_max = self.line_max
        underline = ""
        while line < line_max:
            row = rows[line]
            pos = bm[line] + ts[line]
            if pos >= len(row):
                break
            indent = sc[line]
            if indent - blk > 3 or indent < 0:  # lazy text, or already checked by a block quote
                line += 1
                continue
            char = row[pos]
            if char in _INTERRUPT_START or char == "=":
                if indent >= blk and line < end and char in "-=" and _UNDERLINE.match(row, pos):
                    underline = char
                    break
                if self.interrupts(line, True):
                    break
            line += 1
        if not underline:
            self.line = line
            return
        self.line = line + 1
        if self.level == 0 and underline == "-":
            title = " ".join(rows[i].strip(_MD_TRIM) for i in range(start, line))
            self.found.append(Boundary(start, line - start + 1, title))

    def reference(self, start: int) -> bool:
        """A link reference definition (markdown-it's reference rule); it can span lines."""
        text = self.rest_of_line(start)
        line = start + 1
        pos = 1
        label_end = -1
        while pos < len(text):  # the label, up to its ``]``
            char = text[pos]
            if char == "[":
                return False
            if char == "]":
                label_end = pos
                break
            if char == "\\":
                pos += 1
            if pos < len(text) and text[pos] == "\n" and (more := self.definition_line(line)) is not None:
                text += more
                line += 1
            pos += 1
        if label_end < 0 or text[label_end + 1 : label_end + 2] != ":":
            return False
        if not text[1:label_end].strip(_MD_TRIM):
            return False  # an empty label; markdown-it checks this last, but it has no side effect
        pos, text, line = self.skip_blank(text, label_end + 2, line)
        destination = _link_destination(text, pos)
        if destination is None or not _safe_link(destination[1]):
            return False
        destination_end = pos = destination[0]
        destination_line = line
        pos, text, line = self.skip_blank(text, pos, line)
        status, title_end, closer = _link_title(text, pos, "")
        title_start = pos
        while status == "more" and (more := self.definition_line(line)) is not None:
            pos = len(text)
            text += more
            line += 1
            status, title_end, closer = _link_title(text, pos, closer)
        if pos < len(text) and pos != destination_end and status == "ok":  # pos: as markdown-it moves it
            titled = title_end - title_start > 2  # markdown-it tests the title's text, not its quotes
            pos = title_end
        else:
            titled = False
            pos, line = destination_end, destination_line
        pos = _skip_spaces(text, pos)
        if pos < len(text) and text[pos] != "\n" and titled:
            pos, line = _skip_spaces(text, destination_end), destination_line  # garbage after the title
        if pos < len(text) and text[pos] != "\n":
            return False
        self.line = line
        return True

    def rest_of_line(self, line: int) -> str:
        """The line from its content on, with its newline (markdown-it's ``src[pos:max + 1]``)."""
        rest = self.rows[line][self.bm[line] + self.ts[line] :]
        return rest if line == self.unterminated else rest + "\n"

    def definition_line(self, line: int) -> str | None:
        """markdown-it's getNextLine: the next line of a definition, None where one cannot go on."""
        if line >= self.line_max or self.is_empty(line):
            return None
        if self.sc[line] >= 0 and self.interrupts(line, False):
            return None
        return self.rest_of_line(line)

    def skip_blank(self, text: str, pos: int, line: int) -> tuple[int, str, int]:
        """Skip spaces, tabs and newlines, reading in the next line at each newline."""
        while pos < len(text):
            char = text[pos]
            if char == "\n":
                if (more := self.definition_line(line)) is not None:
                    text += more
                    line += 1
            elif char not in " \t":
                break
            pos += 1
        return pos, text, line

    def html_block(self, start: int, end: int) -> bool:
        row = self.rows[start]
        pos = self.bm[start] + self.ts[start]
        kind = _html_kind(row, pos)
        if kind is None:
            return False
        close = kind[0]
        line = start + 1
        if close is None or not close.search(row, pos):
            rows, bm, ts, sc, blk = self.rows, self.bm, self.ts, self.sc, self.blk
            while line < end:
                row = rows[line]
                pos = bm[line] + ts[line]
                blank = pos >= len(row)
                if sc[line] < blk and (close is None or not blank):
                    break
                if close is None:
                    if blank:
                        break
                elif close.search(row, pos):
                    line += 1
                    break
                line += 1
        self.line = line
        return True


class _Blocks(_Leaves):
    """The block loop (``tokenize``), the choice of rule (``block``), the paragraph terminators and
    the container rules (block quotes, lists, list items); collects the top-level h2 boundaries."""

    def tokenize(self, start: int, end: int) -> None:
        """Parse the blocks of lines ``start`` to ``end``, stopping early at one less indented."""
        rows, bm, ts, sc = self.rows, self.bm, self.ts, self.sc
        blk = self.blk
        line_max = self.line_max  # a nested block quote changes it, and restores it before returning
        line = start
        while line < end:
            while line < line_max and bm[line] + ts[line] >= len(rows[line]):
                line += 1
            self.line = line
            if line >= end or sc[line] < blk:
                break
            if self.level >= _MAX_NESTING:
                self.line = end
                break
            if sc[line] - blk < 4 and rows[line][bm[line] + ts[line]] not in _BLOCK_START:
                self.paragraph(line, end)  # the common case, straight to the only rule that can match
            else:
                self.block(line, end)
            line = self.line
            if line < end and bm[line] + ts[line] >= len(rows[line]):
                line += 1
                self.line = line

    def block(self, line: int, end: int) -> None:
        """Run the first rule that matches at ``line``, in markdown-it's order.

        code, fence, blockquote, hr, list, reference, html_block, heading, lheading, paragraph:
        apart from code, each needs its own first character, so the character picks the rules.
        """
        if self.sc[line] - self.blk >= 4:
            self.code(line, end)
            return
        row = self.rows[line]
        pos = self.bm[line] + self.ts[line]
        char = row[pos]
        if char == ">":
            self.blockquote(line, end)
        elif char in "*-_" and _HR.match(row, pos):
            self.line = line + 1
        elif not (
            (char in "`~" and self.fence(line, end))
            or (char in "*-+0123456789" and self.list(line, end))
            or (char == "[" and self.reference(line))
            or (char == "<" and self.html_block(line, end))
            or (char == "#" and self.heading(line, row, pos))
        ):
            self.paragraph(line, end)

    def interrupts(self, line: int, in_paragraph: bool) -> bool:
        """Whether a block starting at ``line`` ends a paragraph or a block quote's lazy run.

        markdown-it's terminator rules for "paragraph" and "blockquote" (fence, blockquote, hr,
        list, html_block, heading) in silent mode; ``in_paragraph`` is its parentType test.
        """
        row = self.rows[line]
        pos = self.bm[line] + self.ts[line]
        if pos >= len(row) or self.sc[line] - self.blk >= 4:
            return False
        char = row[pos]
        if char not in _INTERRUPT_START:
            return False
        if char in "`~":
            return self.fence_opens(row, pos)
        if char == ">":
            return True
        if char == "#":
            return _ATX.match(row, pos) is not None
        if char == "<":
            kind = _html_kind(row, pos)
            return kind is not None and kind[1]
        if char in "*-_" and _HR.match(row, pos):
            return True
        return char != "_" and self.list_opens(line, in_paragraph)

    def blockquote(self, start: int, end: int) -> None:
        """Strip ``>`` from the quote's lines (lazy lines get sCount -1), parse them, restore."""
        rows, bm, ts, sc, bs = self.rows, self.bm, self.ts, self.sc, self.bs
        old_line_max = self.line_max
        saved: list[tuple[int, int, int, int]] = []
        last_line_empty = self.quote_line(start, saved)
        line = start + 1
        while line < end:
            row = rows[line]
            pos = bm[line] + ts[line]
            if pos >= len(row):
                break
            if row[pos] == ">" and sc[line] >= self.blk:
                last_line_empty = self.quote_line(line, saved)
                line += 1
                continue
            if last_line_empty:
                break
            if self.interrupts(line, False):
                self.line_max = line  # markdown-it's "hard termination" of paragraphs
                if self.blk:
                    saved.append((bm[line], ts[line], sc[line], bs[line]))
                    sc[line] -= self.blk
                break
            saved.append((bm[line], ts[line], sc[line], bs[line]))
            sc[line] = -1  # lazy continuation line
            line += 1
        old_indent = self.blk
        self.blk = 0
        self.level += 1
        self.tokenize(start, line)
        self.level -= 1
        self.line_max = old_line_max
        for index, marks in enumerate(saved, start):
            bm[index], ts[index], sc[index], bs[index] = marks
        self.blk = old_indent

    def quote_line(self, line: int, saved: list[tuple[int, int, int, int]]) -> bool:
        """Move ``line``'s marks past its ``>`` and one optional space; True if nothing follows."""
        row = self.rows[line]
        bm, ts, sc, bs = self.bm, self.ts, self.sc, self.bs
        saved.append((bm[line], ts[line], sc[line], bs[line]))
        pos = bm[line] + ts[line] + 1
        initial = offset = sc[line] + 1
        adjust_tab = 0
        space_after = 0
        if pos < len(row):
            if row[pos] == " ":
                pos += 1
                initial += 1
                offset += 1
                space_after = 1
            elif row[pos] == "\t":
                space_after = 1
                if (bs[line] + offset) % 4 == 3:
                    pos += 1
                    initial += 1
                    offset += 1
                else:
                    adjust_tab = 1
        bm[line] = pos
        rest = row[pos:]
        blank = rest.lstrip(" \t")
        if "\t" in rest[: len(rest) - len(blank)]:
            for char in rest[: len(rest) - len(blank)]:
                offset += 4 - (offset + bs[line] + adjust_tab) % 4 if char == "\t" else 1
        else:
            offset += len(rest) - len(blank)
        bs[line] = sc[line] + 1 + space_after
        sc[line] = offset - initial
        ts[line] = len(rest) - len(blank)
        return not blank

    def list(self, start: int, end: int) -> bool:
        """A bullet or ordered list: parse item after item while the next line continues it."""
        rows, bm, ts, sc = self.rows, self.bm, self.ts, self.sc
        if self.list_indent >= 0 and sc[start] - self.list_indent >= 4 and sc[start] < self.blk:
            return False
        match = _MARKER.match(rows[start], bm[start] + ts[start])
        if match is None:
            return False
        marker = rows[start][match.end() - 1]  # also tells the list's type: ``.`` or ``)`` is ordered
        self.level += 1
        line = start
        while True:
            follower = self.item(line, end, match.end())
            if follower is not None:
                self.line = follower
            line = self.line
            if line >= end or sc[line] < self.blk or sc[line] - self.blk >= 4:
                break
            row = rows[line]
            pos = bm[line] + ts[line]
            match = _MARKER.match(row, pos)
            if match is None or row[match.end() - 1] != marker:
                break
            if row[pos] in "*-" and _HR.match(row, pos):
                break  # of the list's terminators (fence, blockquote, hr) only hr can start so
        self.level -= 1
        return True

    def item(self, line: int, end: int, after: int) -> int | None:
        """Parse the list item whose marker ends at ``after``; sets self.line, or returns where it ends."""
        rows, bm, ts, sc = self.rows, self.bm, self.ts, self.sc
        row = rows[line]
        initial = offset = sc[line] + after - (bm[line] + ts[line])
        content = row[after:].lstrip(" \t")
        gap_chars = len(row) - after - len(content)
        if "\t" in row[after : after + gap_chars]:
            for char in row[after : after + gap_chars]:
                offset += 4 - (offset + self.bs[line]) % 4 if char == "\t" else 1
        else:
            offset += gap_chars
        gap = offset - initial if content else 1
        if (
            content
            and gap <= 4
            and content[0] not in _BLOCK_START
            and line + 1 < end
            and line + 1 < self.line_max
            and self.level + 1 < _MAX_NESTING
        ):
            # The commonest item: one line of text, then a sibling item. tokenize would find a
            # one-line paragraph interrupted by the sibling (below the item's indent), and stop.
            follower = line + 1
            indent = sc[follower]
            pos = bm[follower] + ts[follower]
            if (
                pos < len(rows[follower])
                and 0 <= indent < initial + gap
                and indent - self.blk < 4
                and _MARKER.match(rows[follower], pos)
            ):
                return follower
        old_ts, old_sc, old_list_indent = ts[line], sc[line], self.list_indent
        self.list_indent = self.blk
        self.blk = initial + (gap if gap <= 4 else 1)
        ts[line] = len(row) - len(content) - bm[line]
        sc[line] = offset
        self.level += 1
        if not content and self.is_empty(line + 1):
            self.line = min(line + 2, end)  # an empty item followed by a blank line ends there
        else:
            self.tokenize(line, end)
        self.level -= 1
        self.blk, self.list_indent = self.list_indent, old_list_indent
        ts[line], sc[line] = old_ts, old_sc
        return None

    def list_opens(self, line: int, in_paragraph: bool) -> bool:
        """markdown-it's list rule in silent mode (a list item interrupting something)."""
        indent = self.sc[line]
        if self.list_indent >= 0 and indent - self.list_indent >= 4 and indent < self.blk:
            return False
        row = self.rows[line]
        match = _MARKER.match(row, self.bm[line] + self.ts[line])
        if match is None:
            return False
        if not in_paragraph or indent < self.blk:
            return True
        if match.group(1) is not None and int(match.group(1)) != 1:
            return False  # only an ordered list starting at 1 may interrupt a paragraph
        return bool(row[match.end() :].strip(" \t"))  # and no empty item may
