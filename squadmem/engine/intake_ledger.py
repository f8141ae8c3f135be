"""The intake ledger and what counts as taken in: one home for ``intake`` and ``verify``.

``intake`` records each Squad entry it takes into the tiers in the ledger
(``.squad/memory/intake.tsv``: key, source, kind, title) and commits with a
``Squad-Memory-Intake`` trailer; ``verify`` proves such a commit changed only
tier files and the ledger, and added only sections that are entries of
Squad's files in that very tree. Both count a tier file's sections as its
owner's: its agent, or ``decisions`` for any wiki page.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from squadmem.engine import index
from squadmem.model import constants, sections, squad

LEDGER_HEADER = (
    "# squadmem intake ledger: one line per Squad entry taken into the tiers "
    "(key, source, kind, title). Written by squadmem; do not edit.\n"
)
TRAILER = constants.INTAKE_TRAILER


@dataclasses.dataclass(frozen=True)
class Row:
    key: str
    source: str
    kind: str
    title: str

    def line(self) -> str:
        clean = " ".join(self.title.split())
        return f"{self.key}\t{self.source}\t{self.kind}\t{clean}\n"


def read_ledger(text: str | None) -> list[Row]:
    rows = []
    for line in (text or "").splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t", 3)
        if len(parts) == 4:
            rows.append(Row(*parts))
    return rows


def owner(tier: str, name: str) -> str:
    """Whose entries a tier file holds: its agent, or "decisions" for any wiki page."""
    return "decisions" if tier == "wiki" else name


def tier_of(rel: str) -> tuple[str, str]:
    """A tier file's tier and name, from its path."""
    parts = rel.split("/")
    return parts[-2], parts[-1].removesuffix(".md")


def taken(rows: Sequence[Row], texts: Mapping[str, str | None]) -> set[tuple[str, bytes]]:
    """(owner, key) of every entry taken in: listed in the ledger, or already a section of a tier file."""
    found = set()
    for row in rows:
        source_owner = squad.source_owner(row.source)
        if source_owner is not None:
            with contextlib.suppress(ValueError):
                found.add((source_owner, bytes.fromhex(row.key)))
    for rel, text in texts.items():
        if text is not None:
            whose = owner(*tier_of(rel))
            found.update((whose, sections.content_key(s.text)) for s in index.split(text).sections)
    return found


def entry_keys(files: Iterable[tuple[str, str]]) -> set[tuple[str, bytes]]:
    """(owner, key) of every entry of Squad's files, given as (path, text); a file whose
    squadmem comment does not parse gives none."""
    found: set[tuple[str, bytes]] = set()
    for rel, text in files:
        with contextlib.suppress(sections.FlagError):
            found.update((e.owner, key) for e in squad.entries(rel, text) for key in e.keys)
    return found
