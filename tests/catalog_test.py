from __future__ import annotations

import pytest

from squadmem.engine import catalog
from squadmem.model.errors import SquadmemError
from squadmem.model.places import SQUAD_PLACES


def memory(files: dict[str, str]) -> catalog.Memory:
    return catalog.from_texts(files, SQUAD_PLACES)


def test_build_ids_share_an_agent_namespace_across_tiers() -> None:
    mem = memory(
        {
            ".squad/memory/cold/picard.md": "## Notes\nold\n",
            ".squad/memory/hot/picard.md": "## Notes\nnew\n## Notes\nagain\n",
            ".squad/memory/wiki/security.md": "## Notes\nw\n",
            ".squad/memory/hot/worf.md": "## Notes\nworf\n",
        }
    )
    assert [(e.id, e.tier) for e in mem.entries] == [
        ("picard/notes", "hot"),
        ("picard/notes-2", "hot"),
        ("picard/notes-3", "cold"),
        ("worf/notes", "hot"),
        ("wiki:security/notes", "wiki"),
    ]


def test_build_explicit_id_overrides_the_slug() -> None:
    mem = memory({".squad/memory/hot/picard.md": "## Auth *tokens*\n<!-- squadmem: id=jwt -->\nx\n"})
    (entry,) = mem.entries
    assert entry.id == "picard/jwt"
    assert entry.title == "Auth tokens"


def test_build_duplicate_explicit_id_is_refused() -> None:
    with pytest.raises(SquadmemError, match="id=jwt is also set in"):
        memory(
            {
                ".squad/memory/hot/picard.md": "## A\n<!-- squadmem: id=jwt -->\n",
                ".squad/memory/cold/picard.md": "## B\n<!-- squadmem: id=jwt -->\n",
            }
        )


def test_build_ignores_paths_that_are_not_tier_files() -> None:
    mem = memory(
        {
            ".squad/memory/log/2026-03-01.md": "## Not a tier\n",
            ".squad/memory/local/x.md": "## Squad's own\n",
            ".squad/memory/hot/sub/x.md": "## Nested\n",
            "README.md": "## Elsewhere\n",
        }
    )
    assert mem.entries == ()


FILES = {
    ".squad/memory/hot/picard.md": "## Auth tokens\nx\n## OAuth\ny\n",
    ".squad/memory/hot/worf.md": "## OAuth\nz\n",
}


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("picard/auth-tokens", "picard/auth-tokens"),
        ("Auth tokens", "picard/auth-tokens"),
        ("worf/oauth", "worf/oauth"),
    ],
)
def test_find_by_id_or_exact_heading(ref: str, expected: str) -> None:
    assert memory(FILES).find(ref).id == expected


def test_find_substring_never_matches() -> None:
    """Regression: the script version matched "Auth" against "OAuth" and "Auth tokens"."""
    with pytest.raises(SquadmemError, match="no section has the id or heading 'Auth'"):
        memory(FILES).find("Auth")


def test_find_ambiguous_heading_lists_candidates() -> None:
    with pytest.raises(SquadmemError) as info:
        memory(FILES).find("OAuth")
    assert "picard/oauth" in info.value.message
    assert "worf/oauth" in info.value.message
    assert info.value.hint == "name the section by its id"


def test_entry_special_sections() -> None:
    mem = memory({".squad/memory/hot/picard.md": "## Session\ns\n## Index → Deeper Tiers\n- x\n"})
    session, index = mem.entries
    assert session.is_session and not session.is_index
    assert index.is_index and index.id == "picard/index-deeper-tiers"
