"""Plain-text tables and JSON for command output."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from squadmem.model import clock, slug

TYPE_CHECKING = False  # typing is not imported at run time, json only for --json (start-up)
if TYPE_CHECKING:
    from typing import Any


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = ()) -> str:
    """A fixed-width table; columns whose index is in ``right`` align right."""
    cells = [[str(c) for c in headers]] + [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    out = []
    for row in cells:
        parts = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


def timestamp(moment: dt.datetime | None) -> str | None:
    """The one time format of every JSON output: UTC, whole seconds, ``Z`` (``2026-03-01T12:00:00Z``)."""
    return None if moment is None else clock.stamp(moment)


def to_json(data: Any) -> str:
    import json

    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False)


def tokens(n_bytes: int) -> int:
    """Approximate tokens for a byte count (about 4 bytes a token in English prose)."""
    return (n_bytes + 3) // 4


def named(ident: str, about: str, title: str) -> str:
    """A line naming a section, as hot's Index and ``context``'s further matches do: ``- ID (about):
    title``, the title left out when the id already says it (its slug: ``picard/auth-tokens`` for
    ``Auth tokens``, as most ids do); each byte of such a line is one a spawn cannot spend on memory."""
    return f"- {ident} ({about})" if slug.says(ident, title) else f"- {ident} ({about}): {title}"
