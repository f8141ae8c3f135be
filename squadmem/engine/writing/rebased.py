"""Moves rebased onto an edit of their section, found, and made again as pure moves.

A move commit rebased (``git pull --rebase``, ``git rebase``) onto a teammate's
edit of the section it moved: the merge driver keeps the edit at the old place
and git takes the new file whole from the move, so the rebased commit adds the
unedited text at the new place and removes nothing. It is not a pure move, and
``verify`` says so. :func:`find` recognises one among the commits not yet
published (its source file is its parent's, byte for byte; its destination is
its parent's plus one section whose heading a section of the source has, with
other words); :func:`rewrite` makes those commits again, from the first such
move to HEAD, with a fix applied to each tree (``settle`` moves the edited text
instead), and drops a commit the fix leaves empty (a settle commit that did it
on top). The rewritten move is proven by ``verify`` like any other: nothing
passes that would not pass as a pure move made by hand.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence

from squadmem.gitio import questions
from squadmem.gitio.objects import Objects
from squadmem.gitio.repo import Repo
from squadmem.model import constants, sections
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import AGENT_TIERS, check_name, decode_tier, encode_tier
from squadmem.model.places import Places

_MOVE = re.compile(rf"^{constants.MOVE_TRAILER}:\s*(\S+)\s+(\S+)\s+->\s+(\S+)\s*$", re.MULTILINE)

Texts = dict[str, str | None]


@dataclasses.dataclass(frozen=True)
class Rebased:
    """A move commit that carried a section's text from before an edit still at its old place."""

    commit: str
    source: str
    target: str
    old: str  # the text the move carried
    new: str  # the edited text, left at the old place

    @property
    def title(self) -> str:
        doc = sections.split(self.new)
        return doc.sections[0].raw_heading.strip() if doc.sections else "?"


def paths(sid: str, source: str, destination: str, places: Places) -> tuple[str, str] | None:
    """The source and destination files a ``Squad-Memory-Move`` value names in ``places`` (None:
    from history, or a tier or name that is not one)."""
    owner = sid.rpartition("/")[0]

    def one(spec: str) -> str | None:
        tier, _, topic = spec.partition(":")
        try:
            if tier == "wiki":
                return places.tier_rel("wiki", check_name(topic or owner.removeprefix("wiki:")))
            if tier in AGENT_TIERS and not topic and not owner.startswith("wiki:"):
                return places.tier_rel(tier, check_name(owner))
        except SquadmemError:
            return None
        return None

    src, dst = one(source), one(destination)
    return (src, dst) if src and dst and src != dst else None


def edited_under(
    before: Mapping[str, str | None], after: Mapping[str, str | None], src: str, dst: str
) -> tuple[str, str] | None:
    """(the text the move carried, the edited text at the old place) when a move from ``src`` to
    ``dst`` (files' texts before and after it) left its source as it was and added to its
    destination one section whose heading a section of the source has, with other words."""
    source = before.get(src)
    if source is None or after.get(src) != source or after.get(dst) is None:
        return None
    had = [sections.trimmed(s.text) for s in sections.split(before.get(dst) or "").sections]
    doc = sections.split(after.get(dst) or "")
    now = [sections.trimmed(s.text) for s in doc.sections]
    added = [n for n in range(len(now)) if now[:n] + now[n + 1 :] == had]
    if len(now) != len(had) + 1 or not added:
        return None
    carried = doc.sections[added[0]]
    for section in sections.split(source).sections:
        same_heading = section.raw_heading.strip() == carried.raw_heading.strip()
        if same_heading and sections.trimmed(section.text) != sections.trimmed(carried.text):
            return carried.text, section.text
    return None


def _texts(objects: Objects, tree: str, rels: Sequence[str]) -> Texts:
    found: Texts = {}
    for rel in rels:
        data = objects.content(tree, rel)
        found[rel] = None if data is None else decode_tier(data, rel)
    return found


def find(repo: Repo, objects: Objects) -> list[Rebased]:
    """The rebased moves among HEAD's commits not on any remote-tracking branch, oldest first."""
    if questions.head(repo.git) is None:
        return []
    # empty when git cannot walk this history (a broken object): doctor's other checks say why
    rows = questions.unpublished_with(repo.git, constants.MOVE_TRAILER)
    found = []
    for sha, *parents in rows:
        if len(parents) != 1:
            continue
        try:
            rebased = _one(objects, sha, parents[0], repo.layout.places)
        except SquadmemError:
            continue  # a file squadmem cannot read: the file checks name it
        if rebased is not None:
            found.append(rebased)
    return found


def _one(objects: Objects, sha: str, parent: str, places: Places) -> Rebased | None:
    message = objects.read(sha).partition(b"\n\n")[2].decode("utf-8", "replace")
    moves = _MOVE.findall(message)
    if len(moves) != 1:
        return None
    sid, source, destination = moves[0]
    where = paths(sid, source, destination, places)
    if where is None:
        return None
    before = _texts(objects, objects.tree_of(parent), where)
    after = _texts(objects, objects.tree_of(sha), where)
    texts = edited_under(before, after, *where)
    return None if texts is None else Rebased(sha, where[0], where[1], *texts)


def published(repo: Repo, sha: str) -> bool:
    """Whether a remote-tracking branch holds the commit (squadmem never rewrites it then)."""
    return questions.on_remote(repo.git, sha)


def chain(repo: Repo, start: str) -> tuple[str, list[str]]:
    """The parent of ``start`` and HEAD's commits from ``start`` on, oldest first, each the child of
    the one before; refuses a merge among them, or one on a remote-tracking branch (published:
    never rewritten)."""
    base = questions.parents(repo.git, start)[0]
    unpublished = questions.unpublished(repo.git, base)
    commits, expected = [], base
    for sha, *parents in questions.chain(repo.git, base):
        if parents != [expected] or sha not in unpublished:
            raise SquadmemError(
                f"{start[:7]}: a move rebased onto an edit of its section, with a merge or a"
                " published commit after it: squadmem rewrites only a line of unpublished commits",
                hint=f"make it again by hand: git rebase -i {start[:7]}^ and drop the move, then move"
                " the section again (squadmem demote or promote)",
            )
        commits.append(sha)
        expected = sha
    return base, commits


def rewrite(
    objects: Objects, parent: str, commits: Sequence[str], rels: Sequence[str], fix: Callable[[Texts], Texts]
) -> str:
    """``commits`` (a line from ``parent``, oldest first) made again with ``fix`` applied to the
    texts of ``rels`` in each tree; authors, dates and messages kept (a signature dropped); a
    commit the fix leaves empty is dropped. The new last commit."""
    before_old = objects.tree_of(parent)
    for sha in commits:
        old_tree = objects.tree_of(sha)
        texts = _texts(objects, old_tree, rels)
        fixed = fix(dict(texts))
        blobs = {
            rel: objects.write("blob", encode_tier(text, rel))
            for rel, text in fixed.items()
            if text is not None and text != texts[rel]
        }
        tree = objects.with_blobs(old_tree, blobs) if blobs else old_tree
        parent_tree = objects.tree_of(parent)
        if not blobs and parent_tree != before_old and texts != _texts(objects, parent_tree, rels):
            raise _unfixable(sha, commits[0])  # it changed the section in a way the fix cannot follow
        emptied = tree == parent_tree and old_tree != before_old
        before_old = old_tree
        if not emptied:
            parent = objects.write("commit", _again(objects.read(sha), tree, parent))
    return parent


def _unfixable(sha: str, start: str) -> SquadmemError:
    return SquadmemError(
        f"{sha[:7]}: changed a section a rebased move ({start[:7]}) carried, after the rebase:"
        " squadmem cannot make that move again; squadmem changed nothing",
        hint=f"make it again by hand: git rebase -i {start[:7]}^ and drop the move, then move the"
        " section again (squadmem demote or promote)",
    )


def _again(raw: bytes, tree: str, parent: str) -> bytes:
    """A commit object's bytes with another tree and parent, its signature dropped."""
    head, sep, body = raw.partition(b"\n\n")
    kept, skipping = [], False
    for line in head.split(b"\n"):
        if line.startswith(b" "):
            if not skipping:
                kept.append(line)
            continue
        skipping = line.startswith((b"tree ", b"parent ", b"gpgsig"))
        if not skipping:
            kept.append(line)
    return b"\n".join([b"tree " + tree.encode(), b"parent " + parent.encode(), *kept]) + sep + body
