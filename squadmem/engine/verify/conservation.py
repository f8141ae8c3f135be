"""Conservation: no commit loses or duplicates a section, whoever made it.

``squadmem verify`` judges every commit that changes tier files (and every
merge) against its parents, from the tier files of their trees. A section is
its text, compared as ``verify`` compares (trailing blank lines and line
endings trimmed); the Session block and the Index of a hot file are squadmem's
to rewrite and are left out.

*Lost*: a section a parent has and the commit has in no tier, unless

- it was edited: a section with its id is there, with a text no parent had;
- it was renamed: a section with the same body (the text below its heading) arrived;
- it left the archive: the end of a section's life, and ``squadmem restore``
  can bring it back from history;
- the commit deletes it on purpose: a ``Squad-Memory-Delete: <id>`` trailer
  (several ids separated by commas) names it;
- it was one of a section's two places: an agent's title a parent held in more
  tiers than the commit, which still holds it (``squadmem doctor --fix`` putting
  the edit a merge kept at a section's old place at its new one).

In a merge a section is expected when every parent has it, or when a parent
has it that the merge base lacks (it was added on that side); one that a side
removed since the base may stay removed.

*Duplicated*: a section text the commit holds more often than any parent (and
more than once), or an agent's section title found in more tiers than in any
parent (one section left in two tiers, edited on one side). A merge's
duplicates are its ``Duplicate``s: the merge driver's documented interim state
(an edit kept at a section's old place, or two moves git took whole), which
``verify`` reports only when the range's tip still holds them.

Move and Index commits are not judged here: ``verify`` checks them exactly.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from squadmem.engine import catalog
from squadmem.model import constants, sections
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify, decode_tier
from squadmem.model.places import Places

DELETE_TRAILER = constants.DELETE_TRAILER
DELETE = DELETE_TRAILER.lower()  # the trailer's key as verify reads it
_IDS = re.compile(r"[,\s]+")


@dataclasses.dataclass(frozen=True)
class Where:
    id: str
    tier: str
    file: str
    title: str
    body: str


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The sections of one tree's tier files."""

    texts: Counter[str]
    where: dict[str, Where]  # text -> its first place
    ids: dict[str, frozenset[str]]  # id -> texts
    bodies: dict[str, str]  # text -> body
    tiers_of_title: dict[tuple[str, str], frozenset[str]]  # (owner, title) -> tiers


EMPTY = Snapshot(Counter(), {}, {}, {}, {})


def body_of(text: str) -> str:
    return sections.trimmed(text.split("\n", 1)[1] if "\n" in text else "")


def snapshot(memory: catalog.Memory) -> Snapshot:
    texts: Counter[str] = Counter()
    where: dict[str, Where] = {}
    ids: dict[str, set[str]] = {}
    bodies: dict[str, str] = {}
    tiers: dict[tuple[str, str], set[str]] = {}
    for entry in memory.entries:
        if entry.is_index or entry.is_session:
            continue
        text = sections.trimmed(entry.text)
        texts[text] += 1
        body = body_of(entry.text)
        bodies[text] = body
        where.setdefault(text, Where(entry.id, entry.tier, entry.file, entry.title, body))
        ids.setdefault(entry.id, set()).add(text)
        tiers.setdefault((entry.id.rpartition("/")[0], entry.title), set()).add(entry.tier)
    return Snapshot(
        texts,
        where,
        {k: frozenset(v) for k, v in ids.items()},
        bodies,
        {k: frozenset(v) for k, v in tiers.items()},
    )


def deleted_ids(trailers: Mapping[str, Sequence[str]]) -> set[str]:
    return {i for value in trailers.get(DELETE, ()) for i in _IDS.split(value) if i}


@dataclasses.dataclass(frozen=True)
class Duplicate:
    """A section a commit holds in more places than any parent: a text repeated, or a title in tiers."""

    file: str
    why: str
    text: str | None = None  # the repeated text, or
    title: tuple[str, str] | None = None  # (owner, title) found in several tiers

    def holds(self, snapshot: Snapshot) -> bool:
        """Whether ``snapshot`` still holds this duplicate."""
        if self.text is not None:
            return snapshot.texts[self.text] > 1
        return self.title is not None and len(snapshot.tiers_of_title.get(self.title, ())) > 1


def judge(
    after: Snapshot, parents: Sequence[Snapshot], base: Snapshot | None, deleted: set[str]
) -> list[tuple[str, str]]:
    """(file, why) for every section the commit lost or duplicated."""
    found = [(file, why) for file, why, *_ in _lost(after, parents, base, deleted)]
    return found + [(d.file, d.why) for d in duplicated(after, parents)]


def lost(
    after: Snapshot, parents: Sequence[Snapshot], base: Snapshot | None, deleted: set[str]
) -> list[tuple[str, str, str, int]]:
    """(file, why, id, the first parent that had it, from 1) for every section the commit lost."""
    return list(_lost(after, parents, base, deleted))


def _expected(text: str, parents: Sequence[Snapshot], base: Snapshot | None) -> bool:
    if len(parents) < 2:
        return True
    if all(text in p.texts for p in parents):
        return True
    return base is None or text not in base.texts


def _lost(
    after: Snapshot, parents: Sequence[Snapshot], base: Snapshot | None, deleted: set[str]
) -> Iterable[tuple[str, str, str, int]]:
    before = [t for p in parents for t in p.texts]
    new_texts = set(after.texts).difference(before)
    new_bodies = {after.bodies[t] for t in new_texts}
    seen: set[str] = set()
    for number, parent in enumerate(parents, 1):
        for text, place in parent.where.items():
            if text in after.texts or text in seen or not _expected(text, parents, base):
                continue
            seen.add(text)
            if place.tier == "archive" or place.id in deleted:
                continue
            if after.ids.get(place.id, frozenset()) & new_texts:
                continue  # edited in place
            if place.body and place.body in new_bodies:
                continue  # its heading renamed
            if _made_one(place, parent, after):
                continue  # one of its two places, the other kept (a merge settled)
            yield (
                place.file,
                f"section {place.id} ({place.title!r}) is in no tier after this commit: "
                f"not moved, archived or deleted with a {DELETE_TRAILER}: {place.id} trailer",
                place.id,
                number,
            )


def _made_one(place: Where, parent: Snapshot, after: Snapshot) -> bool:
    """Whether the parent held ``place``'s agent title in more tiers than ``after``, which holds it."""
    key = (place.id.rpartition("/")[0], place.title)
    now = len(after.tiers_of_title.get(key, ()))
    return 0 < now < len(parent.tiers_of_title.get(key, ()))


def duplicated(after: Snapshot, parents: Sequence[Snapshot]) -> list[Duplicate]:
    """Every section ``after`` holds in more places than any parent."""
    found = []
    for text, count in after.texts.items():
        if count > 1 and count > max((p.texts[text] for p in parents), default=0):
            place = after.where[text]
            why = f"section {place.id} ({place.title!r}) is there {count} times after this commit"
            found.append(Duplicate(place.file, why, text=text))
    for (owner, title), tiers in after.tiers_of_title.items():
        most = max((len(p.tiers_of_title.get((owner, title), ())) for p in parents), default=0)
        if len(tiers) > 1 and len(tiers) > most:
            shown = ", ".join(sorted(tiers))
            why = f"the section {title!r} of {owner} is in {len(tiers)} tiers ({shown})"
            found.append(Duplicate(f"{owner}:{title}", why, title=(owner, title)))
    return found


class Snapshots:
    """Snapshots of trees, built from blobs each parsed once (``read`` gives a blob's bytes)."""

    def __init__(
        self,
        tier_files: Callable[[str], dict[str, str]],
        read: Callable[[str], bytes],
        places_of: Callable[[str], Places],
    ) -> None:
        self.tier_files = tier_files
        self.read = read
        self.places_of = places_of  # a tree's layout
        self._docs: dict[tuple[str, str, str], catalog.TierDoc] = {}
        self._trees: dict[str, Snapshot | None] = {}
        self.unreadable: dict[str, str] = {}  # tree -> the tier file that kept it from being read

    def of(self, tree: str) -> Snapshot | None:
        """The tree's snapshot; None when one of its tier files does not parse (judged elsewhere)."""
        if tree not in self._trees:
            if len(self._trees) > 256:
                self._trees.clear()
            self._trees[tree] = self._build(tree)
        return self._trees[tree]

    def _build(self, tree: str) -> Snapshot | None:
        docs = []
        rel = "-"
        places = self.places_of(tree)
        try:
            for rel, sha in self.tier_files(tree).items():
                tf = classify(rel, places)
                assert tf is not None
                key = (rel, sha, tf.name)  # a workspace's files name its agent: the same blob, another owner
                if key not in self._docs:
                    if len(self._docs) > 4096:
                        self._docs.clear()
                    self._docs[key] = catalog.parse_file(tf, decode_tier(self.read(sha), rel))
                docs.append(self._docs[key])
            return snapshot(catalog.build(docs, places))
        except SquadmemError:
            self.unreadable[tree] = rel
            return None
