"""The CLI's git gateway: an open repository, and every git call squadmem's commands make.

Standard library only. Where the repository is comes from one ``git
rev-parse``; objects come through one long-lived ``cat-file --batch``
process (:class:`~squadmem.gitio.catfile.CatFile`); history is read by
streaming one ``git log`` process, never a process per commit. A failing git
command is a :class:`~squadmem.gitio.runner.GitError` naming the command,
its exit status and what git said.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from squadmem.gitio import runner
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
        self._env = runner.git_env(keep_index=False, keep_identity=True)
        self._env.update(identity or {})
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
        _, own, common, self.object_format, top = lines
        self.root = Path(top)
        self.layout = Layout(self.root)
        self.work_git_dir = Path(own)
        self.git_dir = (start / common).resolve() if not Path(common).is_absolute() else Path(common)
        self._objects: CatFile | None = None

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
        return runner.stream(args, self._env, cwd=self.root, code=Exit.USAGE)

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

    def config(self, key: str) -> str | None:
        out = self._run_ok("config", "--get", key)
        return out.strip() or None

    def dirty(self, paths: Sequence[str]) -> list[str]:
        """Those of ``paths`` with staged or unstaged changes, or untracked."""
        if not paths:
            return []
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths)
        found = []
        for entry in out.split("\0"):
            if len(entry) > 3:
                found.append(entry[3:])
        return sorted(set(found))

    def _run_ok(self, *args: str) -> str:
        """Run git, returning '' instead of raising when it exits non-zero."""
        status, out, _ = runner.run(args, self._env, cwd=self.root)
        return out.decode("utf-8", "surrogateescape") if status == 0 else ""


_HINT = "see what git says; `git status` shows the state of the repository"
