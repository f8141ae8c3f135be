"""Files written whole or not at all, and the lock that serializes writers.

An atomic write puts the bytes in a temporary file beside the target, then
``os.replace``s it: a reader sees the old file or the new one, never half of
either. Nothing is fsynced (a crash may lose the newest write, never mix two).
The temporary file is named for the target (``.<name>.squadmem-tmp``) when a
lock already serializes its writers, so recovery knows what to remove; else
it is unique, and removed again if the write fails.

A lock is ``flock`` on a file (``msvcrt`` on Windows), released by the OS if
the process dies; taking it waits at most a timeout, then refuses.

Standard library only: the hooks import this module.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from pathlib import Path
from types import TracebackType

from squadmem.model.errors import SquadmemError

TMP_SUFFIX = ".squadmem-tmp"
LOCK_TIMEOUT_ENV = "SQUADMEM_LOCK_TIMEOUT"
LOCK_TIMEOUT = 5.0
_EXECUTE = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def temp_of(path: Path) -> Path:
    """The temporary file a locked writer of ``path`` uses: ``.<name>.squadmem-tmp`` beside it."""
    return path.with_name(f".{path.name}{TMP_SUFFIX}")


def atomic(
    path: Path, data: bytes, *, mode: int | None = None, executable: bool = False, locked: bool = False
) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, then ``os.replace``.

    ``mode``: the new file's permission bits (default: a new file's, under the umask);
    ``executable``: those bits with execute added for user, group and others.
    ``locked``: the caller holds a lock over ``path``, so the temporary file is :func:`temp_of`.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _open_temp(path, locked)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if executable:
            mode = (tmp.stat().st_mode if mode is None else mode) | _EXECUTE
        if mode is not None:
            tmp.chmod(mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def read_state(path: Path) -> bytes:
    """A state file's bytes (``.git/squadmem/``): FileNotFoundError when it is missing, another
    OSError when something else is at its path (a folder, a FIFO), which is never opened for
    reading, so nothing hangs; callers treat both as the file not being there."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(f"{path}: not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def discard(path: Path) -> None:
    """Remove a state file of squadmem's; a folder found at its path (squadmem never makes one) is
    moved aside, as ``<name>.not-a-file-<hex>``, so the next write finds the path free."""
    try:
        path.unlink(missing_ok=True)
    except (IsADirectoryError, PermissionError):  # Linux says EISDIR, macOS EPERM
        path.rename(path.with_name(f"{path.name}.not-a-file-{os.urandom(3).hex()}"))


def atomic_text(
    path: Path, text: str, *, mode: int | None = None, executable: bool = False, locked: bool = False
) -> None:
    """:func:`atomic` of ``text`` in UTF-8."""
    atomic(path, text.encode("utf-8"), mode=mode, executable=executable, locked=locked)


def _open_temp(path: Path, locked: bool) -> tuple[int, Path]:
    """A temporary file beside ``path``, created as ``open(..., "w")`` would (mode 0o666 under the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0)
    if locked:
        tmp = temp_of(path)
        return os.open(tmp, flags | os.O_TRUNC, 0o666), tmp
    while True:
        tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}{TMP_SUFFIX}")
        try:
            return os.open(tmp, flags | os.O_EXCL, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue


# -- the lock ------------------------------------------------------------------------------------


def lock_timeout() -> float:
    """How long a writer waits for a lock: ``SQUADMEM_LOCK_TIMEOUT`` seconds, default 5."""
    raw = os.environ.get(LOCK_TIMEOUT_ENV)
    if not raw:
        return LOCK_TIMEOUT
    try:
        return max(float(raw), 0.0)
    except ValueError:
        raise SquadmemError(
            f"{LOCK_TIMEOUT_ENV}={raw!r}: not a number of seconds",
            hint=f"unset it, or set e.g. {LOCK_TIMEOUT_ENV}=30",
        ) from None


def try_lock(fd: int) -> bool:
    """Take the lock on ``fd`` if it is free; never waits."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


class FileLock:
    """An exclusive lock on ``path``, held from ``with`` to its end; the holder's pid is written in it.

    ``busy`` is the refusal when the lock stays taken past the timeout: it gets the holder's pid
    and the seconds waited.
    """

    def __init__(self, path: Path, timeout: float | None = None, busy: str | None = None) -> None:
        self.path = path
        self.timeout = lock_timeout() if timeout is None else timeout
        self.busy = (
            busy or "another squadmem process (pid {pid}) holds {path}; gave up after waiting {waited} s"
        )
        self.fd: int | None = None

    def __enter__(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = self._open(os.O_RDWR | os.O_CREAT)
        deadline = time.monotonic() + self.timeout
        while not try_lock(fd):
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
                os.close(fd)
                raise SquadmemError(
                    self.busy.format(pid=holder, path=self.path.name, waited=f"{self.timeout:g}"),
                    hint=f"run it again when that one is done, or wait longer: {LOCK_TIMEOUT_ENV}=SECONDS",
                )
            time.sleep(0.02)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the lock
            self.fd = None

    def _open(self, flags: int) -> int:
        """The lock file, opened without blocking; refuses a folder or a FIFO at its path."""
        try:
            fd = os.open(self.path, flags | os.O_NONBLOCK, 0o644)
        except IsADirectoryError:
            fd = -1
        if fd < 0 or not stat.S_ISREG(os.fstat(fd).st_mode):
            if fd >= 0:
                os.close(fd)
            raise SquadmemError(
                f"{self.path}: not a regular file; squadmem keeps its lock there",
                hint=f"remove it (nothing is lost): rm -r {self.path}",
            )
        return fd

    def held_by_other(self) -> bool:
        """Whether another process holds the lock now (never waits)."""
        if not self.path.exists():
            return False
        fd = self._open(os.O_RDWR)
        try:
            return not try_lock(fd)
        finally:
            os.close(fd)
