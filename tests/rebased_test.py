"""A move commit rebased onto a teammate's edit of its section: named, and made again as a pure move."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, squadmem

from squadmem.engine.writing import rebased
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
D0 = "2026-01-01T10:00:00+00:00"
D1 = "2026-01-20T10:00:00+00:00"
D2 = "2026-01-21T10:00:00+00:00"
NOW = "2026-01-22T10:00:00+00:00"
DATES = {"GIT_AUTHOR_DATE": D2, "GIT_COMMITTER_DATE": D2}


def hot(*parts: str) -> str:
    return "# Hot memory: picard\n\n" + "".join(parts)


def cold(*parts: str) -> str:
    return "# Cold memory: picard\n\n" + "".join(parts)


def rebased_move(repo: GitRepo, where: Path) -> None:
    """main pushed with hot A, B; a teammate's edit of A pushed; here A demoted, then
    ``git pull --rebase``: the rebased move carries A's unedited text to cold."""
    assert squadmem(repo, "init", "--agent", "picard", "--no-hooks")[0] == 0
    repo.write(HOT, hot("## A\na\n\n## B\nb\n"))
    repo.write(COLD, cold("## C\nc\n"))
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "setup", date=D0)
    bare_remote(repo, where)
    repo.git("push", "-q", "-u", "origin", "main")
    repo.git("checkout", "-q", "-b", "teammate")
    repo.commit("teammate edits A", {HOT: hot("## A\nedited\n\n## B\nb\n")}, date=D1)
    repo.git("push", "-q", "origin", "teammate:main")
    repo.git("checkout", "-q", "main")
    code, out, err = squadmem(repo, "demote", "picard/a", "--now", NOW, env=DATES)
    assert code == 0, out + err
    repo.git("pull", "-q", "--rebase", "--no-gpg-sign", "origin", "main", date=D2)
    assert "## A\na\n" in repo.read(COLD)  # the rebase's result: the unedited text moved


def test_verify_names_settle_for_a_move_rebased_onto_an_edit(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: a move rebased onto a teammate's edit of its section failed verify with three
    violations that no command cleared (settle and doctor --fix left them). verify says it in one
    line naming the command, doctor fails naming --fix; nothing is changed by either."""
    rebased_move(repo, tmp_path)
    before = repo.snapshot()
    code, out, _ = squadmem(repo, "verify", "--now", NOW)
    assert code == 1
    move = repo.git("log", "-1", "--format=%h", "--grep=Squad-Memory-Move").strip()[:7]
    assert out.splitlines() == [
        f"{move} {COLD}: picard/a arrived with its text from before an edit still in {HOT} (a move rebased"
        " onto that edit): not a pure move (run: squadmem settle, which makes the move again with the edit)",
        "verified 2 commits (1 moves, 1 index refreshes, 0 log changes): 1 violation",
    ]
    code, out, _ = squadmem(repo, "doctor")
    assert code == 1
    assert "a move rebased onto an edit of its section carried the unedited text: 'A'" in out
    assert "(run: squadmem doctor --fix, which makes the move again with the edit)" in out
    assert repo.snapshot() == before


@pytest.mark.parametrize("command", [("settle",), ("doctor", "--fix")])
def test_settle_makes_a_rebased_move_again_as_a_pure_move(
    repo: GitRepo, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """The unpublished commits from the rebased move on are made again: the move carries the
    edited text, authors, dates and subjects kept; verify then passes and the work tree is clean."""
    rebased_move(repo, tmp_path)
    subjects = repo.git("log", "--format=%s %ad %an", "origin/main..HEAD")
    code, out, err = squadmem(repo, *command)
    assert code == 0, out + err
    assert "made again: the move of 'A'" in out
    assert repo.git("log", "--format=%s %ad %an", "origin/main..HEAD") == subjects
    assert repo.git("cat-file", "blob", f"HEAD:{COLD}") == cold("## C\nc\n## A\nedited\n\n")
    assert "## A" not in repo.git("cat-file", "blob", f"HEAD:{HOT}")
    assert repo.git("status", "--porcelain") == ""
    code, out, _ = squadmem(repo, "verify", "--now", NOW)
    assert code == 0, out


def test_settle_drops_a_settle_commit_made_on_a_rebased_move(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: `squadmem settle` after the rebase committed the edit at its new place on top,
    and verify still failed on the rebased move. Now the move is made again, the settle commit
    (left empty) dropped, a later commit of the user's kept."""
    rebased_move(repo, tmp_path)
    repo.commit(
        "memory(picard): settle merge: by hand",
        {HOT: repo.read(HOT).replace("## A\nedited\n\n", ""), COLD: cold("## C\nc\n## A\nedited\n\n")},
        date=D2,
    )
    repo.commit("unrelated work", {"notes.txt": "n\n"}, date=D2)
    code, out, err = squadmem(repo, "settle")
    assert code == 0, out + err
    subjects = repo.git("log", "--format=%s", "origin/main..HEAD").splitlines()
    assert subjects == [
        "unrelated work",
        "memory(picard): refresh index",
        'memory(picard): demote "A" hot → cold',
    ]
    assert repo.read("notes.txt") == "n\n"
    assert squadmem(repo, "verify", "--now", NOW)[0] == 0
    assert squadmem(repo, "settle")[1].strip() == "nothing to settle"


def test_a_published_rebased_move_is_not_rewritten(repo: GitRepo, tmp_path: Path) -> None:
    """A rebased move already on a remote-tracking branch is never rewritten (settle only commits
    the edit at its new place on top); verify keeps reporting it."""
    rebased_move(repo, tmp_path)
    repo.git("push", "-q", "origin", "main")
    published = repo.head()
    code, out, err = squadmem(repo, "settle")
    assert code == 0, out + err
    assert "made again" not in out
    repo.git("merge-base", "--is-ancestor", published, "HEAD")
    code, out, _ = squadmem(repo, "verify", "HEAD", "--now", NOW)
    assert code == 1
    assert "(published: run git rebase -i " in out and "--force-with-lease)" in out


@pytest.mark.parametrize(
    ("after_hot", "after_cold", "expected"),
    [
        (hot("## A\nedited\n"), cold("## A\na\n"), ("## A\na\n", "## A\nedited\n")),  # rebased
        (hot(), cold("## A\nedited\n"), None),  # a pure move
        (hot(), cold("## A\na\n"), None),  # bytes changed: left to verify's exact rules
        (hot("## A\nedited\n"), cold("## A\nedited\n"), None),  # a copy: conservation's
        (hot("## A\nedited\n"), cold("## Z\na\n"), None),  # another heading
    ],
)
def test_edited_under_recognises_only_a_rebased_move(
    after_hot: str, after_cold: str, expected: tuple[str, str] | None
) -> None:
    before = {HOT: hot("## A\nedited\n"), COLD: cold()}
    after = {HOT: after_hot, COLD: after_cold}
    assert rebased.edited_under(before, after, HOT, COLD) == expected


def test_a_rebased_move_whose_section_changed_since_is_refused_naming_the_way(
    repo: GitRepo, tmp_path: Path
) -> None:
    """The section edited again after the rebase: the move cannot be made again without changing
    that commit; settle refuses, exit 2, naming git rebase -i, and changes nothing."""
    rebased_move(repo, tmp_path)
    repo.commit("edit A again", {HOT: repo.read(HOT).replace("edited\n", "edited twice\n")}, date=D2)
    before = repo.snapshot()
    code, _, err = squadmem(repo, "settle")
    assert code == 2
    first, hint = err.splitlines()[:2]
    assert first.startswith("squadmem: ") and "squadmem cannot make that move again" in first
    assert hint.startswith("hint: make it again by hand: git rebase -i ")
    assert repo.snapshot() == before
