"""The search index: what agents type finds the sections that name it; kept current by owner."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from conftest import GitRepo, squadmem

from squadmem.engine.search import index as search_index
from squadmem.gitio.repo import Repo

DAY = "2026-03-01T12:00:00+00:00"
HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
WORF = ".squad/memory/archive/worf.md"
WIKI = ".squad/memory/wiki/security.md"
FILES = {
    HOT: "# Hot\n\n## Token refresh\nThe fix for #123 lives in src/auth/token.py (TokenCache).\n",
    COLD: "# Cold\n\n## Login form\nFR-022 asks for a second factor; #1234 tracks it.\n"
    "## Tokens elsewhere\nTokenCache is also used by the billing worker.\n",
    WORF: "# Archive\n\n## Old VPN\nThe vpn keys for token.py moved.\n",
    WIKI: "# Wiki\n\n## Key rotation\nRotate signing keys every 90 days.\n",
}


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["src/auth/token.py"], '"src auth token py" *'),
        (["#123"], '"123"'),
        (["FR-022"], '"fr 022"'),
        (["FooBar", "keys"], '"foobar" * OR "keys" *'),
        (["keys", "KEYS"], '"keys" *'),
        (["#", "--"], None),
    ],
)
def test_match_expression(words: list[str], expected: str | None) -> None:
    assert search_index.match_expression(words) == expected


def ids(repo: GitRepo, *args: str) -> list[str]:
    code, out, err = squadmem(repo, "recall", *args, "--json", "--no-record", "--no-logs", "--limit", "9")
    assert code == 0, err
    return [s["id"] for s in json.loads(out)["sections"]]


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.commit("memory", FILES, date=DAY)
    return repo


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("src/auth/token.py", ["picard/token-refresh"]),  # a path: its parts, in order
        ("token.py", ["picard/token-refresh", "worf/old-vpn"]),
        ("#123", ["picard/token-refresh"]),  # not #1234
        ("#1234", ["picard/login-form"]),
        ("FR-022", ["picard/login-form"]),
        ("fr-022 second", ["picard/login-form"]),
        ("TokenCache", ["picard/token-refresh", "picard/tokens-elsewhere"]),
        ("rotat", ["wiki:security/key-rotation"]),  # a prefix
        ("vpn billing", ["worf/old-vpn", "picard/tokens-elsewhere"]),  # any word
        ("kubernetes pods", []),
        (
            "cache",
            ["picard/token-refresh", "picard/tokens-elsewhere"],
        ),  # inside TokenCache, when whole words are few
        ("#12", []),  # a number is found whole
    ],
)
def test_what_agents_type_finds_what_names_it(memory: GitRepo, query: str, expected: list[str]) -> None:
    assert sorted(ids(memory, query)) == sorted(expected)


def test_bm25_ranks_a_title_match_first(memory: GitRepo) -> None:
    assert ids(memory, "token")[0] in ("picard/token-refresh", "picard/tokens-elsewhere")
    assert ids(memory, "token", "--agent", "worf") == ["worf/old-vpn"]
    assert sorted(ids(memory, "keys", "--agent", "worf")) == ["wiki:security/key-rotation", "worf/old-vpn"]
    assert ids(memory, "keys", "--tier", "wiki") == ["wiki:security/key-rotation"]


def test_an_edited_file_is_indexed_again_and_others_are_not(memory: GitRepo) -> None:
    assert ids(memory, "vpn") == ["worf/old-vpn"]
    db = sqlite3.connect(memory.root / ".git/squadmem" / search_index.FILE)
    before = dict(db.execute("SELECT owner, signature FROM owners"))
    memory.write(WORF, "# Archive\n\n## Old VPN\nThe wireguard keys moved.\n")
    assert ids(memory, "vpn") == ["worf/old-vpn"] and ids(memory, "wireguard") == ["worf/old-vpn"]
    assert ids(memory, "token.py") == ["picard/token-refresh"]
    after = dict(db.execute("SELECT owner, signature FROM owners"))
    assert [o for o in after if after[o] != before[o]] == ["worf"]
    os.unlink(memory.root / WORF)
    assert ids(memory, "wireguard") == []
    assert "worf" not in dict(db.execute("SELECT owner, signature FROM owners"))


def test_a_broken_index_file_is_made_again(memory: GitRepo) -> None:
    assert ids(memory, "vpn") == ["worf/old-vpn"]
    (memory.root / ".git/squadmem" / search_index.FILE).write_bytes(b"not a database at all" * 100)
    assert ids(memory, "vpn") == ["worf/old-vpn"]


def test_an_index_it_cannot_write_is_kept_in_memory(memory: GitRepo, tmp_path: Path) -> None:
    state = tmp_path / "read-only"
    state.mkdir()
    state.chmod(0o500)
    try:
        with search_index.opened(state) as index:
            index.refresh(Repo(memory.root).layout)
            found, total = index.search(["vpn"])
    finally:
        state.chmod(0o700)
    assert [f.id for f in found] == ["worf/old-vpn"] and total == 1


def test_an_unreadable_file_leaves_out_its_owner_only(memory: GitRepo) -> None:
    memory.write(COLD, b"# Cold\n\n## Bad\n\xff\n")
    code, out, err = squadmem(memory, "recall", "keys", "--json", "--no-record", "--no-logs")
    assert code == 0
    assert sorted(s["id"] for s in json.loads(out)["sections"]) == [
        "wiki:security/key-rotation",
        "worf/old-vpn",
    ]
    assert (
        "squadmem: warning: .squad/memory/cold/picard.md: not UTF-8 (byte 15) (picard's memory is left out)"
        in err
    )
    code, _, err = squadmem(memory, "recall", "keys", "--agent", "picard")
    assert code == 2 and err.startswith("squadmem: .squad/memory/cold/picard.md: not UTF-8 (byte 15)")


def test_the_sections_quoting_what_was_typed_come_first(repo: GitRepo) -> None:
    visible = "".join(
        f"## Visible item {n}\nHow to find what is visible, find it, find visible things.\n" for n in range(6)
    )
    repo.commit(
        "memory",
        {
            HOT: "# Hot\n\n" + visible + "## Parser overhaul\nThe resolver now calls find_visible() once.\n",
            COLD: "# Cold\n\n## Build items\nEach <Compile> item of the project file, compiled.\n"
            + "".join(f"## Compiler note {n}\nThe compiler, compile, compile again.\n" for n in range(6)),
        },
        date=DAY,
    )
    for query, expected in (
        ("find_visible()", "picard/parser-overhaul"),
        ("<Compile>", "picard/build-items"),
    ):
        code, out, err = squadmem(repo, "recall", query, "--json", "--no-record", "--no-logs", "--limit", "1")
        assert code == 0, err
        assert [s["id"] for s in json.loads(out)["sections"]] == [expected]


def test_literal_first_keeps_the_given_order_among_equals() -> None:
    hits = [
        search_index.Found(str(n), "hot", "f", "a", "t", text)
        for n, text in enumerate(["about foo bar", "FooBar here", "foobar here", "FooBar and foobar"])
    ]
    assert [f.id for f in search_index.literal_first(hits, ["FooBar"])] == ["1", "3", "2", "0"]


def test_sections_naming_the_word_as_a_file_a_path_or_in_code_come_first() -> None:
    texts = [
        "the response was slow, response after response",  # uses the word in passing
        "fixed the parser in response.ts",  # a file of that name
        "moved api/response/ handlers",  # a path part
        "calls `buildResponse()` now",  # inside a code span
        "the responses were slow",
    ]
    hits = [search_index.Found(str(n), "hot", "f", "a", "t", text) for n, text in enumerate(texts)]
    assert [f.id for f in search_index.literal_first(hits, ["response"])] == ["1", "2", "3", "0", "4"]
    assert search_index.names("token", "see src/auth/token.py")
    assert not search_index.names("token", "a token.") and not search_index.names("token", "tokens.py")
