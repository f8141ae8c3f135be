"""``context --task`` keeps what the spawn block promises: an Index of what waits deeper, in the budget.

The spawn block tells each agent that ``squadmem context --task`` prints its Core Context, the
matches, its recent entries "and an Index of what waits deeper (at most 4 KB)". The payload's own
Index names each section it left out (a wiki page's in one line) as hot's Index renders its lines:
the title, the file, the tier and the date; cut last-first to fit, with a last line saying how
many more there are.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import GitRepo, squadmem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.commands import context
from squadmem.engine import catalog, index
from squadmem.model.places import SQUAD_PLACES

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"
WIKI = ".squad/memory/wiki/decisions.md"
CORE = "## Core Context\n<!-- squadmem: pin -->\nPicard owns the release train.\n"
HEAD = f"\n\n{context.INDEX_HEADING}\n\n"


def _cold(count: int) -> str:
    day = dt.date(2026, 1, 1)
    return "# Cold\n\n" + "".join(
        f"## Vault note {n} ({day + dt.timedelta(days=n)})\n- vault detail {n}: {'words ' * 20}\n"
        for n in range(count)
    )


def _index_part(text: str) -> list[str]:
    """The payload's Index lines (empty when it has none)."""
    _, cut, lines = text.partition(HEAD)
    return lines.splitlines() if cut else []


def test_the_payload_lists_what_it_left_out_as_hots_index_renders_it() -> None:
    """Regression: the Index, a hot section like any other in the fill, was the first left out at 4 KB,
    and listed the sections the payload carried as well as those it left out."""
    listed = "- Vault note 2 (2026-01-03) — .squad/memory/cold/picard.md (cold, 2026-02-11)"
    hot = (
        "# Hot\n\n" + CORE + "## Release checklist\n- tag, sign, push\n"
        f"## {index.catalog.INDEX_TITLE}\n{index.NOTE}\n\n{listed}\n"
        "- and 40 more: squadmem list --agent picard\n"
    )
    mem = catalog.from_texts(
        {HOT: hot, COLD: _cold(40), WIKI: "# Decisions\n\n## Use vault\nyes\n## Tag\nno\n"},
        SQUAD_PLACES,
    )
    text, parts, done = context.build_for_task(mem, "picard", "release tag", 4096)
    assert len(text.encode()) <= 4096
    assert (
        f"\n## {index.catalog.INDEX_TITLE}" not in text
    )  # hot's own Index is not carried: the payload has its own
    shown = _index_part(text)
    assert listed in shown  # the date hot's Index gives (its last use), not the one its heading states
    # a section hot's Index does not list: the date its heading states; a wiki page: one line, its count
    by_id = mem.by_id()
    left = [by_id[i] for i in done.indexed if i in by_id]
    assert all(f"{e.title} — {e.file} ({e.tier}, " in "\n".join(shown) for e in left)
    assert all(e.id not in {*done.matched, *done.recent, *done.named} for e in left)
    assert shown[-1] == f"- and {done.unlisted} more: squadmem list --agent picard"
    assert dict(parts)["index"] == len("".join(line + "\n" for line in shown[:-1]).encode())


def test_the_index_is_cut_last_first_and_says_how_many_more() -> None:
    mem = catalog.from_texts({HOT: "# Hot\n\n" + CORE, COLD: _cold(30)}, SQUAD_PLACES)
    full, _, everything = context.build_for_task(mem, "picard", "vault note 29", 100_000)
    assert not _index_part(full) and not everything.indexed  # nothing left out: no Index
    for budget in (700, 1200, 2500, 4096):
        text, _, done = context.build_for_task(mem, "picard", "vault note 29", budget)
        assert len(text.encode()) <= budget
        shown = _index_part(text)
        assert shown[-1] == f"- and {done.unlisted} more: squadmem list --agent picard"
        left = [
            e for e in mem.entries if e.id not in {*done.matched, *done.recent, *done.named} and not e.pinned
        ]
        order = index.order(
            [
                index.Line(
                    e.id,
                    e.title,
                    e.tier,
                    context._Index(mem, "picard", [], 5, 0)._day(e.title, e.file, [e.text]),
                    e.file,
                )
                for e in left
            ]
        )
        assert shown[:-1] == [x.render() for x in order[: len(shown) - 1]]  # a prefix: cut last-first
        assert len(done.indexed) + done.unlisted == len(left)
        if done.unlisted:  # the next line would not have fitted
            nxt = order[len(done.indexed)].render() + "\n"
            more = (
                f"- and {done.unlisted - 1} more: squadmem list --agent picard\n" if done.unlisted > 1 else ""
            )
            assert len(text.encode()) - len(shown[-1]) - 1 + len((nxt + more).encode()) > budget


def test_the_index_has_its_room_whatever_the_fill_takes() -> None:
    """The matches and recent sections fill the budget; the Index still names the newest left out
    and counts the rest, and the fill takes the room the Index keeps no more of."""
    mem = catalog.from_texts({HOT: "# Hot\n\n" + CORE, COLD: _cold(30)}, SQUAD_PLACES)
    text, _, done = context.build_for_task(mem, "picard", "vault detail words", 4096)
    held = {*done.matched, *done.recent}
    left = [e.id for e in mem.entries if e.tier == "cold" and e.id not in held]
    newest = max(left, key=lambda i: i[-10:])  # each note's id ends with the date it states
    assert done.matched and done.unlisted > 0
    assert len(done.indexed) >= context.INDEX_KEPT and done.indexed[0] == newest
    assert text.endswith(f"- and {done.unlisted} more: squadmem list --agent picard\n")
    assert len(text.encode()) <= 4096


def test_the_room_kept_for_the_index_is_its_newest_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Room for one line (and the count) is kept, not for hot's whole Index: the fill holds more."""
    mem = catalog.from_texts({HOT: "# Hot\n\n" + CORE, COLD: _cold(30)}, SQUAD_PLACES)
    _, _, kept_one = context.build_for_task(mem, "picard", "vault detail words", 4096)
    monkeypatch.setattr(context, "INDEX_KEPT", 4)
    _, _, kept_four = context.build_for_task(mem, "picard", "vault detail words", 4096)
    assert context.INDEX_KEPT == 4 and len(kept_one.matched) > len(kept_four.matched)
    assert len(kept_four.indexed) >= 4


def test_json_and_summary_say_what_the_index_lists(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "# Hot\n\n" + CORE, COLD: _cold(30)}, date="2026-03-01T12:00:00Z")
    code, out, err = squadmem(repo, "context", "-a", "picard", "--task", "vault note 29", "--json")
    data = json.loads(out)
    assert code == 0 and data["bytes"] <= 4096
    assert data["task"]["indexed"] and data["task"]["unlisted"] > 0
    assert [p["what"] for p in data["parts"]][-1] == "index"
    code, out, err = squadmem(repo, "context", "-a", "picard", "--task", "vault note 29")
    assert code == 0
    n, more = len(data["task"]["indexed"]), data["task"]["unlisted"]
    assert err.strip().endswith(f"; the Index lists {n} left out ({more} more not listed)")


def test_after_maintain_the_payloads_lines_are_hots_index_lines(repo: GitRepo) -> None:
    """With the Index ``maintain`` wrote, each line the payload shares with it is the same line."""
    repo.commit("memory", {HOT: "# Hot\n\n" + CORE, COLD: _cold(40)}, date="2026-03-01T12:00:00Z")
    code, _, err = squadmem(repo, "maintain", "--now", "2026-03-02T12:00:00Z")
    assert code == 0, err
    written = repo.read(HOT).split(f"## {index.catalog.INDEX_TITLE}\n", 1)[1]
    own = [line for line in written.splitlines() if " — " in line]
    assert own
    code, out, _ = squadmem(repo, "context", "-a", "picard", "--task", "release train", "--json")
    shown = _index_part(json.loads(out)["text"])  # the newest sections fill the room: the oldest left out
    shared = [line for line in shown if line.split(" — ")[0] in {x.split(" — ")[0] for x in own}]
    assert shared and all(line in own for line in shared)


SECTION = st.builds(
    lambda title, day, body: f"## {title} ({day})\n{body}\n",
    st.text(alphabet="abc xyz", min_size=1, max_size=12).filter(str.strip),
    st.dates().map(lambda d: f"{2000 + d.year % 30}-{d.month:02d}-{d.day:02d}"),
    st.text(alphabet="abc xyz\n", max_size=120),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hot=st.lists(SECTION, max_size=4),
    cold=st.lists(SECTION, max_size=10),
    wiki=st.lists(SECTION, max_size=5),
    task=st.sampled_from(["abc", "xyz", "abc xyz", "zzz"]),
    budget=st.integers(min_value=200, max_value=3000),
)
def test_the_payload_and_its_index_stay_in_budget_and_account_for_every_section(
    hot: list[str], cold: list[str], wiki: list[str], task: str, budget: int
) -> None:
    texts = {
        HOT: "# Hot\n\n" + CORE + "".join(hot),
        COLD: "# Cold\n\n" + "".join(cold),
        WIKI: "# W\n\n" + "".join(wiki),
    }
    mem = catalog.from_texts(texts, SQUAD_PLACES)
    text, _, done = context.build_for_task(mem, "picard", task, budget)
    assert len(text.encode()) <= budget
    held = {*done.matched, *done.named, *done.recent} | {
        e.id for e in mem.in_file(HOT) if e.id not in done.left_out
    }
    left = [e for e in mem.entries if e.id not in held]
    lines = {e.id for e in left if e.tier != "wiki"} | {f"wiki:{e.name}" for e in left if e.tier == "wiki"}
    assert set(done.indexed) <= lines
    shown = _index_part(text)
    if shown:  # every left-out section is listed or counted
        assert len(done.indexed) + done.unlisted == len(lines)
        assert len(shown) == len(done.indexed) + (1 if done.unlisted else 0)
    else:  # nothing left out, or the pinned section leaves no room for even the count
        assert not lines or not done.indexed
