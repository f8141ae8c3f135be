"""``verify``'s check of an intake commit: it only adds sections, each an entry of Squad's files there.

What counts as taken in, and the ledger the commit may change, are
:mod:`squadmem.engine.intake_ledger`'s, as ``intake`` writes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from squadmem.engine import catalog, intake_ledger
from squadmem.engine.verify.range import Commit, Store
from squadmem.model import sections, squad


class IntakeCheck:
    """An intake commit only adds sections, and each one it adds is an entry of Squad's files there."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def run(self, commit: Commit) -> list[tuple[str, str]]:
        problems = [
            (c.path, "changed by an intake commit, which may change only tier files and the intake ledger")
            for c in commit.changes
            if self.store.tier_file(commit.tree, c.path) is None
            and c.path != self.store.places_of(commit.tree).ledger
        ]
        if not commit.parents:
            return [*problems, ("-", "an intake commit needs a parent")]
        before = self.sections(self.store.tree_of(commit.parents[0]))
        after = self.sections(commit.tree)
        entries = self.entries(commit.tree)
        for (owner, key), count in (before - after).items():
            problems.append((owner, f"an intake commit removed {count} section(s) ({key.hex()[:12]})"))
        for (owner, key), _ in (after - before).items():
            if (owner, key) not in entries:
                problems.append(
                    (owner, f"added a section ({key.hex()[:12]}) that is no entry of Squad's files here")
                )
        return problems

    def sections(self, tree: str) -> Counter[tuple[str, bytes]]:
        """(owner, content key) of every section but the Index, counted: owner is the agent or "decisions"."""
        found: Counter[tuple[str, bytes]] = Counter()
        for rel, sha in self.store.tier_files(tree).items():
            tf = self.store.tier_file(tree, rel)
            if tf is None:
                continue
            owner = intake_ledger.owner(tf.tier, tf.name)
            text = self.store.read(sha).decode("utf-8", "surrogateescape")
            try:
                doc = sections.split(text)
            except sections.FlagError:
                continue
            found.update((owner, sections.content_key(s.text)) for s in doc.sections if not index_section(s))
        return found

    def entries(self, tree: str) -> set[tuple[str, bytes]]:
        """(owner, key) of every entry of the Squad files in ``tree``."""
        read = self.store.read
        return intake_ledger.entry_keys(
            (rel, read(sha).decode("utf-8", "replace")) for rel, sha in self.squad_files(tree)
        )

    def squad_files(self, tree: str) -> Iterator[tuple[str, str]]:
        """(path, blob) of Squad's memory files in ``tree``."""
        top = self.subtree(tree, ".squad")
        if top is None:
            return
        listing = self.store.entries(top)
        for name, (mode, sha) in listing.items():
            if mode.startswith("100") and squad.is_source(f".squad/{name}"):
                yield f".squad/{name}", sha
        agents = listing.get("agents")
        if agents and agents[0] == "40000":
            yield from self.agent_files(agents[1])
        inbox = self.subtree(tree, squad.INBOX_DIR)
        if inbox is not None:
            for name, (mode, sha) in self.store.entries(inbox).items():
                rel = f"{squad.INBOX_DIR}/{name}"
                if mode.startswith("100") and squad.is_source(rel):
                    yield rel, sha

    def agent_files(self, agents: str) -> Iterator[tuple[str, str]]:
        """(path, blob) of Squad's files under ``.squad/agents/`` (its tree object ``agents``)."""
        for agent, (mode, sha) in self.store.entries(agents).items():
            if mode != "40000":
                continue
            for name, (file_mode, blob) in self.store.entries(sha).items():
                rel = f".squad/agents/{agent}/{name}"
                if file_mode.startswith("100") and squad.is_source(rel):
                    yield rel, blob

    def subtree(self, tree: str, path: str) -> str | None:
        node: str | None = tree
        for part in path.split("/"):
            entry = self.store.entries(node).get(part) if node else None
            node = entry[1] if entry and entry[0] == "40000" else None
        return node


def index_section(section: sections.Section) -> bool:
    return section.raw_heading.strip() == catalog.INDEX_TITLE
