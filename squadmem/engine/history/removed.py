"""``recall --history``: sections that left every tier, found in history, with the command that restores them.

The streamed pass that dates sections (``history.read_facts``, cached in
``.git/squadmem/history-cache``) also keeps, per owner and heading, the
latest time that heading left a tier file: the commit it left in, the
commit before (which likely last held it), a commit sure to hold it and the
blob that held it. A heading that no tier file has now is a removed section
(deleted, or lost to a bad merge); its text is read from that blob, matched
against the query as ``recall`` matches, and its id is taken from the
owner's files at the commit that held it, so ``squadmem restore ID --at REV``
finds it there.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from squadmem.engine import catalog, titles
from squadmem.engine.history import facts
from squadmem.engine.history import stream as history
from squadmem.gitio import commits
from squadmem.gitio.repo import Repo
from squadmem.model import render, sections
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import AGENT_TIERS, classify
from squadmem.model.places import Places


@dataclasses.dataclass(frozen=True)
class Removed:
    id: str
    title: str
    tier: str
    file: str
    score: int
    line: str
    commit: str  # the last commit known to hold it
    held: dt.datetime
    removed_in: str
    removed: dt.datetime

    @property
    def restore(self) -> str:
        return f"squadmem restore {self.id} --at {self.commit[:12]}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "file": self.file,
            "score": self.score,
            "line": self.line,
            "commit": self.commit,
            "removed_in": self.removed_in,
            "removed": render.timestamp(self.removed),
            "restore": self.restore,
        }


def _objects(repo: Repo, names: Sequence[str]) -> dict[str, bytes]:
    """Name -> content for each ``rev:path`` or sha git has, through one ``cat-file --batch``."""
    return {name: data for name, data in repo.blobs(names) if data is not None}


def _owner_paths(path: str, places: Places) -> list[str]:
    tf = classify(path, places)
    if tf is None or tf.tier == "wiki":
        return [path]
    return [places.tier_rel(tier, tf.name) for tier in AGENT_TIERS]


def _key(entry: catalog.Entry, places: Places) -> str:
    return facts.heading_key(entry.file, places, entry.text.splitlines()[0] if entry.text else "")


def search(
    repo: Repo,
    memory: catalog.Memory,
    terms: list[str],
    score: Callable[[_Candidate, list[str]], int],
    first_line: Callable[[str, list[str]], str],
    *,
    agent: str | None = None,
    tier: str | None = None,
    limit: int = 5,
) -> tuple[list[Removed], int]:
    """The best ``limit`` removed sections matching ``terms`` (``score`` > 0), and how many more match."""
    read = history.read_facts(repo)
    places = memory.places
    present = {_key(e, places) for e in memory.entries}
    contents = {sections.content_key(e.text) for e in memory.entries}
    gone = {
        k: v
        for k, v in read.gone.items()
        if k not in present and (agent is None or _agent_of(v[5], places) in (agent, None))
    }
    texts = _objects(repo, sorted({v[4] for v in gone.values()}))
    decoded: dict[str, str] = {}
    matched: list[tuple[int, facts.Departure, _Candidate]] = []
    for key, departure in gone.items():
        blob, path, start, end = departure[4:8]
        if blob not in decoded:
            decoded[blob] = texts.get(blob, b"").decode("utf-8", "replace")
        section = decoded[blob][start:end]
        if not section or not all(t in section.casefold() for t in terms):
            continue
        if facts.heading_key(path, places, section.splitlines()[0]) != key:
            continue  # not the version the cache describes
        candidate = _Candidate(section, titles.plain(_heading_text(section)))
        if sections.content_key(section) in contents:
            continue
        points = score(candidate, terms)
        if points:
            matched.append((points, departure, candidate))
    matched.sort(key=lambda m: (-m[0], -m[1][0], m[2].title))
    shown = []
    for points, departure, candidate in matched:
        entry = next(iter(_entries({departure[5]: candidate.text.encode("utf-8")}, places)), None)
        if entry is None or entry.is_index or (tier and entry.tier != tier):
            continue
        shown.append(_located(repo, points, departure, entry, first_line(entry.text, terms)))
        if len(shown) == limit:
            break
    return shown, len(matched) - len(shown)


@dataclasses.dataclass(frozen=True)
class _Candidate:
    text: str
    title: str


def _heading_text(section: str) -> str:
    first = section.splitlines()[0] if section else ""
    return first.lstrip("#").strip().rstrip("#").strip() if first.startswith("#") else first.strip()


def _entries(blobs: dict[str, bytes], places: Places) -> list[catalog.Entry]:
    try:
        return list(catalog.from_blobs(blobs, places).entries)
    except SquadmemError:
        return []


def _agent_of(path: str, places: Places) -> str | None:
    tf = classify(path, places)
    return None if tf is None or tf.tier == "wiki" else tf.name


def _located(repo: Repo, points: int, departure: facts.Departure, entry: catalog.Entry, line: str) -> Removed:
    """The hit with the commit that last held it and its id there."""
    time, left_in, parent, sure, _, path, _, _ = departure
    holder = sure
    if parent:
        name = f"{parent}:{path}"
        there = _objects(repo, [name]).get(name)
        if there is not None and entry.text in there.decode("utf-8", "replace"):
            holder = parent
    places = repo.layout.places
    owner = {p: f"{holder}:{p}" for p in _owner_paths(path, places)}
    files = _objects(repo, list(owner.values()))
    ident = entry.id
    if not entry.section.flags.id and _namesakes(entry, files.values()) != 1:
        wanted = sections.content_key(entry.text)
        at = _entries({p: files[n] for p, n in owner.items() if n in files}, places)
        ident = next((e.id for e in at if sections.content_key(e.text) == wanted), entry.id)
    held = dt.datetime.fromtimestamp(commits.commit_time(repo, holder), dt.UTC)
    return Removed(
        ident,
        entry.title,
        entry.tier,
        path,
        points,
        line,
        holder,
        held,
        left_in,
        dt.datetime.fromtimestamp(time, dt.UTC),
    )


def _namesakes(entry: catalog.Entry, files: Iterable[bytes]) -> int:
    """How many ``##`` lines of the owner's files give ``entry``'s slug (1: its id has no suffix)."""
    slug = entry.id.rsplit("/", 1)[1]
    count = 0
    for raw in files:
        for line in raw.decode("utf-8", "replace").splitlines():
            if (
                line.startswith("## ")
                and sections.slugify(titles.plain(line[3:].strip().rstrip("#"))) == slug
            ):
                count += 1
    return count
