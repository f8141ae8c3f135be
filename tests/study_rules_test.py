"""bench/study_rules.py: the real-team study's fixed rules (when a spawn started, which references
count, the recall for one, BM25)."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from bench import study_rules as rules

PLUS_TWO = dt.timezone(dt.timedelta(hours=2))
ADDED = dt.datetime(2026, 7, 20, 12, 0, tzinfo=PLUS_TWO)  # the commit that added the log


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("2026-07-14T07-52-49Z-barton.md", (dt.datetime(2026, 7, 14, 7, 52, 49), True)),
        ("2026-07-14T175325Z-fury.md", (dt.datetime(2026, 7, 14, 17, 53, 25), True)),
        ("2026-07-15-06-51-14Z-banner.md", (dt.datetime(2026, 7, 15, 6, 51, 14), True)),
        ("2026-07-16T130045-vision.md", (dt.datetime(2026, 7, 16, 13, 0, 45), False)),
        ("20260717T104500Z-shuri.md", (dt.datetime(2026, 7, 17, 10, 45), True)),
        ("20260720-073121-rocket.md", (dt.datetime(2026, 7, 20, 7, 31, 21), False)),
        ("2026-03-06T0215-mcmanus.md", (dt.datetime(2026, 3, 6, 2, 15), False)),
        ("2026-04-14T21:34:14Z-scribe.md", (dt.datetime(2026, 4, 14, 21, 34, 14), True)),
        ("2026-04-09-lucius.md", (dt.datetime(2026, 4, 9), False)),
        ("lucius-session.md", None),
        ("2026-13-40-nonsense.md", None),
    ],
)
def test_stamp_reads_the_log_names_teams_write(name: str, expected: tuple[dt.datetime, bool] | None) -> None:
    assert rules.stamp(name) == expected


def test_spawn_moment_reads_a_zone_less_stamp_in_the_adding_commits_zone() -> None:
    moment = rules.spawn_moment(".squad/orchestration-log/2026-07-20T09-30-00-parker.md", ADDED)
    assert moment == dt.datetime(2026, 7, 20, 9, 30, tzinfo=PLUS_TWO)


def test_spawn_moment_takes_utc_from_a_z_and_the_start_of_the_day_from_a_date() -> None:
    utc = rules.spawn_moment(".squad/orchestration-log/2026-07-20T09-30-00Z-parker.md", ADDED)
    assert utc == dt.datetime(2026, 7, 20, 9, 30, tzinfo=dt.UTC)
    day = rules.spawn_moment(".squad/orchestration-log/2026-07-20-parker.md", ADDED)
    assert day == dt.datetime(2026, 7, 20, tzinfo=PLUS_TWO)


def test_spawn_moment_is_never_after_the_commit_that_added_the_log() -> None:
    """A stamp later than the commit (a clock or zone gone wrong) gives way to the commit."""
    assert rules.spawn_moment(".squad/orchestration-log/2026-07-21T09-00-00Z-x.md", ADDED) == ADDED
    assert rules.spawn_moment(".squad/orchestration-log/parker-session.md", ADDED) == ADDED


def _at(hour: int) -> dt.datetime:
    return dt.datetime(2026, 7, 20, hour, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("hours", "spawn", "expected"),
    [
        ([8, 9, 10], 10, 2),  # a commit at the very moment of the spawn is after it
        ([8, 9, 10], 11, 3),
        ([8, 9, 10], 7, 0),
        ([8, 12, 9], 10, 1),  # the 9 o'clock commit comes after the 12 o'clock one: its tree holds it
    ],
)
def test_state_before_keeps_only_the_commits_before_the_first_at_or_after_the_spawn(
    hours: list[int], spawn: int, expected: int
) -> None:
    assert rules.state_before([_at(h) for h in hours], _at(spawn)) == expected


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("#302", True),
        ("#7", False),  # one digit: a step or a list item as often as an issue
        ("Infra/DevOps", False),
        ("add/edit/delete", False),
        ("src/components", False),
        ("src/auth/token_store.ts", True),
        ("packages/core-lib/src", True),
        ("src/index.ts", False),  # a stock file name
        ("README.md", False),
        ("package.json", False),
        ("history.md", False),
        ("token_store.py", True),
        ("logger.exception", True),
        ("cd frontend && npm run build", False),
        ("npm test", False),
        ("main", False),
        ("useAuthStore", True),
        ("EmbeddingClient", True),
        ("GitHub", False),
        ("TypeScript", False),
        ("FR-022", True),
        ("F148", True),
        ("ES2022", False),
        ("SHA256", False),
        ("P95", False),
    ],
)
def test_counts_drops_generic_references(ref: str, expected: bool) -> None:
    assert rules.counts(ref) is expected


@pytest.mark.parametrize(
    ("ref", "query"),
    [
        ("#302", "#302"),
        ("EmbeddingClient", "EmbeddingClient"),
        ("FR-022", "FR-022"),
        ("src/auth/token_store.ts", "token_store"),
        ("token_store.py", "token_store"),
        ("src/auth/index.ts", "auth index"),
        ("src/types/api.d.ts", "api"),
        ("packages/core-lib/src", "src"),
        ("logger.exception", "logger"),
    ],
)
def test_query_for_is_what_an_agent_types_when_it_touches_the_thing(ref: str, query: str) -> None:
    assert rules.query_for(ref) == query


def test_bm25_scores_as_okapi_with_k1_1_2_and_b_0_75() -> None:
    docs = ["token rotation token", "cache keys", "token cache"]
    bm25 = rules.BM25(docs)
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    average = (3 + 2 + 2) / 3
    expected = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / average))
    assert bm25.score("token", 0) == pytest.approx(expected)
    assert bm25.ranked("token") == [0, 2]
    assert bm25.ranked("nothing here") == []


def test_bm25_ranks_a_rare_word_above_a_common_one_and_ties_in_order() -> None:
    bm25 = rules.BM25(["the fix for #302", "the cache", "the logger"])
    assert bm25.ranked("the 302") == [0, 1, 2]
    assert rules.BM25(["a b", "a b"]).ranked("a") == [0, 1]


def test_fill_takes_whole_items_in_order_while_they_fit() -> None:
    assert rules.fill([300, 500, 100, 200], [1, 0, 2, 3], 700) == {1, 2}
    assert rules.fill([300], [0, 0], 300) == {0}


def test_touched_lists_the_files_and_issues_the_work_names_in_order_once() -> None:
    work = (
        "Read src/auth/token.py and token.py again; fixed #302 (see #3, #302); "
        "wrote .squad/agents/parker/history.md; Infra/DevOps; ran `npm test` in web/app.config.ts"
    )
    assert rules.touched(work) == ["src/auth/token.py", "token.py", "#302", "web/app.config.ts"]
    assert len(rules.touched(" ".join(f"f{n}.py" for n in range(50)))) == rules.MAX_TOUCHED


def test_tool_event_is_a_read_for_a_file_and_a_shell_command_for_an_issue() -> None:
    assert rules.tool_event("s", "src/a.py") == {
        "session_id": "s",
        "tool_name": "Read",
        "tool_input": {"file_path": "src/a.py"},
    }
    issue = rules.tool_event("s", "#302")
    assert issue["tool_name"] == "Bash" and "#302" in str(issue["tool_input"])
