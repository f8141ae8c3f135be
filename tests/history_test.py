from __future__ import annotations

import datetime as dt
import io
import itertools
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import GitRepo
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine import catalog
from squadmem.engine.history import cache as history_cache
from squadmem.engine.history import cutter, lastuse
from squadmem.engine.history import stream as history
from squadmem.engine.history.progress import Progress
from squadmem.gitio.repo import Repo
from squadmem.model import sections, uses

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"
D1 = "2026-03-01T12:00:00+00:00"
D2 = "2026-03-05T12:00:00+00:00"
D3 = "2026-03-09T12:00:00+00:00"
D4 = "2026-03-12T12:00:00+00:00"
D5 = "2026-03-15T12:00:00+00:00"
NOW = dt.datetime(2026, 3, 20, 12, 0, tzinfo=dt.UTC)

AUTH = "## Auth tokens\n\nRotate the signing key weekly.\n- staging first\n"
DEPLOY = "## Deploy checklist\n\n1. tag\n2. push\n\n```sh\n## not a heading\nmake deploy\n```\n"
CACHE = "## Cache policy\n\nTTL is 5 minutes.\n"


def at(stamp: str) -> dt.datetime:
    return dt.datetime.fromisoformat(stamp).astimezone(dt.UTC)


def hot(*parts: str) -> str:
    return "# Hot memory: picard\n\n" + "\n".join(parts)


def cold(*parts: str) -> str:
    return "# Cold memory: picard\n\n" + "\n".join(parts)


def usage(root: Path, *, cache: bool = True, verbose: bool = False) -> dict[str, lastuse.Usage]:
    with Repo(root) as repo:
        return lastuse.usage(repo, catalog.load(repo.layout), now=NOW, cache=cache, verbose=verbose)


def last(root: Path, ident: str, **kw: bool) -> lastuse.LastUse:
    return usage(root, **kw)[ident].last


def content(stamp: str, sha: str) -> lastuse.LastUse:
    return lastuse.LastUse(at(stamp), "content", sha)


# -- content identity -----------------------------------------------------------------------------
def test_normalize_ignores_line_endings_and_trailing_blank_lines() -> None:
    assert sections.content_key("## A\r\nx\r\n\r\n\r\n") == sections.content_key("## A\nx")
    assert sections.content_key("## A\rx\n") == sections.content_key("## A\nx\n\n")


def test_content_key_changes_with_any_edit() -> None:
    assert sections.content_key("## A\nx\n") != sections.content_key("## A\nx y\n")
    assert sections.content_key("## A\nx\n") != sections.content_key("## B\nx\n")


PIECES = [
    "## A\n", "## B\n", "## A\n", "## C ##\n", "Title\n---\n", "Two\nlines\n---\n", "para\n", "\n",
    "\n\n", "```\n", "~~~\n", "````md\n", "- item\n", "  ## indented\n", "- ## in a list\n", "> quote\n",
    "> ## quoted\n", "lazy\n", "<div>\n", "</div>\n", "<pre>\n", "</pre>\n", "<!-- c -->\n", "<!--\n",
    "-->\n", "    code\n", "===\n", "---\n", "***\n", "# H1\n", "### sub\n", "## D\r\n", "text\r\n",
    "1. one\n", "## E", "x", "\ufeff", "<!-- squadmem: pin -->\n", "- ```\n", "   ## three\n", ">>> deep\n",
    "Title\n\n", "## D- item\n", "\r", "## F\r", "  - nested\n", "\t## tab\n", "-\n", "  ---\n", "## \n",
    "##\n", "Setext\n===\n", "- a\n\n  ## in item\n", "<!-- x -->\n", "<!-- open\n", "<!--->\n",
    "<!-- a --> b\n", "#hashtag\n", "### deep\n", "####\n", " # one\n", "```sh\n## no\n```\n",
]  # fmt: skip
documents = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str]:
    """An earlier version of a tier file and a later one: pieces inserted, removed, moved."""
    old = draw(st.lists(st.sampled_from(PIECES), max_size=30))
    new = list(old)
    for _ in range(draw(st.integers(1, 3))):
        at_ = draw(st.integers(0, len(new)))
        kind = draw(st.sampled_from(["insert", "delete", "move"]))
        if kind == "insert":
            new[at_:at_] = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4))
        elif new:
            end = draw(st.integers(at_, min(len(new), at_ + 6)))
            chunk = new[at_:end]
            del new[at_:end]
            if kind == "move":
                to = draw(st.integers(0, len(new)))
                new[to:to] = chunk
    return "".join(old), "".join(new)


@settings(max_examples=800, deadline=None)
@given(edits())
def test_cut_from_an_earlier_version_equals_a_full_cut(pair: tuple[str, str]) -> None:
    """Reusing the unchanged parts of the previous version never changes where sections are cut."""
    old, new = pair
    full = cutter.cut(new)
    base = cutter.cut(old)
    again = cutter.cut(new, base)
    assert (again.starts, again.heads, again.keys) == (full.starts, full.heads, full.keys)
    lo, old_hi, new_hi = again.changed or (0, len(base.keys), len(again.keys))
    assert again.keys[:lo] == base.keys[:lo]
    assert again.keys[new_hi:] == base.keys[old_hi:]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join), st.lists(edits(), max_size=4))
def test_stepped_counts_give_what_came_and_went(start: str, later: list[tuple[str, str]]) -> None:
    """Counting keys and headings from the changed stretch alone gives, version after version, the
    same keys in and out, and the same counts, as comparing whole versions."""
    versions = [start, *(new for _, new in later)]
    last = history._Last(cutter.cut(versions[0]), (0, False, b""), "")
    for text in versions[1:]:
        before = last
        now = history._Last(cutter.cut(text, before.cut), (0, False, b""), "", before.counts)
        came, gone = now.step(before.cut)
        old_keys, new_keys = set(before.cut.keys), set(now.cut.keys)
        assert came == [k for k in dict.fromkeys(now.cut.keys) if k not in old_keys]
        assert gone == old_keys - new_keys
        assert now.counts is not None
        assert now.counts.keys == dict(Counter(now.cut.keys))
        headings = (history._heading(now.cut, i) for i in range(len(now.cut.starts)))
        assert now.counts.headings == dict(Counter(headings))
        last = now


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("  ## indented\n## D- item\n## D", "  ## indented\n## D- ite```\nm\n## D"),
        ("## A\nx\n## D", "## A\nx\n## D- more\n"),
        ("## A\n## B\r", "## A\n## B\r\nbody\n"),
        ("\n\ufeff## ETitle\n---\n", "\n\ufeff## ETitle\n---\n\n"),
        ("\ufeff## A\n", "\ufeff## A\n\ufeff## A\n"),
        ("## A\n### d\n#hashtag\n  ---\n", "## A\n### e\n1. op\n#hashtag\n  ---\n"),
    ],
    ids=[
        "heading-as-line-prefix",
        "last-line-goes-on",
        "cr-then-lf",
        "bom-inside",
        "bom-moved-off-the-top",
        "setext-starting-with-hash",
    ],
)
def test_cut_reuse_pitfalls(old: str, new: str) -> None:
    """Regressions, each a wrong cut the reuse once made: an old last heading matched as the start of a
    longer line; a U+FEFF read as a byte order mark inside a file, or a heading that starts with one
    moved off the top; a setext heading whose text starts with # taken for an ATX heading."""
    full = cutter.cut(new)
    again = cutter.cut(new, cutter.cut(old))
    assert (again.starts, again.heads, again.keys) == (full.starts, full.heads, full.keys)


QUICK_PIECES = [
    "## A\n", "## B\n", "##\n", "## \n", "## E", "##x\n", "para\n", "x", "\n", "\n\n", "- item\n",
    "  - nested\n", "1. one\n", "2) two\n", "* star\n", "+ plus\n", "- \n", "+\n", "    code\n", "\tcode\n",
    "# H1\n", " # one\n", "### sub\n", "#hashtag\n", "***\n", "* * *\n", "- - -\n", "___\n", "[ref]: /url\n",
    "<!-- squadmem: pin -->\n", "<!-- c --> b\n", "text ## not\n", "[ref]: /url\n'title\n", "  [x]: <y>\n",
    "- [ ] task\n", "a `code` b\n", "``\n", "a <b> c\n", "1.\n", "10) ten\n", "  \n", "- 1. both\n",
    "```\n", "```sh\n", "````\n", "~~~\n", "~~~ `x`\n", "~~~~\n", "```  \n", "a ```b``` c\n", "``` `x`\n",
    "```sh\n## no\n```\n", "~~~\n<div>\n> q\n---\n~~~\n",
]  # fmt: skip
UNSURE_PIECES = [
    "  ## indented\n", "- ## in a list\n", "1. ## in a list\n", "   ## three\n", "\t## tab\n", "---\n",
    "  ---\n", "===\n", "-\n", "> quote\n", "- > quoted\n", "<div>\n", "<!-- open\n", "- <div>\n", "  ```\n",
    "- ```\n", "   ~~~\n",
]  # fmt: skip
# Mostly lines the quick cut reads, now and then one it leaves to the scanner.
quick_documents = st.lists(st.sampled_from(QUICK_PIECES * 6 + UNSURE_PIECES), max_size=30).map("".join)


def _scanned(text: str) -> tuple[list[int], list[int]]:
    """Section starts and heading ends as the block scanner gives them."""
    found = sections.boundaries(text)
    pos = [0, *itertools.accumulate(map(len, sections.lines(text)))]
    return [pos[b.line] for b in found], [pos[b.line + b.heading_lines] for b in found]


@settings(max_examples=1500, deadline=None)
@given(quick_documents, st.integers(0, 3))
def test_the_quick_cut_is_the_scanners(text: str, offset: int) -> None:
    """Where the cutter reads a text without the scanner, it finds the scanner's boundaries."""
    quick = cutter._quick(text, offset)
    if quick is not None:
        starts, heads = _scanned(text)
        assert quick == ([s + offset for s in starts], [h + offset for h in heads])


def test_the_quick_cut_leaves_what_could_hide_a_heading_to_the_scanner() -> None:
    assert cutter._quick("## A\nx\n## B\n", 0) == ([0, 7], [5, 12])
    assert cutter._quick("```sh\n## no\n```\n## A\n", 3) == ([3 + 16], [3 + 21])
    assert cutter._quick("~~~\n## never closed\n", 0) == ([], [])
    risky_texts = ("  ```\n## A\n", "``` `x`\n## A\n", "<div>\n\n## A\n", "- ## A\n", "   ## A\n", "A\n---\n")
    for risky in (*risky_texts, "> q\n## A\n"):
        assert cutter._quick(risky, 0) is None, risky
    assert cutter._quick("## A\r\n", 0) is None
    assert cutter._quick("\ufeff## A\n", 0) is None


@settings(max_examples=300, deadline=None)
@given(documents)
def test_cut_keys_are_those_of_the_catalog_sections(text: str) -> None:
    """History hashes exactly the sections the catalog (sections.split) cuts."""
    expected = [sections.content_key(s.text) for s in sections.split(text).sections]
    assert list(cutter.cut(text).keys) == expected


# -- ages from history ------------------------------------------------------------------------------
def test_last_uses_is_the_commit_that_wrote_the_content(repo: GitRepo) -> None:
    first = repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY)}, date=D1)
    repo.commit("code", {"src/app.py": "print(1)\n"}, date=D2)
    found = usage(repo.root)
    assert found["picard/auth-tokens"].last == content(D1, first)
    assert found["picard/deploy-checklist"].last == content(D1, first)
    assert found["picard/auth-tokens"].trailer_commits == 0


def test_last_uses_survive_a_squadmem_move(repo: GitRepo) -> None:
    first = repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY), COLD: cold(CACHE)}, date=D1)
    repo.commit(
        'memory(picard): demote "Auth tokens" hot → cold\n\n'
        "Squad-Memory-Move: picard/auth-tokens hot -> cold",
        {HOT: hot(DEPLOY), COLD: cold(CACHE) + "\n" + AUTH},
        date=D3,
    )
    assert last(repo.root, "picard/auth-tokens") == content(D1, first)


def test_last_uses_survive_a_hand_move_with_other_text_around(repo: GitRepo) -> None:
    first = repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY), COLD: cold(CACHE)}, date=D1)
    repo.commit("tidy", {HOT: hot(DEPLOY)}, date=D2)  # cut ...
    pasted = "# Cold memory: picard\n\nSome notes.\n\n\n" + AUTH + "\n\n\n" + CACHE.rstrip("\n")
    repo.commit(
        "paste", {COLD: pasted}, date=D3
    )  # ... and pasted later, between other text, no final newline
    assert last(repo.root, "picard/auth-tokens") == content(D1, first)


def test_last_uses_edit_resets_the_age(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY)}, date=D1)
    edited = repo.commit("edit", {HOT: hot(AUTH.replace("weekly", "daily"), DEPLOY)}, date=D3)
    assert last(repo.root, "picard/auth-tokens") == content(D3, edited)


def test_last_uses_trailing_blank_lines_and_line_endings_are_not_an_edit(repo: GitRepo) -> None:
    first = repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY)}, date=D1)
    repo.commit("crlf", {HOT: hot(AUTH + "\n\n", DEPLOY).replace("\n", "\r\n")}, date=D3)
    assert last(repo.root, "picard/auth-tokens") == content(D1, first)


def test_last_uses_a_trailer_on_a_commit_that_touches_no_memory(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY)}, date=D1)
    used = repo.commit("fix login\n\nSquad-Memory-Used: picard/auth-tokens", {"src/app.py": "x\n"}, date=D3)
    for _ in range(3):  # however often it runs, the trailer counts once
        found = usage(repo.root)["picard/auth-tokens"]
        assert found.last == lastuse.LastUse(at(D3), "trailer", used)
        assert found.trailer_commits == 1


def test_last_uses_a_later_content_commit_beats_an_older_trailer(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    repo.commit("use\n\nSquad-Memory-Used: picard/auth-tokens", {"a": "1"}, date=D2)
    edited = repo.commit("edit", {HOT: hot(AUTH + "- more\n")}, date=D3)
    found = usage(repo.root)["picard/auth-tokens"]
    assert found.last == content(D3, edited)
    assert found.trailer_commits == 1


def test_last_uses_pending_counts_at_once_and_once_when_committed(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    state = repo.root / ".git" / "squadmem"
    uses.record(state, ["picard/auth-tokens"], at(D2))
    for _ in range(2):
        found = usage(repo.root)["picard/auth-tokens"]
        assert found.last == lastuse.LastUse(at(D2), "pending", None)
        assert (found.trailer_commits, found.pending) == (0, at(D2))
    carried = repo.commit("work\n\nSquad-Memory-Used: picard/auth-tokens", {"a": "1"}, date=D3)
    for _ in range(2):
        found = usage(repo.root)["picard/auth-tokens"]
        assert found.last == lastuse.LastUse(at(D3), "trailer", carried)
        assert (found.trailer_commits, found.pending) == (1, None)
    assert uses.pending(state) == {}


def test_last_uses_a_use_after_the_carrying_commit_stays_pending(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    repo.commit("work\n\nSquad-Memory-Used: picard/auth-tokens", {"a": "1"}, date=D2)
    uses.record(repo.root / ".git" / "squadmem", ["picard/auth-tokens"], at(D3))
    found = usage(repo.root)["picard/auth-tokens"]
    assert found.last == lastuse.LastUse(at(D3), "pending", None)
    assert found.pending == at(D3)


def test_last_uses_an_uncommitted_edit_is_now(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY)}, date=D1)
    repo.write(HOT, hot(AUTH + "- and prod\n", DEPLOY))
    found = usage(repo.root)
    assert found["picard/auth-tokens"].last == lastuse.LastUse(NOW, "edit", None)
    assert found["picard/deploy-checklist"].last.kind == "content"


def test_last_uses_without_any_commit_everything_is_an_edit(repo: GitRepo) -> None:
    repo.write(HOT, hot(AUTH))
    assert last(repo.root, "picard/auth-tokens") == lastuse.LastUse(NOW, "edit", None)
    assert not (repo.root / ".git" / "squadmem" / history_cache.CACHE_FILE).exists()


def test_last_uses_merge_gives_the_branch_commit_time(repo: GitRepo) -> None:
    """A section edited on a branch and merged later is dated by the branch commit, not the merge."""
    repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY)}, date=D1)
    repo.git("checkout", "-q", "-b", "feature")
    edited = repo.commit("edit on a branch", {HOT: hot(AUTH + "- and prod\n", DEPLOY)}, date=D2)
    repo.git("checkout", "-q", "main")
    repo.commit("code on main", {"src/app.py": "x\n"}, date=D3)
    repo.git("merge", "-q", "--no-ff", "--no-edit", "feature", date=D4)
    assert last(repo.root, "picard/auth-tokens") == content(D2, edited)


def test_last_uses_merge_resolution_that_makes_new_text_is_dated_by_the_merge(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("branch", {HOT: hot(AUTH + "- branch\n")}, date=D2)
    repo.git("checkout", "-q", "main")
    repo.commit("main", {HOT: hot(AUTH + "- main\n")}, date=D3)
    repo.git("merge", "-q", "--no-edit", "feature", date=D4, check=False)
    repo.write(HOT, hot(AUTH + "- main\n- branch\n"))
    repo.git("add", HOT)
    repo.git("commit", "-q", "--no-edit", date=D4)
    assert last(repo.root, "picard/auth-tokens") == content(D4, repo.head())


def _shallow_clone(repo: GitRepo, tmp_path: Path) -> Path:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], check=True)
    return clone


def test_last_uses_shallow_clone_reports_unknown_at_the_boundary(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH, DEPLOY, CACHE)}, date=D1)
    repo.commit("code", {"a": "1"}, date=D2)
    boundary = repo.commit("code", {"a": "2"}, date=D3)
    used = repo.commit(
        "use\n\nSquad-Memory-Used: picard/cache-policy",
        {HOT: hot(AUTH, DEPLOY + "- verify\n", CACHE)},
        date=D4,
    )
    clone = _shallow_clone(repo, tmp_path)
    found = usage(clone)
    assert found["picard/auth-tokens"].last == lastuse.LastUse(None, "unknown", boundary)
    assert found["picard/deploy-checklist"].last == content(D4, used)
    assert found["picard/cache-policy"].last == lastuse.LastUse(at(D4), "trailer", used)
    assert usage(repo.root)["picard/auth-tokens"].last.kind == "content"


def test_last_uses_shallow_clone_a_pending_use_decides_it(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    repo.commit("code", {"a": "1"}, date=D2)
    repo.commit("code", {"a": "2"}, date=D3)
    clone = _shallow_clone(repo, tmp_path)
    uses.record(clone / ".git" / "squadmem", ["picard/auth-tokens"], at(D4))
    assert last(clone, "picard/auth-tokens") == lastuse.LastUse(at(D4), "pending", None)


# -- the cache ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "repo"
    from bench import generate

    generate.generate(root, 400, seed=7)
    return root


def _cache_path(root: Path) -> Path:
    return root / ".git" / "squadmem" / history_cache.CACHE_FILE


def test_the_bench_reader_reads_the_floors_log_and_blobs(generated: Path, tmp_path: Path) -> None:
    """The bench's lower bound reads every commit of squadmem's log and every blob of the floor."""
    from bench import history_bench

    names, count, size = history_bench.blob_list(generated, tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", history_bench._READER, str(names)],
        cwd=generated,
        capture_output=True,
        text=True,
        check=True,
    )
    commits = int(
        subprocess.run(
            ["git", "rev-list", "--count", "HEAD"], cwd=generated, capture_output=True, text=True, check=True
        ).stdout
    )
    assert done.stdout.split() == [str(commits), str(size)]
    assert count > 0


def test_cache_gives_the_same_ages_as_no_cache(generated: Path) -> None:
    _cache_path(generated).unlink(missing_ok=True)
    plain = usage(generated, cache=False)
    assert {u.last.kind for u in plain.values()} >= {"content", "trailer"}
    assert usage(generated) == plain  # builds the cache
    assert _cache_path(generated).exists()
    assert usage(generated) == plain  # reads it


def test_cache_after_new_commits_reads_only_them(
    generated: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(generated), str(clone)], check=True)
    work = GitRepo(clone)
    usage(clone)
    hot_file = ".squad/memory/hot/picard.md"
    work.commit(
        "edit\n\nSquad-Memory-Used: riker/session",
        {hot_file: work.read(hot_file) + "\n## New note\nx\n"},
        date=D1,
    )
    work.commit("code", {"src/x.py": "y\n"}, date=D2)
    capfd.readouterr()
    warm = usage(clone, verbose=True)
    assert "read 2 commits" in capfd.readouterr().err
    assert warm == usage(clone, cache=False)
    assert warm["picard/new-note"].last == content(D1, work.git("rev-parse", "HEAD~1").strip())


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],
        lambda raw: b"",
        lambda raw: b"not a cache at all\n\x00\x01",
        lambda raw: raw.replace(b'"format": %d' % history_cache.FORMAT, b'"format": 1', 1),
        lambda raw: raw[:-40] + bytes(40),
        lambda raw: raw.split(b"\n", 1)[0] + b"\n",
    ],
    ids=["truncated", "empty", "garbage", "old-format", "corrupt-bytes", "header-only"],
)
def test_cache_damaged_is_rebuilt_quietly(
    generated: Path, capfd: pytest.CaptureFixture[str], damage: object
) -> None:
    plain = usage(generated, cache=False)
    usage(generated)
    path = _cache_path(generated)
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    capfd.readouterr()
    assert usage(generated) == plain
    assert capfd.readouterr().err == ""
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert usage(generated, verbose=True) == plain
    assert "reading all history" in capfd.readouterr().err
    assert usage(generated) == plain  # and the rebuilt cache is good


def test_cache_after_reset_forgets_the_dropped_commits(
    repo: GitRepo, capfd: pytest.CaptureFixture[str]
) -> None:
    first = repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    repo.commit("use\n\nSquad-Memory-Used: picard/auth-tokens", {"a": "1"}, date=D2)
    assert last(repo.root, "picard/auth-tokens").kind == "trailer"
    repo.git("reset", "-q", "--hard", "HEAD~1")
    capfd.readouterr()
    assert last(repo.root, "picard/auth-tokens", verbose=True) == content(D1, first)
    assert "rewritten" in capfd.readouterr().err
    assert usage(repo.root) == usage(repo.root, cache=False)


def test_cache_after_a_rebase_forgets_the_rewritten_commits(repo: GitRepo) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    repo.commit("edit", {HOT: hot(AUTH + "- more\n")}, date=D2)
    usage(repo.root)
    repo.git("commit", "-q", "--amend", "--no-edit", "--no-gpg-sign", date=D3)  # same content, new date
    assert last(repo.root, "picard/auth-tokens") == content(D3, repo.head())
    assert usage(repo.root) == usage(repo.root, cache=False)


def test_cache_with_head_unchanged_reads_no_commit(repo: GitRepo, capfd: pytest.CaptureFixture[str]) -> None:
    repo.commit("picard notes", {HOT: hot(AUTH)}, date=D1)
    usage(repo.root)
    capfd.readouterr()
    usage(repo.root, verbose=True)
    assert "up to date" in capfd.readouterr().err


# -- the progress bar -------------------------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_for_a_long_run() -> None:
    out = _Terminal()
    with Progress("reading history", 10_000, out) as bar:
        for done in range(0, 10_001, 2_500):
            bar.update(done)
    assert "reading history [" in out.getvalue()
    assert out.getvalue().endswith("100% (10000/10000 commits)\n")


@pytest.mark.parametrize(
    ("stream", "total"), [(io.StringIO(), 10_000), (_Terminal(), 100)], ids=["pipe", "short"]
)
def test_progress_is_silent_off_a_terminal_or_for_a_short_run(stream: io.StringIO, total: int) -> None:
    with Progress("reading history", total, stream) as bar:
        bar.update(total // 2)
    assert stream.getvalue() == ""
