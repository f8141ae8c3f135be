"""Each section's last use, from one streamed pass over history, and the cache that keeps it cheap.

A section's last use is the latest of (DESIGN, "Age, from history"):

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
the scanner sees a few KB per commit, not the whole file. The result, a map
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
import contextlib
import dataclasses
import datetime as dt
import hashlib
import itertools
import json
import os
import re
import struct
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from squadmem.engine import catalog
from squadmem.engine.progress import Progress
from squadmem.gitio.repo import Repo
from squadmem.model import sections, squad, uses
from squadmem.model.errors import Exit, SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, MEMORY_DIR, classify

KINDS = ("content", "trailer", "pending", "edit", "unknown")
CACHE_FILE = "history-cache"
# 2: Squad's history.md and decisions.md date migrated sections; 3: and their entries; 4: dated uses,
# departures
FORMAT = 4
NULL_SHA = "0" * 40
_RECORD = struct.Struct("<16sq20sB")  # content hash, commit time, commit, at a shallow boundary
_TRAILER_PROBE = uses.TRAILER.lower().encode()


@dataclasses.dataclass(frozen=True)
class LastUse:
    when: dt.datetime | None  # aware UTC; None when unknown (reaches a shallow boundary)
    kind: str  # "content" | "trailer" | "pending" | "edit" | "unknown"
    commit: str | None


@dataclasses.dataclass(frozen=True)
class Usage:
    """Everything history says about one section's uses."""

    last: LastUse
    trailer_commits: int  # commits whose Squad-Memory-Used trailer names the id
    pending: dt.datetime | None  # a use not yet carried by a commit


# -- content identity ---------------------------------------------------------------------------
normalize = sections.normalize
content_key = sections.content_key


# -- cutting history blobs, incrementally --------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Cut:
    """A tier file's text cut into sections: where each starts, where its heading ends, its content key."""

    text: str
    starts: tuple[int, ...]
    heads: tuple[int, ...]
    keys: tuple[bytes, ...]


def _scan(text: str, offset: int = 0) -> tuple[list[int], list[int]]:
    """Section starts and heading ends of ``text`` read from a clean state, shifted by ``offset``.

    A part of a file (``offset`` > 0) that starts with U+FEFF is read behind a
    blank line: only a whole file's first character is a byte order mark.
    """
    lead = "\n" if offset and text.startswith("\ufeff") else ""
    found = sections.boundaries(lead + text)
    if not found:
        return [], []
    pos = [0, *itertools.accumulate(map(len, sections.lines(lead + text)))]
    offset -= len(lead)
    return [pos[b.line] + offset for b in found], [pos[b.line + b.heading_lines] + offset for b in found]


def _keys(text: str, starts: Sequence[int], end: int) -> list[bytes]:
    if not starts:
        return []
    bounds = [*starts[1:], end]
    return [content_key(text[a:b]) for a, b in zip(starts, bounds, strict=True)]


def _full(text: str) -> Cut:
    starts, heads = _scan(text)
    return Cut(text, tuple(starts), tuple(heads), tuple(_keys(text, starts, len(text))))


def cut(text: str, base: Cut | None = None) -> Cut:
    """``text`` cut into sections, reusing what is unchanged from ``base`` (an earlier version).

    After a top-level heading nothing is open, so from a section's start a
    document cuts exactly as the whole does. The sections in front whose
    headings both versions share are kept; from there, a section whose text
    and next heading are the old ones is stepped over with its old key, and
    only a changed stretch is scanned: from its start to the next old heading
    found after it, kept only if the scan finds a boundary exactly there (else
    the rest is scanned). The result is always the cut a full scan gives;
    ``tests/history_test.py`` holds that as a property.
    """
    if base is None or not base.starts:
        return _full(text)
    old = _Old(base)
    k = bisect.bisect_right(base.heads, _common_prefix(base.text, text)) - 1
    while k >= 0 and not _whole_line(text, base.heads[k], base.text[base.starts[k] : base.heads[k]]):
        k -= 1  # its heading was the old text's last line, and the new text goes on
    keep = max(k, 0)
    starts, heads, keys = list(base.starts[:keep]), list(base.heads[:keep]), list(base.keys[:keep])
    pos, expect = (base.starts[k], k) if k >= 0 else (0, 0)
    head: int | None = base.heads[k] if k >= 0 else None  # where the heading at pos ends; None: no heading
    while pos < len(text):
        at_boundary = head is not None
        if at_boundary and old.same_tail(text, pos, expect):
            shift = pos - base.starts[expect]
            starts += (s + shift for s in base.starts[expect:])
            heads += (h + shift for h in base.heads[expect:])
            keys += base.keys[expect:]
            break
        hop = old.hop(text, pos, expect) if at_boundary else None
        if hop is not None:
            starts.append(pos)
            heads.append(pos + base.heads[hop] - base.starts[hop])
            keys.append(base.keys[hop])
            pos += old.ends[hop] - base.starts[hop]
            expect = hop + 1
            head = pos + base.heads[expect] - base.starts[expect] if expect < len(base.starts) else None
            continue
        found = old.resync(text, pos, expect, head)
        if found is None:
            more, more_heads = _scan(text[pos:], pos)
            starts += more
            heads += more_heads
            keys += _keys(text, more, len(text))
            break
        more, more_heads, pos, expect = found
        starts += more
        heads += more_heads
        keys += _keys(text, more, pos)
        head = pos + base.heads[expect] - base.starts[expect]
    return Cut(text, tuple(starts), tuple(heads), tuple(keys))


class _Old:
    """An earlier cut, indexed for :func:`cut`."""

    def __init__(self, base: Cut) -> None:
        self.base = base
        self.ends = (*base.starts[1:], len(base.text))
        self._by_first_line: dict[str, list[int]] | None = None

    def body(self, index: int) -> str:
        return self.base.text[self.base.starts[index] : self.ends[index]]

    def heading(self, index: int) -> str:
        return self.base.text[self.base.starts[index] : self.base.heads[index]]

    def same_tail(self, text: str, pos: int, index: int) -> bool:
        """Is ``text`` from ``pos`` the old text from section ``index`` on, to the end?"""
        if index >= len(self.base.starts):
            return False
        start = self.base.starts[index]
        if not self.movable(start, pos):
            return False
        return len(text) - pos == len(self.base.text) - start and text[pos:] == self.base.text[start:]

    def movable(self, start: int, pos: int) -> bool:
        """May the old text at ``start`` be read the same at ``pos``? Not a U+FEFF between top and middle."""
        return self.base.text[start : start + 1] != "\ufeff" or (start == 0) == (pos == 0)

    def hop(self, text: str, pos: int, expect: int) -> int | None:
        """The old section that starts at ``pos`` unchanged and is followed by its old next heading."""
        line = _first_line(text, pos)
        if expect < len(self.base.starts):
            if self._follows(text, pos, expect):
                return expect
            if line == _first_line(self.base.text, self.base.starts[expect]):
                return None  # the expected section, edited
        if self._by_first_line is None:
            self._by_first_line = {}
            for index, start in enumerate(self.base.starts):
                self._by_first_line.setdefault(_first_line(self.base.text, start), []).append(index)
        for index in self._by_first_line.get(line, ()):
            if index != expect and self._follows(text, pos, index):
                return index
        return None

    def _follows(self, text: str, pos: int, index: int) -> bool:
        body = self.body(index)
        if not text.startswith(body, pos) or not self.movable(self.base.starts[index], pos):
            return False
        after = pos + len(body)
        if index + 1 == len(self.base.starts):
            return after == len(text)
        heading = self.heading(index + 1)
        return text.startswith(heading, after) and _whole_line(text, after + len(heading), heading)

    def resync(
        self, text: str, pos: int, expect: int, head: int | None
    ) -> tuple[list[int], list[int], int, int] | None:
        """Scan from ``pos`` to the nearest old heading found after it, if the scan confirms it there.

        Returns the section starts and heading ends before it, its position
        and its old index; None when no old heading can be confirmed. When
        ``pos`` starts a section whose heading ends at ``head`` and the text
        up to that old heading has no line that could make, hide or join a
        heading, no scan is needed: it is one section.
        """
        best: tuple[int, int] | None = None
        for index in range(expect, min(expect + 3, len(self.base.starts))):
            where = _find_line(text, self.heading(index), pos + 1)
            if (
                where >= 0
                and self.movable(self.base.starts[index], where)
                and (best is None or where < best[0])
            ):
                best = (where, index)
        if best is None:
            return None
        where, index = best
        heading = self.heading(index)
        if head is not None and head <= where and _plain(text[head:where], heading):
            return [pos], [head], where, index
        stop = where + len(heading)
        starts, heads = _scan(text[pos:stop], pos)
        if not starts or starts[-1] != where or heads[-1] != stop:
            return None
        return starts[:-1], heads[:-1], where, index


# A line that could be a level-2 heading or a setext underline, or open a fence, an HTML block (a
# comment closed on its own line is fine: the block ends there) or a block quote.
_RISKY = re.compile(r"^[ \t]*(?:##(?:[ \t]|$)|<(?!!--.*-->)|>|`{3}|~{3}|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)


_ATX = re.compile(r"##(?:[ \t\r\n]|$)")


def _plain(body: str, heading: str) -> bool:
    """Can ``body``, after a section's heading, hold no boundary and leave ``heading`` one?

    True only when no line of it could begin a heading, an underline, a fence,
    an HTML block or a quote; the heading after it starts at the margin; and
    a setext heading has a blank line before it (else the paragraph would
    run into it). Anything else is left to the scanner.
    """
    if heading[:1] in (" ", "\t") or "\r" in body or _RISKY.search(body):
        return False
    return bool(_ATX.match(heading)) or not body or body.endswith("\n\n")


def _first_line(text: str, pos: int) -> str:
    end = text.find("\n", pos, pos + 200)
    return text[pos : pos + 200 if end < 0 else end + 1]


def _find_line(text: str, line: str, pos: int) -> int:
    """Where ``line`` (whole lines) next stands in ``text`` at or after ``pos``; -1 if nowhere."""
    while True:
        where = text.find(line, pos)
        if where < 0:
            return where
        if (where == 0 or text[where - 1] in "\r\n") and _whole_line(text, where + len(line), line):
            return where
        pos = where + 1


def _whole_line(text: str, end: int, piece: str) -> bool:
    """Does ``piece``, ending at ``end`` in ``text``, end where a line of ``text`` ends?"""
    if piece.endswith("\n"):
        return True
    if piece.endswith("\r"):
        return text[end : end + 1] != "\n"
    return end == len(text)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    la, lb = len(a), len(b)
    if limit <= 0:
        return 0
    if a[la - limit :] == b[lb - limit :]:
        return limit
    lo, hi = 0, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo


# -- reading history -----------------------------------------------------------------------------
@dataclasses.dataclass
class Commit:
    sha: str
    time: int
    message: str | None  # None when it carries no Squad-Memory-Used trailer (not kept)
    changes: list[tuple[str, str, str]]  # (old blob, new blob, path) of tier files
    parents: tuple[str, ...] = ()
    author: str = ""


LOG_OPTIONS = (
    "--full-history",
    "--sparse",  # every commit, so trailers on commits that touch no memory are seen too
    "--diff-merges=first-parent",
    "--root",
    "--raw",
    "-z",
    "--no-renames",
    "--no-abbrev",
    "--no-relative",
    "--no-show-signature",
)


def squad_source(path: str) -> bool:
    """Squad's own memory files (``squad.source_owner``), whose entries intake copies into tiers.

    Their commits date the entries taken in: a learning written months ago in
    ``history.md`` keeps that age in the tier it lands in.
    """
    return squad.is_source(path)


def log(
    repo: Repo,
    revs: Sequence[str],
    *,
    detail: bool = False,
    progress: Progress | None = None,
    squad_sources: bool = False,
) -> Iterator[Commit]:
    """Every commit of ``revs`` with the tier blobs it introduces, from one ``git log`` process.

    ``detail`` adds parents, author and every message; otherwise only
    messages that carry a ``Squad-Memory-Used`` trailer are kept.
    ``squad_sources`` adds the blobs of Squad's own history and decision files.
    """
    fields = "%H%x00%P%x00%ct%x00%an%x00%B" if detail else "%H%x00%P%x00%ct%x00%B"
    order = ["--topo-order"] if detail else []
    paths = (
        [MEMORY_DIR, squad.AGENTS_DIR, *squad.DECISION_FILES, squad.INBOX_DIR]
        if squad_sources
        else [MEMORY_DIR]
    )
    args = ["log", *LOG_OPTIONS, *order, f"--format=%x01{fields}", *revs, "--", *paths]
    tokens = _tokens(repo.stream(*args))
    count = 0
    token = next(tokens, None)
    while token is not None:
        if not token.startswith(b"\x01"):
            raise ValueError(f"git log: unexpected output {token[:40]!r}")
        if detail:
            sha, parents, when, author = token[1:].decode(), next(tokens), next(tokens), next(tokens)
            body = next(tokens)
            commit = Commit(
                sha,
                int(when),
                body.decode("utf-8", "replace"),
                [],
                tuple(parents.decode().split()),
                author.decode("utf-8", "replace"),
            )
        else:
            sha, parents, when = token[1:].decode(), next(tokens), next(tokens)
            body = next(tokens)
            message = body.decode("utf-8", "replace") if _TRAILER_PROBE in body.lower() else None
            commit = Commit(sha, int(when), message, [], tuple(parents.decode().split()))
        token = next(tokens, None)
        while token is not None and token.lstrip(b"\n").startswith(b":"):
            meta = token.lstrip(b"\n").split()
            path = next(tokens).decode("utf-8", "surrogateescape")
            if classify(path) is not None or (squad_sources and squad_source(path)):
                commit.changes.append((meta[2].decode(), meta[3].decode(), path))
            token = next(tokens, None)
        count += 1
        if progress is not None and count % 256 == 0:
            progress.update(count)
        yield commit


def _tokens(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """NUL-terminated tokens from a stream of byte chunks."""
    rest = b""
    for chunk in chunks:
        parts = (rest + chunk).split(b"\0")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


def blobs(repo: Repo, shas: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """(sha, bytes) for each of ``shas``, in order, from one ``git cat-file --batch`` process.

    The names go in through a temporary file, so git never waits on us to
    read before it can read more, and we never wait on it to write.
    """
    if not shas:
        return
    with tempfile.TemporaryFile() as names:
        names.write("\n".join(shas).encode() + b"\n")
        names.seek(0)
        args = ("cat-file", "--batch")
        proc = repo.popen(args, stdin=names)
        assert proc.stdout is not None
        _widen_pipe(proc.stdout)
        try:
            for sha in shas:
                header = proc.stdout.readline().split()
                if len(header) != 3:
                    raise SquadmemError(f"git cat-file: no object {sha}", code=Exit.INTERNAL)
                size = int(header[2])
                data = proc.stdout.read(size + 1)
                yield sha, data[:size]
        finally:
            proc.stdout.close()
            repo.finish(proc, args)


def _widen_pipe(stream: IO[bytes]) -> None:
    """A 1 MB pipe lets cat-file run ahead while Python cuts the last blob (Linux only)."""
    with contextlib.suppress(ImportError, OSError, AttributeError, ValueError):
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)


def shallow_boundary(repo: Repo) -> frozenset[str]:
    """The commits a shallow clone holds without their parents."""
    try:
        text = (repo.git_dir / "shallow").read_text("ascii")
    except OSError:
        return frozenset()
    return frozenset(text.split())


# -- facts: what history says, cached ------------------------------------------------------------
First = tuple[int, bool, bytes]  # (commit time, at a shallow boundary, commit)


@dataclasses.dataclass
class Facts:
    tip: str | None = None
    first: dict[bytes, First] = dataclasses.field(default_factory=dict)  # content key -> earliest holder
    used: dict[str, tuple[int, str, int]] = dataclasses.field(default_factory=dict)  # id -> (time, commit, n)
    gone: dict[str, Departure] = dataclasses.field(
        default_factory=dict
    )  # heading key -> its latest departure


Departure = tuple[int, str, str, str, str, str, int, int]
"""A section heading that left a tier file: (time, the commit it left in, the commit before it
(likely the last holder), a commit sure to hold it, the blob that held it, the path, and where
the section starts and ends in that blob's text)."""


def heading_key(path: str, heading: str) -> str:
    """Who owns a heading, and its text: what ``recall --history`` asks history about."""
    tf = classify(path)
    owner = tf.owner if tf is not None else path
    text = " ".join(heading.lstrip("\ufeff").strip().lstrip("#").split()).casefold()
    return hashlib.blake2b(f"{owner}\0{text}".encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _earlier(a: First | None, b: First) -> bool:
    """Is ``b`` earlier than ``a``? Ties go to a boundary commit, then the smaller sha: one answer."""
    return a is None or (b[0], not b[1], b[2]) < (a[0], not a[1], a[2])


@dataclasses.dataclass
class _Read:
    """One pass of the log, not yet applied to the facts."""

    count: int = 0
    parents: set[str] = dataclasses.field(default_factory=set)
    trailers: list[Commit] = dataclasses.field(default_factory=list)
    introduced: dict[str, First] = dataclasses.field(default_factory=dict)  # blob -> earliest introducer
    paths: dict[str, str] = dataclasses.field(default_factory=dict)  # blob -> a path of it, in log order
    first_parent: dict[str, str] = dataclasses.field(default_factory=dict)  # commit -> its first parent
    deleted: list[tuple[int, str, str, str]] = dataclasses.field(default_factory=list)  # time, sha, old, path
    base: str | None = None  # the cached tip this read continues from


def _read_log(repo: Repo, revs: Sequence[str], progress: Progress | None = None) -> _Read:
    boundary = shallow_boundary(repo)
    read = _Read()
    for commit in log(repo, revs, progress=progress, squad_sources=True):
        read.count += 1
        read.parents.update(commit.parents)
        if commit.message is not None:
            read.trailers.append(commit)
        here: First = (commit.time, commit.sha in boundary, bytes.fromhex(commit.sha))
        if commit.changes and commit.parents:
            read.first_parent[commit.sha] = commit.parents[0]
        for old, new, path in commit.changes:
            if new == NULL_SHA:
                if old != NULL_SHA and classify(path) is not None:
                    read.deleted.append((commit.time, commit.sha, old, path))
                continue
            if _earlier(read.introduced.get(new), here):
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
    found = {}
    for item in repo.run_bytes("ls-tree", "-z", "--full-tree", base, "--", *changed).split(b"\0"):
        meta, _, path = item.partition(b"\t")
        if meta.split()[1:2] == [b"blob"]:
            found[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
    return found


def scan(repo: Repo, revs: Sequence[str], facts: Facts, *, progress: Progress | None = None) -> int:
    """Add what the commits of ``revs`` say to ``facts``; return how many commits were read."""
    read = _read_log(repo, revs, progress)
    _apply(repo, read, facts)
    return read.count


def _record_blobs(repo: Repo, read: _Read, facts: Facts, bases: dict[str, str]) -> None:
    """Cut each blob, oldest first, against the previous version of its path; record its contents.

    A section a blob shares with the previous version of its path already
    holds an earliest time no later than that version's; if this blob's
    commit is not earlier (the usual case), only its new sections are looked
    at. A heading the previous version had and this one has not left the
    file here: the latest such departure is kept (``recall --history``).
    ``bases`` (path -> blob) are the versions before this read began.
    """
    paths, introduced = read.paths, read.introduced
    last: dict[str, tuple[Cut, First, str]] = {}
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
                last[path] = (done, base_holder, sha)
            cuts_of_dropped[sha] = done
            continue
        holder = introduced[sha]
        before = last.get(path)
        done = cut(raw.decode("utf-8", "replace"), before[0] if before else None)
        last[path] = (done, holder, sha)
        if sha in dropped:
            cuts_of_dropped[sha] = done
        keys: Iterable[bytes] = done.keys
        if before is not None and not _earlier(before[1], holder):
            keys = set(done.keys).difference(before[0].keys)
        if squad.is_source(path):
            keys = {*keys, *(e.key for e in squad.entries(path, done.text))}
        for key in keys:
            if _earlier(first.get(key), holder):
                first[key] = holder
        if before is not None:
            _departures(facts, read, path, before, done, holder)
    for time, commit, old, path in read.deleted:
        gone = cuts_of_dropped.get(old)
        holder_of = read.introduced.get(old)
        if gone is not None:
            parent = read.first_parent.get(commit, "")
            sure = holder_of[2].hex() if holder_of else (read.base or parent)
            _depart(facts, gone, range(len(gone.keys)), path, old, time, commit, parent, sure)


def _departures(
    facts: Facts, read: _Read, path: str, before: tuple[Cut, First, str], done: Cut, holder: First
) -> None:
    old_cut = before[0]
    kept = set(done.keys)
    left = [i for i, key in enumerate(old_cut.keys) if key not in kept]
    if not left:
        return
    commit = holder[2].hex()
    now_there = {_heading(done, i) for i in range(len(done.keys))}
    left = [i for i in left if _heading(old_cut, i) not in now_there]
    if left:
        parent = read.first_parent.get(commit, "")
        _depart(facts, old_cut, left, path, before[2], holder[0], commit, parent, before[1][2].hex())


def _heading(done: Cut, index: int) -> str:
    return " ".join(done.text[done.starts[index] : done.heads[index]].split())


def _depart(
    facts: Facts,
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
        key = heading_key(path, old.text[old.starts[index] : old.heads[index]].splitlines()[0])
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
        old = facts.used.get(ident)
        if old is None:
            facts.used[ident] = (when, commit.sha, 1)
        else:
            time, sha = max((old[0], old[1]), (when, commit.sha))
            facts.used[ident] = (time, sha, old[2] + 1)


def cache_key(repo: Repo) -> str:
    """What a cache must have been made under: format, scanner source, shallow boundary."""
    digest = hashlib.blake2b(digest_size=12)
    with contextlib.suppress(OSError):
        digest.update(b"".join(source.read_bytes() for source in sections.SOURCES))
    digest.update(b"\0" + "\n".join(sorted(shallow_boundary(repo))).encode())
    return f"{FORMAT}:{digest.hexdigest()}"


def load_cache(path: Path, key: str) -> tuple[Facts | None, str]:
    """The cached facts, or None and why not."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, "no cache yet"
    except OSError as exc:
        return None, f"cache unreadable ({exc.strerror})"
    try:
        head, payload = raw.split(b"\n", 1)
        meta = json.loads(head)
        if meta.get("format") != FORMAT or meta.get("key") != key:
            return None, "cache from another squadmem version or clone depth"
        if hashlib.blake2b(payload, digest_size=16).hexdigest() != meta["digest"]:
            return None, "cache corrupt or truncated"
        size = meta["contents"] * _RECORD.size
        first = {k: (t, bool(b), c) for k, t, c, b in _RECORD.iter_unpack(payload[:size])}
        middle = size + meta["trailers"]
        used = {
            str(k): (int(v[0]), str(v[1]), int(v[2])) for k, v in json.loads(payload[size:middle]).items()
        }
        gone = {str(k): _departure(v) for k, v in json.loads(payload[middle:]).items()}
        tip = meta["tip"]
        if not isinstance(tip, str):
            raise TypeError("tip")
        return Facts(tip, first, used, gone), "cache read"
    except (ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
        return None, f"cache unreadable ({type(exc).__name__})"


def _departure(value: list[Any]) -> Departure:
    time, commit, parent, sure, blob, path, start, end = value
    return (int(time), str(commit), str(parent), str(sure), str(blob), str(path), int(start), int(end))


def save_cache(path: Path, key: str, facts: Facts) -> None:
    records = b"".join(_RECORD.pack(k, t, c, b) for k, (t, b, c) in facts.first.items())
    trailers = json.dumps({k: list(v) for k, v in facts.used.items()}, separators=(",", ":")).encode()
    gone = json.dumps({k: list(v) for k, v in facts.gone.items()}, separators=(",", ":")).encode()
    payload = records + trailers + gone
    meta = {
        "format": FORMAT,
        "key": key,
        "tip": facts.tip,
        "contents": len(facts.first),
        "trailers": len(trailers),
        "digest": hashlib.blake2b(payload, digest_size=16).hexdigest(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".history-cache-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(json.dumps(meta).encode() + b"\n" + payload)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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
    head = repo.head()
    say = _say if verbose else _quiet
    if head is None:
        return Facts()
    key = cache_key(repo)
    path = repo.state_dir / CACHE_FILE
    facts, why = load_cache(path, key) if cache else (None, "cache not used")
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
    say(f"history cache: read {read.count} commit{'s' if read.count != 1 else ''}")
    facts.tip = head
    if cache:
        try:
            save_cache(path, key, facts)
        except OSError as exc:
            say(f"history cache: not written ({exc.strerror})")
    return facts


def _say(message: str) -> None:
    print(f"squadmem: {message}", file=sys.stderr)


def _quiet(message: str) -> None:
    pass


# -- last uses -------------------------------------------------------------------------------------
_PRIORITY = {"edit": 4, "pending": 3, "trailer": 2, "content": 1}


def utc(seconds: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def usage(
    repo: Repo,
    memory: catalog.Memory,
    *,
    now: dt.datetime | None = None,
    verbose: bool = False,
    cache: bool = True,
) -> dict[str, Usage]:
    """Every entry's uses, by id. ``now`` is the time of uncommitted edits (default: the clock)."""
    moment = now or dt.datetime.now(dt.UTC)
    facts = read_facts(repo, cache=cache, verbose=verbose)
    pending = uses.pending(repo.state_dir)
    committed = {i: utc(facts.used[i][0]) for i in pending if i in facts.used}
    for ident in uses.settle(repo.state_dir, committed) if committed else ():
        pending.pop(ident, None)
    result: dict[str, Usage] = {}
    for entry in memory.entries:
        trail = facts.used.get(entry.id)
        result[entry.id] = Usage(
            _last_use(facts.first.get(content_key(entry.text)), trail, pending.get(entry.id), moment),
            trail[2] if trail else 0,
            pending.get(entry.id),
        )
    return result


def _last_use(
    first: First | None, trail: tuple[int, str, int] | None, pending: dt.datetime | None, now: dt.datetime
) -> LastUse:
    candidates = []
    bound: First | None = None
    if first is not None and trail is not None and trail[1] == first[2].hex() and trail[0] < first[0]:
        first = (trail[0], first[1], first[2])  # brought in with a dated use: an import keeps its age
    if first is None:
        candidates.append(LastUse(now, "edit", None))
    elif first[1]:
        bound = first
    else:
        candidates.append(LastUse(utc(first[0]), "content", first[2].hex()))
    if trail is not None:
        candidates.append(LastUse(utc(trail[0]), "trailer", trail[1]))
    if pending is not None:
        candidates.append(LastUse(pending, "pending", None))
    best = max(candidates, key=lambda c: (c.when, _PRIORITY[c.kind]), default=None)
    if bound is not None and (best is None or best.when is None or best.when < utc(bound[0])):
        return LastUse(None, "unknown", bound[2].hex())
    assert best is not None
    return best


def last_uses(
    repo: Repo, memory: catalog.Memory, *, verbose: bool = False, now: dt.datetime | None = None
) -> dict[str, LastUse]:
    """Each entry's last use, by id, for every entry of ``memory`` (normally ``catalog.load(...)``)."""
    return {k: v.last for k, v in usage(repo, memory, now=now, verbose=verbose).items()}
