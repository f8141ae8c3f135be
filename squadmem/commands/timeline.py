"""``squadmem history ID``: a section's timeline from commits: created, edited, moved, used.

The walk and its records are the history engine's
(:mod:`squadmem.engine.history.walk`, over :mod:`squadmem.engine.history.graph`);
this command asks it for the section and renders the events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from squadmem.engine.history import walk as history_walk
from squadmem.engine.history.graph import GRAPH
from squadmem.engine.history.walk import WALKS, WALKS_KEPT, Event
from squadmem.gitio.repo import Repo
from squadmem.model import render
from squadmem.model.layout import classify
from squadmem.model.places import Places

__all__ = ["CACHE_FILE", "WALKS_FILE", "WALKS_KEPT", "Event", "text", "timeline"]

CACHE_FILE = GRAPH.name  # the memory commit graph, beside the history cache
WALKS_FILE = WALKS.name  # the last walks kept
_step = history_walk.step_back


def timeline(repo: Repo, ref: str) -> dict[str, Any]:
    """The section ``ref`` (id or exact heading) in the work tree, and its events, oldest first."""
    return history_walk.timeline(repo, ref, step=_step, most=WALKS_KEPT)


# -- rendering -------------------------------------------------------------------------------------
def text(data: Mapping[str, Any], places: Places) -> str:
    """The timeline as a table (``places``: the work tree's layout, naming the files moved between)."""
    head = f"{data['id']}: {data['title']} ({data['tier']}, {data['file']})"
    if not data["events"]:
        return head + "\nno commit holds it yet"
    rows = []
    for e in data["events"]:
        what = e["event"]
        if what == "moved":
            what = f"moved {_short(e['from'], places)} → {_short(e['to'], places)}"
        elif what == "boundary":
            what = "(shallow clone: earlier history missing)"
        rows.append(
            (
                (e["date"] or "now")[:16].replace("T", " "),
                (e["commit"] or "")[:10],
                e["author"] or "",
                what,
                e["subject"] or "",
            )
        )
    return head + "\n" + render.table(("date (UTC)", "commit", "author", "event", "subject"), rows)


def _short(path: str | None, places: Places) -> str:
    tf = classify(path or "", places)
    return f"{tf.tier}/{tf.name}" if tf else (path or "?")
