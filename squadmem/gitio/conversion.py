"""git's conversion between blobs and checked-out files: ``core.autocrlf``, text/eol/filter attributes.

With none of them in effect a file is its blob, byte for byte, and asking
costs nothing: no ``core.autocrlf``/``core.eol``/``core.attributesFile``, no
attributes file where the memory's paths could take one. Otherwise git says,
per path, through ``check-attr``, and converts (``cat-file --filters`` one
way, ``hash-object --path`` the other). Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from squadmem.gitio import questions
from squadmem.gitio.config import Config

if TYPE_CHECKING:
    from squadmem.gitio.objects import Objects
    from squadmem.gitio.repo import Repo

ATTRIBUTES = ("text", "eol", "filter", "ident", "working-tree-encoding", "crlf")
AUTOCRLF = frozenset({"true", "yes", "on", "1", "input"})


class Conversion:
    """git's conversion between blobs and checked-out files, for one repository and configuration."""

    def __init__(self, repo: Repo, config: Config) -> None:
        self.repo = repo
        self.autocrlf = (config.get("core.autocrlf") or "false").lower() in AUTOCRLF
        self.possible = self.autocrlf or self._attributes_exist(config)
        self._applies: dict[str, bool] = {}

    def _attributes_exist(self, config: Config) -> bool:
        if config.get("core.attributesfile") or config.get("core.eol"):
            return True
        root = self.repo.root
        folders = [root, root / ".squad", root / ".squad" / "memory"]
        folders += [root / ".squad" / "memory" / tier for tier in ("hot", "cold", "archive", "wiki", "log")]
        folders += [root / "memory", root / "memory" / "wiki"]  # a memory-tiers workspace's
        if any((folder / ".gitattributes").exists() for folder in folders):
            return True
        config_home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
        return (self.repo.git_dir / "info" / "attributes").exists() or (
            config_home / "git" / "attributes"
        ).exists()

    def applies(self, rel: str) -> bool:
        """Whether a file at ``rel`` may differ from its blob."""
        if not self.possible:
            return False
        if rel not in self._applies:
            values = questions.check_attr(self.repo.git, rel, *ATTRIBUTES).values()
            self._applies[rel] = self.autocrlf or any(v not in ("unspecified", "unset") for v in values)
        return self._applies[rel]

    def to_worktree(self, rel: str, sha: str, data: bytes) -> bytes:
        """A blob's bytes as git would check them out at ``rel``."""
        if not self.applies(rel):
            return data
        return questions.checked_out_blob(self.repo.git, sha, rel)

    def same_as_blob(self, rel: str, data: bytes, sha: str) -> bool:
        """Whether work-tree bytes at ``rel`` are the blob ``sha`` as git compares them (through its
        clean conversion: under ``core.autocrlf`` a file checked out with LF before the setting is
        unchanged, as ``git status`` says, though a checkout now would write CRLF)."""
        return self.applies(rel) and questions.clean_name(self.repo.git, rel, data) == sha

    def to_blob(self, objects: Objects, rel: str, data: bytes) -> str:
        """The blob git would store for these checked-out bytes at ``rel`` (written to the store)."""
        if not self.applies(rel):
            return objects.write("blob", data)
        return questions.clean_blob(self.repo.git, rel, data)
