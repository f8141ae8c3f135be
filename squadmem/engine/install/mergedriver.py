"""Setting up the merge driver in a repository: ``git config merge.squadmem.*``, and checking it.

The ``.gitattributes`` lines that route tier files to it (and the logs and the intake
ledger to a union merge) are here: ``init`` writes them, ``uninstall`` takes them out. The
driver command starts the interpreter squadmem was installed with, by absolute path, as the
hook shims do.
"""

from __future__ import annotations

import os
import sys
import warnings

from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import LOG_DIR, MEMORY_DIR, TIERS

NAME = "squadmem"
DESCRIPTION = "squadmem: tier files merged section by section"
MODULE = "squadmem.hooks.merge_driver"

ATTRIBUTES_HEADER = (
    "# squadmem: daily logs and the intake ledger only ever grow, so a union merge keeps both sides"
)
ATTRIBUTES = (f"{MEMORY_DIR}/{LOG_DIR}/*.md merge=union", f"{MEMORY_DIR}/intake.tsv merge=union")
DRIVER_HEADER = "# squadmem: tier files merge section by section (squadmem's merge driver; see squadmem init)"
DRIVER_ATTRIBUTES = tuple(f"{MEMORY_DIR}/{tier}/*.md merge={NAME}" for tier in TIERS)
# A memory-tiers workspace kept in place: its tier files merge with the driver, its logs by union.
_DAY_GLOB = f"{where.WORKSPACE_DIR}/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
WORKSPACE_ATTRIBUTES = (f"{_DAY_GLOB}.md merge=union", f"{_DAY_GLOB}-*.md merge=union")
WORKSPACE_DRIVER_ATTRIBUTES = (
    *(f"{rel} merge={NAME}" for rel in where.WORKSPACE_FILES.values()),
    f"{where.WORKSPACE_WIKI}/*.md merge={NAME}",
)


def command(python: str | None = None) -> str:
    import shlex  # not at import: every command checks the driver on start-up

    return f"{shlex.quote(python or sys.executable)} -m {MODULE} --marker-size %L %O %A %B %P"


def configure(repo: Repo) -> bool:
    """Write ``merge.squadmem.name`` and ``.driver`` to the repository's config; False if already so."""
    changed = False
    for key, value in (("name", DESCRIPTION), ("driver", command())):
        if repo.config(f"merge.{NAME}.{key}") != value:
            questions.set_config(repo.git, f"merge.{NAME}.{key}", value)
            changed = True
    return changed


def routed(repo: Repo) -> bool:
    """Whether the work tree's ``.gitattributes`` routes files to the driver (read, no git)."""
    try:
        return f"merge={NAME}".encode() in (repo.root / ".gitattributes").read_bytes()
    except OSError:
        return False


def configured(repo: Repo) -> bool:
    """Whether the repository's config has a ``[merge "squadmem"]`` section (read, no git)."""
    try:
        text = (repo.git_dir / "config").read_text("utf-8", "replace")
    except OSError:
        return False
    return f'[merge "{NAME}"]' in text


def set_up_in_clone(repo: Repo) -> None:
    """A clone whose ``.gitattributes`` names the driver has none (git config is not cloned): git
    would merge tier files line by line, which loses sections. Set it up (two ``git config``
    keys, as ``init`` writes them) and say so, once. Nothing is run when it is configured."""
    if configured(repo) or not routed(repo):
        return
    try:
        configure(repo)
    except SquadmemError:
        return  # a read-only config: doctor's merge driver check names it
    warnings.warn(
        SquadmemWarning(
            f"this clone had no merge driver for tier files (git config is not cloned): set "
            f"merge.{NAME}.name and merge.{NAME}.driver in its .git/config, as .gitattributes asks "
            f"(see: git config --get-regexp merge.{NAME})",
            hint="a clone has no git hooks either: run squadmem init to install them",
        ),
        stacklevel=2,
    )


def problem(repo: Repo) -> str | None:
    """Why tier files would not merge through the driver, or None when they do."""
    driver = repo.config(f"merge.{NAME}.driver")
    if not driver or MODULE not in driver:
        return f"git config merge.{NAME}.driver is not set"
    import shlex

    try:
        python = shlex.split(driver)[0]
    except (ValueError, IndexError):
        return f"git config merge.{NAME}.driver cannot be read: {driver}"
    if not os.access(python, os.X_OK):
        return f"the merge driver's interpreter {python} is gone"
    places = repo.layout.places
    probe = places.tier_rel("hot", "x" if places.kind == "squad" else places.agent)
    setting = questions.check_attr(repo.git, probe, "merge").get("merge", "unspecified")
    if setting != NAME:
        shown = f"{MEMORY_DIR}/hot/*.md" if places.kind == "squad" else probe
        return f".gitattributes routes {shown} to merge={setting}, not merge={NAME}"
    return None
