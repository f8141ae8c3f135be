"""What history says about the memory: each content's earliest holder, each id's trailer uses,
each heading's latest departure. Read by :mod:`squadmem.engine.history`, kept by
:mod:`squadmem.engine.history_cache`, used by :mod:`squadmem.engine.lastuse`.
"""

from __future__ import annotations

import dataclasses
import hashlib

from squadmem.model.layout import classify

First = tuple[int, bool, bytes]  # (commit time, at a shallow boundary, commit)


@dataclasses.dataclass
class Facts:
    tip: str | None = None
    first: dict[bytes, First] = dataclasses.field(default_factory=dict)  # content key -> earliest holder
    used: dict[str, tuple[int, str, int]] = dataclasses.field(default_factory=dict)  # id -> (time, commit, n)
    gone: dict[str, Departure] = dataclasses.field(
        default_factory=dict
    )  # heading key -> its latest departure


Departure = tuple[int, str, str, str, str, str, int, int]
"""A section heading that left a tier file: (time, the commit it left in, the commit before it
(likely the last holder), a commit sure to hold it, the blob that held it, the path, and where
the section starts and ends in that blob's text)."""


def heading_key(path: str, heading: str) -> str:
    """Who owns a heading, and its text: what ``recall --history`` asks history about."""
    tf = classify(path)
    owner = tf.owner if tf is not None else path
    text = " ".join(heading.lstrip("\ufeff").strip().lstrip("#").split()).casefold()
    return hashlib.blake2b(f"{owner}\0{text}".encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def earlier(a: First | None, b: First) -> bool:
    """Is ``b`` earlier than ``a``? Ties go to a boundary commit, then the smaller sha: one answer."""
    return a is None or (b[0], not b[1], b[2]) < (a[0], not a[1], a[2])
