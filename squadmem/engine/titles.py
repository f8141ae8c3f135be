"""A heading's plain text, through mistune's inline parse.

``## Fix *auth* `tokens` `` has the title ``Fix auth tokens``: emphasis, code
spans, links and inline HTML reduced to their text. The title names sections
in output and gives them their slug.

A heading that starts with a letter or a digit (not a list's number) and
holds none of Markdown's markup characters is its own plain text: it is read without mistune, which is then
imported only for headings that need it (start-up time of every command).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

# Characters that can start inline markup (escapes, code, emphasis, links,
# images, autolinks and HTML, entities, strikethrough) or end a line.
_MARKUP = re.compile(r"[\\`*_\[\]!<>&~\r\n]")
_NUMBERED = re.compile(r"\d+[.)]")  # an ordered list's item


@functools.cache
def _parser() -> Callable[[str], Any]:
    import mistune

    return mistune.create_markdown(renderer=None)


def _is_plain(raw_heading: str) -> bool:
    """No markup to read: a letter or digit first (no block but a numbered item starts so) and no
    markup character."""
    return (
        raw_heading[:1].isalnum()
        and _NUMBERED.match(raw_heading) is None
        and _MARKUP.search(raw_heading) is None
    )


def _text(nodes: list[dict[str, Any]]) -> str:
    parts = []
    for node in nodes:
        kind = node.get("type")
        if kind == "inline_html":
            continue
        if "children" in node:
            parts.append(_text(node["children"]))
        elif kind in ("softbreak", "linebreak"):
            parts.append(" ")
        else:
            parts.append(str(node.get("raw", "")))
    return "".join(parts)


@functools.lru_cache(maxsize=4096)
def plain(raw_heading: str) -> str:
    """The plain text of a heading's source text."""
    if not raw_heading.strip():
        return ""
    if _is_plain(raw_heading):
        return " ".join(raw_heading.split())
    import html  # with mistune, for the headings that need it: html.entities is a large table

    tokens = _parser()(raw_heading)
    assert isinstance(tokens, list)
    text = _text(tokens)
    return " ".join(html.unescape(text).split()) or raw_heading.strip()
