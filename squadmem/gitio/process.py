"""A git process started with ``os.posix_spawnp``: the hooks' runner, without ``subprocess``.

``import subprocess`` costs a hook about 6 ms under ``python -I -S``
(``signal``, ``threading``, ``selectors``, ``contextlib``, ``locale`` and
through it ``re``), a tenth of a whole ``git commit``. What ``subprocess``
does that matters to a git process, this module does too:

- the child's standard streams are pipes (``os.pipe``) or ``/dev/null``,
  put in place by the spawn's file actions, and git gets these three only:
  every descriptor Python opens is non-inheritable, and the inheritable
  ones this process was started with are closed in the child, as
  ``subprocess``'s ``close_fds`` does;
- ``SIGPIPE`` and ``SIGXFSZ`` go back to their defaults in the child (Python
  ignores ``SIGPIPE``, and an ignored signal stays ignored across ``exec``);
- a process that cannot start raises ``OSError`` (``FileNotFoundError``
  when git is not on ``PATH``) and leaves no descriptor open;
- :meth:`Process.communicate` writes the input while it reads the output and
  the error stream (``poll``), so neither side waits for the other; a child
  that stops reading its input is no error (its exit status says what
  happened);
- the exit status is ``os.waitstatus_to_exitcode``'s: a signal's death is
  the negative signal number;
- an interrupted system call is retried by Python itself (PEP 475).

``posix_spawn`` cannot start a process in another folder, so callers that
name one (the commands: ``cwd=`` the work tree) keep ``subprocess``; the
hooks and the merge driver run git where git started them. Standard
library only.
"""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False  # typing is not imported at run time: hooks import this module
if TYPE_CHECKING:
    import signal as _signals
    from collections.abc import Mapping, Sequence
    from typing import IO
else:
    try:
        import _signal as _signals  # the C module under ``signal``, loaded at start-up: no enum built
    except ImportError:  # pragma: no cover - every CPython has it
        import signal as _signals

PIPE = -1  # subprocess.PIPE's value: either module's constant means a pipe here
AVAILABLE = hasattr(os, "posix_spawnp")
_DEFAULTS = tuple(getattr(_signals, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(_signals, name))


class Process:
    """One child process: ``stdout`` and ``stderr`` are pipes read as binary files; ``stdin`` a pipe
    (``PIPE``: a binary file to write), a file the child reads (anything with ``fileno()``) or
    ``/dev/null`` (None)."""

    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], stdin: IO[bytes] | int | None = None
    ) -> None:
        self.args = list(argv)
        self.returncode: int | None = None
        ours: list[int] = []  # the parent's ends: stdin's write end (a pipe), stdout's and stderr's read ends
        theirs: list[int] = []  # the child's ends, closed in the parent once it started (or failed to)
        try:
            actions = [_stdin_action(stdin, ours, theirs), _pipe(1, ours, theirs), _pipe(2, ours, theirs)]
            actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
            self.pid = os.posix_spawnp(
                self.args[0], self.args, env, file_actions=actions, setsigdef=_DEFAULTS
            )
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        self.stdin: IO[bytes] | None = open(ours.pop(0), "wb") if stdin == PIPE else None  # noqa: SIM115
        self.stdout: IO[bytes] = open(ours[0], "rb")  # noqa: SIM115 - closed by communicate() or the caller
        self.stderr: IO[bytes] = open(ours[1], "rb")  # noqa: SIM115

    def wait(self) -> int:
        """Wait for the process to end: its exit status (a signal's death: minus the signal's number)."""
        if self.returncode is None:
            try:
                _, status = os.waitpid(self.pid, 0)
            except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): nothing more to know
                self.returncode = 0
            else:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        """End the process now (SIGKILL), unless it was waited for already."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, _signals.SIGKILL)

    def communicate(self, input: bytes | None = None) -> tuple[bytes, bytes]:
        """Write ``input`` (stdin a pipe), read stdout and stderr to their ends, both at once; then wait."""
        import select

        out, err = self.stdout.fileno(), self.stderr.fileno()
        found = {out: bytearray(), err: bytearray()}
        poller = select.poll()
        for fd in found:
            poller.register(fd, select.POLLIN)
        todo = memoryview(input or b"")
        writer = self.stdin.fileno() if self.stdin is not None and todo else None
        if writer is None:
            self._close_stdin()
        else:
            os.set_blocking(writer, False)
            poller.register(writer, select.POLLOUT)
        reading = len(found)
        while reading or writer is not None:
            for fd, _ in poller.poll():
                if fd == writer:
                    todo = _write(fd, todo)
                    if not todo:
                        poller.unregister(fd)
                        self._close_stdin()
                        writer = None
                elif chunk := os.read(fd, 1 << 16):
                    found[fd] += chunk
                else:
                    poller.unregister(fd)
                    reading -= 1
        self.stdout.close()
        self.stderr.close()
        self.wait()
        return bytes(found[out]), bytes(found[err])

    def _close_stdin(self) -> None:
        if self.stdin is not None:
            with contextlib.suppress(BrokenPipeError):  # the child ended or closed its stdin
                self.stdin.close()


def run(argv: Sequence[str], env: Mapping[str, str], input: bytes | None = None) -> tuple[int, bytes, bytes]:
    """Run a process to its end: its exit status, stdout and stderr."""
    proc = Process(argv, env, PIPE if input is not None else None)
    out, err = proc.communicate(input)
    return proc.wait(), out, err


def _write(fd: int, todo: memoryview) -> memoryview:
    """What is left of ``todo`` after one write to the child's stdin; nothing once the child closed it."""
    try:
        return todo[os.write(fd, todo[: 1 << 16]) :]
    except BlockingIOError:
        return todo
    except BrokenPipeError:  # the child stopped reading: its exit status says whether that was wrong
        return todo[:0]


def _pipe(target: int, ours: list[int], theirs: list[int]) -> tuple[object, ...]:
    """A pipe for the child's output stream ``target`` (1 or 2): its read end kept, its write end
    the child's."""
    read, write = _high(os.pipe())
    ours.append(read)
    theirs.append(write)
    return (os.POSIX_SPAWN_DUP2, write, target)


def _stdin_action(stdin: IO[bytes] | int | None, ours: list[int], theirs: list[int]) -> tuple[object, ...]:
    """The file action that gives the child its stdin: a new pipe, an open file, or /dev/null."""
    if stdin is None:
        return (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)
    if stdin == PIPE:
        read, write = _high(os.pipe())
        ours.append(write)
        theirs.append(read)
        return (os.POSIX_SPAWN_DUP2, read, 0)
    assert not isinstance(stdin, int), "stdin: PIPE, None or a file"
    return (os.POSIX_SPAWN_DUP2, stdin.fileno(), 0)


def _inherited() -> list[int]:
    """The inheritable descriptors above 2 (ones this process was started with: Python opens its own
    non-inheritable), as ``/proc/self/fd`` or ``/dev/fd`` lists them; none where neither can."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found = []
        for name in names:
            fd = int(name)
            try:
                if fd > 2 and os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the listing's own descriptor, closed by now
                pass
        return found
    return []


def _high(fds: tuple[int, int]) -> tuple[int, int]:
    """The pair moved above 0, 1 and 2 (when the parent runs with a standard stream closed, a pipe can
    land there, and a spawn's dup2 onto itself would leave it close-on-exec)."""
    low: list[int] = []
    found = []
    for fd in fds:
        while fd < 3:
            low.append(fd)
            fd = os.dup(fd)
        found.append(fd)
    for fd in low:
        os.close(fd)
    return found[0], found[1]
