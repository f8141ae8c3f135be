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

import bisect
import dataclasses
import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping, Sequence

from squadmem.engine import catalog, titles
from squadmem.engine.catalog import INDEX_TITLE
from squadmem.model import sections
from squadmem.model.layout import classify
from squadmem.model.places import Places
from squadmem.model.render import named
from squadmem.model.sections import trimmed

HEADING = f"## {INDEX_TITLE}"
INDEX_BASE = sections.slugify(INDEX_TITLE)
NOTE = "<!-- Written by squadmem maintain after each run; edits here are replaced. -->"
EMPTY = "- nothing in cold, archive or the wiki yet"
_LINE_ID = re.compile(r"- (\S+) \(")
SEPARATOR = "—"  # between a line's title and its file
# the memory-tiers skill's header line in MEMORY.md, kept current by each Index refresh
_MAINTAINED = re.compile(r"(<!--\s*last_maintained:[ \t]*)([^\s>]*)([ \t]*-->)", re.IGNORECASE)
_LINE_PLACE = re.compile(r"- (.+) — (\S+) \([^()]*\)$")
_LINE_DAY = re.compile(r"[(, ](\d{4}-\d{2}-\d{2})\)$")
_LINE_DATE = re.compile(r"- (.+?) \([a-z]+, (?:[^()]*, )?(\d{4}-\d{2}-\d{2})\)")


class SpliceError(ValueError):
    """A splice would change other sections' boundaries; nothing was changed."""


@functools.lru_cache(maxsize=256)
def split(text: str) -> sections.Document:
    """``sections.split``, remembered: a run splits the same few texts many times."""
    return sections.split(text)


def memory(texts: Mapping[str, str], places: Places) -> catalog.Memory:
    """``catalog.from_texts`` over texts already known to parse, with :func:`split`'s memory."""
    docs = []
    for rel, text in texts.items():
        tf = classify(rel, places)
        if tf is not None:
            docs.append(catalog.TierDoc(tf, text, split(text)))
    return catalog.build(docs, places)


def blank_ended(text: str) -> str:
    """``text`` ended by a blank line, as the Index is set apart from what comes before it (nothing
    added to an empty text or one that ends so already). A trailing blank line is no part of a
    section's content: every comparison trims it."""
    if not text:
        return text
    if not ends_line(text):
        text += "\n"
    if sections.lines(text)[-1].strip():
        text += "\r\n" if text.endswith("\r\n") else "\n"
    return text


def stamped(header: str, day: str) -> str:
    """``header`` with its ``<!-- last_maintained: DATE -->`` line (the memory-tiers skill's, if it
    has one) saying ``day``; nothing is added to a header without one."""
    return _MAINTAINED.sub(lambda m: m.group(1) + day + m.group(3), header, count=1)


def unstamped(header: str) -> str:
    """``header`` as an Index refresh may not change it: its ``last_maintained`` date left out."""
    return stamped(header, "")


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
    return [trimmed(doc.header), *(trimmed(s.text) for s in doc.sections)]


def _check(result: str, expected: list[str], what: str) -> str:
    if _shape(split(result)) != expected:
        raise SpliceError(what)
    return result


def find(text: str, section_text: str) -> int:
    """Position of the first section of ``text`` equal to ``section_text`` (normalized), or -1."""
    wanted = trimmed(section_text)
    for position, section in enumerate(split(text).sections):
        if trimmed(section.text) == wanted:
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
    return insert_many(text, [section_text])


def insert_many(text: str, new: Sequence[str]) -> str:
    """``text`` with the ``new`` sections, in order, just before the Index section (or at the end),
    checked with one split: each stays a section of its own and nothing around them changes."""
    if not new:
        return text
    pieces = [s if ends_line(s) else s + "\n" for s in new]
    pieces[-1] = new[-1]
    doc = split(text)
    position = _index_position(doc)
    expected = _shape(doc)
    if position is None:
        base = text if not text or ends_line(text) else text + "\n"
        expected.extend(trimmed(s) for s in new)
        return _check(base + "".join(pieces), expected, "it would not stay a section of its own there")
    pieces[-1] = pieces[-1] if ends_line(pieces[-1]) else pieces[-1] + "\n"
    before = doc.header + "".join(s.text for s in doc.sections[:position])
    after = "".join(s.text for s in doc.sections[position:])
    expected[position + 1 : position + 1] = [trimmed(s) for s in new]
    return _check(before + "".join(pieces) + after, expected, "it would not stay a section of its own there")


# -- a tier file spliced section by section -------------------------------------------------------


@dataclasses.dataclass(eq=False)
class Node:
    text: str
    key: str  # trimmed(text)
    base: str  # the id's slug before repeats are numbered (catalog.base)
    title: str
    index: bool  # an Index section
    prev: Node | None = None
    next: Node | None = None
    label: int = 0  # its place among the Doc's sections of its base (:meth:`Doc.rank`)


def _label_of(node: Node) -> int:
    return node.label


def size(text: str) -> int:
    """A text's bytes, as a :class:`Doc` counts them."""
    return len(text.encode("utf-8"))


def line_count(text: str) -> int:
    """A text's lines, as a :class:`Doc` counts them (and the budget rule)."""
    return len(sections.lines(text))


@dataclasses.dataclass(frozen=True)
class Placing:
    """Where a section goes in a Doc (see :meth:`Doc.check_insert`)."""

    text: str
    before: Node | None
    placed: str
    fixed: str | None


class Doc:
    """A tier file as its header and a chain of sections: each splice costs what it touches.

    :func:`remove`, :func:`insert` and :func:`replace` split the whole file again to
    check a splice; a ``Doc`` splits it once and checks a splice where it joins
    text: the section before it and the one after it, split on their own. That is
    the same check: a section starts at a top-level level-2 heading, after which
    nothing that came before matters, so whether a boundary holds depends only on
    the section just before it. The results are byte for byte those of the
    functions above (a property test holds them equal). Bytes and lines are kept
    as the file changes.
    """

    def __init__(
        self,
        text: str,
        doc: sections.Document | None = None,
        names: Sequence[tuple[str, str]] | None = None,
    ) -> None:
        """``text`` spliced; ``doc`` and ``names`` (base and title of each section) when already known."""
        doc = sections.split(text) if doc is None else doc
        self.header = doc.header
        self.head: Node | None = None
        self.tail: Node | None = None
        self.by_key: dict[str, list[Node]] = {}
        self.labels: dict[str, list[int]] = {}  # by base: the labels of its sections, in file order
        self.last_label = 0
        self.count = 0
        self.indexes = 0  # how many Index sections (one, unless edited by hand)
        self.bytes = size(self.header)
        self.lines = line_count(self.header)
        for number, section in enumerate(doc.sections):
            base, title = names[number] if names is not None else _names(section)
            self._link(Node(section.text, trimmed(section.text), base, title, title == INDEX_TITLE), None)

    # -- the chain -------------------------------------------------------------------------------
    def _link(self, node: Node, before: Node | None) -> None:
        node.next = before
        node.prev = self.tail if before is None else before.prev
        if node.prev is None:
            self.head = node
        else:
            node.prev.next = node
        if before is None:
            self.tail = node
        else:
            before.prev = node
        self.count += 1
        self.by_key.setdefault(node.key, []).append(node)
        self._label(node, before)
        self.indexes += node.index
        self.bytes += size(node.text)
        self.lines += line_count(node.text)

    def _unlink(self, node: Node) -> None:
        if node.prev is None:
            self.head = node.next
        else:
            node.prev.next = node.next
        if node.next is None:
            self.tail = node.prev
        else:
            node.next.prev = node.prev
        labels = self.labels[node.base]
        del labels[bisect.bisect_left(labels, node.label)]
        same = self.by_key[node.key]
        del same[bisect.bisect_left(same, node.label, key=_label_of)]
        if not same:
            del self.by_key[node.key]
        self.count -= 1
        self.indexes -= node.index
        self.bytes -= size(node.text)
        self.lines -= line_count(node.text)

    def _label(self, node: Node, before: Node | None) -> None:
        """Label a node just linked: after every label so far when no section of its base follows
        it (at the end, or just before a last section of another base), else label them all again.
        Sections of one base, and so of one text, stay in file order in ``labels`` and ``by_key``."""
        self.last_label += 1
        node.label = self.last_label
        if before is None or (before is self.tail and before.base != node.base):
            self.labels.setdefault(node.base, []).append(node.label)
            return
        self.labels, self.by_key = {}, {}
        for number, each in enumerate(self.nodes(), start=self.last_label + 1):
            each.label = number
            self.labels.setdefault(each.base, []).append(number)
            self.by_key.setdefault(each.key, []).append(each)
        self.last_label += self.count + 1

    def rank(self, node: Node) -> int:
        """How many sections of ``node``'s base come before it in this file."""
        return bisect.bisect_left(self.labels.get(node.base, []), node.label)

    def same(self, base: str) -> int:
        """How many sections of this file have ``base``."""
        return len(self.labels.get(base, ()))

    def same_before_index(self, base: str, skip: Node | None = None) -> int:
        """How many sections of ``base`` (``skip`` left out) come before where :meth:`insert` puts one."""
        before = self.index_node()
        if skip is None and (before is None or before is self.tail):
            return self.same(base) - (before is not None and before.base == base)
        count, node = 0, self.head
        while node is not None and node is not before:
            count += node.base == base and node is not skip
            node = node.next
        return count

    def nodes(self) -> list[Node]:
        found, node = [], self.head
        while node is not None:
            found.append(node)
            node = node.next
        return found

    def text(self) -> str:
        return self.header + "".join(node.text for node in self.nodes())

    def find(self, section_text: str) -> Node | None:
        """The first section equal to ``section_text`` (normalized), or None."""
        same = self.by_key.get(trimmed(section_text))
        return same[0] if same else None  # in file order (see _label)

    def index_node(self) -> Node | None:
        if not self.indexes:
            return None
        if self.indexes == 1 and self.tail is not None and self.tail.index:
            return self.tail
        return next((n for n in self.nodes() if n.index), None)

    def _set_text(self, node: Node | None, text: str) -> None:
        """Give the header (``node`` None) or a section a new text with the same normalized form."""
        old = self.header if node is None else node.text
        self.bytes += size(text) - size(old)
        self.lines += line_count(text) - line_count(old)
        if node is None:
            self.header = text
        else:
            node.text = text

    # -- checks where text joins ------------------------------------------------------------------
    def _joins(self, prev: Node | None, *pieces: str) -> bool:
        """Whether ``pieces`` (sections) still split as themselves after ``prev`` (None: the header)."""
        first = self.header if prev is None else prev.text
        expected = [trimmed(first), *(trimmed(p) for p in pieces)]
        if prev is not None:
            expected.insert(0, "")
        return _shape(sections.split(first + "".join(pieces))) == expected

    # -- splices ---------------------------------------------------------------------------------
    def check_remove(self, node: Node) -> None:
        """Raise SpliceError if cutting ``node`` would merge what is left around it."""
        if node.next is not None and not self._joins(node.prev, node.next.text):
            raise SpliceError("removing it would merge what is left around it")

    def cut(self, node: Node) -> None:
        """Take ``node`` out (checked with :meth:`check_remove` first)."""
        self._unlink(node)

    def remove(self, section_text: str) -> str:
        """Cut the section equal to ``section_text``; the exact text cut."""
        node = self.find(section_text)
        if node is None:
            raise SpliceError("the section is not in the file")
        self.check_remove(node)
        self._unlink(node)
        return node.text

    def _place(self, section_text: str) -> tuple[Node | None, str, str | None]:
        """Where ``section_text`` would go: (the node it goes before, its text there, the new text of
        the last piece when a line ending must be added to it); raises SpliceError if it cannot."""
        what = "it would not stay a section of its own there"
        before = self.index_node()
        if before is not None:
            moved = section_text if ends_line(section_text) else section_text + "\n"
            if not self._joins(before.prev, moved, before.text):
                raise SpliceError(what)
            return before, moved, None
        last_text, fixed = self._after_tail(section_text, what)
        return None, section_text, (fixed if fixed != last_text else None)

    def check_insert(self, section_text: str) -> Placing:
        """Where ``section_text`` goes; raises SpliceError if it would not stay a section of its own."""
        return Placing(section_text, *self._place(section_text))

    def insert(self, section_text: str, like: Node | None = None, placing: Placing | None = None) -> Node:
        """Add ``section_text`` just before the Index section, or at the end.

        ``like``: the node it was cut from elsewhere (its base and title are reused);
        ``placing``: :meth:`check_insert`'s answer, when nothing changed since.
        """
        if placing is None or placing.text != section_text:
            placing = self.check_insert(section_text)
        before, text, fixed = placing.before, placing.placed, placing.fixed
        if fixed is not None:
            self._set_text(self.tail, fixed)
        if like is not None:
            node = Node(
                text,
                like.key if text == like.text else trimmed(text),
                like.base,
                like.title,
                like.index,
            )
        else:
            node = _node(text)
        self._link(node, before)
        return node

    def replace_index(self, index_text: str) -> None:
        """``index_text`` as the Index section, always the last section (see :func:`replace`);
        an empty ``index_text`` takes the Index out."""
        what = "the Index would not stay a section of its own"
        node = self.index_node()
        follower = None if node is None else node.next
        if node is not None:
            if follower is not None and not self._joins(node.prev, follower.text):
                raise SpliceError(what)
            self._unlink(node)
        if not index_text:
            return
        try:
            self._append_index(index_text)
        except SpliceError:
            if node is not None:
                self._link(node, follower)  # as it was
            raise SpliceError(what) from None

    def _after_tail(self, text: str, what: str, end: Callable[[str], str] | None = None) -> tuple[str, str]:
        """The file's last text, and that text ended by a newline (or as ``end`` ends it), when
        ``text`` may follow it and stay a section of its own; else :class:`SpliceError` saying ``what``."""
        last = self.tail
        last_text = self.header if last is None else last.text
        if end is not None:
            fixed = end(last_text)
        else:
            fixed = last_text if not last_text or ends_line(last_text) else last_text + "\n"
        expected = [trimmed(fixed), trimmed(text)]
        if last is not None:
            expected.insert(0, "")
        if _shape(sections.split(fixed + text)) != expected:
            raise SpliceError(what)
        return last_text, fixed

    def _append_index(self, index_text: str) -> None:
        what = "the Index would not stay a section of its own"
        last_text, fixed = self._after_tail(index_text, what, blank_ended)
        if fixed != last_text:
            self._set_text(self.tail, fixed)
        self._link(Node(index_text, trimmed(index_text), INDEX_BASE, INDEX_TITLE, True), None)

    def stamp(self, day: str) -> bool:
        """Date the header's ``last_maintained`` line ``day``; whether that changed the header."""
        new = stamped(self.header, day)
        if new == self.header:
            return False
        self._set_text(None, new)
        return True

    def index_text(self) -> str | None:
        node = self.index_node()
        return None if node is None else node.text


def _names(section: sections.Section) -> tuple[str, str]:
    return catalog.base(section), titles.plain(section.raw_heading)


def _node(text: str) -> Node:
    """A node for a section text that arrives from elsewhere."""
    found = sections.split(text).sections
    base, title = _names(found[0]) if found else ("section", "")
    return Node(text, trimmed(text), base, title, title == INDEX_TITLE)


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
    expected.append(trimmed(index_text))
    return _check(blank_ended(text) + index_text, expected, "the Index would not stay a section of its own")


@dataclasses.dataclass(frozen=True)
class Line:
    """One line of an Index: a cold or archive section of the agent, or a wiki topic.

    It names what a host and its agent can follow: the section's title (its words, for a keyword
    search) and the file it lives in now (a path from the top of the work tree), then its tier
    and date: ``- Home network — memory/tier3-archive.md (archive, 2026-11-02)``; a wiki topic
    says how many sections it holds: ``- security — memory/wiki/security.md (wiki, 2 sections,
    2026-01-07)``."""

    id: str
    title: str
    tier: str
    last_used: dt.datetime | None  # in the team's time zone; the line shows its date
    file: str = ""
    note: str = ""  # a wiki topic's count of sections

    def render(self) -> str:
        when = self.last_used.date().isoformat() if self.last_used else "date unknown"
        about = ", ".join(x for x in (self.tier, self.note, when) if x)
        if not self.file:
            return named(self.id, about, self.title)
        return f"- {self.title} {SEPARATOR} {self.file} ({about})"


def order(lines: Sequence[Line]) -> list[Line]:
    """Newest first; unknown dates last; then by id."""
    known = sorted((x for x in lines if x.last_used), key=lambda x: x.id)
    known.sort(key=lambda x: x.last_used or dt.datetime.min.replace(tzinfo=dt.UTC), reverse=True)
    return known + sorted((x for x in lines if not x.last_used), key=lambda x: x.id)


def render(lines: Sequence[Line], cap: int, agent: str) -> str:
    """The Index section's text: heading, note, at most ``cap`` lines (the last says what is left out)."""
    ordered = order(lines)
    return render_ordered(ordered[: max(cap, 0)], len(ordered), cap, agent)


def render_ordered(first: Sequence[Line], total: int, cap: int, agent: str) -> str:
    """:func:`render` from the first ``cap`` lines in :func:`order` and how many there are in all."""
    if total > cap:
        shown = [x.render() for x in first[: max(cap - 1, 0)]]
        shown.append(f"- and {total - len(shown)} more: squadmem list --agent {agent}")
    else:
        shown = [x.render() for x in first] or [EMPTY]
    return "\n".join([HEADING, NOTE, "", *shown]) + "\n"


def listed_ids(index_text: str) -> list[str]:
    """The ids an Index section of the earlier form lists (``- picard/auth-tokens (cold, …)``)."""
    found = []
    for row in sections.lines(index_text):
        match = _LINE_ID.match(row)
        if match and _LINE_PLACE.match(row) is None:
            found.append(match.group(1))
    return found


def listed_places(index_text: str) -> list[tuple[str, str]]:
    """The (title, file) of each line of an Index section (doctor checks they are there)."""
    found = []
    for row in sections.lines(index_text):
        match = _LINE_PLACE.match(row.rstrip("\r\n"))
        if match:
            found.append((match.group(1), match.group(2)))
    return found


def listed_days(index_text: str) -> dict[tuple[str, str], str]:
    """The date (``YYYY-MM-DD``) each line of an Index section gives, by its (title, file)."""
    found = {}
    for row in sections.lines(index_text):
        match = _LINE_PLACE.match(row.rstrip("\r\n"))
        day = _LINE_DAY.search(row.rstrip("\r\n"))
        if match and day:
            found[(match.group(1), match.group(2))] = day.group(1)
    return found


def listed(index_text: str) -> int:
    """How many sections or topics an Index section lists, in either form."""
    return len(listed_ids(index_text)) + len(listed_places(index_text))


def line_key(title: str, file: str) -> str:
    """How :func:`listed_dates` names a line that names its title and file."""
    return f"{title}\0{file}"


def listed_dates(index_text: str) -> dict[str, dt.date]:
    """The date each dated line of an Index section shows: by id for the earlier form, by
    :func:`line_key` for a line that names its title and file."""
    found = {}
    for row in sections.lines(index_text):
        match = _LINE_DATE.match(row.rstrip("\r\n"))
        if not match:
            continue
        place = _LINE_PLACE.match(row.rstrip("\r\n"))
        key = line_key(place.group(1), place.group(2)) if place else match.group(1)
        try:
            found[key] = dt.date.fromisoformat(match.group(2))
        except ValueError:
            continue
    return found
