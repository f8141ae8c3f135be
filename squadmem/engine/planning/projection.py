"""The projection of a run: the tier files as the moves planned so far leave them.

Pure: no git, no files. :mod:`squadmem.engine.planning.policy` makes each move here
first (:meth:`Projection.move`), so a move that cannot be made safely is
refused before it reaches the plan, and the tier rules and the Index
planning (:mod:`squadmem.engine.planning.index_plan`) read the tiers as they will be.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

from squadmem.engine import catalog, index
from squadmem.model import sections, slug
from squadmem.model.layout import MAX_FILE_BYTES, MEMORY_DIR, TIERS, classify
from squadmem.model.places import Places

Header = Callable[[str, str], str]  # (tier, name) -> the text of a new tier file


class Unwritable(index.SpliceError):
    """A splice would leave a file squadmem refuses to read (left out, blocked, over 1 MiB)."""


def no_header(tier: str, name: str) -> str:
    return ""


def owner_of(rel: str, places: Places) -> str:
    """Whose ids a tier file's sections carry (in ``places``): the agent, or ``wiki:<topic>``."""
    tf = classify(rel, places)
    assert tf is not None
    return tf.owner


def _file_order(rel: str, places: Places) -> tuple[int, str]:
    tf = classify(rel, places)
    assert tf is not None
    return TIERS.index(tf.tier), tf.name


class Projection:
    """Tier files as the moves planned so far leave them, each spliced section by section.

    A move costs what it touches (the section, its neighbours), not the size of the
    files: a file is split once, when a move first touches it (:class:`index.Doc`).
    Ids are followed by owner: a section whose slug is the only one of its owner keeps
    it wherever it goes; only repeated slugs are numbered again over the owner's files.
    """

    def __init__(self, memory: catalog.Memory, header: Header) -> None:
        self.memory = memory
        self.places = memory.places  # the layout the moves are planned in
        self.header = header
        self.original = {rel: doc.text for rel, doc in memory.files.items()}
        self.docs: dict[str, index.Doc] = {}
        self.names: dict[str, list[tuple[str, str]]] = {}
        self.bases: dict[str, collections.Counter[str]] = {}
        # by owner, by base: how many sections are titled as each numbered repeat of it would be
        self.spelled: dict[str, dict[str, collections.Counter[int]]] = {}
        self.by_owner: dict[str, set[str]] = {}
        self.splits = 0  # whole files split (a test counts them: at most once per file)
        self.wiki_version = 0  # changes whenever a wiki file does
        for rel in memory.files:
            self.by_owner.setdefault(owner_of(rel, self.places), set()).add(rel)
        for entry in memory.entries:
            base = entry.section.flags.id or sections.slugify(entry.title)
            self.names.setdefault(entry.file, []).append((base, entry.title))
            self._count(owner_of(entry.file, self.places), base, 1)
        self.left_out = memory.left_out

    def writable(self, rel: str, size: int) -> None:
        """Refuse (:class:`Unwritable`) a splice that would leave ``rel`` a file squadmem refuses to read."""
        if rel in self.left_out:
            raise Unwritable(f"{rel} cannot be read: {self.left_out[rel].message}")
        tier = rel.removeprefix(MEMORY_DIR + "/").partition("/")[0]
        if tier in self.memory.blocked:
            raise Unwritable(self.memory.blocked[tier].message)
        if size > MAX_FILE_BYTES:
            raise Unwritable(f"{rel} would be {size} bytes, over the 1 MiB limit for a tier file")

    # -- files -----------------------------------------------------------------------------------
    def rels(self) -> list[str]:
        return list(dict.fromkeys([*self.original, *self.docs]))

    def text(self, rel: str) -> str:
        if rel in self.docs:
            return self.docs[rel].text()
        return self.original[rel]

    def texts(self) -> dict[str, str]:
        return {rel: self.text(rel) for rel in self.rels()}

    def size(self, rel: str) -> int:
        if rel in self.docs:
            return self.docs[rel].bytes
        return len(self.original[rel].encode("utf-8")) if rel in self.original else 0

    def doc(self, rel: str) -> index.Doc:
        """``rel`` as a Doc, made on first use (a file no tree has yet starts as its template)."""
        found = self.docs.get(rel)
        if found is None:
            if rel in self.memory.files:
                parsed = self.memory.files[rel]
                found = index.Doc(parsed.text, parsed.document, self.names.get(rel, []))
            else:
                tf = classify(rel, self.places)
                assert tf is not None
                found = index.Doc(self.header(tf.tier, tf.name))
                self.by_owner.setdefault(tf.owner, set()).add(rel)
            self.splits += 1
            self.docs[rel] = found
        return found

    def owner(self, rel: str) -> str:
        """Whose ids the tier file ``rel`` carries, in this projection's layout."""
        return owner_of(rel, self.places)

    def owner_files(self, owner: str) -> list[str]:
        return sorted(self.by_owner.get(owner, ()), key=lambda rel: _file_order(rel, self.places))

    # -- ids -------------------------------------------------------------------------------------
    def _taken(self, owner: str, base: str) -> list[int]:
        """The numbers ``n`` for which another section of ``owner`` is titled ``<base>-n``."""
        spelled = self.spelled.get(owner, {}).get(base)
        return sorted(n for n, count in spelled.items() if count > 0) if spelled else []

    def _named(self, owner: str, base: str, rank: int) -> str:
        return f"{owner}/{slug.numbered(base, rank, self._taken(owner, base))}"

    def id_of(self, rel: str, node: index.Node) -> str:
        owner = self.owner(rel)
        if self.bases[owner][node.base] == 1:
            return f"{owner}/{node.base}"
        rank = 0
        for each in self.owner_files(owner):
            if each == rel:
                return self._named(owner, node.base, rank + self.doc(each).rank(node))
            rank += self.doc(each).same(node.base)
        raise AssertionError(f"{rel} is not a file of {owner}")

    def id_after(self, node: index.Node, source: str, target: str) -> str:
        """The id ``node`` (now in ``source``) would have once inserted into ``target``."""
        owner = self.owner(target)
        if self.bases[owner][node.base] + (self.owner(source) != owner) == 1:
            return f"{owner}/{node.base}"
        rank = 0
        for each in self.owner_files(owner):
            if each == target:
                skip = node if each == source else None
                return self._named(owner, node.base, rank + self.doc(each).same_before_index(node.base, skip))
            rank += self.doc(each).same(node.base) - (each == source)
        raise AssertionError(f"{target} is not a file of {owner}")

    def ids(self, owner: str) -> list[tuple[str, index.Node, str]]:
        """(file, node, id) of every section of ``owner``, in id order."""
        found = []
        ranks: collections.Counter[str] = collections.Counter()
        for rel in self.owner_files(owner):
            for node in self.doc(rel).nodes():
                rank = ranks[node.base]
                ranks[node.base] += 1
                ident = f"{owner}/{node.base}" if rank == 0 else self._named(owner, node.base, rank)
                found.append((rel, node, ident))
        return found

    # -- moves -----------------------------------------------------------------------------------
    def move(
        self, source: str, tier: str, name: str, section_text: str, *, follow_id: bool = True
    ) -> tuple[str, str]:
        """Apply a move; return the section's id (as it is, and stays) and the exact text cut.

        Raises index.SpliceError, changing nothing, if the splice is unsafe or the
        section's id would not follow it (two sections of one agent sharing a title;
        not checked with ``follow_id`` False: the intake relocates by content, in the commit
        that takes entries in).
        """
        target = self.places.tier_rel(tier, name)
        src, dst = self.doc(source), self.doc(target)
        node, section_id, placing = self.check(source, tier, name, section_text, follow_id=follow_id)
        src.cut(node)
        dst.insert(node.text, like=node, placing=placing)
        self._rebase(node.base, self.owner(source), self.owner(target))
        self.wiki_version += tier == "wiki" or self.owner(source).startswith("wiki:")
        return section_id, node.text

    def check(
        self, source: str, tier: str, name: str, section_text: str, *, follow_id: bool = True
    ) -> tuple[index.Node, str, index.Placing]:
        """What :meth:`move` would do, changing nothing: the node, its id, where it lands.

        Raises index.SpliceError if the move cannot be made.
        """
        target = self.places.tier_rel(tier, name)
        src = self.doc(source)
        node = src.find(section_text)
        if node is None:
            raise index.SpliceError(f"{source} does not hold the section")
        section_id = self.id_of(source, node)
        dst = self.doc(target)
        src.check_remove(node)
        placing = dst.check_insert(node.text)
        self.writable(target, dst.bytes + len(node.text.encode("utf-8")) + 1)
        if follow_id and tier != "wiki":
            arrived = self.id_after(node, source, target)
            if arrived != section_id:
                raise index.SpliceError(
                    f"its id would become {arrived}: another section has the same title; give one an id= flag"
                )
        return node, section_id, placing

    def _rebase(self, base: str, old: str | None, new: str) -> None:
        if old == new:
            return
        if old is not None:
            self._count(old, base, -1)
        self._count(new, base, 1)

    def _count(self, owner: str, base: str, step: int) -> None:
        self.bases.setdefault(owner, collections.Counter())[base] += step
        repeat = slug.repeat_of(base)
        if repeat is not None:
            spelled = self.spelled.setdefault(owner, {}).setdefault(repeat[0], collections.Counter())
            spelled[repeat[1]] += step

    def insert(self, tier: str, name: str, section_text: str) -> str:
        """Add a section from outside (a restore); return the id it gets."""
        target = self.places.tier_rel(tier, name)
        self.writable(target, self.doc(target).bytes + len(section_text.encode("utf-8")) + 1)
        node = self.doc(target).insert(section_text)
        self._rebase(node.base, None, self.owner(target))
        self.wiki_version += tier == "wiki"
        return self.id_of(target, node)
