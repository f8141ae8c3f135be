"""Intake: what Squad's agents appended to their files since the last intake, entry by entry, one commit.

Run by ``intake``, ``maintain`` (first) and ``migrate squad``; the files are read by
:mod:`squadmem.engine.intake.sources`.

Squad keeps writing ``history.md``, ``decisions.md``, their ``-archive`` files
and ``decisions/inbox/``. Intake reads them as HEAD has them (what is committed
is what a reviewer can check), cuts them into entries (:mod:`squadmem.model.squad`)
and takes in each entry it has not taken before, wherever it is now:

- the ledger ``.squad/memory/intake.tsv`` lists every entry taken in (its key,
  source, kind and title), so nothing is taken twice, even after Squad's file
  was cut down (``--remove-originals``, ``squad nap``) or the entry was
  edited in its tier since; an entry whose text is already a section of some
  tier file is not taken again either;
- each entry lands where its age (the first commit whose Squad file held it)
  puts it, as ``maintain`` would: ``Core Context`` pinned in hot (a newer
  version sends the older one to the archive), an entry unused for at most
  ``hot.stale_days`` in hot while hot stays within its budget, then cold up to
  ``cold.ttl_days``, the archive after; decisions into the wiki topic
  ``decisions`` (then ``decisions-2``, … once a page holds half a MiB);
- an entry holding a NUL byte, or leaving a block open that no line closes,
  is left out with a warning until Squad's file is fixed.

Intake only adds sections (and moves an agent's replaced Core Context to its
archive); ``verify`` proves that every section an intake commit added is an
entry of a Squad file in that commit's tree.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from squadmem.engine import catalog
from squadmem.engine.history import lastuse
from squadmem.engine.history import stream as history
from squadmem.engine.intake.sources import (
    PLACES,
    read_entries,
    refuse_backend,
    source_paths,
    tier_paths,
    usable,
    was_taken,
)
from squadmem.engine.intake_ledger import LEDGER_HEADER, TRAILER, Row, read_ledger
from squadmem.engine.intake_ledger import taken as _taken
from squadmem.engine.intake_ledger import tier_of as _tier_of
from squadmem.engine.planning import entries as entries_plan
from squadmem.engine.planning.entries import Placed
from squadmem.engine.planning.projection import Projection
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import clock, sections, squad, templates
from squadmem.model.settings import Settings

__all__ = ["Placed", "Result", "intake"]


@dataclasses.dataclass(frozen=True)
class Result:
    placed: tuple[Placed, ...]
    known: int  # entries already taken in
    dry_run: bool
    commit: writer.Made | None = None
    retired: tuple[str, ...] = ()  # Core Context versions sent to the archive
    warnings: tuple[str, ...] = ()
    recovered: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dry_run": self.dry_run,
            "taken": len(self.placed),
            "already_taken": self.known,
            "entries": [p.as_dict() for p in self.placed],
            "retired": list(self.retired),
            "warnings": list(self.warnings),
        }
        if self.commit is not None:
            data.update(self.commit.as_dict())
        return data

    def text(self) -> str:
        out = [f"squadmem: {self.recovered}"] if self.recovered else []
        if not self.placed:
            out.append(f"intake: nothing new in Squad's files ({self.known} entries already taken in)")
        else:
            verb = "would take in" if self.dry_run else "took in"
            out.append(f"intake: {verb} {len(self.placed)} entr{'y' if len(self.placed) == 1 else 'ies'}:")
            for target, count in _counts(self.placed).items():
                out.append(f"  {count:4d} -> {target}")
        out.extend(f"warning: {w}" for w in self.warnings)
        if self.commit is not None:
            out.append(f"{self.commit.sha[:7]} {self.commit.subject}")
        return "\n".join(out)


def _counts(placed: Iterable[Placed]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for p in placed:
        counts[p.target] = counts.get(p.target, 0) + 1
    return counts


# -- the command ----------------------------------------------------------------------------------


def _header(tier: str, name: str) -> str:
    return templates.tier_header(tier, name, workspace=False)


def _new_file(tier: str, name: str) -> str:
    """The text a tier file the intake creates starts with."""
    return _header(tier, name) + "\n"


def intake(
    repo: Repo,
    conf: Settings,
    now: dt.datetime,
    *,
    dry_run: bool = False,
    scribe: writer.Writer | None = None,
) -> Result:
    """Take in every entry of Squad's committed files not taken before: one commit, or none."""
    if scribe is None:
        with writer.session(repo) as own:
            return intake(repo, conf, now, dry_run=dry_run, scribe=own)
    refuse_backend(repo.root)
    tree = scribe.tree
    paths = source_paths(repo, scribe.head)
    entries, left_out = usable(read_entries(repo, scribe.objects, tree, paths))
    ledger_text = scribe.text(PLACES.ledger)
    rows = read_ledger(ledger_text)
    tier_texts = _tier_texts(repo, scribe)
    new, known = _not_taken(entries, _taken(rows, tier_texts))
    if not new:
        return Result((), known, dry_run, warnings=tuple(left_out), recovered=scribe.recovered)
    memory = catalog.from_texts({rel: text for rel, text in tier_texts.items() if text is not None}, PLACES)
    projection = Projection(memory, _new_file)
    placed = entries_plan.place(new, _first_seen(repo, new), conf, now, PLACES)
    old_cores = {r.key for r in rows if r.kind == "core"} - _live_cores(entries)  # hex
    placed, relocated, warnings = entries_plan.fit_hot(
        projection, placed, old_cores, conf, _last_use(repo, memory, now)
    )
    placed = entries_plan.paged(placed, projection)
    entries_plan.put(projection, placed)
    files = _changed(projection, placed, relocated)
    files[PLACES.ledger] = _ledger(ledger_text, placed)
    result = Result(
        tuple(placed),
        known,
        dry_run,
        retired=tuple(r.source for r in relocated if r.tier == "archive"),
        warnings=tuple([*left_out, *warnings]),
        recovered=scribe.recovered,
    )
    if dry_run:
        return result
    return dataclasses.replace(result, commit=_commit(repo, scribe, files, placed))


def _not_taken(
    entries: Iterable[squad.Entry], taken: set[tuple[str, bytes]]
) -> tuple[list[squad.Entry], int]:
    """The entries not taken in before (each owner's key once), and how many were."""
    new: list[squad.Entry] = []
    seen: set[tuple[str, bytes]] = set()
    known = 0
    for entry in entries:
        mark = (entry.owner, entry.key)
        if mark in seen:
            continue
        seen.add(mark)
        if entry.taken(was_taken(taken, entry.owner)):
            known += 1
            continue
        new.append(entry)
    return new, known


def _first_seen(repo: Repo, new: Sequence[squad.Entry]) -> dict[bytes, dt.datetime | None]:
    """Each entry's first commit whose Squad file held it (None: not in history)."""
    facts = history.read_facts(repo)
    return {e.key: (clock.from_epoch(facts.first[e.key][0]) if e.key in facts.first else None) for e in new}


def _live_cores(entries: Iterable[squad.Entry]) -> set[str]:
    """The keys (hex) of the Core Context sections a history.md holds now."""
    return {k.hex() for e in entries if e.kind == "core" and e.source.endswith("/history.md") for k in e.keys}


def _changed(
    projection: Projection, placed: Sequence[Placed], relocated: Sequence[entries_plan.Relocated]
) -> dict[str, str]:
    """The new text of every tier file the relocations and placements change, by path."""
    targets = [PLACES.tier_rel(r.tier, _tier_of(r.source)[1]) for r in relocated]
    changed = dict.fromkeys([*targets, *(p.target for p in placed), *(r.source for r in relocated)])
    return {rel: projection.text(rel) for rel in changed}


def _ledger(ledger_text: str | None, placed: Iterable[Placed]) -> str:
    """The ledger with a row for each entry placed."""
    ledger = ledger_text if ledger_text is not None else LEDGER_HEADER
    if ledger and not ledger.endswith("\n"):
        ledger += "\n"
    return ledger + "".join(
        Row(p.entry.key.hex(), p.entry.source, p.entry.kind, p.entry.title).line() for p in placed
    )


def _commit(
    repo: Repo, scribe: writer.Writer, files: dict[str, str], placed: Sequence[Placed]
) -> writer.Made:
    grown = _untouched_templates(repo, scribe, files)
    subject = f"memory: intake {len(placed)} Squad entr{'y' if len(placed) == 1 else 'ies'}"
    body = "\n".join(f"{count} -> {target}" for target, count in _counts(placed).items())
    return scribe.commit_files(files, subject, body, grown=grown, trailers=[(TRAILER, str(len(placed)))])


def _tier_texts(repo: Repo, scribe: writer.Writer) -> dict[str, str | None]:
    """Every tier file HEAD holds, by path."""
    return {rel: scribe.text(rel) for rel in tier_paths(repo, scribe.head)}


def _last_use(repo: Repo, memory: catalog.Memory, now: dt.datetime) -> entries_plan.LastUse:
    """A section text's last use (seconds; history's rule), for the sections of these tier files."""
    uses = lastuse.last_uses(repo, memory, now=now)
    when = {
        sections.normalize(e.text): (uses[e.id].when or now).timestamp()
        for e in memory.entries
        if e.id in uses
    }
    return lambda text: when.get(sections.normalize(text), now.timestamp())


def _untouched_templates(repo: Repo, scribe: writer.Writer, files: Mapping[str, str]) -> list[str]:
    """Files ``init`` created and nobody has committed or touched: safe to commit with the intake."""
    grown = []
    for rel in files:
        path = repo.root / rel
        if rel == PLACES.ledger or scribe.text(rel) is not None or not path.is_file():
            continue
        current = path.read_bytes().decode("utf-8", "replace")
        if files[rel].startswith(current) and current.strip() == _header(*_tier_of(rel)).strip():
            grown.append(rel)
    return grown
