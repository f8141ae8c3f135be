"""git's named questions: every git command line squadmem asks, and the reading of its output.

Each function is one git command line and the reading of its output, known
here once, as in pre-commit's ``git.py``: ``commit``, ``merge_bases``,
``comment_char``, ``staged_changes``, ``status``, ``update_ref``... Each is
asked *at* a place: a :class:`Git` (a command's open repository hands its
``repo.git``: git runs in its work tree, a failure reads as the command's)
or a bare environment (the hooks and the merge driver, which git starts at
the top of the work tree: git runs there too). A question whose callers all
take a failure as "no" (a name that is no commit, a merge base that cannot
be found) answers None, False or empty; the others raise
:class:`~squadmem.gitio.runner.GitError`.

Standard library only, and no heavier than the runner and the formats the
hooks imported before: they start on every commit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from squadmem.gitio import formats, runner
from squadmem.gitio.formats import LogEntry, Staged
from squadmem.model.errors import Exit, SquadmemError

TYPE_CHECKING = False  # typing and pathlib are not imported at run time: the hooks import this module
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeAlias

Env = runner.Env


class Git:
    """Where git runs and how its failure reads: an environment, the folder git starts in (None: the
    current one), and the hint and exit code of a failure."""

    __slots__ = ("code", "cwd", "env", "hint")

    def __init__(
        self,
        env: Env,
        cwd: Path | str | None = None,
        hint: str = "run the hook inside the repository's work tree",
        code: Exit = Exit.INTERNAL,
    ) -> None:
        self.env, self.cwd, self.hint, self.code = env, cwd, hint, code

    def out(self, args: Sequence[str], input: bytes | None = None, env: Env | None = None) -> bytes:
        """git's stdout; a non-zero exit raises :class:`~squadmem.gitio.runner.GitError`."""
        full = self.env if env is None else {**self.env, **env}
        return runner.git(args, full, input, cwd=self.cwd, hint=self.hint, code=self.code)

    def status(self, args: Sequence[str]) -> tuple[int, bytes, str]:
        """git's exit status, stdout and stderr, whatever the status."""
        return runner.run(args, self.env, cwd=self.cwd)

    def stream(self, args: Sequence[str]) -> Iterator[bytes]:
        """Chunks of git's stdout as they come, from one process (written when its buffer fills)."""
        return runner.stream(args, {**self.env, "GIT_FLUSH": "0"}, cwd=self.cwd, code=self.code)


At: TypeAlias = "Git | Env"  # where a question is asked: a command's repository, or a hook's environment


def _git(at: At) -> Git:
    return at if isinstance(at, Git) else Git(at)


def _text(args: Sequence[str], at: At, input: str | None = None) -> str:
    data = None if input is None else input.encode("utf-8", "surrogateescape")
    return _git(at).out(args, data).decode("utf-8", "surrogateescape")


def _ok(args: Sequence[str], at: At) -> str:
    """git's stdout as text, '' when it exits non-zero."""
    status, out, _ = _git(at).status(args)
    return out.decode("utf-8", "surrogateescape") if status == 0 else ""


# -- where ---------------------------------------------------------------------------------------
def toplevel(at: At) -> str:
    """The top of the work tree (``rev-parse --show-toplevel``); '' in a bare repository."""
    return _text(["rev-parse", "--show-toplevel"], at).strip()


def absolute_git_dir(at: At) -> str:
    """The work tree's own git directory (``rev-parse --absolute-git-dir``)."""
    return _text(["rev-parse", "--absolute-git-dir"], at).strip()


def common_dir(at: At) -> str:
    """The common git directory, absolute (a linked worktree shares its repository's)."""
    return _text(["rev-parse", "--path-format=absolute", "--git-common-dir"], at).strip()


def git_path(at: At, name: str) -> str:
    """Where git keeps ``name`` (``rev-parse --git-path``: ``rebase-merge/done``...); '' on failure."""
    return _ok(["rev-parse", "--git-path", name], at).strip()


def comment_char(at: At) -> str:
    """git's comment prefix in a commit message (``core.commentChar``; ``#`` by default and for ``auto``),
    read through git's one configuration reading (:mod:`squadmem.gitio.config`)."""
    from squadmem.gitio import config

    where = _git(at)
    try:
        value = config.read(where.env, where.cwd).get("core.commentChar") or ""
    except SquadmemError:
        return "#"
    return value if value and value != "auto" else "#"


# -- commits -------------------------------------------------------------------------------------
def commit(at: At, rev: str) -> str | None:
    """The commit ``rev`` names (``rev-parse -q --verify REV^{commit}``), None when it names none."""
    return _ok(["rev-parse", "-q", "--verify", "--end-of-options", f"{rev}^{{commit}}"], at).strip() or None


def head(at: At) -> str | None:
    """The commit HEAD names, None before the first commit."""
    return commit(at, "HEAD")


def parents(at: At, rev: str) -> list[str]:
    """The parents of the commit ``rev`` (``rev-parse REV^@``)."""
    return _text(["rev-parse", f"{rev}^@"], at).split()


def commit_time(at: At, rev: str) -> int:
    """A commit's committer date, in seconds since the epoch (as git prints it: :func:`clock.git_epoch`)."""
    from squadmem.model import clock

    return clock.git_epoch(_text(["show", "-s", "--format=%ct", rev], at))


def count(at: At, revs: Sequence[str]) -> int:
    """How many commits ``revs`` reach (``rev-list --count``)."""
    return int(_text(["rev-list", "--count", *revs], at).strip() or 0)


def on_remote(at: At, sha: str) -> bool:
    """Whether a remote-tracking branch holds the commit ``sha`` (``for-each-ref --contains``)."""
    return bool(_text(["for-each-ref", "--count=1", "--contains", sha, "refs/remotes"], at).strip())


def unpublished(at: At, base: str) -> set[str]:
    """The commits from HEAD after ``base`` that no remote-tracking branch holds."""
    return set(_text(["rev-list", "HEAD", f"^{base}", "--not", "--remotes", "--"], at).split())


def chain(at: At, base: str) -> list[list[str]]:
    """Each commit from HEAD after ``base``, oldest first, with its parents: ``[sha, *parents]``."""
    return [
        row.split()
        for row in _text(["rev-list", "--reverse", "--parents", "HEAD", f"^{base}", "--"], at).splitlines()
    ]


def unpublished_with(at: At, trailer: str) -> list[list[str]]:
    """``[sha, *parents]`` of each commit from HEAD, oldest first, that no remote-tracking branch
    holds and whose message has a ``trailer`` line; empty when git cannot say."""
    args = [
        "log",
        "--reverse",
        "--format=%H %P",
        "-E",
        f"--grep=^{trailer}: ",
        "HEAD",
        "--not",
        "--remotes",
        "--",
    ]
    return [row.split() for row in _ok(args, at).splitlines()]


def has_commit(at: At, sha: str) -> bool:
    """Whether the repository holds the commit ``sha`` (``cat-file -e``)."""
    try:
        _git(at).out(["cat-file", "-e", f"{sha}^{{commit}}"])
    except SquadmemError:
        return False
    return True


def merge_bases(at: At, one: str, other: str) -> list[str]:
    """Every best common ancestor of two commits (``merge-base --all``); empty when there is none."""
    return _ok(["merge-base", "--all", one, other], at).split()


def message(at: At, rev: str) -> str:
    """The whole message of the commit ``rev`` (``%B``)."""
    return _text(["log", "-1", "--format=%B", rev], at)


def messages_args(
    since: str, revs: Sequence[str], paths: Sequence[str] = (), merges: bool = True
) -> list[str]:
    """The ``git log`` that :func:`parse_messages` reads: the commits made since ``since``."""
    args = ["log", "-z", f"--since={since}", "--format=%ct%x00%B", *([] if merges else ["--no-merges"])]
    return [*args, *revs, *(["--", *paths] if paths else [])]


def parse_messages(out: bytes) -> list[tuple[int, str]]:
    """(committer seconds, whole message) of each commit, newest first, from :func:`messages_args`'s log."""
    from squadmem.model import clock  # only where messages are read: a plain commit's hook never is

    fields = out.decode("utf-8", "surrogateescape").split("\0")
    return [
        (clock.git_epoch(when), body)
        for when, body in zip(fields[0::2], fields[1::2], strict=False)
        if when.strip()
    ]


def messages(
    at: At, since: str, revs: Sequence[str], paths: Sequence[str] = (), merges: bool = True
) -> list[tuple[int, str]]:
    """(committer seconds, whole message) of each commit ``revs`` (HEAD: none given) reach made
    since ``since`` (ISO 8601) that changes ``paths`` (any: none given), newest first."""
    return parse_messages(_git(at).out(messages_args(since, revs, paths, merges)))


def changes(
    at: At, placeholders: Sequence[str], pathspecs: Sequence[str], word: str | None = None
) -> Iterator[LogEntry]:
    """Each commit from HEAD that changes ``pathspecs``, newest first: its ``placeholders``' fields
    and its raw changes against its first parent (no renames), streamed from one ``git log``.
    With ``word`` (letters and digits), only commits adding or removing a line that holds it,
    in any case (``-G``, ``-i``)."""
    args = ["log", formats.log_format(*placeholders), "--raw", "-z", "--no-renames", "--no-abbrev"]
    if word is not None:
        args += [f"-G{word}", "-i"]
    return formats.parse_log(_git(at).stream([*args, "--", *pathspecs]), len(placeholders))


def add_trailers(at: At, text: str, lines: Sequence[str]) -> str:
    """A commit message with trailer ``lines`` added after any others (``interpret-trailers``)."""
    args = ["interpret-trailers", "--where", "end", "--if-exists", "add"]
    for line in lines:
        args += ["--trailer", line]
    return _text(args, at, input=text)


# -- the work tree, the index and trees ----------------------------------------------------------
def status(at: At, paths: Sequence[str]) -> list[tuple[str, str]]:
    """(two-letter status, path) of those of ``paths`` with staged or unstaged changes, or untracked."""
    if not paths:
        return []
    out = _text(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths], at)
    return [(entry[:2], entry[3:]) for entry in out.split("\0") if len(entry) > 3]


def dirty(at: At, paths: Sequence[str]) -> list[str]:
    """Those of ``paths`` with staged or unstaged changes, or untracked."""
    return sorted({path for _, path in status(at, paths)})


def check_attr(at: At, path: str, *attributes: str) -> dict[str, str]:
    """Attribute -> value (``set``, ``unset``, ``unspecified`` or a value) for ``path``."""
    out = _text(["check-attr", "-z", *attributes, "--", path], at).split("\0")
    return dict(zip(out[1::3], out[2::3], strict=False))


def sparse_excluded(at: At, paths: Sequence[str]) -> tuple[set[str], set[str]]:
    """(left out by the sparse checkout, tracked) among ``paths`` (files or ``folder/``)."""
    rows = [row for row in _text(["ls-files", "-t", "-z", "--", *paths], at).split("\0") if len(row) > 2]
    return {row[2:] for row in rows if row.startswith("S ")}, {row[2:] for row in rows}


def staged_changes(at: At, paths: Sequence[str], against: str | None = None) -> list[Staged]:
    """What the index changes under ``paths`` (from the top of the work tree) against HEAD, renames
    found, or against the commit ``against``, no renames (``diff --cached --raw``)."""
    return formats.parse_raw(_git(at).out(_staged_args(paths, against)))


def staged_changes_later(at: At, paths: Sequence[str]) -> Callable[[], list[Staged]]:
    """:func:`staged_changes` against HEAD, git started now and read when the result is called."""
    result = runner.later(_staged_args(paths, None), _git(at).env)
    return lambda: formats.parse_raw(result())


def _staged_args(paths: Sequence[str], against: str | None) -> list[str]:
    args = ["diff", "--cached", "--raw", "-z", "--no-ext-diff", "--no-color"]
    args += ["--no-renames", against] if against else ["-M"]
    return [*args, "--", *(f":(top){p}" for p in paths)]


def index_holds(at: At, folder: str) -> bool:
    """Whether the index holds any file under ``folder`` (from the top of the work tree)."""
    return bool(_git(at).out(["ls-files", "-z", "--cached", "--", f":(top){folder}"]))


def index_blobs(at: At, pathspecs: Sequence[str]) -> dict[str, str]:
    """Path -> blob of the regular files the index holds under ``pathspecs`` (``ls-files -s``)."""
    args = ["ls-files", "-s", "-z", "--cached", "--", *(f":(top){p}" for p in pathspecs)]
    return formats.parse_ls_files(_git(at).out(args))


def tree_blobs(at: At, rev: str, pathspecs: Sequence[str]) -> dict[str, str]:
    """Path -> blob of the files under ``pathspecs`` in commit ``rev``'s whole tree (``ls-tree``)."""
    args = ["ls-tree", "-r", "-z", "--full-tree", rev, "--", *pathspecs]
    return formats.parse_ls_tree(_git(at).out(args))


def tree_paths(at: At, rev: str, pathspecs: Sequence[str]) -> list[str]:
    """Every path under ``pathspecs`` in commit ``rev``'s tree (``ls-tree --name-only``)."""
    out = _git(at).out(["ls-tree", "-r", "-z", "--name-only", rev, "--", *pathspecs])
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def blob_at(at: At, revs: Sequence[str], path: str) -> dict[str, str | None]:
    """Rev -> the blob of ``path`` there (None where it is no file), from one ``cat-file --batch-check``;
    empty when git fails."""
    specs = "".join(f"{rev}:{path}\n" for rev in revs)
    try:
        out = _git(at).out(["cat-file", "--batch-check"], specs.encode())
    except SquadmemError:
        return {}
    found: dict[str, str | None] = {}
    for rev, row in zip(revs, out.decode("utf-8", "surrogateescape").splitlines(), strict=False):
        parts = row.split()
        found[rev] = parts[0] if len(parts) == 3 and parts[1] == "blob" else None
    return found


def blob_ids(at: At, paths: Sequence[str]) -> list[str]:
    """The blob each file would be, without filters (``hash-object --no-filters``); empty on failure."""
    return _ok(["hash-object", "--no-filters", "--", *paths], at).split()


# -- a path's history ----------------------------------------------------------------------------
def _history(revs: Sequence[str], path: str, format: str) -> list[str]:
    return ["log", "--full-history", "-c", "--raw", "-z", "--no-abbrev", format, *revs, "--", path]


def history_blobs(at: At, revs: Sequence[str], path: str) -> list[str]:
    """Every blob ``path`` had in the history ``revs`` reach (merges' sides too), in order, each once."""
    return formats.raw_blobs(_git(at).out(_history(revs, path, "--format=")))


def history_log(at: At, revs: Sequence[str], path: str, placeholders: Sequence[str]) -> list[LogEntry]:
    """Each commit ``revs`` reach that changed ``path`` (merges' sides too): its ``placeholders``'
    fields and its raw changes."""
    out = _git(at).out(_history(revs, path, formats.log_format(*placeholders)))
    return list(formats.parse_log([out], len(placeholders)))


# -- merging -------------------------------------------------------------------------------------
def merge_file(at: At, size: int, ours: str, base: str, theirs: str) -> bool:
    """git's line merge of three files into ``ours``, markers labelled ours / base / theirs
    (``merge-file``); False when it left conflicts or failed."""
    labels = ("-L", "ours", "-L", "base", "-L", "theirs")
    try:
        _git(at).out(["merge-file", f"--marker-size={size}", *labels, ours, base, theirs])
    except SquadmemError:
        return False
    return True


# -- writing -------------------------------------------------------------------------------------
def checked_out_blob(at: At, sha: str, path: str) -> bytes:
    """A blob as git checks it out at ``path`` (its smudge filter, text/eol conversion)."""
    return _git(at).out(["cat-file", "--filters", f"--path={path}", sha])


def clean_blob(at: At, path: str, data: bytes) -> str:
    """The blob git stores for work-tree bytes at ``path`` (its clean filter), written."""
    return _git(at).out(["hash-object", "-w", "--stdin", f"--path={path}"], data).decode().strip()


def clean_name(at: At, path: str, data: bytes) -> str:
    """The name of the blob git would store for work-tree bytes at ``path``, not written."""
    return _git(at).out(["hash-object", "--stdin", f"--path={path}"], data).decode().strip()


def commit_tree(at: At, tree: str, parent: str, text: str, sign: bool = False) -> str:
    """A commit object made by ``git commit-tree`` (signed, or in a configured encoding)."""
    args = ["commit-tree", *(["-S"] if sign else []), tree, "-p", parent, "-F", "-"]
    return _git(at).out(args, text.encode()).decode().strip()


def update_index(at: At, index_file: Path, paths: Sequence[str]) -> None:
    """``git update-index --add`` of ``paths`` in the index file ``index_file``."""
    _git(at).out(["update-index", "--add", "--", *paths], env={"GIT_INDEX_FILE": str(index_file)})


def update_ref(at: At, ref: str, new: str, old: str, message: str) -> None:
    """``ref`` from ``old`` to ``new``, only if it is still ``old`` (compare-and-swap)."""
    _git(at).out(["update-ref", "-m", message, ref, new, old])


def set_config(at: At, key: str, value: str) -> None:
    """Set ``key`` in the repository's own configuration (``.git/config``)."""
    _git(at).out(["config", "--local", key, value])


def remove_config_section(at: At, name: str) -> None:
    """Remove the section ``name`` (``merge.squadmem``) from the repository's own configuration."""
    _git(at).out(["config", "--local", "--remove-section", name])
