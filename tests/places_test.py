"""Where a work tree keeps its memory: the Squad layout and a memory-tiers workspace in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.model import layout, logs, places
from squadmem.model import settings as tiers_toml
from squadmem.model.errors import SquadmemError

SQUAD = places.SQUAD_PLACES
WORKSPACE = places.Places(places.WORKSPACE, "wren")
NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}", fullmatch=True)


@pytest.mark.parametrize(
    ("places_", "rel", "expected"),
    [
        (SQUAD, ".squad/memory/hot/picard.md", ("hot", "picard")),
        (SQUAD, ".squad/memory/wiki/security.md", ("wiki", "security")),
        (SQUAD, ".squad/memory/log/2026-03-01.md", None),
        (SQUAD, "MEMORY.md", None),
        (SQUAD, "memory/tier2-recent.md", None),
        (WORKSPACE, "MEMORY.md", ("hot", "wren")),
        (WORKSPACE, "memory/tier2-recent.md", ("cold", "wren")),
        (WORKSPACE, "memory/tier3-archive.md", ("archive", "wren")),
        (WORKSPACE, "memory/wiki/garden.md", ("wiki", "garden")),
        (WORKSPACE, "memory/wiki/deep/garden.md", None),
        (WORKSPACE, "memory/2026-03-01.md", None),
        (WORKSPACE, "memory/tiers.toml", None),
        (WORKSPACE, "memory/notes.md", None),
        (WORKSPACE, "sub/MEMORY.md", None),
        (WORKSPACE, ".squad/memory/hot/wren.md", None),
    ],
)
def test_places_split(places_: places.Places, rel: str, expected: tuple[str, str] | None) -> None:
    assert places_.split(rel) == expected


@pytest.mark.parametrize(
    ("places_", "rel", "day"),
    [
        (SQUAD, ".squad/memory/log/2026-03-01.md", "2026-03-01"),
        (SQUAD, "memory/2026-03-01.md", None),
        (WORKSPACE, "memory/2026-03-01.md", "2026-03-01"),
        (WORKSPACE, "memory/tier2-recent.md", None),
        (WORKSPACE, "memory/wiki/2026-03-01.md", None),
        (WORKSPACE, ".squad/memory/log/2026-03-01.md", None),
    ],
)
def test_places_log_day(places_: places.Places, rel: str, day: str | None) -> None:
    found = logs.log_day(rel, places_)
    assert (found.isoformat() if found and not isinstance(found, str) else found) == day


@settings(max_examples=200, derandomize=True, deadline=None)
@given(kind=st.sampled_from([SQUAD, WORKSPACE]), tier=st.sampled_from(places.TIERS), name=NAMES)
def test_places_tier_rel_and_split_agree(kind: places.Places, tier: str, name: str) -> None:
    """Every tier file's path is read back as that tier file, and never as a daily log."""
    if kind is WORKSPACE and tier != "wiki":
        name = kind.agent
    rel = kind.tier_rel(tier, name)
    assert kind.split(rel) == (tier, name)
    assert kind.inside(rel)
    assert logs.log_day(rel, kind) is None
    assert layout.classify(rel, kind) == layout.TierFile(tier, name, rel)


PIECES = ["MEMORY.md", "memory", "wiki", "tier2-recent.md", "tier3-archive.md", ".squad", "hot", "log"]
PIECES += ["wren", "wren.md", "a.md", "2026-03-01.md", "tiers.toml", "..", "", "MEMORY.md.md"]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    kind=st.sampled_from([SQUAD, WORKSPACE]), parts=st.lists(st.sampled_from(PIECES), min_size=1, max_size=4)
)
def test_places_split_is_one_to_one(kind: places.Places, parts: list[str]) -> None:
    """A path read as a tier file is that tier file's one path (no two paths hold one tier file)."""
    rel = "/".join(parts)
    found = kind.split(rel)
    if found is not None and layout.is_name(found[1]):
        assert kind.tier_rel(*found) == rel
        assert kind.inside(rel)


def test_places_workspace_holds_one_agent() -> None:
    with pytest.raises(SquadmemError, match="holds agent wren's memory only"):
        WORKSPACE.tier_rel("hot", "picard")


@pytest.mark.parametrize(
    ("files", "kind"),
    [
        ({}, places.SQUAD),
        ({"MEMORY.md": "# m\n"}, places.SQUAD),  # a workspace not set up yet: init decides
        ({"memory/tiers.toml": tiers_toml.workspace_template("wren")}, places.WORKSPACE),
        (
            {"memory/tiers.toml": tiers_toml.workspace_template("wren"), ".squad/memory/tiers.toml": ""},
            places.SQUAD,
        ),
    ],
)
def test_places_detect(tmp_path: Path, files: dict[str, str], kind: str) -> None:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = places.detect(str(tmp_path))
    assert found.kind == kind
    if kind == places.WORKSPACE:
        assert found.agent == "wren"


@settings(max_examples=100, derandomize=True, deadline=None)
@given(name=NAMES)
def test_settings_workspace_template_names_its_agent(name: str) -> None:
    """The template short-cut reads the agent as tomllib does; its settings are the defaults but
    for the logs' grace until noon (and the time zone init read from OpenClaw's config)."""
    for zone in ("UTC", "America/Los_Angeles"):
        text = tiers_toml.workspace_template(name, zone)
        assert tiers_toml.agent_of(text, "t") == name
        assert tiers_toml.agent_of(text + "\n", "t") == name  # parsed
        wanted = tiers_toml.Settings(timezone=zone, log=tiers_toml.LogSettings(720))
        assert tiers_toml.parse(text, "t") == tiers_toml.parse(text + "\n", "t") == wanted


def test_settings_workspace_template_of_an_earlier_init_keeps_the_defaults() -> None:
    """A workspace tiers.toml an earlier init wrote (every default, grace 0) reads as it did."""
    text = f'{tiers_toml.WORKSPACE_HEAD}agent = "wren"\n\n{tiers_toml.TEMPLATE}'
    assert tiers_toml.agent_of(text, "t") == "wren"
    assert tiers_toml.parse(text, "t") == tiers_toml.parse(text + "\n", "t") == tiers_toml.Settings()


def test_settings_workspace_template_with_an_unknown_zone_is_refused_by_line() -> None:
    """A written template whose zone is no zone is parsed, and the error names its line."""
    text = tiers_toml.workspace_template("wren", "Mars/Olympus")
    with pytest.raises(SquadmemError, match=r"t:10: timezone is not a known time zone"):
        tiers_toml.parse(text, "t")


def test_settings_agent_refused_when_not_a_name() -> None:
    with pytest.raises(SquadmemError, match="agent must be an agent name"):
        tiers_toml.parse('agent = "../x"\n', "memory/tiers.toml")
