"""The memory's history as git records it: each commit with the tier blobs it introduces.

One ``git log --raw -z`` process lists every commit of a range with the
memory files it changes relative to its first parent; the blobs then come
through one ``cat-file --batch`` process (:meth:`Repo.blobs`). Standard
library only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence

from squadmem.gitio.formats import log_format, parse_log
from squadmem.gitio.repo import Repo
from squadmem.model import places as where
from squadmem.model import squad, uses
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
    memory = list(where.current().pathspecs)
    paths = [*memory, squad.AGENTS_DIR, *squad.DECISION_FILES, squad.INBOX_DIR] if squad_sources else memory
    args = ["log", *LOG_OPTIONS, *order, log_format(*fields), *revs, "--", *paths]
    for count, entry in enumerate(parse_log(repo.stream(*args), len(fields)), 1):
        sha, parents, when, *rest = entry.fields
        body = rest[-1]
        if detail:
            message: str | None = body.decode("utf-8", "replace")
        else:
            message = body.decode("utf-8", "replace") if _TRAILER_PROBE in body.lower() else None
        commit = Commit(
            sha.decode(),
            int(when),
            message,
            [
                (change.old or NULL_SHA, change.new or NULL_SHA, change.path)
                for change in entry.changes
                if classify(change.path) is not None or (squad_sources and squad.is_source(change.path))
            ],
            tuple(parents.decode().split()),
            rest[0].decode("utf-8", "replace") if detail else "",
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
