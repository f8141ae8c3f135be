"""The hooks as commands and as installed shims: arguments, a repository-less run, a missing Python,
an unedited or trailer-only message, an amend, named files (the pre-commit framework's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, hooked_commit, init_hooked, run_squadmem

from squadmem.engine.install import githooks
from squadmem.hooks import journal_check, staged, use_trailers
from squadmem.model import uses

HOT = ".squad/memory/hot/picard.md"
LOG = ".squad/memory/log/2026-03-01.md"
D1 = "2026-03-01T12:00:00+00:00"
D2 = "2026-03-02T12:00:00+00:00"
D3 = "2026-03-03T12:00:00+00:00"
TRAILER = "Squad-Memory-Used: picard/auth-tokens"
HOOKS = {
    "squadmem-file-check": "squadmem.hooks.file_check",
    "squadmem-journal-check": "squadmem.hooks.journal_check",
    "squadmem-log-check": "squadmem.hooks.log_check",
    "squadmem-budget-check": "squadmem.hooks.budget_check",
    "squadmem-use-trailers": "squadmem.hooks.use_trailers",
    "squadmem-verify-push": "squadmem.hooks.verify_push",
}


def hook(cwd: Path, module: str, *args: str, input: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=cwd, text=True, capture_output=True, input=input
    )


@pytest.mark.parametrize("prog", sorted(HOOKS))
def test_help_prints_usage_and_runs_nothing(prog: str, tmp_path: Path) -> None:
    done = hook(tmp_path, HOOKS[prog], "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {prog} ")
    assert done.stderr == ""


@pytest.mark.parametrize("prog", sorted(HOOKS))
def test_unknown_option_is_refused(prog: str, repo: GitRepo) -> None:
    done = hook(repo.root, HOOKS[prog], "--bogus")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"{prog}: error: unrecognized arguments: --bogus"


@pytest.mark.parametrize("prog", sorted(HOOKS))
def test_outside_a_repository_one_clear_line(prog: str, tmp_path: Path) -> None:
    args = [str(tmp_path / "msg")] if prog == "squadmem-use-trailers" else []
    (tmp_path / "msg").write_text("subject\n")
    done = hook(tmp_path, HOOKS[prog], *args)
    assert done.returncode == 2
    assert done.stderr == f"{prog}: {staged.NOT_A_REPO}\n"


def over_budget(repo: GitRepo) -> None:
    """A hot file over hot.max_lines, committed without the hooks (as --no-verify or another tool would)."""
    init_hooked(repo, D1)
    repo.write(HOT, repo.read(HOT) + "".join(f"\n## S{n}\n\nline\n" for n in range(60)))
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "big", date=D2)


def test_budget_check_named_file_judges_the_work_tree(repo: GitRepo) -> None:
    over_budget(repo)
    assert hook(repo.root, HOOKS["squadmem-budget-check"]).returncode == 0  # nothing staged
    done = hook(repo.root, HOOKS["squadmem-budget-check"], HOT, "README.md")
    assert done.returncode == 1
    assert done.stderr.startswith(f"{HOT}: ")
    assert "hot.max_lines" in done.stderr


def test_budget_check_named_settings_judges_every_hot_file(repo: GitRepo) -> None:
    over_budget(repo)
    done = hook(repo.root, HOOKS["squadmem-budget-check"], ".squad/memory/tiers.toml")
    assert done.returncode == 1
    assert HOT in done.stderr


def test_budget_check_warn_mode_reports_and_passes_named_files(repo: GitRepo) -> None:
    over_budget(repo)
    repo.write(".squad/memory/tiers.toml", repo.read(".squad/memory/tiers.toml").replace('"fail"', '"warn"'))
    done = hook(repo.root, HOOKS["squadmem-budget-check"], HOT)
    assert done.returncode == 0
    assert HOT in done.stderr
    assert 'budget.mode = "warn"' in done.stderr


def test_file_check_named_file_judges_the_work_tree(repo: GitRepo) -> None:
    init_hooked(repo, D1)
    repo.write(LOG, b"# Daily log\n\0\n")
    done = hook(repo.root, HOOKS["squadmem-file-check"], LOG, "README.md")
    assert done.returncode == 1
    assert done.stderr.startswith(f"{LOG}: ")
    assert hook(repo.root, HOOKS["squadmem-file-check"], HOT).returncode == 0


def test_file_check_named_file_from_a_subfolder(repo: GitRepo) -> None:
    init_hooked(repo, D1)
    repo.write(LOG, b"# Daily log\n\0\n")
    done = hook(repo.root / ".squad", HOOKS["squadmem-file-check"], "memory/log/2026-03-01.md")
    assert done.returncode == 1
    assert done.stderr.startswith(f"{LOG}: ")


def test_log_check_help_does_not_run_the_check(repo: GitRepo) -> None:
    done = hook(repo.root, HOOKS["squadmem-log-check"], "--help")
    assert done.returncode == 0
    assert "usage: squadmem-log-check" in done.stdout


# the shim when its Python is gone


def test_shim_with_its_python_gone_falls_back_and_says_how_to_repair(repo: GitRepo) -> None:
    init_hooked(repo, D1)
    shim = repo.root / ".git/hooks/pre-commit"
    shim.write_text(githooks.render("pre-commit", python="/nonexistent/venv/bin/python3"))
    repo.write(LOG, b"# Daily log 2026-03-01\n\0\n")
    repo.git("add", LOG)
    done = hooked_commit(repo, D1, "-m", "bad log")  # a NUL byte: the fallback still refuses it
    assert done.returncode == 1
    assert "/nonexistent/venv/bin/python3 is gone" in done.stderr
    assert "hint: repair: run `squadmem init`" in done.stderr
    assert f"remove: delete {shim}" in done.stderr or "remove: delete .git/hooks/pre-commit" in done.stderr


def test_shim_with_no_python_at_all_lets_the_commit_through_and_says_so(
    repo: GitRepo, tmp_path: Path
) -> None:
    init_hooked(repo, D1)
    shim = repo.root / ".git/hooks/pre-commit"
    shim.write_text(githooks.render("pre-commit", python="/nonexistent/venv/bin/python3"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "git").symlink_to(git)
    repo.write("README.md", "x\n")
    repo.git("add", "README.md")
    env = dict(os.environ, PATH=str(bin_dir), GIT_AUTHOR_DATE=D2, GIT_COMMITTER_DATE=D2)
    done = subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "readme"],
        cwd=repo.root,
        env=env,
        text=True,
        capture_output=True,
        executable=git,
    )
    assert done.returncode == 0, done.stderr
    assert "squadmem's checks did not run" in done.stderr
    assert "hint: repair: run `squadmem init`" in done.stderr


def test_shim_names_no_dirname_process() -> None:
    text = githooks.render("pre-commit")
    assert "dirname" not in text
    assert "-I -S" in text


# the commit message


@pytest.fixture
def pending(repo: GitRepo) -> GitRepo:
    """Hooks installed by init, a section committed, and one pending use of it."""
    init_hooked(repo, D1)
    repo.write(HOT, repo.read(HOT) + "\n## Auth tokens\n\nRotate weekly.\n")
    repo.git("add", "-A")
    assert hooked_commit(repo, D1, "-m", "memory").returncode == 0
    touched = run_squadmem(repo.root, "touch", "picard/auth-tokens", "--now", D2)
    assert touched.returncode == 0, touched.stderr
    repo.write("src/app.py", "print(1)\n")
    repo.git("add", "src/app.py")
    return repo


def editor(tmp_path: Path, text: str | None) -> str:
    """A GIT_EDITOR that writes ``text`` before the template (None: leaves the file as it was)."""
    script = tmp_path / "editor.py"
    write = f"p = sys.argv[1]; t = open(p).read(); open(p, 'w').write({text!r} + t)"
    body = "pass" if text is None else write
    script.write_text(f"import sys\n{body}\n")
    return f"{sys.executable} {script}"


def edited_commit(
    repo: GitRepo, tmp_path: Path, text: str | None, *args: str
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_AUTHOR_DATE=D3, GIT_COMMITTER_DATE=D3, GIT_EDITOR=editor(tmp_path, text))
    return subprocess.run(
        ["git", "commit", "--no-gpg-sign", *args], cwd=repo.root, env=env, text=True, capture_output=True
    )


@pytest.mark.parametrize("args", [(), ("-s",)], ids=["plain", "signoff"])
def test_unedited_message_aborts_and_keeps_the_uses(
    pending: GitRepo, tmp_path: Path, args: tuple[str, ...]
) -> None:
    head = pending.head()
    done = edited_commit(pending, tmp_path, None, *args)
    assert done.returncode == 1
    assert "Aborting commit" in done.stderr
    assert pending.head() == head
    assert list(uses.pending(pending.root / ".git/squadmem")) == ["picard/auth-tokens"]


def test_trailer_only_message_aborts(pending: GitRepo, tmp_path: Path) -> None:
    head = pending.head()
    done = edited_commit(pending, tmp_path, f"{TRAILER}\n")
    assert done.returncode == 1
    assert "Aborting commit due to empty commit message." in done.stderr
    assert pending.head() == head


def test_written_message_gets_the_trailer_after_the_editor(pending: GitRepo, tmp_path: Path) -> None:
    done = edited_commit(pending, tmp_path, "Write docs\n", "-s")
    assert done.returncode == 0, done.stderr
    body = pending.git("log", "-1", "--format=%B")
    assert body.startswith("Write docs\n\n")
    assert TRAILER in body and "Signed-off-by: " in body


def test_amend_with_a_new_message_keeps_the_amended_commits_uses(pending: GitRepo) -> None:
    assert hooked_commit(pending, D3, "-m", "fix login").returncode == 0
    assert TRAILER in pending.git("log", "-1", "--format=%B")
    done = hooked_commit(pending, D3, "--amend", "-m", "fix login, better")
    assert done.returncode == 0, done.stderr
    body = pending.git("log", "-1", "--format=%B")
    assert body.startswith("fix login, better\n\n")
    assert body.count("picard/auth-tokens") == 1


HEAVY = (
    "argparse",
    "dataclasses",
    "inspect",
    "json",
    "pathlib",
    "tomllib",
    "typing",
    "zoneinfo",
    "subprocess",  # git runs through gitio.process (posix_spawn)
)


def _hook_imports(repo: GitRepo, when: str = D1) -> tuple[int, list[str], list[str]]:
    """The pre-commit hook run in ``repo`` as the installed shim starts it (``-I -S``): its status,
    the squadmem.model modules it imported, and which of :data:`HEAVY` it imported."""
    code = (
        "import sys; sys.path.append(sys.argv.pop(1)); from squadmem.hooks.run import main; "
        "status = main(['pre-commit']); "
        "print(status); print(*sorted(m for m in sys.modules if m.startswith('squadmem.model.')));"
        f"print(*[m for m in {HEAVY!r} if m in sys.modules])"
    )
    root = githooks.package_root()
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, root],
        cwd=repo.root,
        env=dict(os.environ, GIT_COMMITTER_DATE=when),
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    status, model, heavy = done.stdout.split("\n")[:3]
    return int(status), model.split(), heavy.split()


def test_commit_staging_no_memory_file_imports_nothing_heavy(repo: GitRepo) -> None:
    """Only the journal check and one git diff: no settings, sections or logs module is imported
    (``places``, which names the memory's paths, imports only ``constants``, which imports nothing)."""
    init_hooked(repo, D1)
    repo.write("README.md", "x\n")
    repo.git("add", "README.md")
    model = [
        "squadmem.model.constants",
        "squadmem.model.errors",
        "squadmem.model.places",
        "squadmem.model.values",
    ]
    assert _hook_imports(repo) == (0, model, [])


@pytest.mark.parametrize(
    ("zone", "when", "day", "heavy"),
    [
        # the tiers.toml init wrote: every check runs on the staged log, yet neither tomllib, zoneinfo,
        # dataclasses, pathlib nor typing is imported (the hook's cost)
        (None, D1, "2026-03-01", []),
        # init's text with the zone changed is read without tomllib and obeyed (zoneinfo): 20:00 UTC
        # is already the 2nd in Tokyo
        ("Asia/Tokyo", "2026-03-01T20:00:00+00:00", "2026-03-02", ["zoneinfo"]),
        # any other text is parsed (tomllib, which imports typing): here a comment after the zone
        ('Asia/Tokyo"  # "', "2026-03-01T20:00:00+00:00", "2026-03-02", ["tomllib", "typing", "zoneinfo"]),
    ],
)
def test_a_memory_commit_imports_only_what_its_settings_need(
    repo: GitRepo, zone: str | None, when: str, day: str, heavy: list[str]
) -> None:
    init_hooked(repo, D1)
    if zone:
        tiers = ".squad/memory/tiers.toml"
        repo.write(tiers, repo.read(tiers).replace('timezone = "UTC"', f'timezone = "{zone}"'))
        repo.git("add", tiers)
        assert hooked_commit(repo, D1, "-m", "settings").returncode == 0  # a commit obeys HEAD's
    repo.write(f".squad/memory/log/{day}.md", f"# Daily log {day}\n\n- 09:00 [picard] one\n")
    repo.git("add", "-A")
    status, model, imported = _hook_imports(repo, when)
    assert status == 0
    assert "squadmem.model.logs" in model and "squadmem.model.settings" in model
    assert imported == heavy


def test_warn_mode_applies_at_commit_and_at_push_alike(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: budget.mode = "warn" let the commit through and then the pre-push check refused it."""
    init_hooked(repo, D1)
    settings = ".squad/memory/tiers.toml"
    repo.write(settings, repo.read(settings).replace('mode = "fail"', 'mode = "warn"'))
    repo.write(HOT, repo.read(HOT) + "".join(f"\n## S{n}\n\nline\n" for n in range(60)))
    repo.git("add", "-A")
    done = hooked_commit(repo, D1, "-m", "big, warned")
    assert done.returncode == 0, done.stderr
    assert "hot.max_lines" in done.stderr and 'budget.mode = "warn"' in done.stderr
    bare_remote(repo, tmp_path)
    pushed = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=repo.root, text=True, capture_output=True
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "hot.max_lines" in pushed.stderr and 'budget.mode = "warn"' in pushed.stderr


def test_trailer_only_message_aborts_with_nothing_pending(repo: GitRepo) -> None:
    init_hooked(repo, D1)
    repo.write("README.md", "x\n")
    repo.git("add", "README.md")
    head = repo.head()
    done = hooked_commit(repo, D2, "-m", TRAILER)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "Aborting commit due to empty commit message."
    assert repo.head() == head
    assert hooked_commit(repo, D2, "-m", "readme").returncode == 0


def test_unedited_message_aborts_with_another_comment_char(pending: GitRepo, tmp_path: Path) -> None:
    pending.git("config", "core.commentChar", ";")
    head = pending.head()
    done = edited_commit(pending, tmp_path, None)
    assert done.returncode == 1
    assert "Aborting commit" in done.stderr
    assert pending.head() == head


@pytest.mark.parametrize("event", ["prepare-commit-msg", "commit-msg"])
def test_message_hooks_with_nothing_pending_start_no_git(repo: GitRepo, event: str) -> None:
    init_hooked(repo, D1)
    (repo.root / "msg").write_text("subject\n")
    code = (
        "import sys; sys.path.append(sys.argv.pop(1)); from squadmem.hooks.run import main; "
        f"status = main([{event!r}, 'msg']); "
        "print(status, 'subprocess' in sys.modules, 'argparse' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, githooks.package_root()],
        cwd=repo.root,
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "0 False False\n"
    assert (repo.root / "msg").read_text() == "subject\n"


@pytest.fixture
def counted(repo: GitRepo, tmp_path: Path) -> tuple[GitRepo, dict[str, str], Path]:
    """A hooked repository and an environment whose SQUADMEM_PYTHON notes each start of the pre-commit
    checks in a file, then runs them with this Python."""
    init_hooked(repo, D1)
    starts = tmp_path / "starts"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {starts}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return repo, dict(os.environ, SQUADMEM_PYTHON=str(wrapper)), starts


def _prechecks(starts: Path, event: str = "pre-commit") -> int:
    """How many times the shims started squadmem's Python for ``event``."""
    lines = starts.read_text("utf-8").splitlines() if starts.exists() else []
    return sum(f" {event}" in line for line in lines)


def test_the_shim_answers_a_commit_without_memory_files_without_starting_python(
    counted: tuple[GitRepo, dict[str, str], Path],
) -> None:
    repo, env, starts = counted
    repo.write("README.md", "x\n")
    repo.git("add", "README.md")
    assert hooked_commit(repo, D2, "-m", "docs", env=env).returncode == 0
    assert _prechecks(starts) == 0
    repo.write(".squad/memory/hot/picard.md", repo.read(".squad/memory/hot/picard.md") + "\n## New\n\nx\n")
    repo.git("add", "-A")
    done = hooked_commit(repo, D2, "-m", "memory", env=env)
    assert _prechecks(starts) == 1, done.stderr


def test_the_shim_still_refuses_any_commit_while_a_move_is_unfinished(
    counted: tuple[GitRepo, dict[str, str], Path],
) -> None:
    repo, env, starts = counted
    journal = repo.root / ".git" / Path(*journal_check.JOURNAL)
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text('{"subject": "squadmem: demote picard/x"}')
    repo.write("README.md", "x\n")
    repo.git("add", "README.md")
    head = repo.git("rev-parse", "HEAD")
    done = hooked_commit(repo, D2, "-m", "docs", env=env)
    assert done.returncode == 1
    assert "a move is unfinished (squadmem: demote picard/x)" in done.stderr
    assert _prechecks(starts) == 1 and repo.git("rev-parse", "HEAD") == head


def test_the_shim_skips_python_in_a_linked_worktree_too(
    counted: tuple[GitRepo, dict[str, str], Path], tmp_path: Path
) -> None:
    repo, env, starts = counted
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", str(other))
    (other / "README.md").write_text("x\n")
    subprocess.run(["git", "add", "README.md"], cwd=other, check=True)
    done = subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "docs"],
        cwd=other,
        env=dict(env, GIT_AUTHOR_DATE=D2, GIT_COMMITTER_DATE=D2),
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert _prechecks(starts) == 0


def test_the_message_hooks_start_python_only_when_they_have_something_to_do(
    counted: tuple[GitRepo, dict[str, str], Path],
) -> None:
    """No use pending, no amend, no trailer in the message, no line out of a tier file: both message
    shims answer without Python; a pending use, an amend, a Squad-Memory-Used line in the message or
    a line taken out of a tier file each bring it back."""
    repo, env, starts = counted
    events = ("prepare-commit-msg", "commit-msg")
    repo.write("README.md", "x\n")
    repo.git("add", "README.md")
    assert hooked_commit(repo, D2, "-m", "docs", env=env).returncode == 0
    assert [_prechecks(starts, e) for e in events] == [0, 0]
    done = hooked_commit(repo, D2, "-m", f"{TRAILER}: picard/x", "--allow-empty", env=env)
    assert done.returncode == 1 and use_trailers.EMPTY in done.stderr  # refused, as before
    assert [_prechecks(starts, e) for e in events] == [1, 0]
    assert hooked_commit(repo, D2, "--amend", "-m", "docs, again", env=env).returncode == 0
    assert [_prechecks(starts, e) for e in events] == [2, 1]
    repo.write(HOT, repo.read(HOT) + "\n## Auth tokens\n\nRotate weekly.\n")
    repo.git("add", "-A")
    assert hooked_commit(repo, D2, "-m", "memory", env=env).returncode == 0
    assert [_prechecks(starts, e) for e in events] == [2, 1]
    touched = run_squadmem(repo.root, "touch", "picard/auth-tokens", "--now", D2)
    assert touched.returncode == 0, touched.stderr
    repo.write("README.md", "y\n")
    repo.git("add", "README.md")
    done = hooked_commit(repo, D2, "-m", "more docs", env=env)
    assert done.returncode == 0, done.stderr
    assert [_prechecks(starts, e) for e in events] == [3, 2]
    assert TRAILER in repo.git("log", "-1", "--format=%B")
    repo.write(HOT, repo.read(HOT).replace("\n## Auth tokens\n\nRotate weekly.\n", ""))
    repo.git("add", "-A")
    assert hooked_commit(repo, D2, "-m", "drop the note", env=env).returncode == 0
    assert [_prechecks(starts, e) for e in events] == [4, 2]  # lines left hot: prepare-commit-msg names it
    assert "Squad-Memory-Delete: picard/auth-tokens" in repo.git("log", "-1", "--format=%B")


def _diffs(trace: Path, command: str = "diff --cached") -> int:
    """How many ``git diff --cached`` (or ``command``) a commit ran (GIT_TRACE's lines): the shim's
    and the checks'."""
    lines = trace.read_text("utf-8").splitlines() if trace.exists() else []
    return sum(f"trace: built-in: git {command}" in line for line in lines)


def test_the_checks_take_the_shims_diff_instead_of_asking_git_again(repo: GitRepo, tmp_path: Path) -> None:
    """One ``git diff`` per memory commit: the shim's, left in the git directory for the checks
    (and removed by them); a past day's log edited is refused all the same."""
    init_hooked(repo, D1)
    trace = tmp_path / "trace"
    env = dict(os.environ, GIT_TRACE=str(trace))
    repo.write(LOG, "# Daily log 2026-03-01\n\n- 09:00 [picard] one\n")
    repo.git("add", "-A")
    assert hooked_commit(repo, D1, "-m", "log", env=env).returncode == 0
    assert _diffs(trace) == 1
    # a log created: its path's history is asked (one git log); objects come through the one cat-file
    assert (_diffs(trace, "log "), _diffs(trace, "cat-file --batch")) == (1, 1)
    assert not (repo.root / ".git" / "squadmem-staged.diff").exists()
    trace.unlink()
    repo.write(LOG, "# Daily log 2026-03-01\n\n- 09:00 [picard] changed\n")
    repo.git("add", "-A")
    done = hooked_commit(repo, D2, "-m", "rewrite", env=env)
    assert done.returncode == 1 and f"{LOG}: " in done.stderr
    assert _diffs(trace) == 1


@pytest.mark.parametrize(
    ("git_args", "extra", "diffs"),
    [
        (["-c", "diff.renameLimit=1"], {}, 2),  # GIT_CONFIG_PARAMETERS: the checks' git never sees it
        ([], {"GIT_WORK_TREE": "."}, 1),  # the repository git commits to: kept by git_env
        ([], {"GIT_DIR": ".git"}, 1),  # likewise
    ],
)
def test_a_diff_asked_in_another_environment_is_asked_again(
    repo: GitRepo, tmp_path: Path, git_args: list[str], extra: dict[str, str], diffs: int
) -> None:
    """The shim's answer is taken only when its git ran as the checks' would: a variable that
    ``git_env`` drops (other than those git sets for every hook, and a GIT_DIR naming the git
    directory found without it) makes the checks ask git themselves."""
    init_hooked(repo, D1)
    trace = tmp_path / "trace"
    extra = {name: str(repo.root / value) for name, value in extra.items()}
    env = dict(os.environ, GIT_TRACE=str(trace), GIT_AUTHOR_DATE=D1, GIT_COMMITTER_DATE=D1, **extra)
    repo.write(LOG, "# Daily log 2026-03-01\n\n- 09:00 [picard] one\n")
    repo.git("add", "-A")
    done = subprocess.run(
        ["git", *git_args, "commit", "-q", "--no-gpg-sign", "-m", "log"],
        cwd=repo.root,
        env=env,
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert _diffs(trace) == diffs
