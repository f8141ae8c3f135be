"""Sealed, real git repositories for tests.

Every test gets its own HOME, an empty git template, no system or global git
config, and a fixed identity; dates come from GIT_AUTHOR_DATE /
GIT_COMMITTER_DATE so ages are exact. Nothing is mocked.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import settings

# $HOME, sealed before squadmem is imported: the real one is only ever compared, never handed out.
# Whatever reads HOME outside a test (at import, in a session fixture, in a subprocess started with
# an environment copied then) gets SESSION_HOME, fresh and empty, and must leave it so.
REAL_HOME = Path(os.environ.get("HOME", "/root"))
SESSION_HOME = Path(tempfile.mkdtemp(prefix="squadmem-test-home-"))
os.environ["HOME"] = str(SESSION_HOME)
os.environ["XDG_CONFIG_HOME"] = str(SESSION_HOME / ".config")


def _remove_session_home() -> None:
    with contextlib.suppress(OSError):  # kept if something was written there
        SESSION_HOME.rmdir()


atexit.register(_remove_session_home)
# What tests put in a test's HOME on purpose: a host's own files, which squadmem only reads.
HOST_FIXTURES = (".openclaw",)

# Property tests draw the same examples on every default and CI run (derandomized, no example
# database), so a run never fails at random; ``SQUADMEM_HYPOTHESIS=explore`` (or pytest's
# ``--hypothesis-profile=explore``) draws new random examples to look for new failures. The
# profile is chosen here, at import, before any test's sealed environment drops SQUADMEM_* vars.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
PROFILE = os.environ.get("SQUADMEM_HYPOTHESIS", "ci")
settings.load_profile(PROFILE)


def home_writes(home: Path, ignore: tuple[str, ...] = ()) -> list[str]:
    """Every path under ``home`` (but those under the top-level names ``ignore``), sorted."""
    return sorted(
        rel for p in home.rglob("*") if (rel := p.relative_to(home).as_posix()).split("/")[0] not in ignore
    )


def _home_snapshot() -> dict[str, float]:
    """The real $HOME's entries two levels down, with their times (tool caches aside)."""
    found: dict[str, float] = {}
    try:
        for entry in REAL_HOME.iterdir():
            if entry.name in (".cache", ".npm"):
                continue
            found[entry.name] = entry.lstat().st_mtime
            if entry.is_dir() and not entry.is_symlink():
                found.update({f"{entry.name}/{p.name}": p.lstat().st_mtime for p in entry.iterdir()})
    except OSError:
        pass
    return found


@pytest.fixture(scope="session", autouse=True)
def _home_untouched() -> Iterator[None]:
    """Fail the run if anything wrote to the real $HOME, or to the session's."""
    before = _home_snapshot()
    yield
    assert _home_snapshot() == before, "a test wrote to the real $HOME"
    assert home_writes(SESSION_HOME) == [], f"a test wrote to $HOME ({SESSION_HOME})"


@pytest.fixture(autouse=True)
def _sealed_env(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Each test gets its own empty HOME, which nothing may write to (a subprocess included): after
    the test it holds only the host files the test set up (``.openclaw``). Tool caches (pip's) go
    to XDG_CACHE_HOME outside it. The slow tests run third-party tools (pre-commit, Node.js, the
    Squad CLI, OpenClaw) that keep their own state in HOME: for them only the session's checks hold."""
    home = tmp_path_factory.mktemp("home")
    template = tmp_path_factory.mktemp("git-template")
    for name in list(os.environ):
        if name.startswith(("GIT_", "SQUADMEM_", "OPENCLAW_")):  # OpenClaw's: init reads its config
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(template))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.com")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.getbasetemp() / "pre-commit-cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
    yield
    if request.node.get_closest_marker("slow") is None:
        written = home_writes(home, HOST_FIXTURES)
        assert not written, f"the test wrote to $HOME: {', '.join(written[:5])}"
    written = home_writes(SESSION_HOME)
    assert not written, f"the test wrote to the session's $HOME: {', '.join(written[:5])}"


class GitRepo:
    """A real repository in a temporary folder, with helpers to build history."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git(self, *args: str, date: str | None = None, check: bool = True, input: str | None = None) -> str:
        env = dict(os.environ)
        if date is not None:
            env["GIT_AUTHOR_DATE"] = date
            env["GIT_COMMITTER_DATE"] = date
        proc = subprocess.run(
            ["git", *args], cwd=self.root, env=env, text=True, capture_output=True, input=input
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return proc.stdout

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8"))
        return path

    def read(self, rel: str) -> str:
        return (self.root / rel).read_bytes().decode("utf-8")

    def commit(
        self, message: str, files: Mapping[str, str | bytes | None] | None = None, *, date: str
    ) -> str:
        """Write (or, for None, delete) files, stage them, commit at ``date``; return the sha."""
        for rel, text in (files or {}).items():
            if text is None:
                self.git("rm", "-q", "--", rel)
            else:
                self.write(rel, text)
                self.git("add", "--", rel)
        self.git("commit", "-q", "--allow-empty", "--no-gpg-sign", "-m", message, date=date)
        return self.git("rev-parse", "HEAD").strip()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def snapshot(self) -> dict[str, bytes]:
        """Every file in the work tree (not .git) with its bytes, plus HEAD and the index."""
        files = {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(self.root).parts
        }
        files["<HEAD>"] = self.git("rev-parse", "--verify", "-q", "HEAD", check=False).encode()
        files["<index>"] = self.git("ls-files", "-s").encode()
        return files


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    return GitRepo(root)


def run_squadmem(
    cwd: Path, *args: str, input: str | None = None, date: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The real ``squadmem`` command, in a child process."""
    env = dict(os.environ)
    if date is not None:
        env["GIT_AUTHOR_DATE"] = date
        env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(
        [sys.executable, "-m", "squadmem", *args],
        cwd=cwd,
        env=env,
        text=True,
        capture_output=True,
        input=input,
    )


def squadmem(
    where: GitRepo | Path, *args: str, input: str | None = None, env: Mapping[str, str] | None = None
) -> tuple[int, str, str]:
    """``squadmem ARGS`` in-process (click's runner) as if started in ``where``: code, stdout, stderr."""
    from click.testing import CliRunner

    from squadmem.cli.app import app

    root = where.root if isinstance(where, GitRepo) else where
    result = CliRunner().invoke(app, ["-C", str(root), *args], input=input, env=env)
    return result.exit_code, result.stdout, result.stderr


def hooked_commit(
    repo: GitRepo,
    date: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """A real ``git commit`` (its hooks fire) dated ``date``, in ``env`` (this process's by default)."""
    env = dict(os.environ if env is None else env, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", *args],
        cwd=repo.root,
        env=env,
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def stage(repo: GitRepo, files: dict[str, str | None]) -> None:
    """Stage each file's text, or its removal (None)."""
    for rel, text in files.items():
        if text is None:
            repo.git("rm", "-q", "--", rel)
        else:
            repo.write(rel, text)
            repo.git("add", "--", rel)


def bare_remote(repo: GitRepo, where: Path) -> Path:
    """A bare repository ``where/remote.git``, added to ``repo`` as ``origin``."""
    remote = where / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo.git("remote", "add", "origin", str(remote))
    return remote


def init_hooked(repo: GitRepo, date: str) -> GitRepo:
    """``squadmem init --agent picard`` (git hooks installed), committed through them at ``date``."""
    done = run_squadmem(repo.root, "init", "--agent", "picard")
    assert done.returncode == 0, done.stderr
    repo.git("add", "-A")
    committed = hooked_commit(repo, date, "-m", "init")
    assert committed.returncode == 0, committed.stderr
    return repo


def assert_refused(repo: GitRepo, *args: str, message: str) -> None:
    """The real command exits 2 with ``message`` and a hint, and leaves the repository as it was."""
    before = repo.snapshot()
    done = run_squadmem(repo.root, *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == message
    assert done.stderr.splitlines()[1].startswith("hint: ")
    assert repo.snapshot() == before
