"""``promote`` and ``demote``: one section, by id or exact heading, moved by hand as one commit."""

from __future__ import annotations

import datetime as dt

from squadmem.engine import catalog
from squadmem.engine.history import lastuse
from squadmem.engine.maintenance import edits_first, load_settings
from squadmem.engine.outcome import Outcome
from squadmem.engine.planning import policy
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import templates
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import TIERS, check_name

DEEPER = {"hot": "cold", "cold": "archive"}


def _target(entry: catalog.Entry, to: str | None, verb: str, topic: str | None) -> tuple[str, str] | None:
    """Where a manual move goes: (tier, agent or topic); None when there is no deeper tier."""
    if to is not None and to not in TIERS:
        raise SquadmemError(f"--to {to!r}: not a tier", hint=f"tiers are {', '.join(TIERS)}")
    tier = to or ("hot" if verb == "promote" else DEEPER.get(entry.tier))
    if tier is None:
        return None
    if tier == "wiki":
        return tier, check_name(topic or entry.section.flags.topic or policy.DEFAULT_TOPIC, "topic")
    if topic is not None:
        raise SquadmemError("--topic goes with --to wiki only", hint="drop --topic, or add --to wiki")
    return tier, entry.name


def move(
    repo: Repo,
    ref: str,
    *,
    verb: str,
    now: dt.datetime,
    to: str | None = None,
    topic: str | None = None,
    commit_edits: bool = False,
) -> Outcome:
    """``promote`` / ``demote``: one section, by id or exact heading, as one commit (and its Index)."""
    with writer.session(repo) as scribe:
        memory = catalog.load(repo.layout)
        entry = memory.find(ref)
        if entry.is_index:
            raise SquadmemError(
                f"{entry.id} is the Index of {entry.file}, which squadmem writes: it does not move",
                hint="squadmem maintain rewrites it after each run",
            )
        if entry.is_session:
            raise SquadmemError(
                f"{entry.id} is the Session block of {entry.file}, which stays at the top of hot:"
                " it does not move",
                hint=f"squadmem session end --agent {entry.name} logs it, sums it up in cold and clears it",
            )
        if entry.tier == "wiki":
            raise SquadmemError(
                f"{entry.id} is in the wiki, whose sections squadmem never moves",
                hint=f"edit {entry.file} by hand, or restore an older copy with squadmem restore",
            )
        target = _target(entry, to, verb, topic)
        if target is None:
            return Outcome(None, note=f"{entry.id} is in {entry.tier}, the deepest tier: nothing to do")
        tier, name = target
        if (tier, name) == (entry.tier, entry.name):
            return Outcome(None, note=f"{entry.id} is already in {entry.tier} ({entry.file}): nothing to do")
        conf = load_settings(repo)
        made_edits = edits_first(scribe, verb, commit_edits)
        ages = lastuse.last_uses(repo, memory, now=now)
        plan = policy.manual(
            memory, ages, conf, now, entry, tier, name, header=templates.headers(repo.layout.places)
        )
        made = scribe.execute(plan, templates.headers(repo.layout.places))
    return Outcome(plan, (*made_edits, *made), recovered=scribe.recovered)


def promote(
    repo: Repo,
    ref: str,
    *,
    now: dt.datetime,
    to: str | None = None,
    topic: str | None = None,
    commit_edits: bool = False,
) -> Outcome:
    """``promote``: up to hot, or ``to`` a tier."""
    return move(repo, ref, verb="promote", now=now, to=to, topic=topic, commit_edits=commit_edits)


def demote(
    repo: Repo,
    ref: str,
    *,
    now: dt.datetime,
    to: str | None = None,
    topic: str | None = None,
    commit_edits: bool = False,
) -> Outcome:
    """``demote``: one tier down (hot → cold → archive), or ``to`` a tier."""
    return move(repo, ref, verb="demote", now=now, to=to, topic=topic, commit_edits=commit_edits)
