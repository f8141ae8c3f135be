"""Intake: Squad's appended entries into the tiers, each once, placed by age, proven by verify."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import GitRepo, assert_refused
from conftest import squadmem as cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.model import sections, squad
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.sections import trimmed

DAY0 = "2026-01-05T09:00:00+00:00"
PICARD = ".squad/agents/picard/history.md"
PICARD_ARCHIVE = ".squad/agents/picard/history-archive.md"
DECISIONS = ".squad/decisions.md"
INBOX = ".squad/decisions/inbox"
HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
WIKI = f"{MEMORY_DIR}/wiki/decisions.md"
LEDGER = f"{MEMORY_DIR}/intake.tsv"
HEAD = "# Project Context\n\n- **Project:** demo\n\n## Core Context\n\nPicard leads.\n\n## Learnings\n\n"
DECISIONS_TEXT = (
    "# Squad Decisions\n\n## Active Decisions\n\n"
    "### 2026-01-05: Use JWT\n**By:** Picard\n**What:** tokens are JWT\n\n"
    "## Governance\n\n- consensus\n"
)


def day(n: int, hour: int = 9) -> str:
    """DAY0 plus ``n`` days, at ``hour``."""
    moment = dt.datetime(2026, 1, 5, hour, tzinfo=dt.UTC) + dt.timedelta(days=n)
    return moment.isoformat()


def learning(n: int, words: int = 3) -> str:
    return f"### Topic {n} ({day(n)[:10]})\n" + " ".join(["fact"] * words) + f" {n}\n\n"


def team(
    repo: GitRepo, learnings: int = 0, history: str | None = None, files: dict[str, str] | None = None
) -> None:
    """A Squad team as `squad init` leaves it (``history`` as picard's, ``files`` besides), committed,
    then squadmem's init, committed."""
    history = (HEAD if history is None else history) + "".join(learning(n) for n in range(learnings))
    repo.commit("squad init", {PICARD: history, DECISIONS: DECISIONS_TEXT, **(files or {})}, date=DAY0)
    code, _, err = cli(repo, "init", "--no-hooks")
    assert code == 0, err
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DAY0)


def append(repo: GitRepo, rel: str, text: str, when: str) -> None:
    repo.commit(f"append {rel}", {rel: repo.read(rel) + text}, date=when)


def tier_sections(repo: GitRepo) -> list[str]:
    out: list[str] = []
    for path in sorted((repo.root / MEMORY_DIR).rglob("*.md")):
        rel = path.relative_to(repo.root).as_posix()
        if rel.split("/")[-2] in ("hot", "cold", "archive", "wiki"):
            out.extend(s.text for s in sections.split(repo.read(rel)).sections)
    return out


def intake(repo: GitRepo, when: str, *args: str) -> tuple[int, str, str]:
    return cli(
        repo, "intake", "--now", when, *args, env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    )


def test_each_entry_is_its_own_section_placed_by_age(repo: GitRepo) -> None:
    team(repo)
    append(repo, PICARD, learning(1), day(1))  # 40 days old at the intake
    append(repo, PICARD, learning(30), day(30))  # 12 days old
    append(repo, PICARD, learning(39), day(39))  # 3 days old
    code, _, err = intake(repo, day(42))
    assert code == 0, err
    hot = [s.raw_heading for s in sections.split(repo.read(HOT)).sections]
    assert hot[:2] == ["Project Context", "Core Context"] and any("Topic 39" in h for h in hot)
    cold = [s.raw_heading for s in sections.split(repo.read(COLD)).sections]
    archive = [s.raw_heading for s in sections.split(repo.read(ARCHIVE)).sections]
    assert any("Topic 30" in h for h in cold)
    assert any("Topic 1 " in h for h in archive)
    assert "<!-- squadmem: pin -->" in repo.read(HOT).split("## Core Context", 1)[1].split("\n")[1]
    wiki = sections.split(repo.read(WIKI)).sections
    assert [(s.raw_heading, s.flags.kind) for s in wiki] == [
        ("2026-01-05: Use JWT", "decision"),
        ("Governance", None),
    ]
    assert repo.git("log", "-1", "--format=%(trailers:key=Squad-Memory-Intake,valueonly)").strip() == "7"


def test_an_entry_keeps_the_date_of_the_first_commit_that_held_it(repo: GitRepo) -> None:
    """An entry is dated by the first history.md commit holding it, across heading level and file."""
    team(repo)
    append(repo, PICARD, learning(3), day(3))
    # squad nap, ten days later: the learning leaves history.md for history-archive.md
    history = repo.read(PICARD).replace(learning(3), "")
    repo.commit(
        "squad nap",
        {PICARD: history, PICARD_ARCHIVE: "# Archive\n\n## Learnings\n\n" + learning(3)},
        date=day(13),
    )
    assert intake(repo, day(14))[0] == 0
    code, out, err = cli(repo, "report", "--json", "--now", day(14))
    assert code == 0, err
    (found,) = [s for s in json.loads(out)["sections"] if s["title"].startswith("Topic 3 ")]
    assert found["last_used"].startswith("2026-01-08T09:00:00")
    assert found["last_use_kind"] == "content"


def test_a_second_intake_takes_only_the_new_entry(repo: GitRepo) -> None:
    """Regression: a second migrate after one new learning duplicated the whole container."""
    team(repo, learnings=4)
    assert cli(repo, "migrate", "squad", "--now", day(5))[0] == 0
    before = tier_sections(repo)
    append(repo, PICARD, learning(6), day(6))
    code, out, err = intake(repo, day(6))
    assert code == 0, err
    assert "took in 1 entry" in out
    after = tier_sections(repo)
    assert len(after) == len(before) + 1
    assert len(set(map(sections.normalize, after))) == len(after)
    code, out, _ = intake(repo, day(6))
    assert "nothing new" in out


def test_after_remove_originals_new_entries_are_still_taken_in(repo: GitRepo) -> None:
    """Regression: after --remove-originals, new entries were never picked up."""
    team(repo, learnings=2)
    code, out, err = cli(repo, "migrate", "squad", "--remove-originals", "--now", day(3))
    assert code == 0, err
    assert repo.read(PICARD).startswith("# Project Context")
    assert "### Topic" not in repo.read(PICARD)
    repo.git("add", PICARD)
    repo.commit("squad: history cut down", date=day(3))
    append(repo, PICARD, "\n## Learnings\n\n" + learning(4), day(4))
    code, out, err = cli(
        repo, "maintain", "--now", day(4), env={"GIT_COMMITTER_DATE": day(4), "GIT_AUTHOR_DATE": day(4)}
    )
    assert code == 0, err
    assert "took in" in out
    assert sum("Topic 4 " in s.split("\n")[0] for s in tier_sections(repo)) == 1


def test_an_inbox_drop_merged_by_scribe_is_one_entry(repo: GitRepo) -> None:
    team(repo)
    drop = "### 2026-01-08: Tabs\n**By:** Data\n**What:** tabs\n"
    repo.commit("drop", {f"{INBOX}/data-tabs.md": drop}, date=day(3))
    assert intake(repo, day(3))[0] == 0
    repo.commit(
        "scribe: merge inbox",
        {
            DECISIONS: repo.read(DECISIONS).replace("## Governance", drop + "\n## Governance"),
            f"{INBOX}/data-tabs.md": None,
        },
        date=day(4),
    )
    assert "nothing new" in intake(repo, day(4))[1]
    titles = [s.raw_heading for s in sections.split(repo.read(WIKI)).sections]
    assert titles.count("2026-01-08: Tabs") == 1


def test_core_context_stays_pinned_and_a_new_version_retires_the_old(repo: GitRepo) -> None:
    team(repo)
    assert intake(repo, day(1))[0] == 0
    repo.commit(
        "nap",
        {PICARD: repo.read(PICARD).replace("Picard leads.", "Picard leads; Data reviews.")},
        date=day(2),
    )
    assert intake(repo, day(2))[0] == 0
    hot = [s for s in sections.split(repo.read(HOT)).sections if s.raw_heading == "Core Context"]
    assert len(hot) == 1 and "Data reviews" in hot[0].text and hot[0].flags.pin
    archive = [s for s in sections.split(repo.read(ARCHIVE)).sections if s.raw_heading == "Core Context"]
    assert len(archive) == 1 and "Data reviews" not in archive[0].text
    assert cli(repo, "verify", "--now", day(2), "HEAD~4..HEAD")[0] == 0


def test_a_grown_core_context_stays_in_a_full_hot_file(repo: GitRepo) -> None:
    """Regression: Core Context revised while hot was full left no Core Context in the spawn."""
    team(repo)
    append(repo, PICARD, "".join(learning(n, words=60) for n in range(1, 12)), day(1))
    assert intake(repo, day(1))[0] == 0
    assert len(repo.read(HOT).encode()) > 3700  # hot is (nearly) full
    grown = repo.read(PICARD).replace("Picard leads.", "Picard leads. " + "Data reviews. " * 20)
    repo.commit("core context revised", {PICARD: grown}, date=day(2))
    code, _, err = intake(repo, day(2))
    assert code == 0, err
    code, out, err = cli(repo, "context", "--agent", "picard", "--now", day(2))
    assert code == 0, err
    assert "## Core Context" in out and "Data reviews." in out
    assert len(repo.read(HOT).encode()) <= 4096
    assert cli(repo, "verify", "--now", day(2), "HEAD~1..HEAD")[0] == 0


def test_hot_holds_its_budget_and_maintain_then_verify_pass(repo: GitRepo) -> None:
    """Regression: a recalled container burst hot, and maintain made commits its own verify refused."""
    team(repo)
    text = "".join(learning(n, words=60) for n in range(30, 40))
    append(repo, PICARD, text, day(39))
    env = {"GIT_COMMITTER_DATE": day(40), "GIT_AUTHOR_DATE": day(40)}
    start = repo.head()
    code, out, err = cli(repo, "maintain", "--now", day(40), env=env)
    assert code == 0, err
    assert len(repo.read(HOT).encode()) <= 4096
    assert any("Topic 39" in s.text for s in sections.split(repo.read(HOT)).sections)
    code, out, err = cli(repo, "verify", "--now", day(40), f"{start}..HEAD")
    assert code == 0, out + err
    code, out, err = cli(repo, "context", "--agent", "picard")
    assert "## Core Context" in out and "Picard leads." in out


def test_dry_run_right_after_init_on_a_dirty_tree(repo: GitRepo) -> None:
    """Regression: migrate squad --dry-run was refused right after init (init's files uncommitted)."""
    repo.commit("squad init", {PICARD: HEAD + learning(1), DECISIONS: DECISIONS_TEXT}, date=DAY0)
    assert cli(repo, "init", "--no-hooks")[0] == 0
    before = repo.snapshot()
    code, out, err = cli(repo, "migrate", "squad", "--dry-run", "--now", day(2))
    assert code == 0, err
    assert "would take in" in out
    assert repo.snapshot() == before
    code, out, err = cli(repo, "migrate", "squad", "--now", day(2))
    assert code == 0, err
    assert "took in" in out


@pytest.mark.parametrize("backend", ["orphan", "two-layer"])
def test_squads_state_branch_backends_are_refused(repo: GitRepo, backend: str) -> None:
    team(repo)
    repo.commit(
        "backend", {".squad/config.json": json.dumps({"version": 1, "stateBackend": backend})}, date=day(1)
    )
    assert_refused(
        repo,
        "intake",
        message=f"squadmem: .squad/config.json: Squad's state backend is {backend!r}: "
        "its histories and decisions live on the squad-state branch, which squadmem does not read",
    )


def test_verify_refuses_a_forged_intake(repo: GitRepo) -> None:
    team(repo)
    assert intake(repo, day(1))[0] == 0
    forged = repo.read(COLD) if (repo.root / COLD).exists() else "# Cold memory: picard\n"
    repo.commit(
        "memory: intake 1 Squad entry\n\nSquad-Memory-Intake: 1",
        {COLD: forged + "\n## Invented\nnever in history.md\n"},
        date=day(2),
    )
    code, out, _ = cli(repo, "verify", "--now", day(2), "HEAD~1..HEAD")
    assert code == 1
    assert "no entry of Squad's files" in out


def test_report_and_init_name_history_not_taken_in(repo: GitRepo) -> None:
    repo.commit("squad init", {PICARD: HEAD + learning(1), DECISIONS: DECISIONS_TEXT}, date=DAY0)
    code, out, err = cli(repo, "init", "--no-hooks")
    assert code == 0, err
    assert "squadmem intake" in out
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DAY0)
    code, out, err = cli(repo, "report", "--now", day(1))
    assert "not taken in" in out and "squadmem intake" in out
    code, out, err = cli(repo, "doctor")
    assert "not taken in" in out


_entry = st.tuples(st.integers(0, 40), st.sampled_from(["short", "a longer learning " * 8]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(_entry, min_size=1, max_size=4), min_size=1, max_size=3))
def test_every_entry_is_in_the_tiers_exactly_once(
    repo: GitRepo, batches: list[list[tuple[int, str]]]
) -> None:
    """Whatever is appended, in however many intakes: each entry once, byte for byte."""
    repo.git("rm", "-rq", "--ignore-unmatch", ".")
    import shutil

    shutil.rmtree(repo.root / ".squad", ignore_errors=True)
    team(repo)
    serial = 0
    for batch_no, batch in enumerate(batches):
        text = ""
        for n, words in batch:
            serial += 1
            text += f"### Note {serial} ({n})\n{words}\n\n"
        append(repo, PICARD, text, day(batch_no + 1))
        assert intake(repo, day(batch_no + 1))[0] == 0
    wanted = [e.text for e in squad.entries(PICARD, repo.read(PICARD))]
    got = list(map(sections.normalize, tier_sections(repo)))
    for text in wanted:
        assert got.count(sections.normalize(text)) == 1


def test_recalling_one_learning_brings_back_that_entry_only(repo: GitRepo) -> None:
    """Regression: one recall of a learning brought its whole 18.7 KB container into a 4 KB hot file."""
    team(repo)
    append(repo, PICARD, "".join(learning(n, words=40) for n in range(1, 30)), day(1))
    env = {"GIT_COMMITTER_DATE": day(60), "GIT_AUTHOR_DATE": day(60)}
    assert cli(repo, "maintain", "--now", day(60), env=env)[0] == 0
    assert "Topic 7 " not in repo.read(HOT)
    code, out, err = cli(repo, "recall", "topic 7 2026-01-12", "--limit", "1", "--now", day(60))
    assert code == 0, err
    assert "picard/topic-7-2026-01-12" in out
    start = repo.head()
    code, out, err = cli(repo, "maintain", "--now", day(60), env=env)
    assert code == 0, err
    hot = sections.split(repo.read(HOT)).sections
    assert [s.raw_heading for s in hot if s.raw_heading.startswith("Topic")] == ["Topic 7 (2026-01-12)"]
    assert len(repo.read(HOT).encode()) <= 4096
    code, out, err = cli(repo, "verify", "--now", day(60), f"{start}..HEAD")
    assert code == 0, out + err


def test_a_core_context_that_nearly_fills_hot_gets_a_shorter_index_and_verify_passes(repo: GitRepo) -> None:
    """Regression (seen on real Squad teams): intake placed a 3.9 KB Core Context in hot, then
    maintain's Index refresh put hot at 4.6 KB, a commit verify and the pre-push hook refuse."""
    big = "Picard leads. " + "The team ships weekly and reviews every change. " * 73  # Project Context too
    history = HEAD.replace("Picard leads.", big) + "".join(learning(n, words=40) for n in range(12))
    team(repo, history=history)
    start = repo.head()
    env = {"GIT_COMMITTER_DATE": day(20), "GIT_AUTHOR_DATE": day(20)}
    code, out, err = cli(repo, "maintain", "--now", day(20), env=env)
    assert code == 0, err
    hot = repo.read(HOT)
    assert 3700 < len(hot.encode()) <= 4096
    assert "and " in hot and "more: squadmem list --agent picard" in hot  # the Index, shortened
    code, out, err = cli(repo, "verify", "--now", day(20), f"{start}..HEAD")
    assert code == 0, out + err
    code, out, err = cli(repo, "maintain", "--now", day(20), env=env)
    assert code == 0 and repo.head() == repo.git("rev-parse", "HEAD").strip(), err
    assert "nothing to do" in out


def test_an_entry_with_a_nul_byte_is_left_out_and_the_rest_taken_in(repo: GitRepo) -> None:
    """Regression (a real team's decisions-archive.md held two NUL bytes from a shell escape): the
    whole migration was refused; now that entry alone waits, with a warning, until it is fixed."""
    team(repo)
    broken = "### 2026-01-06: Refs\n**What:** main at \\\0fbd81c\n\n"
    append(repo, DECISIONS, broken + "### 2026-01-06: Keep CI green\n**What:** always\n", day(1))
    code, out, err = intake(repo, day(1))
    assert code == 0, err
    assert "'2026-01-06: Refs' holds a NUL byte; left out until it is fixed in Squad's file" in out
    wiki = repo.read(WIKI)
    assert "Keep CI green" in wiki and "Refs" not in wiki and "\0" not in wiki
    code, out, _ = intake(repo, day(1))  # nothing new, and still said
    assert "nothing new" in out and "NUL byte" in out
    fixed = repo.read(DECISIONS).replace("\\\0fbd81c", "fbd81c")
    repo.commit("fix the escape", {DECISIONS: fixed}, date=day(2))
    code, out, err = intake(repo, day(2))
    assert code == 0 and "took in 1 entry" in out, out + err
    assert "**What:** main at fbd81c" in repo.read(WIKI)
    assert cli(repo, "verify", "--now", day(2), "HEAD~3..HEAD")[0] == 0


def test_a_file_cut_short_inside_a_code_fence_is_taken_in_closed(repo: GitRepo) -> None:
    """Regression (a real decisions-archive.md ended inside a ```bash fence): the migration was
    refused; the entry is taken in with the closing fence after its bytes, and verify proves it."""
    team(repo)
    append(repo, DECISIONS, "### 2026-01-06: Worktrees\n**Implementation:**\n```bash", day(1))
    start = repo.head()
    code, out, err = intake(repo, day(1))
    assert code == 0, err
    assert "**Implementation:**\n```bash\n```\n" in repo.read(WIKI)
    code, out, err = cli(repo, "verify", "--now", day(1), f"{start}..HEAD")
    assert code == 0, out + err
    append(repo, DECISIONS, "\n```\n### 2026-01-07: Next\n**What:** more\n", day(2))  # Squad closes it later
    assert intake(repo, day(2))[0] == 0
    titles = [s.raw_heading.strip() for s in sections.split(repo.read(WIKI)).sections]
    assert titles.count("2026-01-07: Next") == 1


def test_a_core_context_too_large_for_hot_is_carried_by_the_spawn_from_cold(repo: GitRepo) -> None:
    big = "Picard leads. " + "Architecture notes that the Scribe keeps summarizing here. " * 90
    history = HEAD.replace("Picard leads.", big) + learning(1)
    team(repo, history=history)
    code, out, err = intake(repo, day(1))
    assert code == 0 and "Core Context does not fit" in out, out + err
    assert "Architecture notes" in repo.read(COLD) and "Architecture notes" not in repo.read(HOT)
    code, out, err = cli(repo, "context", "--agent", "picard")
    assert code == 0
    assert out.count("Architecture notes that the Scribe") == 90  # carried, whole
    assert "## Topic 1" not in out  # no room left within hot.max_bytes: left out, and said
    assert "is pinned but too large for hot: the spawn carries it from cold" in err
    assert "leaves out 1 hot section(s) to stay within hot.max_bytes" in err
    code, out, err = cli(repo, "context", "--agent", "picard", "--include-cold")
    assert code == 0 and out.count("Architecture notes that the Scribe") == 90  # not twice
    code, out, err = cli(repo, "context", "--agent", "picard", "--task", "architecture", "--json")
    assert code == 0 and "## Core Context" in json.loads(out)["text"]
    code, out, _ = cli(repo, "report", "--now", day(1))
    assert code == 0 and "squadmem history picard/core-context" in out
    assert "is pinned but too large for hot: every spawn carries it from cold" in out


def as_made_before(repo: GitRepo, hot: str, ledger: str) -> None:
    """The last intake commit made again with ``hot`` and ``ledger`` as an earlier squadmem wrote them:
    it must verify, and a new intake must find nothing new."""
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.commit(
        "memory: intake 3 Squad entries\n\nSquad-Memory-Intake: 3", {HOT: hot, LEDGER: ledger}, date=day(1)
    )
    code, out, err = cli(repo, "verify", "--now", day(2), "HEAD~1..HEAD")
    assert code == 0, out + err
    code, out, err = intake(repo, day(2))
    assert code == 0 and "nothing new" in out, out + err


def test_a_setext_section_is_taken_in_and_an_earlier_intake_of_it_still_counts(repo: GitRepo) -> None:
    """Regression (a real history-archive.md held a paragraph underlined with ---): intake refused
    the whole migration. It is now taken in as a ## section; and an intake commit that squadmem
    made before this, with the section as it stood in Squad's file, still verifies and is not
    taken in twice."""
    team(repo)
    setext = "Research validated the plan.\n---\n"
    append(repo, PICARD, "### Impact\n" + setext, day(1))
    code, _, err = intake(repo, day(1))
    assert code == 0, err
    tiers = "".join(tier_sections(repo))
    assert "## Research validated the plan.\n" in tiers and setext not in tiers

    # the same intake as squadmem made it before: the section as it stood in Squad's file
    hot = repo.read(HOT).replace("## Research validated the plan.\n", setext)
    entry = next(e for e in squad.entries(PICARD, repo.read(PICARD)) if e.kind == "section")
    ledger = repo.read(LEDGER).replace(entry.key.hex(), sections.content_key(setext).hex())
    as_made_before(repo, hot, ledger)


def test_a_dated_entry_taken_in_by_parts_before_is_not_taken_again(repo: GitRepo) -> None:
    """An intake squadmem made before dated ``##`` entries were kept whole (each ``###`` part a
    section) still verifies, and the whole entry is not taken in a second time."""
    team(repo)
    append(repo, PICARD, "## 2026-01-06 — Issue #7\n\n### Context\nwhy\n### Fix\nhow\n", day(1))
    code, _, err = intake(repo, day(1))
    assert code == 0, err
    assert "## 2026-01-06 — Issue #7\n\n### Context\nwhy\n### Fix\nhow\n" in repo.read(HOT)
    entry = next(e for e in squad.entries(PICARD, repo.read(PICARD)) if e.title.startswith("2026-01-06"))
    parts = entry.formers[1:]
    hot = repo.read(HOT).replace(entry.text, "".join(parts))
    rows = repo.read(LEDGER).splitlines(keepends=True)
    ledger = "".join(r for r in rows if not r.startswith(entry.key.hex())) + "".join(
        f"{sections.content_key(t).hex()}\t{PICARD}\tlearning\t{t.split(chr(10))[0][3:]}\n" for t in parts
    )
    as_made_before(repo, hot, ledger)


def test_decisions_over_half_a_mebibyte_go_on_further_wiki_pages(repo: GitRepo) -> None:
    """Regression (a real team's decisions.md was 1.5 MB): the one wiki page would have been over the
    1 MiB a tier file may hold, and the whole migration was refused."""
    body = "**What:** " + "a decision's reasoning, " * 40 + "\n\n"  # about 1 KB each
    many = "".join(f"### 2026-01-05: Decision {n}\n{body}" for n in range(700))
    text = DECISIONS_TEXT.replace("## Governance", many + "## Governance")
    repo.commit("squad init", {PICARD: HEAD, DECISIONS: text}, date=DAY0)
    assert cli(repo, "init", "--no-hooks")[0] == 0
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DAY0)
    start = repo.head()
    code, _, err = intake(repo, day(1))
    assert code == 0, err
    second = f"{MEMORY_DIR}/wiki/decisions-2.md"
    pages = [repo.read(WIKI), repo.read(second)]
    assert all(len(p.encode()) <= 512 * 1024 for p in pages)
    titles = [s.raw_heading.strip() for p in pages for s in sections.split(p).sections]
    assert titles.count("2026-01-05: Decision 0") == 1 and titles.count("2026-01-05: Decision 699") == 1
    assert titles.index("2026-01-05: Decision 0") < titles.index("2026-01-05: Decision 699")
    assert cli(repo, "verify", "--now", day(1), f"{start}..HEAD")[0] == 0
    append(repo, DECISIONS, "### 2026-01-07: One more\n**What:** x\n", day(2))
    assert intake(repo, day(2))[0] == 0
    assert "One more" in repo.read(second) and "One more" not in repo.read(WIKI)


def test_a_new_core_context_retires_the_one_waiting_in_cold_and_the_archives(repo: GitRepo) -> None:
    """Regression (replaying a real team's history): each rewrite of a Core Context too large for hot
    stayed pinned in cold beside the older ones, and the spawn carried all three (15 KB)."""
    big = "Architecture notes that the Scribe keeps summarizing here. " * 90
    history = HEAD.replace("Picard leads.", "Version one. " + big)
    archived = HEAD.replace("Picard leads.", "Version zero, from squad nap.")
    team(repo, history=history, files={PICARD_ARCHIVE: archived})
    assert intake(repo, day(1))[0] == 0
    assert "Version zero" in repo.read(ARCHIVE) and "Version one" in repo.read(COLD)
    repo.commit("core rewritten", {PICARD: history.replace("Version one.", "Version two.")}, date=day(2))
    start = repo.head()
    assert intake(repo, day(2))[0] == 0
    cold = [s for s in sections.split(repo.read(COLD)).sections if s.flags.pin]
    assert [s.text.count("Version two.") for s in cold] == [1]
    assert "Version one." in repo.read(ARCHIVE)
    code, out, _ = cli(repo, "context", "--agent", "picard")
    assert code == 0 and out.count("## Core Context") == 1 and "Version two." in out
    assert cli(repo, "verify", "--now", day(2), f"{start}..HEAD")[0] == 0


def test_two_core_contexts_in_history_md_both_stay_pinned(repo: GitRepo) -> None:
    """Some agents keep two ``## Core Context`` sections in history.md; Squad loads both, so does a spawn."""
    history = HEAD + "## Core Context\n\nAlso owns the release train.\n\n"
    team(repo, history=history)
    assert intake(repo, day(1))[0] == 0
    code, out, _ = cli(repo, "context", "--agent", "picard")
    assert code == 0 and "Picard leads." in out and "Also owns the release train." in out


def test_rewriting_one_of_two_core_contexts_keeps_the_other(repo: GitRepo) -> None:
    """Regression (replaying a real team): with two ``## Core Context`` sections in history.md, a
    rewrite of one retired both, and the spawn lost the one Squad still loads."""
    history = HEAD + "## Core Context\n\nAlso owns the release train.\n\n"
    team(repo, history=history)
    assert intake(repo, day(1))[0] == 0
    repo.commit(
        "rewritten", {PICARD: history.replace("Picard leads.", "Picard leads the away team.")}, date=day(2)
    )
    assert intake(repo, day(2))[0] == 0
    code, out, _ = cli(repo, "context", "--agent", "picard")
    assert code == 0 and "Picard leads the away team." in out and "Also owns the release train." in out
    assert "Picard leads.\n" in repo.read(ARCHIVE)


def test_an_entry_no_line_closes_is_left_out_with_a_warning() -> None:
    from squadmem.engine.intake import sources as taking

    fine = squad.Entry(PICARD, "picard", "learning", "Fine", "### Fine\nx\n", "## Fine\nx\n")
    stuck = squad.Entry(PICARD, "picard", "learning", "Stuck", "### Stuck\n", "## Stuck\n", left_open=True)
    kept, warnings = taking.usable([fine, stuck])
    assert kept == [fine]
    assert warnings == [
        f"{PICARD}: entry 'Stuck' leaves a code fence or HTML block open; left out until it is fixed in "
        "Squad's file"
    ]


def test_maintain_takes_in_the_decisions_of_a_squad_without_agents(repo: GitRepo) -> None:
    """Failure: a team that committed `.squad/decisions.md` before any `.squad/agents/` had `maintain`
    skip the intake; a decision's text of that time (before Scribe appended a `---` and the next
    decision below it) was never taken in, though `migrate squad` takes such a `.squad/` in."""
    first = "# Decisions\n\n## 1. Storage\n\nKeep the ledger in SQLite.\n"
    repo.commit("squad decisions", {DECISIONS: first}, date=DAY0)
    code, _, err = cli(repo, "init", "--no-hooks")
    assert code == 0, err
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DAY0)
    code, _, err = cli(repo, "maintain", "--now", day(0, 18))
    assert code == 0, err
    assert "## 1. Storage\n\nKeep the ledger in SQLite.\n" in repo.read(WIKI)
    grown = first + "\n---\n\n## 2. Exports\n\nCSV only.\n"
    repo.commit("squad decisions", {DECISIONS: grown, PICARD: HEAD}, date=day(1))
    code, _, err = cli(repo, "maintain", "--now", day(1, 18))
    assert code == 0, err
    texts = {trimmed(s.text) for s in sections.split(repo.read(WIKI)).sections}
    for entry in [*squad.entries(DECISIONS, first), *squad.entries(DECISIONS, grown)]:
        assert trimmed(entry.text) in texts, entry.title
    code, out, _ = cli(repo, "doctor")
    assert "not a Squad team" not in out
    code, out, err = cli(repo, "verify", "HEAD")
    assert code == 0, out + err
