"""The git gateway on real repositories of both hash widths: runner, environment, parsers, objects."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem

from squadmem.gitio import catfile, commits, formats, runner
from squadmem.gitio.objects import Objects, format_tree, object_name
from squadmem.gitio.repo import Repo
from squadmem.model.errors import Exit, SquadmemError

DATE = "2026-03-01T12:00:00Z"
HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
WIDTHS = ["sha1", "sha256"]


@pytest.fixture(params=WIDTHS)
def hashed(request: pytest.FixtureRequest, tmp_path: Path) -> GitRepo:
    """A repository of each object format."""
    root = tmp_path / request.param
    subprocess.run(
        ["git", "init", "-q", "-b", "main", f"--object-format={request.param}", str(root)], check=True
    )
    return GitRepo(root)


def _history(repo: GitRepo) -> dict[str, str]:
    """A history with a merge that changes a file on both sides, a rename and a deletion."""
    shas = {"one": repo.commit("one", {HOT: "## A\na\n", COLD: "## B\nb\n", "x.txt": "x\n"}, date=DATE)}
    repo.git("checkout", "-q", "-b", "side")
    shas["side"] = repo.commit("side", {HOT: "## A\na\n\n## S\ns\n"}, date=DATE)
    repo.git("checkout", "-q", "main")
    shas["main"] = repo.commit("main", {HOT: "## M\nm\n\n## A\na\n"}, date=DATE)
    repo.git("merge", "-q", "--no-ff", "--no-commit", "side", check=False)
    repo.write(HOT, "## M\nm\n\n## A\na\n\n## S\ns\n\n## Merged\nboth\n")
    repo.git("add", HOT)
    repo.git("commit", "-q", "-m", "merge", date=DATE)
    shas["merge"] = repo.head()
    repo.git("mv", "x.txt", "y.txt")
    shas["rename"] = repo.commit("rename", {COLD: None}, date=DATE)
    return shas


def _blob(repo: GitRepo, spec: str) -> str:
    return repo.git("rev-parse", spec).strip()


# -- the runner -----------------------------------------------------------------------------------
def test_a_failure_names_the_command_its_exit_and_gits_verdict_not_the_usage_text(repo: GitRepo) -> None:
    env = runner.git_env()
    with pytest.raises(runner.GitError) as raised:
        runner.git(["cat-file", "--bogus", "HEAD"], env, cwd=repo.root)
    error = raised.value
    assert error.status == 129
    assert "usage:" in error.stderr  # git printed its usage text after the verdict
    assert error.message == "git cat-file --bogus HEAD failed (exit 129): error: unknown option `bogus'"
    assert error.code == Exit.INTERNAL and error.hint


def test_a_failure_says_the_fatal_line(repo: GitRepo) -> None:
    with pytest.raises(runner.GitError) as raised:
        runner.git(["rev-parse", "--verify", "no-such-branch"], runner.git_env(), cwd=repo.root)
    assert (
        raised.value.message
        == "git rev-parse --verify no-such-branch failed (exit 128): fatal: Needed a single revision"
    )


def test_meaningful_prefers_fatal_then_error_then_the_first_plain_line() -> None:
    assert runner.meaningful("hint: a\nerror: b\nfatal: c\n") == "fatal: c"
    assert (
        runner.meaningful("error: unknown option `x'\nusage: git x\n\n    -q   quiet\n")
        == "error: unknown option `x'"
    )
    assert runner.meaningful("hint: try this\nsomething odd\n   -v  verbose\n") == "something odd"
    assert runner.meaningful("") == "no message"


def test_a_repo_command_failure_is_a_usage_error_naming_the_command(repo: GitRepo) -> None:
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    with Repo(repo.root) as opened, pytest.raises(SquadmemError) as raised:
        opened.run("log", "--no-such-option")
    assert raised.value.code == Exit.USAGE
    assert raised.value.message.startswith("git log --no-such-option failed (exit 128): fatal: unrecognized")


def test_a_streamed_failure_raises_after_the_output(repo: GitRepo) -> None:
    with (
        Repo(repo.root) as opened,
        pytest.raises(SquadmemError, match=r"git log nowhere failed \(exit 128\)"),
    ):
        list(opened.stream("log", "nowhere"))


def test_stopping_a_stream_early_is_no_failure(repo: GitRepo) -> None:
    for i in range(3):
        repo.commit(f"c{i}", {"f": f"{i}\n" * 10000}, date=DATE)
    with Repo(repo.root) as opened:
        for chunk in opened.stream("log", "-p"):
            assert chunk
            break  # the generator is closed here


# -- the environment policy ---------------------------------------------------------------------------
def test_one_environment_policy_with_the_index_and_identity_asked_for(tmp_path: Path) -> None:
    given = {
        "PATH": "/bin",
        "GIT_DIR": "/elsewhere",
        "GIT_WORK_TREE": "/elsewhere",
        "GIT_INDEX_FILE": "rel/index",
        "GIT_AUTHOR_NAME": "A",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_KEY_0": "k",
        "GIT_TRACE2_EVENT": "/t",
    }
    plain = runner.git_env(given, keep_index=False, keep_repo=False)
    assert plain == {
        "PATH": "/bin",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_KEY_0": "k",
        "GIT_TRACE2_EVENT": "/t",
        "GIT_NO_REPLACE_OBJECTS": "1",  # history as it is, never a clone's git replace of it
    }
    assert runner.git_env({"GIT_NO_REPLACE_OBJECTS": "0"})["GIT_NO_REPLACE_OBJECTS"] == "1"
    hook = runner.git_env(given)
    assert hook["GIT_INDEX_FILE"] == os.path.abspath("rel/index") and "GIT_AUTHOR_NAME" not in hook
    cli = runner.git_env(given, keep_index=False, keep_identity=True)
    assert (cli["GIT_AUTHOR_NAME"], cli["GIT_COMMITTER_DATE"]) == ("A", "2026-01-01T00:00:00Z")
    assert "GIT_INDEX_FILE" not in cli and (cli["GIT_DIR"], cli["GIT_WORK_TREE"]) == ("/elsewhere",) * 2
    relative = runner.git_env({"GIT_DIR": "store.git", "GIT_WORK_TREE": "tree"}, keep_index=False)
    assert relative == {
        "GIT_DIR": os.path.abspath("store.git"),
        "GIT_WORK_TREE": os.path.abspath("tree"),
        "GIT_NO_REPLACE_OBJECTS": "1",
    }


def test_a_repo_commits_under_the_identity_it_is_given(repo: GitRepo) -> None:
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    identity = {"GIT_AUTHOR_NAME": "Scribe", "GIT_COMMITTER_DATE": "2026-05-05T05:05:05Z"}
    before = dict(os.environ)
    with Repo(repo.root, identity=identity) as opened:
        out = opened.run("var", "GIT_AUTHOR_IDENT") + opened.run("var", "GIT_COMMITTER_IDENT")
    stamp = int(dt.datetime(2026, 5, 5, 5, 5, 5, tzinfo=dt.UTC).timestamp())
    assert out.startswith("Scribe <author@example.com>") and f" {stamp} +0000" in out
    assert dict(os.environ) == before


def test_the_demo_leaves_the_environment_alone(tmp_path: Path) -> None:
    from squadmem.commands import demo

    before = dict(os.environ)
    demo.run(tmp_path / "kept", lambda text: None)
    assert dict(os.environ) == before


# -- opening a repository -----------------------------------------------------------------------------
def test_opening_outside_a_repository_or_a_bare_one_says_so(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(SquadmemError, match="not a git repository"):
        Repo(tmp_path / "plain")
    with pytest.raises(SquadmemError, match="not a git repository"):
        Repo(tmp_path / "missing")
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare.git")], check=True)
    with pytest.raises(SquadmemError, match="is a bare repository"):
        Repo(tmp_path / "bare.git")


def test_a_repo_knows_its_dirs_from_a_subfolder_and_a_linked_worktree(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    with Repo(repo.root / ".squad" / "memory") as opened:
        assert (opened.root, opened.git_dir, opened.work_git_dir) == (
            repo.root,
            repo.root / ".git",
            repo.root / ".git",
        )
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked))
    with Repo(linked) as opened:
        assert (opened.root, opened.git_dir) == (linked, repo.root / ".git")
        assert opened.work_git_dir == repo.root / ".git" / "worktrees" / "linked"
        assert opened.state_dir == repo.root / ".git" / "squadmem"


def test_a_linked_worktree_of_a_shallow_clone_is_shallow(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    top = repo.commit("two", {HOT: "## A\nb\n"}, date=DATE)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone)], check=True)
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(clone), "worktree", "add", "-q", str(linked)], check=True)
    for where in (clone, linked):
        with Repo(where) as opened:
            assert opened.is_shallow() and opened.shallow_boundary() == {top}
    with Repo(repo.root) as opened:
        assert not opened.is_shallow() and opened.shallow_boundary() == frozenset()


# -- parsers, both hash widths ------------------------------------------------------------------------
def test_log_raw_with_combined_merges_renames_and_deletions(hashed: GitRepo) -> None:
    shas = _history(hashed)
    width = len(shas["one"])
    args = ["log", "-z", "--raw", "-c", "-M", "--no-abbrev", formats.log_format("%H", "%P", "%s")]
    out = runner.git(args, runner.git_env(), cwd=hashed.root)
    entries = {
        e.fields[0].decode(): e for e in formats.parse_log([out[i : i + 7] for i in range(0, len(out), 7)], 3)
    }
    assert set(entries) == set(shas.values())
    merge = entries[shas["merge"]]
    assert merge.fields[1].decode().split() == [shas["main"], shas["side"]] and merge.fields[2] == b"merge"
    [combined] = merge.changes
    assert combined.path == HOT and combined.status == "MM"
    assert combined.olds == (_blob(hashed, f"{shas['main']}:{HOT}"), _blob(hashed, f"{shas['side']}:{HOT}"))
    assert combined.new == _blob(hashed, f"{shas['merge']}:{HOT}") and len(combined.new) == width
    renamed = {c.path: c for c in entries[shas["rename"]].changes}
    assert renamed["y.txt"].source == "x.txt" and renamed["y.txt"].status.startswith("R")
    assert renamed[COLD].new is None and renamed[COLD].olds == (_blob(hashed, f"{shas['one']}:{COLD}"),)
    root = {c.path: c for c in entries[shas["one"]].changes}
    assert root[HOT].old is None and root[HOT].status == "A"


A, B, C, Z = "a" * 40, "b" * 40, "c" * 40, "0" * 40
# git log -z --raw [-c] --format=%x01%H%x00%P%x00%s: a commit with an edit and an addition, one without
# changes, a rename, a merge's combined diff (after an empty token), a root commit, no final NUL.
STREAM = (
    f"\x01{A}\0{B}\0edit\0\n:100644 100644 {B} {C} M\0{HOT}\0"
    f":000000 100644 {Z} {A} A\0caf\xc3\xa9.md\0"
    f"\x01{B}\0{C}\0nothing\0"
    f"\x01{C}\0{A}\0move\0\n:100644 100644 {A} {A} R100\0old.md\0new.md\0"
    f"\x01{A}\0{B} {C}\0merge\0\0::100644 100644 100644 {A} {B} {C} MM\0m.md\0"
    f"\x01{Z}\0\0root\0\n:000000 100644 {Z} {B} A\0r.md"
).encode("latin-1")
EXPECTED = [
    ((A, B, "edit"), [("M", HOT, (B,), C, None, "100644"), ("A", "café.md", (None,), A, None, "100644")]),
    ((B, C, "nothing"), []),
    ((C, A, "move"), [("R100", "new.md", (A,), A, "old.md", "100644")]),
    ((A, f"{B} {C}", "merge"), [("MM", "m.md", (A, B), C, None, "100644")]),
    ((Z, "", "root"), [("A", "r.md", (None,), B, None, "100644")]),
]  # fmt: skip


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 40, 41, 64, 1000])
def test_parse_log_gives_each_record_whatever_the_chunks(size: int) -> None:
    """The log parser's answer on a fixed stream, cut into chunks of every size."""
    chunks = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
    found = [
        (
            tuple(f.decode("latin-1") for f in e.fields),
            [(c.status, c.path, c.olds, c.new, c.source, c.mode) for c in e.changes],
        )
        for e in formats.parse_log(chunks, 3)
    ]
    assert found == EXPECTED


def test_parse_log_gives_a_record_cut_short_as_it_is() -> None:
    [entry] = formats.parse_log([f"\x01{A}\0{B}".encode()], 4)
    assert entry.fields == (A.encode(), B.encode(), b"", b"") and entry.changes == ()


def test_parse_log_refuses_what_is_not_a_log() -> None:
    with pytest.raises(ValueError, match="unexpected output"):
        list(formats.parse_log([b"not a log\0"], 1))


def test_raw_diff_of_the_index_with_a_rename(hashed: GitRepo) -> None:
    _history(hashed)
    hashed.git("mv", "y.txt", "z.txt")
    hashed.write(HOT, "## New\nn\n")
    hashed.git("add", HOT)
    out = runner.git(
        ["diff", "--cached", "--raw", "-z", "-M", "--no-abbrev"], runner.git_env(), cwd=hashed.root
    )
    staged = {s.path: s for s in formats.parse_raw(out)}
    assert (staged["z.txt"].status, staged["z.txt"].source) == ("R", "y.txt")
    assert staged[HOT].status == "M" and staged[HOT].new_sha == _blob(hashed, f":{HOT}")
    assert formats.raw_blobs(out) == list(
        dict.fromkeys(s for x in formats.parse_raw(out) for s in (x.old_sha, x.new_sha) if s)
    )


def test_trees_of_either_width_parse_and_format_back_byte_for_byte(hashed: GitRepo) -> None:
    shas = _history(hashed)
    with Repo(hashed.root) as opened:
        objects = Objects(opened)
        tree = objects.tree_of(shas["merge"])
        data = opened.blob(tree)
        entries = formats.parse_tree(data, objects.width)
        assert format_tree(entries) == data
        shown = [
            f"{e.mode.decode().zfill(6)} {'tree' if e.is_tree else 'blob'} {e.sha}\t{e.name.decode()}"
            for e in entries
        ]
        assert shown == hashed.git("ls-tree", tree).splitlines()


def test_objects_written_in_process_are_the_ones_git_names(hashed: GitRepo) -> None:
    shas = _history(hashed)
    with Repo(hashed.root) as opened:
        objects = Objects(opened)
        assert opened.object_format == hashed.root.name
        blob = objects.write("blob", b"## New\nn\n")
        assert blob == hashed.git("hash-object", "--stdin", input="## New\nn\n").strip()
        assert blob == object_name("blob", b"## New\nn\n", opened.object_format)
        tree = objects.with_blobs(objects.tree_of(shas["rename"]), {".squad/memory/wiki/new.md": blob})
        assert objects.content(tree, ".squad/memory/wiki/new.md") == b"## New\nn\n"
        assert objects.entry(tree, "y.txt") == objects.entry(objects.tree_of(shas["rename"]), "y.txt")
    listed = hashed.git("ls-tree", "-r", tree, "--", ".squad/memory/wiki").split()
    assert listed[2:] == [blob, ".squad/memory/wiki/new.md"]
    hashed.git("fsck", "--strict", "--no-dangling")


def test_a_command_commits_in_a_sha256_repository(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", "--object-format=sha256", str(root)], check=True)
    repo = GitRepo(root)
    repo.commit("memory", {HOT: "## Hot\n\n## Auth\na\n\n## Deploy\nd\n"}, date=DATE)
    done = run_squadmem(root, "demote", "picard/deploy")
    assert done.returncode == 0, done.stderr
    assert "## Deploy" in repo.read(COLD) and len(repo.head()) == 64
    assert run_squadmem(root, "verify").returncode == 0
    repo.git("fsck", "--strict", "--no-dangling")


# -- cat-file --batch ---------------------------------------------------------------------------------
def test_the_reader_answers_one_at_a_time_and_many_in_order(hashed: GitRepo) -> None:
    shas = _history(hashed)
    hot = _blob(hashed, f"{shas['merge']}:{HOT}")
    missing = "0" * len(hot)
    with catfile.CatFile(runner.git_env(), hashed.root) as reader:
        assert reader.read(hot) == hashed.git("cat-file", "blob", hot).encode()
        assert reader.read(missing) is None
        assert reader.read(f"{shas['one']}:{COLD}") == b"## B\nb\n"
        many = list(reader.each([hot, missing, f"{shas['one']}:{COLD}", hot]))
    assert [spec for spec, _ in many] == [hot, missing, f"{shas['one']}:{COLD}", hot]
    assert many[1][1] is None and many[2][1] == b"## B\nb\n" and many[0][1] == many[3][1]


def test_cat_files_for_the_hooks_reads_from_the_current_folder(
    hashed: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    shas = _history(hashed)
    monkeypatch.chdir(hashed.root)
    found = formats.cat_files([f":{HOT}", f"{shas['one']}:{COLD}", "nowhere:at-all"], runner.git_env())
    assert found == {
        f":{HOT}": hashed.read(HOT).encode(),
        f"{shas['one']}:{COLD}": b"## B\nb\n",
        "nowhere:at-all": None,
    }


def test_the_reader_outside_a_repository_fails_with_gits_words(tmp_path: Path) -> None:
    with catfile.CatFile(runner.git_env(), tmp_path) as reader:
        with pytest.raises(
            runner.GitError, match=r"git cat-file --batch failed \(exit 128\): fatal: not a git"
        ):
            list(reader.each(["HEAD"]))
        with pytest.raises(
            runner.GitError, match=r"git cat-file --batch failed \(exit 128\): fatal: not a git"
        ):
            reader.read("HEAD")


def test_a_missing_object_is_one_line_a_person_can_act_on(repo: GitRepo) -> None:
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    with Repo(repo.root) as opened, pytest.raises(SquadmemError, match="object 000000000000 is missing"):
        opened.blob("0" * 40)


def test_memory_log_lists_the_tier_blobs_each_commit_introduces(hashed: GitRepo) -> None:
    shas = _history(hashed)
    with Repo(hashed.root) as opened:
        listed = {c.sha: c for c in commits.memory_log(opened, [shas["rename"]], detail=True)}
        blobs = dict(commits.blobs(opened, [_blob(hashed, f"{shas['one']}:{COLD}")]))
    assert listed[shas["rename"]].changes == [
        (_blob(hashed, f"{shas['one']}:{COLD}"), commits.NULL_SHA, COLD)
    ]
    assert listed[shas["merge"]].parents == (shas["main"], shas["side"])
    assert listed[shas["merge"]].changes == [
        (_blob(hashed, f"{shas['main']}:{HOT}"), _blob(hashed, f"{shas['merge']}:{HOT}"), HOT)
    ]
    assert listed[shas["one"]].author == "Test Author" and list(blobs.values()) == [b"## B\nb\n"]
