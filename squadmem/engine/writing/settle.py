"""After a merge: an edit kept at its section's old place goes to the new place; no section twice.

git runs the merge driver only for files both sides changed. When one side
moved a section (hot → cold) and the other edited it at its old place, and
the other side did not touch the new file, git takes the new file whole from
the moving side: the driver can only keep the edit at the old place, and
notes it in ``.git/squadmem/merge-settle.json``. ``squadmem doctor --fix``
reads that note and makes one commit that puts the edited text in place of
the unedited one at the new place and takes it out of the old place. A note
whose texts are no longer where it says (someone settled it by hand) is
dropped.

Likewise, when the two sides moved one section to two different files and
git took both files whole, the section is in two places: ``doctor --fix``
keeps its first place in tier order (hot, cold, archive, wiki) and removes
the others, in one commit. The texts are equal, so nothing is lost.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from squadmem.engine import catalog, index
from squadmem.engine.writing import rebased, writer
from squadmem.gitio import questions
from squadmem.gitio.objects import Objects
from squadmem.gitio.repo import Repo
from squadmem.model import constants, jsontext, sections, writes
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify, decode_tier
from squadmem.model.places import Places

RECORD = constants.SETTLE


@dataclasses.dataclass(frozen=True)
class Relocation:
    source: str  # where the merge kept the edited text
    target: str  # where the section had moved, unedited
    old: str
    new: str

    @property
    def title(self) -> str:
        doc = sections.split(self.new)
        return doc.sections[0].raw_heading.strip() if doc.sections else "?"

    def describe(self, places: Places) -> str:
        tier = classify(self.target, places)
        return f"{self.title!r} edited in {self.source}, moved to {tier.tier if tier else self.target}"


def _path(repo: Repo) -> Path:
    return repo.state_dir / RECORD


def noted(repo: Repo) -> list[Relocation]:
    try:
        data = jsontext.loads(writes.read_state(_path(repo)).decode("utf-8"))
        fields = ("source", "target", "old", "new")
        return [Relocation(**{k: str(item[k]) for k in fields}) for item in data["relocations"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def merging(repo: Repo) -> bool:
    """Whether a merge waits to be concluded (MERGE_HEAD is there, and no commit of it yet)."""
    operation = writer.operation_under_way(repo)
    return operation is not None and operation.name == "a merge"


def _position(text: str | None, wanted: str) -> int:
    if text is None:
        return -1
    for position, section in enumerate(index.split(text).sections):
        if sections.trimmed(section.text) == wanted:
            return position
    return -1


def applies(item: Relocation, head_text: dict[str, str | None]) -> bool:
    """Whether HEAD still holds the edit at the old place and the unedited text at the new one."""
    return (
        _position(head_text[item.source], sections.trimmed(item.new)) >= 0
        and _position(head_text[item.target], sections.trimmed(item.old)) >= 0
    )


def swapped(target: str, item: Relocation) -> str:
    """``target`` with the edited text in place of the unedited one, keeping the blank lines after it."""
    doc = index.split(target)
    position = _position(target, sections.trimmed(item.old))
    old = doc.sections[position].text
    new = sections.trimmed(item.new) + old[len(sections.trimmed(old)) :]
    texts = [s.text for s in doc.sections]
    texts[position] = new
    if position < len(texts) - 1 and not index.ends_line(new):
        texts[position] = new + "\n"
    return doc.header + "".join(texts)


def repeat_key(entry: catalog.Entry) -> tuple[str, str]:
    """What makes two sections one repeated: the same text in the same agent's tiers, or in the wiki.

    Two agents may hold the same text: Squad writes each team update into every
    agent's history, and the Scribe copies a session note to several; each is
    that agent's entry, and removing one would lose it.
    """
    return ("wiki" if entry.tier == "wiki" else entry.name, sections.trimmed(entry.text))


def without_repeats(texts: Mapping[str, str], places: Places) -> tuple[dict[str, str], list[str]]:
    """The tier files (path -> text) whose sections repeat an earlier one, without the repeats.

    Earlier is tier order (hot, cold, archive, wiki), then file name, then file
    order; hot Session and Index sections are not compared, nor two agents' sections. Only changed files
    are returned, with one note per removed section.
    """
    changed: dict[str, str] = {}
    notes = []
    seen: dict[tuple[str, str], str] = {}
    for entry in index.memory(texts, places).entries:
        if entry.is_index or entry.is_session:
            continue
        key = repeat_key(entry)
        if key not in seen:
            seen[key] = entry.file
            continue
        changed[entry.file] = index.remove(changed.get(entry.file, texts[entry.file]), entry.text)[0]
        notes.append(f"{entry.title!r} was in {seen[key]} and {entry.file}: removed from {entry.file}")
    return changed, notes


def settle(repo: Repo) -> list[str]:
    """Make again each move rebased onto an edit of its section, commit each noted edit at its new
    place, then drop repeated sections; one line per change."""
    items = noted(repo)
    if merging(repo):
        if not items:
            return []
        raise SquadmemError(
            "a merge is not finished yet: its edits of moved sections cannot be settled",
            hint="conclude it (git commit), then run: squadmem doctor --fix",
        )
    done = []
    with writer.session(repo) as scribe:
        redone = redo_rebased(repo, scribe)
        done += redone
        for item in items:
            texts = {rel: scribe.text(rel) for rel in (item.source, item.target)}
            if not applies(item, texts):
                done += [] if redone else [f"already settled: {item.describe(repo.layout.places)}"]
                continue
            source, _ = index.remove(texts[item.source] or "", item.new)
            target = swapped(texts[item.target] or "", item)
            tier = classify(item.target, repo.layout.places)
            agent, where = (tier.name, tier.tier) if tier else ("memory", item.target)
            subject = f'memory({agent}): settle merge: "{item.title}" edited, at its new place in {where}'
            scribe.commit_files(
                {item.source: source, item.target: target},
                subject,
                f"A merge kept this edit in {item.source}; the section had moved to {item.target}.",
            )
            done.append(f"settled: {item.describe(repo.layout.places)}")
        writes.discard(_path(repo))
        try:
            heads = _head_texts(repo, scribe)
            changed, notes = without_repeats(heads, repo.layout.places)
        except SquadmemError:
            return done  # a tier file squadmem cannot read: the "tier files" check names it
        if changed:
            scribe.commit_files(
                changed,
                f"memory: settle merge: {len(notes)} section(s) that were in two places",
                "\n".join(notes),
            )
            done += [f"settled: {note}" for note in notes]
    return done


def rebased_moves(repo: Repo) -> list[rebased.Rebased]:
    """The unpublished move commits that carried a section's text from before an edit."""
    return rebased.find(repo, Objects(repo))


def redo_rebased(repo: Repo, scribe: writer.Writer) -> list[str]:
    """The unpublished commits from the first rebased move on, made again so that each such move
    carries the edited text (a pure move); a settle commit made on top of it, left empty, dropped."""
    found = rebased.find(repo, scribe.objects)
    if not found:
        return []
    items = [Relocation(b.source, b.target, b.old, b.new) for b in found]
    rels = sorted({rel for item in items for rel in (item.source, item.target)})

    def fix(texts: rebased.Texts) -> rebased.Texts:
        for item in items:
            if applies(item, texts):
                texts[item.source] = index.remove(texts[item.source] or "", item.new)[0]
                texts[item.target] = swapped(texts[item.target] or "", item)
        return texts

    base, commits = rebased.chain(repo, found[0].commit)
    new = rebased.rewrite(scribe.objects, base, commits, rels, fix)
    scribe.replace_head(new, rels, f"settle: {len(found)} rebased move(s) made again")
    return [
        f"made again: the move of {b.title!r} ({b.commit[:7]}), with the edit made upstream" for b in found
    ]


def _head_texts(repo: Repo, scribe: writer.Writer) -> dict[str, str]:
    found = {}
    for tf in repo.layout.tier_files():
        data = scribe.objects.content(scribe.tree, tf.rel)
        if data is not None:
            found[tf.rel] = decode_tier(data, tf.rel)
    return found


def pending(repo: Repo) -> list[Relocation]:
    """The noted edits HEAD still holds at their old place."""
    items = noted(repo)
    if not items:
        return []
    head = questions.head(repo.git)
    if head is None:
        return []
    objects = Objects(repo)
    tree = objects.tree_of(head)
    found = []
    for item in items:
        texts: dict[str, str | None] = {}
        for rel in (item.source, item.target):
            data = objects.content(tree, rel)
            texts[rel] = None if data is None else data.decode("utf-8", "replace")
        if applies(item, texts):
            found.append(item)
    return found
