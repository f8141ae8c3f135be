"""git's named questions (gitio.questions, and Repo's for maintain and intake) on real repositories.

The hooks ask them where git runs hooks, at the top of the work tree; so do these tests.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo

from squadmem.gitio import gitdir, questions, runner
from squadmem.gitio.repo import Repo

DATE = "2026-03-01T12:00:00Z"
LATER = "2026-03-02T12:00:00Z"
LOG = ".squad/memory/log/2026-03-01.md"
HOT = ".squad/memory/hot/picard.md"


@pytest.fixture(params=["sha1", "sha256"])
def at_top(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A repository of each object format, the process at the top of its work tree."""
    root = tmp_path / request.param
    subprocess.run(
        ["git", "init", "-q", "-b", "main", f"--object-format={request.param}", str(root)], check=True
    )
    monkeypatch.chdir(root)
    return GitRepo(root)


def _env() -> dict[str, str]:
    return runner.git_env()


def test_where_the_work_tree_and_its_git_directories_are(at_top: GitRepo) -> None:
    env = _env()
    assert questions.toplevel(env) == at_top.git("rev-parse", "--show-toplevel").strip()
    assert questions.absolute_git_dir(env) == str((at_top.root / ".git").resolve())
    assert Path(questions.common_dir(env)).resolve() == (at_top.root / ".git").resolve()
    assert Path(questions.git_path(env, "rebase-merge/done")) == Path(".git/rebase-merge/done")


def test_commit_names_a_commit_or_none(at_top: GitRepo) -> None:
    env = _env()
    assert questions.commit(env, "HEAD") is None  # no commit yet
    one = at_top.commit("one", {HOT: "## A\na\n"}, date=DATE)
    two = at_top.commit("two", {HOT: "## A\nb\n"}, date=DATE)
    assert questions.commit(env, "HEAD") == two
    assert questions.commit(env, f"{two}^1") == one
    assert questions.commit(env, f"{one}^1") is None
    assert questions.commit(env, "no-such-branch") is None
    assert questions.has_commit(env, one)
    assert not questions.has_commit(env, at_top.git("rev-parse", "HEAD:" + HOT).strip())  # a blob
    assert not questions.has_commit(env, "1" * len(one))


def test_merge_bases_and_the_blob_of_a_path_in_each_commit(at_top: GitRepo) -> None:
    env = _env()
    base = at_top.commit("base", {HOT: "## A\na\n"}, date=DATE)
    at_top.git("checkout", "-q", "-b", "side")
    side = at_top.commit("side", {HOT: "## A\nside\n"}, date=DATE)
    at_top.git("checkout", "-q", "main")
    main = at_top.commit("main", {HOT: None, "x.txt": "x\n"}, date=DATE)
    assert questions.merge_bases(env, main, side) == [base]
    assert questions.merge_bases(env, "nothing", side) == []
    found = questions.blob_at(env, [base, side, main], HOT)
    assert found == {
        base: at_top.git("rev-parse", f"{base}:{HOT}").strip(),
        side: at_top.git("rev-parse", f"{side}:{HOT}").strip(),
        main: None,
    }
    at_top.write("a.txt", "## A\nside\n")
    assert questions.blob_ids(env, ["a.txt"]) == [found[side]]
    assert questions.blob_ids(env, ["missing.txt"]) == []


def test_staged_changes_against_head_or_a_commit(at_top: GitRepo) -> None:
    env = _env()
    first = at_top.commit("one", {HOT: "## A\n" + "a line\n" * 20, "x.txt": "x\n"}, date=DATE)
    at_top.git("mv", HOT, ".squad/memory/hot/riker.md")
    at_top.write(LOG, "# Daily log\n")
    at_top.git("add", LOG)
    found = questions.staged_changes(env, [".squad/memory/"])
    assert [(e.status, e.path, e.source) for e in found] == [
        ("R", ".squad/memory/hot/riker.md", HOT),
        ("A", LOG, None),
    ]
    at_top.commit("two", date=DATE)
    against = questions.staged_changes(env, [".squad/memory/hot/"], against=first)  # no renames
    assert sorted((e.status, e.path) for e in against) == [("A", ".squad/memory/hot/riker.md"), ("D", HOT)]
    assert questions.staged_changes(env, ["elsewhere/"]) == []


def test_tree_blobs_and_a_paths_history(at_top: GitRepo) -> None:
    env = _env()
    one = at_top.commit("one", {LOG: "- a\n", "x.txt": "x\n"}, date=DATE)
    two = at_top.commit("two", {LOG: "- a\n- b\n"}, date=LATER)
    assert questions.tree_blobs(env, two, [".squad/memory/"]) == {
        LOG: at_top.git("rev-parse", f"{two}:{LOG}").strip()
    }
    blobs = [at_top.git("rev-parse", f"{rev}:{LOG}").strip() for rev in (two, one)]
    assert questions.history_blobs(env, ["HEAD"], LOG) == blobs[::-1]  # each entry's old side, then its new
    entries = questions.history_log(env, ["HEAD"], LOG, ("%H", "%ct"))
    assert [e.fields[0].decode() for e in entries] == [two, one]
    assert [e.changes[0].new for e in entries] == blobs
    with pytest.raises(runner.GitError):
        questions.history_blobs(env, ["no-such-branch"], LOG)


def test_messages_since_and_trailers_added(at_top: GitRepo) -> None:
    env = _env()
    at_top.commit("old", {HOT: "## A\na\n"}, date="2026-01-01T00:00:00Z")
    at_top.commit("new\n\nSquad-Memory-Used: a", {"x.txt": "x\n"}, date=DATE)
    found = questions.messages(env, "2026-02-01T00:00:00+00:00", ["HEAD"])
    assert [(when, body.strip()) for when, body in found] == [(1772366400, "new\n\nSquad-Memory-Used: a")]
    assert questions.message(env, "HEAD").strip() == "new\n\nSquad-Memory-Used: a"
    text = questions.add_trailers(env, "subject\n\nbody\n", ["Squad-Memory-Used: b", "Signed-off-by: t"])
    assert text == "subject\n\nbody\n\nSquad-Memory-Used: b\nSigned-off-by: t\n"


@pytest.mark.parametrize(("value", "expected"), [(None, "#"), ("auto", "#"), (";", ";")])
def test_comment_char_read_through_the_one_config_reading(
    at_top: GitRepo, value: str | None, expected: str
) -> None:
    if value is not None:
        at_top.git("config", "core.commentChar", value)
    assert questions.comment_char(_env()) == expected


def test_comment_char_given_on_the_command_line(at_top: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.commentchar")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "%")
    assert questions.comment_char(runner.git_env(dict(os.environ))) == "%"


def test_merge_file_merges_in_place_or_reports_a_conflict(at_top: GitRepo) -> None:
    env = _env()
    base, ours, theirs = (
        at_top.write(n, t) for n, t in (("b", "1\n2\n3\n4\n"), ("o", "1o\n2\n3\n4\n"), ("t", "1\n2\n3\n4t\n"))
    )
    assert questions.merge_file(env, 7, str(ours), str(base), str(theirs))
    assert ours.read_text() == "1o\n2\n3\n4t\n"
    theirs.write_text("1t\n2\n3\n4t\n")
    assert not questions.merge_file(env, 7, str(ours), str(base), str(theirs))
    assert "<<<<<<< ours" in ours.read_text()


def test_repos_questions_for_maintain_and_intake(at_top: GitRepo) -> None:
    one = at_top.commit("one", {HOT: "## A\na\n", "x.txt": "x\n"}, date="2026-01-01T00:00:00Z")
    at_top.git("checkout", "-q", "-b", "side")
    at_top.commit("side", {"y.txt": "y\n"}, date=DATE)
    at_top.git("checkout", "-q", "main")
    two = at_top.commit("two", {HOT: None, LOG: "- a\n"}, date=DATE)
    at_top.git("merge", "-q", "--no-ff", "-m", "merge", "side", date=LATER)
    with Repo(at_top.root) as repo:
        assert questions.tree_paths(repo.git, one, [".squad/", "x.txt"]) == [HOT, "x.txt"]
        assert questions.tree_paths(repo.git, two, [".squad/"]) == [LOG]
        since = "2026-02-01T00:00:00+00:00"
        found = questions.messages(repo.git, since, (), ["."], merges=False)
        assert sorted(b.strip() for _, b in found) == ["side", "two"]
        assert sorted(b.strip() for _, b in questions.messages(repo.git, since, (), ["."])) == [
            "merge",
            "side",
            "two",
        ]
        found = questions.messages(repo.git, since, (), [".squad/"], merges=False)
        assert [b.strip() for _, b in found] == ["two"]
        entries = list(questions.changes(repo.git, ("%P",), [".squad/"]))
        assert [e.fields[0].decode() for e in entries] == [one, ""]
        assert [(c.status, c.path) for c in entries[0].changes] == [("D", HOT), ("A", LOG)]


def test_the_common_git_dir_read_without_git_is_what_git_says(
    at_top: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    at_top.commit("one", {"x.txt": "x\n"}, date=DATE)
    linked = at_top.root.parent / f"{at_top.root.name}-linked"
    at_top.git("worktree", "add", "-q", str(linked))
    for top in (at_top.root, linked):
        monkeypatch.chdir(top)
        assert gitdir.common_dir() == questions.common_dir(_env()) == str((at_top.root / ".git").resolve())
    monkeypatch.chdir(at_top.root / ".git")
    assert gitdir.common_dir() is None  # not at the top of a work tree
