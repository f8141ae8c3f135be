"""Bad input never crashes (exit 3) and never locks everyone out.

Each test pins a reproduction: a value, argument, settings file or tier file
that made squadmem exit 3, accept what it then refused, or write a file that
stopped every command. Every refusal is exit 2, one line naming the file or
argument, a ``hint:``, and the repository as it was.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.model import logs, uses
from squadmem.model.layout import MAX_FILE_BYTES, MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
WORF_HOT = f"{MEMORY_DIR}/hot/worf.md"
SETTINGS = f"{MEMORY_DIR}/tiers.toml"
OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-02-20T12:00:00+00:00"
LONG = "x" * 300


def refused(
    repo: GitRepo, *args: str, message: str, input: str | bytes | None = None, exact: bool = True
) -> str:
    """``squadmem ARGS`` exits 2 with ``message`` (or a first line starting with it), a hint, no change."""
    before = repo.snapshot()
    code, _, err = cli(repo, *args, input=input)  # type: ignore[arg-type]
    lines = err.splitlines()
    assert code == 2, err
    assert lines[0] == message if exact else lines[0].startswith(message), err
    assert lines[1].startswith("hint: "), err
    assert repo.snapshot() == before
    return err


def refused_session_end(repo: GitRepo, summary: str, message: str) -> str:
    """``session end`` of picard with ``summary`` on stdin is refused with a message starting ``message``."""
    args = ("session", "end", "--agent", "picard", "--summary-file", "-", "--now", NOW)
    return refused(repo, *args, message=message, input=summary, exact=False)


@pytest.fixture
def seeded(repo: GitRepo) -> GitRepo:
    """picard with a stale hot section and an expiring cold one; worf with a stale hot section."""
    repo.commit(
        "memory",
        {
            HOT: "# Hot\n\n## Stale\ns\n\n## Keep\n<!-- squadmem: pin -->\nk\n",
            COLD: "# Cold\n\n## Old note\no\n",
            WORF_HOT: "# Hot\n\n## Worf stale\nw\n",
        },
        date=OLD,
    )
    return repo


# -- numbers: tiers.toml and threshold flags ---------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e308", "99999999999999999999"])
def test_settings_refuse_nan_inf_negative_and_huge_numbers(seeded: GitRepo, value: str) -> None:
    """Crash: `nan` in tiers.toml made maintain exit 3 (and doctor called the file valid)."""
    seeded.commit("settings", {SETTINGS: f"[hot]\nstale_days = {value}\n"}, date=OLD)
    err = refused(
        seeded,
        "maintain",
        "--now",
        NOW,
        message=f"squadmem: {seeded.root / SETTINGS}:2: hot.stale_days",
        exact=False,
    )
    assert "must be a number from 0 to 36500" in err
    code, out, _ = cli(seeded, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 1 and checks["settings"]["status"] == "fail"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("log", "grace_minutes = 500000000"),
        ("hot", "max_bytes = 99999999999999999999"),
        ("promote", "window_hours = nan"),
    ],
)
def test_settings_refuse_values_that_overflow_date_arithmetic(seeded: GitRepo, key: str, value: str) -> None:
    """Crash: a huge grace_minutes raised OverflowError in every log check."""
    seeded.commit("settings", {SETTINGS: f"[{key}]\n{value}\n"}, date=OLD)
    refused(seeded, "log", "add", "x", message=f"squadmem: {seeded.root / SETTINGS}:2: {key}.", exact=False)


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--hot-stale-days", "nan"),
        ("--hot-stale-days", "inf"),
        ("--cold-ttl-days", "-1"),
        ("--promote-window-hours", "1e308"),
        ("--hot-max-bytes", "99999999999999999999999"),
    ],
)
def test_threshold_flags_refuse_nan_inf_negative_and_huge(seeded: GitRepo, flag: str, value: str) -> None:
    """Crash or silent nonsense: `--hot-stale-days nan` planned moves by comparisons that are always false."""
    refused(seeded, "maintain", "--now", NOW, flag, value, message=f"squadmem: {flag} ", exact=False)


# -- text that is not UTF-8 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["log", "add", "a\udcffb"], "squadmem: TEXT: not UTF-8"),
        (["log", "add", "--agent", "pi\udcff", "x"], "squadmem: --agent: not UTF-8"),
        (["session", "start", "--agent", "picard", "--task", "t\udcff"], "squadmem: --task: not UTF-8"),
        (["wiki", "write", "sec\udcff", "--title", "T"], "squadmem: TOPIC: not UTF-8"),
        (["context", "--agent", "picard", "--include", "\udce9"], "squadmem: --include: not UTF-8"),
    ],
)
def test_arguments_that_are_not_utf8_are_refused(seeded: GitRepo, args: list[str], message: str) -> None:
    """Crash: a non-UTF-8 byte in an argument raised UnicodeEncodeError (exit 3)."""
    refused(seeded, *args, message=message, input="text\n")


@pytest.mark.parametrize(
    "args",
    [
        ["log", "add", "-"],
        ["wiki", "write", "security", "--title", "T"],
        ["session", "end", "--agent", "picard", "--summary-file", "-"],
    ],
)
def test_standard_input_that_is_not_utf8_is_refused(seeded: GitRepo, args: list[str]) -> None:
    """Crash: non-UTF-8 bytes on stdin of log add, wiki write and session end made them exit 3."""
    if args[0] == "session":
        assert cli(seeded, "session", "start", "--agent", "picard", "--task", "t", "--now", NOW)[0] == 0
    refused(seeded, *args, message="squadmem: standard input: not UTF-8 (byte 2)", input=b"ok\xff\xfe\n")


# -- names and flags ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["log", "add", "--agent", LONG, "x"],
        ["context", "--agent", LONG],
        ["session", "start", "--agent", LONG, "--task", "t"],
        ["wiki", "write", LONG, "--title", "T"],
        ["demote", "picard/stale", "--to", "wiki", "--topic", LONG],
    ],
)
def test_names_over_100_characters_are_refused(seeded: GitRepo, args: list[str]) -> None:
    """Crash: an agent or topic name over 255 bytes made the file name too long for the OS (exit 3)."""
    what = "topic" if args[0] in ("wiki", "demote") else "agent"
    refused(
        seeded,
        *args,
        message=f"squadmem: invalid {what} name '{'x' * 40}...(300 characters)'",
        input="e\n",
    )


def test_restore_at_a_nul_byte_is_refused(seeded: GitRepo) -> None:
    """Crash: ``restore --at`` with a NUL byte exited 3 ("embedded null byte"), drawn by the fuzz test."""
    refused(seeded, "restore", "picard/stale", "--at", "HEAD\0", message="squadmem: --at: holds a NUL byte")


def _text_params() -> list[tuple[list[str], str]]:
    """Every command with every text or path option and argument: (its arguments, the name shown)."""
    import click

    from squadmem.cli.app import app

    found = []

    def text(param: click.Parameter) -> bool:
        flag = isinstance(param, click.Option) and param.is_flag
        return not flag and isinstance(param.type, click.types.StringParamType | click.Path)

    def walk(group: click.Group, path: list[str]) -> None:
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                walk(command, [*path, name])
                continue
            for param in filter(text, command.params):
                options: list[str] = []
                positional: list[str] = []
                for other in command.params:
                    if other is not param and not (other.required and text(other)):
                        continue
                    value = "a\0b" if other is param else "x"
                    if isinstance(other, click.Option):
                        options += [other.opts[0], value]
                    else:
                        positional.append(value)
                shown = param.opts[0] if isinstance(param, click.Option) else (param.name or "").upper()
                args = [*path, name, *options, *(["--", *positional] if positional else [])]
                found.append((args, shown))

    walk(app, [])
    return found


@pytest.mark.parametrize(
    ("args", "shown"), _text_params(), ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_a_nul_byte_in_any_argument_is_refused(seeded: GitRepo, args: list[str], shown: str) -> None:
    """No input exits 3: a NUL byte in any text or path option or argument of any command exits 2 in
    one line naming it (os and git refuse NUL bytes in arguments and paths: "embedded null byte")."""
    refused(seeded, *args, message=f"squadmem: {shown}: holds a NUL byte", input="e\n")


def test_a_nul_byte_in_dash_c_is_refused(seeded: GitRepo) -> None:
    """Crash: ``-C`` with a NUL byte raised ValueError in click's path check (a traceback)."""
    before = seeded.snapshot()
    from click.testing import CliRunner

    from squadmem.cli.app import app

    result = CliRunner().invoke(app, ["-C", f"{seeded.root}\0", "list"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "squadmem: -C: holds a NUL byte",
        "hint: give squadmem text without NUL bytes",
    ]
    assert seeded.snapshot() == before


@pytest.mark.parametrize(
    "flags",
    [f"kind=decision topic={LONG}", "id=../../x", "topic=../../x", "id=Bad/Id", "pin pin", "id=a id=b"],
    ids=["long-topic", "id-path", "topic-path", "id-slash", "pin-twice", "id-twice"],
)
def test_a_bad_flag_found_in_a_file_is_reported_and_only_its_owner_left_out(
    seeded: GitRepo, flags: str
) -> None:
    """Crash or forgery: a `topic=` flag over 255 bytes crashed every maintain; `id=../../x` was accepted
    and verify then rejected squadmem's own move; `topic=../../x`, `id=Bad/Id` and duplicate flags passed."""
    seeded.commit("flag", {COLD: f"# Cold\n\n## Old note\n<!-- squadmem: {flags} -->\no\n"}, date=OLD)
    base = seeded.head()
    code, _, err = cli(seeded, "maintain", "--now", NOW)
    assert code == 0, err
    assert err.startswith(f"squadmem: warning: {COLD}: ") and "(picard's memory is left out)" in err
    assert "hint: flags are: id=NAME pin kind=decision|fact topic=NAME, each at most once" in err
    assert seeded.git("log", "--format=%s", f"{base}..HEAD").splitlines() == [
        "memory(worf): refresh index",
        'memory(worf): archive "Worf stale" hot → archive',
    ]
    assert seeded.git("diff", "--name-only", base, "HEAD", "--", f"{MEMORY_DIR}/hot/picard.md", COLD) == ""
    code, out, _ = cli(seeded, "verify", "--json", f"{base}..HEAD")
    result = json.loads(out)
    assert code == 1 and all(m["verified"] for m in result["moves"])  # the moves are proved;
    assert [v["file"] for v in result["violations"]] == [COLD]  # the bad file at the tip is reported
    assert cli(seeded, "context", "--agent", "worf")[0] == 0
    refused(seeded, "context", "--agent", "picard", message=f"squadmem: {COLD}: ", exact=False)


@pytest.mark.parametrize("flags", ["id=../../x", "topic=../../x", "id=Bad/Id", "kind=fact kind=fact"])
def test_squadmem_refuses_to_write_a_bad_flag(seeded: GitRepo, flags: str) -> None:
    """Forgery: `wiki write` and `session end` wrote flag comments that every later command refused."""
    entry = f"## Rule\n<!-- squadmem: {flags} -->\ntext\n"
    refused(
        seeded, "wiki", "write", "security", message="squadmem: the wiki entry: ", input=entry, exact=False
    )
    assert cli(seeded, "session", "start", "--agent", "picard", "--task", "t", "--now", NOW)[0] == 0
    summary = f"<!-- squadmem: {flags} -->\nsummary\n"
    refused_session_end(seeded, summary, message="squadmem: the summary: ")


# -- --now ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("9999-12-31", "squadmem: --now '9999-12-31': out of range"),
        ("1900-01-01", "squadmem: --now '1900-01-01': out of range"),
        ("2026-02-20 12:00 EST", "squadmem: --now '2026-02-20 12:00 EST': not a date in an ISO form"),
        ("2026-02-20T12:00 GMT+3", "squadmem: --now '2026-02-20T12:00 GMT+3': not a date in an ISO form"),
        ("12/03/2026", "squadmem: --now '12/03/2026': not a date in an ISO form"),
        ("2026-02-30", "squadmem: --now '2026-02-30': not a date"),
    ],
)
def test_now_out_of_range_or_not_iso_is_refused(seeded: GitRepo, value: str, message: str) -> None:
    """Crash: `verify --now 9999-12-31` overflowed (exit 3); zone abbreviations and day-month orders
    were guessed."""
    refused(seeded, "verify", "--now", value, message=message)
    refused(seeded, "report", "--now", value, message=message)


@pytest.mark.parametrize("value", ["2026-02-20T12:00:00Z", "2026-02-20T14:00:00+02:00", "2026-02-20T12:00"])
def test_now_accepts_offsets_and_utc(seeded: GitRepo, value: str) -> None:
    code, out, _ = cli(seeded, "report", "--json", "--now", value)
    assert code == 0 and json.loads(out)["now"] == "2026-02-20T12:00:00Z"


def test_log_add_refuses_a_future_day(seeded: GitRepo) -> None:
    """Bad write: `log add --now 9999-12-31` created a log the hooks then refused forever."""
    tomorrow = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).date().isoformat()
    refused(
        seeded,
        "log",
        "add",
        "--now",
        tomorrow,
        "x",
        message=f"squadmem: the log of {tomorrow} would be dated in the future (in UTC)",
    )
    refused(
        seeded, "log", "add", "--now", "9999-12-31", "x", message="squadmem: --now '9999-12-31': out of range"
    )
    assert not (seeded.root / MEMORY_DIR / "log").exists()


def test_a_use_in_the_future_is_refused(seeded: GitRepo) -> None:
    """A future `touch` rode on every commit forever; then it was recorded at the clock, unsaid."""
    refused(
        seeded,
        "touch",
        "picard/stale",
        "--now",
        "2999-01-01",
        message="squadmem: --now '2999-01-01': after the clock; a use is recorded when it happened,"
        " never in the future",
    )
    assert not uses.pending(seeded.root / ".git" / "squadmem")


def test_a_future_use_already_on_disk_counts_from_when_it_was_written(seeded: GitRepo) -> None:
    """A pending-uses file holding a use in the future (an older squadmem, a hand edit) is settled too."""
    state = seeded.root / ".git" / "squadmem"
    state.mkdir(parents=True)
    (state / uses.FILE).write_text(
        json.dumps({"version": 1, "uses": {"picard/stale": "9999-01-01T00:00:00+00:00"}})
    )
    assert uses.pending(state)["picard/stale"] <= dt.datetime.now(dt.UTC)
    assert uses.settle(state, {"picard/stale": dt.datetime.now(dt.UTC)}) == ["picard/stale"]


# -- never write what you refuse to read -------------------------------------------------------------


def filler(n_bytes: int, title: str = "Bulk") -> str:
    """A section of about ``n_bytes`` bytes."""
    line = "y" * 99 + "\n"
    return f"## {title}\n" + line * (n_bytes // 100)


def test_maintain_leaves_a_section_where_it_is_rather_than_overfill_the_archive(seeded: GitRepo) -> None:
    """Lockout: maintain wrote a 1.2 MB archive file, over the limit every command then refused."""
    archive = "# Archive\n\n" + filler(MAX_FILE_BYTES - 1000)
    pinned = "# Hot\n\n## Keep\n<!-- squadmem: pin -->\nk\n"
    seeded.commit(
        "archive", {ARCHIVE: archive, COLD: "# Cold\n\n" + filler(5000, "Old note"), HOT: pinned}, date=OLD
    )
    base = seeded.head()
    code, out, err = cli(seeded, "maintain", "--now", NOW)
    assert code == 0, err
    assert f"warning: picard/old-note stays in {COLD}: it cannot move to archive ({ARCHIVE} would be" in out
    assert "over the 1 MiB limit for a tier file)" in out
    assert seeded.read(ARCHIVE) == archive
    assert "## Old note" in seeded.read(COLD)
    assert 'memory(worf): archive "Worf stale" hot → archive' in seeded.git(
        "log", "--format=%s", f"{base}..HEAD"
    )
    assert cli(seeded, "list")[0] == 0
    assert cli(seeded, "verify", f"{base}..HEAD")[0] == 0
    refused(
        seeded,
        "demote",
        "picard/old-note",
        message=f"squadmem: picard/old-note cannot move to {ARCHIVE}: {ARCHIVE} would be",
        exact=False,
    )


def test_writers_refuse_a_nul_byte_or_an_entry_over_the_limit(seeded: GitRepo) -> None:
    """Lockout: a NUL byte or a 1.5 MB entry from session end, wiki write or log add stopped every command."""
    huge = "z" * (MAX_FILE_BYTES + 500_000)
    log = logs.title(dt.datetime.now(dt.UTC).date())
    refused(seeded, "log", "add", "-", message="squadmem: .squad/memory/log/", input=huge, exact=False)
    refused(seeded, "log", "add", "-", message="squadmem: .squad/memory/log/", input="a\0b", exact=False)
    refused(
        seeded,
        "wiki",
        "write",
        "security",
        "--title",
        "T",
        message="squadmem: the wiki entry holds a NUL byte",
        input="a\0b",
    )
    refused(
        seeded,
        "wiki",
        "write",
        "security",
        "--title",
        "T",
        message=f"squadmem: {MEMORY_DIR}/wiki/security.md: squadmem will not write it: ",
        input=huge,
        exact=False,
    )
    assert cli(seeded, "session", "start", "--agent", "picard", "--task", "t", "--now", NOW)[0] == 0
    for summary in ("a\0b\n", huge):
        refused_session_end(seeded, summary, message=f"squadmem: {COLD}: squadmem will not write it: ")
    assert log  # the title a new log would start with: nothing was written


# -- one bad file degrades only what depends on it ---------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (
            b"## A\n" + b"a" * MAX_FILE_BYTES,
            f"{ARCHIVE}: {MAX_FILE_BYTES + 5} bytes is over the 1 MiB limit for a tier file",
        ),
        (b"## A\n\0\n", f"{ARCHIVE}: holds a NUL byte"),
        (b"## A\n\xff\n", f"{ARCHIVE}: not UTF-8 (byte 5)"),
    ],
    ids=["over-limit", "nul", "not-utf8"],
)
def test_one_unreadable_file_leaves_out_only_its_owner(seeded: GitRepo, raw: bytes, problem: str) -> None:
    """Lockout: one bad tier file made every command, for every agent, exit 2."""
    seeded.commit("bad archive", {ARCHIVE: raw}, date=OLD)
    code, out, err = cli(seeded, "context", "--agent", "worf")
    assert code == 0 and "## Worf stale" in out
    assert f"squadmem: warning: {problem} (picard's memory is left out)" in err
    assert cli(seeded, "log", "add", "--agent", "worf", "still logging")[0] == 0
    code, out, _ = cli(seeded, "list", "--json")
    assert code == 0 and {s["id"] for s in json.loads(out)["sections"]} == {"worf/worf-stale"}
    seeded.git("add", "-A")
    seeded.git("commit", "-q", "--no-verify", "-m", "log", date=NOW)
    refused(seeded, "context", "--agent", "picard", message=f"squadmem: {problem}")
    refused(seeded, "promote", "picard/old-note", message=f"squadmem: {problem}")
    refused(seeded, "restore", "picard/old-note", "--at", "HEAD", message=f"squadmem: {problem}")
    base = seeded.head()
    assert cli(seeded, "maintain", "--now", NOW)[0] == 0
    assert set(seeded.git("diff", "--name-only", base, "HEAD").split()) == {
        WORF_HOT,
        f"{MEMORY_DIR}/archive/worf.md",
    }
    code, out, _ = cli(seeded, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 1 and checks["tier files"]["status"] == "fail"
    assert checks["tier files"]["detail"].startswith(problem)


def test_verify_reports_a_tier_file_it_cannot_read_at_the_tip(seeded: GitRepo) -> None:
    """A bad flag or NUL byte committed with --no-verify passed verify and the pre-push hook."""
    seeded.commit("bad", {COLD: "## A\n<!-- squadmem: id=../../x -->\n", ARCHIVE: b"## B\n\0\n"}, date=OLD)
    code, out, _ = cli(seeded, "verify", "--now", NOW)
    tip = seeded.head()[:7]
    assert code == 1
    assert (
        f"{tip} {ARCHIVE}: holds a NUL byte; tier files are UTF-8 Markdown text: remove the NUL byte" in out
    )
    assert f"{tip} {COLD}: id='../../x': names are letters" in out
