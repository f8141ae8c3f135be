"""Objects read through ``git cat-file --batch``: one long-lived process per reader.

:meth:`CatFile.read` asks the reader's process for one object and waits for
it (trees while a commit is written, a blob now and then).
:meth:`CatFile.each` reads many objects in order from a process of its
own, fed from a temporary file, so git never waits on squadmem to read before
it can read more, and squadmem never waits on git to write: the history
pass reads thousands of blobs this way. Standard library only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from squadmem.gitio import runner

TYPE_CHECKING = False  # typing is not imported at run time: hooks import this module
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType
    from typing import IO

ARGS = ("cat-file", "--batch")


class CatFile:
    """``with CatFile(env, cwd) as objects: objects.read(sha)``: the process ends on exit or close()."""

    def __init__(self, env: runner.Env, cwd: Path | str | None = None) -> None:
        self.env = env
        self.cwd = cwd
        self._proc: runner.Proc | None = None

    def __enter__(self) -> CatFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> None:
        """Start the process now, before the first read: git opens the repository while the caller works."""
        self._process()

    def read(self, spec: str) -> bytes | None:
        """The object ``spec`` names (a sha, ``REV:path``, ``:path``), None if it names none."""
        if "\n" in spec:
            raise ValueError(f"an object name has no newline: {spec!r}")
        proc = self._process()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.flush()
            return _answer(proc.stdout)
        except (BrokenPipeError, ValueError):
            self.close()  # git ended: its reason is in stderr
            raise runner.GitError(ARGS, proc.returncode or -1, self._last_err) from None

    def each(self, specs: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
        """(spec, object or None) for each of ``specs``, in order, from one process of its own."""
        if not specs:
            return
        import tempfile  # only for streaming many objects: not on a hook's path

        with tempfile.TemporaryFile() as names:
            names.write("".join(f"{s}\n" for s in specs).encode("utf-8", "surrogateescape"))
            names.seek(0)
            proc = runner.spawn(ARGS, self.env, cwd=self.cwd, stdin=names)
            assert proc.stdout is not None
            _widen_pipe(proc.stdout)
            ended = False
            try:
                for spec in specs:
                    try:
                        found = _answer(proc.stdout)
                    except ValueError:
                        ended = True  # git stopped answering: finish() says why
                        break
                    yield spec, found
            except BaseException:  # the reader stopped early
                proc.stdout.close()
                proc.kill()
                runner.collect(proc)
                raise
            proc.stdout.close()
            runner.finish(proc, ARGS)
            if ended:
                raise runner.GitError(ARGS, 0, "fatal: cat-file --batch ended before its last answer")

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        proc.stdout.close()
        self._last_err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        proc.wait()

    _last_err = ""

    def _process(self) -> runner.Proc:
        if self._proc is None:
            self._proc = runner.spawn(ARGS, self.env, cwd=self.cwd, stdin=runner.PIPE)
        return self._proc


def _answer(stdout: IO[bytes]) -> bytes | None:
    """One reply of ``cat-file --batch``: ``<sha> <type> <size>`` and the object, or ``<spec> missing``
    (or ``ambiguous``). A reader that ends without a reply raises ValueError."""
    header = stdout.readline()
    if not header.endswith(b"\n"):
        raise ValueError("cat-file --batch ended")
    words = header.split()
    if len(words) != 3 or words[-1] in (b"missing", b"ambiguous"):
        return None
    size = int(words[2])
    data = stdout.read(size)  # then its newline: the object is not copied again to drop it
    if len(data) != size or len(stdout.read(1)) != 1:
        raise ValueError("cat-file --batch ended")
    return data


def _widen_pipe(stream: IO[bytes]) -> None:
    """A 1 MB pipe lets cat-file run ahead while Python works on the last object (Linux only)."""
    with contextlib.suppress(ImportError, OSError, AttributeError, ValueError):
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
