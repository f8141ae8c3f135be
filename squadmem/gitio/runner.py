"""Running git: one environment policy and one runner that says what failed.

The environment: inherited ``GIT_*`` variables that would point git
elsewhere are dropped, as pre-commit's ``no_git_env`` does; configuration,
transport and tracing ones (``GIT_TRACE*``) are kept. ``GIT_DIR`` and
``GIT_WORK_TREE`` name the repository itself (a tool or CI runner sets them,
and git exports them to the hooks of the commit it makes with them): they are
kept, made absolute, except where git must run on another repository
(``keep_repo=False``: the demo's new one). Two callers want
one thing more each, asked for by parameter: a hook keeps ``GIT_INDEX_FILE``
(in a pre-commit hook it names the index being committed: ``git commit -a``
and ``git commit PATH`` commit a temporary index, not ``.git/index``); the
CLI keeps the author and committer names, emails and dates (tests and the
demo date squadmem's commits with them). Replacement refs are always off
(``GIT_NO_REPLACE_OBJECTS``): ``git replace`` swaps one object for another in
a clone without changing history, so a commit whose log was forged would
read as the original; squadmem reads the objects history holds.

A failing git becomes a :class:`GitError` naming the command, its exit
status and the line of git's stderr that says what went wrong (``fatal:``
or ``error:``, not the usage text git prints after an unknown option).

git runs in the current folder through :mod:`squadmem.gitio.process`
(``os.posix_spawnp``: a hook pays no ``import subprocess``); in another
folder (``cwd=``, the commands' work tree) through ``subprocess``.
Standard library only.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator, Mapping, Sequence

from squadmem.gitio import process
from squadmem.model.errors import Exit, SquadmemError

TYPE_CHECKING = False  # typing is not imported at run time: hooks import this module
if TYPE_CHECKING:
    import subprocess
    from pathlib import Path
    from typing import IO

    Proc = subprocess.Popen[bytes] | process.Process

_KEEP = frozenset(
    {
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSL_CAINFO",
        "GIT_SSL_NO_VERIFY",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_COUNT",
        "GIT_HTTP_PROXY_AUTHMETHOD",
        "GIT_ALLOW_PROTOCOL",
        "GIT_ASKPASS",
        "GIT_TEMPLATE_DIR",
    }
)
IDENTITY = frozenset(
    f"GIT_{who}_{what}" for who in ("AUTHOR", "COMMITTER") for what in ("NAME", "EMAIL", "DATE")
)

Env = Mapping[str, str]
NO_REPLACE = "GIT_NO_REPLACE_OBJECTS"


REPOSITORY = ("GIT_DIR", "GIT_WORK_TREE")


def git_env(
    environ: Mapping[str, str] | None = None,
    keep_index: bool = True,
    *,
    keep_identity: bool = False,
    keep_repo: bool = True,
) -> dict[str, str]:
    """The environment git runs in: no inherited GIT_* but the harmless ones and the repository
    (``GIT_DIR``, ``GIT_WORK_TREE``, absolute; dropped with ``keep_repo=False``), and, when asked,
    the index a hook is given (``keep_index``) or the author and committer (``keep_identity``)."""
    source = os.environ if environ is None else environ
    env = {
        k: v
        for k, v in source.items()
        if not k.startswith("GIT_")
        or k in _KEEP
        or k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_TRACE"))
        or (keep_identity and k in IDENTITY)
    }
    env[NO_REPLACE] = "1"  # the objects history holds, never a clone's `git replace` of them
    index = source.get("GIT_INDEX_FILE")
    if keep_index and index:
        env["GIT_INDEX_FILE"] = os.path.abspath(index)
    if keep_repo:
        env.update(repository(source))
    return env


def repository(environ: Mapping[str, str], start: str = "") -> dict[str, str]:
    """``GIT_DIR`` and ``GIT_WORK_TREE`` as the environment sets them, absolute (a relative one
    is read from ``start``, the folder git starts in, as ``git -C`` reads it; the current one by
    default); empty when neither is set."""
    return {
        name: os.path.abspath(os.path.join(start, environ[name])) for name in REPOSITORY if environ.get(name)
    }


class GitError(SquadmemError):
    """A git command exited non-zero."""

    def __init__(
        self, args: Sequence[str], status: int, stderr: str, hint: str = "", code: Exit = Exit.INTERNAL
    ) -> None:
        self.status = status
        self.stderr = stderr
        super().__init__(
            f"{describe(args)} failed (exit {status}): {meaningful(stderr)}",
            hint=hint or "see what git says; `git status` shows the state of the repository",
            code=code,
        )


def describe(args: Sequence[str]) -> str:
    """The command as a person would recognise it: git, the subcommand and its first words."""
    return " ".join(["git", *(a for a in args[:3] if "\n" not in a)])


def meaningful(stderr: str) -> str:
    """The line of git's stderr that says what went wrong.

    git's own verdict is a ``fatal:`` line (the last one wins) or else the
    first ``error:`` line; an unknown option is an ``error:`` line followed by
    the usage text, whose last line says nothing. Without either, the first
    line that is not a hint or a warning; "no message" when there is none.
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith("fatal:")]
    if fatal:
        return fatal[-1]
    error = next((line for line in lines if line.startswith("error:")), None)
    if error is not None:
        return error
    plain = [line for line in lines if not line.startswith(("hint:", "warning:"))]
    return (plain or lines or ["no message"])[0]


def git(
    args: Sequence[str],
    env: Env,
    input: bytes | None = None,
    *,
    cwd: Path | str | None = None,
    hint: str = "run the hook inside the repository's work tree",
    code: Exit = Exit.INTERNAL,
) -> bytes:
    """Run git and return its stdout; a non-zero exit raises :class:`GitError`."""
    status, out, err = run(args, env, input, cwd=cwd)
    if status != 0:
        raise GitError(args, status, err, hint, code)
    return out


def run(
    args: Sequence[str], env: Env, input: bytes | None = None, *, cwd: Path | str | None = None
) -> tuple[int, bytes, str]:
    """Run git: its exit status, stdout and stderr (as text), whatever the status."""
    if cwd is None and process.AVAILABLE:
        status, out, err = process.run(["git", *args], env, input)
        return status, out, err.decode("utf-8", "replace")
    import subprocess

    proc = subprocess.run(["git", *args], env=env, input=input, capture_output=True, cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def later(args: Sequence[str], env: Env, *, code: Exit = Exit.INTERNAL) -> Callable[[], bytes]:
    """git started now in the current folder, its stdout returned when the result is called (the
    caller works meanwhile); a non-zero exit raises :class:`GitError` then. Call it once."""
    proc = spawn(args, env)

    def result() -> bytes:
        out, err = proc.communicate()
        status = proc.wait()
        if status != 0:
            raise GitError(
                args,
                status,
                err.decode("utf-8", "replace"),
                "run the hook inside the repository's work tree",
                code,
            )
        return out

    return result


def stream(
    args: Sequence[str], env: Env, *, cwd: Path | str | None = None, code: Exit = Exit.INTERNAL
) -> Iterator[bytes]:
    """Chunks of git's stdout as they come, from one process; a failure raises at the end."""
    proc = spawn(args, env, cwd=cwd)
    assert isinstance(proc.stdout, io.BufferedReader)
    try:
        while chunk := proc.stdout.read1(1 << 16):
            yield chunk
    except GeneratorExit:  # the reader stopped early: git may die of the closed pipe, and that is fine
        proc.stdout.close()
        proc.kill()
        collect(proc)
        raise
    proc.stdout.close()
    finish(proc, args, code)


def spawn(
    args: Sequence[str], env: Env, *, cwd: Path | str | None = None, stdin: IO[bytes] | int | None = None
) -> Proc:
    """One git process whose stdout the caller reads (stdin: ``PIPE``, a file, or /dev/null by
    default); pair it with :func:`finish`."""
    if cwd is None and process.AVAILABLE:
        return process.Process(["git", *args], env, stdin)
    import subprocess

    return subprocess.Popen(
        ["git", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


PIPE = process.PIPE  # subprocess.PIPE's value too


def finish(proc: Proc, args: Sequence[str], code: Exit = Exit.INTERNAL) -> None:
    """Wait for a :func:`spawn` process; a non-zero exit raises :class:`GitError`."""
    status, err = collect(proc)
    if status != 0:
        raise GitError(args, status, err, code=code)


def collect(proc: Proc) -> tuple[int, str]:
    """Wait for a :func:`spawn` process: its exit status and stderr."""
    err = b""
    if proc.stderr is not None:
        err = proc.stderr.read()
        proc.stderr.close()
    return proc.wait(), err.decode("utf-8", "replace")
