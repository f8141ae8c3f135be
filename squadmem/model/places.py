"""Where a repository keeps its memory: the Squad layout, or a memory-tiers workspace in place.

Two kinds of places, one question each: which repository path holds a tier
file (:meth:`Places.tier_rel`), which tier file a path is
(:meth:`Places.split`), where the daily logs, the settings and the intake
ledger are, and what git must read (:attr:`Places.pathspecs`).

- **Squad** (the default): everything under ``.squad/memory/``:
  ``hot/<agent>.md``, ``cold/<agent>.md``, ``archive/<agent>.md``,
  ``wiki/<topic>.md``, ``log/YYYY-MM-DD.md``, ``tiers.toml``, ``intake.tsv``.
- **Workspace**: one agent's memory-tiers workspace, kept where its host
  (OpenClaw) reads it: ``MEMORY.md`` is hot, ``memory/tier2-recent.md``
  cold, ``memory/tier3-archive.md`` the archive, ``memory/wiki/<topic>.md``
  the wiki, ``memory/YYYY-MM-DD.md`` the daily logs, ``memory/tiers.toml``
  the settings (its ``agent`` key names the workspace's agent).

Which kind a commit uses is decided by what it commits (:func:`decide`):
a workspace is recognised by its ``memory/tiers.toml`` (a regular file)
beside nothing under ``.squad/memory/``. ``verify`` asks it of every commit
and its parents, the pre-commit hook of HEAD and of the index
(:func:`decide` is handed what they hold), so a file that merely exists in
the work tree never decides which files are memory. The commands that
write in the work tree find it there once, when they open the repository
(:func:`detect`: a stat or two, kept as ``Layout.places``), and hand it
down as a value to whatever names paths.

No squadmem import but the errors and nothing heavy: the hooks ask it first,
on every commit.
"""

from __future__ import annotations

import os

from squadmem.model import constants
from squadmem.model.errors import SquadmemError

SQUAD = "squad"
WORKSPACE = "workspace"
SQUAD_DIR = constants.SQUAD_DIR
TIERS = ("hot", "cold", "archive", "wiki")
# The memory-tiers skill's files, as OpenClaw reads them.
WORKSPACE_DIR = "memory"
WORKSPACE_FILES = {
    "hot": "MEMORY.md",
    "cold": f"{WORKSPACE_DIR}/tier2-recent.md",
    "archive": f"{WORKSPACE_DIR}/tier3-archive.md",
}
WORKSPACE_WIKI = f"{WORKSPACE_DIR}/wiki"
WORKSPACE_SETTINGS = f"{WORKSPACE_DIR}/tiers.toml"
WORKSPACE_ACCESS_LOG = "state/access-log.json"  # the skill's per-file and per-section access times
# Where a workspace holds that log: beside the skill's SKILL.md (its scripts write it there), or at the top.
WORKSPACE_ACCESS_LOGS = (f"skills/memory-tiers/{WORKSPACE_ACCESS_LOG}", WORKSPACE_ACCESS_LOG)
DEFAULT_AGENT = "main"  # OpenClaw's default agent id, for a workspace whose tiers.toml names none


# What git reads to see either layout (a commit may change its layout: both are judged then).
ALL_PATHSPECS = (SQUAD_DIR, WORKSPACE_FILES["hot"], WORKSPACE_DIR)
# What the pre-commit hook reads: either layout, and Squad's files that hold squadmem's spawn blocks.
HOOK_PATHSPECS = (*ALL_PATHSPECS, *constants.SPAWN_FILES, constants.CHARTERS)


def is_spawn_file(rel: str) -> bool:
    """Whether ``rel`` is one of Squad's files squadmem writes spawn blocks into: one of
    ``constants.SPAWN_FILES``, or an agent's charter (``.squad/agents/<agent>/charter.md``)."""
    if rel in constants.SPAWN_FILES:
        return True
    parts = rel.split("/")
    return (
        len(parts) == 4 and parts[:2] == [".squad", "agents"] and parts[3] == "charter.md" and bool(parts[2])
    )


class Places:
    """The repository paths of one kind of layout (``agent``: a workspace's one agent)."""

    __slots__ = (
        "base",
        "kind",
        "ledger",
        "log_prefix",
        "pathspecs",
        "settings",
        "tier_folders",
        "workspace_agent",
    )

    def __init__(self, kind: str, agent: str | None = None) -> None:
        self.kind = kind
        self.workspace_agent = (agent or DEFAULT_AGENT) if kind == WORKSPACE else None
        self.base = SQUAD_DIR if kind == SQUAD else WORKSPACE_DIR  # squadmem's own files live here
        self.settings = f"{self.base}/{constants.SETTINGS_NAME}"
        self.ledger = f"{self.base}/intake.tsv"
        self.log_prefix = constants.LOG_PREFIX if kind == SQUAD else f"{WORKSPACE_DIR}/"
        # What git reads for memory (log, diff, ls-tree), and the only paths squadmem writes in.
        self.pathspecs = (SQUAD_DIR,) if kind == SQUAD else (WORKSPACE_FILES["hot"], WORKSPACE_DIR)
        # The folders whose *.md files may be tier files ("" is the top of the work tree).
        self.tier_folders = (
            tuple(f"{SQUAD_DIR}/{t}" for t in TIERS) if kind == SQUAD else ("", WORKSPACE_DIR, WORKSPACE_WIKI)
        )

    def __repr__(self) -> str:
        return f"Places({self.kind!r}, {self.workspace_agent!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Places)
            and other.kind == self.kind
            and other.workspace_agent == self.workspace_agent
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.workspace_agent))

    @property
    def agent(self) -> str:
        """A workspace's one agent."""
        return self.workspace_agent or DEFAULT_AGENT

    def tier_rel(self, tier: str, name: str) -> str:
        """The repository path of ``name``'s ``tier`` file (an agent's, or a wiki topic's)."""
        if self.kind == SQUAD:
            return f"{SQUAD_DIR}/{tier}/{name}.md"
        if tier == "wiki":
            return f"{WORKSPACE_WIKI}/{name}.md"
        if name != self.agent:
            raise SquadmemError(
                f"agent {name}: this memory-tiers workspace holds agent {self.agent}'s memory only",
                hint=f"name agent {self.agent}, or set agent in {WORKSPACE_SETTINGS}",
            )
        return WORKSPACE_FILES[tier]

    def split(self, rel: str) -> tuple[str, str] | None:
        """``(tier, name)`` if ``rel`` is a tier file's path (the name not checked yet), else None."""
        if self.kind == SQUAD:
            if not rel.startswith(SQUAD_DIR + "/"):
                return None
            parts = rel[len(SQUAD_DIR) + 1 :].split("/")
            if len(parts) != 2 or parts[0] not in TIERS or not parts[1].endswith(".md"):
                return None
            return parts[0], parts[1][:-3]
        for tier, path in WORKSPACE_FILES.items():
            if rel == path:
                return tier, self.agent
        if rel.startswith(WORKSPACE_WIKI + "/") and rel.endswith(".md"):
            name = rel[len(WORKSPACE_WIKI) + 1 : -3]
            return None if "/" in name else ("wiki", name)
        return None

    def log_rel(self, day: str) -> str:
        """The repository path of the daily log of ``day`` (``YYYY-MM-DD``)."""
        return f"{self.log_prefix}{day}.md"

    def inside(self, rel: str) -> bool:
        """Whether ``rel`` is among the paths squadmem keeps (``pathspecs`` and what they hold)."""
        return any(rel == p or rel.startswith(p + "/") for p in self.pathspecs)


SQUAD_PLACES = Places(SQUAD)


def detect(root: str) -> Places:
    """The places of the work tree at ``root``: a workspace if it has ``memory/tiers.toml`` and no
    ``.squad/memory/``, else Squad's."""
    settings = os.path.join(root, *WORKSPACE_SETTINGS.split("/"))
    if not os.path.isfile(settings) or os.path.isdir(os.path.join(root, *SQUAD_DIR.split("/"))):
        return SQUAD_PLACES
    from squadmem.model import settings as tiers_toml

    text = tiers_toml.read(settings)
    return Places(WORKSPACE, None if text is None else tiers_toml.agent_of(text, WORKSPACE_SETTINGS))


def decide(workspace_settings: bytes | None, squad_files: bool) -> Places:
    """The places a commit (or an index) uses, from what it holds: ``workspace_settings``, the bytes
    of its ``memory/tiers.toml`` (None unless a regular file is there), and ``squad_files``, whether
    it holds anything under ``.squad/memory/``. A tiers.toml that does not parse names no agent here
    (the file check and ``verify`` refuse it on their own)."""
    if workspace_settings is None or squad_files:
        return SQUAD_PLACES
    from squadmem.model import settings as tiers_toml

    try:
        agent = tiers_toml.agent_of(workspace_settings.decode("utf-8"), WORKSPACE_SETTINGS)
    except (SquadmemError, UnicodeDecodeError):
        agent = None
    return Places(WORKSPACE, agent)
