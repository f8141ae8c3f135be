from __future__ import annotations

import html

import mistune
from hypothesis import example, given
from hypothesis import strategies as st

from squadmem.engine import titles

_read = mistune.create_markdown(renderer=None)


def _through_mistune(raw: str) -> str:
    tokens = _read(raw)
    assert isinstance(tokens, list)
    return " ".join(html.unescape(titles._text(tokens)).split()) or raw.strip()


HEADINGS = st.text(
    alphabet=st.sampled_from(
        list("aZé90²١ \t.,:;'\"()/+-=?#%@$^|{}~*_`[]!<>&\\\x0b\x0c\u00a0\u2028\u2029\x85\x1c\x1f\u3000")
    ),
    max_size=30,
) | st.text(max_size=30)


@given(HEADINGS)
@example("Fix auth tokens")
@example("a. b")
@example("Deploy checklist #")
@example("Über 1) done  ")
@example("2026-02-01: rotate the staging keys")
@example("1. first")
@example("12) twelfth")
def test_a_heading_read_without_mistune_has_the_title_mistune_gives(raw: str) -> None:
    """The fast path (no markup: read as is) agrees with mistune's inline parse wherever it applies."""
    if raw.strip() and titles._is_plain(raw):
        assert titles.plain(raw) == _through_mistune(raw)


@given(HEADINGS)
def test_every_heading_has_the_title_mistune_gives(raw: str) -> None:
    if raw.strip():
        assert titles.plain(raw) == _through_mistune(raw)
