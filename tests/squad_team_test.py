"""bench/squad_team.py: Squad's gates move entries out of history.md and decisions.md, losing none."""

from __future__ import annotations

import datetime as dt
import statistics
from pathlib import Path

from conftest import GitRepo
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import squad_team as gen
from squadmem.model import squad

HISTORY = ".squad/agents/picard/history.md"
words = st.text(alphabet="abc :-#()", min_size=1, max_size=12).filter(lambda t: t.strip())


@st.composite
def histories(draw: st.DrawFn) -> str:
    text = gen.history_header("picard", "demo", dt.date(2026, 1, 5))
    for n in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            line = f"📌 Team update (2026-01-{n + 1:02d}T17:00:00Z): {draw(words)} — decided by Data\n"
            text = gen._append_to(text, gen.UPDATES, line)
        else:
            body = "".join(f"- {draw(words)}\n" for _ in range(draw(st.integers(0, 3))))
            text = gen._append_to(text, gen.LEARNINGS, f"### {draw(words)} #{n} (2026-01-05)\n{body}")
    return text


def keys(rel: str, text: str) -> list[bytes]:
    return [e.key for e in squad.entries(rel, text) if e.kind in ("learning", "update")]


@settings(max_examples=150, deadline=None)
@given(histories(), st.integers(1, 6))
def test_keeping_the_last_entries_moves_the_rest_whole(text: str, keep: int) -> None:
    kept, moved = gen._keep_last(text, keep)
    before = keys(HISTORY, text)
    after = keys(HISTORY, kept)
    archive = "# archive\n\n## Learnings\n\n" + "".join(m for m in moved if m.startswith("### "))
    archive += "\n## Recent Updates\n\n" + "".join(gen._para(m) for m in moved if m.startswith("📌"))
    archived = keys(".squad/agents/picard/history-archive.md", archive)
    assert sorted(after + archived) == sorted(before)
    assert kept.startswith(text.split("## Recent Updates", 1)[0])  # header and Core Context stay
    for heading, mark in ((gen.UPDATES, "📌"), (gen.LEARNINGS, "### ")):
        start, end = gen._span(kept, heading)
        assert kept[start:end].count("\n" + mark) <= keep


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 90), st.integers(40, 900)), max_size=40), st.booleans())
def test_decision_archival_moves_old_entries_whole(decisions: list[tuple[int, int]], scribe: bool) -> None:
    today = dt.date(2026, 4, 1)
    text = gen.DECISIONS_HEADER
    for n, (age, size) in enumerate(decisions):
        day = (today - dt.timedelta(days=age)).isoformat()
        entry = f"### {day}: Rule {n}\n**By:** Data\n**What:** {'x' * size}\n"
        text = gen._append_to(text, gen.ACTIVE, entry)
    kept, archive, count = gen._archive_decisions(text, today, scribe=scribe)
    before = [e.key for e in squad.entries(".squad/decisions.md", text) if e.kind == "decision"]
    after = [e.key for e in squad.entries(".squad/decisions.md", kept) if e.kind == "decision"]
    moved = [
        e.key
        for e in squad.entries(".squad/decisions-archive.md", "# Archive\n\n## Archived\n\n" + archive)
        if e.kind == "decision"
    ]
    assert sorted(after + moved) == sorted(before) and len(moved) == count
    assert kept.endswith(text[text.index("## Governance") :])
    if len(text.encode()) < gen.DECISIONS_GATE:
        assert kept == text and count == 0


def test_the_same_seed_grows_the_same_team(repo: GitRepo, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    repo.git("init", "-q", "-b", "main", str(other))
    trees = []
    for root in (repo.root, other):
        team = gen.SquadTeam(root, ("picard", "data"), seed=5)
        team.found()
        for day in range(1, 8):
            team.grow(day)
        trees.append(GitRepo(root).git("rev-parse", "HEAD^{tree}", "HEAD").split())
    assert trees[0] == trees[1]


def test_entries_can_be_sized_like_real_teams(repo: GitRepo) -> None:
    """``--real-sizes``: learnings of about 1.1 KB and decisions of about 535 B, as on real teams'."""
    from bench import squad_bench

    team = gen.SquadTeam(repo.root, ("picard",), seed=5, decision_rate=1.0, **squad_bench.REAL_SIZES)
    team.found()
    for day in range(1, 15):
        team.grow(day)
    sizes: dict[str, list[int]] = {}
    for path in sorted((repo.root / ".squad").rglob("*.md")):
        rel = path.relative_to(repo.root).as_posix()
        for e in squad.entries(rel, path.read_text("utf-8")):
            sizes.setdefault(e.kind, []).append(len(e.text.encode()))
    assert 800 < statistics.median(sizes["learning"]) < 1400
    assert 400 < statistics.median(sizes["decision"]) < 700
