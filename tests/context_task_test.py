"""``squadmem context --task``: the spawn's task fills hot.max_bytes with the sections that match it."""

from __future__ import annotations

import json
import math
import warnings

import pytest
from conftest import GitRepo, assert_refused, squadmem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.commands import context
from squadmem.engine import catalog
from squadmem.engine.search import ranking
from squadmem.model import render, uses
from squadmem.model.errors import SquadmemWarning
from squadmem.model.places import SQUAD_PLACES

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"
WIKI = ".squad/memory/wiki/decisions.md"
RIKER = ".squad/memory/hot/riker.md"
CORE = "## Core Context\n<!-- squadmem: pin -->\nPicard owns auth tokens.\n"
FILES = {
    HOT: (
        "# Hot memory: picard\n\n"
        + CORE
        + "## Session\nship the release\n"
        + "## Cache keys #2 (2026-02-20)\n- keys carry the tenant id first\n"
    ),
    COLD: (
        "# Cold\n\n## Billing retries #3 (2026-02-01)\n- fixed billing retries: three attempts\n"
        "## Auth tokens #4 (2026-02-02)\n- fixed auth tokens: rotate weekly\n- auth tokens expire\n"
    ),
    ARCHIVE: "# Archive\n\n## Auth tokens #1 (2026-01-05)\n- measured auth tokens: 30 s  \n",
    WIKI: "# Decisions\n\n## 2026-02-03: Auth tokens rule #5\n**What:** auth tokens rotate\n",
    RIKER: "# Hot memory: riker\n\n## Auth tokens #9 (2026-02-04)\n- riker's own auth tokens note\n",
}
TASK = "Work on the auth tokens issue reported today."


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.commit("memory", FILES, date="2026-03-01T12:00:00+00:00")
    return repo


def _budget(repo: GitRepo, max_bytes: int, index_lines: int = 5) -> None:
    repo.commit(
        "budget",
        {".squad/memory/tiers.toml": f"[hot]\nmax_bytes = {max_bytes}\nindex_max_entries = {index_lines}\n"},
        date="2026-03-01T13:00:00Z",
    )


def test_task_brings_matching_sections_of_every_tier_whole(memory: GitRepo) -> None:
    code, out, err = squadmem(memory, "context", "--agent", "picard", "--task", TASK)
    assert code == 0
    head, _, matched = out.partition("\n### Sections matching the task\n\n")
    matched, _, recent = matched.partition("\n### Recent memory\n\n")
    assert head.startswith("## Memory Context\n\n### Hot (current session)\n\n" + CORE)
    assert "## Session\nship the release\n" in head and "## Cache keys #2" in head
    # all three hold both words, and history holds them all from one commit (as new as each other):
    # by BM25, cold's #4 says them most often (its length weighs less than its count), then the
    # decision and the archive entry score alike, the newer (by the date its title states) first;
    # riker's is not picard's
    assert matched == (
        "## Auth tokens #4 (2026-02-02)\n- fixed auth tokens: rotate weekly\n- auth tokens expire\n"
        "## 2026-02-03: Auth tokens rule #5\n**What:** auth tokens rotate\n"
        "## Auth tokens #1 (2026-01-05)\n- measured auth tokens: 30 s  \n"
    )
    assert "Billing" not in head + matched and "riker" not in out
    # the room left holds the rest of picard's deeper tiers, newest first: the one that does not match
    assert recent == "## Billing retries #3 (2026-02-01)\n- fixed billing retries: three attempts\n"
    # and the two hot sections holding "the" (BM25 weighs it for what it is: a word most sections hold)
    assert err.strip().endswith("5 section(s) matching the task, 1 recent")
    assert uses.pending(memory.root / ".git" / "squadmem") == {}  # candidates, not uses


def _index_least(count: int, agent: str = "picard") -> int:
    """The bytes the payload's Index takes at least: its heading and the line counting what it left out."""
    return len(f"\n{context.INDEX_HEADING}\n\n- and {count} more: squadmem list --agent {agent}\n".encode())


def test_task_json_lists_the_matches_and_what_was_left_out(memory: GitRepo) -> None:
    budget = 330 + _index_least(7)  # 330 B for the fill (picard has seven sections but the pinned one)
    _budget(memory, budget)
    code, out, _ = squadmem(memory, "context", "-a", "picard", "--task", TASK, "--json")
    data = json.loads(out)
    assert code == 0
    assert data["bytes"] == len(data["text"].encode()) <= budget
    assert data["used"] == []
    assert data["task"]["text"] == TASK
    assert data["task"]["words"] == ["work", "on", "the", "auth", "tokens", "issue", "reported", "today"]
    # the best match by BM25 (cold's #4) and then the decision (as good as the archive's #1, and
    # newer) fit in 330 B; the Session block (it holds "the") fits, hot's longer Cache keys
    # section does not
    matched = [
        "picard/auth-tokens-4-2026-02-02",
        "wiki:decisions/2026-02-03-auth-tokens-rule-5",
        "picard/session",
    ]
    assert data["task"]["matched"] == matched
    assert data["task"]["left_out"] == ["picard/cache-keys-2-2026-02-20"]
    assert [p["what"] for p in data["parts"]] == ["hot", "task"]
    # what it left out has no room for a line of its own: the Index says how many
    assert data["task"]["indexed"] == [] and data["task"]["unlisted"] == 3
    assert data["text"].endswith(
        f"\n\n{context.INDEX_HEADING}\n\n- and 3 more: squadmem list --agent picard\n"
    )


def test_hot_sections_fill_what_the_matches_leave_in_hot_order(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "context", "-a", "picard", "--task", "rotate the cache keys")
    assert code == 0
    hot = out.split("### Hot (current session)\n\n", 1)[1]
    # the matching hot section stays in the hot block, in hot's order, and is not repeated
    assert hot.startswith(CORE + "## Session\nship the release\n## Cache keys #2 (2026-02-20)\n")
    assert out.count("## Cache keys #2") == 1


def test_without_task_the_context_is_as_before(memory: GitRepo) -> None:
    code, out, err = squadmem(memory, "context", "-a", "picard")
    assert code == 0
    assert out == context.build(catalog.from_texts(FILES, SQUAD_PLACES), "picard")[0]
    assert "matching the task" not in out + err
    assert "task" not in json.loads(squadmem(memory, "context", "-a", "picard", "--json")[1])


@pytest.mark.parametrize("task", ["", "   ", "\t\n"])
def test_an_empty_task_is_refused(memory: GitRepo, task: str) -> None:
    assert_refused(memory, "context", "-a", "picard", "--task", task, message="squadmem: --task is empty")


@pytest.mark.parametrize("extra", [("--include-cold",), ("--include-wiki", "decisions"), ("--include", "x")])
def test_task_with_an_include_is_refused(memory: GitRepo, extra: tuple[str, ...]) -> None:
    message = "squadmem: --task does not combine with --include-cold, --include-wiki or --include"
    assert_refused(memory, "context", "-a", "picard", "--task", TASK, *extra, message=message)


def test_task_for_an_unknown_agent_is_refused(memory: GitRepo) -> None:
    message = "squadmem: agent worf: no tier file belongs to this agent"
    assert_refused(memory, "context", "-a", "worf", "--task", TASK, message=message)


def test_pinned_sections_over_the_budget_stay_with_a_warning() -> None:
    mem = catalog.from_texts(FILES, SQUAD_PLACES)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SquadmemWarning)
        text, _, done = context.build_for_task(mem, "picard", TASK, 60)
    assert CORE in text and "## Session" not in text and done.matched == ()
    assert [str(w.message) for w in caught] == [
        f"picard's pinned sections make a {len(text.encode())} B context, over hot.max_bytes 60 B"
    ]


def test_task_keeps_section_bytes() -> None:
    mem = catalog.from_texts({HOT: "## A\r\nx  \r\n## Auth\r\nauth  \r\n## B\ny\n"}, SQUAD_PLACES)
    text, _, done = context.build_for_task(mem, "picard", "auth", 4096)
    assert "## A\r\nx  \r\n## Auth\r\nauth  \r\n## B\ny\n" in text
    assert done.matched == ("picard/auth",)


def test_task_words_leave_out_short_function_and_common_words() -> None:
    entries = [e for e in catalog.from_texts(FILES, SQUAD_PLACES).visible_to("picard") if not e.pinned]
    assert ranking.task_terms("Fix (the) 'auth' bug, on the keys!", entries) == ["fix", "auth", "bug", "keys"]
    common = catalog.from_texts({HOT: "## A\nfix a\n## B\nfix b\n## C\nauth\n"}, SQUAD_PLACES).entries
    assert ranking.task_terms("fix auth", common) == ["auth"]  # 2 of 3 sections hold "fix"


def test_rank_of_a_task_puts_more_words_first_and_of_a_query_needs_every_word() -> None:
    mem = catalog.from_texts({HOT: "## A\nauth auth auth\n## B\nauth tokens\n## C\nnothing\n"}, SQUAD_PLACES)
    a, b, _ = mem.entries
    assert ranking.rank(mem.entries, ["auth", "tokens"], every=False) == [(b, 2), (a, 3)]
    assert ranking.rank(mem.entries, ["auth", "tokens"]) == [(b, 2)]


def test_task_words_add_the_parts_of_joined_words_and_keep_issue_numbers() -> None:
    words = ranking.task_terms("Fix document-indexer logging (Issue #302) in src/auth.py", [])
    joined = ["document-indexer", "document", "indexer"]
    assert words == ["fix", *joined, "logging", "issue", "#302", "src/auth.py", "src", "auth"]  # "py": short


def test_rank_of_a_task_puts_the_rarer_word_first() -> None:
    mem = catalog.from_texts(
        {HOT: "## A\nfix it\n## B\nfix that\n## C\nsaw #302 once\n## D\nx\n## E\ny\n## F\nz\n"}, SQUAD_PLACES
    )
    a, b, c, *_ = mem.entries
    # "fix": 2 of 6 sections hold it, weight log(7/3); "#302": 1, weight log(7/2)
    assert ranking.weights(mem.entries, ["fix", "#302"]) == pytest.approx(
        {"fix": math.log(7 / 3), "#302": math.log(7 / 2)}
    )
    assert ranking.rank(mem.entries, ["fix", "#302"], every=False) == [(c, 1), (a, 1), (b, 1)]


def test_rank_of_a_task_puts_the_denser_of_equal_matches_first() -> None:
    long = "## Long\n" + "auth tokens\n" + "more words that say nothing of it\n" * 20
    mem = catalog.from_texts({HOT: long + "## Short\nauth tokens, once\n## Other\nnothing\n"}, SQUAD_PLACES)
    longer, short, _ = mem.entries
    assert ranking.rank(mem.entries, ["auth", "tokens"], every=False) == [(short, 2), (longer, 2)]
    # a query orders by score alone: the same two hold every word as often
    assert ranking.rank(mem.entries, ["auth", "tokens"]) == [(longer, 2), (short, 2)]


SECTION = st.builds(
    lambda title, words: f"## {title}\n" + " ".join(words) + "\n",
    st.text(alphabet="abcdefgh ", min_size=1, max_size=12).map(lambda t: t.strip() or "t"),
    st.lists(st.sampled_from(["auth", "tokens", "cache", "keys", "the", "ünï", "x" * 40]), max_size=30),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hot=st.lists(SECTION, max_size=8),
    cold=st.lists(SECTION, max_size=8),
    wiki=st.lists(SECTION, max_size=6),
    task=st.one_of(
        st.text(alphabet="abcdefghiknorstuy ", min_size=1, max_size=40).filter(str.strip),
        st.lists(st.sampled_from(["auth", "tokens", "cache", "keys", "ünï", "fix"]), min_size=1).map(
            " ".join
        ),
    ),
    budget=st.integers(min_value=120, max_value=1500),
)
def test_task_context_stays_in_budget_with_whole_sections_once(
    hot: list[str], cold: list[str], wiki: list[str], task: str, budget: int
) -> None:
    texts = {
        HOT: "# Hot\n\n## Core Context\n<!-- squadmem: pin -->\nPicard.\n" + "".join(hot),
        COLD: "# Cold\n\n" + "".join(cold),
        WIKI: "# Wiki\n\n" + "".join(wiki),
    }
    mem = catalog.from_texts(texts, SQUAD_PLACES)
    text, parts, done = context.build_for_task(mem, "picard", task, budget)
    assert len(text.encode("utf-8")) <= budget
    assert "## Core Context\n<!-- squadmem: pin -->\nPicard.\n" in text
    by_id = mem.by_id()
    body = text.split("### Hot (current session)\n\n", 1)[1]
    body, cut, listed = body.partition(f"\n\n{context.INDEX_HEADING}\n\n")
    body += "\n" if cut else ""
    held = {*done.matched, *done.named, *done.recent} | {
        e.id for e in mem.in_file(HOT) if e.id not in done.left_out
    }
    left = [e for e in mem.entries if e.id not in held]
    if listed:  # the Index: a line for what the payload left out (a wiki page's in one), cut last-first
        topics = {f"wiki:{e.name}" for e in left if e.tier == "wiki"}
        assert set(done.indexed) <= {e.id for e in left if e.tier != "wiki"} | topics
        assert len(done.indexed) + done.unlisted == len({e.id for e in left if e.tier != "wiki"} | topics)
        more = f"- and {done.unlisted} more: squadmem list --agent picard\n" if done.unlisted else ""
        assert listed.count("\n") == len(done.indexed) + bool(more) and listed.endswith(more)
    else:  # nothing left out, or only the pinned section's room
        assert not left or len(text.encode()) + _index_least(done.unlisted) > budget
    shown = [e for e in mem.entries if e.id in done.matched or (e.file == HOT and e.id not in done.left_out)]
    # every section shown is whole, once; nothing else is in the payload
    rebuilt = "".join(e.text for e in shown if e.file == HOT)
    deeper = [by_id[i] for i in done.matched if by_id[i].file != HOT]
    if deeper:
        rebuilt = (
            rebuilt.rstrip("\n") + "\n\n### Sections matching the task\n\n" + "".join(e.text for e in deeper)
        )
    if done.recent:  # the room left: deeper sections that neither match nor are named, newest first
        recent = [by_id[i] for i in done.recent]
        rebuilt = rebuilt.rstrip("\n") + f"\n\n{context.RECENT_HEADING}\n\n" + "".join(e.text for e in recent)
        assert all(e.file != HOT for e in recent) and not set(done.recent) & set(done.matched + done.named)
        assert list(done.recent) == [e.id for e in ranking.newest(recent)]
    if done.named:  # further matches, a line each: never a section the payload holds
        lines = "".join(render.named(i, by_id[i].tier, by_id[i].title) + "\n" for i in done.named)
        note = context.MORE_NOTE.format(agent="picard")
        rebuilt = rebuilt.rstrip("\n") + f"\n\n{context.MORE_HEADING}\n\n{note}\n\n{lines}"
        assert not set(done.named) & {e.id for e in shown}
        terms = list(done.words)  # what --task ranks by
        assert all(set(ranking.tokens(by_id[i].text)) & set(terms) for i in done.named)
    assert body == rebuilt.rstrip("\n") + "\n"
    assert len(set(done.matched)) == len(done.matched) and len(set(done.named)) == len(done.named)
    assert len(set(done.recent)) == len(done.recent)
    assert dict(parts)["hot"] == len("".join(e.text for e in shown if e.file == HOT).encode())


def test_a_match_ending_in_a_blank_line_does_not_take_the_payload_over_its_budget() -> None:
    """The further matches' lines and the recent sections follow a match that ends with a blank line
    one blank line apart, as ``fill`` counts them (the payload was 1 B over its budget)."""
    long = "auth " * 10 + "x" * 40 + " " + "x" * 40
    texts = {HOT: "# Hot\n\n" + CORE, WIKI: "# Wiki\n\n## a\n\n## a\n\n## a\n" + long + "\n"}
    mem = catalog.from_texts(texts, SQUAD_PLACES)
    for budget in range(150, 320):
        text, _, done = context.build_for_task(mem, "picard", "a", budget)
        assert len(text.encode("utf-8")) <= budget
        assert "\n\n\n" not in text
    text, _, done = context.build_for_task(mem, "picard", "a", 290 + _index_least(4))  # nothing left out
    assert done.named == ("wiki:decisions/a-3",) and text.endswith(
        "## a\n\n### More matching the task\n\n"
        + (context.MORE_NOTE.format(agent="picard") + "\n\n- wiki:decisions/a-3 (wiki)\n")
    )


def _many_matches() -> tuple[dict[str, str], int]:
    """Four long sections match the task and five others do not (nothing dates them: nothing but a
    match recommends a section); a budget with room for one whole matching section and some lines."""
    long = "- " + "auth tokens detail " * 12 + "\n"
    texts = {
        HOT: "# Hot\n\n" + CORE,
        COLD: "# Cold\n\n"
        + "".join(f"## Auth tokens {n}\n{long}" for n in range(4))
        + "".join(f"## Cache keys {n}\n- tenant first\n" for n in range(5)),  # the task's words say something
    }
    mem = catalog.from_texts(texts, SQUAD_PLACES)
    text, parts, _ = context.build_for_task(mem, "picard", "auth tokens", 10_000)
    recent = dict(parts)["recent"] + len(f"\n{context.RECENT_HEADING}\n\n".encode())  # the rest, newest first
    alone = len(text.encode()) - recent
    return texts, alone - 3 * len(f"## Auth tokens 0\n{long}".encode()) + 200 + _index_least(10)


def test_the_room_left_names_further_matches_a_line_each() -> None:
    texts, budget = _many_matches()
    mem = catalog.from_texts(texts, SQUAD_PLACES)
    text, parts, done = context.build_for_task(mem, "picard", "auth tokens", budget, index_lines=1)
    assert len(text.encode()) <= budget
    assert len(done.matched) == 1 and len(done.named) >= 2
    note = context.MORE_NOTE.format(agent="picard")
    more = "".join(f"- {i} (cold)\n" for i in done.named)  # each id says its title
    text = text.partition(f"\n\n{context.INDEX_HEADING}\n\n")[0] + "\n"
    assert text.endswith(f"\n{context.MORE_HEADING}\n\n{note}\n\n" + more)
    assert not set(done.named) & set(done.matched)
    assert dict(parts)["named"] == len(more.encode())
    rest = [e for e in mem.entries if e.title.startswith("Auth") and e.id not in {*done.matched, *done.named}]
    room = budget - _index_least(10) - len(text.encode())  # the Index keeps its room
    assert all(len(f"- {e.id} (cold): {e.title}\n".encode()) > room for e in rest)
    smaller = len(text.encode()) - len(more.encode()) + _index_least(10)
    tight = context.build_for_task(mem, "picard", "auth tokens", smaller, index_lines=1)
    assert tight[2].matched == done.matched  # the lines take only room no section could use


def test_task_json_and_summary_count_the_named(repo: GitRepo) -> None:
    texts, budget = _many_matches()
    # the sections that match nothing were written days before: nothing recommends them
    older = {COLD: "# Cold\n\n" + "".join(f"## Cache keys {n}\n- tenant first\n" for n in range(5))}
    repo.commit("older", older, date="2026-02-25T12:00:00+00:00")
    repo.commit("memory", texts, date="2026-03-01T12:00:00+00:00")
    _budget(repo, budget, index_lines=1)
    code, out, err = squadmem(repo, "context", "--agent", "picard", "--task", "auth tokens", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert len(data["task"]["named"]) >= 2 and data["bytes"] <= budget
    assert all(f"- {i} (cold)\n" in data["text"] for i in data["task"]["named"])
    code, out, err = squadmem(repo, "context", "--agent", "picard", "--task", "auth tokens")
    assert code == 0 and f"{len(data['task']['named'])} more named" in err


def test_newest_goes_by_the_date_a_section_states_then_by_tier_and_place() -> None:
    mem = catalog.from_texts(
        {
            COLD: "# Cold\n\n## Old #1 (2026-01-05)\nx\n## Plain\ny\n## Later\nz\n",
            ARCHIVE: "# Archive\n\n## Stamped 2026-02-03T18:52:23Z\nw\n## Undated\nv\n",
            WIKI: "# Decisions\n\n## Decision\n- **2026-01-20:** chosen\n## 2025-12-31: Rule\nu\n",
        },
        SQUAD_PLACES,
    )
    order = [e.title for e in ranking.newest(mem.entries)]
    # dated first, latest first (a date counts where the heading states it, not in the body); then the
    # undated: cold before the wiki before the archive, each file's last first
    dated = ["Stamped 2026-02-03T18:52:23Z", "Old #1 (2026-01-05)", "2025-12-31: Rule"]
    assert order == [*dated, "Later", "Plain", "Decision", "Undated"]
    assert ranking.stated_date("## 12026-01-055\n") is None
    assert ranking.stated_date("\n## 2026-01-05\n") == "2026-01-05"


def test_the_room_left_takes_every_deeper_section_that_fits_newest_first(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "context", "-a", "picard", "--task", "rotate the cache keys", "--json")
    done = json.loads(out)
    assert code == 0
    # all from one commit, so by BM25: hot's Cache keys says "cache keys", the short Session block
    # holds "the" (few sections do), and deeper only the decision and cold's #4 say "rotate"; the
    # room left holds the rest of picard's cold and archive (riker's hot is not picard's), by the
    # dates their headings state, newest first
    assert done["task"]["matched"] == [
        "picard/cache-keys-2-2026-02-20",
        "picard/session",
        "wiki:decisions/2026-02-03-auth-tokens-rule-5",
        "picard/auth-tokens-4-2026-02-02",
    ]
    recent = ["picard/billing-retries-3-2026-02-01", "picard/auth-tokens-1-2026-01-05"]
    assert done["task"]["recent"] == recent
    assert [p["what"] for p in done["parts"]] == ["hot", "task", "recent"]


def test_the_room_left_holds_what_reached_history_last_first(repo: GitRepo) -> None:
    # the same sections, but the archive's older-looking one was written last: history, not the date a
    # title states, says which is newest
    older = {k: v for k, v in FILES.items() if k != ARCHIVE}
    repo.commit("memory", older, date="2026-03-01T12:00:00+00:00")
    repo.commit("late note", {ARCHIVE: FILES[ARCHIVE]}, date="2026-03-05T12:00:00+00:00")
    code, out, _ = squadmem(repo, "context", "-a", "picard", "--task", "ship the release")
    assert code == 0
    recent = out.split("\n### Recent memory\n\n", 1)[1]
    assert recent.index("## Auth tokens #1 (2026-01-05)") < recent.index("## 2026-02-03: Auth tokens rule #5")
    assert recent.index("## 2026-02-03: Auth tokens rule #5") < recent.index("## Auth tokens #4 (2026-02-02)")


def test_the_newest_take_the_rooms_first_tenth_under_recent_memory() -> None:
    # a short, newest section that does not match goes in before a long match, under its own heading:
    # the match, left without room, is named a line
    match = "## Auth tokens (2026-01-01)\n- " + "auth tokens detail " * 30 + "\n"
    newest = "## Deploy notes (2026-02-20)\n- ship it\n"
    alone = catalog.from_texts({HOT: "# Hot\n\n" + CORE, COLD: "# Cold\n\n" + match}, SQUAD_PLACES)
    text, _, done = context.build_for_task(alone, "picard", "auth tokens", 4096)
    budget = len(text.encode()) + 40
    assert done.matched == ("picard/auth-tokens-2026-01-01",)
    both = catalog.from_texts({HOT: "# Hot\n\n" + CORE, COLD: "# Cold\n\n" + match + newest}, SQUAD_PLACES)
    text, _, done = context.build_for_task(both, "picard", "auth tokens", budget)
    assert len(text.encode()) <= budget
    assert done.recent == ("picard/deploy-notes-2026-02-20",) and done.matched == ()
    assert done.named == ("picard/auth-tokens-2026-01-01",)
    assert context.TASK_HEADING not in text and f"{context.RECENT_HEADING}\n\n{newest}" in text
