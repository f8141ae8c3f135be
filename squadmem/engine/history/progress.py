"""A one-line progress bar on stderr, for runs that read many commits.

Shown only when stderr is a terminal and the run reads more than
:data:`THRESHOLD` commits; otherwise it costs nothing (not even counting
the commits first) and prints nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from squadmem.gitio import questions

if TYPE_CHECKING:
    from squadmem.gitio.repo import Repo

THRESHOLD = 3000
WIDTH = 30


class Progress:
    """``with Progress(label, total) as bar: bar.update(done)``."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = total > THRESHOLD and _is_terminal(self.stream)
        self._shown = -1

    @classmethod
    def for_commits(
        cls, repo: Repo, revs: Sequence[str], label: str, stream: TextIO | None = None
    ) -> Progress:
        """A bar over the commits of ``revs``; they are counted only when a terminal would show it."""
        out = stream or sys.stderr
        if not _is_terminal(out):
            return cls(label, 0, out)
        try:
            total = questions.count(repo.git, revs)
        except Exception:
            total = 0
        return cls(label, total, out)

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        percent = min(100, done * 100 // max(self.total, 1))
        if percent == self._shown:
            return
        self._shown = percent
        filled = WIDTH * percent // 100
        bar = "#" * filled + "-" * (WIDTH - filled)
        self.stream.write(
            f"\r{self.label} [{bar}] {percent:3d}% ({min(done, self.total)}/{self.total} commits)"
        )
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.enabled and self._shown >= 0:
            self.update(self.total)
            self.stream.write("\n")
            self.stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
