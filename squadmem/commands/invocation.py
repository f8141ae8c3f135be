"""What every command starts from: the repository ``-C`` names, the moment ``--now`` names, and
JSON for ``--json``. The CLI parses and calls; it reaches the core through the commands only.
Imported at every start-up, so what it needs is imported when it is called.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from squadmem.model.errors import SquadmemError

if TYPE_CHECKING:
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
        from squadmem.commands import mergedriver

        mergedriver.set_up_in_clone(repo)
    return repo


def moment(
    value: str | None, repo: Repo, *, commits: bool = False, records: bool = False, earlier: bool = False
) -> dt.datetime:
    """``--now`` read and held to ``repo``'s history by the one rule (:func:`engine.clock.checked`),
    else the clock. A command that ``commits`` dates its commits at that moment; one that may look
    ``earlier`` than the newest commit (verify, review, log add, log show) is not held to it; one
    that ``records`` uses at that moment (touch, track) refuses a moment after the clock."""
    from squadmem.engine import clock
    from squadmem.model import clock as moments

    if value is None:
        return moments.now()
    seconds = repo.newest_commit_time()
    newest = None if seconds is None else moments.from_epoch(seconds)
    when = clock.checked(value, newest=newest, commits=commits, records=records, earlier=earlier)
    if commits:
        repo.date_commits(int(when.timestamp()))
    return when


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
