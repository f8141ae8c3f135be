"""``squadmem track``: the sections an agent read or cited, from its session transcripts, as uses.

What a transcript says and which uses it gives are the engine's
(:mod:`squadmem.engine.hosts.uses`, also read by ``maintain`` and ``report`` in a
workspace kept in place); here: the transcript a Claude Code hook names.
"""

from __future__ import annotations

import json
from pathlib import Path

from squadmem.engine.hosts.uses import track as track
from squadmem.model.errors import SquadmemError


def hook_transcript(stdin_text: str) -> Path:
    """The ``transcript_path`` of a Claude Code hook's JSON input."""
    try:
        data = json.loads(stdin_text)
        return Path(str(data["transcript_path"]))
    except (ValueError, KeyError, TypeError):
        raise SquadmemError(
            "--from-hook: standard input is not a hook's JSON with a transcript_path",
            hint="use it as a Claude Code SessionEnd or Stop hook command",
        ) from None
