"""The memory's history as git records it: each commit with the tier blobs it introduces.

One ``git log --raw -z`` process lists every commit of a range with the
memory files it changes relative to its first parent; the blobs then come
through one ``cat-file --batch`` process (:meth:`Repo.blobs`). Standard
library only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence

from squadmem.gitio.formats import Change, log_format, parse_log, parse_ls_tree, parse_trailers, raw_blobs
from squadmem.gitio.repo import Repo
from squadmem.model import clock, squad, uses
from squadmem.model.errors import Exit, SquadmemError
from squadmem.model.layout import classify

NULL_SHA = "0" * 40  # the side of a change that has no blob (a file added or deleted), whatever the width
_TRAILER_PROBE = uses.TRAILER.lower().encode()


@dataclasses.dataclass
class Commit:
    sha: str
    time: int
    message: str | None  # None when it carries no Squad-Memory-Used trailer (not kept)
    changes: list[tuple[str, str, str]]  # (old blob, new blob, path) of tier files; NULL_SHA: none
    parents: tuple[str, ...] = ()
    author: str = ""
    dated: bool = True  # False: git prints no committer time it can read, or one after 9999


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


def memory_log(
    repo: Repo,
    revs: Sequence[str],
    *,
    detail: bool = False,
    progress: Callable[[int], None] | None = None,
    squad_sources: bool = False,
) -> Iterator[Commit]:
    """Every commit of ``revs`` with the tier blobs it introduces, from one ``git log`` process.

    ``detail`` adds parents, author and every message, in topological order;
    otherwise only messages that carry a ``Squad-Memory-Used`` trailer are
    kept. ``squad_sources`` adds the blobs of Squad's own history and decision
    files (:func:`squadmem.model.squad.is_source`), whose commits date the
    entries intake takes in. ``progress`` is told the count every 256 commits.
    """
    fields = ["%H", "%P", "%ct", *(["%an"] if detail else []), "%B"]
    order = ["--topo-order"] if detail else []
    places = repo.layout.places
    memory = list(places.pathspecs)
    paths = [*memory, squad.AGENTS_DIR, *squad.DECISION_FILES, squad.INBOX_DIR] if squad_sources else memory
    args = ["log", *LOG_OPTIONS, *order, log_format(*fields), *revs, "--", *paths]
    kept: dict[str, bool] = {}  # path -> is it read: asked once per path, not once per change
    for count, entry in enumerate(parse_log(repo.stream(*args), len(fields)), 1):
        sha, parents, when, *rest = entry.fields
        body = rest[-1]
        if detail:
            message: str | None = body.decode("utf-8", "replace")
        else:
            message = body.decode("utf-8", "replace") if _TRAILER_PROBE in body.lower() else None
        changes = []
        for change in entry.changes:
            keep = kept.get(change.path)
            if keep is None:
                keep = kept[change.path] = classify(change.path, places) is not None or (
                    squad_sources and squad.is_source(change.path)
                )
            if keep:
                changes.append((change.old or NULL_SHA, change.new or NULL_SHA, change.path))
        commit = Commit(
            sha.decode(),
            clock.git_epoch(when),
            message,
            changes,
            tuple(parents.decode().split()),
            rest[0].decode("utf-8", "replace") if detail else "",
            not clock.odd_epoch(when),
        )
        if progress is not None and count % 256 == 0:
            progress(count)
        yield commit


def blobs(repo: Repo, shas: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """(sha, bytes) for each of ``shas``, in order, from one ``git cat-file --batch`` process."""
    for sha, data in repo.blobs(shas):
        if data is None:
            raise SquadmemError(f"git cat-file: no object {sha}", code=Exit.INTERNAL)
        yield sha, data


def commit_time(repo: Repo, sha: str) -> int:
    """A commit's committer time (epoch seconds; 0 when git gives none)."""
    return clock.git_epoch(repo.run("show", "-s", "--format=%ct", sha))


# -- a range as ``verify`` reads it: every commit, its trailers, its raw changes with renames ----------
_RANGE_FIELDS = ("%H", "%T", "%ct", "%P", "%s", "%(trailers:only,unfold)", "%b")
_RANGE_FORMAT = log_format(*_RANGE_FIELDS)
_PATH_LOG = ("log", "--full-history", "-c", "--raw", "-z", "--no-abbrev")


@dataclasses.dataclass(frozen=True)
class Logged:
    """One commit of a range, as ``git log -z --raw -c -M`` gives it."""

    sha: str
    tree: str
    time: int
    parents: tuple[str, ...]
    subject: str
    trailers: dict[str, list[str]]  # lowercase key -> values
    body: str
    changes: tuple[Change, ...]  # a merge's change lists one old blob per parent
    dated: bool = True  # False: git prints no committer time it can read (``time`` is then 0)


def range_log(repo: Repo, revs: Sequence[str]) -> Iterator[Logged]:
    """Every commit of ``revs`` with its trailers and raw changes, from one ``git log`` process."""
    args = ["log", "-z", "--raw", "-c", "-M", "--no-abbrev", "--no-color", "--no-ext-diff", _RANGE_FORMAT]
    for entry in parse_log(repo.stream(*args, *revs, "--"), len(_RANGE_FIELDS)):
        sha, tree, stamp, parents, subject, trailers, body = (
            f.decode("utf-8", "surrogateescape") for f in entry.fields
        )
        found = parse_trailers(trailers)
        when, dated = clock.git_epoch(stamp), stamp.strip().isdigit()
        yield Logged(sha, tree, when, tuple(parents.split()), subject, found, body, entry.changes, dated)


def range_dates(repo: Repo, revs: Sequence[str]) -> Iterator[tuple[str, int, int, list[str]]]:
    """(sha, committer time, author time, parents) of every commit of ``revs``, parents first."""
    for sha, committed, authored, parents in range_stamps(repo, revs):
        yield sha, clock.git_epoch(committed), clock.git_epoch(authored), parents


def range_stamps(repo: Repo, revs: Sequence[str]) -> Iterator[tuple[str, str, str, list[str]]]:
    """(sha, committer time, author time, parents) of every commit of ``revs`` as git prints them
    (a time git cannot read is empty), parents first."""
    out = repo.run("log", "--topo-order", "--reverse", "--format=%H%x09%ct%x09%at%x09%P", *revs, "--")
    for line in out.splitlines():
        sha, committed, authored, parents = line.split("\t")
        yield sha, committed, authored, parents.split()


def path_versions(repo: Repo, revs: Sequence[str], path: str) -> list[str]:
    """Every blob ``path`` had in the history of ``revs`` (merges' sides too), each once."""
    return raw_blobs(repo.run_bytes(*_PATH_LOG, "--format=", *revs, "--", path))


def remote_changes(repo: Repo, sha: str, path: str) -> list[tuple[str, int, int, tuple[Change, ...]]]:
    """(sha, committer time, author time, changes of ``path``) of each commit that remote-tracking
    branches hold and ``sha`` does not."""
    fields = log_format("%H", "%ct", "%at")
    out = repo.run_bytes(*_PATH_LOG, fields, "--remotes", f"^{sha}", "--", path)
    if not out.strip():
        return []
    found = []
    for entry in parse_log([out], 3):
        name, committed, authored = (f.decode("ascii") for f in entry.fields)
        found.append((name, clock.git_epoch(committed), clock.git_epoch(authored), entry.changes))
    return found


def remote_descendants(repo: Repo, sha: str) -> set[str]:
    """The commits of remote-tracking branches that descend from ``sha``."""
    return set(repo.run("rev-list", "--ancestry-path", "--remotes", f"^{sha}").split())


def first_parents(repo: Repo, sha: str, count: int) -> list[str]:
    """``sha`` and its first-parent ancestors, at most ``count`` commits."""
    return repo.run("rev-list", "--first-parent", f"--max-count={count}", sha).split()


def octopus_base(repo: Repo, parents: Sequence[str]) -> str:
    """The merge base of all ``parents`` ("" when git names none); SquadmemError when unrelated."""
    return repo.run("merge-base", "--octopus", *parents).strip()


def upstream(repo: Repo) -> str:
    """The full name of the current branch's upstream, "" when it has none."""
    try:
        return repo.run("rev-parse", "--verify", "-q", "--symbolic-full-name", "@{upstream}").strip()
    except SquadmemError:
        return ""


def rev_words(repo: Repo, revs: Sequence[str]) -> list[str]:
    """``git rev-parse --revs-only`` of a range: object names, ``^`` before excluded ones, ``--not``."""
    return repo.run("rev-parse", "--revs-only", *revs, "--").split()


def commit_of(repo: Repo, rev: str) -> str:
    """The commit ``rev`` names (SquadmemError when there is none)."""
    return repo.run("rev-parse", "--verify", "-q", f"{rev}^{{commit}}").strip()


def merge_base(repo: Repo, one: str, other: str) -> str:
    """The best common ancestor of two commits ("" when git names none); SquadmemError when unrelated."""
    return repo.run("merge-base", one, other).strip()


def blobs_at(repo: Repo, commit: str, paths: Sequence[str]) -> dict[str, str]:
    """Path -> blob of each of ``paths`` that ``commit``'s tree holds (one ``ls-tree``)."""
    return parse_ls_tree(repo.run_bytes("ls-tree", "-z", "--full-tree", commit, "--", *paths))
