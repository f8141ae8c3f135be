"""git's ``fast-import`` stream, written: commits with their files inline, in one process.

Not a hand-built stand-in for a git command: the stream is git's own input
format for ``git fast-import``, which reads it and makes every object and
ref; squadmem only writes the text. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from squadmem.gitio import runner
from squadmem.model.errors import Exit

DONE = b"done\n"
ARGS = ("fast-import", "--quiet", "--done")


def data(payload: bytes) -> bytes:
    """A ``data`` command: the byte count, then the bytes."""
    return f"data {len(payload)}\n".encode() + payload + b"\n"


def commit(ref: str, mark: int, ident: str, message: str, files: Mapping[str, str]) -> bytes:
    """One commit on ``ref`` (author and committer ``ident``: ``Name <email> <seconds> <zone>``),
    on the commit of the mark before it (none for mark 1), with ``files`` (path -> text) inline."""
    out = [f"commit {ref}\nmark :{mark}\nauthor {ident}\ncommitter {ident}\n".encode()]
    out.append(data(message.encode()))
    if mark > 1:
        out.append(f"from :{mark - 1}\n".encode())
    for path in sorted(files):
        out.append(f"M 100644 inline {path}\n".encode() + data(files[path].encode()))
    return b"".join(out)


class Repository:
    """git's command lines for a repository made whole from a stream: ``init``, its ``config``, the
    import, the checkout, and the two views the demo prints (``log --oneline``, ``show --stat``).
    A failure raises :class:`~squadmem.gitio.runner.GitError` with ``hint`` and ``code``."""

    def __init__(self, root: Path, hint: str, code: Exit = Exit.USAGE) -> None:
        self.root, self.hint, self.code = root, hint, code

    def _git(self, *args: str, input: bytes | None = None) -> str:
        env = runner.git_env(keep_index=False, keep_repo=False)
        out = runner.git(args, env, input, cwd=self.root, hint=self.hint, code=self.code)
        return out.decode("utf-8", "replace")

    def create(self, config: Mapping[str, str], stream: bytes, branch: str = "main") -> None:
        """A new repository on ``branch`` with ``config`` set, the stream imported and checked out."""
        self.root.mkdir(parents=True, exist_ok=True)
        self._git("init", "-q", "-b", branch)
        for key, value in config.items():
            self._git("config", key, value)
        self._git(*ARGS, input=stream)
        self._git("reset", "-q", "--hard", branch)

    def oneline(self, count: int) -> str:
        return self._git("log", "--oneline", f"-{count}").rstrip()

    def show_stat(self, rev: str) -> str:
        return self._git("show", "--stat", "--format=medium", "--no-color", rev).rstrip()
