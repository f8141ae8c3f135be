"""The hot budget hook, fired by real `git commit` through the shims `squadmem init` installs."""

from __future__ import annotations

import subprocess

import pytest
from conftest import GitRepo, hooked_commit, init_hooked, run_squadmem, squadmem

from squadmem.model.budget import STAGED_FIX
from squadmem.model.budget import hot_blob_over as over_budget
from squadmem.model.settings import HotSettings

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
DATE = "2026-03-01T12:00:00+00:00"


def attempt(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return hooked_commit(repo, DATE, *args)


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    return init_hooked(repo, DATE)


def big(n_bytes: int) -> str:
    header = "# Hot memory: picard\n\n## Notes\n"
    return header + "x" * (n_bytes - len(header) - 1) + "\n"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"x" * 4096, []),
        (b"x" * 4097, ["4097 bytes > 4096 (hot.max_bytes); run: squadmem maintain"]),
        (b"a\n" * 100, []),
        (b"a\n" * 100 + b"b", ["101 lines > 100 (hot.max_lines); run: squadmem maintain"]),
        (b"a\r\n" * 101, ["101 lines > 100 (hot.max_lines); run: squadmem maintain"]),
    ],
)
def test_over_budget_limits(raw: bytes, expected: list[str]) -> None:
    assert over_budget(raw, HotSettings()) == expected


def test_budget_check_over_bytes_refused(hooked: GitRepo) -> None:
    hooked.write(HOT, big(4300))
    hooked.git("add", HOT)
    before = hooked.snapshot()
    done = attempt(hooked, "-m", "grow")
    assert done.returncode == 1
    assert done.stderr == f"{HOT}: 4300 bytes > 4096 (hot.max_bytes); {STAGED_FIX}\n"
    assert hooked.snapshot() == before


def test_budget_check_over_lines_refused(hooked: GitRepo) -> None:
    hooked.write(HOT, "# Hot\n" + "- line\n" * 120)
    hooked.git("add", HOT)
    done = attempt(hooked, "-m", "grow")
    assert done.returncode == 1
    assert done.stderr == f"{HOT}: 121 lines > 100 (hot.max_lines); {STAGED_FIX}\n"


def sections_of(n: int, size: int) -> str:
    return "".join(f"## Note {i}\n" + "x" * size + "\n\n" for i in range(n))


@pytest.mark.parametrize("staged", [True, False])
def test_budget_check_refusal_names_a_command_that_works(hooked: GitRepo, staged: bool) -> None:
    """Regression (budget deadlock): an edit took hot over budget; the hook said "run squadmem
    maintain", and maintain and demote refused because hot had uncommitted changes. The hook now
    names `maintain --commit-edits`, and the refusals of maintain and demote name it too; it commits
    the edit as it is, then moves sections out, and the commit that was refused goes through."""
    hooked.write(HOT, "# Hot memory: picard\n\n" + sections_of(3, 100))
    hooked.git("add", HOT)
    assert attempt(hooked, "-m", "notes").returncode == 0
    hooked.write(HOT, hooked.read(HOT) + sections_of(25, 150).replace("Note", "Later"))
    hooked.write("README.md", "readme\n")
    hooked.git("add", "README.md", *([HOT] if staged else []))
    done = attempt(hooked, "-m", "more notes", *(["-a"] if not staged else []))
    assert done.returncode == 1
    assert done.stderr.endswith(f"(hot.max_bytes); {STAGED_FIX}\n"), done.stderr
    for args in (("maintain",), ("demote", "picard/note-0")):
        before = hooked.snapshot()
        refused = run_squadmem(hooked.root, *args)
        assert refused.returncode == 2
        assert refused.stderr.splitlines()[0] == f"squadmem: {HOT}: has uncommitted changes"
        assert "add --commit-edits to maintain, promote or demote" in refused.stderr.splitlines()[1]
        assert hooked.snapshot() == before
    code, out, err = squadmem(hooked, "maintain", "--commit-edits", "--now", "2026-03-01T12:00:00Z")
    assert code == 0, err
    assert "memory: commit uncommitted edits to 1 tier file(s)" in out
    assert "over budget" in out
    assert over_budget(hooked.read(HOT).encode(), HotSettings()) == []
    assert hooked.git("status", "--porcelain", "--", HOT) == ""
    assert "A  README.md" in hooked.git("status", "--porcelain")  # the user's other staged file: still staged
    assert attempt(hooked, "-m", "readme").returncode == 0
    assert squadmem(hooked, "verify")[0] == 0


def test_commit_edits_refuses_a_partly_staged_tier_file(hooked: GitRepo) -> None:
    hooked.write(HOT, "# Hot memory: picard\n\n## A\na\n")
    hooked.git("add", HOT)
    hooked.write(HOT, "# Hot memory: picard\n\n## A\na\nmore\n")
    before = hooked.snapshot()
    done = run_squadmem(hooked.root, "demote", "picard/a", "--commit-edits")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"squadmem: {HOT}: has staged and unstaged changes; squadmem changed nothing",
        f"hint: stage the whole file (git add {HOT}) or undo the unstaged part, then run it again",
    ]
    assert hooked.snapshot() == before


def test_budget_check_within_budget_passes(hooked: GitRepo) -> None:
    hooked.write(HOT, big(4096))
    hooked.write(COLD, big(9000))  # cold files are not held to the hot budget
    hooked.git("add", "-A")
    done = attempt(hooked, "-m", "fits")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_budget_check_budget_from_staged_settings(hooked: GitRepo) -> None:
    hooked.write(".squad/memory/tiers.toml", "[hot]\nmax_bytes = 100\n")
    hooked.write(HOT, big(200))
    hooked.git("add", "-A")
    done = attempt(hooked, "-m", "small budget")
    assert done.returncode == 1
    assert f"{HOT}: 200 bytes > 100 (hot.max_bytes)" in done.stderr


def test_budget_check_warn_mode_reports_and_passes(hooked: GitRepo) -> None:
    hooked.write(".squad/memory/tiers.toml", '[budget]\nmode = "warn"\n')
    hooked.write(HOT, big(5000))
    hooked.git("add", "-A")
    done = attempt(hooked, "-m", "over but warned")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"{HOT}: 5000 bytes > 4096 (hot.max_bytes); {STAGED_FIX}",
        'budget.mode = "warn" in tiers.toml: reported, not refused',
    ]
    assert hooked.git("log", "-1", "--format=%s").strip() == "over but warned"


def test_budget_check_only_files_the_commit_changes(hooked: GitRepo) -> None:
    """An over-budget hot file committed earlier (with --no-verify) does not block unrelated commits."""
    hooked.write(HOT, big(5000))
    hooked.git("add", "-A")
    assert attempt(hooked, "--no-verify", "-m", "over").returncode == 0
    hooked.write("README.md", "hello\n")
    hooked.git("add", "README.md")
    done = attempt(hooked, "-m", "unrelated")
    assert done.returncode == 0, done.stderr


def test_budget_check_new_agent_file_checked(hooked: GitRepo) -> None:
    rel = ".squad/memory/hot/riker.md"
    hooked.write(rel, big(4500))
    hooked.git("add", rel)
    done = attempt(hooked, "-m", "new agent")
    assert done.returncode == 1
    assert done.stderr.startswith(f"{rel}: 4500 bytes > 4096")
