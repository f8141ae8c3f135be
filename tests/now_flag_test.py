"""``--now``, one rule in every command that takes it (the lane's included): ISO 8601 forms only, never
before the newest commit, never after the clock for a command that commits or records a use; a command
that commits dates its commits at that moment, so ``verify`` at that moment accepts them."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import GitRepo, init_hooked, run_squadmem
from hypothesis import given
from hypothesis import strategies as st

from squadmem.engine import clock
from squadmem.model import uses
from squadmem.model.errors import SquadmemError

DATE = "2026-03-02T09:00:00+00:00"
HOT = ".squad/memory/hot/picard.md"
NOTES = "\n## Vault layout\nSecrets live under kv/.\n\n## Deploy\nUse the script.\n"
LATER = "2026-04-20T09:00:00Z"
FORMS_HINT = "hint: " + clock.FORMS

COMMANDS = [
    ("report",),
    ("maintain",),
    ("maintain", "--dry-run"),
    ("context", "--agent", "picard"),  # the lane
    ("recall", "vault"),  # the lane
    ("track",),  # the lane
    ("touch", "picard/deploy"),
    ("verify",),
    ("log", "add", "x"),
    ("log", "show"),
    ("promote", "picard/deploy"),
    ("session", "start", "--agent", "picard", "--task", "t"),
]


@pytest.fixture
def mem(repo: GitRepo) -> GitRepo:
    init_hooked(repo, DATE)
    repo.commit("notes", {HOT: repo.read(HOT) + NOTES}, date=DATE)
    return repo


def refused(repo: GitRepo, *args: str) -> list[str]:
    before = repo.snapshot()
    done = run_squadmem(repo.root, *args)
    assert done.returncode == 2, (args, done.stdout, done.stderr)
    assert done.stdout == ""
    assert repo.snapshot() == before
    return done.stderr.splitlines()


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("value", ["12/03/2026", "2026-04-20T09:00 EST"])
def test_a_value_in_no_iso_form_is_refused_by_every_command(
    mem: GitRepo, args: tuple[str, ...], value: str
) -> None:
    assert refused(mem, *args, "--now", value) == [
        f"squadmem: --now {value!r}: not a date in an ISO form",
        FORMS_HINT,
    ]


@pytest.mark.parametrize("args", [a for a in COMMANDS if a[0] not in ("verify", "log")], ids=" ".join)
def test_a_moment_before_the_newest_commit_is_refused(mem: GitRepo, args: tuple[str, ...]) -> None:
    """A 2020 --now read every section as "used 0 min ago" and planned to promote everything."""
    first, hint = refused(mem, *args, "--now", "2020-01-01")
    assert first == (
        "squadmem: --now '2020-01-01': before the newest commit (2026-03-02T09:00:00Z); ages would be"
        " read before the history they are measured on"
    )
    assert hint == "hint: give a moment at or after the newest commit's date, or leave out --now"


def test_verify_may_look_from_before_the_newest_commit(mem: GitRepo) -> None:
    done = run_squadmem(mem.root, "verify", "--now", "2026-01-01")
    assert done.returncode == 1
    assert "after now: a forged date?" in done.stdout


def test_log_add_may_backfill_a_day_before_the_newest_commit(mem: GitRepo) -> None:
    done = run_squadmem(mem.root, "log", "add", "--now", "2026-02-20T10:00:00Z", "backfilled")
    assert (done.returncode, done.stdout) == (0, "appended to .squad/memory/log/2026-02-20.md\n")
    shown = run_squadmem(mem.root, "log", "show", "--now", "2026-02-20T12:00:00Z")
    assert "backfilled" in shown.stdout


@pytest.mark.parametrize(
    "value",
    [
        "2026-04-20T09:00:00Z",
        "2026-04-20T09:00Z",
        "2026-04-20T09:00",
        "2026-04-20T11:00:00+02:00",
        "2026-04-20T04:00-05:00",
    ],
)
def test_every_iso_form_names_the_same_moment(mem: GitRepo, value: str) -> None:
    done = run_squadmem(mem.root, "report", "--json", "--now", value)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["now"] == "2026-04-20T09:00:00Z"


def test_a_day_alone_is_midnight_utc(mem: GitRepo) -> None:
    done = run_squadmem(mem.root, "report", "--json", "--now", "2026-04-20")
    assert json.loads(done.stdout)["now"] == "2026-04-20T00:00:00Z"


def test_maintain_dates_its_commits_at_now_and_verify_there_accepts_them(mem: GitRepo) -> None:
    """maintain --now stamped the clock; verify --now then called each commit a forged date."""
    head = mem.head()
    done = run_squadmem(mem.root, "maintain", "--now", LATER)
    assert done.returncode == 0, done.stderr
    dates = mem.git("log", "--format=%aI %cI", f"{head}..HEAD").split("\n")[:-1]
    assert dates and set(dates) == {"2026-04-20T09:00:00+00:00 2026-04-20T09:00:00+00:00"}
    checked = run_squadmem(mem.root, "verify", "--now", LATER)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.endswith("no violations\n")


def test_a_command_that_commits_refuses_a_moment_after_the_clock(mem: GitRepo) -> None:
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(days=2)).strftime("%Y-%m-%dT%H:%MZ")
    first, hint = refused(mem, "maintain", "--now", future)
    assert first == (
        f"squadmem: --now {future!r}: after the clock; this command commits, and a commit dated in the"
        " future is one verify reports as forged"
    )
    assert hint.startswith("hint: ")
    done = run_squadmem(mem.root, "maintain", "--dry-run", "--now", future)
    assert done.returncode == 0, done.stderr


def test_touch_records_the_use_at_now(mem: GitRepo) -> None:
    done = run_squadmem(mem.root, "touch", "picard/deploy", "--now", LATER)
    assert done.returncode == 0, done.stderr
    recorded = uses.pending(mem.root / ".git" / "squadmem")
    assert recorded == {"picard/deploy": dt.datetime(2026, 4, 20, 9, tzinfo=dt.UTC)}


def test_touch_refuses_a_moment_after_the_clock(mem: GitRepo) -> None:
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(days=2)).strftime("%Y-%m-%d")
    first, _ = refused(mem, "touch", "picard/deploy", "--now", future)
    assert first.endswith("after the clock; a use is recorded when it happened, never in the future")


@pytest.mark.parametrize(
    "args", [("list",), ("near", "x"), ("doctor",), ("history", "picard/deploy")], ids=" ".join
)
def test_a_command_that_takes_no_moment_refuses_now(mem: GitRepo, args: tuple[str, ...]) -> None:
    lines = refused(mem, *args, "--now", LATER)
    assert lines[-1] == "Error: No such option '--now'."


@given(
    st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(9998, 12, 30)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
    st.sampled_from(["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"]),
)
def test_parse_reads_each_iso_form_exactly(moment: dt.datetime, minutes: int, form: str) -> None:
    zone = dt.timezone(dt.timedelta(minutes=minutes))
    local = moment.replace(microsecond=0, tzinfo=zone)
    if form.endswith("%M"):
        local = local.replace(second=0)
    sign, span = ("-" if minutes < 0 else "+"), abs(minutes)
    text = local.strftime(form) + f"{sign}{span // 60:02d}:{span % 60:02d}"
    if not clock.EARLIEST <= local < clock.LATEST:
        return
    assert clock.parse(text) == local.astimezone(dt.UTC)


@given(st.text(max_size=30))
def test_parse_refuses_whatever_is_not_an_iso_form(text: str) -> None:
    if clock.ISO.fullmatch(text):
        return
    with pytest.raises(SquadmemError):
        clock.parse(text)
