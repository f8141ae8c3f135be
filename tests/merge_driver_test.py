"""The merge driver under real ``git merge``, after ``squadmem init``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, squadmem

from squadmem.engine.install import mergedriver
from squadmem.engine.writing import settle
from squadmem.hooks import merge_driver
from squadmem.model import sections
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
D0 = "2026-01-01T10:00:00+00:00"
D1 = "2026-01-20T10:00:00+00:00"
D2 = "2026-02-05T10:00:00+00:00"


def hot(*parts: str) -> str:
    return "# Hot memory: picard\n\n" + "".join(parts)


def cold(*parts: str) -> str:
    return "# Cold memory: picard\n\n" + "".join(parts)


def setup(repo: GitRepo, files: dict[str, str]) -> None:
    """``squadmem init`` (no git hooks: they have no part in merges and cost a process per commit)."""
    assert squadmem(repo, "init", "--agent", "picard", "--no-hooks")[0] == 0
    repo.commit("init", files, date=D0)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "setup", date=D0)


def branch(repo: GitRepo, name: str, files: dict[str, str | None], date: str = D1) -> None:
    repo.git("checkout", "-q", "-b", name, "main")
    repo.commit(f"on {name}", dict(files), date=date)
    repo.git("checkout", "-q", "main")


def merge(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "merge", "--no-gpg-sign", "-m", "merge", *args],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_AUTHOR_DATE": D2, "GIT_COMMITTER_DATE": D2},
    )


def titles(repo: GitRepo) -> list[tuple[str, str]]:
    """(title, text) of every section in every tier file but the Index, sorted."""
    found = []
    for path in sorted((repo.root / MEMORY_DIR).glob("*/*.md")):
        if path.parent.name == "log":
            continue
        for section in sections.split(path.read_text("utf-8")).sections:
            if section.raw_heading.strip() != "Index → Deeper Tiers":
                found.append((section.raw_heading.strip(), section.text.rstrip("\n")))
    return sorted(found)


def test_init_configures_the_driver_once(repo: GitRepo) -> None:
    assert squadmem(repo, "init", "--agent", "picard")[0] == 0
    config = (repo.root / ".git" / "config").read_bytes()
    attributes = repo.read(".gitattributes")
    for tier in ("hot", "cold", "archive", "wiki"):
        assert f"{MEMORY_DIR}/{tier}/*.md merge=squadmem\n" in attributes
    assert f"{MEMORY_DIR}/log/*.md merge=union\n" in attributes
    assert repo.git("config", "merge.squadmem.driver").strip() == mergedriver.command()
    assert repo.git("check-attr", "merge", "--", f"{MEMORY_DIR}/log/2026-01-01.md").endswith("union\n")
    code, out, _ = squadmem(repo, "init", "--agent", "picard")
    assert (code, out.splitlines()[0]) == (0, "nothing to do: squadmem is already set up here")
    assert (repo.root / ".git" / "config").read_bytes() == config
    assert repo.read(".gitattributes") == attributes


def test_init_leaves_a_merge_setting_that_is_there(repo: GitRepo) -> None:
    repo.write(".gitattributes", f"{MEMORY_DIR}/hot/*.md merge=union\n")
    assert squadmem(repo, "init", "--agent", "picard")[0] == 0
    text = repo.read(".gitattributes")
    assert text.count(f"{MEMORY_DIR}/hot/*.md") == 1
    assert f"{MEMORY_DIR}/cold/*.md merge=squadmem" in text
    out = squadmem(repo, "doctor", "--json")[1]
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert checks["merge driver"]["status"] == "warn"
    assert "merge=union" in checks["merge driver"]["detail"]


def test_doctor_warns_when_the_driver_is_not_configured(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\na\n")})
    repo.git("config", "--unset", "merge.squadmem.driver")
    _, out, _ = squadmem(repo, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert checks["merge driver"]["status"] == "warn"
    assert "squadmem init" in checks["merge driver"]["detail"]


def test_merge_both_add_keeps_both(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\na\n\n## B\nb\n")})
    branch(repo, "side", {HOT: hot("## A\na\n\n## B\nb\n\n## Theirs\nt\n")})
    repo.commit("ours", {HOT: hot("## A\na\n\n## Ours\no\n\n## B\nb\n")}, date=D1)
    done = merge(repo, "side")
    assert done.returncode == 0, done.stdout + done.stderr
    assert repo.read(HOT) == hot("## A\na\n\n## Ours\no\n\n## B\nb\n\n## Theirs\nt\n")


def test_merge_same_section_edited_on_both_sides_conflicts_inside_it(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\nline\n\n## B\nb\n")})
    branch(repo, "side", {HOT: hot("## A\ntheirs\n\n## B\nb\n\n## New\nn\n")})
    repo.commit("ours", {HOT: hot("## A\nours\n\n## B\nb\n")}, date=D1)
    done = merge(repo, "side")
    assert done.returncode == 1
    assert "CONFLICT (content)" in done.stdout
    assert "both sides changed 'A'" in done.stderr
    text = repo.read(HOT)
    assert text == hot("## A\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n\n## B\nb\n\n## New\nn\n")
    assert repo.git("diff", "--name-only", "--diff-filter=U").split() == [HOT]


@pytest.mark.parametrize("strategy", [[], ["-X", "ours"], ["-X", "theirs"]])
def test_merge_move_on_one_side_edit_on_the_other_ends_edited_at_the_new_place(
    repo: GitRepo, strategy: list[str], tmp_path: Path
) -> None:
    """A section demoted on one branch and edited on the other: the edit ends in cold, once; the
    settled history passes verify and a real push."""
    remote_at = tmp_path
    setup(repo, {HOT: hot("## A\na\n\n## B\nb\n"), COLD: cold("## C\nc\n")})
    branch(repo, "side", {HOT: hot("## B\nb\n"), COLD: cold("## C\nc\n\n## A\na\n")})
    repo.commit("edit", {HOT: hot("## A\nedited\n\n## B\nb\n")}, date=D1)
    done = merge(repo, *strategy, "side")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(else run: squadmem settle)" in done.stderr
    code, out, _ = squadmem(repo, "doctor", "--json")
    assert code == 1
    assert (
        "(run: squadmem doctor --fix)"
        in {c["name"]: c for c in json.loads(out)["checks"]}["merges"]["detail"]
    )
    code, out, _ = squadmem(repo, "doctor", "--fix", "--json")
    assert code == 0, out
    assert repo.read(HOT) == hot("## B\nb\n")
    assert repo.read(COLD) == cold("## C\nc\n\n## A\nedited\n")
    assert repo.git("status", "--porcelain") == ""
    assert "settle merge" in repo.git("log", "-1", "--format=%s")
    assert squadmem(repo, "doctor", "--json")[0] == 0
    assert_settled_history_pushes(repo, remote_at)


def push(repo: GitRepo) -> subprocess.CompletedProcess[str]:
    """A real ``git push origin main``: the pre-push hook fires."""
    args = ["git", "push", "-q", "origin", "main"]
    return subprocess.run(args, cwd=repo.root, capture_output=True, text=True)


def assert_settled_history_pushes(repo: GitRepo, where: Path) -> None:
    """Regression: the settled history failed verify (the merge's two places, the settle's "lost"
    copy) and pre-push refused it. Now verify passes and a real push, through the hook, lands."""
    code, out, _ = squadmem(repo, "verify")
    assert code == 0, out
    assert out.rstrip().endswith("no violations")
    remote = bare_remote(repo, where)
    assert squadmem(repo, "init", "--agent", "picard")[0] == 0  # the git hooks, pre-push among them
    pushed = push(repo)
    assert pushed.returncode == 0, pushed.stderr
    assert (
        subprocess.run(
            ["git", "rev-parse", "main"], cwd=remote, capture_output=True, text=True
        ).stdout.strip()
        == repo.head()
    )


def hooked_setup(repo: GitRepo, where: Path) -> Path:
    """Hot A and B, cold C, with squadmem's git hooks and a remote that has it all."""
    assert squadmem(repo, "init", "--agent", "picard")[0] == 0
    repo.write(HOT, hot("## A\na\n\n## B\nb\n"))
    repo.write(COLD, cold("## C\nc\n"))
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "setup", date=D0)
    remote = bare_remote(repo, where)
    repo.git("push", "-q", "origin", "main")
    branch(repo, "side", {HOT: hot("## A\nedited\n\n## B\nb\n")})
    return remote


def test_merge_settles_in_the_post_merge_hook_and_the_push_passes(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: a section demoted on main (maintain's nightly run) and edited on a branch, merged:
    the edit stayed at the old place until a manual doctor --fix, whose history verify then refused
    (two violations) and pre-push too. Now the post-merge hook settles it, and the push passes."""
    hooked_setup(repo, tmp_path)
    assert squadmem(repo, "demote", "picard/a")[0] == 0
    done = merge(repo, "side")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "post-merge hook settles it" in done.stderr
    assert "settled: 'A' edited in" in done.stderr  # git shows a hook's output on stderr
    assert repo.read(COLD) == cold("## C\nc\n## A\nedited\n\n")
    assert "## A" not in repo.read(HOT)
    assert repo.git("status", "--porcelain") == ""
    assert not (repo.root / ".git" / "squadmem" / settle.RECORD).exists()
    code, out, _ = squadmem(repo, "verify", "origin/main..HEAD")
    assert code == 0, out
    pushed = push(repo)
    assert pushed.returncode == 0, pushed.stderr


def test_merge_left_unsettled_is_refused_at_push_naming_the_fix(repo: GitRepo, tmp_path: Path) -> None:
    """A merge whose edit is still at the old place (git merge --no-verify skips no post-merge, so the
    note is dropped by hand here): verify names the cause and the command; after it, the push passes."""
    hooked_setup(repo, tmp_path)
    assert squadmem(repo, "demote", "picard/a")[0] == 0
    (repo.root / ".git" / "hooks" / "post-merge").unlink()
    assert merge(repo, "side").returncode == 0
    code, out, _ = squadmem(repo, "verify", "origin/main..HEAD")
    assert code == 1
    merge_commit = repo.git("rev-parse", "--short=7", "HEAD").strip()
    assert out.splitlines()[0] == (
        f"{merge_commit} picard:A: the section 'A' of picard is in 2 tiers (cold, hot): a merge left it in"
        " two places and nothing settled it since (run: squadmem doctor --fix)"
    )
    before = repo.snapshot()
    pushed = push(repo)
    assert pushed.returncode == 1
    assert "(run: squadmem doctor --fix)" in pushed.stdout
    assert repo.snapshot() == before
    code, out, _ = squadmem(repo, "settle")
    assert (code, out) == (0, "settled: 'A' edited in .squad/memory/hot/picard.md, moved to cold\n")
    assert squadmem(repo, "settle") == (0, "nothing to settle\n", "")
    pushed = push(repo)
    assert pushed.returncode == 0, pushed.stderr


def test_maintain_settles_a_merge_first(repo: GitRepo, tmp_path: Path) -> None:
    """The nightly maintain after such a merge settles it before it plans, so its push passes."""
    hooked_setup(repo, tmp_path)
    assert squadmem(repo, "demote", "picard/a")[0] == 0
    (repo.root / ".git" / "hooks" / "post-merge").unlink()
    assert merge(repo, "side").returncode == 0
    code, out, _ = squadmem(repo, "maintain", "--json", "--now", "2026-02-05T12:00:00Z")
    assert code == 0, out
    assert json.loads(out)["settled"] == ["settled: 'A' edited in .squad/memory/hot/picard.md, moved to cold"]
    assert "## A\nedited\n" in repo.read(COLD)
    assert squadmem(repo, "verify", "origin/main..HEAD")[0] == 0


def test_merge_move_and_edit_when_both_changed_the_new_file_settles_in_the_driver(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\na\n\n## B\nb\n"), COLD: cold("## C\nc\n")})
    branch(repo, "side", {HOT: hot("## A\nedited\n\n## B\nb\n"), COLD: cold("## C\nc\n\n## D\nd\n")})
    repo.commit("move", {HOT: hot("## B\nb\n"), COLD: cold("## C\nc\n\n## A\na\n")}, date=D1)
    done = merge(repo, "side")
    assert done.returncode == 0, done.stdout + done.stderr
    assert repo.read(HOT) == hot("## B\nb\n")
    assert repo.read(COLD) == cold("## C\nc\n\n## A\nedited\n\n## D\nd\n")
    assert not (repo.root / ".git" / "squadmem" / settle.RECORD).exists()


def test_merge_cherry_pick_of_an_edit_after_a_move(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\na\n\n## B\nb\n"), COLD: cold("## C\nc\n")})
    branch(repo, "side", {HOT: hot("## A\nedited\n\n## B\nb\n"), COLD: cold("## C\nc\n\n## D\nd\n")})
    repo.commit("move", {HOT: hot("## B\nb\n"), COLD: cold("## C\nc\n\n## A\na\n")}, date=D1)
    done = subprocess.run(["git", "cherry-pick", "side"], cwd=repo.root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert repo.read(HOT) == hot("## B\nb\n")
    assert repo.read(COLD) == cold("## C\nc\n\n## A\nedited\n\n## D\nd\n")


def maintained_branches(repo: GitRepo) -> None:
    notes = "".join(f"## Note {n}\nnote {n}\n\n" for n in range(6))
    facts = "".join(f"## Fact {n}\n<!-- squadmem: kind=fact -->\nfact {n}\n\n" for n in range(4))
    setup(repo, {HOT: hot(notes), COLD: cold(facts)})
    repo.commit("more", {HOT: hot(notes, "".join(f"## Later {n}\nlater {n}\n\n" for n in range(4)))}, date=D1)
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side notes", {HOT: repo.read(HOT) + "## Side 1\ns1\n\n## Side 2\ns2\n"}, date=D2)
    assert squadmem(repo, "maintain", "--now", "2026-02-06T12:00:00Z")[0] == 0
    repo.git("checkout", "-q", "main")
    assert squadmem(repo, "maintain", "--now", "2026-01-25T12:00:00Z")[0] == 0


def test_merge_x_strategy_of_two_maintained_branches_loses_and_doubles_nothing(repo: GitRepo) -> None:
    """Regression: two branches each ran maintain (main moved notes to cold, side to the archive and
    facts to the wiki), then `git merge -X ours` lost a section and `-X theirs` doubled five."""
    maintained_branches(repo)
    expected = {title for title, _ in titles(repo)}
    repo.git("checkout", "-q", "side")
    expected |= {title for title, _ in titles(repo)}
    repo.git("checkout", "-q", "main")
    assert len(expected) == 16
    for strategy in ("ours", "theirs"):
        done = merge(repo, "-X", strategy, "side")
        assert done.returncode == 0, done.stdout + done.stderr
        found = [title for title, _ in titles(repo)]
        assert sorted(found) == sorted(expected), strategy  # each once
        repo.git("reset", "-q", "--hard", "HEAD^")


def test_driver_falls_back_to_a_line_merge_for_a_file_it_cannot_read(tmp_path: Path) -> None:
    files = []
    for name, data in (("base", b"a\n\xff\nb\n"), ("ours", b"x\n\xff\nb\n"), ("theirs", b"a\n\xff\ny\n")):
        path = tmp_path / name
        path.write_bytes(data)
        files.append(str(path))
    assert merge_driver.main(["--marker-size", "7", *files]) == 0
    assert Path(files[1]).read_bytes() == b"x\n\xff\ny\n"


def test_driver_runs_as_git_starts_it(tmp_path: Path) -> None:
    texts = {
        "base": hot("## A\na\n"),
        "ours": hot("## A\na\n\n## O\no\n"),
        "theirs": hot("## T\nt\n\n## A\na\n"),
    }
    files = []
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    done = subprocess.run(
        [sys.executable, "-m", "squadmem.hooks.merge_driver", "--marker-size", "7", *files, HOT],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ours").read_text() == hot("## T\nt\n\n## A\na\n\n## O\no\n")


def test_merge_rebase_of_an_edit_onto_a_move(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\na\n\n## B\nb\n"), COLD: cold("## C\nc\n")})
    branch(repo, "side", {HOT: hot("## A\nedited\n\n## B\nb\n"), COLD: cold("## C\nc\n\n## D\nd\n")})
    repo.commit("move", {HOT: hot("## B\nb\n"), COLD: cold("## C\nc\n\n## A\na\n")}, date=D1)
    repo.git("checkout", "-q", "side")
    done = subprocess.run(["git", "rebase", "main"], cwd=repo.root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert repo.read(HOT) == hot("## B\nb\n")
    assert repo.read(COLD) == cold("## C\nc\n\n## A\nedited\n\n## D\nd\n")


def test_driver_falls_back_to_a_line_merge_on_a_bad_flags_comment(tmp_path: Path) -> None:
    bad = "<!-- squadmem: colour=red -->\n"
    texts = {"base": f"## A\n{bad}a\n", "ours": f"## A\n{bad}a\nmine\n", "theirs": f"## A\n{bad}a\n"}
    files = []
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    assert merge_driver.main([*files, HOT]) == 0
    assert (tmp_path / "ours").read_text() == texts["ours"]


def test_doctor_fix_waits_for_an_unfinished_merge(repo: GitRepo) -> None:
    """A conflicted merge that kept an edit at its old place: --fix changes nothing until it is concluded."""
    setup(repo, {HOT: hot("## A\na\n\n## B\nb\n"), COLD: cold("## C\nc\n")})
    branch(repo, "side", {HOT: hot("## B\ntheirs\n"), COLD: cold("## C\nc\n\n## A\na\n")})
    repo.commit("edit", {HOT: hot("## A\nedited\n\n## B\nours\n")}, date=D1)
    assert merge(repo, "side").returncode == 1
    before = repo.snapshot()
    code, out, _ = squadmem(repo, "doctor", "--fix", "--json")
    assert code == 1
    detail = {c["name"]: c for c in json.loads(out)["checks"]}["merges"]["detail"]
    assert detail.startswith("a merge is not finished yet")
    assert repo.snapshot() == before
    repo.write(HOT, hot("## A\nedited\n\n## B\nours and theirs\n"))
    repo.git("commit", "-q", "-a", "--no-gpg-sign", "--no-edit", date=D2)
    assert squadmem(repo, "doctor", "--fix")[0] == 0
    assert repo.read(HOT) == hot("## B\nours and theirs\n")
    assert repo.read(COLD) == cold("## C\nc\n\n## A\nedited\n")


def test_doctor_warns_when_the_drivers_interpreter_is_gone_and_init_repairs_it(repo: GitRepo) -> None:
    """A virtual environment recreated elsewhere leaves a driver command that cannot start."""
    setup(repo, {HOT: hot("## A\na\n")})
    gone = mergedriver.command("/nonexistent/venv/bin/python")
    repo.git("config", "merge.squadmem.driver", gone)
    checks = {c["name"]: c for c in json.loads(squadmem(repo, "doctor", "--json")[1])["checks"]}
    assert checks["merge driver"] == {
        "name": "merge driver",
        "status": "warn",
        "detail": "the merge driver's interpreter /nonexistent/venv/bin/python is gone: "
        "tier files merge line by line (run: squadmem init)",
    }
    code, out, _ = squadmem(repo, "init", "--agent", "picard", "--no-hooks")
    assert code == 0 and "git config merge.squadmem" in out
    checks = {c["name"]: c for c in json.loads(squadmem(repo, "doctor", "--json")[1])["checks"]}
    assert checks["merge driver"]["status"] == "ok"


def test_doctor_fix_with_an_unreadable_tier_file_says_so_and_changes_nothing(repo: GitRepo) -> None:
    setup(repo, {HOT: hot("## A\na\n"), COLD: cold("## A\na\n")})
    repo.commit("bad", {ARCHIVE: b"## X\n\0\n"}, date=D1)
    before = repo.snapshot()
    code, out, _ = squadmem(repo, "doctor", "--fix", "--json")
    assert code == 1
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert checks["merges"]["status"] == "ok"
    assert checks["tier files"] == {
        "name": "tier files",
        "status": "fail",
        "detail": f"{ARCHIVE}: holds a NUL byte; tier files are UTF-8 Markdown text: remove the NUL byte",
    }
    assert repo.snapshot() == before


def test_driver_line_merge_inside_a_section_both_sides_edited() -> None:
    """Edits to different lines of one section merge cleanly; overlapping ones leave markers in it."""
    line_merge = merge_driver.git_line_merge(7, dict(os.environ))
    base = "## A\none\ntwo\nthree\nfour\n"
    clean = line_merge(base, "## A\nONE\ntwo\nthree\nfour\n", "## A\none\ntwo\nthree\nFOUR\n")
    assert clean == ("## A\nONE\ntwo\nthree\nFOUR\n", False)
    text, conflicted = line_merge(base, "## A\nmine\ntwo\nthree\nfour\n", "## A\nyours\ntwo\nthree\nfour\n")
    assert conflicted
    assert text == "## A\n<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\ntwo\nthree\nfour\n"


def clone_of(repo: GitRepo, where: Path) -> GitRepo:
    """A fresh ``git clone`` (no merge driver, no hooks: neither is cloned)."""
    subprocess.run(["git", "clone", "-q", str(repo.root), str(where)], check=True)
    return GitRepo(where)


def test_a_fresh_clone_gets_the_merge_driver_from_its_first_command(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: a clone has no merge driver (git config is not cloned), so git merged tier files
    line by line and lost sections. The first squadmem command (a spawn's context) now sets it up,
    in the clone's git config only, says so once, and names the command for the hooks."""
    setup(repo, {HOT: hot("## A\na\n")})
    clone = clone_of(repo, tmp_path / "clone")
    assert clone.git("config", "--get-regexp", "merge.squadmem", check=False) == ""
    before = clone.snapshot()
    code, out, err = squadmem(clone, "context", "--agent", "picard")
    assert code == 0 and "## A" in out
    assert err.splitlines()[1] == (
        "squadmem: warning: this clone had no merge driver for tier files (git config is not cloned):"
        " set merge.squadmem.name and merge.squadmem.driver in its .git/config, as .gitattributes asks"
        " (see: git config --get-regexp merge.squadmem)"
    )
    assert err.splitlines()[2] == "hint: a clone has no git hooks either: run squadmem init to install them"
    assert clone.git("config", "merge.squadmem.driver").strip() == mergedriver.command()
    assert clone.snapshot() == before  # the work tree, index and HEAD: untouched
    config = (clone.root / ".git" / "config").read_bytes()
    code, _, err = squadmem(clone, "context", "--agent", "picard")
    assert (code, len(err.splitlines())) == (0, 1)  # the size line only: said once, nothing more to set up
    assert (clone.root / ".git" / "config").read_bytes() == config


def test_verify_names_a_line_merge_as_the_cause_of_a_loss_and_the_way_back(
    repo: GitRepo, tmp_path: Path
) -> None:
    """A clone where no squadmem command ran merged tier files line by line (-X ours dropped the
    other side's section): verify names the cause and the way back, and that way works."""
    setup(repo, {HOT: hot("## A\na\n")})
    clone = clone_of(repo, tmp_path / "clone")
    branch(clone, "side", {HOT: hot("## A\na\n\n## S\ns\n")})
    clone.commit("mine", {HOT: hot("## A\na\n\n## M\nm\n")}, date=D1)
    assert merge(clone, "-X", "ours", "side").returncode == 0
    assert "## S" not in clone.read(HOT)
    code, out, _ = squadmem(clone, "verify", "HEAD^..HEAD", "--now", "2026-03-01T00:00:00Z")
    assert code == 1
    merged = clone.git("rev-parse", "--short=7", "HEAD").strip()
    assert out.splitlines()[0] == (
        f"{merged} {HOT}: section picard/s ('S') is in no tier after this commit: not moved, archived or"
        " deleted with a Squad-Memory-Delete: picard/s trailer; a merge that lost it merged tier files line"
        " by line, without squadmem's merge driver (as in a clone where it was not set up): bring it back"
        f" with squadmem restore picard/s --at {merged}^2, and run squadmem init in the clone that merged"
    )
    code, out, err = squadmem(clone, "restore", "picard/s", "--at", f"{merged}^2")
    assert code == 0, err
    assert "## S\ns\n" in clone.read(HOT)
