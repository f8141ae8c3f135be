"""Which files are memory is decided by what each commit holds, never by the work tree.

A commit's layout (``.squad/memory/``, or a memory-tiers workspace kept in
place) comes from its own tree (``places.decide``); a commit that changes it
is judged in its parent's layout and its own: the pre-commit hook (HEAD's and
the index's), ``verify`` and the pre-push hook. Replacement refs never stand
in for history, and a log or tier file must be a regular file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import GitRepo, bare_remote, hooked_commit, init_hooked, run_squadmem

HOT = "# MEMORY.md\n\n## Greenhouse vents\nOpen the east vent above 24 °C.\n"
COLD = "# Tier 2 — Recent\n\n## Kettle descaling\nVinegar, then two rinses.\n"
ARCHIVE = "# Tier 3 — Archive\n\n## Rowboat outboard\nTwo-stroke mix at 1:50.\n"
LOG = "# 2026-03-01\n\n- 09:10 moved the seed trays to the greenhouse\n"
D0 = "2026-03-01T10:00:00+00:00"
D1 = "2026-03-01T11:00:00+00:00"
D5 = "2026-03-05T09:00:00+00:00"
PICARD = "# picard\n\n## Auth tokens\nRotate them weekly.\n"
SQUAD_LOG = ".squad/memory/log/2026-03-01.md"


def workspace(repo: GitRepo) -> GitRepo:
    """A memory-tiers workspace, kept in place by ``squadmem init`` (hooks installed), with a log of D0."""
    repo.commit(
        "workspace",
        {
            "MEMORY.md": HOT,
            "memory/tier2-recent.md": COLD,
            "memory/tier3-archive.md": ARCHIVE,
            "memory/2026-03-01.md": LOG,
        },
        date=D0,
    )
    done = run_squadmem(repo.root, "init")
    assert done.returncode == 0, done.stderr
    repo.git("add", "-A")
    committed = hooked_commit(repo, D1, "-m", "squadmem init")
    assert committed.returncode == 0, committed.stderr
    return repo


def squad(repo: GitRepo) -> GitRepo:
    """A Squad repository (``init --agent picard``, hooks installed) with a hot section and a log of D0."""
    init_hooked(repo, D0)
    repo.write(".squad/memory/hot/picard.md", PICARD)
    repo.write(SQUAD_LOG, LOG)
    repo.git("add", "-A")
    committed = hooked_commit(repo, D1, "-m", "memory")
    assert committed.returncode == 0, committed.stderr
    return repo


def verify(repo: GitRepo, *revs: str) -> subprocess.CompletedProcess[str]:
    return run_squadmem(repo.root, "verify", "--now", D5, *revs)


def refused_commit(repo: GitRepo) -> str:
    """A real ``git commit`` of what is staged, at D5: refused (exit 1), HEAD unchanged; its first line."""
    head = repo.head()
    done = hooked_commit(repo, D5, "-m", "forged")
    assert done.returncode == 1, done.stderr
    assert repo.head() == head
    return done.stderr.splitlines()[0]


def push(repo: GitRepo) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_COMMITTER_DATE=D5)
    args = ["git", "push", "-q", "origin", "main"]
    return subprocess.run(args, cwd=repo.root, env=env, text=True, capture_output=True)


def forge_workspace_log_beside_squad_file(repo: GitRepo) -> None:
    repo.write("memory/2026-03-01.md", LOG.replace("greenhouse", "garage"))
    repo.write(".squad/memory/notes.txt", "anything\n")
    repo.git("add", "-A")


def log_check(repo: GitRepo) -> subprocess.CompletedProcess[str]:
    """The log check alone (the pre-commit framework's squadmem-log-check), at D5."""
    env = dict(os.environ, GIT_COMMITTER_DATE=D5)
    args = [sys.executable, "-m", "squadmem.hooks.log_check"]
    return subprocess.run(args, cwd=repo.root, env=env, text=True, capture_output=True)


def test_hook_refuses_a_workspace_log_forged_beside_a_squad_file(repo: GitRepo) -> None:
    """A file added under .squad/memory/ made the workspace read as a Squad layout, and the hook let
    an edit of a frozen memory/YYYY-MM-DD.md through."""
    forge_workspace_log_beside_squad_file(workspace(repo))
    assert refused_commit(repo).startswith("MEMORY.md: '## Greenhouse vents' is not kept by this commit's")
    checked = log_check(repo)
    assert checked.returncode == 1
    assert checked.stderr.startswith("memory/2026-03-01.md: changed after its day ended")


def test_hook_refuses_a_workspace_log_forged_beside_an_untracked_squad_folder(repo: GitRepo) -> None:
    """An untracked .squad/memory/ folder in the work tree made the hook's shim look at .squad/memory/
    only, and a staged edit of a frozen workspace log passed without Python starting."""
    workspace(repo)
    (repo.root / ".squad/memory").mkdir(parents=True)
    (repo.root / ".squad/memory/scratch.txt").write_text("not staged\n")
    repo.write("memory/2026-03-01.md", LOG.replace("greenhouse", "garage"))
    repo.git("add", "memory/2026-03-01.md")
    assert refused_commit(repo).startswith("memory/2026-03-01.md: changed after its day ended")


def test_verify_and_push_refuse_a_workspace_log_forged_beside_a_squad_file(
    repo: GitRepo, tmp_path: Path
) -> None:
    """verify read the layout from the work tree: with .squad/memory/ there it judged
    .squad/memory/log/ only, and passed the forged workspace log (so did pre-push)."""
    workspace(repo)
    bare_remote(repo, tmp_path)
    assert push(repo).returncode == 0
    forge_workspace_log_beside_squad_file(repo)
    assert hooked_commit(repo, D5, "--no-verify", "-m", "forged").returncode == 0
    verified = verify(repo)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "memory/2026-03-01.md" in verified.stdout
    refused = push(repo)
    assert refused.returncode != 0
    assert "memory/2026-03-01.md" in refused.stdout + refused.stderr


def drop_squad_memory_for_a_workspace(repo: GitRepo) -> None:
    repo.git("rm", "-r", "-q", ".squad/memory")
    repo.write("memory/tiers.toml", 'agent = "picard"\n')
    repo.git("add", "memory/tiers.toml")


def test_hook_refuses_removing_squad_memory_for_a_workspace(repo: GitRepo) -> None:
    """git rm -r .squad/memory with memory/tiers.toml added in one commit made it a workspace, and the
    hook judged only the workspace's places: every section and log was gone, unnoticed."""
    drop_squad_memory_for_a_workspace(squad(repo))
    first = refused_commit(repo)
    assert first.startswith(".squad/memory/hot/picard.md: '## Auth tokens' is not kept")
    checked = log_check(repo)  # judges the logs of HEAD's layout too
    assert checked.returncode == 1
    assert checked.stderr.startswith(f"{SQUAD_LOG}: deleted")


def test_verify_and_push_refuse_removing_squad_memory_for_a_workspace(repo: GitRepo, tmp_path: Path) -> None:
    """verify (and so pre-push) passed a commit that deleted .squad/memory/ and added memory/tiers.toml."""
    squad(repo)
    bare_remote(repo, tmp_path)
    assert push(repo).returncode == 0
    drop_squad_memory_for_a_workspace(repo)
    assert hooked_commit(repo, D5, "--no-verify", "-m", "gone").returncode == 0
    refused = push(repo)
    assert refused.returncode != 0
    assert f"{SQUAD_LOG}: " in refused.stdout + refused.stderr
    verified = verify(repo)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    lines = verified.stdout.splitlines()
    assert any(SQUAD_LOG in line for line in lines)
    assert any(".squad/memory/hot/picard.md" in line for line in lines)


def test_verify_refuses_removing_the_workspace_settings(repo: GitRepo) -> None:
    """Removing memory/tiers.toml turns a workspace into an empty Squad layout: its sections and logs
    may not go with it."""
    workspace(repo)
    repo.git("rm", "-q", "memory/tiers.toml")
    repo.write("memory/2026-03-01.md", LOG + "- 23:00 added days later\n")
    repo.git("add", "-A")
    assert refused_commit(repo).startswith("MEMORY.md: '## Greenhouse vents' is not kept")
    assert log_check(repo).stderr.startswith("memory/2026-03-01.md: changed after its day ended")
    assert hooked_commit(repo, D5, "--no-verify", "-m", "no settings").returncode == 0
    verified = verify(repo)
    assert verified.returncode == 1
    assert "memory/2026-03-01.md" in verified.stdout


def test_migrating_a_kept_workspace_into_squad_memory_passes(repo: GitRepo, tmp_path: Path) -> None:
    """A legitimate change of layout: migrate memory-tiers copies the workspace into .squad/memory/;
    the hooks, verify and the push pass it."""
    workspace(repo)
    bare_remote(repo, tmp_path)
    assert push(repo).returncode == 0
    repo.git("rm", "-q", "memory/tiers.toml")  # staged: the migration's commit keeps it, the next drops it
    done = run_squadmem(repo.root, "migrate", "memory-tiers", "--agent", "main", "--now", D5, date=D5)
    assert done.returncode == 0, done.stderr
    assert "## Greenhouse vents" in repo.read(".squad/memory/hot/main.md")
    assert repo.read(".squad/memory/log/2026-03-01.md") == repo.read("memory/2026-03-01.md") == LOG
    assert repo.git("show", "--name-only", "--format=", "HEAD").count("memory/tiers.toml") == 0
    done = hooked_commit(repo, D5, "-m", "squadmem keeps .squad/memory/ now")
    assert done.returncode == 0, done.stderr
    repo.git("rm", "-q", "memory/2026-03-01.md")  # no log any more: the log lives in .squad/memory/log/
    assert hooked_commit(repo, D5, "-m", "the workspace's copy goes").returncode == 0
    verified = verify(repo)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    pushed = push(repo)
    assert pushed.returncode == 0, pushed.stderr


def replace_with_forged_log(repo: GitRepo) -> tuple[str, str]:
    """A commit after the log's day, replaced (``git replace``) by one whose log was forged; the work
    tree and index reset to the replacement. (the real commit, its forged replacement)"""
    real = repo.commit("later", {".squad/memory/log/2026-03-02.md": "# 2026-03-02\n"}, date=D5)
    blob = repo.git("hash-object", "-w", "--stdin", input=LOG.replace("greenhouse", "garage")).strip()
    repo.git("update-index", "--cacheinfo", f"100644,{blob},{SQUAD_LOG}")
    tree = repo.git("write-tree").strip()
    parent = repo.git("rev-parse", "HEAD^").strip()
    forged = repo.git("commit-tree", tree, "-p", parent, "-m", "later", date=D5).strip()
    repo.git("replace", real, forged)
    repo.git("reset", "-q", "--hard", "HEAD")
    assert repo.read(SQUAD_LOG) != LOG  # this clone now reads the forged log as history
    return real, forged


def test_hook_refuses_a_log_forged_through_git_replace(repo: GitRepo) -> None:
    """git replace of HEAD by a commit with a forged log: the hook compared the index with the
    replacement and let the forged log into the next commit."""
    replace_with_forged_log(squad(repo))
    repo.write(".squad/memory/log/2026-03-05.md", "# 2026-03-05\n")
    repo.git("add", "-A")
    assert refused_commit(repo).startswith(f"{SQUAD_LOG}: changed after its day ended")


def test_verify_and_push_refuse_a_log_forged_through_git_replace(repo: GitRepo, tmp_path: Path) -> None:
    """verify and pre-push read history through the clone's replacement refs and passed a forged log."""
    squad(repo)
    bare_remote(repo, tmp_path)
    real, _ = replace_with_forged_log(repo)
    assert push(repo).returncode == 0  # the real commit, as the remote receives it
    repo.write(".squad/memory/log/2026-03-05.md", "# 2026-03-05\n")
    repo.git("add", "-A")
    assert hooked_commit(repo, D5, "--no-verify", "-m", "next").returncode == 0
    verified = verify(repo, f"{real}..HEAD")
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert SQUAD_LOG in verified.stdout
    refused = push(repo)
    assert refused.returncode != 0
    assert SQUAD_LOG in refused.stdout + refused.stderr


def symlink_the_log(repo: GitRepo) -> None:
    blob = repo.git("rev-parse", f"HEAD:{SQUAD_LOG}").strip()
    repo.git("update-index", "--cacheinfo", f"120000,{blob},{SQUAD_LOG}")


def test_verify_and_push_refuse_a_log_whose_mode_alone_became_a_symlink(
    repo: GitRepo, tmp_path: Path
) -> None:
    """A log's mode changed to 120000 with the same blob: verify saw no change of bytes and passed."""
    squad(repo)
    bare_remote(repo, tmp_path)
    assert push(repo).returncode == 0
    symlink_the_log(repo)
    assert hooked_commit(repo, D5, "--no-verify", "-m", "mode").returncode == 0
    refused = push(repo)
    assert refused.returncode != 0
    assert "a symlink, not a regular file" in refused.stdout + refused.stderr
    verified = verify(repo)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    line = next(line for line in verified.stdout.splitlines() if SQUAD_LOG in line)
    assert "a symlink, not a regular file" in line


def test_hook_refuses_a_log_whose_mode_alone_became_a_symlink(repo: GitRepo) -> None:
    symlink_the_log(squad(repo))
    assert refused_commit(repo).startswith(f"{SQUAD_LOG}: a symlink, not a regular file")


def test_file_check_with_file_names_refuses_a_change_of_layout(repo: GitRepo) -> None:
    """The pre-commit framework passes file names (a deletion is not among them): the check of a
    change of layout runs all the same."""
    drop_squad_memory_for_a_workspace(squad(repo))
    args = [sys.executable, "-m", "squadmem.hooks.file_check", "memory/tiers.toml"]
    done = subprocess.run(args, cwd=repo.root, text=True, capture_output=True)
    assert done.returncode == 1
    assert done.stderr.startswith(".squad/memory/hot/picard.md: '## Auth tokens' is not kept")


def copy_sections_but_not_logs(repo: GitRepo) -> None:
    """Every section of the workspace copied into .squad/memory/, its logs left behind."""
    for source, tier in (
        ("MEMORY.md", "hot"),
        ("memory/tier2-recent.md", "cold"),
        ("memory/tier3-archive.md", "archive"),
    ):
        repo.write(f".squad/memory/{tier}/main.md", repo.read(source))
    repo.git("add", "-A")


def test_hook_refuses_a_change_of_layout_that_leaves_a_log_behind(repo: GitRepo) -> None:
    """Sections copied into .squad/memory/ and the logs left in memory/: the workspace's logs were no
    logs any more, and the next commit could rewrite them unchecked."""
    copy_sections_but_not_logs(workspace(repo))
    line = refused_commit(repo)
    assert line.startswith("memory/2026-03-01.md: a change of layout leaves this log behind: ")
    assert ".squad/memory/log/2026-03-01.md must hold its lines" in line


def test_verify_refuses_a_change_of_layout_that_leaves_a_log_behind(repo: GitRepo) -> None:
    copy_sections_but_not_logs(workspace(repo))
    assert hooked_commit(repo, D5, "--no-verify", "-m", "moved").returncode == 0
    verified = verify(repo)
    assert verified.returncode == 1, verified.stdout + verified.stderr
    assert "memory/2026-03-01.md: a change of layout leaves this log behind" in verified.stdout
    repo.write(".squad/memory/log/2026-03-01.md", LOG)  # carried: the change of layout passes
    repo.git("add", "-A")
    assert hooked_commit(repo, D5, "--no-verify", "-m", "moved").returncode == 0
    repo.git("reset", "-q", "--soft", "HEAD~2")
    assert hooked_commit(repo, D5, "-m", "moved with its log").returncode == 0
    assert verify(repo).returncode == 0


def test_review_reads_each_commits_layout(repo: GitRepo) -> None:
    """review named memory commits by the work tree's layout: an untracked .squad/memory/ folder hid
    every workspace commit from the pull-request comment."""
    workspace(repo)
    repo.commit("today", {"memory/2026-03-05.md": "# 2026-03-05\n\n- 08:00 vents\n"}, date=D5)
    (repo.root / ".squad/memory").mkdir(parents=True)
    (repo.root / ".squad/memory/scratch.txt").write_text("not staged\n")
    done = run_squadmem(repo.root, "review", "HEAD~1..HEAD", "--format", "json", "--now", D5)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["memory_commits"]
    assert [c["added"] for c in listed] == [{"log": len("# 2026-03-05\n\n- 08:00 vents\n")}]
