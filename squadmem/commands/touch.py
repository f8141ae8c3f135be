"""``squadmem touch``: record a use of sections now; the next commit carries them as a trailer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import uses


def touch(repo: Repo, refs: Sequence[str], now: dt.datetime) -> list[str]:
    """Record a use of each section ``refs`` names (by id or exact heading); their ids, once each."""
    memory = catalog.load(repo.layout)
    ids = list(dict.fromkeys(memory.find(ref).id for ref in refs))
    uses.record(repo.state_dir, ids, now)
    return ids


def text(ids: Sequence[str]) -> str:
    return (
        f"recorded {len(ids)} use{'s' if len(ids) != 1 else ''}: {', '.join(ids)}\n"
        f"they go into your next commit as: {uses.trailer_line(ids)}"
    )
