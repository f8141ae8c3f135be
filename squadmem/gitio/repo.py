"""The CLI's git gateway: an open repository, and every git call squadmem's commands make.

Standard library only. Where the repository is comes from its ``.git``
(:func:`~squadmem.gitio.gitdir.discover`), or from one ``git rev-parse`` where
the layout is not a plain one; objects come through one long-lived ``cat-file --batch``
process (:class:`~squadmem.gitio.catfile.CatFile`); history is read by
streaming one ``git log`` process, never a process per commit. A failing git
command is a :class:`~squadmem.gitio.runner.GitError` naming the command,
its exit status and what git said.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from squadmem.gitio import config, gitdir, questions, runner
from squadmem.gitio.catfile import CatFile
from squadmem.gitio.formats import LogEntry, log_format, parse_log, parse_ls_tree
from squadmem.model import clock
from squadmem.model.errors import Exit, SquadmemError
from squadmem.model.layout import Layout

_WHERE = (
    "rev-parse",
    "--is-bare-repository",
    "--absolute-git-dir",
    "--git-common-dir",
    "--show-object-format",
    "--show-toplevel",
)


class Repo:
    """An open repository. Use as a context manager so git's helper processes end.

    ``identity``: author and committer variables (``GIT_AUTHOR_NAME``…) to
    commit under, over those of the environment.
    """

    def __init__(self, path: Path | str = ".", identity: Mapping[str, str] | None = None) -> None:
        self._env = runner.git_env(keep_index=False, keep_identity=True, keep_repo=False)
        self._env.update(runner.repository(os.environ, str(path)))
        self._env.update(identity or {})
        own, common, self.object_format, top = gitdir.discover(str(path), self._env) or self._ask(path)
        self.root = Path(top)
        self.layout = Layout(self.root)
        self.work_git_dir = Path(own)
        self.git_dir = Path(common)
        self._objects: CatFile | None = None

    def _ask(self, path: Path | str) -> tuple[str, str, str, str]:
        """Where the repository is, as ``git rev-parse`` says (the layouts :func:`gitdir.discover`
        leaves to git): its git dir, its common git dir (absolute), object format and top."""
        start = Path(path)
        try:
            status, out, _ = runner.run(_WHERE, self._env, cwd=start)
        except (FileNotFoundError, NotADirectoryError):
            status, out = 128, b""
        lines = out.decode("utf-8", "surrogateescape").splitlines()
        if status != 0 and lines[:1] in (["true"], ["false"]):
            raise SquadmemError(f"{path}: is a bare repository", hint="run squadmem in a work tree")
        if status != 0 or len(lines) != len(_WHERE) - 1:
            raise SquadmemError(
                f"not a git repository: {start.resolve()}",
                hint="run squadmem inside a git work tree (git init creates one), or pass -C PATH",
            )
        _, own, common, fmt, top = lines
        common = str((start / common).resolve()) if not Path(common).is_absolute() else common
        return own, common, fmt, top

    def __enter__(self) -> Repo:
        return self

    def __exit__(
        self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._objects is not None:
            self._objects.close()
            self._objects = None

    # -- running git ---------------------------------------------------------------------------
    def run(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> str:
        """Run ``git args`` in the work tree and return its stdout as text."""
        return self.run_bytes(*args, input=input, env=env).decode("utf-8", "surrogateescape")

    def run_bytes(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
        full_env = dict(self._env, **(env or {}))
        return runner.git(args, full_env, input, cwd=self.root, hint=_HINT, code=Exit.USAGE)

    def stream(self, *args: str) -> Iterator[bytes]:
        """Chunks of ``git args`` stdout as they come, from one process."""
        # GIT_FLUSH=0: git writes its buffer when full, not once per commit (a write each, a read each)
        return runner.stream(args, {**self._env, "GIT_FLUSH": "0"}, cwd=self.root, code=Exit.USAGE)

    # -- objects -------------------------------------------------------------------------------
    @property
    def objects(self) -> CatFile:
        """The repository's long-lived ``cat-file --batch`` reader, started on first use."""
        if self._objects is None:
            self._objects = CatFile(self._env, self.root)
        return self._objects

    def blob(self, sha: str) -> bytes:
        """An object's bytes through the long-lived ``cat-file --batch`` process."""
        found = self.objects.read(sha)
        if found is None:
            raise SquadmemError(
                f"object {sha[:12]} is missing from this repository",
                hint="a shallow clone lacks history: fetch it with git fetch --unshallow",
            )
        return found

    def blobs(self, shas: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
        """(sha, bytes or None) for each of ``shas``, in order, from one streaming process."""
        return self.objects.each(shas)

    # -- facts ---------------------------------------------------------------------------------
    @property
    def state_dir(self) -> Path:
        """Shared state (pending uses, the history cache): under the common git dir."""
        return self.git_dir / "squadmem"

    @property
    def work_state_dir(self) -> Path:
        """Per-work-tree state (the writer's lock and journal): each linked worktree has its own."""
        return self.work_git_dir / "squadmem"

    @property
    def hash_width(self) -> int:
        """Hex digits in an object name: 40 (SHA-1) or 64 (SHA-256)."""
        return 64 if self.object_format == "sha256" else 40

    def head(self) -> str | None:
        out = self._run_ok("rev-parse", "--verify", "-q", "HEAD^{commit}")
        return out.strip() or None

    def head_from_files(self) -> str | None:
        """HEAD read from git's files (no process); ``git rev-parse`` where they say anything unusual.

        Only a hint: ``update-ref``'s compare-and-swap stays the judge of where HEAD is.
        """
        try:
            head = (self.work_git_dir / "HEAD").read_text("ascii").strip()
            if not head.startswith("ref: refs/heads/"):
                return self.head()
            ref = head[5:]
            loose = self.git_dir / ref
            if loose.is_file():
                return loose.read_text("ascii").strip() or self.head()
            with open(self.git_dir / "packed-refs", encoding="ascii") as packed:
                for line in packed:
                    sha, _, name = line.strip().partition(" ")
                    if name == ref:
                        return sha
        except (OSError, UnicodeDecodeError):
            pass
        return self.head()

    def shallow_boundary(self) -> frozenset[str]:
        """The commits a shallow clone holds without their parents; empty when it is not shallow.

        git keeps them in the common git dir's ``shallow`` file: a linked
        worktree of a shallow clone is as shallow as the clone.
        """
        try:
            text = (self.git_dir / "shallow").read_text("ascii")
        except OSError:
            return frozenset()
        return frozenset(text.split())

    def is_shallow(self) -> bool:
        return bool(self.shallow_boundary())

    # -- configuration and identity: read one way (:mod:`squadmem.gitio.config`) ------------------
    def git_config(self) -> config.Config:
        """git's configuration and identity as they are now (one ``git var -l``)."""
        return config.read(self._env, self.root)

    def config(self, key: str) -> str | None:
        return self.git_config().get(key)

    def set_config(self, key: str, value: str) -> None:
        """Set ``key`` in this repository's own configuration (``.git/config``)."""
        self.run("config", "--local", key, value)

    def remove_config_section(self, name: str) -> None:
        """Remove the section ``name`` (``merge.squadmem``) from this repository's own configuration."""
        self.run("config", "--local", "--remove-section", name)

    # -- named questions -------------------------------------------------------------------------
    def status(self, paths: Sequence[str]) -> list[tuple[str, str]]:
        """(two-letter status, path) of those of ``paths`` with staged or unstaged changes, or untracked."""
        if not paths:
            return []
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths)
        return [(entry[:2], entry[3:]) for entry in out.split("\0") if len(entry) > 3]

    def dirty(self, paths: Sequence[str]) -> list[str]:
        """Those of ``paths`` with staged or unstaged changes, or untracked."""
        return sorted({path for _, path in self.status(paths)})

    def commit(self, rev: str) -> str:
        """The commit ``rev`` names (``git rev-parse --verify``); a GitError when it names none."""
        return self.run("rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}").strip()

    def parents(self, rev: str) -> list[str]:
        return self.run("rev-parse", f"{rev}^@").split()

    def commit_time(self, rev: str) -> int:
        """A commit's committer date, in seconds since the epoch."""
        return clock.git_epoch(self.run("show", "-s", "--format=%ct", rev))

    def newest_commit_time(self) -> int | None:
        """HEAD's committer date in seconds since the epoch (None: no commit yet)."""
        head = self.head()
        return None if head is None else self.commit_time(head)

    def date_commits(self, seconds: int) -> None:
        """Date the commits made through this repository (author and committer) at ``seconds``
        since the epoch, UTC, as ``GIT_AUTHOR_DATE`` / ``GIT_COMMITTER_DATE`` would."""
        self._env["GIT_AUTHOR_DATE"] = self._env["GIT_COMMITTER_DATE"] = f"@{seconds} +0000"

    def commit_dates(self) -> dict[str, str]:
        """The dates the commits made through this repository carry (none given: the clock)."""
        return {k: v for k, v in self._env.items() if k in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")}

    def count(self, revs: Sequence[str]) -> int:
        """How many commits ``revs`` reach (``git rev-list --count``)."""
        return int(self.run("rev-list", "--count", *revs).strip() or 0)

    def tree_files(self, rev: str, pathspecs: Sequence[str]) -> dict[str, str]:
        """Path -> blob of the files under ``pathspecs`` in commit ``rev``'s whole tree."""
        return parse_ls_tree(self.run_bytes("ls-tree", "-r", "-z", "--full-tree", rev, "--", *pathspecs))

    def tree_paths(self, rev: str, pathspecs: Sequence[str]) -> list[str]:
        """Every path under ``pathspecs`` in commit ``rev``'s tree (``ls-tree --name-only``)."""
        out = self.run_bytes("ls-tree", "-r", "-z", "--name-only", rev, "--", *pathspecs)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def messages(self, since: str, pathspecs: Sequence[str], merges: bool = True) -> list[tuple[int, str]]:
        """(committer seconds, whole message) of each commit from HEAD made since ``since`` (ISO 8601)
        that changes ``pathspecs``, newest first."""
        args = questions.messages_args(since, (), pathspecs, merges)
        return questions.parse_messages(self.run_bytes(*args))

    def changes(
        self, placeholders: Sequence[str], pathspecs: Sequence[str], word: str | None = None
    ) -> Iterator[LogEntry]:
        """Each commit from HEAD that changes ``pathspecs``, newest first: its ``placeholders``' fields
        and its raw changes against its first parent (no renames), streamed from one ``git log``.
        With ``word`` (letters and digits), only commits adding or removing a line that holds it,
        in any case (``-G``, ``-i``)."""
        args = ["log", log_format(*placeholders), "--raw", "-z", "--no-renames", "--no-abbrev"]
        if word is not None:
            args += [f"-G{word}", "-i"]
        return parse_log(self.stream(*args, "--", *pathspecs), len(placeholders))

    def check_attr(self, path: str, *attributes: str) -> dict[str, str]:
        """Attribute -> value (``set``, ``unset``, ``unspecified`` or a value) for ``path``."""
        out = self.run("check-attr", "-z", *attributes, "--", path).split("\0")
        return dict(zip(out[1::3], out[2::3], strict=False))

    def sparse_excluded(self, paths: Sequence[str]) -> tuple[set[str], set[str]]:
        """(left out by the sparse checkout, tracked) among ``paths`` (files or ``folder/``)."""
        out = self.run("ls-files", "-t", "-z", "--", *paths)
        rows = [row for row in out.split("\0") if len(row) > 2]
        return {row[2:] for row in rows if row.startswith("S ")}, {row[2:] for row in rows}

    # -- writing ---------------------------------------------------------------------------------
    def checked_out_blob(self, sha: str, path: str) -> bytes:
        """A blob as git checks it out at ``path`` (its smudge filter, text/eol conversion)."""
        return self.run_bytes("cat-file", "--filters", f"--path={path}", sha)

    def clean_blob(self, path: str, data: bytes) -> str:
        """The blob git stores for work-tree bytes at ``path`` (its clean filter), written."""
        return self.run("hash-object", "-w", "--stdin", f"--path={path}", input=data).strip()

    def clean_name(self, path: str, data: bytes) -> str:
        """The name of the blob git would store for work-tree bytes at ``path``, not written."""
        return self.run("hash-object", "--stdin", f"--path={path}", input=data).strip()

    def commit_tree(self, tree: str, parent: str, text: str, sign: bool = False) -> str:
        """A commit object made by ``git commit-tree`` (signed, or in a configured encoding)."""
        args = ["commit-tree", *(["-S"] if sign else []), tree, "-p", parent, "-F", "-"]
        return self.run(*args, input=text.encode()).strip()

    def update_index(self, index_file: Path, paths: Sequence[str]) -> None:
        """``git update-index --add`` of ``paths`` in the index file ``index_file``."""
        self.run("update-index", "--add", "--", *paths, env={"GIT_INDEX_FILE": str(index_file)})

    def update_ref(self, ref: str, new: str, old: str, message: str) -> None:
        """``ref`` from ``old`` to ``new``, only if it is still ``old`` (compare-and-swap)."""
        self.run("update-ref", "-m", message, ref, new, old)

    def _run_ok(self, *args: str) -> str:
        """Run git, returning '' instead of raising when it exits non-zero."""
        status, out, _ = runner.run(args, self._env, cwd=self.root)
        return out.decode("utf-8", "surrogateescape") if status == 0 else ""


_HINT = "see what git says; `git status` shows the state of the repository"
