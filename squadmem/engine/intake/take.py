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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from squadmem.engine import catalog, index
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
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import clock, render, sections, squad, templates
from squadmem.model.budget import hot_blob_over
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, classify
from squadmem.model.places import Places
from squadmem.model.settings import Settings

TOPIC = "decisions"
UNSUPPORTED_BACKENDS = ("orphan", "two-layer", "git-notes")


@dataclasses.dataclass(frozen=True)
class Placed:
    entry: squad.Entry
    tier: str
    name: str  # agent, or wiki topic
    when: dt.datetime | None  # first commit that held it

    @property
    def target(self) -> str:
        return PLACES.tier_rel(self.tier, self.name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "title": self.entry.title,
            "kind": self.entry.kind,
            "source": self.entry.source,
            "target": self.target,
            "first_seen": render.timestamp(self.when),
        }


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


# -- placement (pure) -----------------------------------------------------------------------------


class Projection:
    """Tier files as the intake commit will leave them; sections appended in one splice per file."""

    def __init__(self, read: Mapping[str, str | None], header: Any) -> None:
        self.read = read
        self.header = header
        self.added: dict[str, list[str]] = {}
        self.removed: dict[str, list[str]] = {}

    def base(self, rel: str, tier: str, name: str) -> str:
        text = self.read.get(rel)
        return text if text is not None else self.header(tier, name) + "\n"

    def text(self, rel: str, tier: str, name: str) -> str:
        text = self.base(rel, tier, name)
        for old in self.removed.get(rel, []):
            text, _ = index.remove(text, old)
        return _insert_many(text, self.added.get(rel, []), rel)

    def add(self, rel: str, section_text: str) -> None:
        self.added.setdefault(rel, []).append(section_text)

    def remove(self, rel: str, section_text: str) -> None:
        self.removed.setdefault(rel, []).append(section_text)


def _insert_many(text: str, new: Sequence[str], rel: str) -> str:
    """``text`` with ``new`` sections before its Index (or at the end), checked with one split."""
    try:
        return index.insert_many(text, new)
    except index.SpliceError:
        raise SquadmemError(
            f"{rel}: a Squad entry would not stay a section of its own there",
            hint="close the code fence or HTML block left open in the entry or the file, then run again",
        ) from None


def place(
    new: Sequence[squad.Entry],
    first_seen: Mapping[bytes, dt.datetime | None],
    conf: Settings,
    now: dt.datetime,
) -> list[Placed]:
    """Each new entry's tier, by its age, as ``maintain`` would put it (before the hot budget)."""
    placed = []
    for entry in new:
        when = first_seen.get(entry.key)
        if entry.decision:
            placed.append(Placed(entry, "wiki", TOPIC, when))
            continue
        if entry.kind == "core":
            placed.append(Placed(entry, "hot", entry.owner, when))
            continue
        age = now - (when or now)
        if age <= dt.timedelta(days=conf.hot.stale_days):
            tier = "hot"
        elif age <= dt.timedelta(days=conf.cold.ttl_days):
            tier = "cold"
        else:
            tier = "archive"
        placed.append(Placed(entry, tier, entry.owner, when))
    return placed


# -- the command ----------------------------------------------------------------------------------


def _header(tier: str, name: str) -> str:
    return templates.tier_header(tier, name, workspace=False)


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
    placed = place(new, _first_seen(repo, new), conf, now)
    live = _live_cores(entries)
    placed, relocated, warnings = _fit(placed, tier_texts, rows, live, conf, _last_use(repo, tier_texts, now))
    placed = _paged(placed, tier_texts, PLACES)
    files = _projected(tier_texts, placed, relocated)
    files[PLACES.ledger] = _ledger(ledger_text, placed)
    result = Result(
        tuple(placed),
        known,
        dry_run,
        retired=tuple(rel for rel, _, tier in relocated if tier == "archive"),
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


def _projected(
    tier_texts: Mapping[str, str | None], placed: Sequence[Placed], relocated: Sequence[tuple[str, str, str]]
) -> dict[str, str]:
    """The new text of every tier file the relocations and placements change, by path."""
    projection = Projection(tier_texts, _header)
    for rel, text, tier in relocated:
        projection.remove(rel, text)
        projection.add(PLACES.tier_rel(tier, _tier_of(rel)[1]), text)
    for p in placed:
        projection.add(p.target, p.entry.text)
    files = {}
    for rel in list(dict.fromkeys([*projection.added, *projection.removed])):
        tier, name = _tier_of(rel)
        files[rel] = projection.text(rel, tier, name)
    return files


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


PAGE_BYTES = MAX_FILE_BYTES // 2  # a decisions page fills to this, then the next one starts


def _paged(placed: list[Placed], texts: Mapping[str, str | None], places: Places) -> list[Placed]:
    """Decisions onto the wiki pages ``decisions``, ``decisions-2``, …: each new one on the last page
    while that stays within :data:`PAGE_BYTES`, else on a new page.

    Some teams' ``decisions.md`` alone is over 1 MiB, the most a tier file may hold;
    half of that per page leaves room for what moves back later.
    """
    pages: dict[int, int] = {}
    for rel, text in texts.items():
        tf = classify(rel, places)
        if tf is not None and tf.tier == "wiki" and text is not None and (n := _page_number(tf.name)):
            pages[n] = len(text.encode("utf-8"))
    page = max(pages, default=1)
    size = pages.get(page, len((_header("wiki", TOPIC) + "\n").encode("utf-8")))
    out = []
    for p in placed:
        if p.tier != "wiki" or p.name != TOPIC:
            out.append(p)
            continue
        grown = len(p.entry.text.encode("utf-8")) + 1
        if size + grown > PAGE_BYTES and size > len(_header("wiki", _page_name(page)).encode("utf-8")) + 1:
            page += 1
            size = len((_header("wiki", _page_name(page)) + "\n").encode("utf-8"))
        size += grown
        out.append(dataclasses.replace(p, name=_page_name(page)))
    return out


def _page_name(number: int) -> str:
    return TOPIC if number == 1 else f"{TOPIC}-{number}"


def _page_number(topic: str) -> int | None:
    if topic == TOPIC:
        return 1
    head, _, tail = topic.rpartition("-")
    return int(tail) if head == TOPIC and tail.isdigit() and int(tail) > 1 else None


def _tier_texts(repo: Repo, scribe: writer.Writer) -> dict[str, str | None]:
    """Every tier file HEAD holds, by path."""
    return {rel: scribe.text(rel) for rel in tier_paths(repo, scribe.head)}


def _last_use(repo: Repo, texts: Mapping[str, str | None], now: dt.datetime) -> Callable[[str], float]:
    """A section text's last use (seconds; history's rule), for the sections of these tier files."""
    memory = catalog.from_texts({rel: text for rel, text in texts.items() if text is not None}, PLACES)
    uses = lastuse.last_uses(repo, memory, now=now)
    when = {
        sections.normalize(e.text): (uses[e.id].when or now).timestamp()
        for e in memory.entries
        if e.id in uses
    }
    return lambda text: when.get(sections.normalize(text), now.timestamp())


def _room(text: str, wanted: str, rel: str, conf: Settings, last_use: Callable[[str], float]) -> list[str]:
    """Hot sections to send to cold, least recently used first, so that ``wanted`` fits; [] if none can."""
    movable = [
        s
        for s in index.split(text).sections
        if not s.flags.pin and not index.is_index(s) and s.raw_heading.strip() != catalog.SESSION_TITLE
    ]
    movable.sort(key=lambda s: last_use(s.text))
    out: list[str] = []
    for section in movable:
        text, _ = index.remove(text, section.text)
        out.append(section.text)
        if not hot_blob_over(_insert_many(text, [wanted], rel).encode("utf-8"), conf.hot):
            return out
    return []


def _fit(
    placed: list[Placed],
    texts: Mapping[str, str | None],
    rows: Sequence[Row],
    live: set[str],
    conf: Settings,
    last_use: Callable[[str], float],
) -> tuple[list[Placed], list[tuple[str, str, str]], list[str]]:
    """Hot within its budget: Core Context first, then the newest entries; the rest go to cold.

    A newer Core Context retires the older ones in hot and cold (to the archive; not one that a
    history.md still holds: some agents keep two), and when it
    does not fit, hot's least recently used sections make room for it (to
    cold): the spawn always carries Core Context. Returns the placements, the
    (hot file, section text, tier it goes to) relocations, and warnings.
    """
    moves = _Moves()
    old_cores = {r.key for r in rows if r.kind == "core"} - live  # hex; ``live``: still in a history.md
    for agent, candidates in _hot_by_agent(placed).items():
        rel = PLACES.tier_rel("hot", agent)
        text = texts.get(rel)
        text = text if text is not None else _header("hot", agent) + "\n"
        if any(p.entry.kind == "core" for p in candidates):
            candidates, text = _retire_cores(
                agent, candidates, text, texts.get(PLACES.tier_rel("cold", agent)), old_cores, moves
            )
        _fill_hot(rel, text, _cores_then_newest(candidates), conf, last_use, moves)
    return [moves.moved.get(id(p), p) for p in placed], moves.relocated, moves.warnings


@dataclasses.dataclass(frozen=True)
class _Moves:
    """What fitting hot decides, as it goes."""

    moved: dict[int, Placed] = dataclasses.field(default_factory=dict)  # id of a placement -> its new one
    relocated: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)  # (file, text, tier)
    warnings: list[str] = dataclasses.field(default_factory=list)


def _hot_by_agent(placed: Iterable[Placed]) -> dict[str, list[Placed]]:
    by_agent: dict[str, list[Placed]] = {}
    for p in placed:
        if p.tier == "hot":
            by_agent.setdefault(p.name, []).append(p)
    return by_agent


def _retire_cores(
    agent: str,
    candidates: list[Placed],
    text: str,
    cold_text: str | None,
    old_cores: set[str],
    moves: _Moves,
) -> tuple[list[Placed], str]:
    """The hot candidates without Core Context versions older than the current ones, and hot's ``text``
    without the Core Context sections ``old_cores`` replaces; both the older new ones and the
    replaced ones in hot and cold go to the archive."""
    rel = PLACES.tier_rel("hot", agent)
    cores = [p for p in candidates if p.entry.kind == "core"]
    current = _current(cores)
    for p in cores:  # an older version taken in with it (history-archive.md's) goes to the archive
        if p not in current:
            moves.moved[id(p)] = dataclasses.replace(p, tier="archive")
    for section in index.split(text).sections:
        if sections.content_key(section.text).hex() in old_cores:
            moves.relocated.append((rel, section.text, "archive"))
            text, _ = index.remove(text, section.text)
    cold = PLACES.tier_rel("cold", agent)  # one too large for hot waited there
    for section in index.split(cold_text or "").sections:
        if sections.content_key(section.text).hex() in old_cores:
            moves.relocated.append((cold, section.text, "archive"))
    return [p for p in candidates if p in current or p.entry.kind != "core"], text


def _cores_then_newest(candidates: Iterable[Placed]) -> list[Placed]:
    return sorted(
        candidates,
        key=lambda p: (
            p.entry.kind != "core",
            -(p.when or dt.datetime.max.replace(tzinfo=dt.UTC)).timestamp(),
        ),
    )


def _fill_hot(
    rel: str,
    text: str,
    ordered: Iterable[Placed],
    conf: Settings,
    last_use: Callable[[str], float],
    moves: _Moves,
) -> None:
    """Each entry into hot's ``text`` while it stays within budget, else to cold; Core Context makes
    room by sending hot's least recently used sections to cold."""
    for p in ordered:
        trial = _insert_many(text, [p.entry.text], rel)
        if not hot_blob_over(trial.encode("utf-8"), conf.hot):
            text = trial
            continue
        if p.entry.kind == "core":
            evicted = _room(text, p.entry.text, rel, conf, last_use)
            if evicted:
                for old in evicted:
                    text, _ = index.remove(text, old)
                    moves.relocated.append((rel, old, "cold"))
                text = _insert_many(text, [p.entry.text], rel)
                continue
            moves.warnings.append(
                f"{p.entry.source}: {p.entry.title} does not fit in {rel} "
                f"({len(p.entry.text.encode())} bytes); kept in cold: shorten it in Squad's file"
            )
        moves.moved[id(p)] = dataclasses.replace(p, tier="cold")


def _current(cores: list[Placed]) -> list[Placed]:
    """An agent's current Core Context sections among new ones: every one in history.md (some agents
    keep two, and Squad loads both), else the newest of its archive's."""
    live = [p for p in cores if p.entry.source.endswith("/history.md")]
    if live:
        return live
    newest = max(cores, key=lambda p: p.when.timestamp() if p.when is not None else float("inf"))
    return [newest]


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
