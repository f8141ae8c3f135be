"""Daily logs: the immutability rules, git's dates, entries, and `squadmem log add/show`."""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo
from pathlib import Path

import pytest
from conftest import GitRepo, assert_refused, run_squadmem
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.model import logs
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import Layout
from squadmem.model.places import SQUAD_PLACES

UTC = zoneinfo.ZoneInfo("UTC")
LOG = ".squad/memory/log/2026-03-01.md"
RULES = logs.Rules(UTC, 0, SQUAD_PLACES)


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (LOG, dt.date(2026, 3, 1)),
        (".squad/memory/log/2026-02-30.md", "bad"),
        (".squad/memory/log/2026-13-01.md", "bad"),
        (".squad/memory/log/.gitkeep", None),
        (".squad/memory/log/notes.md", "misnamed"),
        (".squad/memory/log/2026-03-01.txt", "misnamed"),
        (".squad/memory/log/sub/2026-03-01.md", "misnamed"),
        (".squad/memory/log/\uff12\uff10\uff12\uff16-03-01.md", "misnamed"),  # full-width digits
        (".squad/memory/log/2026-03-\u0661\u0662.md", "misnamed"),  # Arabic-Indic digits
        (".squad/memory/hot/2026-03-01.md", None),
        # a host's session files are logs of their day: a time, a time taken twice, a slug
        (".squad/memory/log/2026-03-01-2215.md", dt.date(2026, 3, 1)),
        (".squad/memory/log/2026-03-01-2215-2.md", dt.date(2026, 3, 1)),
        (".squad/memory/log/2026-03-01-api-design.md", dt.date(2026, 3, 1)),
        (".squad/memory/log/2026-02-30-2215.md", "bad"),
        (".squad/memory/log/2026-03-01-.md", "misnamed"),
        (".squad/memory/log/2026-03-01--x.md", "misnamed"),
        (".squad/memory/log/2026-03-01-x-.md", "misnamed"),
        (".squad/memory/log/2026-03-01-API.md", "misnamed"),
        (".squad/memory/log/2026-03-01-caf\u00e9.md", "misnamed"),
        (".squad/memory/log/2026-03-01-a/b.md", "misnamed"),
    ],
)
def test_log_day_names(path: str, expected: object) -> None:
    assert logs.log_day(path, SQUAD_PLACES) == expected


@pytest.mark.parametrize(
    ("change", "now", "why"),
    [
        (logs.Change(LOG, None, b"# a\n"), "2026-03-01T09:00:00+00:00", None),
        (logs.Change(LOG, b"# a\n", b"# a\n- b\n"), "2026-03-01T23:59:59+00:00", None),
        (logs.Change(LOG, b"# a\n", b"# A\n- b\n"), "2026-03-01T12:00:00+00:00", "not an append"),
        (logs.Change(LOG, b"# a\n- b\n", b"# a\n"), "2026-03-01T12:00:00+00:00", "not an append"),
        (
            logs.Change(LOG, b"# a\n", b"# a\n- b\n"),
            "2026-03-02T00:00:00+00:00",
            "changed after its day ended",
        ),
        (logs.Change(LOG, b"# a\n", None), "2026-03-01T12:00:00+00:00", "deleted;"),
        (logs.Change(LOG, b"# a\n", None), "2026-03-05T12:00:00+00:00", "deleted after its day ended"),
        (logs.Change(LOG, b"# a\n", None, renamed_to="x"), "2026-03-05T12:00:00+00:00", "renamed to x after"),
        (logs.Change(LOG, None, b"# a\n"), "2026-02-28T23:00:00+00:00", "dated in the future"),
        (logs.Change(LOG, None, b"# backfill\n"), "2026-03-09T12:00:00+00:00", None),
        (
            logs.Change(".squad/memory/log/2026-02-30.md", None, b"x"),
            "2026-03-01T12:00:00+00:00",
            "not a real date",
        ),
        (logs.Change(".squad/memory/log/2026-02-30.md", b"x", None), "2026-03-01T12:00:00+00:00", None),
        (logs.Change(".squad/memory/log/.gitkeep", b"", b"x"), "2026-03-09T12:00:00+00:00", None),
        (logs.Change(LOG, b"a\n", b"a\n"), "2026-03-09T12:00:00+00:00", None),
    ],
)
def test_judge_rules(change: logs.Change, now: str, why: str | None) -> None:
    found = logs.judge(change, at(now), RULES)
    if why is None:
        assert found == []
    else:
        assert len(found) == 1 and why in found[0], found


def test_judge_grace_period_lets_yesterday_grow() -> None:
    change = logs.Change(LOG, b"# a\n", b"# a\n- late\n")
    rules = logs.Rules(UTC, 30, SQUAD_PLACES)
    assert logs.judge(change, at("2026-03-02T00:29:00+00:00"), rules) == []
    assert logs.judge(change, at("2026-03-02T00:30:00+00:00"), rules)


def test_judge_time_zone_decides_the_day() -> None:
    """The team's time zone decides which day a moment is in, so which log is today's."""
    change = logs.Change(LOG, b"# a\n", b"# a\n- b\n")
    honolulu = logs.Rules(zoneinfo.ZoneInfo("Pacific/Honolulu"), 0, SQUAD_PLACES)
    kiritimati = logs.Rules(zoneinfo.ZoneInfo("Pacific/Kiritimati"), 0, SQUAD_PLACES)
    moment = at("2026-03-02T05:00:00+00:00")  # 19:00 on 1 March in Honolulu, 19:00 on 2 March in Kiritimati
    assert logs.judge(change, moment, honolulu) == []
    assert "changed after its day ended" in logs.judge(change, moment, kiritimati)[0]
    future = logs.Change(".squad/memory/log/2026-03-02.md", None, b"x")
    assert "future" in logs.judge(future, moment, honolulu)[0]
    assert logs.judge(future, moment, kiritimati) == []


def test_judge_merge_of_both_sides_appends_is_not_a_change() -> None:
    """A merge=union of two branches' appends after the day is not a new edit of a past log."""
    ours, theirs = b"# a\n- ours\n", b"# a\n- theirs\n"
    union = logs.Change(LOG, ours, b"# a\n- ours\n- theirs\n", others=(theirs,))
    assert logs.judge(union, at("2026-03-05T00:00:00+00:00"), RULES) == []
    same = logs.Change(LOG, ours, ours, others=(b"# a\n",))
    assert logs.judge(same, at("2026-03-05T00:00:00+00:00"), RULES) == []
    taken = logs.Change(LOG, ours, theirs, others=(theirs,))  # drops ours' line
    assert (
        "changed by a merge after its day ended"
        in logs.judge(taken, at("2026-03-05T00:00:00+00:00"), RULES)[0]
    )
    forged = logs.Change(LOG, ours, b"# a\n- ours\n- theirs\n- new\n", others=(theirs,))
    assert logs.judge(forged, at("2026-03-05T00:00:00+00:00"), RULES)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-03-01T12:00:00+00:00", "2026-03-01T12:00:00+00:00"),
        ("2026-03-01T12:00:00+02:00", "2026-03-01T10:00:00+00:00"),
        ("2026-03-01 12:00:00 +0200", "2026-03-01T10:00:00+00:00"),
        ("2026-03-01T12:00:00Z", "2026-03-01T12:00:00+00:00"),
        ("@1772366400 +0000", "2026-03-01T12:00:00+00:00"),
        ("1772366400 +0100", "2026-03-01T12:00:00+00:00"),
        ("@1772366400", "2026-03-01T12:00:00+00:00"),
        ("Sun, 01 Mar 2026 12:00:00 +0000", "2026-03-01T12:00:00+00:00"),
    ],
)
def test_parse_git_date_formats(value: str, expected: str) -> None:
    parsed = logs.parse_git_date(value)
    assert parsed is not None and parsed == at(expected)


def test_commit_now_prefers_git_committer_date() -> None:
    assert logs.commit_now({"GIT_COMMITTER_DATE": "@1772366400 +0000"}) == at("2026-03-01T12:00:00+00:00")
    before = dt.datetime.now(dt.UTC)
    assert logs.commit_now({"GIT_COMMITTER_DATE": "next tuesday"}) >= before
    assert logs.commit_now({}) >= before


def test_entry_format_multiline() -> None:
    moment = at("2026-03-01T14:03:00+00:00")
    text = logs.entry("first\r\nsecond\n\nthird\n", moment, UTC, "picard")
    assert text == "- 14:03 [picard] first\n  second\n\n  third\n"
    assert logs.entry("x", moment, zoneinfo.ZoneInfo("Europe/Paris")) == "- 15:03 x\n"


@pytest.mark.parametrize(("text", "agent"), [("", None), ("  \n ", None), ("x", "../evil"), ("x", "a/b")])
def test_entry_refuses_empty_text_and_bad_agents(text: str, agent: str | None) -> None:
    with pytest.raises(SquadmemError):
        logs.entry(text, at("2026-03-01T14:03:00+00:00"), UTC, agent)


def _with_picard(root: Path) -> Layout:
    """A layout where the agent picard has a hot file (log entries name known agents only)."""
    (root / ".squad/memory/hot").mkdir(parents=True, exist_ok=True)
    (root / ".squad/memory/hot/picard.md").write_text("# Hot memory: picard\n")
    return Layout(root)


def test_append_creates_log_with_title_then_appends(tmp_path: Path) -> None:
    layout = _with_picard(tmp_path)
    path = logs.append(layout, UTC, "one", at("2026-03-01T09:00:00+00:00"), "picard")
    path.write_bytes(path.read_bytes() + b"no newline at end")
    logs.append(layout, UTC, "two", at("2026-03-01T10:00:00+00:00"))
    assert (
        path.read_text() == "# Daily log 2026-03-01\n\n- 09:00 [picard] one\nno newline at end\n- 10:00 two\n"
    )


def test_append_refuses_a_symlink_leading_outside(tmp_path: object) -> None:
    """A log folder that is a symlink out of .squad/memory/ is refused, nothing written outside."""
    from pathlib import Path

    root = Path(str(tmp_path))
    outside = root / "outside"
    outside.mkdir()
    (root / ".squad/memory").mkdir(parents=True)
    (root / ".squad/memory/log").symlink_to(outside)
    with pytest.raises(SquadmemError, match="leads outside"):
        logs.append(Layout(root), UTC, "x", at("2026-03-01T09:00:00+00:00"))
    assert list(outside.iterdir()) == []


line_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30).filter(
    lambda s: s.strip() != ""
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(line_text, min_size=1, max_size=3), min_size=1, max_size=6))
def test_append_only_grows_and_round_trips(
    tmp_path_factory: pytest.TempPathFactory, texts: list[list[str]]
) -> None:
    """Each append keeps the old bytes as a prefix (the hook accepts it); entries() gives the texts back."""
    layout = _with_picard(tmp_path_factory.mktemp("log"))
    moment = at("2026-03-01T09:00:00+00:00")
    previous = b""
    for lines in texts:
        path = logs.append(layout, UTC, "\n".join(lines), moment, "picard")
        current = path.read_bytes()
        assert logs.judge(logs.Change(LOG, previous or None, current), moment, RULES) == []
        previous = current
    parsed = logs.entries(previous.decode("utf-8"))
    wanted = ["\n".join(line.strip("\n") for line in lines).strip("\n") for lines in texts]
    assert [e.agent for e in parsed] == ["picard"] * len(texts)
    assert [e.text for e in parsed] == [_normal(w) for w in wanted]


def _normal(text: str) -> str:
    """What an entry keeps of a text: line endings as \\n, trailing spaces of each line dropped."""
    body = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    first, *rest = body.split("\n")
    return "\n".join([first.rstrip(), *(line.rstrip() for line in rest)])


# -- the commands ----------------------------------------------------------------------------------
def test_log_add_and_show(repo: GitRepo) -> None:
    _with_picard(repo.root)
    unknown = run_squadmem(repo.root, "log", "add", "--agent", "picrad", "--now", "2026-03-01T14:03:00Z", "x")
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[1] == "hint: agents here: picard"
    done = run_squadmem(
        repo.root, "log", "add", "--agent", "picard", "--now", "2026-03-01T14:03:00Z", "hello"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"appended to {LOG}"
    piped = run_squadmem(repo.root, "log", "add", "-", "--now", "2026-03-01T15:00:00Z", input="a\nb\n")
    assert piped.returncode == 0, piped.stderr
    assert repo.read(LOG) == "# Daily log 2026-03-01\n\n- 14:03 [picard] hello\n- 15:00 a\n  b\n"
    shown = run_squadmem(repo.root, "log", "show", "2026-03-01")
    assert shown.stdout == repo.read(LOG)
    data = json.loads(run_squadmem(repo.root, "log", "show", "--now", "2026-03-01T20:00Z", "--json").stdout)
    assert data["file"] == LOG
    assert data["entries"] == [
        {"time": "14:03", "agent": "picard", "text": "hello"},
        {"time": "15:00", "agent": None, "text": "a\nb"},
    ]


def test_log_add_uses_the_team_time_zone(repo: GitRepo) -> None:
    repo.write(".squad/memory/tiers.toml", 'timezone = "Pacific/Kiritimati"\n')
    done = run_squadmem(repo.root, "log", "add", "x", "--now", "2026-03-01T20:00:00Z")
    assert done.stdout.strip() == "appended to .squad/memory/log/2026-03-02.md"
    assert repo.read(".squad/memory/log/2026-03-02.md").endswith("- 10:00 x\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("log", "add", ""), "squadmem: nothing to log: the text is empty"),
        (("log", "add", "--agent", "../x", "text"), "squadmem: invalid agent name '../x'"),
        (("log", "show", "2026-02-30"), "squadmem: date '2026-02-30': not a date"),
        (("log", "show", "2026-03-01"), "squadmem: .squad/memory/log/2026-03-01.md: no log for 2026-03-01"),
    ],
)
def test_log_commands_refuse_bad_input(repo: GitRepo, args: tuple[str, ...], message: str) -> None:
    assert_refused(repo, *args, message=message)


def test_log_hook_start_imports_nothing_heavy() -> None:
    """The log hook's import stays light: no third-party module, and not the CLI's heavy ones."""
    import subprocess
    import sys

    code = (
        "import sys, squadmem.hooks.log_check; print(sorted(m for m in sys.modules if m.split('.')[0] in {}))"
    )
    heavy = {"typer", "git", "mistune", "dateutil", "click", "rich", "email"}
    done = subprocess.run(
        [sys.executable, "-c", code.format(heavy)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("merged", "versions", "tail", "expected"),
    [
        (b"# a\n- o\n- t\n", [b"# a\n- o\n", b"# a\n- t\n"], False, True),
        (b"# a\n- t\n- o\n", [b"# a\n- o\n", b"# a\n- t\n"], False, True),
        (b"# a\n- o\n", [b"# a\n- o\n", b"# a\n"], False, True),
        (b"# a\n", [b"# a\n- o\n", b"# a\n"], False, False),  # an older side's version: truncated
        (b"# a\n- x\n- y\n", [b"# a\n- x\n- x\n", b"# a\n- y\n"], False, False),  # a repeat dropped
        (b"# a\n- b\n- a\n- c\n", [b"# a\n- a\n- b\n", b"# a\n- c\n"], False, False),  # reordered
        (b"# a\n- o\n- t\n- new\n", [b"# a\n- o\n", b"# a\n- t\n"], False, False),  # a line added
        (b"# a\n- o\n- t\n- new\n", [b"# a\n- o\n", b"# a\n- t\n"], True, True),  # at the end, today
        (b"# a\n- new\n- o\n- t\n", [b"# a\n- o\n", b"# a\n- t\n"], True, False),  # not at the end
        (b"- o\n# a\n- t\n", [b"# a\n- o\n", b"# a\n- t\n"], False, False),  # the shared start moved
        (b"# a\n- o\n- s\n- s\n", [b"# a\n- o\n- s\n", b"# a\n- s\n"], False, True),  # both wrote it
        (b"# a\n- o\n- s\n- s\n- s\n", [b"# a\n- o\n- s\n", b"# a\n- s\n"], False, False),
        (b"# a\n- o\n", [b"# a\n- o"], False, True),  # an unterminated last line
        (b"x\n", [], False, False),
    ],
)
def test_combines_lists_of_lines(merged: bytes, versions: list[bytes], tail: bool, expected: bool) -> None:
    assert logs.combines(merged, versions, tail=tail) is expected


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from([b"- a\n", b"- b\n", b"- c\n"]), max_size=4),
    st.lists(st.lists(st.sampled_from([b"- a\n", b"- b\n", b"- d\n"]), max_size=4), min_size=1, max_size=3),
)
def test_combines_property_a_union_passes_any_loss_does_not(
    shared: list[bytes], tails: list[list[bytes]]
) -> None:
    """A union merge (the shared start, then each side's appends) combines its parents; dropping a line
    that only one parent holds, or adding one, does not."""
    texts = [shared + tail for tail in tails]
    start = 0
    while all(start < len(t) for t in texts) and len({t[start] for t in texts}) == 1:
        start += 1
    versions = [b"".join(t) for t in texts]
    union = texts[0][:start] + [line for t in texts for line in t[start:]]
    assert logs.combines(b"".join(union), versions)
    for at in range(len(union)):
        if sum(union[at] in v.splitlines(keepends=True) for v in versions) == 1:
            dropped = union[:at] + union[at + 1 :]
            assert not logs.combines(b"".join(dropped), versions)
    assert not logs.combines(b"".join([*union, b"- forged\n"]), versions)


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        (b"# a\n- x\n", b"# a\n- x\n", None),
        (b"# a\n- x\n", b"# a\n- y\n- x\n", None),  # rebased onto lines pushed meanwhile
        (b"# a\n- x\n", b"# a\n", "gone or reordered"),
        (b"# a\n- x\n- y\n", b"# a\n- y\n- x\n", "gone or reordered"),
        (b"# a\n- x\n", None, "deleted from history that was already pushed"),
    ],
)
def test_kept_the_lines_a_pushed_ref_held(old: bytes, new: bytes | None, why: str | None) -> None:
    found = logs.kept(LOG, old, new, SQUAD_PLACES)
    assert found is None if why is None else (found is not None and why in found)


def test_published_lines_and_appends_elsewhere() -> None:
    branch = b"# a\n- x\n- y\n"
    assert logs.appended_elsewhere(b"# a\n", b"# a\n- x\n- y\n", [branch])
    assert not logs.appended_elsewhere(b"# a\n", b"# a\n- y\n- x\n", [branch])  # not in its order
    assert not logs.appended_elsewhere(b"# a\n", b"# a\n- x\n- z\n", [branch])
    assert not logs.appended_elsewhere(b"# a\n- x\n", b"# a\n", [branch])  # no append at all
    assert logs.unpublished(b"# a\n", b"# a\n- x\n- z\n", [branch]) == [b"- z\n"]


def test_signature_times_and_effective_date() -> None:
    raw = b"tree 1\nparent 2\nauthor A <a@x> 1772366400 +0100\ncommitter C <c@x> 1772370000 +0000\n\nmsg\n"
    authored, committed = logs.signature_times(raw)
    assert authored == at("2026-03-01T12:00:00+00:00") and committed == at("2026-03-01T13:00:00+00:00")
    assert logs.signature_times(b"not a commit") == (None, None)
    assert logs.effective(at("2026-02-01T00:00:00+00:00"), [committed]) == committed


def test_judge_replayed_append_within_the_window() -> None:
    change = logs.Change(LOG, b"# a\n", b"# a\n- b\n")
    authored = at("2026-03-01T22:00:00+00:00")
    assert logs.judge(change, at("2026-03-08T23:59:00+00:00"), RULES, authored) == []
    assert logs.judge(change, at("2026-03-09T00:00:00+00:00"), RULES, authored)
    assert logs.judge(change, at("2026-03-03T00:00:00+00:00"), RULES, at("2026-03-02T00:00:00+00:00"))
    rewrite = logs.Change(LOG, b"# a\n", b"# A\n")
    assert logs.judge(rewrite, at("2026-03-03T00:00:00+00:00"), RULES, authored)


def test_judge_recreation_against_history() -> None:
    now = at("2026-03-05T00:00:00+00:00")
    same = logs.Change(LOG, None, b"# a\n- x\n", history=[b"# a\n", b"# a\n- x\n"])
    assert logs.needs_history(same, now, RULES)
    assert logs.judge(same, now, RULES) == []
    shorter = logs.Change(LOG, None, b"# a\n", history=[b"# a\n", b"# a\n- x\n"])
    assert "re-created after its day ended" in logs.judge(shorter, now, RULES)[0]
    assert logs.judge(logs.Change(LOG, None, b"# new\n"), now, RULES) == []  # a backfill
