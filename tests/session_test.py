from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo
from conftest import squadmem as cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.commands import session
from squadmem.engine import clock
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import logs, sections, uses
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
LOG = f"{MEMORY_DIR}/log/2026-03-01.md"
BASE = "2026-03-01T08:00:00+00:00"
START = "2026-03-01T10:00:00+00:00"
END = "2026-03-01T17:00:00+00:00"
HEADER = "# Hot memory: picard\n\n"
NOTES = "## Notes\nkeep this\n\n## Index → Deeper Tiers\n- nothing in cold, archive or the wiki yet\n"


def at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """In-process commits carry this moment (squadmem's own ones are dated by git, as --now is not)."""
    monkeypatch.setenv("GIT_AUTHOR_DATE", when)
    monkeypatch.setenv("GIT_COMMITTER_DATE", when)


def seed(repo: GitRepo, hot: str = HEADER + NOTES) -> None:
    repo.commit("memory", {HOT: hot, "src/app.py": "print(1)\n"}, date=BASE)


def started(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, *extra: str) -> None:
    seed(repo)
    at(monkeypatch, START)
    code, _, err = cli(
        repo, "session", "start", "-a", "picard", "-t", "rotate the keys", "--now", START, *extra
    )
    assert code == 0, err


def fill(repo: GitRepo, actions: int = 30) -> str:
    """The agent's work during the session, committed: two decisions, a blocker, many actions."""
    text = repo.read(HOT)
    text = text.replace(
        "### Active decisions\n- none yet", "### Active decisions\n- tokens live 15 min\n- vault only"
    )
    done = "".join(
        f"- step {n}: did a *thing* with `code`, and more words to pad it\n" for n in range(actions)
    )
    text = text.replace("### Last actions\n- none yet\n", f"### Last actions\n{done}")
    text = text.replace("### Blockers\n- none yet", "### Blockers\n- staging vault is down")
    repo.commit("work", {HOT: text}, date="2026-03-01T12:00:00+00:00")
    return text


def block_of(text: str) -> str:
    doc = sections.split(text)
    position = session.find(text)
    assert position is not None
    return doc.sections[position].text


# -- start ---------------------------------------------------------------------------------------


def test_start_writes_the_block_first_and_commits_it(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    started(repo, monkeypatch, "--talking-to", "worf")
    assert repo.read(HOT) == (
        HEADER + "## Session\n- **Task:** rotate the keys\n- **Started:** 2026-03-01T10:00:00+00:00\n\n"
        "### Active decisions\n- none yet\n\n### Last actions\n- none yet\n\n"
        "### Blockers\n- none yet\n\n### Talking to\n- worf\n\n" + NOTES
    )
    assert repo.git("log", "-1", "--format=%s%n%ci").split("\n")[:2] == [
        'memory(picard): session start "rotate the keys"',
        "2026-03-01 10:00:00 +0000",
    ]
    assert repo.git("status", "--porcelain") == ""


def test_start_creates_a_missing_hot_file_from_the_template(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.commit("code", {"src/app.py": "x\n"}, date=BASE)
    at(monkeypatch, START)
    code, _, err = cli(repo, "session", "start", "-a", "picard", "-t", "t", "--now", START)
    assert code == 2 and "agent picard: no tier file belongs to this agent" in err
    code, out, _ = cli(repo, "session", "start", "-a", "picard", "-t", "t", "--now", START, "--json", "--new")
    assert code == 0
    assert json.loads(out)["files"] == [HOT]
    text = repo.read(HOT)
    assert text.startswith("# Hot memory: picard\n") and "\n\n## Session\n- **Task:** t\n" in text
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == [HOT]


def test_start_twice_refuses_and_changes_nothing(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    started(repo, monkeypatch)
    before = repo.snapshot()
    code, out, err = cli(repo, "session", "start", "-a", "picard", "-t", "other", "--now", START)
    assert (code, out) == (2, "")
    assert err == (
        f"squadmem: {HOT}: picard has a session in progress\n"
        "hint: squadmem session end --agent picard first (or start again with --force)\n"
    )
    assert repo.snapshot() == before
    code, _, _ = cli(repo, "session", "start", "-a", "picard", "-t", "other", "--now", START, "--force")
    assert code == 0 and "- **Task:** other\n" in repo.read(HOT) and "rotate" not in repo.read(HOT)


def test_start_refuses_a_bad_agent_or_task(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(repo)
    before = repo.snapshot()
    assert cli(repo, "session", "start", "-a", "../x", "-t", "t")[0] == 2
    code, _, err = cli(repo, "session", "start", "-a", "picard", "-t", "two\nlines")
    assert code == 2 and "--task: give one non-empty line" in err
    assert repo.snapshot() == before


# -- end -----------------------------------------------------------------------------------------


def test_end_logs_summarizes_and_clears_in_one_commit(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    started(repo, monkeypatch)
    filled = fill(repo)
    raw = block_of(filled)
    at(monkeypatch, END)
    code, out, err = cli(repo, "session", "end", "-a", "picard", "--now", END, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["subject"] == 'memory(picard): session end "rotate the keys"'
    assert data["files"] == [HOT, COLD, LOG]
    assert sorted(repo.git("show", "--name-only", "--format=", "HEAD").split()) == sorted([HOT, COLD, LOG])
    assert repo.git("log", "-1", "--format=%B").rstrip("\n") == (
        'memory(picard): session end "rotate the keys"\n\n- **Task:** rotate the keys'
    )
    assert repo.read(HOT) == HEADER + "## Session\n- none yet\n\n" + NOTES
    cold = repo.read(COLD)
    assert cold.startswith("# Cold memory: picard\n")
    assert cold.endswith(
        "## 2026-03-01: rotate the keys\n"
        "<!-- squadmem: kind=decision -->\n"
        "- **Task:** rotate the keys\n"
        "- **Decision:** tokens live 15 min\n"
        "- **Decision:** vault only\n"
        "- **Blocker:** staging vault is down\n"
        f"- 30 more items in {LOG}\n\n"
    )
    log = repo.read(LOG)
    assert log.startswith(
        "# Daily log 2026-03-01\n\n- 17:00 [picard] session end: rotate the keys\n  ## Session\n"
    )
    entry = logs.entries(log)[-1]
    assert entry.agent == "picard" and entry.text.endswith(raw.rstrip("\n"))
    assert repo.git("status", "--porcelain") == ""
    code, _, _ = cli(repo, "session", "start", "-a", "picard", "-t", "next", "--now", END)
    assert code == 0


def test_extractive_summary_is_deterministic_small_and_keeps_decisions() -> None:
    for actions in (3, 30, 300):
        done = "".join(f"- step {n}: did a thing, and words to pad it out\n" for n in range(actions))
        raw = (
            "## Session\n- **Task:** t\n- **Started:** 2026-03-01T10:00:00+00:00\n\n"
            "### Active decisions\n- keep *A*\n- drop `B`\n\n"
            f"### Last actions\n{done}\n### Blockers\n- none yet\n\n### Talking to\n- worf\n"
        )
        summary = session.summarize(raw, LOG)
        assert summary == session.summarize(raw, LOG)
        size = len(raw.encode("utf-8"))
        assert len(summary.encode("utf-8")) <= max(session.SUMMARY_FLOOR, size // 10)
        assert summary.startswith("- **Task:** t\n- **Decision:** keep *A*\n- **Decision:** drop `B`\n")
        assert "worf" not in summary and "none yet" not in summary
        kept = summary.count("- **Done:** step")
        assert kept == 0 or summary.index("- **Done:** step 0:") > 0
        if actions == 300:
            assert kept > 3 and f"{300 - kept} more items in {LOG}" in summary


def test_end_without_decisions_leaves_no_kind_flag(repo: GitRepo) -> None:
    """Only a session that decided something sends its summary to the wiki when it ages out of cold."""
    repo.commit("start", {"README.md": "x\n"}, date=START)
    code, _, err = cli(repo, "session", "start", "-a", "data", "--task", "read logs", "--now", START, "--new")
    assert code == 0, err
    hot = ".squad/memory/hot/data.md"
    repo.commit(
        "act",
        {hot: repo.read(hot).replace("### Last actions\n- none yet", "### Last actions\n- read")},
        date=START,
    )
    code, _, err = cli(repo, "session", "end", "-a", "data", "--now", END)
    assert code == 0, err
    assert "<!-- squadmem: kind=decision -->" not in repo.read(".squad/memory/cold/data.md")


def test_end_takes_the_summary_from_stdin(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    started(repo, monkeypatch)
    fill(repo, actions=2)
    at(monkeypatch, END)
    given_summary = "Rotated every key but staging.\n\n### Next\n- staging when the vault is back\n"
    code, out, _ = cli(
        repo, "session", "end", "-a", "picard", "--summary-file", "-", "--now", END, input=given_summary
    )
    assert code == 0
    flag = "<!-- squadmem: kind=decision -->\n"  # the session made decisions: the wiki keeps its summary
    assert repo.read(COLD).endswith(f"## 2026-03-01: rotate the keys\n{flag}{given_summary}\n")
    assert repo.git("log", "-1", "--format=%b").strip() == "Rotated every key but staging."
    assert "summary (" in out


def test_end_refuses_a_summary_that_is_not_one_section(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    started(repo, monkeypatch)
    before = repo.snapshot()
    at(monkeypatch, END)
    code, _, err = cli(
        repo, "session", "end", "-a", "picard", "--summary-file", "-", input="x\n## Other\ny\n"
    )
    assert code == 2 and "would not stay one cold section" in err
    assert repo.snapshot() == before


def test_end_without_a_session_refuses_and_changes_nothing(repo: GitRepo) -> None:
    seed(repo, HEADER + "## Session\n- none yet\n\n" + NOTES)
    before = repo.snapshot()
    code, out, err = cli(repo, "session", "end", "-a", "picard", "--now", END)
    assert (code, out) == (2, "")
    assert err == (
        f"squadmem: {HOT}: picard has no session in progress\n"
        'hint: squadmem session start --agent picard --task "what you are doing"\n'
    )
    assert repo.snapshot() == before
    assert cli(repo, "session", "end", "-a", "nobody", "--now", END)[0] == 2
    assert repo.snapshot() == before


# -- beside the user's work ----------------------------------------------------------------------


def test_a_staged_file_stays_staged_and_out_of_the_commits(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(repo)
    repo.write("src/app.py", "print(2)\n")
    repo.git("add", "src/app.py")
    repo.write("src/app.py", "print(3)\n")
    at(monkeypatch, START)
    assert cli(repo, "session", "start", "-a", "picard", "-t", "t", "--now", START)[0] == 0
    at(monkeypatch, END)
    assert cli(repo, "session", "end", "-a", "picard", "--now", END)[0] == 0
    for rev in ("HEAD", "HEAD~1"):
        assert "src/app.py" not in repo.git("show", "--name-only", "--format=", rev)
    assert repo.git("status", "--porcelain") == "MM src/app.py\n"
    assert repo.git("show", ":src/app.py") == "print(2)\n" and repo.read("src/app.py") == "print(3)\n"


@pytest.mark.parametrize("command", ["start", "end"])
def test_a_dirty_hot_file_refuses_naming_it(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    started(repo, monkeypatch)
    repo.write(HOT, repo.read(HOT) + "edited by hand\n")
    before = repo.snapshot()
    args = ["-t", "t"] if command == "start" else []
    code, _, err = cli(repo, "session", command, "-a", "picard", *args, "--now", END)
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: {HOT}: has uncommitted changes"
    assert repo.snapshot() == before


def test_end_keeps_uncommitted_log_entries(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """`log add` during a session left today's log uncommitted, and `session end` refused it."""
    started(repo, monkeypatch)
    assert (
        cli(repo, "log", "add", "-a", "picard", "checked the vault", "--now", "2026-03-01T11:00:00Z")[0] == 0
    )
    added = repo.read(LOG)
    at(monkeypatch, END)
    code, _, err = cli(repo, "session", "end", "-a", "picard", "--now", END)
    assert code == 0, err
    committed = repo.git("show", f"HEAD:{LOG}")
    assert committed.startswith(added)
    assert "session end: " in committed[len(added) :]
    assert repo.git("status", "--porcelain") == ""


def test_end_refuses_a_log_changed_other_than_by_appending(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    started(repo, monkeypatch)
    cli(repo, "log", "add", "-a", "picard", "first", "--now", "2026-03-01T11:00:00Z")
    repo.git("add", LOG)
    repo.git("commit", "-q", "--no-verify", "-m", "log", date="2026-03-01T11:00:00+00:00")
    repo.write(LOG, repo.read(LOG).replace("first", "rewritten"))
    before = repo.snapshot()
    at(monkeypatch, END)
    code, _, err = cli(repo, "session", "end", "-a", "picard", "--now", END)
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: {LOG}: has uncommitted changes that are not an append"
    assert repo.snapshot() == before


def test_pending_uses_ride_on_the_commit(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    started(repo, monkeypatch)
    with Repo(repo.root) as handle:
        uses.record(handle.state_dir, ["picard/notes"], clock.now(END))
    at(monkeypatch, END)
    assert cli(repo, "session", "end", "-a", "picard", "--now", END)[0] == 0
    assert (
        repo.git("log", "-1", "--format=%(trailers:key=Squad-Memory-Used,valueonly)").strip()
        == "picard/notes"
    )
    with Repo(repo.root) as handle:
        assert uses.pending(handle.state_dir) == {}


def test_verify_is_clean_after_sessions(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    started(repo, monkeypatch)
    fill(repo)
    at(monkeypatch, END)
    assert cli(repo, "session", "end", "-a", "picard", "--now", END)[0] == 0
    at(monkeypatch, "2026-03-01T18:00:00+00:00")
    assert (
        cli(repo, "session", "start", "-a", "picard", "-t", "again", "--now", "2026-03-01T18:00:00Z")[0] == 0
    )
    at(monkeypatch, "2026-03-01T19:00:00+00:00")
    code, out, _ = cli(repo, "session", "end", "-a", "picard", "--now", "2026-03-01T19:00:00Z")
    assert code == 0 and "summary (" in out
    assert len(logs.entries(repo.read(LOG))) == 2
    code, out, _ = cli(repo, "verify", "--now", "2026-03-01T19:00:00Z", "HEAD")
    assert code == 0, out
    assert out == "verified 6 commits (0 moves, 0 index refreshes, 2 log changes): no violations\n"


def test_commit_files_commits_beside_the_index(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """writer.Writer.commit_files: the public way to commit a few files' new texts."""
    seed(repo)
    repo.write("src/app.py", "staged\n")
    repo.git("add", "src/app.py")
    at(monkeypatch, START)
    with Repo(repo.root) as handle, writer.session(handle) as scribe:
        made = scribe.commit_files({HOT: "# Hot\n", COLD: "# Cold\n"}, "subject", "body")
    assert made.subject == "subject" and repo.head() == made.sha
    assert repo.git("log", "-1", "--format=%B").rstrip("\n") == "subject\n\nbody"
    assert (repo.read(HOT), repo.read(COLD)) == ("# Hot\n", "# Cold\n")
    assert repo.git("status", "--porcelain") == "M  src/app.py\n"


# -- nothing is lost -----------------------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\0"), max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    task=_TEXT.filter(lambda t: bool(t.strip())),
    decisions=st.lists(_TEXT, max_size=4),
    actions=st.lists(_TEXT, max_size=8),
    blockers=st.lists(_TEXT, max_size=3),
)
def test_end_loses_nothing(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    task: str,
    decisions: list[str],
    actions: list[str],
    blockers: list[str],
) -> None:
    root = tmp_path_factory.mktemp("repo")
    repo = GitRepo(root)
    repo.git("init", "-q", "-b", "main")

    def items(values: list[str]) -> str:
        return "".join(f"- {v}\n" for v in values) or "- none yet\n"

    raw = (
        f"## Session\n- **Task:** {task}\n- **Started:** {START}\n\n"
        f"### Active decisions\n{items(decisions)}\n### Last actions\n{items(actions)}\n"
        f"### Blockers\n{items(blockers)}\n### Talking to\n- worf\n\n"
    )
    before, after = HEADER, NOTES
    repo.commit("memory", {HOT: before + raw + after}, date=BASE)
    at(monkeypatch, END)
    with Repo(root) as handle:
        result = session.end(handle, "picard", clock.now(END))
    entry = logs.entries(repo.read(LOG))[-1]
    assert entry.text.endswith("\n" + raw.rstrip("\n"))
    hot = repo.read(HOT)
    assert hot.startswith(before) and hot.endswith(after)
    assert hot[len(before) : len(hot) - len(after)] == session.EMPTY + "\n"
    assert result.task == (task.strip() or "session")
    assert repo.git("status", "--porcelain") == ""
    assert Path(root / COLD).exists()


@pytest.mark.parametrize("verb", ["demote", "promote"])
def test_the_session_block_is_not_moved_by_name(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, verb: str
) -> None:
    """Regression: `demote picard/session` moved the Session block to cold, and the next `session
    start` wrote a second one. It is refused, naming the command that ends a session."""
    started(repo, monkeypatch)
    before = repo.snapshot()
    code, out, err = cli(repo, verb, "picard/session", *(["--to", "cold"] if verb == "promote" else []))
    assert (code, out) == (2, "")
    assert err == (
        f"squadmem: picard/session is the Session block of {HOT}, which stays at the top of hot: it does"
        " not move\nhint: squadmem session end --agent picard logs it, sums it up in cold and clears it\n"
    )
    assert repo.snapshot() == before
