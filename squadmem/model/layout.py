"""Where tiers live, and the safety of names and paths.

Standard library only. Which repository path holds what is the work tree's
:mod:`squadmem.model.places` (``.squad/memory/``, or a memory-tiers workspace
in place); :func:`tier_rel` and :func:`classify` ask the current places.
Every path squadmem writes goes through :func:`Layout.tier_path` /
:func:`Layout.log_path`, which refuse names that could escape the memory's
folder and paths that a symlink leads outside it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from squadmem.model import places as where
from squadmem.model import settings as tiers_toml
from squadmem.model.errors import SquadmemError
from squadmem.model.values import Value

TYPE_CHECKING = False  # the hooks classify paths with this module: no typing, no pathlib at run time
if TYPE_CHECKING:
    from pathlib import Path

MEMORY_DIR = where.SQUAD_DIR  # the Squad layout's folder (a workspace's places differ: see places)
TIERS = where.TIERS
AGENT_TIERS = ("hot", "cold", "archive")
LOG_DIR = "log"
MAX_FILE_BYTES = 1024 * 1024  # a tier file or daily log squadmem reads or writes
MAX_NAME = 100  # characters in an agent, topic or id= name (file names stay far below 255 bytes)
# Squad's own files in .squad/memory/: squadmem never writes, moves or deletes them.
SQUAD_OWNED = (
    "local",
    "policy-inbox",
    "semantic-inbox",
    "tombstones",
    "config.json",
    "index.json",
    "audit.jsonl",
)

# Squad's files squadmem writes its spawn blocks into (squadmem.model.spawnblock): the only paths
# outside .squad/memory/ a squadmem commit may write, and only through no symlink.
SPAWN_FILES = (
    ".squad/templates/spawn-reference.md",
    ".github/agents/squad.agent.md",
    ".github/skills/tiered-memory/SKILL.md",
)

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_LOG_NAME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\.md")  # ASCII digits only (\d is any digit)


def is_name(name: str) -> bool:
    """A safe agent, topic or ``id=`` name: ``[A-Za-z0-9][A-Za-z0-9._-]*``, no ``..``, at most 100."""
    return len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None and ".." not in name


def check_name(name: str, what: str = "agent") -> str:
    """Return ``name`` if it is a safe agent or topic name, else raise."""
    if not is_name(name):
        shown = name.encode("unicode_escape", "backslashreplace").decode("ascii")
        if len(shown) > 60:
            shown = f"{shown[:40]}...({len(name)} characters)"
        raise SquadmemError(
            f"invalid {what} name {shown!r}",
            hint=f"{what} names are letters, digits, '.', '_' and '-', starting with a letter or digit,"
            f" at most {MAX_NAME} characters",
        )
    return name


def parse_log_name(name: str) -> dt.date | None:
    """The date a log file name stands for, or None if it is not a real date."""
    match = _LOG_NAME.fullmatch(name)
    if not match:
        return None
    try:
        return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


class TierFile(Value):
    """One tier file: its tier, its owner name (agent or wiki topic) and its path."""

    __slots__ = ("name", "rel", "tier")

    def __init__(self, tier: str, name: str, rel: str) -> None:
        self.tier = tier
        self.name = name
        self.rel = rel  # path relative to the repository root, with forward slashes

    @property
    def owner(self) -> str:
        return f"wiki:{self.name}" if self.tier == "wiki" else self.name


def tier_rel(tier: str, name: str) -> str:
    """The repository path of ``name``'s ``tier`` file, in the current places."""
    return where.current().tier_rel(tier, name)


def classify(rel: str) -> TierFile | None:
    """The tier file a repository path is, or None (logs, settings, Squad's files), in the current places."""
    found = where.current().split(rel)
    if found is None or not is_name(found[1]):
        return None
    return TierFile(found[0], found[1], rel)


class Layout:
    """The memory layout of one repository work tree (equal when the roots are)."""

    __slots__ = ("_settings", "places", "root")

    def __init__(self, root: Path) -> None:
        self.root = root  # the work tree's top level
        self.places = where.bind(root)  # .squad/memory/, or a memory-tiers workspace in place
        self._settings: tiers_toml.Settings | None = None

    def __eq__(self, other: object) -> bool:
        return type(other) is Layout and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def __repr__(self) -> str:
        return f"Layout(root={self.root!r})"

    @property
    def memory(self) -> Path:
        """The folder of squadmem's own files (tiers.toml, the ledger): ``.squad/memory`` or ``memory``."""
        return self.root / self.places.base

    @property
    def log_folder(self) -> Path:
        """The folder of the daily logs: ``.squad/memory/log``, or a workspace's ``memory``."""
        return self.root / self.places.log_prefix.rstrip("/")

    @property
    def settings(self) -> tiers_toml.Settings:
        """``tiers.toml``, read once for this layout (a command's): whatever asks gets the same object."""
        if self._settings is None:
            self._settings = tiers_toml.load(self.memory)
        return self._settings

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def inside(self, path: Path) -> Path:
        """``path`` itself, if it resolves inside the memory's folder (``.squad/memory/``; in a
        workspace ``memory/``, or ``MEMORY.md`` itself) with symlinks followed; else raise."""
        top = self.root.resolve()
        memory = top / self.places.base
        for candidate in (self.memory, path):
            resolved = candidate.resolve()
            if resolved != memory and memory not in resolved.parents and not self._top_file(candidate, top):
                raise SquadmemError(
                    f"{self.rel(candidate)}: leads outside {self.places.base}/ (symlink to {resolved})",
                    hint=f"replace the symlink with a regular file or folder inside {self.places.base}/",
                )
        return path

    def _top_file(self, path: Path, top: Path) -> bool:
        """A workspace's ``MEMORY.md``, reached through no symlink."""
        rel = where.WORKSPACE_FILES["hot"]
        return (
            self.places.kind == where.WORKSPACE
            and path == self.root / rel
            and not path.is_symlink()
            and path.resolve() == top / rel
        )

    def writable(self, path: Path) -> Path:
        """``path`` if squadmem may write it: inside .squad/memory/, or one of Squad's spawn files
        reached through no symlink."""
        rel = self.rel(path)
        if rel not in SPAWN_FILES:
            return self.inside(path)
        try:
            direct = path.resolve() == self.root.resolve() / rel
        except (OSError, RuntimeError):  # a symlink loop
            direct = False
        if not direct:
            raise SquadmemError(
                f"{rel}: a symlink; squadmem writes Squad's spawn files only as regular files",
                hint="replace the symlink with the file itself",
            )
        return path

    def tier_path(self, tier: str, name: str) -> Path:
        if tier not in TIERS:
            raise SquadmemError(f"unknown tier {tier!r}", hint=f"tiers are {', '.join(TIERS)}")
        check_name(name, "topic" if tier == "wiki" else "agent")
        return self.inside(self.root / self.places.tier_rel(tier, name))

    def log_path(self, day: dt.date) -> Path:
        return self.inside(self.root / self.places.log_rel(day.isoformat()))

    def tier_files(self) -> list[TierFile]:
        """Every tier file present in the work tree, sorted by tier order then name."""
        found: list[TierFile] = []
        for folder_rel in self.places.tier_folders:
            folder = self.root / folder_rel if folder_rel else self.root
            if not folder.is_dir():
                continue
            if folder_rel:
                self.inside(folder)
            for path in sorted(folder.glob("*.md")):
                tf = classify(self.rel(path))
                if tf is not None:
                    self.inside(path)
                    found.append(tf)
        return sorted(found, key=lambda tf: TIERS.index(tf.tier))

    def read_tier(self, tf: TierFile) -> str:
        """A tier file's text, refusing what squadmem cannot handle losslessly."""
        path = self.inside(self.root / tf.rel)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return ""
        return decode_tier(raw, tf.rel)

    def agents(self) -> list[str]:
        return sorted({tf.name for tf in self.tier_files() if tf.tier in AGENT_TIERS})

    def require_agent(self, name: str) -> str:
        """``name`` if an agent of this name has tier files here; else exit 2 listing the agents here."""
        return known_agent(name, self.agents())


def known_agent(name: str, known: Sequence[str]) -> str:
    """The one agent rule: a command names an agent that has tier files, or is refused (exit 2).

    Only commands that create agents (``init --agent``, ``session start --new``) skip it.
    """
    check_name(name)
    if name in known:
        return name
    near = [k for k in known if k.lower() == name.lower()]
    listing = f"agents here: {', '.join(known)}" if known else "no agents here yet"
    hint = f"did you mean {near[0]}? ({listing})" if near else listing
    if not known:
        hint += "; squadmem init --agent NAME creates one"
    raise SquadmemError(f"agent {name}: no tier file belongs to this agent", hint=hint)


SPLIT_HINT = "cut it down by hand: delete or move out sections (git keeps every version), then commit"


def decode_tier(raw: bytes, rel: str) -> str:
    """A tier file's text; refuses what squadmem cannot handle losslessly (NUL, not UTF-8, over 1 MiB)."""
    if len(raw) > MAX_FILE_BYTES:
        raise SquadmemError(
            f"{rel}: {len(raw)} bytes is over the 1 MiB limit for a tier file", hint=SPLIT_HINT
        )
    if b"\0" in raw:
        raise SquadmemError(
            f"{rel}: holds a NUL byte", hint="tier files are UTF-8 Markdown text: remove the NUL byte"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SquadmemError(
            f"{rel}: not UTF-8 (byte {exc.start})", hint="re-save the file as UTF-8"
        ) from None


def encode_tier(text: str, rel: str) -> bytes:
    """The bytes squadmem writes for a tier file or log; refuses what it would then refuse to read."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        raise SquadmemError(
            f"{rel}: squadmem will not write it: the new text is not UTF-8",
            hint="give UTF-8 text; squadmem changed nothing",
        ) from None
    if b"\0" in raw:
        raise SquadmemError(
            f"{rel}: squadmem will not write it: the new text holds a NUL byte",
            hint="remove the NUL byte from what you give squadmem; it changed nothing",
        )
    if len(raw) > MAX_FILE_BYTES:
        raise SquadmemError(
            f"{rel}: squadmem will not write it: {len(raw)} bytes would be over the 1 MiB limit",
            hint="write less at once, or cut the file down by hand first; squadmem changed nothing",
        )
    return raw
