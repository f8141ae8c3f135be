"""The one error class squadmem raises, and its exit codes.

The core raises :class:`SquadmemError`; the CLI catches it once and prints
``squadmem: <message>`` and ``hint: <hint>`` on stderr. Standard library only:
hooks use it too.
"""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    OK = 0
    VIOLATIONS = 1  # a check found violations, or a hook refused
    USAGE = 2  # bad usage or bad input
    INTERNAL = 3  # an unexpected internal error


class SquadmemError(Exception):
    """A problem the user can act on: one line, and a hint."""

    def __init__(self, message: str, hint: str | None = None, code: Exit = Exit.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code

    def render(self) -> str:
        text = f"squadmem: {self.message}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text


class SquadmemWarning(UserWarning):
    """Something the user should fix that did not stop the command (a file left out, and why).

    The core raises it with :func:`warnings.warn`; the CLI prints each once as
    ``squadmem: warning: <message>`` and ``hint: <hint>`` on stderr.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        text = f"squadmem: warning: {self.message}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text
