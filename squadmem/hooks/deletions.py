"""The sections a commit being made removes from the tier files, for its ``Squad-Memory-Delete`` trailer.

An agent (OpenClaw's tells it to) or a person may remove a section by hand;
``verify`` accepts a commit that removes a section only when its message
names it in a ``Squad-Memory-Delete`` trailer. The message hooks
(:mod:`squadmem.hooks.use_trailers`) ask this module which sections the
index removes against HEAD (against HEAD's parent for an amend, which
replaces HEAD) by the rule :mod:`squadmem.model.removals` shares with
``verify``, and name them, so no one types the trailer and nothing leaves
unrecorded. A merge being concluded gets none (a side's removals are the
merge's to keep). Standard library only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence

from squadmem.gitio import gitdir, questions
from squadmem.hooks import staged
from squadmem.model.errors import SquadmemError

TYPE_CHECKING = False  # not typing's: the pre-commit hook imports this module on every memory commit
if TYPE_CHECKING:
    from squadmem.gitio.formats import Staged
    from squadmem.model.places import Places

# the section model (removals, layout: re, html, pathlib) is imported only for a commit that changes
# a tier file that held sections

OLD_SIDE = frozenset("MDRT")  # statuses whose old side held a file
NOTE = "removals-unnamed"  # in .git/squadmem/: the message shims start Python when it is there


def state_dir(env: Mapping[str, str]) -> str:
    """``.git/squadmem`` of the repository (its common git directory)."""
    found = gitdir.common_dir()  # at the top of the work tree, where git runs hooks: no process
    return os.path.join(found if found is not None else questions.common_dir(env), "squadmem")


def note(state: str, unnamed: bool) -> None:
    """Leave (or clear) the note that a removal waits to be named in the message: the message shims
    then start Python (a file test, no git). Never fails a commit: without the note, ``verify``
    names what is missing."""
    path = os.path.join(state, NOTE)
    try:
        if unnamed:
            os.makedirs(state, exist_ok=True)
            with open(path, "w", encoding="utf-8"):
                pass
        elif os.path.isfile(path):
            os.unlink(path)
    except OSError:
        pass


def note_staged(env: Mapping[str, str]) -> None:
    """The pre-commit hook's part: note whether the commit removes a section (the message hooks name
    it; with ``--no-verify`` there is no note, and ``verify`` refuses the removal unrecorded)."""
    with contextlib.suppress(SquadmemError):
        note(state_dir(env), bool(removed(env)))


def changes(env: Mapping[str, str], amend: bool) -> list[Staged]:
    """The tier files the commit changes (against HEAD, or HEAD's parent)."""
    places = staged.places(env)
    if amend:
        if questions.commit(env, "HEAD^") is None:
            return []
        found = questions.staged_changes(env, places.pathspecs, "HEAD^")
    else:
        found = staged.memory_changes(env)
    return [e for e in found if any(places.split(p) is not None for p in (e.path, e.source) if p)]


def removed(env: Mapping[str, str], amend: bool = False) -> list[str]:
    """The ids of the sections the commit being made removes, in order; empty when it removes none,
    concludes a merge, or a tier file involved cannot be read (the file check refuses that)."""
    found = changes(env, amend)
    if not any(e.status in OLD_SIDE for e in found) or gitdir.merge_head_file() is not None:
        return []
    from squadmem.model import removals

    places = staged.places(env)
    owners = {removals.owner_of(places, p) for e in found for p in (e.path, e.source) if p}
    base = "HEAD^" if amend else "HEAD"
    before = {
        rel: sha
        for rel, sha in questions.tree_blobs(env, base, places.pathspecs).items()
        if removals.owner_of(places, rel) in owners
    }
    after = _apply(before, found, places, owners)
    try:
        texts = _texts({*before.values(), *after.values()}, env)
        return removals.removed(
            {rel: texts[sha] for rel, sha in before.items()},
            {rel: texts[sha] for rel, sha in after.items()},
            places,
        )
    except (SquadmemError, KeyError):  # a malformed flag comment is one: the file check says so
        return []


def _apply(
    tree: Mapping[str, str], found: Sequence[Staged], places: Places, owners: set[str | None]
) -> dict[str, str]:
    """``tree`` (path -> blob) as the index has it, from the changes."""
    from squadmem.model import removals

    after = dict(tree)
    for entry in found:
        if entry.source:
            after.pop(entry.source, None)
        if entry.status == "D" or not entry.new_sha or set(entry.new_sha) == {"0"}:
            after.pop(entry.path, None)
        elif removals.owner_of(places, entry.path) in owners:
            after[entry.path] = entry.new_sha
    return after


def _texts(shas: set[str], env: Mapping[str, str]) -> dict[str, str]:
    from squadmem.model.layout import decode_tier

    read = staged.blobs(sorted(shas), env)
    return {sha: decode_tier(raw, sha) for sha, raw in read.items() if raw is not None}
