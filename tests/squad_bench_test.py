"""bench/squad_bench.py and bench/squad_ceiling.py: the same uses on both sides, and the ceiling's rule."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench import squad_bench, squad_ceiling
from bench.squad_team import Written
from squadmem.commands import context
from squadmem.engine import catalog
from squadmem.model import settings
from squadmem.model.errors import SquadmemError
from squadmem.model.places import SQUAD_PLACES


def _entry(title: str, topic: str, kind: str = "learning", day: int = 1) -> Written:
    return Written(title, "picard", kind, topic, day, title)


def test_ceiling_takes_the_best_odds_per_byte_while_they_fit() -> None:
    pop = squad_bench.Popularity(random.Random(1))
    pop.log = dict.fromkeys(pop.log, 0.0)
    pop.log["auth tokens"] = 2.0
    hot_big = _entry("hot big", "auth tokens")
    hot_small = _entry("hot small", "auth tokens")
    cold_small = _entry("cold small", "cache keys")
    decision = _entry("a decision", "auth tokens", kind="decision")
    size = {"hot big": 600, "hot small": 100, "cold small": 100, "a decision": 100}
    pool = [hot_big, hot_small, cold_small, decision]
    assert squad_bench.ceiling(pool, pop, 2, size, 200) == {"hot small", "a decision"}
    # per byte: hot small (e^2 / 100), hot big (e^2 / 600), the decision (0.15 e^2 / 100), cold small
    assert squad_bench.ceiling(pool, pop, 2, size, 700) == {"hot small", "hot big"}
    assert squad_bench.ceiling(pool, pop, 2, size, 800) == {"hot small", "hot big", "a decision"}
    for room in range(0, 1000, 50):
        assert sum(size[m] for m in squad_bench.ceiling(pool, pop, 2, size, room)) <= room
    assert squad_bench.ceiling([_entry("unknown", "auth tokens")], pop, 2, size, 10_000) == set()


def test_configure_writes_settings_and_refuses_unknown_ones(tmp_path: Path) -> None:
    path = tmp_path / "tiers.toml"
    path.write_text(settings.TEMPLATE, "utf-8")
    squad_bench.configure(path, ["hot.max_bytes=8192", "hot.index_max_entries=0"])
    conf = settings.load(tmp_path)
    assert (conf.hot.max_bytes, conf.hot.index_max_entries, conf.hot.max_lines) == (8192, 0, 100)
    with pytest.raises(SquadmemError, match=r"hot\.bogus is not a squadmem setting"):
        squad_bench.configure(path, ["hot.bogus=1"])


@pytest.mark.slow  # the real tool over four days: about half a minute
def test_the_replay_draws_the_same_uses_as_the_benchmark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """squad_ceiling's replay (no squadmem) and squad_bench (the real tool): same uses, same Squad hits, same
    ceiling, day by day; every squadmem commit passes verify."""
    for key in ("NAME", "EMAIL", "DATE"):
        for who in ("AUTHOR", "COMMITTER"):
            monkeypatch.setenv(f"GIT_{who}_{key}", "x" if key != "DATE" else "2026-01-05T09:00:00+00:00")
    agents = ("picard", "riker")
    days = 4
    rows, verdict, budget = squad_bench.simulate(days, agents, tmp_path / "bench")
    assert verdict == "ok"
    assert budget == 4096
    replay = squad_ceiling.Replay(tmp_path / "replay", agents)
    counts: dict[tuple[str, int], list[int]] = {}

    def tally(rule: str, size: int, kind: str, hit: bool) -> None:
        acc = counts.setdefault((rule, replay.day), [0, 0])
        acc[0] += 1
        acc[1] += hit

    for _ in range(days):
        replay.step([budget], tally)
    for row in rows:
        squad = counts.get(("Squad (its own load)", row.day), [0, 0])
        informed = counts.get(("informed", row.day), [0, 0])
        assert (row.uses, row.squad_hits, row.ceiling_hits) == (*squad, informed[1])
    assert sum(r.uses for r in rows) > 0
    assert all(r.core and r.payload_max <= budget for r in rows)


def test_a_use_named_only_by_hot_s_index_is_no_hit() -> None:
    hot = (
        "# Hot memory: picard\n## Core Context\n<!-- squadmem: pin -->\nPicard owns auth.\n"
        "## Auth tokens #3 (2026-01-08)\n- keys carry the tenant id first\n"
        "## Index → Deeper Tiers\n<!-- Written by squadmem maintain after each run. -->\n\n"
        "- picard/cache-keys-7-2026-01-09 (cold, 2026-01-10): Cache keys #7 (2026-01-09)\n"
    )
    memory = catalog.from_texts({".squad/memory/hot/picard.md": hot}, SQUAD_PLACES)
    payload = context.build(memory, "picard")[0]
    assert "Cache keys #7 (2026-01-09)" in payload
    visible = squad_bench._without_index(payload, memory, "picard")
    assert "Cache keys #7 (2026-01-09)" not in visible
    assert "Auth tokens #3 (2026-01-08)" in visible and "Picard owns auth." in visible


def test_a_task_s_focus_draws_uses_from_its_topic_and_a_focus_of_0_changes_no_draw() -> None:
    pop = squad_bench.Popularity(random.Random(1))
    pool = [_entry(f"{topic} {n}", topic) for topic in ("auth tokens", "cache keys") for n in range(20)]

    def draws(focus: float | None) -> list[str]:
        rng = random.Random(5)
        task = None
        if focus is not None:
            task = squad_bench.Task.draw(random.Random(9), pop, focus)
            task.topic = "cache keys"
        return [e.title for _ in range(20) for e in squad_bench.pick(rng, pool, pop, 2, 3, task)]

    assert draws(0.0) == draws(None)
    assert all(title.startswith("cache keys") for title in draws(1.0))
    assert not all(title.startswith("cache keys") for title in draws(0.0))


def test_a_task_names_its_topic_not_an_entry() -> None:
    pop = squad_bench.Popularity(random.Random(1))
    coin = random.Random(3)
    for _ in range(50):
        task = squad_bench.Task.draw(coin, pop, 0.5)
        assert task.topic in task.text and "#" not in task.text
