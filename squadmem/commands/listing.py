"""``squadmem list``: every section with its id, tier, file, size and flags."""

from __future__ import annotations

from typing import Any

from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import render
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import TIERS


def select(memory: catalog.Memory, agent: str | None = None, tier: str | None = None) -> list[catalog.Entry]:
    if tier is not None and tier not in TIERS:
        raise SquadmemError(f"unknown tier {tier!r}", hint=f"tiers are {', '.join(TIERS)}")
    if agent is not None:
        agent = memory.known_agent(agent)
    return [
        e
        for e in memory.entries
        if (tier is None or e.tier == tier) and (agent is None or (e.tier != "wiki" and e.name == agent))
    ]


def as_dict(entry: catalog.Entry) -> dict[str, Any]:
    flags = entry.section.flags
    return {
        **entry.describe(),
        "flags": {"pin": flags.pin, "kind": flags.kind, "topic": flags.topic, "id": flags.id},
    }


def list_sections(repo: Repo, agent: str | None = None, tier: str | None = None) -> list[dict[str, Any]]:
    return [as_dict(e) for e in select(catalog.load(repo.layout), agent, tier)]


def text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no sections (squadmem init creates the tier files; ## headings make sections)"
    body = [(r["id"], r["tier"], r["bytes"], r["lines"], _flag_words(r["flags"]), r["title"]) for r in rows]
    return render.table(("id", "tier", "bytes", "lines", "flags", "title"), body, right=(2, 3))


def _flag_words(flags: dict[str, Any]) -> str:
    words = ["pin"] if flags["pin"] else []
    words += [f"{k}={flags[k]}" for k in ("kind", "topic") if flags[k]]
    return " ".join(words)
