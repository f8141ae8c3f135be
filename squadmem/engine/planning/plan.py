"""The plan: what the tier rules decided, the object a dry run prints and the writer executes.

A :class:`Plan` holds the moves (one commit each), then the Index refreshes
(one commit each), the warnings, and every tier file as the plan leaves it.
:mod:`squadmem.engine.planning.policy` makes plans; :mod:`squadmem.engine.writing.writer`
commits them. Plain data: nothing here reads git or files.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Any

from squadmem.engine import index
from squadmem.model import constants, render


@dataclasses.dataclass(frozen=True)
class Move:
    """One section going from one tier file to another: one commit."""

    id: str
    title: str
    agent: str  # whose memory: the agent of the source (or, restoring, of the destination)
    source: str | None  # repository path of the source tier file; None when restoring from history
    source_tier: str  # hot, cold, archive, wiki or history
    source_name: str
    target: str
    target_tier: str
    target_name: str  # agent, or wiki topic
    rule: str  # stale, ttl, used, budget, manual or restore
    reason: str  # short, for the Squad-Memory-Reason trailer
    why: str  # a sentence, for the commit body
    text: str  # the section's exact text as it leaves the source
    last_used: dt.datetime | None = None
    used: tuple[str, ...] = ()  # ids this move counts as used (a manual promote, a restore)
    restore_rev: str | None = None

    @property
    def verb(self) -> str:
        if self.rule == "restore":
            return "restore"
        if self.target_tier == "archive":
            return "archive"
        if self.target_tier in ("hot", "wiki") or (self.source_tier, self.target_tier) == ("archive", "cold"):
            return "promote"
        return "demote"

    @property
    def source_label(self) -> str:
        return _label(self.source_tier, self.source_name)

    @property
    def target_label(self) -> str:
        return _label(self.target_tier, self.target_name)

    @property
    def subject(self) -> str:
        return f'memory({self.agent}): {self.verb} "{self.title}" {self.source_tier} → {self.target_tier}'

    def trailers(self) -> list[tuple[str, str]]:
        found = [
            (constants.MOVE_TRAILER, f"{self.id} {self.source_label} -> {self.target_label}"),
            (constants.REASON_TRAILER, self.reason),
        ]
        if self.restore_rev:
            found.append((constants.RESTORE_TRAILER, self.restore_rev))
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "agent": self.agent,
            "from": self.source_label,
            "to": self.target_label,
            "source": self.source,
            "target": self.target,
            "verb": self.verb,
            "rule": self.rule,
            "reason": self.reason,
            "why": self.why,
            "last_used": render.timestamp(self.last_used),
            "bytes": len(self.text.encode("utf-8")),
        }


def _label(tier: str, name: str) -> str:
    return f"wiki:{name}" if tier == "wiki" else tier


@dataclasses.dataclass(frozen=True)
class IndexRefresh:
    """A rewrite of one hot file's Index section: one commit of its own, after the moves."""

    agent: str
    file: str
    text: str  # the new Index section
    reads: tuple[str, ...]  # tier files whose content it lists (they must be committed)
    stamp: str | None = None  # the day its header's last_maintained line is given, if it has one

    @property
    def subject(self) -> str:
        return f"memory({self.agent}): refresh index"

    def trailers(self) -> list[tuple[str, str]]:
        return [(constants.INDEX_TRAILER, self.agent)]

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "file": self.file, "lines": index.listed(self.text)}


@dataclasses.dataclass(frozen=True)
class Plan:
    now: dt.datetime
    moves: tuple[Move, ...]
    indexes: tuple[IndexRefresh, ...]
    warnings: tuple[str, ...]
    files: Mapping[str, str]  # every tier file as the plan leaves it
    waiting: tuple[str, ...] = ()  # sections the promotion rule holds back, and why (not warnings)

    @property
    def empty(self) -> bool:
        return not self.moves and not self.indexes

    def written(self) -> list[str]:
        """Tier files the plan writes, in first-written order."""
        paths = [m.source for m in self.moves if m.source] + [m.target for m in self.moves]
        paths += [r.file for r in self.indexes]
        return list(dict.fromkeys(paths))

    def read(self) -> list[str]:
        """Tier files the plan writes or lists in an Index."""
        return list(dict.fromkeys([*self.written(), *(p for r in self.indexes for p in r.reads)]))

    def as_dict(self) -> dict[str, Any]:
        return {
            "now": render.timestamp(self.now),
            "moves": [m.as_dict() for m in self.moves],
            "indexes": [r.as_dict() for r in self.indexes],
            "warnings": list(self.warnings),
            "waiting": list(self.waiting),
        }
