"""verify's conservation rule: no commit loses or duplicates a section, whoever made it, merges included."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, init_hooked
from conftest import squadmem as cli
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine import catalog
from squadmem.engine.verify import conservation
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
D = "2026-01-01T10:00:00+00:00"
A, B, C = "## Alpha\nalpha body\n", "## Beta\nbeta body\n", "## Gamma\ngamma body\n"


def seed(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: f"# Hot\n\n{A}\n{B}", COLD: f"# Cold\n\n{C}"}, date=D)


def violations(repo: GitRepo, rev: str = "HEAD") -> list[str]:
    code, out, _ = cli(repo, "verify", rev)
    return [] if code == 0 else out.splitlines()[:-1]


def test_a_commit_that_drops_a_section_is_a_violation(repo: GitRepo) -> None:
    """Failure: a user commit that dropped a section squadmem had moved passed verify."""
    seed(repo)
    sha = repo.commit("tidy", {HOT: f"# Hot\n\n{A}"}, date=D)
    assert violations(repo) == [
        f"{sha[:7]} {HOT}: section picard/beta ('Beta') is in no tier after this commit: "
        "not moved, archived or deleted with a Squad-Memory-Delete: picard/beta trailer"
    ]


def test_an_explicit_delete_names_the_section_in_a_trailer(repo: GitRepo) -> None:
    seed(repo)
    repo.commit("drop beta\n\nSquad-Memory-Delete: picard/beta", {HOT: f"# Hot\n\n{A}"}, date=D)
    assert violations(repo) == []


@pytest.mark.parametrize(
    ("what", "files"),
    [
        ("an edit", {HOT: f"# Hot\n\n{A}\n## Beta\nbeta body, edited\n"}),
        ("a rename", {HOT: f"# Hot\n\n{A}\n## Beta renamed\nbeta body\n"}),
        ("a move by hand", {HOT: f"# Hot\n\n{A}", COLD: f"# Cold\n\n{C}\n{B}"}),
        ("a new section", {COLD: f"# Cold\n\n{C}\n## Delta\nnew\n"}),
    ],
)
def test_ordinary_edits_conserve(repo: GitRepo, what: str, files: dict[str, str]) -> None:
    seed(repo)
    repo.commit(what, dict(files), date=D)
    assert violations(repo) == []


def test_removal_from_the_archive_is_allowed(repo: GitRepo) -> None:
    seed(repo)
    repo.commit("archive", {HOT: f"# Hot\n\n{A}", ARCHIVE: f"# Archive\n\n{B}"}, date=D)
    repo.commit("prune the archive", {ARCHIVE: "# Archive\n"}, date=D)
    assert violations(repo) == []


def test_a_section_left_in_two_tiers_is_a_duplicate(repo: GitRepo) -> None:
    seed(repo)
    sha = repo.commit("copy", {COLD: f"# Cold\n\n{C}\n{B}"}, date=D)
    assert violations(repo) == [
        f"{sha[:7]} {HOT}: section picard/beta ('Beta') is there 2 times after this commit",
        f"{sha[:7]} picard:Beta: the section 'Beta' of picard is in 2 tiers (cold, hot)",
    ]


def _branches(repo: GitRepo, side: str, main: str) -> None:
    """Two branches each demote a different hot section (one at the top of the file, one at its
    end): both append to the end of the cold file, so -X picks one side's append there."""
    fillers = "".join(f"## Filler {n}\nfiller {n}\n\n" for n in range(3))
    repo.commit("memory", {HOT: f"# Hot\n\n{A}\n{fillers}{B}", COLD: f"# Cold\n\n{C}"}, date=D)
    repo.git("checkout", "-q", "-b", "side")
    assert cli(repo, "demote", side)[0] == 0
    repo.git("checkout", "-q", "main")
    assert cli(repo, "demote", main)[0] == 0


def test_a_merge_with_x_ours_that_loses_a_section_is_a_violation(repo: GitRepo) -> None:
    """Failure: two branches each ran maintain, `git merge -X ours` went 26 -> 25 sections; verify passed."""
    _branches(repo, "picard/alpha", "picard/beta")
    repo.git("merge", "-q", "--no-edit", "-X", "ours", "side", date=D)
    found = violations(repo)
    assert any("section picard/alpha ('Alpha') is in no tier after this commit" in v for v in found), found


def test_a_merge_with_x_theirs_that_loses_a_section_is_a_violation(repo: GitRepo) -> None:
    """Failure: `git merge -X theirs` of two maintained branches lost or doubled sections; verify passed."""
    _branches(repo, "picard/beta", "picard/alpha")
    repo.git("merge", "-q", "--no-edit", "-X", "theirs", "side", date=D)
    found = violations(repo)
    assert any("section picard/alpha ('Alpha') is in no tier after this commit" in v for v in found), found


def test_a_merge_that_keeps_every_section_conserves(repo: GitRepo) -> None:
    _branches(repo, "picard/alpha", "picard/beta")
    repo.git("merge", "-q", "--no-edit", "-X", "ours", "side", date=D)
    repo.write(COLD, repo.read(COLD) + "\n" + A)
    repo.git("commit", "-q", "-am", "put Alpha back in cold", date=D)
    found = violations(repo)
    assert len(found) == 1 and "picard/alpha" in found[0]  # the merge itself; the fix is clean


# -- property: edits that keep every section pass, a drop is always caught -------------------------

_TITLES = [f"Item {n}" for n in range(8)]


def _memory(placed: dict[str, tuple[str, str]]) -> catalog.Memory:
    files: dict[str, str] = {}
    for title, (tier, body) in sorted(placed.items()):
        rel = f"{MEMORY_DIR}/{tier}/picard.md"
        files[rel] = files.get(rel, f"# {tier}\n\n") + f"## {title}\n{body}\n\n"
    return catalog.from_texts(files, SQUAD_PLACES)


@settings(max_examples=100, deadline=None)
@given(
    start=st.dictionaries(st.sampled_from(_TITLES), st.sampled_from(["hot", "cold", "archive"]), min_size=1),
    ops=st.lists(
        st.tuples(st.sampled_from(["move", "edit", "rename", "drop"]), st.integers(0, 100)), max_size=6
    ),
)
def test_judge_passes_conserving_edits_and_catches_every_drop(
    start: dict[str, str], ops: list[tuple[str, int]]
) -> None:
    placed = {title: (tier, f"body of {title}") for title, tier in start.items()}
    before = conservation.snapshot(_memory(placed))
    now: dict[str, tuple[str, str, str]] = {t: (tier, body, t) for t, (tier, body) in placed.items()}
    for op, n in ops:
        titles = sorted(now)
        if not titles:
            break
        title = titles[n % len(titles)]
        tier, body, origin = now[title]
        if op == "move":
            now[title] = (random.Random(n).choice(["hot", "cold", "archive"]), body, origin)
        elif op == "edit":
            now[title] = (tier, body + f" edited {n}", origin)
        elif op == "rename" and f"{title} renamed" not in now:
            del now[title]
            now[f"{title} renamed"] = (tier, body, origin)
        elif op == "drop":
            del now[title]
    # kept: its title still there (an edit in place), or its body under a new title (a rename)
    kept = {o for t, (_, body, o) in now.items() if t == o or body == placed[o][1]}
    expected_lost = {t for t, (tier, _) in placed.items() if tier != "archive" and t not in kept}
    after = conservation.snapshot(_memory({t: (tier, body) for t, (tier, body, _) in now.items()}))
    problems = conservation.judge(after, [before], None, set())
    lost = {why.split("'")[1] for _, why in problems if "in no tier" in why}
    assert lost == expected_lost, problems
    assert not [why for _, why in problems if "times after" in why or "tiers (" in why]


def test_an_unreadable_tier_file_never_lets_a_loss_through(repo: GitRepo, tmp_path: Path) -> None:
    """Failure: commit 1 (`--no-verify`) deleted a section and added a non-UTF-8 tier file, commit 2
    removed that file; `verify` and the pre-push hook said "no violations" (conservation was skipped
    whenever a tier file could not be read). Commit 2 is now judged from the last readable state."""
    init_hooked(repo, D)
    bare_remote(repo, tmp_path)
    repo.commit("memory", {HOT: f"# Hot memory: picard\n\n{A}\n{B}"}, date=D)
    repo.git("push", "-q", "-u", "origin", "main")
    bad = f"{MEMORY_DIR}/cold/riker.md"
    repo.write(HOT, f"# Hot memory: picard\n\n{A}")
    repo.write(bad, b"# Cold\n\n\xff\xfe broken\n")
    repo.git("add", HOT, bad)
    repo.git("commit", "-q", "--no-verify", "-m", "tidy", date=D)
    sha = repo.commit("remove the broken file", {bad: None}, date=D)
    lost = (
        f"{sha[:7]} {HOT}: section picard/beta ('Beta') is in no tier after this commit: "
        "not moved, archived or deleted with a Squad-Memory-Delete: picard/beta trailer"
    )
    assert violations(repo, "origin/main..HEAD") == [lost]
    before = repo.git("rev-parse", "origin/main")
    done = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=repo.root, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert lost in done.stdout
    assert repo.git("ls-remote", "origin", "main").split()[0] == before.strip()


def test_an_unreadable_tier_file_with_a_delete_trailer_passes(repo: GitRepo) -> None:
    """Legitimate: a section deleted on purpose (its trailer) in the commit that left a file unreadable
    is not reported when a later commit makes the memory readable again."""
    seed(repo)
    bad = f"{MEMORY_DIR}/cold/riker.md"
    files = {HOT: f"# Hot\n\n{A}", bad: b"\xff\n"}
    repo.commit("drop beta\n\nSquad-Memory-Delete: picard/beta", files, date=D)  # type: ignore[arg-type]
    repo.commit("fix", {bad: "# Cold\n"}, date=D)
    assert violations(repo) == []
