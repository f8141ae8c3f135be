"""The memory of one tree: every tier file split into sections, each with its id.

A section's id is ``<owner>/<slug>``: owner is the agent (hot, cold and archive
share one namespace) or ``wiki:<topic>``; the slug comes from the title, or
from an ``id=`` flag. Ids are assigned in tier order (hot, cold, archive),
then file order. Built from the work tree or from blobs of any commit.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

from squadmem.engine import titles
from squadmem.model import constants, sections
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import TIERS, Layout, TierFile, classify, decode_tier, known_agent
from squadmem.model.places import Places
from squadmem.model.values import Value

SESSION_TITLE = "Session"
INDEX_TITLE = constants.INDEX_TITLE


class Ambiguous(SquadmemError):
    """A reference that names more than one section."""


class Entry(Value):
    """One section of one tier file, with its identity."""

    __slots__ = ("file", "id", "name", "position", "section", "tier", "title")

    def __init__(
        self, id: str, tier: str, file: str, name: str, title: str, position: int, section: sections.Section
    ) -> None:
        self.id = id
        self.tier = tier
        self.file = file  # repository-relative path of its tier file
        self.name = name  # agent or wiki topic of that file
        self.title = title
        self.position = position  # index among its file's sections
        self.section = section

    @property
    def text(self) -> str:
        return self.section.text

    @property
    def bytes(self) -> int:
        return len(self.section.text.encode("utf-8"))

    @property
    def lines(self) -> int:
        return len(sections.lines(self.section.text))

    @property
    def pinned(self) -> bool:
        return self.section.flags.pin

    @property
    def kind(self) -> str | None:
        return self.section.flags.kind

    def describe(self) -> dict[str, str | int]:
        """The keys every listing of sections shares: id, tier, file, title, bytes, lines."""
        return {
            "id": self.id,
            "tier": self.tier,
            "file": self.file,
            "title": self.title,
            "bytes": self.bytes,
            "lines": self.lines,
        }

    @property
    def is_session(self) -> bool:
        return self.tier == "hot" and self.title == SESSION_TITLE

    @property
    def is_index(self) -> bool:
        return self.tier == "hot" and self.title == INDEX_TITLE


class TierDoc(Value):
    """One tier file, parsed."""

    __slots__ = ("document", "text", "tier_file")

    def __init__(self, tier_file: TierFile, text: str, document: sections.Document) -> None:
        self.tier_file = tier_file
        self.text = text
        self.document = document

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def lines(self) -> int:
        return len(sections.lines(self.text))


class Memory(Value):
    __slots__ = ("blocked", "entries", "files", "left_out", "places")

    def __init__(
        self,
        files: dict[str, TierDoc],
        entries: tuple[Entry, ...],
        places: Places,
        left_out: Mapping[str, SquadmemError] | None = None,
        blocked: Mapping[str, SquadmemError] | None = None,
    ) -> None:
        self.files = files  # by repository-relative path
        self.entries = entries
        self.places = places  # the tree's layout: which paths are tier files, and where each goes
        # Work-tree tier files left out, each with the problem that made squadmem leave it out: an
        # owner (agent or wiki topic) with one unreadable file is left out whole, as its ids depend
        # on all its files. Nothing may be written into them until the problem is fixed.
        self.left_out: Mapping[str, SquadmemError] = {} if left_out is None else left_out
        # Tier folders something else occupies (a committed file named ``archive``): nothing moves there.
        self.blocked: Mapping[str, SquadmemError] = {} if blocked is None else blocked

    def require(self, owner: str) -> None:
        """Raise the problem that left ``owner``'s memory (an agent, or ``wiki:<topic>``) out, if any."""
        for rel, problem in self.left_out.items():
            tf = classify(rel, self.places)
            if tf is not None and tf.owner == owner:
                raise problem

    def known_agent(self, agent: str) -> str:
        """The one agent rule (:func:`layout.known_agent`); an agent left out gets its file's problem."""
        self.require(agent)
        found = known_agent(agent, self.agents())
        self.require(found)
        return found

    def agents(self) -> list[str]:
        """Agents with a tier file (hot, cold or archive) in this memory."""
        return sorted({d.tier_file.name for d in self.files.values() if d.tier_file.tier != "wiki"})

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}

    def visible_to(self, agent: str | None = None) -> list[Entry]:
        """What a search sees: every section but hot's Index; with an agent, its own tiers and the wiki."""
        return [
            e for e in self.entries if not e.is_index and (not agent or e.name == agent or e.tier == "wiki")
        ]

    def in_file(self, rel: str) -> list[Entry]:
        return [e for e in self.entries if e.file == rel]

    def find(self, ref: str) -> Entry:
        """The entry with id ``ref`` (its agent named in any case, as Squad names agents, when that
        finds one), or else with exactly the heading ``ref``; never a guess."""
        for entry in self.entries:
            if entry.id == ref:
                return entry
        folded = [e for e in self.entries if "/" in ref and e.id.lower() == ref.lower()]
        if len(folded) == 1:
            return folded[0]
        matches = [e for e in self.entries if ref in (e.title, e.section.raw_heading)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            self.require(ref.rpartition("/")[0])
            unread = f" ({len(self.left_out)} tier file(s) could not be read: see the warnings)"
            raise SquadmemError(
                f"no section has the id or heading {ref!r}",
                hint="see the ids with: squadmem list" + (unread if self.left_out else ""),
            )
        candidates = ", ".join(f"{e.id} ({e.file})" for e in matches)
        raise Ambiguous(f"{ref!r} is ambiguous: {candidates}", hint="name the section by its id")


def parse_file(tf: TierFile, text: str) -> TierDoc:
    try:
        return TierDoc(tf, text, sections.split(text))
    except sections.FlagError as exc:
        raise SquadmemError(f"{tf.rel}: {exc}", hint=sections.FLAG_HINT) from None


def base(section: sections.Section) -> str:
    """A section's id before repeats within its owner are numbered: its ``id=`` flag or its title's slug."""
    return section.flags.id or sections.slugify(titles.plain(section.raw_heading))


def _owner(tf: TierFile) -> str:
    return tf.owner


def build(
    docs: Iterable[TierDoc], places: Places, left_out: dict[str, SquadmemError] | None = None
) -> Memory:
    """Assign ids across files and return the memory they make (``places``: the layout they are in).

    With ``left_out`` (a dict, filled in), an owner whose ids clash is left out instead of raising.
    """
    order = {tier: n for n, tier in enumerate(TIERS)}
    ordered = sorted(docs, key=lambda d: (order[d.tier_file.tier], d.tier_file.name))
    by_owner: dict[str, list[tuple[TierDoc, int, str, str]]] = {}
    for doc in ordered:
        for position, section in enumerate(doc.document.sections):
            title = titles.plain(section.raw_heading)
            base = section.flags.id or sections.slugify(title)
            by_owner.setdefault(_owner(doc.tier_file), []).append((doc, position, title, base))
    entries: list[Entry] = []
    for owner, items in by_owner.items():
        explicit: dict[str, str] = {}
        for doc, position, _, _ in items:
            flag_id = doc.document.sections[position].flags.id
            if flag_id:
                if flag_id in explicit:
                    clash = SquadmemError(
                        f"{doc.tier_file.rel}: id={flag_id} is also set in {explicit[flag_id]}",
                        hint="give each section of an agent its own id",
                    )
                    if left_out is None:
                        raise clash
                    left_out.update({d.tier_file.rel: clash for d in ordered if _owner(d.tier_file) == owner})
                explicit[flag_id] = doc.tier_file.rel
        if left_out is not None and any(d.tier_file.rel in left_out for d, *_ in items):
            continue
        slugs = sections.assign_slugs([base for *_, base in items])
        for (doc, position, title, _), slug in zip(items, slugs, strict=True):
            tf = doc.tier_file
            entries.append(
                Entry(
                    f"{owner}/{slug}",
                    tf.tier,
                    tf.rel,
                    tf.name,
                    title,
                    position,
                    doc.document.sections[position],
                )
            )
    kept = {d.tier_file.rel: d for d in ordered if d.tier_file.rel not in (left_out or {})}
    return Memory(kept, tuple(entries), places, dict(left_out or {}))


def from_texts(texts: Mapping[str, str], places: Places) -> Memory:
    """The memory of a tree given as {repository path: text}, in ``places`` (the tree's layout);
    non-tier paths are ignored."""
    docs = []
    for rel, text in texts.items():
        tf = classify(rel, places)
        if tf is not None:
            docs.append(parse_file(tf, text))
    return build(docs, places)


def from_blobs(blobs: Mapping[str, bytes], places: Places) -> Memory:
    texts = {rel: decode_tier(raw, rel) for rel, raw in blobs.items() if classify(rel, places)}
    return from_texts(texts, places)


def _owner_of(rel: str, places: Places) -> str | None:
    found = classify(rel, places)
    return found.owner if found is not None else None


def load(layout: Layout) -> Memory:
    """The memory of the work tree; an owner with a file squadmem cannot read is left out, with a warning.

    One bad file (over 1 MiB, a NUL byte, not UTF-8, a malformed flag comment) then degrades
    only what depends on it: other agents and topics work; :meth:`Memory.require` and
    :meth:`Memory.find` raise its problem for what needs it.
    """
    files = layout.tier_files()
    docs: list[TierDoc] = []
    broken: dict[str, SquadmemError] = {}
    for tf in files:
        try:
            docs.append(parse_file(tf, layout.read_tier(tf)))
        except SquadmemError as exc:
            broken.setdefault(tf.owner, exc)
    left_out = {tf.rel: broken[tf.owner] for tf in files if tf.owner in broken}
    memory = build([d for d in docs if d.tier_file.owner not in broken], layout.places, left_out)
    blocked = layout.blocked_tiers()
    if blocked:
        memory = memory.replaced(blocked=blocked)
    for problem in blocked.values():
        warnings.warn(
            SquadmemWarning(f"{problem.message} (nothing moves there)", hint=problem.hint), stacklevel=2
        )
    owners = {owner: why for rel, why in memory.left_out.items() if (owner := _owner_of(rel, layout.places))}
    for owner, problem in owners.items():
        warnings.warn(
            SquadmemWarning(f"{problem.message} ({owner}'s memory is left out)", hint=problem.hint),
            stacklevel=2,
        )
    return memory
