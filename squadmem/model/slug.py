"""A title's slug: what a section's id is made of (``Auth tokens`` -> ``auth-tokens``).

Standard library only, and nothing of the section scanner: the lines that name a section
(:func:`squadmem.model.render.named`) are written by commands that start at every tool call.
"""

from __future__ import annotations

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
