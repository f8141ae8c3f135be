from __future__ import annotations

import json

from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.model.layout import MEMORY_DIR

OLD = "2025-10-01T10:00:00+00:00"
GONE = "2025-11-01T10:00:00+00:00"
LATER = "2026-02-01T10:00:00+00:00"
NOW = "2026-03-01T10:00:00+00:00"
HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
VAULT = "## Vault layout\nsecrets under kv/app, one path per service\n"
HOT_TEXT = "# Hot\n\n## Session\n- none yet\n\n" + VAULT + "\n## Deploy\nship it\n"


def history_hits(repo: GitRepo, query: str) -> list[dict[str, object]]:
    code, out, err = cli(repo, "recall", "--history", "--no-record", "--json", query)
    assert code == 0, err
    hits: list[dict[str, object]] = json.loads(out)["removed"]
    return hits


def test_a_section_deleted_months_ago_is_found_and_restored(repo: GitRepo) -> None:
    held = repo.commit("memory", {HOT: HOT_TEXT, COLD: "# Cold\n\n## Kept\nk\n"}, date=OLD)
    gone = repo.commit("tidy", {HOT: "# Hot\n\n## Session\n- none yet\n\n## Deploy\nship it\n"}, date=GONE)
    repo.commit("more", {COLD: "# Cold\n\n## Kept\nk\n\n## Other\no\n"}, date=LATER)
    code, out, _ = cli(repo, "recall", "--history", "--no-record", "secrets kv")
    assert code == 0
    assert f"squadmem restore picard/vault-layout --at {held[:12]}" in out
    [hit] = history_hits(repo, "secrets kv")
    assert hit == {
        "id": "picard/vault-layout",
        "title": "Vault layout",
        "tier": "hot",
        "file": HOT,
        "score": 2,
        "line": "secrets under kv/app, one path per service",
        "commit": held,
        "removed_in": gone,
        "removed": "2025-11-01T10:00:00Z",
        "restore": f"squadmem restore picard/vault-layout --at {held[:12]}",
    }
    code, _, err = cli(
        repo, "restore", "picard/vault-layout", "--at", held[:12], env={"GIT_COMMITTER_DATE": NOW}
    )
    assert code == 0, err
    assert VAULT in repo.read(HOT)
    assert history_hits(repo, "secrets kv") == []  # back in a tier: not removed any more
    assert cli(repo, "verify", f"{gone}..HEAD", "--now", NOW)[0] == 0  # the restore commits prove out


def test_a_section_lost_to_a_bad_merge_is_found_on_its_branch(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT_TEXT, COLD: "# Cold\n\n## Kept\nk\n"}, date=OLD)
    repo.git("checkout", "-q", "-b", "side")
    branch = repo.commit(
        "side note", {COLD: "# Cold\n\n## Kept\nk\n\n## Probe results\nsensor drift 3%\n"}, date=GONE
    )
    repo.git("checkout", "-q", "main")
    repo.commit("main edit", {COLD: "# Cold\n\n## Kept\nk, edited\n"}, date=GONE)
    repo.git("merge", "-q", "--no-gpg-sign", "-s", "ours", "side", "-m", "merge side", date=LATER)
    [hit] = history_hits(repo, "sensor drift")
    assert hit["id"] == "picard/probe-results"
    assert hit["commit"] == branch
    code, _, err = cli(
        repo, "restore", "picard/probe-results", "--at", branch, env={"GIT_COMMITTER_DATE": NOW}
    )
    assert code == 0, err
    assert "## Probe results\nsensor drift 3%\n" in repo.read(COLD)


def test_a_deleted_tier_file_leaves_its_sections_findable(repo: GitRepo) -> None:
    held = repo.commit(
        "memory", {ARCHIVE: "# Archive\n\n## Old probe\nsensor log\n", HOT: HOT_TEXT}, date=OLD
    )
    gone = repo.commit("drop archive", {ARCHIVE: None}, date=GONE)
    [hit] = history_hits(repo, "sensor")
    assert (hit["id"], hit["commit"], hit["removed_in"], hit["tier"]) == (
        "picard/old-probe",
        held,
        gone,
        "archive",
    )


def test_moved_and_edited_sections_are_not_removed(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT_TEXT, COLD: "# Cold\n\n## Kept\nk\n"}, date=OLD)
    repo.commit(
        "move and edit",
        {
            HOT: "# Hot\n\n## Session\n- none yet\n\n## Deploy\nship it on Fridays\n",
            COLD: "# Cold\n\n## Kept\nk\n\n" + VAULT,
        },
        date=GONE,
    )
    assert history_hits(repo, "secrets") == []
    assert history_hits(repo, "ship") == []
    code, out, _ = cli(repo, "recall", "--history", "--no-record", "nothing-like-this")
    assert code == 0 and out.strip() == "nothing in memory or its history matches 'nothing-like-this'"


def test_history_search_reads_only_new_commits_through_the_cache(repo: GitRepo) -> None:
    """The departures are cached with the ages: a deletion made after the cache was written is found."""
    repo.commit("memory", {HOT: HOT_TEXT}, date=OLD)
    assert history_hits(repo, "secrets") == []
    gone = repo.commit("tidy", {HOT: "# Hot\n\n## Session\n- none yet\n"}, date=GONE)
    _, _, err = cli(repo, "report", "--verbose", "--now", NOW)
    assert "read 1 commit" in err
    assert [h["removed_in"] for h in history_hits(repo, "secrets")] == [gone]
    assert [h["id"] for h in history_hits(repo, "ship")] == ["picard/deploy"]
    (repo.root / ".git" / "squadmem" / "history-cache").unlink()
    assert [h["removed_in"] for h in history_hits(repo, "secrets")] == [gone]


def test_departures_read_commit_by_commit_match_one_full_read(repo: GitRepo) -> None:
    """The cache, updated one commit at a time, knows the same departures as a read of all history."""
    from squadmem.engine.history import stream as history
    from squadmem.gitio.repo import Repo

    texts: list[dict[str, str | bytes | None]] = [
        {HOT: HOT_TEXT, COLD: "# Cold\n\n## A\na\n\n## B\nb\n"},
        {COLD: "# Cold\n\n## B\nb\n"},
        {HOT: "# Hot\n\n## Session\n- none yet\n\n## A\na\n", ARCHIVE: "# Archive\n\n## C\nc\n"},
        {ARCHIVE: None, COLD: "# Cold\n\n## B\nb, edited\n"},
        {HOT: "# Hot\n\n## Session\n- none yet\n"},
    ]
    for number, files in enumerate(texts):
        repo.commit(f"c{number}", files, date=f"2026-01-0{number + 1}T10:00:00+00:00")
        with Repo(repo.root) as opened:
            history.read_facts(opened)
    with Repo(repo.root) as opened:
        incremental = history.read_facts(opened).gone
        full = history.read_facts(opened, cache=False).gone
    # The commit sure to hold it may differ (any commit known to hold that blob there); the rest may not.
    assert {k: v[:3] + v[4:] for k, v in incremental.items()} == {k: v[:3] + v[4:] for k, v in full.items()}
    assert len(full) == 4  # Vault layout, Deploy, A (from hot; it left cold earlier too), C
