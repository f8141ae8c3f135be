"""``maintain``, ``promote``, ``demote`` and ``restore``: plan, then commit, under the lock.

Each command reads the memory and its ages, asks :mod:`squadmem.engine.policy` for a
plan and hands it to :mod:`squadmem.engine.writer`; a dry run stops after the plan.
The real run plans again under the writers' lock, so what it executes is
exactly the plan for the state it commits on.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterator, Mapping
from typing import Any

from squadmem.commands import intake, settle, spawn
from squadmem.engine import catalog, index, lastuse, policy
from squadmem.engine import writer as moves
from squadmem.gitio import formats
from squadmem.gitio.repo import Repo
from squadmem.model import render, sections, settings, templates
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import AGENT_TIERS, TIERS, check_name, classify, decode_tier

DEEPER = {"hot": "cold", "cold": "archive"}
_MOVE = re.compile(r"(\S+) (\S+) -> (\S+)")


def header(tier: str, name: str) -> str:
    """The text a new tier file starts with (``squadmem/templates/<tier>.md``, a workspace's own)."""
    return templates.tier_header(tier, name)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a command planned and made."""

    plan: policy.Plan | None
    made: tuple[moves.Made, ...] = ()
    dry_run: bool = False
    recovered: str | None = None
    note: str | None = None  # "nothing to do" and why
    intake: intake.Result | None = None  # what maintain took in from Squad's files first
    spawn_note: str | None = None  # Squad's spawn lines lost their block and could not get it back
    settled: tuple[str, ...] = ()  # what a merge left, settled first (squadmem.commands.settle)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"dry_run": self.dry_run}
        if self.intake is not None:
            data["intake"] = self.intake.as_dict()
        if self.plan is not None:
            data.update(self.plan.as_dict())
        data["commits"] = [m.as_dict() for m in self.made]
        if self.settled:
            data["settled"] = list(self.settled)
        if self.recovered:
            data["recovered"] = self.recovered
        if self.note:
            data["note"] = self.note
        if self.spawn_note:
            data["spawn_note"] = self.spawn_note
        return data

    def text(self) -> str:
        out = [f"squadmem: {self.recovered}"] if self.recovered else []
        out.extend(self.settled)
        if self.intake is not None and (self.intake.placed or self.intake.warnings):
            out.append(self.intake.text())
        if self.note:
            out.append(self.note)
        if self.plan is not None:
            out.extend(_plan_lines(self.plan))
            out.extend(_result_lines(self))
        if self.spawn_note:
            out.append(f"warning: {self.spawn_note}")
        return "\n".join(out)


def _plan_lines(plan: policy.Plan) -> Iterator[str]:
    if plan.moves:
        rows = [(m.id, f"{m.source_label} → {m.target_label}", m.reason) for m in plan.moves]
        yield render.table(("section", "from → to", "reason"), rows)
    for refresh in plan.indexes:
        if not refresh.text:
            yield f"index: take the Index out of {refresh.file} (even one line would put it over its budget)"
            continue
        yield f"index: rewrite the Index of {refresh.file} ({len(index.listed_ids(refresh.text))} line(s))"
    for warning in plan.warnings:
        yield f"warning: {warning}"
    for waiting in plan.waiting:
        yield f"waits: {waiting}"


def _result_lines(outcome: Outcome) -> Iterator[str]:
    plan = outcome.plan
    assert plan is not None
    if plan.empty and not outcome.made:
        if plan.warnings:
            yield "nothing moved: what the rules want cannot be done (see the warnings above)"
        else:
            yield "nothing to do: every section is where the rules want it"
        return
    refreshes = _count(len(plan.indexes), "Index refresh", "Index refreshes")
    counts = f"{_count(len(plan.moves), 'move')} and {refreshes}"
    if outcome.dry_run:
        yield f"dry run: {counts} planned; nothing changed"
        return
    yield f"made {_count(len(outcome.made), 'commit')} ({counts}):"
    for made in outcome.made:
        yield f"  {made.sha[:7]} {made.subject}"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


# -- maintain ------------------------------------------------------------------------------------


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


def make_plan(repo: Repo, conf: settings.Settings, now: dt.datetime, agent: str | None = None) -> policy.Plan:
    memory = catalog.load(repo.layout)
    if agent is not None:
        memory.require(agent)
    found = lastuse.usage(repo, memory, now=now)
    ages = {k: v.last for k, v in found.items()}
    held = demoted(repo, now, conf.promote.window_hours)
    previous = lastuse.previous_uses(found)
    return policy.plan(memory, ages, conf, now, agent=agent, header=header, demoted=held, previous=previous)


def demoted(repo: Repo, now: dt.datetime, hours: float) -> dict[str, dt.datetime]:
    """Sections moved out of hot by hand (``demote``) within the promote window: id -> when.

    The promotion rule leaves them where they are until a use newer than that
    (a ``demote`` is not undone by the next ``maintain``).
    """
    try:
        since = now - dt.timedelta(hours=hours)
    except OverflowError:
        since = dt.datetime.min.replace(tzinfo=dt.UTC)
    if repo.head() is None:
        return {}
    out = repo.run(
        "log",
        f"--since={since.isoformat()}",
        "--format=%x1e%ct%x1f%B",
        "--no-merges",
        "--",
        *repo.layout.places.pathspecs,
    )
    found: dict[str, dt.datetime] = {}
    for record in out.split("\x1e"):
        stamp, _, body = record.partition("\x1f")
        if not stamp.strip():
            continue
        when = dt.datetime.fromtimestamp(int(stamp), dt.UTC)
        trailers = dict(
            row.split(": ", 1)
            for row in body.splitlines()
            if row.startswith(("Squad-Memory-Move: ", "Squad-Memory-Reason: "))
        )
        match = _MOVE.fullmatch(trailers.get("Squad-Memory-Move", "").strip())
        if when > now or trailers.get("Squad-Memory-Reason", "").strip() != "manual" or not match:
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
        repo.layout.require_agent(agent)
    conf = load_settings(repo, overrides)
    take_in = take_in and agent is None and intake.is_squad_team(repo.root)
    if dry_run:
        waiting = moves.pending(repo)
        note = (
            f"an interrupted move waits to be finished ({waiting.subject}): run squadmem doctor --fix"
            if waiting
            else None
        )
        taken = intake.intake(repo, conf, now, dry_run=True) if take_in and waiting is None else None
        if taken is not None and taken.placed:
            note = "the plan below is for the tiers as they are now, before the intake"
        return Outcome(make_plan(repo, conf, now, agent), dry_run=True, note=note, intake=taken)
    settled = tuple(settle.settle(repo)) if settle.pending(repo) else ()  # a merge's leftovers first
    with moves.session(repo) as writer:
        edits = _edits(writer, "maintain", commit_edits)
        taken = intake.intake(repo, conf, now, writer=writer) if take_in else None
        plan = make_plan(repo, conf, now, agent)
        made = writer.execute(plan, header)
        kept, warning = spawn.upkeep(repo, writer) if agent is None else (None, None)
    first = (*edits, *(() if taken is None or taken.commit is None else (taken.commit,)))
    last = () if kept is None else (kept,)
    return Outcome(
        plan,
        (*first, *made, *last),
        recovered=writer.recovered,
        intake=taken,
        settled=settled,
        spawn_note=warning,
    )


def _edits(writer: moves.Writer, command: str, commit_edits: bool) -> tuple[moves.Made, ...]:
    """``--commit-edits``: the tier files' uncommitted changes committed first, as they are."""
    made = writer.commit_edits(command) if commit_edits else None
    return () if made is None else (made,)


# -- promote / demote ----------------------------------------------------------------------------


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
    with moves.session(repo) as writer:
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
        edits = _edits(writer, verb, commit_edits)
        ages = lastuse.last_uses(repo, memory, now=now)
        plan = policy.manual(memory, ages, conf, now, entry, tier, name, header=header)
        made = writer.execute(plan, header)
    return Outcome(plan, (*edits, *made), recovered=writer.recovered)


# -- restore -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Found:
    rev: str
    entry: catalog.Entry


def memory_at(repo: Repo, rev: str) -> catalog.Memory:
    """The memory of commit ``rev``'s tree."""
    out = repo.run_bytes("ls-tree", "-r", "-z", "--full-tree", rev, "--", *repo.layout.places.pathspecs)
    listed = formats.parse_ls_tree(out)
    return catalog.from_blobs(
        {rel: repo.blob(sha) for rel, sha in listed.items() if classify(rel) is not None}
    )


def resolve(repo: Repo, rev: str) -> str:
    try:
        return repo.run("rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}").strip()
    except SquadmemError:
        raise SquadmemError(
            f"--at {rev!r}: not a commit here", hint="give a commit: a sha, a tag, HEAD~3..."
        ) from None


def _removals(repo: Repo) -> Iterator[tuple[str, str, str]]:
    """(parent commit, tier file, its blob there) for each tier file changed, newest commit first."""
    args = (
        "log",
        formats.log_format("%P"),
        "--raw",
        "-z",
        "--no-renames",
        "--no-abbrev",
        "--",
        *repo.layout.places.pathspecs,
    )
    for entry in formats.parse_log(repo.stream(*args), 1):
        parent = entry.fields[0].decode("ascii").partition(" ")[0]
        for change in entry.changes if parent else ():
            if classify(change.path) is not None and change.old is not None:
                yield parent, change.path, change.old


def _matches(entry: catalog.Entry, ref: str) -> bool:
    return ref in (entry.id, entry.title, entry.section.raw_heading)


def find_removed(repo: Repo, ref: str) -> Found | None:
    """The newest commit whose tree held the section ``ref`` (by id or exact heading) before it went."""
    seen: set[str] = set()
    for parent, rel, blob in _removals(repo):
        if blob in seen:
            continue
        seen.add(blob)
        try:
            single = catalog.from_texts({rel: decode_tier(repo.blob(blob), rel)})
        except SquadmemError:
            continue
        if not any(e.id.endswith("/" + ref.rpartition("/")[2]) or _matches(e, ref) for e in single.entries):
            continue
        try:
            return Found(parent, memory_at(repo, parent).find(ref))
        except catalog.Ambiguous:
            raise
        except SquadmemError:
            pass
    return None


def restore(
    repo: Repo,
    ref: str,
    *,
    now: dt.datetime,
    at: str | None = None,
    to: str | None = None,
    topic: str | None = None,
) -> Outcome:
    """Put a section that is no longer in any tier back, from the last commit that had it (or ``at``)."""
    with moves.session(repo) as writer:
        memory = catalog.load(repo.layout)
        if at is None:
            present = next((e for e in memory.entries if _matches(e, ref)), None)
            if present is not None:
                return Outcome(None, note=f"{present.id} is in {present.file}: nothing to restore")
            found = find_removed(repo, ref)
            if found is None:
                raise SquadmemError(
                    f"no commit on this branch had a section with the id or heading {ref!r}",
                    hint="check the spelling, or name a commit that had it with --at REV",
                )
        else:
            rev = resolve(repo, at)
            found = Found(rev, memory_at(repo, rev).find(ref))
        return _restore(repo, writer, memory, found, now, to, topic)


def _restore(
    repo: Repo,
    writer: moves.Writer,
    memory: catalog.Memory,
    found: Found,
    now: dt.datetime,
    to: str | None,
    topic: str | None,
) -> Outcome:
    entry = found.entry
    wanted = sections.trimmed(entry.text)
    present = next((e for e in memory.entries if sections.trimmed(e.text) == wanted), None)
    if present is not None:
        return Outcome(
            None, note=f"{entry.id} as of {found.rev[:12]} is in {present.file}: nothing to restore"
        )
    tier = to or entry.tier
    if tier not in TIERS:
        raise SquadmemError(f"--to {tier!r}: not a tier", hint=f"tiers are {', '.join(TIERS)}")
    if tier == "wiki":
        name = check_name(
            topic
            or entry.section.flags.topic
            or (entry.name if entry.tier == "wiki" else policy.DEFAULT_TOPIC),
            "topic",
        )
    elif entry.tier == "wiki":
        raise SquadmemError(
            f"{entry.id} was a wiki section: it has no agent to restore it to",
            hint="restore it into the wiki (the default), then copy what you need",
        )
    else:
        name = entry.name
    assert tier in AGENT_TIERS or tier == "wiki"
    memory.require(f"wiki:{name}" if tier == "wiki" else name)
    conf = load_settings(repo)
    ages = lastuse.last_uses(repo, memory, now=now)
    plan = policy.restore(
        memory,
        ages,
        conf,
        now,
        title=entry.title,
        text=entry.text,
        target_tier=tier,
        target_name=name,
        rev=found.rev,
        header=header,
    )
    made = writer.execute(plan, header)
    return Outcome(plan, tuple(made), recovered=writer.recovered)
