"""How a benchmark runs git and squadmem: one helper each, with the same options.

    from bench.gitrun import git, squadmem
    git(root, "commit", "-q", "-m", "seed", date="2026-01-01T10:00:00+00:00")
    head = git(root, "rev-parse", "HEAD").out.strip()
    done = squadmem(root, "maintain", "--now", NOW, check=False)

Both run a whole process in ``cwd`` with its output captured and stdin empty
(unless ``input`` is given); ``env`` is the whole environment (the current
one if left out), and ``date`` sets the author and committer dates over it.
A status other than 0 raises :class:`Failed` with the command line, the
status and the end of stderr, unless ``check=False``. squadmem runs as
``python -m squadmem`` under this interpreter (:data:`SQUADMEM`), so the
checkout on ``PYTHONPATH`` is the one measured.

Timing is not done here: a benchmark times a process with ``bench.harness``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SQUADMEM = (sys.executable, "-m", "squadmem")  # the argv that runs squadmem, for a paired.Command too


class Failed(RuntimeError):
    """A git or squadmem process exited with a status other than 0."""


@dataclass(frozen=True)
class Done:
    """A finished process: its status and its output, as bytes and (``out``, ``err``) as text."""

    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def out(self) -> str:
        """stdout as ``text=True`` reads it: UTF-8 (bad bytes replaced), CR LF and CR read as LF."""
        return _text(self.stdout)

    @property
    def err(self) -> str:
        return _text(self.stderr)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def git(
    cwd: Path,
    *args: str,
    date: str | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> Done:
    """``git ARGS`` in ``cwd``."""
    return _run(("git", *args), cwd, date, env, input, check)


def squadmem(
    cwd: Path,
    *args: str,
    date: str | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> Done:
    """``squadmem ARGS`` in ``cwd`` (``python -m squadmem`` under this interpreter)."""
    return _run((*SQUADMEM, *args), cwd, date, env, input, check)


def dated(date: str | None, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (the current environment if None) with git's author and committer dates set to ``date``."""
    out = dict(os.environ if env is None else env)
    if date:
        out["GIT_AUTHOR_DATE"] = out["GIT_COMMITTER_DATE"] = date
    return out


def _run(
    argv: tuple[str, ...],
    cwd: Path,
    date: str | None,
    env: Mapping[str, str] | None,
    input: bytes | None,
    check: bool,
) -> Done:
    stdin = subprocess.DEVNULL if input is None else None
    proc = subprocess.run(argv, cwd=cwd, env=dated(date, env), input=input, stdin=stdin, capture_output=True)
    done = Done(proc.returncode, proc.stdout, proc.stderr)
    if check and done.returncode:
        command = " ".join(["squadmem", *argv[3:]] if argv[:3] == SQUADMEM else argv)
        raise Failed(f"{command}: exit {done.returncode}: {done.err.strip()[-400:]}")
    return done
