"""``squadmem verify``: check that a range of commits obeyed the tier rules
(squadmem.engine.verify.verifier)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from squadmem.engine.verify import verifier as verifying
from squadmem.gitio.repo import Repo
from squadmem.model import render
from squadmem.model.errors import Exit


def verify(repo: Repo, revs: Sequence[str] | None, now: dt.datetime, *, as_json: bool) -> tuple[str, Exit]:
    """What to print, and the exit status: 0 when every commit in range obeyed the rules."""
    result = verifying.verify(repo, revs, now)
    shown = render.to_json(result.as_dict()) if as_json else verifying.text(result)
    return shown, verifying.exit_code(result)
