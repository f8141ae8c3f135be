from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from conftest import GitRepo

from squadmem.cli.app import app
from squadmem.engine.writing import writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import uses
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
DATE = "2026-02-01T10:00:00+00:00"


def doctor(root: Path, *args: str) -> tuple[int, dict[str, tuple[str, str]]]:
    result = CliRunner().invoke(app, ["-C", str(root), "doctor", "--json", *args])
    data = json.loads(result.stdout)
    assert data["ok"] == (result.exit_code == 0)
    return result.exit_code, {c["name"]: (c["status"], c["detail"]) for c in data["checks"]}


def healthy(repo: GitRepo) -> None:
    assert CliRunner().invoke(app, ["-C", str(repo.root), "init", "--agent", "picard"]).exit_code == 0
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "init", date=DATE)


def test_doctor_on_a_fresh_setup_is_all_ok(repo: GitRepo) -> None:
    healthy(repo)
    code, checks = doctor(repo.root)
    assert code == 0
    assert {name: status for name, (status, _) in checks.items()} == {
        "moves": "ok",
        "merges": "ok",
        "lock": "ok",
        "hooks": "ok",
        "merge driver": "ok",
        "settings": "ok",
        "tier files": "ok",
        "duplicates": "ok",
        "orphans": "ok",
        "history": "ok",
        "uses": "ok",
        "intake": "ok",
        "spawn": "ok",
    }


def test_doctor_text_is_a_table(repo: GitRepo) -> None:
    healthy(repo)
    result = CliRunner().invoke(app, ["-C", str(repo.root), "doctor"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split() == ["check", "status", "detail"]


def test_doctor_warns_about_missing_hooks(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "## A\na\n"}, date=DATE)
    code, checks = doctor(repo.root)
    assert code == 0
    assert checks["hooks"] == (
        "warn",
        "not installed in hooks/: pre-commit, pre-merge-commit, prepare-commit-msg, commit-msg, pre-push, "
        "post-merge "
        "(run: squadmem init)",
    )


def test_doctor_fails_on_a_section_in_two_places(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "## Keys\nrotate\n", COLD: "## Keys\nrotate\n\n"}, date=DATE)
    code, checks = doctor(repo.root)
    assert code == 1
    assert checks["duplicates"] == (
        "fail",
        "the same section in two places: picard/keys (hot) = picard/keys-2 (cold)"
        " (run: squadmem doctor --fix)",
    )
    code, checks = doctor(repo.root, "--fix")
    assert code == 0
    assert checks["duplicates"][0] == "ok"
    assert repo.read(COLD) == ""
    assert repo.read(HOT) == "## Keys\nrotate\n"
    assert repo.git("status", "--porcelain") == ""


def test_doctor_leaves_the_same_text_in_two_agents_tiers(repo: GitRepo) -> None:
    """Regression (a real Squad team: the Scribe wrote one session note into two agents' histories,
    and intake took in each agent's entry): doctor called them one section in two places, and
    ``--fix`` would have removed one agent's entry for good."""
    note = "## Session update (2026-04-12)\nScribe orchestration done.\n"
    data = f"{MEMORY_DIR}/cold/data.md"
    repo.commit("memory", {COLD: note, data: note}, date=DATE)
    _, checks = doctor(repo.root)
    assert checks["duplicates"][0] == "ok"
    doctor(repo.root, "--fix")
    assert repo.read(COLD) == note and repo.read(data) == note


def test_doctor_warns_about_orphans(repo: GitRepo) -> None:
    repo.commit(
        "memory",
        {
            HOT: "## A\na\n## Index → Deeper Tiers\n- picard/gone (cold, 2026-01-01): Gone\n",
            f"{MEMORY_DIR}/hot/My Notes.md": "## B\nb\n",
        },
        date=DATE,
    )
    code, checks = doctor(repo.root)
    status, detail = checks["orphans"]
    assert (code, status) == (0, "warn")
    assert f"{MEMORY_DIR}/hot/My Notes.md is not a tier file squadmem reads" in detail
    assert "lists picard/gone, which is gone" in detail


def test_doctor_fails_on_bad_settings_and_unreadable_tier_files(repo: GitRepo) -> None:
    repo.commit(
        "memory", {f"{MEMORY_DIR}/tiers.toml": "[hot]\nstale_days = -1\n", HOT: "## A\n\0\n"}, date=DATE
    )
    code, checks = doctor(repo.root)
    assert code == 1
    assert checks["settings"][0] == "fail"
    assert "hot.stale_days must be a number from 0 to 36500" in checks["settings"][1]
    assert checks["tier files"] == (
        "fail",
        f"{HOT}: holds a NUL byte; tier files are UTF-8 Markdown text: remove the NUL byte",
    )


def test_doctor_reports_and_fixes_a_half_finished_move(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "## A\na\n"}, date=DATE)
    with Repo(repo.root) as gateway:
        head = questions.head(gateway.git) or ""
        writer.Journal(head, "0" * 40, (HOT,), (), 'memory(picard): demote "A" hot → cold').write(gateway)
    before = repo.snapshot()
    code, checks = doctor(repo.root)
    assert code == 1
    assert checks["moves"] == (
        "fail",
        'a move was interrupted: memory(picard): demote "A" hot → cold (run: squadmem doctor --fix)',
    )
    assert repo.snapshot() == before
    code, checks = doctor(repo.root, "--fix")
    assert code == 0
    assert checks["moves"] == (
        "ok",
        "fixed: an interrupted move was rolled back (HEAD had not moved): "
        'memory(picard): demote "A" hot → cold',
    )
    assert repo.snapshot() == before


def test_doctor_counts_pending_uses(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "## A\na\n"}, date=DATE)
    uses.record(repo.root / ".git" / "squadmem", ["picard/a"], dt.datetime(2026, 2, 2, tzinfo=dt.UTC))
    _, checks = doctor(repo.root)
    assert checks["uses"] == (
        "ok",
        "1 pending use(s): they go into the next commit's Squad-Memory-Used trailer",
    )


def test_doctor_warns_about_a_shallow_clone(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    repo.commit("two", {HOT: "## A\nb\n"}, date=DATE)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone)], check=True)
    _, checks = doctor(clone)
    assert checks["history"][0] == "warn" and checks["history"][1].startswith("shallow clone")


def test_doctor_warns_about_a_shallow_clone_in_its_linked_worktree(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: a linked worktree of a shallow clone is as shallow as the clone."""
    repo.commit("one", {HOT: "## A\na\n"}, date=DATE)
    repo.commit("two", {HOT: "## A\nb\n"}, date=DATE)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone)], check=True)
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(clone), "worktree", "add", "-q", str(linked)], check=True)
    _, checks = doctor(linked)
    assert checks["history"][0] == "warn" and checks["history"][1].startswith("shallow clone")


def test_doctor_warns_while_another_writer_holds_the_lock(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "## A\na\n"}, date=DATE)
    script = (
        "import sys, time; from pathlib import Path; from squadmem.engine.writing import writer\n"
        "with writer.Lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(30)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(repo.root / ".git" / "squadmem")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        _, checks = doctor(repo.root)
        assert checks["lock"] == ("warn", "another squadmem command is writing right now")
    finally:
        holder.kill()
        holder.wait()


def test_doctor_tells_listed_from_installed_framework_hooks(repo: GitRepo) -> None:
    """Regression: listed in .pre-commit-config.yaml was reported ok although no hook was installed."""
    from squadmem.engine.install import githooks

    repo.commit("memory", {HOT: "## A\na\n"}, date=DATE)
    repo.write(".pre-commit-config.yaml", githooks.pre_commit_snippet(requirement="squadmem==0.1.0"))
    code, checks = doctor(repo.root)
    assert code == 0
    status, detail = checks["hooks"]
    assert status == "warn"
    assert detail.startswith("pre-commit framework: 8 squadmem hooks listed, installed for none; ")
    assert "run: pre-commit install --hook-type pre-commit --hook-type pre-merge-commit" in detail
    hooks = repo.root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for event in githooks.HOOK_TYPES:
        (hooks / event).write_text(f"#!/usr/bin/env bash\n{githooks.FRAMEWORK_MARKER}\n")
    assert doctor(repo.root)[1]["hooks"] == (
        "ok",
        "pre-commit framework: 8 squadmem hooks listed, installed for " + ", ".join(githooks.HOOK_TYPES),
    )


def test_doctor_finds_gits_index_lock_left_by_a_killed_git(repo: GitRepo) -> None:
    """Regression: after `kill -9` of a git command, its .git/index.lock blocked every commit with
    git's message only, and doctor said all was well. doctor now fails, naming the file and the fix."""
    import os

    healthy(repo)
    lock = repo.root / ".git" / "index.lock"
    lock.write_bytes(b"")
    code, checks = doctor(repo.root)
    assert (code, checks["lock"]) == (
        0,
        ("warn", "git's .git/index.lock is there: a git command is running in this work tree"),
    )
    os.utime(lock, (1_700_000_000, 1_700_000_000))
    before = repo.snapshot()
    code, checks = doctor(repo.root, "--fix")
    assert code == 1
    status, detail = checks["lock"]
    assert status == "fail"
    assert detail.startswith("git's .git/index.lock is ")
    assert detail.endswith(
        " s old: a git command was killed and left it, and git refuses every commit, add and checkout"
        " here until it is gone (if no git command is running, delete it: rm .git/index.lock)"
    )
    assert lock.exists() and repo.snapshot() == before  # git's lock: only the user knows no git runs
    repo.write("README.md", "x\n")
    refused = subprocess.run(["git", "add", "README.md"], cwd=repo.root, capture_output=True, text=True)
    assert refused.returncode == 128 and "index.lock" in refused.stderr  # git's own message
    lock.unlink()
    assert doctor(repo.root)[1]["lock"][0] == "ok"
