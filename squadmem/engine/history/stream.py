"""What history says about each section, from one streamed pass, continued from the cache.

The pass (here) gives the facts that :mod:`squadmem.engine.history.lastuse` turns into
each section's last use; :mod:`squadmem.engine.history.cutter` cuts the blobs,
:mod:`squadmem.engine.history.cache` keeps the facts, and the log and the
blobs are read through the git gateway (:mod:`squadmem.gitio.commits`).

A section's last use is the latest of:

1. the commit time of the earliest commit reachable from HEAD whose tree
   holds the section's current content, in any tier file (so a move keeps
   the age and an edit resets it); content is compared with line endings
   normalized and trailing blank lines trimmed;
2. the time of any commit whose ``Squad-Memory-Used:`` trailer names its id;
3. a pending use recorded in ``.git/squadmem/`` (``uses.py``), or an
   uncommitted edit (content no commit holds): now.

How (1) is read cheaply: every tier blob a commit introduces relative to its
first parent is listed by one ``git log --raw`` process (a blob that a tree
holds was introduced by some ancestor on its first-parent line, so the
earliest of those commits is the earliest holder); the blobs come through
one ``git cat-file --batch`` process. Each blob is cut into sections and
each section's normalized text hashed; a blob is cut relative to the last
version of the same path (only the changed stretch is scanned again), so
the scanner sees a few KB per commit, not the whole file, and what a version
adds and drops is counted from that stretch alone. The result, a map
content hash -> (earliest time, commit), and per id the latest trailer, is
cached in ``.git/squadmem/history-cache`` with the HEAD it was computed for;
the next run reads only the commits since. Nothing in the cache is
authoritative: an unreadable, truncated or old-format cache, or a HEAD that
no longer descends from the cached one (rebase, reset), is rebuilt from
history.

Shallow clones: a boundary commit holds its whole tree without history, so
content first seen at a boundary commit has an unknown age (``when=None``,
kind ``unknown``), unless a use known to be later decides it.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import sys
from collections.abc import Iterable, Sequence
from typing import TypeVar

from squadmem.engine.history.cache import HISTORY, cache_key, load_cache, save_cache
from squadmem.engine.history.cutter import Cut, cut
from squadmem.engine.history.facts import Facts, First, add_use, earlier, heading_key
from squadmem.engine.history.progress import Progress
from squadmem.gitio import questions
from squadmem.gitio.commits import NULL_SHA, Commit, blobs, blobs_at, memory_log
from squadmem.gitio.repo import Repo
from squadmem.model import squad, uses
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, classify
from squadmem.model.places import Places

_T = TypeVar("_T")


@dataclasses.dataclass
class _Read:
    """One pass of the log, not yet applied to the facts."""

    places: Places  # the work tree's layout: which paths are tier files
    count: int = 0
    parents: set[str] = dataclasses.field(default_factory=set)
    trailers: list[Commit] = dataclasses.field(default_factory=list)
    introduced: dict[str, First] = dataclasses.field(default_factory=dict)  # blob -> earliest introducer
    paths: dict[str, str] = dataclasses.field(default_factory=dict)  # blob -> a path of it, in log order
    first_parent: dict[str, str] = dataclasses.field(default_factory=dict)  # commit -> its first parent
    deleted: list[tuple[int, str, str, str]] = dataclasses.field(default_factory=list)  # time, sha, old, path
    base: str | None = None  # the cached tip this read continues from
    undated: list[str] = dataclasses.field(default_factory=list)  # commits whose date git cannot read


def _read_log(repo: Repo, revs: Sequence[str], progress: Progress | None = None) -> _Read:
    boundary = repo.shallow_boundary()
    read = _Read(repo.layout.places)
    tell = progress.update if progress is not None else None
    for commit in memory_log(repo, revs, progress=tell, squad_sources=True):
        read.count += 1
        read.parents.update(commit.parents)
        if not commit.dated:
            read.undated.append(commit.sha)
        if commit.message is not None:
            read.trailers.append(commit)
        if not commit.changes:
            continue
        here: First = (commit.time, commit.sha in boundary, bytes.fromhex(commit.sha))
        if commit.parents:
            read.first_parent[commit.sha] = commit.parents[0]
        for old, new, path in commit.changes:
            if new == NULL_SHA:
                if old != NULL_SHA and classify(path, read.places) is not None:
                    read.deleted.append((commit.time, commit.sha, old, path))
                continue
            if earlier(read.introduced.get(new), here):
                read.introduced[new] = here
            read.paths.setdefault(new, path)
    return read


def _apply(repo: Repo, read: _Read, facts: Facts, base: str | None = None) -> None:
    """Add one read to the facts; ``base``: the commit the facts were read up to (its files are
    the previous versions of the files this read changes)."""
    for commit in read.trailers:
        _add_trailers(facts, commit)
    _record_blobs(repo, read, facts, _bases(repo, base, read) if base else {})


def _bases(repo: Repo, base: str, read: _Read) -> dict[str, str]:
    """Path -> blob in ``base`` for the tier files this read changes."""
    changed = sorted({p for p in read.paths.values()} | {p for *_, p in read.deleted})
    if not changed:
        return {}
    return blobs_at(repo, base, changed)


def _record_blobs(repo: Repo, read: _Read, facts: Facts, bases: dict[str, str]) -> None:
    """Cut each blob, oldest first, against the previous version of its path; record its contents.

    A section a blob shares with the previous version of its path already
    holds an earliest time no later than that version's; if this blob's
    commit is not earlier (the usual case), only its new sections are looked
    at, found from the stretch the cut changed (:class:`_Counts`). A heading
    the previous version had and this one has not left the file here: the
    latest such departure is kept (``recall --history``). ``bases`` (path ->
    blob) are the versions before this read began.
    """
    paths, introduced = read.paths, read.introduced
    last: dict[str, _Last] = {}
    first = facts.first
    dropped = {old: path for _, _, old, path in read.deleted}
    jobs = [(sha, "base", path) for path, sha in bases.items()]
    jobs += [(sha, "dropped", path) for sha, path in dropped.items() if sha not in paths]
    jobs += [(sha, "new", paths[sha]) for sha in reversed(paths)]
    cuts_of_dropped: dict[str, Cut] = {}
    base_holder: First = (0, False, bytes.fromhex(read.base or NULL_SHA))
    for (sha, raw), (_, role, path) in zip(blobs(repo, [j[0] for j in jobs]), jobs, strict=True):
        if len(raw) > MAX_FILE_BYTES:
            continue
        if role != "new":
            done = cut(raw.decode("utf-8", "replace"))
            if role == "base":
                last[path] = _Last(done, base_holder, sha)
            cuts_of_dropped[sha] = done
            continue
        holder = introduced[sha]
        before = last.get(path)
        done = cut(raw.decode("utf-8", "replace"), before.cut if before else None)
        last[path] = _Last(done, holder, sha, before.counts if before else None)
        if sha in dropped:
            cuts_of_dropped[sha] = done
        keys: Iterable[bytes] = done.keys
        if before is not None:
            came, gone = last[path].step(before.cut)
            if not earlier(before.holder, holder):
                keys = came
            if gone:
                _departures(facts, read, path, before, last[path], gone)
        if squad.is_source(path):
            keys = {*keys, *(k for e in squad.entries(path, done.text) for k in e.keys)}
        for key in keys:
            if earlier(first.get(key), holder):
                first[key] = holder
    for time, commit, old, path in read.deleted:
        gone_cut = cuts_of_dropped.get(old)
        holder_of = read.introduced.get(old)
        if gone_cut is not None:
            parent = read.first_parent.get(commit, "")
            sure = holder_of[2].hex() if holder_of else (read.base or parent)
            _depart(
                facts, read.places, gone_cut, range(len(gone_cut.keys)), path, old, time, commit, parent, sure
            )


class _Counts:
    """How many sections of a version have each content key and each heading (spaced)."""

    def __init__(self, done: Cut) -> None:
        self.keys: dict[bytes, int] = {}
        self.headings: dict[str, int] = {}
        _count(self.keys, done.keys, 1)
        _count(self.headings, (_heading(done, i) for i in range(len(done.starts))), 1)


def _count(counts: dict[_T, int], items: Iterable[_T], by: int) -> None:
    for item in items:
        n = counts.get(item, 0) + by
        if n:
            counts[item] = n
        else:
            del counts[item]


@dataclasses.dataclass
class _Last:
    """The last version of a path read: its cut, the commit that introduced it, its blob, and its
    counts (made when first needed, then stepped from version to version by the changed stretch)."""

    cut: Cut
    holder: First
    blob: str
    counts: _Counts | None = None

    def step(self, old: Cut) -> tuple[list[bytes], set[bytes]]:
        """Step ``old``'s counts (the version before) to this one's: (the content keys this version
        has and ``old`` had not, in section order; those ``old`` had and this one has not)."""
        counts = self.counts or _Counts(old)
        self.counts = counts
        lo, old_hi, new_hi = self.cut.changed or (0, len(old.keys), len(self.cut.keys))
        out, into = old.keys[lo:old_hi], self.cut.keys[lo:new_hi]
        _count(counts.keys, out, -1)
        _count(counts.headings, (_heading(old, i) for i in range(lo, old_hi)), -1)
        outs = set(out)
        came = [k for k in dict.fromkeys(into) if k not in counts.keys and k not in outs]
        gone = {k for k in outs if k not in counts.keys}.difference(into)
        _count(counts.keys, into, 1)
        _count(counts.headings, (_heading(self.cut, i) for i in range(lo, new_hi)), 1)
        return came, gone


def _departures(facts: Facts, read: _Read, path: str, before: _Last, now: _Last, gone: set[bytes]) -> None:
    """Record the sections of ``before`` whose content ``now`` has not and whose heading it has not
    (a heading spelt with other spaces is the same heading)."""
    old_cut, done = before.cut, now.cut
    lo, old_hi, _ = done.changed or (0, len(old_cut.keys), 0)
    left = [i for i in range(lo, old_hi) if old_cut.keys[i] in gone]
    left = [i for i in left if not _holds(done, old_cut.text[old_cut.starts[i] : old_cut.heads[i]])]
    assert now.counts is not None
    left = [i for i in left if _heading(old_cut, i) not in now.counts.headings]
    if left:
        commit = now.holder[2].hex()
        parent = read.first_parent.get(commit, "")
        sure = before.holder[2].hex()
        _depart(facts, read.places, old_cut, left, path, before.blob, now.holder[0], commit, parent, sure)


def _holds(done: Cut, heading: str) -> bool:
    """Does a section of ``done`` have exactly this heading (its text to the end of its heading)?"""
    at = done.text.find(heading)
    while at >= 0:
        index = bisect.bisect_left(done.starts, at)
        if index < len(done.starts) and done.starts[index] == at and done.heads[index] == at + len(heading):
            return True
        at = done.text.find(heading, at + 1)
    return False


def _heading(done: Cut, index: int) -> str:
    return _spaced(done.text[done.starts[index] : done.heads[index]])


@functools.lru_cache(maxsize=4096)
def _spaced(heading: str) -> str:
    """A heading's words, one space apart (the same heading for ``recall --history``)."""
    return " ".join(heading.split())


def _depart(
    facts: Facts,
    places: Places,
    old: Cut,
    indexes: Iterable[int],
    path: str,
    blob: str,
    time: int,
    commit: str,
    parent: str,
    sure: str,
) -> None:
    ends = (*old.starts[1:], len(old.text))
    for index in indexes:
        key = heading_key(path, places, old.text[old.starts[index] : old.heads[index]].splitlines()[0])
        had = facts.gone.get(key)
        if had is None or (time, commit) >= (had[0], had[1]):
            facts.gone[key] = (time, commit, parent, sure, blob, path, old.starts[index], ends[index])


def trailer_times(commit: Commit) -> dict[str, int]:
    """Id -> its use time in ``commit``'s trailers: the commit's time, or a dated use's (never later)."""
    assert commit.message is not None
    found: dict[str, int] = {}
    for ident, when in uses.parse_dated(commit.message):
        time = commit.time if when is None else min(commit.time, int(when.timestamp()))
        found[ident] = max(found.get(ident, time), time)
    return found


def _add_trailers(facts: Facts, commit: Commit) -> None:
    for ident, when in trailer_times(commit).items():
        facts.used[ident] = add_use(facts.used.get(ident), when, commit.sha)


def _since(repo: Repo, tip: str, head: str) -> _Read | None:
    """The commits made since ``tip``, or None if ``tip`` is no longer in HEAD's history.

    ``tip`` is an ancestor of HEAD exactly when one of the commits reachable
    from HEAD and not from ``tip`` has it as a parent, so the log of those
    commits proves it without another git process.
    """
    revs = [head, f"^{tip}"]
    try:
        with Progress.for_commits(repo, revs, "reading new commits") as bar:
            read = _read_log(repo, revs, bar)
    except SquadmemError:
        return None  # the cached tip is gone (rewritten and collected)
    read.base = tip
    return read if tip in read.parents else None


def read_facts(repo: Repo, *, cache: bool = True, verbose: bool = False) -> Facts:
    """What history up to HEAD says, from the cache plus the commits made since."""
    head = questions.head(repo.git)
    say = _say if verbose else _quiet
    if head is None:
        return Facts()
    key = cache_key(repo)
    path = HISTORY.path(repo)
    facts, why = load_cache(path, key, repo.hash_width // 2) if cache else (None, "cache not used")
    if facts is not None and facts.tip == head:
        say("history cache: up to date")
        return facts
    read = _since(repo, facts.tip, head) if facts is not None and facts.tip else None
    if facts is not None and read is None:
        why = "history was rewritten since the cache was made (rebase, reset or amend)"
        facts = None
    if facts is None or read is None:
        say(f"history cache: {why}: reading all history")
        facts = Facts()
        with Progress.for_commits(repo, [head], "reading history") as bar:
            read = _read_log(repo, [head], bar)
    _apply(repo, read, facts, read.base)
    if read.undated:
        _say(_undated(read.undated))
    say(f"history cache: read {read.count} commit{'s' if read.count != 1 else ''}")
    facts.tip = head
    if cache:
        try:
            save_cache(path, key, facts, repo.hash_width // 2)
        except OSError as exc:
            say(f"history cache: not written ({exc.strerror})")
    return facts


def _undated(shas: list[str]) -> str:
    more = f" (and {len(shas) - 1} more)" if len(shas) > 1 else ""
    return (
        f"warning: commit {shas[0][:12]}{more} has a date outside 1970 to 9999 or none git can read: "
        "read as git shows it (none: 1970-01-01), its ages may be off; `squadmem verify` refuses it"
    )


def _say(message: str) -> None:
    print(f"squadmem: {message}", file=sys.stderr)


def _quiet(message: str) -> None:
    pass
