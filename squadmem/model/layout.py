"""Where tiers live, and the safety of names and paths.

Standard library only. Which repository path holds what is the work tree's
:mod:`squadmem.model.places` (``.squad/memory/``, or a memory-tiers workspace
in place), found once when a :class:`Layout` is made and read from it
(``layout.places``); :func:`classify` is handed the places it reads a path in.
Every path squadmem writes goes through :func:`Layout.tier_path` /
:func:`Layout.log_path`, which refuse names that could escape the memory's
folder and paths that a symlink leads outside it.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from collections.abc import Sequence

from squadmem.model import constants, names
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
LOG_DIR = constants.LOG_DIR
MAX_FILE_BYTES = constants.MAX_FILE_BYTES
# The one name rule lives in squadmem.model.names; named here too for the modules that read paths.
MAX_NAME = names.MAX_NAME
is_name = names.is_name
check_name = names.check_name

SPAWN_FILES = constants.SPAWN_FILES  # Squad's files that hold squadmem's spawn blocks
CHARTERS = constants.CHARTERS
is_spawn_file = where.is_spawn_file

# ``squadmem uninstall`` takes init's lines out of it, in its one commit.
ATTRIBUTES_FILE = ".gitattributes"


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


def classify(rel: str, places: where.Places) -> TierFile | None:
    """The tier file a repository path is in ``places`` (a commit's layout, or the work tree's), or
    None (logs, settings, Squad's files)."""
    found = places.split(rel)
    if found is None or not is_name(found[1]):
        return None
    return TierFile(found[0], found[1], rel)


def _md_names(folder: Path) -> list[str]:
    """The names in ``folder`` that end in ``.md``, sorted (what ``glob("*.md")`` finds, without
    compiling a pattern at every start-up)."""
    try:
        with os.scandir(folder) as found:
            return sorted(entry.name for entry in found if entry.name.endswith(".md"))
    except (PermissionError, NotADirectoryError, FileNotFoundError):
        return []


class Layout:
    """The memory layout of one repository work tree (equal when the roots are)."""

    __slots__ = ("_settings", "places", "root")

    def __init__(self, root: Path) -> None:
        self.root = root  # the work tree's top level
        self.places = where.detect(os.fspath(root))  # .squad/memory/, or a memory-tiers workspace in place
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
        below = _folders_below(self.memory, path)
        for candidate in (self.memory, *below, path):
            try:
                resolved = candidate.resolve()
            except (RuntimeError, OSError):  # Python < 3.13 raises RuntimeError for a loop
                rel = self.rel(candidate)
                raise SquadmemError(f"{rel}: a symlink loop", hint=f"remove the symlink: rm {rel}") from None
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

    def _spawn_file(self, path: Path, rel: str) -> Path:
        """One of Squad's spawn files (``squadmem spawn``) or ``.gitattributes``, if reached through
        no symlink."""
        try:
            direct = path.resolve() == self.root.resolve() / rel
        except (OSError, RuntimeError):  # a symlink loop
            direct = False
        if not direct:
            raise SquadmemError(
                f"{rel}: a symlink; squadmem writes "
                + ("Squad's spawn files" if rel != ATTRIBUTES_FILE else rel)
                + " only as regular files",
                hint="replace the symlink with the file itself",
            )
        return path

    def tier_path(self, tier: str, name: str) -> Path:
        if tier not in TIERS:
            raise SquadmemError(f"unknown tier {tier!r}", hint=f"tiers are {', '.join(TIERS)}")
        check_name(name, "topic" if tier == "wiki" else "agent")
        return self.writable(self.root / self.places.tier_rel(tier, name))

    def log_path(self, day: dt.date) -> Path:
        return self.writable(self.root / self.places.log_rel(day.isoformat()))

    def tier_files(self) -> list[TierFile]:
        """Every tier file present in the work tree, sorted by tier order then name.

        Whatever is there under a tier file's name counts (a folder, a FIFO, a symlink):
        :meth:`read_tier` refuses it, so only its owner is left out.
        """
        found: list[TierFile] = []
        blocked = self.blocked_tiers()
        for tier in TIERS:
            folder_rel = self.tier_folder(tier)
            folder = self.root / folder_rel if folder_rel else self.root
            if tier in blocked or not folder.is_dir():
                continue
            prefix = f"{folder_rel}/" if folder_rel else ""  # self.rel(folder / name), without pathlib
            for name in _md_names(folder):
                tf = classify(prefix + name, self.places)
                if tf is not None and tf.tier == tier:
                    found.append(tf)
        return sorted(found, key=lambda tf: TIERS.index(tf.tier))

    def read_tier(self, tf: TierFile) -> str:
        """A tier file's text, refusing what squadmem cannot handle losslessly."""
        raw = self.read_file(self.root / tf.rel)
        return "" if raw is None else decode_tier(raw, tf.rel)

    def read_file(self, path: Path) -> bytes | None:
        """A memory file's bytes, or None if nothing is there.

        Refuses (never opens for reading, so never hangs on a FIFO) anything but a regular
        file inside .squad/memory/: a folder, a FIFO, a socket or device, a symlink loop, a
        symlink to nothing or one leading outside.
        """
        rel = self.rel(path)
        if not self.regular(path):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped in since the check
                raise SquadmemError(f"{rel}: not a regular file", hint=_odd_hint(rel, 0))
            with os.fdopen(fd, "rb", closefd=False) as handle:
                return handle.read()
        finally:
            os.close(fd)

    def regular(self, path: Path) -> bool:
        """Whether ``path`` is there, a regular file inside .squad/memory/ (symlinks followed);
        raise if something else is there."""
        rel = self.rel(path)
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return False
        if stat.S_ISLNK(mode):
            mode = _link_target_mode(path, rel)
            self.inside(path)
        if not stat.S_ISREG(mode):
            raise SquadmemError(f"{rel}: {_kind(mode)}, not a regular file", hint=_odd_hint(rel, mode))
        return True

    def writable(self, path: Path) -> Path:
        """``path``, if squadmem may write a file there: inside the memory's folder (or one of
        Squad's spawn files, :func:`is_spawn_file`, reached through no symlink), each folder on the
        way a folder (or not there yet), and itself a regular file or nothing; else raise.
        ``.gitattributes`` at the top, reached through no symlink, too (``uninstall``)."""
        rel = self.rel(path)
        if is_spawn_file(rel) or rel == ATTRIBUTES_FILE:
            return self._spawn_file(path, rel)
        self.inside(path)
        for folder in reversed(path.parents):
            if folder != self.memory and self.memory not in folder.parents:
                continue
            kind = _not_a_folder(folder)
            if kind == "":
                break
            if kind is not None:
                rel = self.rel(folder)
                raise SquadmemError(f"{rel}: {kind} where a folder belongs", hint=aside_hint(rel))
        self.regular(path)
        return path

    def tier_folder(self, tier: str) -> str:
        """The folder a tier's files are in ("" for the top of the work tree: a workspace's hot)."""
        if self.places.kind == where.SQUAD:
            return f"{self.places.base}/{tier}"
        return where.WORKSPACE_WIKI if tier == "wiki" else "" if tier == "hot" else where.WORKSPACE_DIR

    def blocked_tiers(self) -> dict[str, SquadmemError]:
        """Tier folders that something else occupies (a file named ``archive``, a symlink leading
        outside or to nothing): nothing there is read, and nothing moves there."""
        found = {}
        for tier in TIERS:
            folder = self.tier_folder(tier)
            if folder and (problem := self.odd_folder(folder, f"the {tier} tier's folder")) is not None:
                found[tier] = problem
        return found

    def log_names(self) -> list[str]:
        """The ``.md`` names in the daily logs' folder, sorted (logs or not: ask ``logs.name_day``)."""
        return [] if self.odd_log_folder() is not None else _md_names(self.log_folder)

    def odd_log_folder(self) -> SquadmemError | None:
        """Why the daily logs' folder cannot be used, if it cannot."""
        return self.odd_folder(self.rel(self.log_folder), "the daily logs' folder")

    def odd_folder(self, rel: str, what: str) -> SquadmemError | None:
        """Why the folder ``rel`` (a tier's, or the logs') cannot be used, if it cannot."""
        folder = self.root / rel
        kind = _not_a_folder(folder)
        if kind:
            return SquadmemError(f"{rel}: {kind} where {what} belongs", hint=aside_hint(rel))
        if kind is None:
            try:
                self.inside(folder)
            except SquadmemError as exc:
                return exc
        return None

    def agents(self) -> list[str]:
        return sorted({tf.name for tf in self.tier_files() if tf.tier in AGENT_TIERS})

    def require_agent(self, name: str) -> str:
        """``name`` if an agent of this name has tier files here; else exit 2 listing the agents here."""
        return known_agent(name, self.agents())


def _folders_below(memory: Path, path: Path) -> list[Path]:
    """The folders between ``memory`` and ``path`` (both excluded), outermost first: the parents of
    ``path`` that ``memory`` holds, as ``[p for p in reversed(path.parents) if memory in p.parents]``
    finds them, without building every parent's parents (``context`` asks at every spawn)."""
    try:
        parts = path.relative_to(memory).parts
    except ValueError:
        return []
    found = []
    for part in parts[:-1]:
        memory = memory / part
        found.append(memory)
    return found


def aside_hint(rel: str) -> str:
    """How to move aside what occupies a folder's place: a command that works whether git tracks it or not."""
    return f"move it aside, then commit: git mv {rel} {rel}.old (or mv, if git does not track it)"


def _not_a_folder(folder: Path) -> str | None:
    """None for a folder (a symlink to one too), "" when nothing is there, else what is there instead."""
    try:
        mode = os.lstat(folder).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return ""
    if stat.S_ISLNK(mode):
        try:
            mode = os.stat(folder).st_mode
        except FileNotFoundError:
            return "a symlink to nothing"
        except OSError:
            return "a symlink loop"
    return None if stat.S_ISDIR(mode) else _kind(mode)


def _link_target_mode(path: Path, rel: str) -> int:
    """The mode of what the symlink ``path`` leads to; refuses a loop and a symlink to nothing."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        raise SquadmemError(
            f"{rel}: a symlink to nothing ({os.readlink(path)})", hint=f"remove the symlink: rm {rel}"
        ) from None
    except OSError:
        raise SquadmemError(f"{rel}: a symlink loop", hint=f"remove the symlink: rm {rel}") from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a file" if stat.S_ISREG(mode) else "a device"


def _odd_hint(rel: str, mode: int) -> str:
    if stat.S_ISDIR(mode):
        return f"squadmem reads only regular files here: rename the folder (mv {rel} {rel[:-3]})"
    return f"squadmem reads only regular files here: remove it (rm {rel})"


def known_agent(name: str, known: Sequence[str]) -> str:
    """The one agent rule: a command names an agent that has tier files, or is refused (exit 2); the
    name is matched as Squad matches it, case aside, and the agent's own spelling is returned.

    Only commands that create agents (``init --agent``, ``session start --new``) skip it.
    """
    check_name(name)
    if name in known:
        return name
    near = [k for k in known if k.lower() == name.lower()]
    if len(near) == 1:  # Squad shows "Rai" and may keep .squad/agents/rai/: names match as Squad's do
        return near[0]
    if near:
        raise SquadmemError(
            f"agent {name}: {', '.join(near)} differ only in case",
            hint=f"name one exactly: {', '.join(near)}",
        )
    listing = f"agents here: {', '.join(known)}" if known else "no agents here yet"
    hint = listing
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
