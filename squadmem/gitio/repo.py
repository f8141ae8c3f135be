"""The CLI's git gateway: every git call squadmem's commands make goes through here.

Built on GitPython. History is read by streaming one ``git log`` process and
blobs through GitPython's one long-lived ``cat-file --batch`` process; never a
process per commit. Errors come back as :class:`SquadmemError` naming the git
command, its exit status and its stderr.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

import git

from squadmem.model.errors import SquadmemError
from squadmem.model.layout import Layout


def _clean_env() -> dict[str, str]:
    """The environment without GIT_* variables a hook's caller may have set (GIT_INDEX_FILE...)."""
    keep = {"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"}
    keep |= {"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL"}
    keep |= {"GIT_TEMPLATE_DIR", "GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS"}
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in keep}


def _failed(args: Sequence[str], status: object, stderr: str) -> SquadmemError:
    lines = [line.strip().strip("'").strip() for line in stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "no message"
    return SquadmemError(
        f"git {' '.join(args[:2])} failed (exit {status}): {last}",
        hint="see what git says; `git status` shows the state of the repository",
    )


class Repo:
    """An open repository. Use as a context manager so git's helper processes end."""

    def __init__(self, path: Path | str = ".") -> None:
        try:
            self._repo = git.Repo(path, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise SquadmemError(
                f"not a git repository: {Path(path).resolve()}",
                hint="run squadmem inside a git work tree (git init creates one), or pass -C PATH",
            ) from None
        if self._repo.bare or self._repo.working_tree_dir is None:
            raise SquadmemError(f"{path}: is a bare repository", hint="run squadmem in a work tree")
        self.root = Path(self._repo.working_tree_dir)
        self.layout = Layout(self.root)
        self._env = _clean_env()

    def __enter__(self) -> Repo:
        return self

    def __exit__(
        self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]
    ) -> None:
        self.close()

    def close(self) -> None:
        self._repo.close()

    # -- running git ---------------------------------------------------------------------------
    def run(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> str:
        """Run ``git args`` in the work tree and return its stdout as text."""
        return self.run_bytes(*args, input=input, env=env).decode("utf-8", "surrogateescape")

    def run_bytes(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
        full_env = dict(self._env, **(env or {}))
        with contextlib.ExitStack() as stack:
            stdin = None
            if input is not None:
                stdin = stack.enter_context(tempfile.TemporaryFile())
                stdin.write(input)
                stdin.seek(0)
            try:
                out = self._repo.git.execute(
                    ["git", *args],
                    istream=stdin,
                    as_process=False,
                    stdout_as_string=False,
                    env=full_env,
                    strip_newline_in_stdout=False,
                    with_extended_output=False,
                )
            except git.GitCommandError as exc:
                stderr = exc.stderr if isinstance(exc.stderr, str) else str(exc.stderr)
                raise _failed(args, exc.status, stderr.removeprefix("\n  stderr: ")) from None
        assert isinstance(out, bytes)
        return out

    def stream(self, *args: str) -> Iterator[bytes]:
        """Lines of ``git args`` stdout as they come, from one process."""
        proc = subprocess.Popen(
            ["git", *args], cwd=self.root, env=self._env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stderr is not None
        try:
            yield from proc.stdout
        finally:
            proc.stdout.close()
            err = proc.stderr.read().decode("utf-8", "replace")
            proc.stderr.close()
            status = proc.wait()
        if status != 0:
            raise _failed(args, status, err)

    def popen(self, args: Sequence[str], stdin: IO[bytes] | None = None) -> subprocess.Popen[bytes]:
        """One git process whose stdout the caller reads (``cat-file --batch`` fed from ``stdin``).

        Pair it with :meth:`finish`, which waits for it and turns a failure into an error.
        """
        return subprocess.Popen(
            ["git", *args],
            cwd=self.root,
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self._env,
        )

    def finish(self, proc: subprocess.Popen[bytes], args: Sequence[str]) -> None:
        """Wait for a :meth:`popen` process; a non-zero exit raises naming the command and git's words."""
        assert proc.stderr is not None
        err = proc.stderr.read().decode("utf-8", "replace")
        status = proc.wait()
        if status != 0:
            raise _failed(args, status, err)

    def blob(self, sha: str) -> bytes:
        """A blob's bytes through the long-lived ``cat-file --batch`` process."""
        return bytes(self._repo.odb.stream(bytes.fromhex(sha)).read())

    # -- facts ---------------------------------------------------------------------------------
    @property
    def git_dir(self) -> Path:
        """The common git dir (shared by worktrees): where .git/squadmem/ lives."""
        return Path(self._repo.common_dir)

    @property
    def state_dir(self) -> Path:
        """Shared state (pending uses, the history cache): under the common git dir."""
        return self.git_dir / "squadmem"

    @property
    def work_git_dir(self) -> Path:
        """This work tree's own git dir (``git rev-parse --git-dir``): its HEAD, index and journal."""
        return Path(self._repo.git_dir)

    @property
    def work_state_dir(self) -> Path:
        """Per-work-tree state (the writer's lock and journal): each linked worktree has its own."""
        return self.work_git_dir / "squadmem"

    def head(self) -> str | None:
        out = self._run_ok("rev-parse", "--verify", "-q", "HEAD^{commit}")
        return out.strip() or None

    def is_shallow(self) -> bool:
        return (Path(self._repo.git_dir) / "shallow").exists()

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
        try:
            return self.run(*args)
        except SquadmemError:
            return ""
