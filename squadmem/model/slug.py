"""A title's slug: what a section's id is made of (``Auth tokens`` -> ``auth-tokens``).

Standard library only, and nothing of the section scanner: the lines that name a section
(:func:`squadmem.model.render.named`) are written by commands that start at every tool call.
"""

from __future__ import annotations

import bisect
import re

_SLUG_RUN = re.compile(r"[\W_]+")
_REPEAT = re.compile(r"-\d+$")  # the suffix a repeated title's id gets (``-2``)


def slugify(title: str) -> str:
    """Lowercase, each run of characters that are not letters or digits turned into ``-``."""
    return _SLUG_RUN.sub("-", title.lower()).strip("-") or "section"


def says(ident: str, title: str) -> bool:
    """Whether the id (``owner/slug``) already says ``title``: its slug, or its slug and ``-N``."""
    slug = ident.rsplit("/", 1)[-1]
    return slugify(title) in (slug, _REPEAT.sub("", slug))


def repeat_of(slug: str) -> tuple[str, int] | None:
    """``(base, n)`` when ``slug`` is what the ``n``-th repeat of ``base`` would be called
    (``auth-2`` -> ``("auth", 2)``), else None: a title spelled like a repeat takes that name."""
    head, dash, digits = slug.rpartition("-")
    if not dash or not digits.isdigit() or not digits.isascii() or digits != str(int(digits)):
        return None
    number = int(digits)
    return (head, number) if number >= 2 else None


def numbered(base: str, rank: int, taken: list[int]) -> str:
    """The slug of the ``rank``-th (0-based) section whose slug is ``base`` in one owner, in O(log)
    of ``taken`` (sorted: the ``n`` for which ``<base>-n`` is already a slug of the owner):
    ``base``, then ``base-2``, ``base-3``... skipping a name another section's title already has.
    The same names :func:`squadmem.model.sections.assign_slugs` gives, one at a time."""
    if rank == 0:
        return base
    number = rank + 1  # the n-th repeat, before skipping taken names
    while True:
        skipped = bisect.bisect_right(taken, number)
        wanted = rank + 1 + skipped
        if wanted == number:
            return f"{base}-{number}"
        number = wanted
