"""An open repository for the commands: where it is, its long-lived processes, its state.

Standard library only. The git questions a command asks are
:mod:`squadmem.gitio.questions`' functions, asked at ``repo.git`` (git runs in
the work tree, a failure reads as a command's); the hooks ask the same
functions with their environment. Where the repository is comes from its ``.git``
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
        self.git = questions.Git(self._env, self.root, _HINT, Exit.USAGE)  # where its questions are asked
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
        return self.git.out(args, input, env)

    def stream(self, *args: str) -> Iterator[bytes]:
        """Chunks of ``git args`` stdout as they come, from one process."""
        # GIT_FLUSH=0: git writes its buffer when full, not once per commit (a write each, a read each)
        return self.git.stream(args)

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

    def head_from_files(self) -> str | None:
        """HEAD read from git's files (no process); ``git rev-parse`` where they say anything unusual.

        Only a hint: ``update-ref``'s compare-and-swap stays the judge of where HEAD is.
        """
        try:
            head = (self.work_git_dir / "HEAD").read_text("ascii").strip()
            if not head.startswith("ref: refs/heads/"):
                return questions.head(self.git)
            ref = head[5:]
            loose = self.git_dir / ref
            if loose.is_file():
                return loose.read_text("ascii").strip() or questions.head(self.git)
            with open(self.git_dir / "packed-refs", encoding="ascii") as packed:
                for line in packed:
                    sha, _, name = line.strip().partition(" ")
                    if name == ref:
                        return sha
        except (OSError, UnicodeDecodeError):
            pass
        return questions.head(self.git)

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

    def newest_commit_time(self) -> int | None:
        """HEAD's committer date in seconds since the epoch (None: no commit yet)."""
        head = questions.head(self.git)
        return None if head is None else questions.commit_time(self.git, head)

    def date_commits(self, seconds: int) -> None:
        """Date the commits made through this repository (author and committer) at ``seconds``
        since the epoch, UTC, as ``GIT_AUTHOR_DATE`` / ``GIT_COMMITTER_DATE`` would."""
        self._env["GIT_AUTHOR_DATE"] = self._env["GIT_COMMITTER_DATE"] = f"@{seconds} +0000"

    def commit_dates(self) -> dict[str, str]:
        """The dates the commits made through this repository carry (none given: the clock)."""
        return {k: v for k, v in self._env.items() if k in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE")}


_HINT = "see what git says; `git status` shows the state of the repository"
