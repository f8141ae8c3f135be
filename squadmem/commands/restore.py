"""``restore``: put a section that is no longer in any tier back, from the last commit that had it."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator

from squadmem.engine import catalog
from squadmem.engine.history import lastuse
from squadmem.engine.maintenance import load_settings
from squadmem.engine.outcome import Outcome
from squadmem.engine.planning import policy
from squadmem.engine.writing import writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import sections, templates
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import AGENT_TIERS, TIERS, check_name, classify, decode_tier


@dataclasses.dataclass(frozen=True)
class Found:
    rev: str
    entry: catalog.Entry


def memory_at(repo: Repo, rev: str) -> catalog.Memory:
    """The memory of commit ``rev``'s tree."""
    places = repo.layout.places
    listed = questions.tree_blobs(repo.git, rev, places.pathspecs)
    return catalog.from_blobs(
        {rel: repo.blob(sha) for rel, sha in listed.items() if classify(rel, places) is not None}, places
    )


def resolve(repo: Repo, rev: str) -> str:
    found = questions.commit(repo.git, rev)
    if found is not None:
        return found
    if repo.is_shallow():
        raise SquadmemError(
            f"--at {rev!r}: not a commit here, and this shallow clone lacks history:"
            " unshallow with `git fetch --unshallow`",
            hint="then run it again, or give a commit the clone has: a sha, a tag, HEAD~3...",
        )
    raise SquadmemError(f"--at {rev!r}: not a commit here", hint="give a commit: a sha, a tag, HEAD~3...")


def _removals(repo: Repo) -> Iterator[tuple[str, str, str]]:
    """(parent commit, tier file, its blob there) for each tier file changed, newest commit first."""
    for entry in questions.changes(repo.git, ("%P",), repo.layout.places.pathspecs):
        parent = entry.fields[0].decode("ascii").partition(" ")[0]
        for change in entry.changes if parent else ():
            if classify(change.path, repo.layout.places) is not None and change.old is not None:
                yield parent, change.path, change.old


def _matches(entry: catalog.Entry, ref: str) -> bool:
    return ref in (entry.id, entry.title, entry.section.raw_heading)


def find_removed(repo: Repo, ref: str) -> Found | None:
    """The newest commit whose tree held the section ``ref`` (by id or exact heading) before it went."""
    seen: set[str] = set()
    for parent, rel, blob in _removals(repo):
        if blob in seen:
            continue
        seen.add(blob)
        try:
            single = catalog.from_texts({rel: decode_tier(repo.blob(blob), rel)}, repo.layout.places)
        except SquadmemError:
            continue
        if not any(e.id.endswith("/" + ref.rpartition("/")[2]) or _matches(e, ref) for e in single.entries):
            continue
        try:
            return Found(parent, memory_at(repo, parent).find(ref))
        except catalog.Ambiguous:
            raise
        except SquadmemError:
            pass
    return None


def restore(
    repo: Repo,
    ref: str,
    *,
    now: dt.datetime,
    at: str | None = None,
    to: str | None = None,
    topic: str | None = None,
) -> Outcome:
    """Put a section that is no longer in any tier back, from the last commit that had it (or ``at``)."""
    with writer.session(repo) as scribe:
        memory = catalog.load(repo.layout)
        if at is None:
            present = next((e for e in memory.entries if _matches(e, ref)), None)
            if present is not None:
                return Outcome(None, note=f"{present.id} is in {present.file}: nothing to restore")
            found = find_removed(repo, ref)
            if found is None and repo.is_shallow():
                raise SquadmemError(
                    f"no commit of this shallow clone had a section with the id or heading {ref!r}:"
                    " unshallow with `git fetch --unshallow`",
                    hint="then run it again; or check the spelling",
                )
            if found is None:
                raise SquadmemError(
                    f"no commit on this branch had a section with the id or heading {ref!r}",
                    hint="check the spelling, or name a commit that had it with --at REV",
                )
        else:
            rev = resolve(repo, at)
            found = Found(rev, memory_at(repo, rev).find(ref))
        return _restore(repo, scribe, memory, found, now, to, topic)


def _restore(
    repo: Repo,
    scribe: writer.Writer,
    memory: catalog.Memory,
    found: Found,
    now: dt.datetime,
    to: str | None,
    topic: str | None,
) -> Outcome:
    entry = found.entry
    wanted = sections.trimmed(entry.text)
    present = next((e for e in memory.entries if sections.trimmed(e.text) == wanted), None)
    if present is not None:
        return Outcome(
            None, note=f"{entry.id} as of {found.rev[:12]} is in {present.file}: nothing to restore"
        )
    tier = to or entry.tier
    if tier not in TIERS:
        raise SquadmemError(f"--to {tier!r}: not a tier", hint=f"tiers are {', '.join(TIERS)}")
    if tier == "wiki":
        name = check_name(
            topic
            or entry.section.flags.topic
            or (entry.name if entry.tier == "wiki" else policy.DEFAULT_TOPIC),
            "topic",
        )
    elif entry.tier == "wiki":
        raise SquadmemError(
            f"{entry.id} was a wiki section: it has no agent to restore it to",
            hint="restore it into the wiki (the default), then copy what you need",
        )
    else:
        name = entry.name
    assert tier in AGENT_TIERS or tier == "wiki"
    memory.require(f"wiki:{name}" if tier == "wiki" else name)
    conf = load_settings(repo)
    ages = lastuse.last_uses(repo, memory, now=now)
    plan = policy.restore(
        memory,
        ages,
        conf,
        now,
        title=entry.title,
        text=entry.text,
        target_tier=tier,
        target_name=name,
        rev=found.rev,
        header=templates.headers(repo.layout.places),
    )
    made = scribe.execute(plan, templates.headers(repo.layout.places))
    return Outcome(plan, tuple(made), recovered=scribe.recovered)
