"""What every command starts from: the repository ``-C`` names, the moment ``--now`` names, and
JSON for ``--json``. The CLI parses and calls; it reaches the core through the commands only.
Imported at every start-up, so what it needs is imported when it is called.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from squadmem.model.errors import SquadmemError

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from squadmem.gitio.repo import Repo


def open_repo(
    directory: Path | None,
    *,
    set_up_driver: bool = True,
    read_settings: bool = True,
    needs_memory: bool = False,
) -> Repo:
    """The repository at ``directory`` (default: here). Its tiers.toml is read first, so a malformed
    one is refused before any work (``read_settings=False``: doctor reports it instead); a fresh
    clone's merge driver is set up (``set_up_driver=False``: init sets it up itself, and says so).
    A command that ``needs_memory`` is refused where there is none yet (no memory folder): it
    would otherwise report an empty memory as one in shape, or write one init never set up."""
    from squadmem.gitio.repo import Repo

    folder = directory or Path(".")
    if not Path(folder).is_dir():
        raise SquadmemError(f"-C {folder}: no such folder", hint="pass an existing folder")
    repo = Repo(folder)
    if needs_memory and not repo.layout.memory.is_dir():
        repo.close()
        raise SquadmemError(
            f"not set up here: {repo.root} has no {repo.layout.places.base}/ folder",
            hint="run squadmem init (and commit what it writes)",
        )
    if read_settings:
        try:
            _ = repo.layout.settings
        except SquadmemError:
            repo.close()
            raise
    if set_up_driver:
        from squadmem.engine.install import mergedriver

        mergedriver.set_up_in_clone(repo)
    return repo


def moment(
    value: str | None, repo: Repo, *, commits: bool = False, records: bool = False, earlier: bool = False
) -> dt.datetime:
    """``--now`` held to ``repo``'s history by the one rule (:func:`squadmem.engine.clock.at`)."""
    from squadmem.engine import clock

    return clock.at(value, repo, commits=commits, records=records, earlier=earlier)


def commit_moment(value: str | None, repo: Repo) -> dt.datetime:
    """``--now`` (its commits dated there), else the moment the commit being made will carry
    (GIT_COMMITTER_DATE, else the clock)."""
    if value:
        return moment(value, repo, commits=True)
    from squadmem.model import logs

    return logs.commit_now()


def to_json(data: Any) -> str:
    from squadmem.model import render

    return render.to_json(data)
