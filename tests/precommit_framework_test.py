"""Every hook of .pre-commit-hooks.yaml, run by the real pre-commit framework with `pre-commit try-repo`.

pre-commit builds the hooks' virtualenv by pip-installing this repository.
try-repo's own snapshot of a dirty work tree only takes tracked files, so the
tests snapshot the project (tracked and untracked, .gitignore respected) into
one commit per run: every try-repo then names the same repository and
revision, and with the run's shared PRE_COMMIT_HOME the environment is built once.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]
from conftest import GitRepo, hooked_commit

from squadmem.model.budget import STAGED_FIX

pytestmark = pytest.mark.slow  # builds pre-commit's own environment: about 30 s

PROJECT = Path(__file__).resolve().parents[1]
LOG = ".squad/memory/log/2026-03-01.md"
HOT = ".squad/memory/hot/picard.md"
D0 = "2026-03-01T09:00:00+00:00"


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This project's work tree as one commit of a scratch repository."""
    env = _clean_env()
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=PROJECT,
            env=env,
            capture_output=True,
            check=True,
        )
        .stdout.decode("utf-8")
        .split("\0")
    )
    target = tmp_path_factory.mktemp("squadmem-snapshot")
    for rel in filter(None, listed):
        source = PROJECT / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)
    ident = [
        "-c",
        "user.name=snapshot",
        "-c",
        "user.email=snapshot@example.com",
        "-c",
        "commit.gpgsign=false",
    ]
    subprocess.run(["git", "init", "-q", str(target)], env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=target, env=env, check=True)
    subprocess.run(
        ["git", *ident, "commit", "-q", "--no-verify", "-m", "snapshot"], cwd=target, env=env, check=True
    )
    return target


def _seal(mp: pytest.MonkeyPatch, factory: pytest.TempPathFactory) -> None:
    """The sealed environment conftest gives each test, for this module's shared runs."""
    for name in list(os.environ):
        if name.startswith(("GIT_", "SQUADMEM_")):
            mp.delenv(name)
    home = factory.mktemp("framework-home")
    mp.setenv("HOME", str(home))
    mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    mp.setenv("GIT_TEMPLATE_DIR", str(factory.mktemp("framework-template")))
    for who in ("AUTHOR", "COMMITTER"):
        mp.setenv(f"GIT_{who}_NAME", "Test")
        mp.setenv(f"GIT_{who}_EMAIL", "test@example.com")
    mp.setenv("PRE_COMMIT_HOME", str(factory.getbasetemp() / "pre-commit-cache"))


def _pre_commit_allowed(repo: GitRepo) -> tuple[list[str], str]:
    repo.commit("log", {LOG: "# log\n"}, date=D0)
    repo.write(LOG, "# log\n- more\n")
    repo.write(HOT, "# Hot\n\n## A\nsmall\n")
    repo.git("add", "-A")
    return [], "2026-03-01T18:00:00+00:00"


def _pre_commit_refused(repo: GitRepo) -> tuple[list[str], str]:
    repo.commit("logs", {LOG: "# log\n", OTHER_LOG: "# log\n"}, date=D0)
    repo.write(LOG, "# log\n- late\n")
    repo.write(HOT, "# Hot\n\n## A\n" + "x" * 4300 + "\n")
    repo.git("add", "-A")
    return [], "2026-03-02T09:00:00+00:00"


def _unreadable(repo: GitRepo) -> tuple[list[str], str]:
    repo.commit("log", {LOG: "# log\n"}, date=D0)
    repo.write(HOT, b"# Hot\n\n## A\n\0\n")
    repo.write(".squad/memory/tiers.toml", "[hot]\nstale_days = nan\n")
    repo.git("add", "-A")
    return [], D0


def _deletion_only(repo: GitRepo) -> tuple[list[str], str]:
    repo.commit("log", {LOG: "# log\n", "a.txt": "a\n"}, date=D0)
    repo.git("rm", "-q", LOG)
    return ["squadmem-log-check"], D0


def _use_trailers(repo: GitRepo) -> tuple[list[str], str]:
    repo.commit("first", {"a.txt": "a\n"}, date=D0)
    repo.write("b.txt", "b\n")
    repo.git("add", "b.txt")
    message = repo.root / ".git" / "COMMIT_EDITMSG"
    message.write_text("add b\n")
    args = ["--hook-stage", "prepare-commit-msg", "--commit-msg-filename", str(message)]
    return ["squadmem-use-trailers", *args], D0


def _removal(repo: GitRepo) -> tuple[list[str], str]:
    """A section removed by hand, staged; the message given as with `git commit -m`."""
    repo.commit("hot", {HOT: "# Hot\n\n## A\nkeep\n\n## B\ngone\n"}, date=D0)
    repo.write(HOT, "# Hot\n\n## A\nkeep\n")
    repo.git("add", HOT)
    message = repo.root / ".git" / "COMMIT_EDITMSG"
    message.write_text("tidy\n")
    args = ["--hook-stage", "prepare-commit-msg", "--commit-msg-filename", str(message)]
    return ["squadmem-use-trailers", *args], D0


def _push(repo: GitRepo, late: bool) -> tuple[list[str], str]:
    base = repo.commit("log", {LOG: "# log\n"}, date=D0)
    text, date = ("# log, edited\n", "2026-03-03T10:00:00+00:00") if late else ("# log\n- more\n", D0)
    tip = repo.commit("change", {LOG: text}, date=date)
    return ["squadmem-verify-push", "--hook-stage", "pre-push", "--from-ref", base, "--to-ref", tip], D0


def _over_budget_committed(repo: GitRepo) -> tuple[list[str], str]:
    """An over-budget hot file already committed (--no-verify): `pre-commit run --all-files` in CI."""
    repo.commit("hot", {HOT: "# Hot\n\n## A\n" + "x" * 4300 + "\n"}, date=D0)
    return ["--all-files"], D0


def _warn_mode(repo: GitRepo) -> tuple[list[str], str]:
    repo.commit("settings", {".squad/memory/tiers.toml": '[budget]\nmode = "warn"\n'}, date=D0)
    repo.write(HOT, "# Hot\n\n## A\n" + "x" * 4300 + "\n")
    repo.git("add", "-A")
    return ["squadmem-budget-check"], D0


OTHER_LOG = ".squad/memory/log/2026-02-28.md"
QUIET = {"warn-mode"}  # run without --verbose: what the framework shows by itself
SCENARIOS: dict[str, Callable[[GitRepo], tuple[list[str], str]]] = {
    "pre-commit-allowed": _pre_commit_allowed,
    "pre-commit-refused": _pre_commit_refused,
    "deletion-only": _deletion_only,
    "unreadable": _unreadable,
    "use-trailers": _use_trailers,
    "removal": _removal,
    "push-allowed": lambda repo: _push(repo, late=False),
    "push-refused": lambda repo: _push(repo, late=True),
    "all-files-over-budget": _over_budget_committed,
    "warn-mode": _warn_mode,
}


@dataclasses.dataclass(frozen=True)
class Run:
    repo: GitRepo
    code: int
    out: str


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, snapshot: Path) -> dict[str, Run]:
    """Every scenario's `pre-commit try-repo`, run side by side (each builds its own environment)."""
    started = {}
    with pytest.MonkeyPatch.context() as mp:
        _seal(mp, tmp_path_factory)
        for name, prepare in SCENARIOS.items():
            root = tmp_path_factory.mktemp(f"framework-{name}")
            subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
            repo = GitRepo(root)
            args, date = prepare(repo)
            env = dict(os.environ, GIT_COMMITTER_DATE=date, GIT_AUTHOR_DATE=date)
            command = [sys.executable, "-m", "pre_commit", "try-repo", str(snapshot), *args]
            command += [] if name in QUIET else ["--verbose"]
            proc = subprocess.Popen(
                command, cwd=root, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            started[name] = (repo, proc)
        return {name: Run(repo, proc.wait(), proc.communicate()[0]) for name, (repo, proc) in started.items()}


def passed(run: Run, *hooks: str) -> None:
    assert run.code == 0, run.out
    for hook in hooks:
        assert f"- hook id: {hook}" in run.out
    assert "Failed" not in run.out
    # A hook whose files the commit does not touch is skipped; the spawn check sees Squad's files only.
    skipped = [line for line in run.out.splitlines() if line.rstrip().endswith("Skipped")]
    assert all(line.startswith("squadmem spawn blocks") for line in skipped), skipped


def failed(run: Run, *messages: str) -> None:
    assert run.code == 1, run.out
    assert "Failed" in run.out
    for message in messages:
        assert message in run.out


def test_pre_commit_hooks_allow_an_append_and_a_small_hot_file(runs: dict[str, Run]) -> None:
    passed(runs["pre-commit-allowed"], "squadmem-file-check", "squadmem-log-check", "squadmem-budget-check")


def test_pre_commit_hooks_refuse_yesterday_and_an_oversized_hot_file(runs: dict[str, Run]) -> None:
    failed(
        runs["pre-commit-refused"],
        f"{LOG}: changed after its day ended 2026-03-02 00:00 UTC",
        f"{HOT}: 4313 bytes > 4096 (hot.max_bytes); {STAGED_FIX}",
    )


def test_file_check_refuses_a_file_squadmem_cannot_read(runs: dict[str, Run]) -> None:
    failed(
        runs["unreadable"],
        f"{HOT}: holds a NUL byte; tier files are UTF-8 Markdown text: remove the NUL byte",
        ".squad/memory/tiers.toml:2: hot.stale_days must be a number from 0 to 36500, not nan",
    )


def test_log_check_refuses_a_staged_deletion_alone(runs: dict[str, Run]) -> None:
    """A deletion is not among the files pre-commit passes: the hook must run all the same."""
    failed(runs["deletion-only"], f"{LOG}: deleted;")


def test_use_trailers_runs_on_the_message_file(runs: dict[str, Run]) -> None:
    run = runs["use-trailers"]
    passed(run, "squadmem-use-trailers")
    assert (run.repo.root / ".git" / "COMMIT_EDITMSG").read_text().startswith("add b\n")


def test_use_trailers_names_a_section_removed_by_hand(runs: dict[str, Run]) -> None:
    """The framework's prepare-commit-msg stage names the removal as the plain hook does."""
    run = runs["removal"]
    passed(run, "squadmem-use-trailers")
    text = (run.repo.root / ".git" / "COMMIT_EDITMSG").read_text()
    assert text == "tidy\n\nSquad-Memory-Delete: picard/b\n"


def test_verify_push_allows_a_clean_range(runs: dict[str, Run]) -> None:
    passed(runs["push-allowed"], "squadmem-verify-push")


def test_verify_push_refuses_a_bypassed_log_edit(runs: dict[str, Run]) -> None:
    run = runs["push-refused"]
    failed(run, f"{run.repo.head()[:7]} {LOG}: changed after its day ended")


def test_hooks_manifest_is_complete() -> None:
    hooks = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    stages = {h["id"]: h["stages"] for h in hooks}
    assert stages == {
        "squadmem-file-check": ["pre-commit"],
        "squadmem-journal-check": ["pre-commit"],
        "squadmem-log-check": ["pre-commit", "pre-merge-commit"],
        "squadmem-budget-check": ["pre-commit"],
        "squadmem-spawn-check": ["pre-commit"],
        "squadmem-use-trailers": ["prepare-commit-msg", "commit-msg"],
        "squadmem-verify-push": ["pre-push"],
        "squadmem-settle-merge": ["post-merge"],
    }
    takes_files = {
        "squadmem-file-check",
        "squadmem-budget-check",
        "squadmem-spawn-check",
        "squadmem-use-trailers",
    }
    for hook in hooks:
        assert hook["language"] == "python" and hook["minimum_pre_commit_version"]
        assert hook["entry"] == hook["id"]  # the console scripts of the same names in pyproject.toml
        assert hook.get("pass_filenames", True) is (hook["id"] in takes_files)


def test_all_files_judges_what_is_committed(runs: dict[str, Run]) -> None:
    """Regression: --all-files passed with an over-budget hot file already committed."""
    failed(runs["all-files-over-budget"], f"{HOT}: 4313 bytes > 4096 (hot.max_bytes); {STAGED_FIX}")


def test_warn_mode_is_shown_by_the_framework(runs: dict[str, Run]) -> None:
    """Regression: budget.mode = "warn" printed nothing under pre-commit (output hidden on success)."""
    run = runs["warn-mode"]
    assert run.code == 0, run.out
    assert "Passed" in run.out
    assert f"{HOT}: 4313 bytes > 4096 (hot.max_bytes)" in run.out
    assert 'budget.mode = "warn" in tiers.toml: reported, not refused' in run.out


def test_init_snippet_works_in_any_install_order(repo: GitRepo, snapshot: Path) -> None:
    """`pre-commit install` -> `squadmem init` -> `pre-commit install`, with the config init prints
    (pointing at this project's snapshot), then real commits through the framework's hooks."""
    from squadmem.engine.install import githooks

    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=snapshot, env=_clean_env(), text=True, capture_output=True
    ).stdout.strip()
    repo.write(".pre-commit-config.yaml", githooks.pre_commit_snippet((str(snapshot), rev)))
    install = [sys.executable, "-m", "pre_commit", "install"]
    assert subprocess.run(install, cwd=repo.root, capture_output=True).returncode == 0
    done = subprocess.run(
        [sys.executable, "-m", "squadmem", "init", "--agent", "picard"],
        cwd=repo.root,
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert "id: squadmem-budget-check" in done.stdout
    installed = subprocess.run(install, cwd=repo.root, text=True, capture_output=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "migration mode" not in installed.stdout
    repo.git("add", "-A")
    first = hooked_commit(repo, D0, "-m", "init")
    assert first.returncode == 0, first.stdout + first.stderr
    repo.write(HOT, "# Hot\n\n## A\n" + "x" * 4300 + "\n")
    repo.git("add", "-A")
    head = repo.head()
    refused = hooked_commit(repo, D0, "-m", "big")
    assert refused.returncode == 1
    assert "hot.max_bytes" in refused.stdout + refused.stderr
    assert repo.head() == head
