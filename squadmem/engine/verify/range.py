"""The range ``verify`` and ``review`` walk: which commits it holds, each as the log gives it, and
the blobs and trees of its commits, each read once."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re
from collections.abc import Iterator, Sequence

from squadmem.gitio import commits as log
from squadmem.gitio import formats, questions
from squadmem.gitio.repo import Repo
from squadmem.model import clock, constants
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import TierFile, classify

# The trailers' keys as verify reads them (lowercase).
MOVE = constants.MOVE_TRAILER.lower()
INDEX = constants.INDEX_TRAILER.lower()
INTAKE = constants.INTAKE_TRAILER.lower()
RESTORE = constants.RESTORE_TRAILER.lower()
REASON = constants.REASON_TRAILER.lower()
_OWN = "|".join(re.escape(key) for key in (MOVE, INDEX, INTAKE))  # the trailers of squadmem's own commits
_SQUASHED = re.compile(rf"^[ \t>*-]*(?:{_OWN}):", re.IGNORECASE | re.MULTILINE)

FileChange = formats.Change  # one path a commit changed; a merge's change lists one old blob per parent
REGULAR = ("100644", "100755")  # git's modes of a regular file


@dataclasses.dataclass(frozen=True)
class Commit:
    sha: str
    tree: str
    parents: tuple[str, ...]
    when: dt.datetime
    subject: str
    trailers: dict[str, list[str]]
    changes: tuple[FileChange, ...]
    squadmem_marks: int = 0  # Squad-Memory-Move/-Index/-Intake lines anywhere in the message
    dated: bool = True  # False: its committer date cannot be read (see gitio.commits.Logged)

    @property
    def squash(self) -> bool:
        """Several of squadmem's commits squashed into one: their trailers in the body, not its own."""
        own = sum(len(self.trailers.get(key, [])) for key in (MOVE, INDEX, INTAKE))
        return self.squadmem_marks > 1 and self.squadmem_marks > own

    @property
    def short(self) -> str:
        return self.sha[:7]


def default_range(repo: Repo) -> list[str]:
    """The commits not on the upstream branch (``@{upstream}..HEAD``), else all of HEAD's history."""
    if questions.head(repo.git) is None:
        raise SquadmemError(
            "HEAD has no commits yet: nothing to verify", hint="commit first, or name a range"
        )
    upstream = log.upstream(repo)
    return [f"{upstream}..HEAD"] if upstream else ["HEAD"]


def resolve(repo: Repo, revs: Sequence[str]) -> tuple[list[str], list[str]]:
    """The range's tips (commits it includes the history of) and its bases (commits it excludes)."""
    for rev in revs:
        if (
            rev.startswith("-")
            and rev != "--not"
            and not rev.startswith(("--remotes", "--branches", "--all"))
        ):
            raise SquadmemError(
                f"range {rev!r}: not a revision", hint="give a range such as origin/main..HEAD"
            )
    try:
        words = log.rev_words(repo, revs)
    except SquadmemError:
        shown = " ".join(revs)
        raise SquadmemError(
            f"range {shown!r}: git does not know it",
            hint="give a range such as origin/main..HEAD, or a branch",
        ) from None
    tips, bases, negate = [], [], False
    for word in words:
        if word == "--not":
            negate = not negate
        elif word.startswith("^") != negate:
            bases.append(word.lstrip("^"))
        else:
            tips.append(word)
    return tips, bases


def commits(repo: Repo, revs: Sequence[str]) -> Iterator[Commit]:
    """Every commit of the range with its trailers and raw changes, from one ``git log`` process."""
    for found in log.range_log(repo, revs):
        when = clock.from_epoch(found.time)
        marks = len(_SQUASHED.findall(found.body))
        yield Commit(
            found.sha,
            found.tree,
            found.parents,
            when,
            found.subject,
            found.trailers,
            found.changes,
            marks,
            found.dated,
        )


class Store:
    """Blobs and trees through the gateway's one cat-file process, each read once."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.read = functools.lru_cache(maxsize=4096)(self._read)
        self.places_of = functools.lru_cache(maxsize=1024)(self._places_of)

    def _read(self, sha: str) -> bytes:
        return self.repo.blob(sha)

    def maybe(self, sha: str | None) -> bytes | None:
        return None if sha is None else self.read(sha)

    def tree_of(self, commit: str) -> str:
        first = self.read(commit).split(b"\n", 1)[0]
        if not first.startswith(b"tree "):
            raise SquadmemError(f"{commit[:12]} is not a commit", hint="name a commit")
        return first.split(b" ")[1].decode("ascii")

    def entries(self, tree: str) -> dict[str, tuple[str, str]]:
        """name -> (mode, sha) of a tree object."""
        return {
            e.name.decode("utf-8", "surrogateescape"): (e.mode.decode("ascii"), e.sha)
            for e in formats.parse_tree(self.read(tree), len(tree) // 2)
        }

    def walk(self, tree: str, rel: str) -> tuple[str, str] | None:
        """(mode, sha) of the entry at ``rel`` in a tree ("" is the tree itself), None if absent."""
        found: tuple[str, str] | None = ("40000", tree)
        for part in rel.split("/") if rel else ():
            found = self.entries(found[1]).get(part) if found and found[0] == "40000" else None
        return found

    def folder(self, tree: str, rel: str) -> str | None:
        """The tree object at ``rel`` in a tree, None if there is no folder there."""
        found = self.walk(tree, rel)
        return found[1] if found and found[0] == "40000" else None

    def _places_of(self, tree: str) -> where.Places:
        """The layout a tree commits: a workspace when it holds ``memory/tiers.toml`` (a regular file)
        and nothing under ``.squad/memory/``, else Squad's (:func:`squadmem.model.places.decide`)."""
        entry = self.walk(tree, where.WORKSPACE_SETTINGS)
        settings = self.read(entry[1]) if entry and entry[0] in REGULAR else None
        return where.decide(settings, self.folder(tree, where.SQUAD_DIR) is not None)

    def tier_file(self, tree: str, rel: str) -> TierFile | None:
        """The tier file ``rel`` is in the tree's layout, or None."""
        return classify(rel, self.places_of(tree))

    def tier_files(self, tree: str) -> dict[str, str]:
        """Every tier file of a tree, in its layout: repository path -> blob sha."""
        found: dict[str, str] = {}
        places = self.places_of(tree)
        for folder_rel in places.tier_folders:
            node = self.folder(tree, folder_rel)
            for name, (file_mode, blob) in self.entries(node).items() if node else ():
                rel = f"{folder_rel}/{name}" if folder_rel else name
                if file_mode.startswith("100") and classify(rel, places):
                    found[rel] = blob
        return found

    def texts(self, tree: str, owner: str | None = None) -> dict[str, str]:
        """Tier files of a tree as text, only those of ``owner`` when given (ids are per owner)."""
        found = {}
        for rel, sha in self.tier_files(tree).items():
            tf = self.tier_file(tree, rel)
            if tf is not None and (owner is None or tf.owner == owner):
                found[rel] = self.read(sha).decode("utf-8", "surrogateescape")
        return found
