"""The pre-commit file check, fired by real `git commit` through the shims `squadmem init` installs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import GitRepo, hooked_commit, init_hooked

from squadmem.hooks.file_check import problem
from squadmem.model.layout import MAX_FILE_BYTES
from squadmem.model.places import SQUAD_PLACES

HOT = ".squad/memory/hot/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"
LOG = ".squad/memory/log/2026-03-01.md"
SETTINGS = ".squad/memory/tiers.toml"
DATE = "2026-03-01T12:00:00+00:00"


def attempt(repo: GitRepo) -> subprocess.CompletedProcess[str]:
    return hooked_commit(repo, DATE, "-m", "change")


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    return init_hooked(repo, DATE)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"## A\nok\n", None),
        (
            b"## A\n\0\n",
            f"{ARCHIVE}: holds a NUL byte; tier files are UTF-8 Markdown text: remove the NUL byte",
        ),
        (b"## A\n\xff\n", f"{ARCHIVE}: not UTF-8 (byte 5); re-save the file as UTF-8"),
        (b"a" * (MAX_FILE_BYTES + 1), f"{ARCHIVE}: {MAX_FILE_BYTES + 1} bytes is over the 1 MiB limit"),
        (b"## A\n<!-- squadmem: id=../x -->\n", f"{ARCHIVE}: id='../x': names are letters"),
        (b"## A\n<!-- squadmem: pin pin -->\n", f"{ARCHIVE}: squadmem flag 'pin' given twice; flags are:"),
    ],
    ids=["fine", "nul", "not-utf8", "over-limit", "bad-id", "pin-twice"],
)
def test_problem_names_the_file_and_the_fix(raw: bytes, expected: str | None) -> None:
    found = problem(ARCHIVE, raw, SQUAD_PLACES)
    assert found == expected if expected is None else found is not None and found.startswith(expected)


@pytest.mark.parametrize(
    ("path", "raw", "message"),
    [
        (
            HOT,
            b"## A\n\0\n",
            f"{HOT}: holds a NUL byte; tier files are UTF-8 Markdown text: remove the NUL byte",
        ),
        (ARCHIVE, b"## A\ncaf\xe9\n", f"{ARCHIVE}: not UTF-8 (byte 8); re-save the file as UTF-8"),
        (ARCHIVE, b"## A\n" + b"a\n" * 2_500_000, f"{ARCHIVE}: 5000005 bytes is over the 1 MiB limit"),
        (ARCHIVE, b"## A\n<!-- squadmem: topic=../../x -->\n", f"{ARCHIVE}: topic='../../x': names are"),
        (LOG, b"# Daily log\n\n- 10:00 \0\n", f"{LOG}: holds a NUL byte"),
        (SETTINGS, b"[hot]\nstale_days = nan\n", f"{SETTINGS}:2: hot.stale_days must be a number from 0"),
        (
            SETTINGS,
            b"[log]\ngrace_minutes = 500000000\n",
            f"{SETTINGS}:2: log.grace_minutes must be a number",
        ),
        (SETTINGS, b"[hot\n", f"{SETTINGS}: not valid TOML"),
    ],
    ids=["nul", "not-utf8", "5-mb", "bad-flag", "nul-log", "nan-setting", "huge-grace", "broken-toml"],
)
def test_a_commit_of_a_file_squadmem_cannot_read_is_refused(
    hooked: GitRepo, path: str, raw: bytes, message: str
) -> None:
    """Lockout: the hooks let in a NUL / non-UTF-8 / 5 MB tier file or a broken tiers.toml (a huge
    grace_minutes raised a raw traceback inside the hook), and every command then exited 2."""
    head = hooked.head()
    hooked.write(path, raw)
    hooked.git("add", path)
    done = attempt(hooked)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(message), done.stderr
    assert "Traceback" not in done.stderr
    assert hooked.head() == head


def test_a_readable_change_passes(hooked: GitRepo) -> None:
    hooked.write(HOT, "# Hot\n\n## A\n<!-- squadmem: pin -->\nfine, café\n")
    hooked.write(SETTINGS, "[hot]\nstale_days = 3.5\n")
    hooked.git("add", "-A")
    done = attempt(hooked)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("framework", [False, True])
def test_file_check_refuses_an_id_set_in_two_tiers_of_an_agent(hooked: GitRepo, framework: bool) -> None:
    """Regression: `id=notes` in both hot and cold passed the commit hooks, then the agent's whole
    memory was left out (`context` exit 2, `list`: "no tier file belongs to this agent"). The file
    check now refuses it at the commit, naming both files and the fix; by file names too (the
    pre-commit framework's, the work tree's files)."""
    flagged = "## Notes\n<!-- squadmem: id=notes -->\n{}\n"
    hooked.write(HOT, "# Hot memory: picard\n\n" + flagged.format("hot"))
    hooked.git("add", HOT)
    assert attempt(hooked).returncode == 0
    hooked.write(".squad/memory/cold/picard.md", "# Cold memory: picard\n\n" + flagged.format("cold"))
    hooked.git("add", "-A")
    before = hooked.snapshot()
    if framework:
        done = subprocess.run(
            [sys.executable, "-m", "squadmem.hooks.file_check", ".squad/memory/cold/picard.md"],
            cwd=hooked.root,
            capture_output=True,
            text=True,
        )
    else:
        done = attempt(hooked)
    assert done.returncode == 1
    assert done.stderr == (
        ".squad/memory/cold/picard.md: id=notes is also set in .squad/memory/hot/picard.md, which would"
        " leave the whole owner's memory out; give each section its own id (change one id=notes)\n"
    )
    assert hooked.snapshot() == before
