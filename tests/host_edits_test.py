"""The host's own writes go through: the agent's edits and removals, dreaming's blocks.

OpenClaw's ``AGENTS.md`` tells the agent to edit and remove ``MEMORY.md``
entries, and its dreaming appends ``## Promoted From Short-Term Memory``
blocks at the end of ``MEMORY.md``. Real repositories, real hooks fired by
real ``git commit``; the text is made up for these tests.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import GitRepo, hooked_commit, init_hooked, run_squadmem
from workspace_test import COLD, D1, HEADER, kept_in_place

LIBRARY = "\n## Library card\nRenew it at the desk in the annex, never online.\n"
FERRY = "\n## Ferry timetable\nThe 07:40 ferry skips Sundays; the 08:15 does not.\n"
D2 = "2026-03-03T09:00:00+00:00"
D3 = "2026-03-04T09:00:00+00:00"


def message(repo: GitRepo, rev: str = "HEAD") -> str:
    return repo.git("log", "-1", "--format=%B", rev).removesuffix("\n")


def verified(repo: GitRepo) -> subprocess.CompletedProcess[str]:
    return run_squadmem(repo.root, "verify")


def remove_library(repo: GitRepo) -> None:
    """The agent takes the library card out of MEMORY.md, as OpenClaw's AGENTS.md lets it."""
    text = repo.read("MEMORY.md")
    assert LIBRARY in text
    repo.write("MEMORY.md", text.replace(LIBRARY, ""))


@pytest.fixture
def workspace(repo: GitRepo) -> GitRepo:
    return kept_in_place(repo)


def test_commit_edits_commits_memory_md_in_place(workspace: GitRepo) -> None:
    """Regression: `maintain --commit-edits` refused MEMORY.md ("has uncommitted changes", then a
    hint to add the very flag given): it looked for the edits in memory/ only."""
    repo = workspace
    repo.write("MEMORY.md", repo.read("MEMORY.md").replace("west one sticks", "west one sticks in rain"))
    done = run_squadmem(repo.root, "maintain", "--commit-edits", "--now", D1, date=D1)
    assert done.returncode == 0, done.stderr
    assert "memory: commit uncommitted edits to 1 tier file(s)" in done.stdout
    edits = repo.git("log", "--format=%H", "--grep", "commit uncommitted edits").split()
    assert len(edits) == 1
    assert "west one sticks in rain" in repo.git("show", f"{edits[0]}:MEMORY.md")
    assert repo.git("status", "--porcelain", "--", "MEMORY.md") == ""
    assert verified(repo).returncode == 0


def test_commit_edits_records_a_removal_in_the_workspace(workspace: GitRepo) -> None:
    repo = workspace
    remove_library(repo)
    done = run_squadmem(repo.root, "maintain", "--commit-edits", "--now", D1, date=D1)
    assert done.returncode == 0, done.stderr
    edits = repo.git("log", "--format=%H", "--grep", "commit uncommitted edits").split()
    assert len(edits) == 1
    assert "Squad-Memory-Delete: main/library-card" in message(repo, edits[0])
    assert verified(repo).returncode == 0


def test_a_section_removed_by_hand_is_recorded_by_git_commit_m(workspace: GitRepo) -> None:
    """Regression: a section the agent removed made verify and pre-push fail until someone typed a
    Squad-Memory-Delete trailer; the prepare-commit-msg hook now writes it."""
    repo = workspace
    remove_library(repo)
    repo.git("add", "MEMORY.md")
    done = hooked_commit(repo, D1, "-m", "tidy memory")
    assert done.returncode == 0, done.stderr
    assert message(repo).endswith("\n\nSquad-Memory-Delete: main/library-card\n")
    assert verified(repo).returncode == 0
    found = run_squadmem(repo.root, "recall", "--history", "annex")
    assert found.returncode == 0, found.stderr
    assert "main/library-card" in found.stdout


def test_a_removal_is_recorded_after_the_editor(workspace: GitRepo) -> None:
    """The message written in the editor (prepare-commit-msg saw it empty): commit-msg names it."""
    repo = workspace
    remove_library(repo)
    repo.git("add", "MEMORY.md")
    env = dict(os.environ, GIT_EDITOR="sed -i 1s/^/tidy/")
    done = hooked_commit(repo, D1, env=env)
    assert done.returncode == 0, done.stderr
    assert message(repo).startswith("tidy\n")
    assert "Squad-Memory-Delete: main/library-card" in message(repo)
    assert verified(repo).returncode == 0


def test_a_move_or_an_edit_by_hand_records_no_removal(workspace: GitRepo) -> None:
    repo = workspace
    remove_library(repo)
    repo.write("memory/tier2-recent.md", COLD + LIBRARY)
    edited = repo.read("MEMORY.md").replace("skips Sundays", "skips Sundays and holidays")
    repo.write("MEMORY.md", edited)
    repo.git("add", "MEMORY.md", "memory/tier2-recent.md")
    done = hooked_commit(repo, D1, "-m", "file the card away")
    assert done.returncode == 0, done.stderr
    assert message(repo) == "file the card away\n"
    assert verified(repo).returncode == 0


def test_an_amend_keeps_the_removal_recorded(workspace: GitRepo) -> None:
    repo = workspace
    remove_library(repo)
    repo.git("add", "MEMORY.md")
    assert hooked_commit(repo, D1, "-m", "tidy").returncode == 0
    done = hooked_commit(repo, D1, "--amend", "-m", "tidy, reworded")
    assert done.returncode == 0, done.stderr
    assert message(repo) == "tidy, reworded\n\nSquad-Memory-Delete: main/library-card\n"
    assert verified(repo).returncode == 0


def test_verify_still_refuses_a_removal_no_trailer_records(workspace: GitRepo) -> None:
    """A removal committed with no hook at all is not let through as recorded."""
    repo = workspace
    remove_library(repo)
    repo.git("add", "MEMORY.md")
    repo.git("-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-gpg-sign", "-m", "tidy", date=D1)
    done = verified(repo)
    assert done.returncode == 1
    assert "section main/library-card ('Library card') is in no tier after this commit" in done.stdout


def test_a_message_that_names_the_removal_gets_no_second_trailer(workspace: GitRepo) -> None:
    repo = workspace
    remove_library(repo)
    repo.git("add", "MEMORY.md")
    done = hooked_commit(repo, D1, "-m", "tidy\n\nsquad-memory-delete: main/library-card")
    assert done.returncode == 0, done.stderr
    assert message(repo).lower().count("squad-memory-delete") == 1


def test_a_hand_removal_in_the_squad_layout_is_recorded(repo: GitRepo) -> None:
    """The Squad layout gets the same: a hot section removed by hand, named by the hook."""
    init_hooked(repo, "2026-03-01T10:00:00+00:00")
    hot = ".squad/memory/hot/picard.md"
    body = repo.read(hot)
    repo.write(hot, body + "\n## Warp core\nRecalibrate weekly.\n" + FERRY)
    repo.git("add", hot)
    assert hooked_commit(repo, D1, "-m", "notes").returncode == 0
    repo.write(hot, body + FERRY)
    repo.git("add", hot)
    done = hooked_commit(repo, D2, "-m", "drop the warp note")
    assert done.returncode == 0, done.stderr
    assert "Squad-Memory-Delete: picard/warp-core" in message(repo)
    assert verified(repo).returncode == 0


def test_a_commit_that_leaves_tier_files_alone_is_left_alone(workspace: GitRepo) -> None:
    repo = workspace
    repo.write("memory/2026-03-02.md", "# 2026-03-02\n\n- 18:00 the ferry was late\n")
    repo.write("notes.txt", "x\n")
    repo.git("add", "memory/2026-03-02.md", "notes.txt")
    done = hooked_commit(repo, D1, "-m", "log")
    assert done.returncode == 0, done.stderr
    assert message(repo) == "log\n"


PROMOTED = (
    "\n## Promoted From Short-Term Memory (2026-03-02)\n\n"
    "<!-- openclaw-memory-promotion:memory:memory/2026-03-02.md:3:3 -->\n"
    "- The 07:40 ferry was late again [score=0.912 signals=3 recalls=2 avg=0.700"
    " source=memory/2026-03-02.md:3-3]\n"
)


def dream(repo: GitRepo) -> None:
    """What OpenClaw's dreaming leaves: a promoted block appended to MEMORY.md (after the Index), its
    state in memory/.dreams/ and its diary in DREAMS.md."""
    text = repo.read("MEMORY.md")
    repo.write("MEMORY.md", (text if text.endswith("\n") else text + "\n") + PROMOTED)
    repo.write("memory/.dreams/short-term-recall.json", '{"version": 1, "entries": {}}\n')
    repo.write("memory/.dreams/events.jsonl", '{"type": "promotion"}\n')
    repo.write("DREAMS.md", "# Dream Diary\n\n<!-- openclaw:dreaming:diary:start -->\n")
    repo.write("memory/.dreams/session-corpus/2026-03-02.txt", "ferry late\n")
    repo.write("memory/dreaming/deep/2026-03-02.md", "# Deep Sleep\n\n- ferry\n")


def test_dreamings_files_never_break_a_check(workspace: GitRepo) -> None:
    """memory/.dreams/, memory/dreaming/<phase>/DAY.md and DREAMS.md are the host's, not logs nor
    tiers: rewritten days later, they pass the hooks, verify, list, maintain and doctor."""
    repo = workspace
    dream(repo)
    repo.git("add", "-A")
    assert hooked_commit(repo, D1, "-m", "dreaming").returncode == 0
    repo.write("memory/dreaming/deep/2026-03-02.md", "# Deep Sleep\n\n- rewritten\n")
    repo.write("memory/.dreams/session-corpus/2026-03-02.txt", "rewritten\n")
    repo.write("DREAMS.md", "# Dream Diary\n\nrewritten\n")
    repo.git("add", "-A")
    done = hooked_commit(repo, D3, "-m", "dreaming again")
    assert done.returncode == 0, done.stderr
    squadmem_maintain(repo, D3)
    for args in (("list",), ("doctor",), ("verify",)):
        checked = run_squadmem(repo.root, *args)
        assert checked.returncode == 0, (args, checked.stdout, checked.stderr)
        assert "dream" not in checked.stdout.lower() + checked.stderr.lower(), args


def test_dreaming_then_maintain_puts_the_index_last_again(workspace: GitRepo) -> None:
    """Regression: dreaming appends its block after the Index, which then lost its place (last)
    and its blank line; the next squadmem write puts it last again, in a commit verify accepts."""
    repo = workspace
    squadmem_maintain(repo, D1)  # the Index as squadmem writes it
    dream(repo)
    repo.git("add", "-A")
    done = hooked_commit(repo, D2, "-m", "dreaming")
    assert done.returncode == 0, done.stderr
    for args in (("list",), ("report", "--now", D2), ("doctor",), ("verify",)):
        checked = run_squadmem(repo.root, *args)
        assert checked.returncode == 0, (args, checked.stdout, checked.stderr)
    squadmem_maintain(repo, D2)
    hot = repo.read("MEMORY.md")
    assert hot.endswith(PROMOTED.rstrip("\n") + "\n\n" + index_of(hot))
    assert "\n\n## Index → Deeper Tiers\n" in hot
    assert hot.count("## Promoted From Short-Term Memory") == 1
    assert verified(repo).returncode == 0, verified(repo).stdout
    assert repo.git("status", "--porcelain", "--", "MEMORY.md") == ""


def squadmem_maintain(repo: GitRepo, when: str) -> None:
    done = run_squadmem(repo.root, "maintain", "--now", when, date=when)
    assert done.returncode == 0, done.stderr


def index_of(hot: str) -> str:
    return hot[hot.index("## Index → Deeper Tiers") :]


def test_index_lines_name_the_title_and_the_file_the_host_can_follow(workspace: GitRepo) -> None:
    """Regression: Index lines named only an id (``- main/rowboat-outboard (archive, …)``): neither
    OpenClaw's memory_search nor the agent reading MEMORY.md could follow them."""
    repo = workspace
    squadmem_maintain(repo, D1)
    hot = repo.read("MEMORY.md")
    rows = index_of(hot).splitlines()[3:]
    assert rows == [
        "- Kettle descaling — memory/tier2-recent.md (cold, 2026-03-01)",
        "- Rowboat outboard — memory/tier3-archive.md (archive, 2026-03-01)",
    ]
    for row in rows:
        title, _, rest = row[2:].partition(" — ")
        assert f"## {title}\n" in repo.read(rest.split(" (")[0])  # the file it names holds it
    assert "\n\n## Index → Deeper Tiers\n" in hot
    doctor = run_squadmem(repo.root, "doctor")
    assert "every Index line points somewhere" in doctor.stdout


def test_doctor_names_an_index_line_whose_section_is_gone(workspace: GitRepo) -> None:
    repo = workspace
    squadmem_maintain(repo, D1)
    hot = repo.read("MEMORY.md").replace("- Kettle descaling —", "- Kettle scaling —")
    repo.write("MEMORY.md", hot)
    doctor = run_squadmem(repo.root, "doctor")
    assert (
        "the Index of MEMORY.md lists 'Kettle scaling' in memory/tier2-recent.md, which is not there"
        in doctor.stdout
    )


def test_verify_accepts_index_refreshes_of_the_earlier_form_in_history(repo: GitRepo) -> None:
    """An Index refresh commit of the id-first form, then one of the title-and-file form: both pass."""
    init_hooked(repo, "2026-03-01T10:00:00+00:00")
    hot, cold = ".squad/memory/hot/picard.md", ".squad/memory/cold/picard.md"
    body = repo.read(hot) + "\n## Warp core\nRecalibrate weekly.\n"
    repo.commit("notes", {hot: body, cold: repo.read(cold) + "\n## Shuttle bay\nDoors stick.\n"}, date=D1)
    old = (
        "## Index → Deeper Tiers\n<!-- Written by squadmem maintain after each run; edits here are"
        " replaced. -->\n\n- picard/shuttle-bay (cold, 2026-03-02)\n"
    )
    repo.commit("memory(picard): refresh index\n\nSquad-Memory-Index: picard", {hot: body + old}, date=D2)
    squadmem_maintain(repo, D3)
    assert "- Shuttle bay — .squad/memory/cold/picard.md (cold, 2026-03-02)" in repo.read(hot)
    assert repo.git("log", "-1", "--format=%s") == "memory(picard): refresh index\n"
    done = verified(repo)
    assert done.returncode == 0, done.stdout


def test_each_index_refresh_keeps_last_maintained_current(workspace: GitRepo) -> None:
    """Regression: the memory-tiers skill's ``<!-- last_maintained: … -->`` line was never updated:
    it said the skill's last run while squadmem kept the tiers. Each Index refresh dates it now,
    in the refresh commit, which verify accepts; the rest of the header stays byte for byte."""
    repo = workspace
    squadmem_maintain(repo, D1)
    hot = repo.read("MEMORY.md")
    assert hot.startswith(HEADER.replace("2026-03-01", "2026-03-02"))
    assert repo.git("log", "-1", "--format=%s").startswith("memory(main): refresh index")
    assert verified(repo).returncode == 0


def test_verify_refuses_an_index_commit_that_changes_the_header_otherwise(workspace: GitRepo) -> None:
    repo = workspace
    squadmem_maintain(repo, D1)
    text = repo.read("MEMORY.md").replace("tier: 1 — hot context", "tier: 1 — hot")
    repo.commit("memory(main): refresh index\n\nSquad-Memory-Index: main", {"MEMORY.md": text}, date=D2)
    done = verified(repo)
    assert done.returncode == 1
    assert "an index commit changed more than the Index → Deeper Tiers section" in done.stdout


def test_a_note_an_aborted_commit_left_is_cleared(workspace: GitRepo) -> None:
    """A removal staged, the commit aborted (empty message), then unstaged: the next commit names
    nothing and clears the note, so later commits start no Python for it."""
    repo = workspace
    remove_library(repo)
    repo.git("add", "MEMORY.md")
    assert hooked_commit(repo, D1, "-m", "").returncode == 1  # git aborts the empty message
    note = repo.root / ".git" / "squadmem" / "removals-unnamed"
    assert note.exists()
    repo.git("reset", "-q", "MEMORY.md")
    repo.write("notes.txt", "x\n")
    repo.git("add", "notes.txt")
    assert hooked_commit(repo, D1, "-m", "notes").returncode == 0
    assert message(repo) == "notes\n" and not note.exists()


def test_commit_edits_records_a_removal_in_the_squad_layout(repo: GitRepo) -> None:
    """The Squad layout keeps its behaviour (only its hot file is edited) and gets the trailer too."""
    init_hooked(repo, "2026-03-01T10:00:00+00:00")
    hot = ".squad/memory/hot/picard.md"
    body = repo.read(hot)
    repo.commit("notes", {hot: body + "\n## Warp core\nRecalibrate weekly.\n" + FERRY}, date=D1)
    repo.write(hot, body + FERRY)
    done = run_squadmem(repo.root, "maintain", "--commit-edits", "--now", D2, date=D2)
    assert done.returncode == 0, done.stderr
    edits = repo.git("log", "--format=%H", "--grep", "commit uncommitted edits").split()
    assert len(edits) == 1
    assert message(repo, edits[0]).endswith("\n\nSquad-Memory-Delete: picard/warp-core\n")
    assert repo.git("show", "--name-only", "--format=", edits[0]).split() == [hot]
    assert verified(repo).returncode == 0


def test_dreaming_over_the_budget_is_committed_by_commit_edits(workspace: GitRepo) -> None:
    """Dreaming takes MEMORY.md over its budget: the hook refuses the commit and names
    `maintain --commit-edits`, which commits MEMORY.md as dreaming left it, then moves sections out."""
    repo = workspace
    big = "".join(
        f"\n## Promoted From Short-Term Memory (2026-03-0{day})\n\n"
        f"<!-- openclaw-memory-promotion:k{day} -->\n- {'ferry notes ' * 150}\n"
        for day in (1, 2, 3)
    )
    repo.write("MEMORY.md", repo.read("MEMORY.md") + big)
    repo.git("add", "MEMORY.md")
    refused = hooked_commit(repo, D1, "-m", "dreaming")
    assert refused.returncode == 1 and "maintain --commit-edits" in refused.stderr
    done = run_squadmem(repo.root, "maintain", "--commit-edits", "--now", D2, date=D2)
    assert done.returncode == 0, done.stderr
    hot = repo.read("MEMORY.md")
    assert len(hot.encode()) <= 4096 and index_of(hot).startswith("## Index")
    assert repo.git("status", "--porcelain", "--", "MEMORY.md") == ""
    assert verified(repo).returncode == 0
