"""Three-way merge of a tier file, section by section (the merge driver's pure core).

Standard library only: git runs the driver on every merge of a tier file.
Sections are matched across base, ours and theirs by identity: first by
identical text, then by key (the ``id=`` flag, else the heading's slug), in
file order. Per section:

- unchanged on one side: the other side's version (an edit, or a deletion);
- edited on both sides: identical edits once, else ``merge_lines`` (git's line
  merge in the driver), whose conflict markers stay inside that section;
- deleted on one side, edited on the other: the edit is kept (never lose text);
- added on either side: kept, an identical addition once;
- the Index (``## Index → Deeper Tiers``) is derived: ours when both changed it.

The header (before the first section) gets a plain line merge. Cross-file
moves come in as :class:`Hints` (see :func:`hints`): a section a side moved
to another tier file whose merge also runs here is dropped in its old file,
and its moved copy there takes the other side's edit.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence

from squadmem.model import constants, sections
from squadmem.model.sections import trimmed

INDEX_TITLE = constants.INDEX_TITLE
_INDEX_KEY = sections.slugify(INDEX_TITLE)
MARKER_SIZE = 7

# (base, ours, theirs) -> (merged text, conflicted)
LineMerge = Callable[[str, str, str], tuple[str, bool]]


def conflict_lines(base: str, ours: str, theirs: str, size: int = MARKER_SIZE) -> tuple[str, bool]:
    """A line merge without a diff: common first and last lines kept, the differing middle marked."""
    if ours == theirs:
        return ours, False
    a, b = sections.lines(ours), sections.lines(theirs)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    block = [
        f"{'<' * size} ours\n",
        *_ended(mid_a),
        f"{'=' * size}\n",
        *_ended(mid_b),
        f"{'>' * size} theirs\n",
    ]
    return "".join([*a[:head], *block, *a[len(a) - tail :]]), True


def _ended(rows: list[str]) -> list[str]:
    return [*rows[:-1], rows[-1] if rows[-1].endswith(("\n", "\r")) else rows[-1] + "\n"] if rows else []


@dataclasses.dataclass(frozen=True)
class Hints:
    """What other tier files tell this file's merge (normalized texts as keys)."""

    drop: frozenset[str] = frozenset()  # base sections moved elsewhere by one side: their edit goes there
    replace: Mapping[str, str] = dataclasses.field(default_factory=dict)  # moved-in text -> edited text
    settle: tuple[Relocation, ...] = ()  # edits kept here for now; their section moved to another file
    unwanted: frozenset[str] = frozenset()  # additions the other side moved to another file instead


@dataclasses.dataclass(frozen=True)
class Relocation:
    """An edit kept at its old place because git merged its section's new file without the driver."""

    source: str  # the file the edited text is kept in
    target: str  # the file the section moved to (holds the unedited text)
    old: str  # the moved, unedited text in ``target``
    new: str  # the edited text in ``source``


@dataclasses.dataclass(frozen=True)
class Result:
    text: str
    conflicts: tuple[str, ...]  # headings (or "header") whose merge left conflict markers
    kept: tuple[str, ...] = ()  # headings deleted on one side but kept because the other edited them


def keys(doc: sections.Document) -> list[str]:
    """Each section's identity within its file: its ``id=`` flag, else its heading's slug."""
    return [s.flags.id or sections.slugify(s.raw_heading.strip()) for s in doc.sections]


def match(base: sections.Document, side: sections.Document) -> dict[int, int]:
    """Base position -> side position of the same section.

    Identical text first (in order); then by key: a key that is left once on
    each side pairs up wherever the sections are; a repeated key pairs in order
    between the same two already matched neighbours, or not at all (a deletion
    and an addition, which loses nothing).
    """
    found: dict[int, int] = {}
    free: dict[str, list[int]] = {}
    for position, section in enumerate(side.sections):
        free.setdefault(section.text, []).append(position)
    for position, section in enumerate(base.sections):
        spots = free.get(section.text)
        if spots:
            found[position] = spots.pop(0)
    used = set(found.values())
    base_keys, side_keys = keys(base), keys(side)
    left_base = [p for p in range(len(base_keys)) if p not in found]
    left_side = [p for p in range(len(side_keys)) if p not in used]
    base_count = _counts(base_keys[p] for p in left_base)
    side_count = _counts(side_keys[p] for p in left_side)
    before, after = _neighbours(found, len(base_keys), len(side_keys))
    by_key: dict[str, list[int]] = {}
    for position in left_side:
        by_key.setdefault(side_keys[position], []).append(position)
    for position in left_base:
        key = base_keys[position]
        spots = by_key.get(key)
        if not spots:
            continue
        if base_count[key] == side_count[key] == 1:
            found[position] = spots.pop(0)
            continue
        within = [spot for spot in spots if before[position] < spot < after[position]]
        if within:
            found[position] = within[0]
            spots.remove(within[0])
    return found


def _neighbours(found: Mapping[int, int], n_base: int, n_side: int) -> tuple[list[int], list[int]]:
    """For each base position: the side positions of the nearest matched base sections before and after."""
    before, after = [-1] * n_base, [n_side] * n_base
    for position in range(1, n_base):
        before[position] = max(before[position - 1], found.get(position - 1, -1))
    for position in range(n_base - 2, -1, -1):
        after[position] = min(after[position + 1], found.get(position + 1, n_side))
    return before, after


def _counts(items: Iterable[str]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for item in items:
        counted[item] = counted.get(item, 0) + 1
    return counted


def _is_index(section: sections.Section) -> bool:
    return sections.slugify(section.raw_heading.strip()) == _INDEX_KEY


@dataclasses.dataclass
class _Side:
    doc: sections.Document
    of_base: dict[int, int]  # base position -> position here

    @property
    def to_base(self) -> dict[int, int]:
        return {mine: base for base, mine in self.of_base.items()}


def merge(
    base: str,
    ours: str,
    theirs: str,
    merge_lines: LineMerge = conflict_lines,
    hints: Hints | None = None,
) -> Result:
    """The three-way merge of one tier file's texts. Raises sections.FlagError on a bad flags comment."""
    b_doc, o_doc, t_doc = sections.split(base), sections.split(ours), sections.split(theirs)
    o, t = _Side(o_doc, match(b_doc, o_doc)), _Side(t_doc, match(b_doc, t_doc))
    header, clash = _three(b_doc.header, o_doc.header, t_doc.header, merge_lines)
    state = _Merge(b_doc, o, t, merge_lines, hints or Hints(), ["header"] if clash else [])
    text = _join(header, _merged_sections(state))
    return Result(text, tuple(state.conflicts), tuple(state.kept))


@dataclasses.dataclass
class _Merge:
    """One merge's three sides, and what it records while it decides sections."""

    base: sections.Document
    ours: _Side
    theirs: _Side
    merge_lines: LineMerge
    hints: Hints
    conflicts: list[str]  # headings (or "header") whose merge left conflict markers
    kept: list[str] = dataclasses.field(default_factory=list)  # deleted on one side, edited on the other

    def decide(self, b: int) -> str | None:
        """The merged text of base section ``b``, None when it goes."""
        old = self.base.sections[b]
        mine = _text_of(self.ours, b)
        other = _text_of(self.theirs, b)
        if mine is None or other is None:
            left = other if mine is None else mine
            if left is None or left == old.text or trimmed(old.text) in self.hints.drop:
                return None
            self.kept.append(old.raw_heading.strip())
            return left
        if _is_index(old) and mine != old.text:
            return mine
        text, clash = _three(old.text, mine, other, self.merge_lines)
        if clash:
            self.conflicts.append(old.raw_heading.strip())
        return text

    def added(self, text: str) -> str | None:
        """An added section's text as the hints want it: None when another file takes it instead."""
        if trimmed(text) in self.hints.unwanted:
            return None
        return self.hints.replace.get(trimmed(text), text)


def _text_of(side: _Side, b: int) -> str | None:
    """The side's text of base section ``b``, None when the side has no match for it."""
    return side.doc.sections[side.of_base[b]].text if b in side.of_base else None


def _merged_sections(state: _Merge) -> list[str]:
    """The merged sections in order: the skeleton side's walk, the other side's sections woven in."""
    o, t = state.ours, state.theirs
    # The skeleton is ours' order, unless ours kept the base order and theirs did not.
    skeleton, other = (t, o) if _kept_order(o) and not _kept_order(t) else (o, t)
    anchored = _anchored(skeleton, other)
    twins = _twins(skeleton, other)
    skel_to_base, other_to_base = skeleton.to_base, other.to_base
    emit = _Emitter(o.doc, t.doc)

    def other_text(position: int) -> str | None:
        if position in other_to_base:
            return state.decide(other_to_base[position])
        return state.added(other.doc.sections[position].text)

    pending = anchored.get(None, [])  # emitted before the skeleton's next shared section
    for position, section in enumerate(skeleton.doc.sections):
        twin = twins[position]
        if twin is not None:
            for follower in pending:
                emit(other_text(follower))
            pending = anchored.get(twin, [])
        if position in skel_to_base:
            emit(state.decide(skel_to_base[position]))
        elif skeleton is t and _is_index(section) and twin is not None:
            emit(o.doc.sections[twin].text)  # both added an Index: ours'
        else:
            emit(state.added(section.text))
    for follower in pending:
        emit(other_text(follower))
    return emit.texts


def _anchored(skeleton: _Side, other: _Side) -> dict[int | None, list[int]]:
    """The other side's sections the skeleton does not hold, each after its nearest shared predecessor.

    Keyed by that predecessor's position on the other side; None for those before any shared section.
    """
    skel_added = [skeleton.doc.sections[p] for p in _added(skeleton)]
    skel_added_norm = {trimmed(s.text) for s in skel_added}
    skel_has_index = any(_is_index(s) for s in skel_added)
    other_to_base = other.to_base
    skel_bases = set(skeleton.of_base)

    def shared(position: int) -> bool:
        """Whether the other side's section at ``position`` is placed by the skeleton's walk."""
        if position in other_to_base:
            return other_to_base[position] in skel_bases
        section = other.doc.sections[position]
        return trimmed(section.text) in skel_added_norm or (skel_has_index and _is_index(section))

    anchored: dict[int | None, list[int]] = {}
    anchor: int | None = None
    for position in range(len(other.doc.sections)):
        if shared(position):
            anchor = position
        else:
            anchored.setdefault(anchor, []).append(position)
    return anchored


def _twins(skeleton: _Side, other: _Side) -> list[int | None]:
    """For each of the skeleton's sections: the other side's position of the same section, if any."""
    skel_to_base = skeleton.to_base
    other_added = _added(other)
    other_of_text = {trimmed(other.doc.sections[p].text): p for p in other_added}
    other_index = next((p for p in other_added if _is_index(other.doc.sections[p])), None)

    def twin(position: int, section: sections.Section) -> int | None:
        if position in skel_to_base:
            return other.of_base.get(skel_to_base[position])
        found = other_of_text.get(trimmed(section.text))
        return other_index if found is None and _is_index(section) else found

    return [twin(position, section) for position, section in enumerate(skeleton.doc.sections)]


class _Emitter:
    """The merged texts in order; a text goes in at most as often as a side has it."""

    def __init__(self, ours: sections.Document, theirs: sections.Document) -> None:
        self.texts: list[str] = []
        self.room = _counts(s.text for s in ours.sections)
        for text, times in _counts(s.text for s in theirs.sections).items():
            self.room[text] = max(self.room.get(text, 0), times)

    def __call__(self, text: str | None) -> None:
        if text is None or self.room.get(text, 1) <= 0:
            return
        self.room[text] = self.room.get(text, 1) - 1
        self.texts.append(text)


def _kept_order(side: _Side) -> bool:
    order = [side.of_base[b] for b in sorted(side.of_base)]
    return order == sorted(order)


def _added(side: _Side) -> list[int]:
    matched = set(side.of_base.values())
    return [p for p in range(len(side.doc.sections)) if p not in matched]


def _three(base: str, ours: str, theirs: str, merge_lines: LineMerge) -> tuple[str, bool]:
    if ours in (base, theirs):
        return theirs, False
    if theirs == base:
        return ours, False
    return merge_lines(base, ours, theirs)


def _join(header: str, texts: Sequence[str]) -> str:
    """Header and sections; a line ending added where a text without one is followed by more."""
    parts = [header, *texts]
    result = []
    for number, part in enumerate(parts):
        more = any(parts[number + 1 :])
        result.append(part + "\n" if more and part and not part.endswith(("\n", "\r")) else part)
    return "".join(result)


# --- moves across tier files -------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _split(text: str) -> sections.Document:
    return sections.split(text)


@functools.lru_cache(maxsize=64)
def _census(text: str) -> dict[str, int]:
    """How often each section (normalized) is in ``text``."""
    return _counts(trimmed(s.text) for s in _split(text).sections)


def _count(text: str | None, wanted: str) -> int:
    return 0 if text is None else _census(text).get(wanted, 0)


def _driven(path: str, base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str]) -> bool:
    """Whether git merges ``path`` with the driver: both sides changed it, differently."""
    b, o, t = base.get(path), ours.get(path), theirs.get(path)
    return b != o and b != t and o != t


def hints(path: str, base: Mapping[str, str], ours: Mapping[str, str], theirs: Mapping[str, str]) -> Hints:
    """What moves across files mean for ``path``'s merge; trees map tier paths to texts.

    A section one side moved from ``path`` to another file G (same text there,
    gone here) while the other side edited it here: if G is merged by the
    driver too, ``path`` drops it and G's merge swaps the edit in; otherwise
    the edit stays here and a :class:`Relocation` says where it belongs. A
    section both sides added, each to another file (two runs of ``maintain``
    that moved it to different tiers), stays in one: the file git takes whole
    from one side, else ours' choice.
    """
    drop: set[str] = set()
    replace: dict[str, str] = {}
    settle: list[Relocation] = []
    unwanted: set[str] = set()
    b_doc = _split(base.get(path, ""))
    for mover, editor, mover_is_theirs in ((ours, theirs, False), (theirs, ours, True)):
        m_doc, e_doc = _split(mover.get(path, "")), _split(editor.get(path, ""))
        m_match = _matched(base.get(path, ""), mover.get(path, ""))
        e_match = _matched(base.get(path, ""), editor.get(path, ""))
        for b, section in enumerate(b_doc.sections):
            if b in m_match or b not in e_match or e_doc.sections[e_match[b]].text == section.text:
                continue
            wanted = trimmed(section.text)
            target = _moved(path, wanted, base, mover, lambda old, new: new > old)
            if target is None:
                continue
            if _driven(target, base, ours, theirs):
                drop.add(wanted)
            else:
                old = next(s.text for s in _split(mover[target]).sections if trimmed(s.text) == wanted)
                settle.append(Relocation(path, target, old, e_doc.sections[e_match[b]].text))
        matched = set(m_match.values())
        for position, section in enumerate(m_doc.sections):
            wanted = trimmed(section.text)
            if position in matched or _count(base.get(path), wanted) >= _count(mover.get(path), wanted):
                continue
            elsewhere = _moved(path, wanted, base, editor, lambda old, new: new > old)
            if elsewhere is not None and _count(editor.get(path), wanted) <= _count(base.get(path), wanted):
                # both sides placed it, in different files: ours' place wins when both are merged here
                if mover_is_theirs or not _driven(elsewhere, base, ours, theirs):
                    unwanted.add(wanted)
                continue
            source = _moved(path, wanted, base, mover, lambda old, new: new < old)
            if source is None or not _driven(path, base, ours, theirs):
                continue
            edited = _edits(base[source], editor.get(source, "")).get(wanted)
            if edited is not None:
                replace[wanted] = edited
    return Hints(frozenset(drop), replace, tuple(settle), frozenset(unwanted))


def _moved(
    path: str,
    wanted: str,
    base: Mapping[str, str],
    side: Mapping[str, str],
    changed: Callable[[int, int], bool],
) -> str | None:
    """The other tier file whose count of ``wanted`` the side changed as ``changed`` says."""
    for other in sorted(set(base) | set(side)):
        if other != path and changed(_count(base.get(other), wanted), _count(side.get(other), wanted)):
            return other
    return None


@functools.lru_cache(maxsize=32)
def _matched(base: str, side: str) -> dict[int, int]:
    return match(_split(base), _split(side))


@functools.lru_cache(maxsize=32)
def _edits(base: str, side: str) -> dict[str, str]:
    """Base section (normalized) -> the side's text of it, for the sections the side edited."""
    b_doc, s_doc = _split(base), _split(side)
    matched = _matched(base, side)
    found: dict[str, str | None] = {}
    for b in sorted(matched):
        old = b_doc.sections[b].text
        text = s_doc.sections[matched[b]].text
        found.setdefault(trimmed(old), None if text == old else text)
    return {key: text for key, text in found.items() if text is not None}
