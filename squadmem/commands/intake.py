"""``squadmem intake``: take in what Squad's agents appended to their files, one commit.

The intake itself is the engine's (:mod:`squadmem.engine.intake.take`): ``maintain`` and
``migrate squad`` run the same one. Squad's files are read by
:mod:`squadmem.engine.intake.sources` (``usable``: the entries a tier file can hold, named
here too for the studies in ``bench/``).
"""

from __future__ import annotations

import datetime as dt

from squadmem.engine.intake.sources import usable as usable
from squadmem.engine.intake.take import Result
from squadmem.engine.intake.take import intake as take_in
from squadmem.gitio.repo import Repo
from squadmem.model.settings import Settings


def intake(repo: Repo, conf: Settings, now: dt.datetime, *, dry_run: bool = False) -> Result:
    """Take in every entry of Squad's committed files not taken before: one commit, or none."""
    return take_in(repo, conf, now, dry_run=dry_run)
