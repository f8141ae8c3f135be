"""`squadmem verify`: logs by committer date, pure moves, index refreshes, budgets at the tip.

Move commits are built by hand here (files written, committed with the
trailers), good ones and forged ones, so the checks do not lean on the code
that makes moves.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GitRepo, bare_remote, run_squadmem, squadmem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.cli.app import app

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"
WIKI = ".squad/memory/wiki/security.md"
LOG = ".squad/memory/log/2026-03-01.md"
D0 = "2026-03-01T09:00:00+00:00"
D1 = "2026-03-01T10:00:00+00:00"

AUTH = "## Auth tokens\nUse short-lived tokens.\n\n"
DEPLOY = "## Deploy\nBlue/green, ```not a fence``` here.\n\n### Rollback\nKeep the last two.\n\n"
INDEX = "## Index → Deeper Tiers\n- picard/old-thing (cold)\n"
OLD = "## Old thing\nhistory\n\n"
HOT_HEAD = "# Hot memory: picard\n\n"
COLD_HEAD = "# Cold memory: picard\n\n"
HOT0 = HOT_HEAD + AUTH + DEPLOY + INDEX
COLD0 = COLD_HEAD + OLD

runner = CliRunner()


def verify(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["-C", str(repo.root), "verify", *args])
    return result.exit_code, result.stdout, result.stderr


def message(trailers: str, subject: str = 'memory(picard): demote "Auth tokens" hot → cold') -> str:
    return f"{subject}\n\nunused 9 d > 7 d\n\n{trailers}"


def move(sid: str, source: str, destination: str) -> str:
    return message(
        f"Squad-Memory-Move: {sid} {source} -> {destination}\nSquad-Memory-Reason: stale 9d > 7d\n"
    )


def template(tier: str, name: str) -> str:
    root = Path(__file__).resolve().parents[1]
    return (root / "templates" / f"{tier}.md").read_text("utf-8").format(name=name)


@pytest.fixture
def mem(repo: GitRepo) -> GitRepo:
    repo.commit("memory", {HOT: HOT0, COLD: COLD0}, date=D0)
    return repo


def violations(repo: GitRepo, *args: str) -> list[str]:
    code, out, err = verify(repo, *args)
    lines = out.strip().splitlines()
    assert code == (1 if len(lines) > 1 else 0), (out, err)
    return lines[:-1]


# -- good moves ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("trailer", "files"),
    [
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
            id="hot-to-cold",
        ),
        pytest.param(
            ("picard/old-thing", "cold", "hot"),
            {HOT: HOT_HEAD + AUTH + DEPLOY + OLD + INDEX, COLD: COLD_HEAD},
            id="cold-to-hot-before-index",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "archive"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, ARCHIVE: template("archive", "picard") + AUTH},
            id="to-a-new-file-from-its-template",
        ),
        pytest.param(
            ("picard/old-thing", "cold", "wiki:security"),
            {COLD: COLD_HEAD, WIKI: template("wiki", "security") + OLD},
            id="cold-to-wiki",
        ),
        pytest.param(
            ("picard/deploy", "hot", "cold"),
            {HOT: HOT_HEAD + AUTH + INDEX, COLD: COLD0 + DEPLOY},
            id="children-move-with-their-section",
        ),
    ],
)
def test_verify_good_moves(mem: GitRepo, trailer: tuple[str, str, str], files: dict[str, str]) -> None:
    mem.commit(move(*trailer), files, date=D1)
    code, out, _ = verify(mem)
    assert (code, out) == (
        0,
        "verified 2 commits (1 moves, 0 index refreshes, 0 log changes): no violations\n",
    )


def test_verify_move_adds_only_newlines_where_needed(repo: GitRepo) -> None:
    """A source section without a final newline, and a destination without one, gain one \\n each."""
    repo.commit("memory", {HOT: HOT_HEAD + "## A\na", COLD: COLD_HEAD + "## B\nb"}, date=D0)
    repo.commit(
        move("picard/a", "hot", "cold"), {HOT: HOT_HEAD, COLD: COLD_HEAD + "## B\nb\n## A\na\n"}, date=D1
    )
    assert violations(repo) == []


# -- forged moves ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("trailer", "files", "expected"),
    [
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH.replace("short", "long")},
            [f"{COLD}: picard/auth-tokens arrived with content different from what left {HOT}"],
            id="a-byte-changed-in-transit",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY.replace("two", "three") + INDEX, COLD: COLD0 + AUTH},
            [f"{HOT}: changed more than the removal of picard/auth-tokens"],
            id="another-section-touched",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH, "notes.txt": "sneaky\n"},
            [f"notes.txt: changed by a move commit, which may change only {HOT} and {COLD}"],
            id="an-extra-file-changed",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH, LOG: "# log\n"},
            [f"{LOG}: changed by a move commit, which may change only {HOT} and {COLD}"],
            id="a-log-changed-too",
        ),
        pytest.param(
            ("picard/deploy", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
            [
                f"{HOT}: changed more than the removal of picard/deploy",
                f"{COLD}: the section that arrived has the id picard/auth-tokens, not picard/deploy",
                f"{COLD}: picard/deploy arrived with content different from what left {HOT}",
            ],
            id="wrong-id",
        ),
        pytest.param(
            ("picard/nope", "hot", "cold"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
            [
                f"{COLD}: the section that arrived has the id picard/auth-tokens, not picard/nope",
                f"{HOT}: names picard/nope, which this file does not hold before the move",
            ],
            id="unknown-id",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {COLD: COLD0 + AUTH},
            [
                f"{HOT}: changed more than the removal of picard/auth-tokens",
                f"{COLD}: the section that arrived has the id picard/auth-tokens-2, not picard/auth-tokens",
            ],
            id="copied-not-moved",
        ),
        pytest.param(
            ("picard/old-thing", "cold", "hot"),
            {HOT: HOT0 + OLD, COLD: COLD_HEAD},
            [
                f"{HOT}: changed more than the arrival of picard/old-thing",
                f"{HOT}: the section that arrived has the id picard/index-deeper-tiers, not picard/old-thing",
                f"{HOT}: picard/old-thing arrived with content different from what left {COLD}",
            ],
            id="after-the-index",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "cold"),
            {HOT: "# Hot memory: PICARD\n\n" + DEPLOY + INDEX, COLD: COLD0 + AUTH},
            [f"{HOT}: changed more than the removal of picard/auth-tokens"],
            id="header-changed",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "archive"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, ARCHIVE: "# My own header\n\n" + AUTH},
            [f"{ARCHIVE}: its header changed in a move commit"],
            id="new-file-not-from-template",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "hot"),
            {HOT: HOT_HEAD + DEPLOY + AUTH + INDEX},
            [f"{HOT}: moves a section to its own tier"],
            id="to-its-own-tier",
        ),
        pytest.param(
            ("picard/auth-tokens", "hot", "attic"),
            {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
            ["-: Squad-Memory-Move picard/auth-tokens hot -> attic: unknown tier or id"],
            id="unknown-tier",
        ),
    ],
)
def test_verify_forged_moves(
    mem: GitRepo, trailer: tuple[str, str, str], files: dict[str, str], expected: list[str]
) -> None:
    sha = mem.commit(move(*trailer), files, date=D1)
    found = violations(mem)
    assert sorted(found) == sorted(f"{sha[:7]} {line}" for line in expected)


def test_verify_malformed_move_trailer(mem: GitRepo) -> None:
    sha = mem.commit(
        message("Squad-Memory-Move: picard/auth-tokens to cold\n"), {COLD: COLD0 + "x\n"}, date=D1
    )
    assert violations(mem) == [
        f"{sha[:7]} -: Squad-Memory-Move 'picard/auth-tokens to cold': not '<id> <from> -> <to>'"
    ]


def test_verify_two_moves_in_one_commit(mem: GitRepo) -> None:
    trailers = (
        "Squad-Memory-Move: picard/auth-tokens hot -> cold\nSquad-Memory-Move: picard/deploy hot -> cold\n"
    )
    sha = mem.commit(message(trailers), {HOT: HOT_HEAD + INDEX, COLD: COLD0 + AUTH + DEPLOY}, date=D1)
    assert violations(mem) == [
        f"{sha[:7]} -: carries more than one Squad-Memory-Move/-Index trailer: one per commit"
    ]


# -- restore ---------------------------------------------------------------------------------------
def test_verify_restore(mem: GitRepo) -> None:
    kept = mem.head()
    mem.commit(
        "drop auth\n\nSquad-Memory-Delete: picard/auth-tokens", {HOT: HOT_HEAD + DEPLOY + INDEX}, date=D1
    )
    trailers = f"Squad-Memory-Move: picard/auth-tokens history -> hot\nSquad-Memory-Restore: {kept}\n"
    mem.commit(message(trailers, "memory(picard): restore"), {HOT: HOT_HEAD + DEPLOY + AUTH + INDEX}, date=D1)
    assert violations(mem) == []


def test_verify_restore_forged_text(mem: GitRepo) -> None:
    kept = mem.head()
    mem.commit(
        "drop auth\n\nSquad-Memory-Delete: picard/auth-tokens", {HOT: HOT_HEAD + DEPLOY + INDEX}, date=D1
    )
    trailers = f"Squad-Memory-Move: picard/auth-tokens history -> hot\nSquad-Memory-Restore: {kept[:10]}\n"
    forged = AUTH.replace("short", "eternal")
    sha = mem.commit(message(trailers), {HOT: HOT_HEAD + DEPLOY + forged + INDEX}, date=D1)
    assert violations(mem) == [
        f"{sha[:7]} {HOT}: the restored section is not a section's text at {kept[:10]}"
    ]


def test_verify_restore_needs_a_known_rev(mem: GitRepo) -> None:
    mem.commit(
        "drop auth\n\nSquad-Memory-Delete: picard/auth-tokens", {HOT: HOT_HEAD + DEPLOY + INDEX}, date=D1
    )
    trailers = "Squad-Memory-Move: picard/auth-tokens history -> hot\nSquad-Memory-Restore: deadbeef\n"
    sha = mem.commit(message(trailers), {HOT: HOT_HEAD + DEPLOY + AUTH + INDEX}, date=D1)
    assert violations(mem) == [
        f"{sha[:7]} {HOT}: Squad-Memory-Restore names deadbeef, which this repository lacks"
    ]


# -- index refreshes -------------------------------------------------------------------------------
def index_commit(repo: GitRepo, files: dict[str, str]) -> str:
    return repo.commit(
        message("Squad-Memory-Index: picard\n", "memory(picard): refresh index"), files, date=D1
    )


@pytest.mark.parametrize(
    "hot",
    [
        pytest.param(
            HOT_HEAD + AUTH + DEPLOY + "## Index → Deeper Tiers\n- picard/x (archive)\n", id="rewritten"
        ),
        pytest.param(HOT_HEAD + AUTH + DEPLOY, id="removed"),
    ],
)
def test_verify_index_refresh_good(mem: GitRepo, hot: str) -> None:
    index_commit(mem, {HOT: hot})
    code, out, _ = verify(mem)
    assert (code, out) == (
        0,
        "verified 2 commits (0 moves, 1 index refreshes, 0 log changes): no violations\n",
    )


def test_verify_index_added_as_last_section(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT_HEAD + AUTH.rstrip("\n")}, date=D0)
    index_commit(repo, {HOT: HOT_HEAD + AUTH.rstrip("\n") + "\n" + INDEX})
    assert violations(repo) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {HOT: HOT_HEAD + AUTH.replace("short", "long") + DEPLOY + INDEX},
            [f"{HOT}: an index commit changed more than the Index → Deeper Tiers section"],
            id="another-section",
        ),
        pytest.param(
            {HOT: HOT_HEAD + AUTH + INDEX + DEPLOY},
            [f"{HOT}: the Index → Deeper Tiers section must be the file's last section"],
            id="index-not-last",
        ),
        pytest.param(
            {HOT: HOT0.replace("old-thing", "other"), COLD: COLD0 + "more\n"},
            [f"{COLD}: changed by an index commit, which may change only {HOT}"],
            id="another-file",
        ),
    ],
)
def test_verify_index_refresh_forged(mem: GitRepo, files: dict[str, str], expected: list[str]) -> None:
    sha = index_commit(mem, files)
    assert violations(mem) == [f"{sha[:7]} {line}" for line in expected]


# -- budgets at the tip ----------------------------------------------------------------------------
def test_verify_budget_at_tip(mem: GitRepo) -> None:
    big = HOT0 + "x" * 5000 + "\n"
    mem.commit("big", {HOT: big}, date=D1)
    tip = mem.head()[:7]
    assert violations(mem) == [
        f"{tip} {HOT}: {len(big.encode())} bytes > 4096 (hot.max_bytes); run: squadmem maintain"
    ]
    mem.commit("fixed", {HOT: HOT0}, date=D1)
    assert violations(mem) == []


# -- logs ------------------------------------------------------------------------------------------
def test_verify_logs_by_each_commit_date(repo: GitRepo) -> None:
    repo.commit("log", {LOG: "# log\n"}, date=D0)
    repo.commit("append on its day", {LOG: "# log\n- a\n"}, date="2026-03-01T23:00:00+00:00")
    late = repo.commit("append late", {LOG: "# log\n- a\n- b\n"}, date="2026-03-02T00:10:00+00:00")
    day2 = "2026-03-02T10:00:00+00:00"
    moved = repo.commit(
        "rename", {LOG: None, ".squad/memory/log/2026-03-02.md": "# log\n- a\n- b\n"}, date=day2
    )
    bad = repo.commit("bad", {".squad/memory/log/2026-02-30.md": "x\n"}, date=day2)
    end = "after its day ended 2026-03-02 00:00 UTC; a past day's log is frozen"
    assert violations(repo) == [
        f"{bad[:7]} .squad/memory/log/2026-02-30.md: 2026-02-30 is not a real date; "
        "name daily logs log/YYYY-MM-DD.md",
        f"{moved[:7]} {LOG}: renamed to .squad/memory/log/2026-03-02.md {end}",
        f"{late[:7]} {LOG}: changed {end} (add to today's log instead)",
    ]
    repo.write(".squad/memory/tiers.toml", "[log]\ngrace_minutes = 15\n")
    assert len(violations(repo)) == 3  # the work tree's settings judge nothing: each parent's do


def test_verify_union_merge_of_a_past_log(repo: GitRepo) -> None:
    """Two branches append to one day's log on that day; merging them later (merge=union) is not an edit."""
    repo.commit("log", {".gitattributes": ".squad/memory/log/*.md merge=union\n", LOG: "# log\n"}, date=D0)
    repo.git("switch", "-q", "-c", "side")
    repo.commit("theirs", {LOG: "# log\n- theirs\n"}, date=D1)
    repo.git("switch", "-q", "main")
    repo.commit("ours", {LOG: "# log\n- ours\n"}, date=D1)
    repo.git("merge", "-q", "--no-edit", "--no-ff", "side", date="2026-03-03T09:00:00+00:00")
    assert repo.read(LOG) == "# log\n- ours\n- theirs\n"
    assert violations(repo) == []


def test_verify_evil_merge_of_a_past_log(repo: GitRepo) -> None:
    repo.commit("log", {LOG: "# log\n"}, date=D0)
    repo.git("switch", "-q", "-c", "side")
    repo.commit("theirs", {"other.txt": "x\n"}, date=D1)
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-commit", "--no-ff", "side")
    repo.write(LOG, "# rewritten\n")
    repo.git("add", LOG)
    repo.git("commit", "-q", "--no-verify", "-m", "merge", date="2026-03-03T09:00:00+00:00")
    assert violations(repo) == [
        f"{repo.head()[:7]} {LOG}: changed by a merge after its day ended 2026-03-02 00:00 UTC: "
        "a merge of a past day's log must keep every parent's lines, in order, and add none"
    ]


# -- ranges, output, errors ------------------------------------------------------------------------
def test_verify_default_range_is_upstream_else_all(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("log", {LOG: "# log\n"}, date=D0)
    old = repo.commit("late edit", {LOG: "# log\n- late\n"}, date="2026-03-05T09:00:00+00:00")
    assert violations(repo) == [
        f"{old[:7]} {LOG}: changed after its day ended 2026-03-02 00:00 UTC; "
        "a past day's log is frozen (add to today's log instead)"
    ]
    bare_remote(repo, tmp_path)
    repo.git("push", "-q", "--no-verify", "-u", "origin", "main")
    repo.commit("fine", {"a.txt": "a\n"}, date=D1)
    code, out, _ = verify(repo)
    assert (code, out) == (
        0,
        "verified 1 commit (0 moves, 0 index refreshes, 0 log changes): no violations\n",
    )
    assert len(violations(repo, "HEAD")) == 1


def test_verify_json(mem: GitRepo) -> None:
    sha = mem.commit(
        move("picard/auth-tokens", "hot", "cold"),
        {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
        date=D1,
    )
    code, out, _ = verify(mem, "--json", "HEAD~1..HEAD")
    data = json.loads(out)
    assert code == 0
    assert data["ok"] is True and data["commits"] == 1 and data["tips"] == [sha]
    assert data["moves"] == [
        {
            "commit": sha[:7],
            "id": "picard/auth-tokens",
            "title": "Auth tokens",
            "source": "hot",
            "destination": "cold",
            "reason": "stale 9d > 7d",
            "verified": True,
            "restore": None,
        }
    ]


def test_verify_future_commit_against_now(mem: GitRepo) -> None:
    code, out, _ = verify(mem, "--now", "2026-03-01T07:00:00Z")
    assert code == 1
    assert (
        out.splitlines()[0]
        == f"{mem.head()[:7]} -: committed 2026-03-01 09:00 UTC, after now: a forged date?"
    )
    assert verify(mem, "--now", "2026-03-01T08:30:00Z")[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuchbranch..HEAD",), "squadmem: range 'nosuchbranch..HEAD': git does not know it"),
        (("--", "--output=x"), "squadmem: range '--output=x': not a revision"),
        (("--now", "soon"), "squadmem: --now 'soon': not a date in an ISO form"),
    ],
)
def test_verify_bad_input(mem: GitRepo, args: tuple[str, ...], message: str) -> None:
    before = mem.snapshot()
    done = run_squadmem(mem.root, "verify", *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == message
    assert done.stderr.splitlines()[1].startswith("hint: ")
    assert mem.snapshot() == before


def test_verify_empty_repository(repo: GitRepo) -> None:
    done = run_squadmem(repo.root, "verify")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "squadmem: HEAD has no commits yet: nothing to verify"


# -- pre-push through the plain shims --------------------------------------------------------------
def push(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", *args], cwd=repo.root, env=dict(os.environ), text=True, capture_output=True
    )


def test_verify_pre_push_hook_stops_a_bad_push(repo: GitRepo, tmp_path: Path) -> None:
    assert run_squadmem(repo.root, "init", "--agent", "picard", date=D0).returncode == 0
    bare_remote(repo, tmp_path)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "-m", "init", date=D0)
    repo.commit("log", {LOG: "# log\n"}, date=D0)
    first = push(repo, "-u", "origin", "main")
    assert first.returncode == 0, first.stderr
    repo.write(LOG, "# log, edited\n")
    repo.git("add", LOG)
    repo.git("commit", "-q", "--no-verify", "-m", "edit", date="2026-03-03T09:00:00+00:00")
    refused = push(repo, "origin", "main")
    assert refused.returncode != 0
    assert f"{repo.head()[:7]} {LOG}: changed after its day ended" in refused.stdout + refused.stderr
    assert repo.git("rev-parse", "origin/main").strip() != repo.head()
    new_branch = push(repo, "origin", "HEAD~1:refs/heads/clean")
    assert new_branch.returncode == 0, new_branch.stderr


# -- property: a move built by the contract verifies, any forged byte does not ---------------------
titles = st.sampled_from(["Alpha", "Beta", "Gamma", "Delta", "Epsilon"])
# Bodies that cannot open a fence or underline a setext heading, so each generated part is one section.
bodies = st.text(st.sampled_from("ab \n*.`"), max_size=40).map(lambda s: re.sub("`+", "`", s))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(titles, bodies), min_size=1, max_size=4, unique_by=lambda t: t[0]),
    st.lists(st.tuples(titles, bodies), max_size=3, unique_by=lambda t: t[0]),
    st.data(),
)
def test_verify_property_contract_moves(
    tmp_path_factory: pytest.TempPathFactory,
    hot_sections: list[tuple[str, str]],
    cold_sections: list[tuple[str, str]],
    data: st.DataObject,
) -> None:
    cold_sections = [(f"Cold {t}", b) for t, b in cold_sections]
    root = tmp_path_factory.mktemp("prop")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    repo = GitRepo(root)

    def section(title: str, body: str) -> str:
        return f"## {title}\n{body.strip(chr(10))}\n\n" if body.strip() else f"## {title}\n"

    hot_parts = [section(*s) for s in hot_sections]
    cold_text = COLD_HEAD + "".join(section(*s) for s in cold_sections)
    repo.commit("memory", {HOT: HOT_HEAD + "".join(hot_parts) + INDEX, COLD: cold_text}, date=D0)
    pick = data.draw(st.integers(0, len(hot_parts) - 1))
    moved = hot_parts[pick]
    sid = "picard/" + hot_sections[pick][0].lower()
    rest = HOT_HEAD + "".join(p for n, p in enumerate(hot_parts) if n != pick) + INDEX
    forge = data.draw(st.booleans())
    arrived = moved.replace("## ", "## X", 1) if forge else moved
    repo.commit(move(sid, "hot", "cold"), {HOT: rest, COLD: cold_text + arrived}, date=D1)
    found = violations(repo)
    assert (found != []) == forge, found


def test_verify_restore_of_a_full_sha_that_is_not_a_commit(mem: GitRepo) -> None:
    blob = mem.git("rev-parse", f"HEAD:{HOT}").strip()
    mem.commit(
        "drop auth\n\nSquad-Memory-Delete: picard/auth-tokens", {HOT: HOT_HEAD + DEPLOY + INDEX}, date=D1
    )
    trailers = f"Squad-Memory-Move: picard/auth-tokens history -> hot\nSquad-Memory-Restore: {blob}\n"
    sha = mem.commit(message(trailers), {HOT: HOT_HEAD + DEPLOY + AUTH + INDEX}, date=D1)
    assert violations(mem) == [
        f"{sha[:7]} {HOT}: Squad-Memory-Restore names {blob}, which this repository lacks"
    ]


def test_verify_shallow_clone_cannot_prove_a_boundary_move(mem: GitRepo, tmp_path: Path) -> None:
    """A move at a shallow clone's boundary has no parent to compare with: never assumed pure, and
    the refusal names the fix."""
    mem.commit(
        move("picard/auth-tokens", "hot", "cold"),
        {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
        date=D1,
    )
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{mem.root}", str(clone)], check=True)
    result = runner.invoke(app, ["-C", str(clone), "verify", "HEAD"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        f"squadmem: range 'HEAD' reaches past this shallow clone's boundary at {mem.head()[:7]},"
        " whose parents it lacks: unshallow with `git fetch --unshallow`"
    )


def test_verify_a_range_past_a_shallow_boundary_says_unshallow(mem: GitRepo, tmp_path: Path) -> None:
    """Regression: `verify` over a range reaching past a shallow clone's boundary reported false
    violations (a boundary commit judged as if it had no parent) and no hint to unshallow; it
    refuses, exit 2, naming `git fetch --unshallow`, and changes nothing. Inside the clone, and
    in the full clone, the same history verifies."""
    mem.commit(
        move("picard/auth-tokens", "hot", "cold"),
        {HOT: HOT_HEAD + DEPLOY + INDEX, COLD: COLD0 + AUTH},
        date=D1,
    )
    mem.commit("unrelated", {"a.txt": "a\n"}, date=D1)
    mem.commit("unrelated", {"b.txt": "b\n"}, date=D1)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{mem.root}", str(clone)], check=True)
    shallow = GitRepo(clone)
    before = shallow.snapshot()
    result = runner.invoke(app, ["-C", str(clone), "verify", "HEAD", "--now", "2026-03-02T00:00:00Z"])
    assert result.exit_code == 2, result.stdout
    first, hint = result.stderr.splitlines()[:2]
    assert first.endswith("whose parents it lacks: unshallow with `git fetch --unshallow`")
    assert first.startswith("squadmem: range 'HEAD' reaches past this shallow clone's boundary at ")
    assert hint.startswith("hint: ") and result.stdout == ""
    assert shallow.snapshot() == before
    inside = runner.invoke(app, ["-C", str(clone), "verify", "HEAD~1..HEAD", "--now", "2026-03-02T00:00:00Z"])
    assert inside.exit_code == 0, inside.stdout
    assert violations(mem, "HEAD") == []


def test_verify_shallow_clone_passes_a_restore_from_beyond_its_boundary(mem: GitRepo, tmp_path: Path) -> None:
    """Regression: a correct restore commit whose Squad-Memory-Restore commit is beyond a shallow
    clone's boundary failed verify ("which this repository lacks"). It is not provable there, and not
    disproved: verify passes it with a warning naming the fix; a full clone still proves it."""
    kept = mem.head()
    mem.commit(
        "drop auth\n\nSquad-Memory-Delete: picard/auth-tokens", {HOT: HOT_HEAD + DEPLOY + INDEX}, date=D1
    )
    trailers = f"Squad-Memory-Move: picard/auth-tokens history -> hot\nSquad-Memory-Restore: {kept}\n"
    mem.commit(message(trailers, "memory(picard): restore"), {HOT: HOT_HEAD + DEPLOY + AUTH + INDEX}, date=D1)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{mem.root}", str(clone)], check=True)
    result = runner.invoke(app, ["-C", str(clone), "verify", "HEAD^..HEAD", "--now", "2026-03-02T00:00:00Z"])
    assert result.exit_code == 0, result.stdout
    assert result.stderr.splitlines() == [
        f"squadmem: warning: {HOT}: the restore of picard/auth-tokens was not checked: {kept[:12]} is beyond"
        " this shallow clone's boundary",
        "hint: git fetch --unshallow, then verify again, proves it",
    ]
    assert violations(mem) == []


def _maintained_branch(repo: GitRepo) -> str:
    """main with three stale hot sections; branch `maint` where maintain moved them; returns main's tip."""
    old = "2026-01-01T09:00:00+00:00"
    hot = HOT_HEAD + "".join(f"## Note {n}\nbody {n}\n\n" for n in range(3))
    repo.commit("memory", {HOT: hot}, date=old)
    base = repo.head()
    repo.git("switch", "-q", "-c", "maint")
    env = {"GIT_AUTHOR_DATE": "2026-03-01T09:00:00+00:00", "GIT_COMMITTER_DATE": "2026-03-01T09:00:00+00:00"}
    code, _, err = squadmem(repo, "maintain", "--now", "2026-03-01T09:00:00+00:00", env=env)
    assert code == 0, err
    assert int(repo.git("rev-list", "--count", f"{base}..maint")) >= 3
    repo.git("switch", "-q", "main")
    return base


@pytest.mark.parametrize("style", ["git merge --squash", "one message per commit, as GitHub squashes"])
def test_a_squash_of_a_verified_maintain_branch_passes(repo: GitRepo, style: str) -> None:
    """Regression: a squash-merged maintain branch failed verify with 8 violations."""
    base = _maintained_branch(repo)
    assert verify(repo, f"{base}..maint", "--now", "2026-03-01T10:00:00+00:00")[0] == 0
    repo.git("merge", "-q", "--squash", "maint")
    if style == "git merge --squash":
        text = (repo.root / ".git" / "SQUASH_MSG").read_text()
    else:
        text = "memory: squadmem maintain (#12)\n\n" + "\n\n".join(
            "* " + repo.git("log", "-1", "--format=%B", sha).strip()
            for sha in repo.git("rev-list", "--reverse", f"{base}..maint").split()
        )
    repo.git("commit", "-q", "--no-gpg-sign", "-m", text, date="2026-03-01T10:00:00+00:00")
    code, out, err = verify(repo, f"{base}..HEAD", "--now", "2026-03-01T10:00:00+00:00")
    assert code == 0, out + err
    assert "1 squash" in out


def test_a_squash_that_drops_a_section_is_caught(repo: GitRepo) -> None:
    base = _maintained_branch(repo)
    repo.git("merge", "-q", "--squash", "maint")
    text = (repo.root / ".git" / "SQUASH_MSG").read_text()
    archive = repo.read(ARCHIVE)  # unused 59 days: hot straight to the archive
    assert "## Note 1\nbody 1\n" in archive
    repo.write(ARCHIVE, archive.replace("## Note 1\nbody 1\n\n", "").replace("## Note 1\nbody 1\n", ""))
    repo.git("add", ARCHIVE)
    repo.git("commit", "-q", "--no-gpg-sign", "-m", text, date="2026-03-01T10:00:00+00:00")
    code, out, _ = verify(repo, f"{base}..HEAD", "--now", "2026-03-01T10:00:00+00:00")
    assert code == 1
    assert "Note 1" in out or "note-1" in out
