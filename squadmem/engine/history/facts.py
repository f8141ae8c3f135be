"""What history says about the memory: each content's earliest holder, each id's trailer uses,
each heading's latest departure. Read by :mod:`squadmem.engine.history.stream`, kept by
:mod:`squadmem.engine.history.cache`, used by :mod:`squadmem.engine.history.lastuse`.
"""

from __future__ import annotations

import dataclasses
import hashlib

from squadmem.model.layout import classify
from squadmem.model.places import Places

First = tuple[int, bool, bytes]  # (commit time, at a shallow boundary, commit)
Used = tuple[int, str, int, int]
"""An id's trailer uses: (time of the last, the commit carrying it, how many commits name it,
time of the use before the last or -1): second-use promotion asks for the last two."""

NO_TIME = -1


def add_use(old: Used | None, time: int, commit: str) -> Used:
    """``old`` with one more trailer use, in any order: the latest two times are kept."""
    if old is None:
        return (time, commit, 1, NO_TIME)
    if (time, commit) > (old[0], old[1]):
        return (time, commit, old[2] + 1, old[0])
    return (old[0], old[1], old[2] + 1, max(old[3], time))


@dataclasses.dataclass
class Facts:
    tip: str | None = None
    first: dict[bytes, First] = dataclasses.field(default_factory=dict)  # content key -> earliest holder
    used: dict[str, Used] = dataclasses.field(default_factory=dict)  # id -> its trailer uses
    gone: dict[str, Departure] = dataclasses.field(
        default_factory=dict
    )  # heading key -> its latest departure


Departure = tuple[int, str, str, str, str, str, int, int]
"""A section heading that left a tier file: (time, the commit it left in, the commit before it
(likely the last holder), a commit sure to hold it, the blob that held it, the path, and where
the section starts and ends in that blob's text)."""


def heading_key(path: str, places: Places, heading: str) -> str:
    """Who owns a heading (its path read in ``places``), and its text: what ``recall --history``
    asks history about."""
    tf = classify(path, places)
    owner = tf.owner if tf is not None else path
    text = " ".join(heading.lstrip("\ufeff").strip().lstrip("#").split()).casefold()
    return hashlib.blake2b(f"{owner}\0{text}".encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def earlier(a: First | None, b: First) -> bool:
    """Is ``b`` earlier than ``a``? Ties go to a boundary commit, then the smaller sha: one answer."""
    return a is None or (b[0], not b[1], b[2]) < (a[0], not a[1], a[2])
