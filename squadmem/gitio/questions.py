"""git's named questions, asked with an environment in hand: the hooks' and the merge driver's.

Each function is one git command line and the reading of its output, known
here once, as in pre-commit's ``git.py``: ``commit``, ``merge_bases``,
``comment_char``, ``staged_changes``, ``history_blobs``... The hooks run
where git starts them, at the top of the work tree, so git runs there too.
A question whose callers all take a failure as "no" (a name that is no
commit, a merge base that cannot be found) answers None, False or empty;
the others raise :class:`~squadmem.gitio.runner.GitError`.

Standard library only, and no heavier than the runner and the formats the
hooks imported before: they start on every commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from squadmem.gitio import formats, runner
from squadmem.gitio.formats import LogEntry, Staged
from squadmem.model.errors import SquadmemError

Env = runner.Env


def _text(args: Sequence[str], env: Env, input: str | None = None) -> str:
    data = None if input is None else input.encode("utf-8", "surrogateescape")
    return runner.git(args, env, data).decode("utf-8", "surrogateescape")


def _ok(args: Sequence[str], env: Env) -> str:
    """git's stdout as text, '' when it exits non-zero."""
    try:
        return _text(args, env)
    except SquadmemError:
        return ""


# -- where ---------------------------------------------------------------------------------------
def toplevel(env: Env) -> str:
    """The top of the work tree (``rev-parse --show-toplevel``); '' in a bare repository."""
    return _text(["rev-parse", "--show-toplevel"], env).strip()


def absolute_git_dir(env: Env) -> str:
    """The work tree's own git directory (``rev-parse --absolute-git-dir``)."""
    return _text(["rev-parse", "--absolute-git-dir"], env).strip()


def common_dir(env: Env) -> str:
    """The common git directory, absolute (a linked worktree shares its repository's)."""
    return _text(["rev-parse", "--path-format=absolute", "--git-common-dir"], env).strip()


def git_path(env: Env, name: str) -> str:
    """Where git keeps ``name`` (``rev-parse --git-path``: ``rebase-merge/done``...); '' on failure."""
    return _ok(["rev-parse", "--git-path", name], env).strip()


def comment_char(env: Env) -> str:
    """git's comment prefix in a commit message (``core.commentChar``; ``#`` by default and for ``auto``),
    read through git's one configuration reading (:mod:`squadmem.gitio.config`)."""
    from squadmem.gitio import config

    try:
        value = config.read(env).get("core.commentChar") or ""
    except SquadmemError:
        return "#"
    return value if value and value != "auto" else "#"


# -- commits -------------------------------------------------------------------------------------
def commit(env: Env, rev: str) -> str | None:
    """The commit ``rev`` names (``rev-parse -q --verify REV^{commit}``), None when it names none."""
    return _ok(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], env).strip() or None


def has_commit(env: Env, sha: str) -> bool:
    """Whether the repository holds the commit ``sha`` (``cat-file -e``)."""
    try:
        runner.git(["cat-file", "-e", f"{sha}^{{commit}}"], env)
    except SquadmemError:
        return False
    return True


def merge_bases(env: Env, one: str, other: str) -> list[str]:
    """Every best common ancestor of two commits (``merge-base --all``); empty when there is none."""
    return _ok(["merge-base", "--all", one, other], env).split()


def message(env: Env, rev: str) -> str:
    """The whole message of the commit ``rev`` (``%B``)."""
    return _text(["log", "-1", "--format=%B", rev], env)


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


def messages(env: Env, since: str, revs: Sequence[str]) -> list[tuple[int, str]]:
    """(committer seconds, message) of each commit ``revs`` reach made since ``since`` (ISO 8601)."""
    return parse_messages(runner.git(messages_args(since, revs), env))


def add_trailers(env: Env, text: str, lines: Sequence[str]) -> str:
    """A commit message with trailer ``lines`` added after any others (``interpret-trailers``)."""
    args = ["interpret-trailers", "--where", "end", "--if-exists", "add"]
    for line in lines:
        args += ["--trailer", line]
    return _text(args, env, input=text)


# -- the index and trees -------------------------------------------------------------------------
def staged_changes(env: Env, paths: Sequence[str], against: str | None = None) -> list[Staged]:
    """What the index changes under ``paths`` (from the top of the work tree) against HEAD, renames
    found, or against the commit ``against``, no renames (``diff --cached --raw``)."""
    return formats.parse_raw(runner.git(_staged_args(paths, against), env))


def staged_changes_later(env: Env, paths: Sequence[str]) -> Callable[[], list[Staged]]:
    """:func:`staged_changes` against HEAD, git started now and read when the result is called."""
    result = runner.later(_staged_args(paths, None), env)
    return lambda: formats.parse_raw(result())


def _staged_args(paths: Sequence[str], against: str | None) -> list[str]:
    args = ["diff", "--cached", "--raw", "-z", "--no-ext-diff", "--no-color"]
    args += ["--no-renames", against] if against else ["-M"]
    return [*args, "--", *(f":(top){p}" for p in paths)]


def index_holds(env: Env, folder: str) -> bool:
    """Whether the index holds any file under ``folder`` (from the top of the work tree)."""
    return bool(runner.git(["ls-files", "-z", "--cached", "--", f":(top){folder}"], env))


def index_blobs(env: Env, pathspecs: Sequence[str]) -> dict[str, str]:
    """Path -> blob of the regular files the index holds under ``pathspecs`` (``ls-files -s``)."""
    args = ["ls-files", "-s", "-z", "--cached", "--", *(f":(top){p}" for p in pathspecs)]
    return formats.parse_ls_files(runner.git(args, env))


def tree_blobs(env: Env, rev: str, pathspecs: Sequence[str]) -> dict[str, str]:
    """Path -> blob of the files under ``pathspecs`` in commit ``rev``'s whole tree (``ls-tree``)."""
    args = ["ls-tree", "-r", "-z", "--full-tree", rev, "--", *pathspecs]
    return formats.parse_ls_tree(runner.git(args, env))


def blob_at(env: Env, revs: Sequence[str], path: str) -> dict[str, str | None]:
    """Rev -> the blob of ``path`` there (None where it is no file), from one ``cat-file --batch-check``;
    empty when git fails."""
    specs = "".join(f"{rev}:{path}\n" for rev in revs)
    try:
        out = runner.git(["cat-file", "--batch-check"], env, input=specs.encode())
    except SquadmemError:
        return {}
    found: dict[str, str | None] = {}
    for rev, row in zip(revs, out.decode("utf-8", "surrogateescape").splitlines(), strict=False):
        parts = row.split()
        found[rev] = parts[0] if len(parts) == 3 and parts[1] == "blob" else None
    return found


def blob_ids(env: Env, paths: Sequence[str]) -> list[str]:
    """The blob each file would be, without filters (``hash-object --no-filters``); empty on failure."""
    return _ok(["hash-object", "--no-filters", "--", *paths], env).split()


# -- a path's history ----------------------------------------------------------------------------
def _history(revs: Sequence[str], path: str, format: str) -> list[str]:
    return ["log", "--full-history", "-c", "--raw", "-z", "--no-abbrev", format, *revs, "--", path]


def history_blobs(env: Env, revs: Sequence[str], path: str) -> list[str]:
    """Every blob ``path`` had in the history ``revs`` reach (merges' sides too), in order, each once."""
    return formats.raw_blobs(runner.git(_history(revs, path, "--format="), env))


def history_log(env: Env, revs: Sequence[str], path: str, placeholders: Sequence[str]) -> list[LogEntry]:
    """Each commit ``revs`` reach that changed ``path`` (merges' sides too): its ``placeholders``'
    fields and its raw changes."""
    out = runner.git(_history(revs, path, formats.log_format(*placeholders)), env)
    return list(formats.parse_log([out], len(placeholders)))


# -- merging -------------------------------------------------------------------------------------
def merge_file(env: Env, size: int, ours: str, base: str, theirs: str) -> bool:
    """git's line merge of three files into ``ours``, markers labelled ours / base / theirs
    (``merge-file``); False when it left conflicts or failed."""
    labels = ("-L", "ours", "-L", "base", "-L", "theirs")
    try:
        runner.git(["merge-file", f"--marker-size={size}", *labels, ours, base, theirs], env)
    except SquadmemError:
        return False
    return True
