"""A heading's plain text, through mistune's inline parse.

``## Fix *auth* `tokens` `` has the title ``Fix auth tokens``: emphasis, code
spans, links and inline HTML reduced to their text. The title names sections
in output and gives them their slug.
"""

from __future__ import annotations

import functools
import html
from typing import Any

import mistune

_parse = mistune.create_markdown(renderer=None)


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
    tokens = _parse(raw_heading)
    assert isinstance(tokens, list)
    text = _text(tokens)
    return " ".join(html.unescape(text).split()) or raw_heading.strip()
