"""``maintain``'s run: take in Squad's new entries, plan the tier rules' moves, then commit, under the lock.

It reads the memory and its ages, asks :mod:`squadmem.engine.planning.policy` for a
plan and hands it to :mod:`squadmem.engine.writing.writer`; a dry run stops after the
plan. The real run plans again under the writers' lock, so what it executes is
exactly the plan for the state it commits on. ``promote`` / ``demote``
and ``restore`` share its settings (:func:`load_settings`) and its first commit of
uncommitted edits (:func:`edits_first`); ``demo`` runs it as ``maintain`` does.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from squadmem.engine import catalog
from squadmem.engine.history import lastuse
from squadmem.engine.hosts import uses as track
from squadmem.engine.install import spawn_blocks
from squadmem.engine.intake import sources as squad_sources
from squadmem.engine.intake import take as intake
from squadmem.engine.outcome import Outcome
from squadmem.engine.planning import policy
from squadmem.engine.writing import settle, writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import constants, places, settings, templates
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import TIERS, classify

_MOVE = re.compile(r"(\S+) (\S+) -> (\S+)")


def load_settings(repo: Repo, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> settings.Settings:
    """tiers.toml with the command line's overrides (``{"hot": {"stale_days": 3}, ...}``)."""
    conf = repo.layout.settings
    for table, values in (overrides or {}).items():
        for key, value in values.items():
            problem = None if value is None else settings.number_problem(table, key, value)
            if problem is not None:
                flag = f"--{table}-{key.replace('_', '-')}"
                raise SquadmemError(f"{flag} {value}: {problem}", hint=f"give {flag} a number in that range")
    return conf.replace(**(overrides or {}))


def make_plan(
    repo: Repo,
    conf: settings.Settings,
    now: dt.datetime,
    agent: str | None = None,
    host: Mapping[str, dt.datetime] | None = None,
) -> policy.Plan:
    """The tier rules' plan; ``host``: uses found but not recorded (a dry run's), counted as pending."""
    memory = catalog.load(repo.layout)
    if agent is not None:
        memory.require(agent)
    found = lastuse.usage(repo, memory, now=now, extra=host)
    ages = {k: v.last for k, v in found.items()}
    held = demoted(repo, now, conf.promote.window_hours)
    previous = lastuse.previous_uses(found)
    return policy.plan(
        memory,
        ages,
        conf,
        now,
        agent=agent,
        header=templates.headers(repo.layout.places),
        demoted=held,
        previous=previous,
    )


def demoted(repo: Repo, now: dt.datetime, hours: float) -> dict[str, dt.datetime]:
    """Sections moved out of hot by hand (``demote``) within the promote window: id -> when.

    The promotion rule leaves them where they are until a use newer than that
    (a ``demote`` is not undone by the next ``maintain``).
    """
    try:
        since = now - dt.timedelta(hours=hours)
    except OverflowError:
        since = dt.datetime.min.replace(tzinfo=dt.UTC)
    if questions.head(repo.git) is None:
        return {}
    found: dict[str, dt.datetime] = {}
    for stamp, body in questions.messages(
        repo.git, since.isoformat(), (), repo.layout.places.pathspecs, merges=False
    ):
        when = dt.datetime.fromtimestamp(stamp, dt.UTC)
        trailers = dict(
            row.split(": ", 1)
            for row in body.splitlines()
            if row.startswith((f"{constants.MOVE_TRAILER}: ", f"{constants.REASON_TRAILER}: "))
        )
        match = _MOVE.fullmatch(trailers.get(constants.MOVE_TRAILER, "").strip())
        if when > now or trailers.get(constants.REASON_TRAILER, "").strip() != "manual" or not match:
            continue
        ident, source, target = match.groups()
        if source == "hot" and target != "hot":
            found[ident] = max(found.get(ident, when), when)
    return found


def maintain(
    repo: Repo,
    *,
    now: dt.datetime,
    agent: str | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    dry_run: bool = False,
    take_in: bool = True,
    commit_edits: bool = False,
) -> Outcome:
    """Take in Squad's new entries (one commit), then apply the tier rules: one commit per move,
    then one per Index that changed."""
    if agent is not None:
        agent = repo.layout.require_agent(agent)
    conf = load_settings(repo, overrides)
    take_in = take_in and agent is None and squad_sources.is_squad_team(repo.root)
    host = host_uses(repo, now)
    found = None if host is None else host.latest()
    if dry_run:
        waiting = writer.pending(repo)
        note = (
            f"an interrupted move waits to be finished ({waiting.subject}): run squadmem doctor --fix"
            if waiting
            else None
        )
        taken = intake.intake(repo, conf, now, dry_run=True) if take_in and waiting is None else None
        if taken is not None and taken.placed:
            note = "the plan below is for the tiers as they are now, before the intake"
        plan = make_plan(repo, conf, now, agent, found)
        return Outcome(plan, dry_run=True, note=note, intake=taken, host=host, unjudged=uncommitted(repo))
    settled = tuple(settle.settle(repo)) if settle.pending(repo) else ()  # a merge's leftovers first
    unjudged = None if commit_edits else uncommitted(repo)
    with writer.session(repo) as scribe:
        edits = edits_first(scribe, "maintain", commit_edits)
        taken = intake.intake(repo, conf, now, scribe=scribe) if take_in else None
        plan = make_plan(repo, conf, now, agent, found)
        host = None if host is None else track.record(repo, host)  # pending: they ride on the first commit
        made = scribe.execute(plan, templates.headers(repo.layout.places))
        kept, warning = spawn_blocks.upkeep(repo, scribe) if agent is None else (None, None)
    first = (*edits, *(() if taken is None or taken.commit is None else (taken.commit,)))
    last = () if kept is None else (kept,)
    return Outcome(
        plan,
        (*first, *made, *last),
        recovered=scribe.recovered,
        intake=taken,
        settled=settled,
        spawn_note=warning,
        host=host,
        unjudged=unjudged,
    )


def uncommitted(repo: Repo) -> str | None:
    """One line naming the tier files with uncommitted changes (an edit, or a file never committed):
    their sections count as used now, so the rules leave them where they are; None when there are none."""
    untracked: list[str] = []
    changed: list[str] = []
    for code, rel in questions.status(repo.git, list(repo.layout.places.pathspecs)):
        tier = classify(rel, repo.layout.places)
        if tier is None or tier.tier not in TIERS:
            continue
        (untracked if code == "??" else changed).append(rel)
    if not untracked and not changed:
        return None
    named = [*(f"{rel} (never committed)" for rel in untracked), *changed]
    shown = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    return (
        f"not judged: {shown} {'has' if len(named) == 1 else 'have'} uncommitted changes, so their"
        " sections count as used now and stay where they are; commit them, or run maintain --commit-edits"
    )


def host_uses(repo: Repo, now: dt.datetime) -> track.Result | None:
    """In a workspace kept in place: the uses its host (OpenClaw) left since they were last read, found
    and not yet recorded (a real run records them once it has its plan, so they ride on its first
    commit; what cannot be read is a warning, and skipped)."""
    if repo.layout.places.kind != places.WORKSPACE:
        return None
    return track.track(repo, (), now, dry_run=True)


def edits_first(scribe: writer.Writer, command: str, commit_edits: bool) -> tuple[writer.Made, ...]:
    """``--commit-edits``: the tier files' uncommitted changes committed first, as they are."""
    made = scribe.commit_edits(command) if commit_edits else None
    return () if made is None else (made,)
