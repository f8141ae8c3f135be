"""squadmem spawn on/off/status, init's blocks, maintain's upkeep after Squad rewrites its files.

The real Squad CLI's files are tested in squad_cli_test.py; here the files carry
only the lines squadmem answers for, at other places and indents than Squad's,
so that finding them by what they say (not by line number) is what is tested.
"""

from __future__ import annotations

import json

from conftest import GitRepo, assert_refused, run_squadmem
from hypothesis import given
from hypothesis import strategies as st

from bench import leak_free_study
from squadmem.model import spawnblock

DATE = "2026-03-02T09:00:00+00:00"
HISTORY = (
    "Read `agents/{name}/history.md` with `squad_state_read` when state tools are available;"
    " otherwise fall back to `.squad/agents/{name}/history.md`."
)
DECISIONS = (
    "Read `decisions.md` with `squad_state_read` when state tools are available;"
    " otherwise fall back to `.squad/decisions.md`."
)
TEMPLATE = (
    "# Spawn\n\n**Inline the charter.** Paste it. The agent still reads its own `history.md` and"
    " `decisions.md`.\n\n```\nprompt: |\n  You are {Name}.\n\n"
    f"    {HISTORY}\n    {DECISIONS}\n  If .squad/identity/now.md exists, read it.\n```\n"
)
COORDINATOR = (
    "---\nname: Squad\n---\n\n### Drop-box\n\n- All agents READ from `.squad/decisions.md` at spawn time"
    " (last-merged snapshot)\n\n**Full Spawn Template** (inline charter/history/decisions as needed):\n"
)
SKILL = "---\nname: tiered-memory\n---\n\n> **Status (v0.10.0):** a design proposal.\n\n## Overview\n"
SQUAD = {
    spawnblock.SPAWN_TEMPLATE: TEMPLATE,
    spawnblock.COORDINATOR: COORDINATOR,
    spawnblock.TIERED_SKILL: SKILL,
    ".squad/agents/picard/history.md": "# Project Context\n",  # no entry yet: init turns spawn on
    ".squad/decisions.md": "# Decisions\n",
}


def squad_repo(repo: GitRepo, files: dict[str, str] | None = None) -> GitRepo:
    repo.commit("squad init", dict(files or SQUAD), date=DATE)
    return repo


def init(repo: GitRepo, *args: str) -> str:
    done = run_squadmem(repo.root, "init", "--no-hooks", *args)
    assert done.returncode == 0, done.stderr
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DATE)
    return done.stdout


# -- the blocks, as text ------------------------------------------------------------------------


def test_apply_finds_each_line_by_what_it_says() -> None:
    applied = spawnblock.apply(spawnblock.SPAWN_TEMPLATE, TEMPLATE)
    assert sorted(applied.originals) == ["decisions", "history", "inline"]
    assert applied.missing == []
    assert "    <!-- squadmem:history -->\n" in applied.text
    assert '    MEMORY: run `squadmem context --agent {name} --task "' in applied.text
    assert HISTORY not in applied.text and DECISIONS not in applied.text
    assert spawnblock.restore(applied.text, applied.originals) == TEMPLATE


def test_apply_twice_changes_nothing() -> None:
    once = spawnblock.apply(spawnblock.COORDINATOR, COORDINATOR).text
    again = spawnblock.apply(spawnblock.COORDINATOR, once)
    assert again.text == once and again.originals == {}


def test_apply_says_which_required_line_is_missing() -> None:
    applied = spawnblock.apply(spawnblock.SPAWN_TEMPLATE, TEMPLATE.replace(DECISIONS, "Read the decisions."))
    assert applied.missing == ["decisions"]


LINE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"), max_size=30)
AROUND = {  # what surrounds Squad's lines: other lines, their indent and line ends, a last line ending
    "before": st.lists(LINE, max_size=4),
    "after": st.lists(LINE, max_size=4),
    "indent": st.sampled_from(["", "  ", "\t"]),
    "eol": st.sampled_from(["\n", "\r\n"]),
    "last": st.booleans(),
}


@given(twice=st.booleans(), **AROUND)
def test_restore_gives_back_every_byte(
    before: list[str], after: list[str], indent: str, eol: str, twice: bool, last: bool
) -> None:
    """Nothing lost, nothing duplicated: off after on is the original text, whatever surrounds the lines."""
    lines = [*before, indent + HISTORY, *([indent + HISTORY] if twice else []), indent + DECISIONS, *after]
    text = eol.join(lines) + ("" if last else eol)
    applied = spawnblock.apply(spawnblock.SPAWN_TEMPLATE, text)
    assert spawnblock.restore(applied.text, applied.originals) == text
    assert len(applied.originals) == (3 if twice else 2)
    assert spawnblock.apply(spawnblock.SPAWN_TEMPLATE, applied.text).text == applied.text


def _older(text: str) -> str:
    """``text`` as an older squadmem worded its blocks: recall without ``--agent``."""
    return text.replace("squadmem recall --agent {name} ", "squadmem recall ")


@given(**AROUND)
def test_reword_writes_old_blocks_as_apply_would_and_touches_nothing_else(
    before: list[str], after: list[str], indent: str, eol: str, last: bool
) -> None:
    """Every byte outside the blocks kept, each block once, in today's words; off still gives back Squad's."""
    lines = [*before, indent + HISTORY, indent + DECISIONS, *after]
    text = eol.join(lines) + ("" if last else eol)
    applied = spawnblock.apply(spawnblock.SPAWN_TEMPLATE, text)
    old = _older(applied.text)
    assert old != applied.text
    fresh, keys = spawnblock.reword(spawnblock.SPAWN_TEMPLATE, old, applied.originals)
    assert (fresh, keys) == (applied.text, ["history", "decisions"])
    assert spawnblock.reword(spawnblock.SPAWN_TEMPLATE, fresh, applied.originals) == (fresh, [])
    assert spawnblock.restore(old, applied.originals) == text
    assert spawnblock.reword(spawnblock.SPAWN_TEMPLATE, old, {}) == (old, [])  # nothing recorded: left


def test_the_recall_a_spawn_is_told_to_type_is_the_one_the_study_measures() -> None:
    """The spawn tells the agent ``squadmem recall --agent {name} --beyond-spawn "<task>"`` for more on
    its task (its own memory and the wiki, past what the spawn holds), as the real-team study runs it,
    and ``squadmem recall --agent {name} "<words>"`` for other decisions."""
    memory = " ".join(spawnblock.MEMORY_LINES)
    assert '`squadmem recall --agent {name} --beyond-spawn "<task>"`' in memory
    assert '`squadmem recall --agent {name} "<words>"`' in " ".join(spawnblock.DECISION_LINES)
    assert leak_free_study.recall_args("picard", "auth.py", 5, DATE)[:5] == (
        "recall",
        "--agent",
        "picard",
        "auth.py",
        "--beyond-spawn",
    )


# -- init, on, off, status ----------------------------------------------------------------------


def test_init_writes_the_blocks_and_no_skill(repo: GitRepo) -> None:
    squad_repo(repo)
    out = init(repo)
    assert "updated .squad/templates/spawn-reference.md" in out
    assert "squadmem spawn off" in out
    assert "squadmem context --agent {name}" in repo.read(spawnblock.SPAWN_TEMPLATE)
    assert not (repo.root / ".github/skills/squadmem-memory/SKILL.md").exists()
    record = json.loads(repo.read(spawnblock.RECORD))
    assert record["on"] is True
    assert record["originals"][spawnblock.SPAWN_TEMPLATE]["history"] == f"    {HISTORY}\n"


def test_init_no_spawn_keeps_squads_lines_and_writes_the_skill(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo, "--no-spawn")
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == TEMPLATE
    assert (repo.root / ".github/skills/squadmem-memory/SKILL.md").exists()


def test_off_gives_back_squads_files_byte_for_byte_and_on_again(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    done = run_squadmem(repo.root, "spawn", "off")
    assert done.returncode == 0, done.stderr
    for rel in (spawnblock.SPAWN_TEMPLATE, spawnblock.COORDINATOR, spawnblock.TIERED_SKILL):
        assert repo.read(rel) == SQUAD[rel]
    assert repo.git("status", "--porcelain") == ""
    assert (
        repo.git("log", "-1", "--format=%s").strip()
        == "memory: spawns read Squad's history.md and decisions.md again"
    )
    assert json.loads(repo.read(spawnblock.RECORD))["on"] is False
    assert run_squadmem(repo.root, "spawn", "off").stdout.startswith("nothing to do")
    done = run_squadmem(repo.root, "spawn", "on")
    assert done.returncode == 0, done.stderr
    assert "MEMORY: run `squadmem context" in repo.read(spawnblock.SPAWN_TEMPLATE)
    assert repo.git("status", "--porcelain") == ""


def test_status_json(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    done = run_squadmem(repo.root, "spawn", "status", "--json")
    data = json.loads(done.stdout)
    assert data["on"] is True
    assert data["files"][spawnblock.SPAWN_TEMPLATE] == {
        "blocks": ["inline", "history", "decisions"],
        "waiting": [],
    }


def test_dry_run_changes_nothing(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo, "--no-spawn")
    before = repo.snapshot()
    done = run_squadmem(repo.root, "spawn", "on", "--dry-run")
    assert done.returncode == 0 and "would put blocks" in done.stdout
    assert repo.snapshot() == before


# -- upkeep: squad upgrade writes Squad's text back ------------------------------------------


def test_maintain_puts_the_blocks_back_after_squad_rewrites_its_files(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    repo.commit("squad upgrade", {spawnblock.SPAWN_TEMPLATE: "<!-- v0.11 -->\n" + TEMPLATE}, date=DATE)
    upgrade = repo.head()
    done = run_squadmem(repo.root, "doctor")
    assert "spawn-reference.md: Squad's lines are back without squadmem's block" in done.stdout
    done = run_squadmem(repo.root, "maintain", "--now", DATE)
    assert done.returncode == 0, done.stderr
    assert "memory: spawns read squadmem's memory again" in done.stdout
    text = repo.read(spawnblock.SPAWN_TEMPLATE)
    assert text.startswith("<!-- v0.11 -->\n") and HISTORY not in text
    assert repo.git("status", "--porcelain") == ""
    done = run_squadmem(repo.root, "spawn", "off")
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == "<!-- v0.11 -->\n" + TEMPLATE
    assert run_squadmem(repo.root, "verify", "HEAD~2..HEAD").returncode == 0
    done = run_squadmem(repo.root, "verify", "HEAD~3..HEAD")  # the upgrade, committed without the hooks
    assert done.returncode == 1
    assert done.stdout.startswith(
        f"{upgrade[:7]} {spawnblock.SPAWN_TEMPLATE}: spawn is on but squadmem:decisions, squadmem:history,"
        " squadmem:inline is gone (squad upgrade?)"
    )


def test_maintain_rewords_blocks_an_older_squadmem_wrote(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    today = repo.read(spawnblock.SPAWN_TEMPLATE)
    repo.commit("squadmem 0.x's blocks", {spawnblock.SPAWN_TEMPLATE: _older(today)}, date=DATE)
    status = json.loads(run_squadmem(repo.root, "spawn", "status", "--json").stdout)
    assert status["files"][spawnblock.SPAWN_TEMPLATE]["outdated"] == ["history", "decisions"]
    done = run_squadmem(repo.root, "doctor")
    assert "squadmem:history is in an older squadmem's wording; maintain writes today's" in done.stdout
    record = repo.read(spawnblock.RECORD)
    done = run_squadmem(repo.root, "maintain", "--now", DATE)
    assert done.returncode == 0, done.stderr
    assert (
        repo.git("log", "-1", "--format=%s").strip() == "memory: squadmem's spawn blocks in today's wording"
    )
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == [spawnblock.SPAWN_TEMPLATE]
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == today and repo.read(spawnblock.RECORD) == record
    assert (
        "outdated"
        not in json.loads(run_squadmem(repo.root, "spawn", "status", "--json").stdout)["files"][
            spawnblock.SPAWN_TEMPLATE
        ]
    )
    assert run_squadmem(repo.root, "maintain", "--now", DATE).returncode == 0
    assert (
        repo.git("log", "-1", "--format=%s").strip() == "memory: squadmem's spawn blocks in today's wording"
    )
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == TEMPLATE


def test_spawn_on_says_which_blocks_it_rewords(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    repo.commit("old", {spawnblock.SPAWN_TEMPLATE: _older(repo.read(spawnblock.SPAWN_TEMPLATE))}, date=DATE)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "spawn", "on", "--dry-run")
    assert (
        done.returncode == 0
        and f"{spawnblock.SPAWN_TEMPLATE}: would reword blocks: history, decisions" in done.stdout
    )
    assert repo.snapshot() == before
    done = run_squadmem(repo.root, "spawn", "on")
    assert f"{spawnblock.SPAWN_TEMPLATE}: reworded blocks: history, decisions" in done.stdout


def test_maintain_waits_for_an_uncommitted_upgrade_and_says_so(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    repo.write(spawnblock.SPAWN_TEMPLATE, TEMPLATE)
    done = run_squadmem(repo.root, "maintain", "--now", DATE)
    assert done.returncode == 0, done.stderr
    assert "has uncommitted changes: commit them (squad upgrade?), then run squadmem spawn on" in done.stdout
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == TEMPLATE


def test_maintain_after_off_leaves_squads_lines(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    assert run_squadmem(repo.root, "spawn", "off", date=DATE).returncode == 0
    head = repo.head()
    assert run_squadmem(repo.root, "maintain", "--now", DATE).returncode == 0
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == TEMPLATE
    assert repo.git("log", "--format=%s", f"{head}..HEAD").count("spawns read") == 0


# -- refusals -----------------------------------------------------------------------------------


def test_a_template_that_no_longer_says_it_is_refused(repo: GitRepo) -> None:
    files = dict(SQUAD)
    files[spawnblock.SPAWN_TEMPLATE] = TEMPLATE.replace(HISTORY, "Load your memory.")
    squad_repo(repo, files)
    out = init(repo)  # init leaves such a template alone, and says why
    assert "left Squad's spawn lines as they are: .squad/templates/spawn-reference.md: no line tells" in out
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == files[spawnblock.SPAWN_TEMPLATE]
    assert_refused(
        repo,
        "spawn",
        "on",
        message="squadmem: .squad/templates/spawn-reference.md: no line tells the agent to read its history"
        " (this Squad version's spawn template is not one squadmem knows)",
    )


def test_not_a_squad_team_is_refused(repo: GitRepo) -> None:
    repo.commit("start", {"README.md": "hello\n"}, date=DATE)
    init(repo, "--agent", "picard")
    assert_refused(
        repo,
        "spawn",
        "on",
        message="squadmem: .squad/templates/spawn-reference.md: not there: this is not a Squad team"
        " (or Squad keeps its spawn template elsewhere)",
    )


def test_a_state_backend_squadmem_cannot_read_is_refused(repo: GitRepo) -> None:
    squad_repo(repo, {**SQUAD, ".squad/config.json": '{"stateBackend": "orphan"}\n'})
    assert "left Squad's spawn lines as they are: Squad's state backend is 'orphan'" in init(repo)
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == TEMPLATE  # init leaves it too
    done = run_squadmem(repo.root, "spawn", "on")
    assert done.returncode == 2
    assert "Squad's state backend is 'orphan'" in done.stderr


def test_a_symlinked_template_is_refused(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo, "--no-spawn")
    real = repo.root / "elsewhere.md"
    real.write_text(TEMPLATE, "utf-8")
    (repo.root / spawnblock.SPAWN_TEMPLATE).unlink()
    (repo.root / spawnblock.SPAWN_TEMPLATE).symlink_to(real)
    repo.git("add", "-A")
    repo.commit("symlink", date=DATE)
    assert_refused(
        repo,
        "spawn",
        "on",
        message="squadmem: .squad/templates/spawn-reference.md: a symlink; squadmem writes Squad's spawn"
        " files only as regular files",
    )


def test_an_unclosed_block_is_refused(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    text = repo.read(spawnblock.SPAWN_TEMPLATE).replace("    <!-- /squadmem:history -->\n", "")
    repo.commit("hand edit", {spawnblock.SPAWN_TEMPLATE: text}, date=DATE)
    assert_refused(
        repo,
        "spawn",
        "off",
        message="squadmem: .squad/templates/spawn-reference.md: squadmem:history opened on line 11 is never"
        " closed",
    )


def test_a_broken_record_is_refused(repo: GitRepo) -> None:
    squad_repo(repo)
    init(repo)
    repo.commit("break", {spawnblock.RECORD: "{}\n"}, date=DATE)
    assert_refused(
        repo,
        "spawn",
        "off",
        message="squadmem: .squad/memory/squad-spawn.json: not squadmem's spawn record"
        " (not a version 1 record)",
    )


def test_maintain_leaves_the_lines_alone_once_squad_moves_to_a_state_branch(repo: GitRepo) -> None:
    """`squad upgrade --state-backend orphan` after the blocks: history is read through Squad's state
    tools, which squadmem cannot take in, so maintain says so and does not put the blocks back."""
    squad_repo(repo)
    init(repo)
    repo.commit(
        "squad upgrade",
        {spawnblock.SPAWN_TEMPLATE: TEMPLATE, ".squad/config.json": '{"stateBackend": "orphan"}\n'},
        date=DATE,
    )
    done = run_squadmem(repo.root, "maintain", "--now", DATE)
    assert done.returncode == 0, done.stderr
    assert "warning: Squad's state backend is 'orphan'" in done.stdout
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == TEMPLATE
    assert "state backend is 'orphan'" in run_squadmem(repo.root, "doctor").stdout
