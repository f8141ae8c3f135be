from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GitRepo, run_squadmem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.cli.app import app
from squadmem.commands import move
from squadmem.engine import catalog
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import sections, uses
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-02-20T12:00:00+00:00"

HOT_TEXT = (
    "# Hot memory: picard\n\n"
    "## Session\n- task: ship v2\n\n"
    "## Old plan\nstale words\n### child\nmore\n\n"
    "## Another old one\nalso stale\n\n"
    "## Fresh\nnew words\n"
)
COLD_TEXT = "# Cold memory: picard\n\n## Ancient\nvery old\n\n## Kept\nkept\n"


def seed(repo: GitRepo) -> None:
    """Two tier files committed long ago, one fresh section, an unrelated staged file."""
    repo.commit("memory", {HOT: HOT_TEXT.replace("## Fresh\nnew words\n", ""), COLD: COLD_TEXT}, date=OLD)
    repo.commit("fresh", {HOT: HOT_TEXT}, date="2026-02-19T12:00:00+00:00")


def cli(repo: GitRepo, *args: str) -> tuple[int, str]:
    """The CLI in this process (faster than a child process; faults are off here)."""
    result = CliRunner().invoke(app, ["-C", str(repo.root), *args])
    return result.exit_code, result.output


def normalized_sections(files: dict[str, bytes]) -> Counter[str]:
    memory = catalog.from_blobs(files, SQUAD_PLACES)
    return Counter(sections.trimmed(e.text) for e in memory.entries if not e.is_index)


def tree_files(repo: GitRepo, rev: str = "HEAD") -> dict[str, bytes]:
    names = repo.git("ls-tree", "-r", "--name-only", rev, "--", MEMORY_DIR).split()
    show = ["git", "cat-file", "blob"]
    return {
        n: subprocess.run([*show, f"{rev}:{n}"], cwd=repo.root, capture_output=True).stdout for n in names
    }


def work_files(repo: GitRepo) -> dict[str, bytes]:
    folder = repo.root / MEMORY_DIR
    return {p.relative_to(repo.root).as_posix(): p.read_bytes() for p in folder.rglob("*.md")}


def assert_whole(repo: GitRepo, expected: Counter[str]) -> None:
    """Every section exactly once, in HEAD and in the work tree, which match each other and the index."""
    assert normalized_sections(tree_files(repo)) == expected
    assert work_files(repo) == tree_files(repo)
    assert repo.git("status", "--porcelain", "--", MEMORY_DIR) == ""
    assert not list((repo.root / MEMORY_DIR).rglob(".*squadmem-tmp"))


# -- what a move commit holds --------------------------------------------------------------------


def test_maintain_commits_leave_staged_and_unstaged_work_alone(repo: GitRepo) -> None:
    seed(repo)
    repo.write("app.py", "print('v1')\n")
    repo.commit("app", {"app.py": "print('v1')\n"}, date=OLD)
    repo.write("notes.txt", "staged\n")
    repo.git("add", "notes.txt")
    repo.write("app.py", "print('v2, unstaged')\n")
    base = repo.head()
    result = run_squadmem(repo.root, "maintain", "--now", NOW)
    assert result.returncode == 0, result.stderr
    commits = repo.git("rev-list", f"{base}..HEAD").split()
    assert len(commits) == 5  # four moves, one Index refresh
    for sha in commits:
        changed = repo.git("diff-tree", "--no-commit-id", "--name-only", "-r", sha).split()
        assert set(changed) <= {HOT, COLD, f"{MEMORY_DIR}/archive/picard.md"}
    assert repo.git("diff", "--cached", "--name-only").split() == ["notes.txt"]
    assert repo.git("diff", "--name-only").split() == ["app.py"]
    assert repo.read("app.py") == "print('v2, unstaged')\n"
    assert repo.git("fsck", "--strict", "--no-dangling") == ""


def test_move_commit_tree_is_what_git_itself_would_write(repo: GitRepo) -> None:
    seed(repo)
    assert run_squadmem(repo.root, "demote", "picard/fresh").returncode == 0
    move = repo.git("log", "--format=%H", "--grep=Squad-Memory-Move").split()[0]
    scratch = repo.root.parent / "scratch-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(scratch))
    subprocess.run(["git", "read-tree", f"{move}^"], cwd=repo.root, env=env, check=True)
    for rel in (HOT, COLD):
        blob = repo.git("rev-parse", f"{move}:{rel}").strip()
        subprocess.run(
            ["git", "update-index", "--cacheinfo", f"100644,{blob},{rel}"], cwd=repo.root, env=env, check=True
        )
    written = subprocess.run(["git", "write-tree"], cwd=repo.root, env=env, capture_output=True, text=True)
    assert written.stdout.strip() == repo.git("rev-parse", f"{move}^{{tree}}").strip()


def test_move_commit_refuses_a_dirty_tier_file_and_changes_nothing(repo: GitRepo) -> None:
    seed(repo)
    repo.write(COLD, COLD_TEXT + "\n## Draft\nunsaved\n")
    before = repo.snapshot()
    result = run_squadmem(repo.root, "maintain", "--now", NOW)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == f"squadmem: {COLD}: has uncommitted changes"
    assert repo.snapshot() == before


def test_move_commit_refuses_a_staged_tier_file_and_changes_nothing(repo: GitRepo) -> None:
    seed(repo)
    repo.write(HOT, HOT_TEXT + "\n## Staged\nx\n")
    repo.git("add", HOT)
    before = repo.snapshot()
    result = run_squadmem(repo.root, "demote", "picard/kept", "--to", "archive")
    assert result.returncode == 2
    assert f"{HOT}: has uncommitted changes" in result.stderr
    assert repo.snapshot() == before


def test_move_commit_honours_commit_gpgsign(repo: GitRepo, tmp_path: Path) -> None:
    seed(repo)
    key = tmp_path / "signing-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    repo.git("config", "gpg.format", "ssh")
    repo.git("config", "user.signingkey", str(key))
    repo.git("config", "commit.gpgsign", "true")
    assert run_squadmem(repo.root, "demote", "picard/fresh").returncode == 0
    for sha in repo.git("rev-list", "HEAD~2..HEAD").split():
        assert "-----BEGIN SSH SIGNATURE-----" in repo.git("cat-file", "commit", sha)


def test_move_commit_without_identity_is_refused(repo: GitRepo) -> None:
    seed(repo)
    repo.git("config", "user.useConfigOnly", "true")  # git may not guess one from the host name
    before = repo.snapshot()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_AUTHOR", "GIT_COMMITTER"))}
    result = subprocess.run(
        [sys.executable, "-m", "squadmem", "demote", "picard/fresh"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2, result.stderr
    assert (
        result.stderr.splitlines()[0]
        == "squadmem: git does not know who you are (user.name / user.email are not set)"
    )
    assert repo.snapshot() == before


def test_writer_fails_cleanly_when_a_commit_meanwhile_changes_its_files(repo: GitRepo) -> None:
    seed(repo)
    with Repo(repo.root) as gateway, writer.session(gateway) as scribe:
        repo.commit("someone else", {COLD: COLD_TEXT + "## Theirs\nx\n"}, date=NOW)
        moved_head = repo.head()
        before = repo.snapshot()
        with pytest.raises(SquadmemError, match="changed by a commit made while squadmem was running"):
            scribe.commit({COLD: COLD_TEXT + "## New\n"}, "memory(picard): test\n")
        assert writer.pending(gateway) is None
    assert repo.head() == moved_head
    assert repo.snapshot() == before


def test_writer_builds_on_an_unrelated_commit_made_meanwhile(repo: GitRepo) -> None:
    """A user's commit landing while squadmem runs neither fails the move nor is reverted by it."""
    seed(repo)
    with Repo(repo.root) as gateway, writer.session(gateway) as scribe:
        repo.commit("someone else", {"other.txt": "x\n"}, date=NOW)
        theirs = repo.head()
        made = scribe.commit({COLD: COLD_TEXT + "## New\n"}, "memory(picard): test\n")
    assert repo.git("rev-parse", f"{made}^").strip() == theirs
    assert repo.read("other.txt") == "x\n"
    assert repo.git("status", "--porcelain") == ""


def test_writer_refuses_a_file_changed_during_the_run(repo: GitRepo) -> None:
    seed(repo)
    with Repo(repo.root) as gateway, writer.session(gateway) as scribe:
        repo.write(COLD, "edited meanwhile\n")
        with pytest.raises(SquadmemError, match="changed while squadmem was running"):
            scribe.commit({COLD: "x\n"}, "memory(picard): test\n")
    assert repo.read(COLD) == "edited meanwhile\n"


def test_writer_puts_pending_uses_on_the_first_commit_and_consumes_them(repo: GitRepo) -> None:
    seed(repo)
    state = repo.root / ".git" / "squadmem"
    uses.record(state, ["picard/kept", "picard/session"], dt.datetime(2026, 2, 20, 11, tzinfo=dt.UTC))
    assert run_squadmem(repo.root, "maintain", "--now", NOW).returncode == 0
    messages = repo.git("log", "--format=%B%x00", "HEAD~5..HEAD").split("\0")
    carrying = [m for m in messages if uses.TRAILER in m]
    assert len(carrying) == 1
    dated = "2026-02-20T11:00:00Z"  # the uses' own time: the commit is made now, far later
    assert f"Squad-Memory-Used: picard/kept@{dated}, picard/session@{dated}" in carrying[0]
    assert uses.pending_ids(state) == ()


# -- the lock ------------------------------------------------------------------------------------


def test_lock_makes_a_second_writer_give_up_with_a_clear_message(repo: GitRepo) -> None:
    seed(repo)
    before = repo.snapshot()
    with writer.Lock(repo.root / ".git" / "squadmem"):
        env = dict(os.environ, SQUADMEM_LOCK_TIMEOUT="0.3")
        result = subprocess.run(
            [sys.executable, "-m", "squadmem", "maintain", "--now", NOW],
            cwd=repo.root,
            env=env,
            capture_output=True,
            text=True,
        )
    assert result.returncode == 2
    first, hint = result.stderr.splitlines()
    assert first.startswith(f"squadmem: another squadmem command (pid {os.getpid()}) is writing")
    assert "gave up after waiting 0.3 s" in first
    assert hint.startswith("hint: run it again when that one is done")
    assert repo.snapshot() == before


def test_lock_timeout_must_be_a_number(repo: GitRepo) -> None:
    seed(repo)
    result = subprocess.run(
        [sys.executable, "-m", "squadmem", "maintain", "--now", NOW],
        cwd=repo.root,
        env=dict(os.environ, SQUADMEM_LOCK_TIMEOUT="soon"),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "SQUADMEM_LOCK_TIMEOUT='soon': not a number of seconds" in result.stderr


# -- crashes -------------------------------------------------------------------------------------

FAULTS = [(step, nth) for step in writer.STEPS for nth in (1, 2)]


@pytest.mark.parametrize(("step", "nth"), FAULTS, ids=[f"{s}@{n}" for s, n in FAULTS])
def test_maintain_killed_at_any_step_is_completed_or_rolled_back(repo: GitRepo, step: str, nth: int) -> None:
    """A crash injected at each step of a move keeps every section exactly once, once recovered."""
    seed(repo)
    repo.write("staged.txt", "mine\n")
    repo.git("add", "staged.txt")
    expected = normalized_sections(tree_files(repo))
    env = dict(os.environ, SQUADMEM_FAULT=f"{step}@{nth}")
    crashed = subprocess.run(
        [sys.executable, "-m", "squadmem", "maintain", "--now", NOW],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert crashed.returncode == writer.FAULT_STATUS, crashed.stderr
    assert normalized_sections(tree_files(repo)) == expected  # HEAD is whole at every moment
    code, out = cli(repo, "doctor")
    journaled = step != "journal-cleared"  # a journal or squadmem's index.lock is left
    assert (code == 1) == journaled, out
    code, out = cli(repo, "doctor", "--fix")
    assert code == 0, out
    assert_whole(repo, expected)
    assert repo.git("diff", "--cached", "--name-only").split() == ["staged.txt"]
    code, out = cli(repo, "maintain", "--now", NOW)
    assert code == 0, out
    assert_whole(repo, expected)
    code, out = cli(repo, "maintain", "--now", NOW, "--dry-run")
    assert "nothing to do" in out


def test_next_writer_recovers_an_interrupted_move_itself(repo: GitRepo) -> None:
    seed(repo)
    expected = normalized_sections(tree_files(repo))
    env = dict(os.environ, SQUADMEM_FAULT="head-moved", GIT_AUTHOR_DATE=NOW, GIT_COMMITTER_DATE=NOW)
    crashed = subprocess.run(
        [sys.executable, "-m", "squadmem", "demote", "picard/fresh"],
        cwd=repo.root,
        env=env,
        capture_output=True,
    )
    assert crashed.returncode == writer.FAULT_STATUS
    result = run_squadmem(repo.root, "maintain", "--now", NOW)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("squadmem: an interrupted move was completed: memory(picard): demote")
    assert_whole(repo, expected)


def test_recovery_after_head_moved_on_updates_only_untouched_files(repo: GitRepo) -> None:
    seed(repo)
    expected = normalized_sections(tree_files(repo))
    env = dict(os.environ, SQUADMEM_FAULT="head-moved")
    subprocess.run(
        [sys.executable, "-m", "squadmem", "demote", "picard/fresh"], cwd=repo.root, env=env, check=False
    )
    (repo.root / ".git" / "index.lock").unlink()  # as git's message tells the user to
    repo.write("other.txt", "x\n")
    repo.git("add", "other.txt")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "unrelated", "--", "other.txt", date=NOW)
    fixed = run_squadmem(repo.root, "doctor", "--fix")
    assert "HEAD had moved on; 2 tier file(s) brought up to date" in fixed.stdout
    assert_whole(repo, expected)


def test_recovery_after_a_commit_that_reverted_the_move_leaves_it_reverted(repo: GitRepo) -> None:
    seed(repo)
    expected = normalized_sections(tree_files(repo))
    env = dict(os.environ, SQUADMEM_FAULT="head-moved")
    subprocess.run(
        [sys.executable, "-m", "squadmem", "demote", "picard/fresh"], cwd=repo.root, env=env, check=False
    )
    (repo.root / ".git" / "index.lock").unlink()  # as git's message tells the user to
    repo.commit("unrelated, with the stale index entries", {"other.txt": "x\n"}, date=NOW)
    fixed = run_squadmem(repo.root, "doctor", "--fix")
    assert "HEAD had moved on; 0 tier file(s) brought up to date" in fixed.stdout
    assert_whole(repo, expected)
    assert "## Fresh" in repo.read(HOT)


# -- property: random files, random moves, executed for real -------------------------------------

_titles = st.sampled_from(["Alpha", "Beta", "Gamma", "Delta", "Alpha"])
_bodies = st.lists(
    st.sampled_from(
        ["text", "```", "## fenced?", "```", "### child", "    ## indented", "", "- item", "> ## quote"]
    ),
    max_size=5,
)
_section = st.tuples(_titles, _bodies, st.integers(0, 10_000)).map(
    lambda t: f"## {t[0]}\n" + "".join(f"{line}\n" for line in t[1]) + f"unique {t[2]}\n"
)
_file = st.tuples(
    st.sampled_from(["", "# Title\n\n", "# T\r\n"]), st.lists(_section, max_size=4), st.booleans()
).map(lambda t: (t[0] + "".join(t[1])).rstrip("\n") if t[2] else t[0] + "".join(t[1]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.fixed_dictionaries({"hot": _file, "cold": _file, "archive": _file}),
    picks=st.lists(
        st.tuples(st.integers(0, 20), st.sampled_from(["hot", "cold", "archive", "wiki"])), max_size=4
    ),
)
def test_executed_moves_conserve_every_section(files: dict[str, str], picks: list[tuple[int, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        git = GitRepo(root)
        try:
            git.commit("memory", {f"{MEMORY_DIR}/{t}/picard.md": text for t, text in files.items()}, date=OLD)
        except AssertionError:
            return  # a file git would not take as given (a lone CR): out of scope
        start = tree_files(git)
        headers = {
            rel: catalog.from_blobs({rel: raw}, SQUAD_PLACES).files[rel].document.header
            for rel, raw in start.items()
        }
        expected = normalized_sections(start)
        now = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
        with Repo(root) as gateway:
            for pick, tier in picks:
                entries = catalog.load(gateway.layout).entries
                if not entries:
                    break
                entry = entries[pick % len(entries)]
                try:
                    move.demote(gateway, entry.id, now=now, to=tier)
                except SquadmemError as exc:
                    assert any(why in exc.message for why in ("cannot move", "wiki", "does not move"))
        assert_whole(git, expected)
        after = tree_files(git)
        for rel, header in headers.items():
            new_header = catalog.from_blobs({rel: after[rel]}, SQUAD_PLACES).files[rel].document.header
            assert sections.trimmed(new_header) == sections.trimmed(header)
        moved = {e.text for e in catalog.from_blobs(after, SQUAD_PLACES).entries}
        for entry in catalog.from_blobs(
            start, SQUAD_PLACES
        ).entries:  # byte-identical, but for one added newline
            assert entry.text in moved or entry.text + "\n" in moved
