"""Squad's memory files as a commit holds them: the team's backend, its entries, what waits to be taken in.

What ``intake`` reads, and what ``doctor``, ``report``, ``spawn``, ``init`` and ``migrate``
ask of a Squad team before or beside it: whether the repository holds Squad memory
squadmem can read (its state backend), the entries of Squad's files in a commit
(:mod:`squadmem.model.squad`), which of them a tier file can hold, and how many are
not taken in yet (:mod:`squadmem.engine.intake_ledger`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from squadmem.engine.intake_ledger import read_ledger
from squadmem.engine.intake_ledger import taken as ledger_taken
from squadmem.gitio import questions
from squadmem.gitio.objects import Objects
from squadmem.gitio.repo import Repo
from squadmem.model import jsontext, sections, squad, writes
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import check_name, classify
from squadmem.model.places import SQUAD_PLACES

# Squad's entries are taken into the Squad layout's tier files (``.squad/memory/``) and its ledger.
PLACES = SQUAD_PLACES
UNSUPPORTED_BACKENDS = ("orphan", "two-layer", "git-notes")


def backend(root: Path) -> str:
    """Squad's state backend (``.squad/config.json``), "local" when it says nothing."""
    try:
        data = jsontext.loads(writes.read_state(root / ".squad" / "config.json"))  # a FIFO is never read
    except FileNotFoundError:
        return "local"
    except (OSError, ValueError) as exc:
        _unread_config(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return "local"
    value = data.get("stateBackend") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else "local"


@functools.cache
def _unread_config(why: str) -> None:
    """Say once that ``.squad/config.json`` could not be read (its backend is then taken as local)."""
    print(
        f"squadmem: warning: .squad/config.json: unreadable ({why}); read as the local backend",
        file=sys.stderr,
    )


def has_squad_memory(root: Path) -> bool:
    """Whether ``root`` holds Squad memory intake reads: ``.squad/agents/``, a decision file or the
    inbox (a ``.squad/`` with decisions and no ``agents/`` is a team too: its decisions are taken in)."""
    return any((root / rel).exists() for rel in (squad.AGENTS_DIR, *squad.DECISION_FILES, squad.INBOX_DIR))


def is_squad_team(root: Path) -> bool:
    """A Squad team whose memory intake can read: Squad memory and a backend squadmem reads."""
    return has_squad_memory(root) and backend(root) not in UNSUPPORTED_BACKENDS


def refuse_backend(root: Path) -> None:
    kind = backend(root)
    if kind in UNSUPPORTED_BACKENDS:
        raise SquadmemError(
            f".squad/config.json: Squad's state backend is {kind!r}: its histories and decisions live on "
            "the squad-state branch, which squadmem does not read",
            hint="squadmem takes in Squad's memory with the 'local' backend only; "
            "use `squad init --state-backend local`, or keep squadmem's tiers without intake",
        )


def discover_agents(root: Path) -> tuple[list[str], list[str]]:
    """Agent names from ``.squad/agents/*/``: (valid, refused)."""
    folder = root / ".squad" / "agents"
    if not folder.is_dir():
        return [], []
    valid, refused = [], []
    for child in sorted(folder.iterdir()):
        if not child.is_dir():
            continue
        try:
            valid.append(check_name(child.name))
        except SquadmemError:
            refused.append(child.name)
    return valid, refused


def source_paths(repo: Repo, commit: str) -> list[str]:
    """Squad's memory files in ``commit``'s tree, sorted."""
    paths = questions.tree_paths(repo.git, commit, [squad.AGENTS_DIR, *squad.DECISION_FILES, squad.INBOX_DIR])
    return sorted(p for p in paths if squad.is_source(p))


def read_entries(repo: Repo, objects: Objects, tree: str, paths: Sequence[str]) -> list[squad.Entry]:
    found: list[squad.Entry] = []
    for rel in paths:
        owner = squad.source_owner(rel)
        if owner is None or (owner != "decisions" and not _agent_ok(owner)):
            continue
        data = objects.content(tree, rel)
        if data is None:
            continue
        text = data.decode("utf-8", "replace")
        try:
            found.extend(squad.entries(rel, text))
        except sections.FlagError as exc:
            raise SquadmemError(
                f"{rel}: {exc}", hint="fix the <!-- squadmem: ... --> comment in Squad's file"
            ) from None
    return found


def usable(entries: Iterable[squad.Entry]) -> tuple[list[squad.Entry], list[str]]:
    """The entries a tier file can hold, and a warning for each left out.

    An entry holding a NUL byte is not text, and one whose open block no closing line
    closes (:attr:`squad.Entry.left_open`) would swallow the sections after it. Either is left
    out, not recorded as taken in, and taken in once fixed in Squad's file; the
    rest of the intake goes on.
    """
    kept: list[squad.Entry] = []
    warnings: list[str] = []
    for entry in entries:
        if "\0" in entry.text:
            why = "holds a NUL byte"
        elif entry.left_open:
            why = "leaves a code fence or HTML block open"
        else:
            kept.append(entry)
            continue
        warnings.append(
            f"{entry.source}: entry {entry.title!r} {why}; left out until it is fixed in Squad's file"
        )
    return kept, list(dict.fromkeys(warnings))


def _agent_ok(name: str) -> bool:
    try:
        check_name(name)
    except SquadmemError:
        return False
    return True


def was_taken(taken: set[tuple[str, bytes]], owner: str) -> Callable[[bytes], bool]:
    """Whether ``owner``'s entry with a key was taken in."""
    return lambda key: (owner, key) in taken


def pending_count(repo: Repo) -> int:
    """How many committed Squad entries are not taken in yet (0 outside a Squad team)."""
    head = questions.head(repo.git)
    if head is None or not (repo.root / ".squad").is_dir() or backend(repo.root) in UNSUPPORTED_BACKENDS:
        return 0
    objects = Objects(repo)
    tree = objects.tree_of(head)
    paths = source_paths(repo, head)
    if not paths:
        return 0
    entries, _ = usable(read_entries(repo, objects, tree, paths))

    def text(rel: str) -> str | None:
        data = objects.content(tree, rel)
        return None if data is None else data.decode("utf-8", "replace")

    taken = ledger_taken(read_ledger(text(PLACES.ledger)), {rel: text(rel) for rel in tier_paths(repo, head)})
    waiting = {(e.owner, e.key) for e in entries if not e.taken(was_taken(taken, e.owner))}
    return len(waiting)


def tier_paths(repo: Repo, head: str) -> list[str]:
    """Every tier file in ``head``'s tree."""
    return [
        r for r in questions.tree_paths(repo.git, head, PLACES.pathspecs) if classify(r, PLACES) is not None
    ]
