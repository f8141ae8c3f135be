"""A property: whatever the arguments, settings and tier files, the CLI exits 0, 1 or 2, never 3,
and a command that exits 2 leaves the repository exactly as it was.

Hypothesis picks a command with generated arguments (names, numbers, dates, text, standard
input, bad bytes among them), a ``tiers.toml`` and the contents of tier files and logs, in a
copy of one small repository; each example runs squadmem in-process.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from conftest import GitRepo
from conftest import squadmem as cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem.model.layout import MAX_FILE_BYTES, MEMORY_DIR

OLD = "2026-01-01T10:00:00+00:00"
LONG = "n" * 300
NAMES = ["picard", "worf", "data", "../x", LONG, "a\udcffb", "", "-", "Bad/Id"]
REFS = [
    "picard/stale",
    "picard/old-note",
    "Stale",
    "wiki:security/rule",
    "worf/worf-stale",
    "nope",
    "\udcff",
    "a\0b",
]
TOPICS = ["security", "decisions", "../x", LONG, "a b"]
TIERS = ["hot", "cold", "archive", "wiki", "attic"]
NUMBERS = ["nan", "inf", "-inf", "-1", "0", "3", "2.5", "1e308", "99999999999999999999", "x"]
DATES = [
    "2026-02-20",
    "2026-02-20T12:00:00+02:00",
    "2026-02-20 12:00 EST",
    "2026-02-20 12:00 GMT+3",
    "9999-12-31",
    "1900-01-01",
    "2999-01-01",
    "soon",
    "2026-02-20\0",
]
TEXTS = ["did a thing", "two\nlines", "t\udcff", " ", LONG * 3]
STDIN = [
    None,
    b"## Entry\nbody\n",
    b"plain text\n",
    b"\xff\xfe",
    b"a\0b",
    b"<!-- squadmem: id=../x -->\n",
    b"",
]
OVER = b"## Big\n" + b"b" * MAX_FILE_BYTES
CONTENTS = [
    b"# Hot\n\n## Stale\ns\n\n## Keep\n<!-- squadmem: pin -->\nk\n",
    b"## A\r\n<!-- squadmem: kind=decision topic=security -->\r\nx\r\n",
    b"## A\n\0\n",
    b"## A\ncaf\xe9\n",
    b"## A\n<!-- squadmem: id=../../x -->\n",
    b"## A\n<!-- squadmem: topic=" + LONG.encode() + b" kind=fact -->\n",
    b"## A\n<!-- squadmem: pin pin -->\n",
    b"## A\n<!-- squadmem: id=Bad/Id -->\n",
    b"## A\n<!-- squadmem: id=same -->\n## B\n<!-- squadmem: id=same -->\n",
    b"## A\n```\n## not a heading\n",
    b"Setext\n---\nbody\n",
    OVER,
    b"",
]
FILES = [
    f"{MEMORY_DIR}/hot/picard.md",
    f"{MEMORY_DIR}/cold/picard.md",
    f"{MEMORY_DIR}/archive/picard.md",
    f"{MEMORY_DIR}/wiki/security.md",
    f"{MEMORY_DIR}/hot/worf.md",
    f"{MEMORY_DIR}/log/2026-02-19.md",
]
SETTINGS_TEXT = [
    None,
    "[hot]\nstale_days = {n}\n",
    "[cold]\nttl_days = {n}\n",
    "[log]\ngrace_minutes = {n}\n",
    "[promote]\nwindow_hours = {n}\n",
    "[hot]\nmax_bytes = {n}\n",
    'timezone = "EST"\n',
    'timezone = "Mars/Olympus"\n',
    "[hot\n",
]


def pick(values: list[str]) -> st.SearchStrategy[str]:
    """One of ``values`` (the cases that matter), or now and then any short text."""
    return st.one_of(st.sampled_from(values), st.text(max_size=12))


def _opt(*parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.tuples(*parts).map(lambda chunks: [word for chunk in chunks for word in chunk])


def flag(name: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [name, v]))


def fixed(*words: str) -> st.SearchStrategy[list[str]]:
    return st.just(list(words))


NOW = flag("--now", pick(DATES))
COMMANDS = st.one_of(
    _opt(fixed("list"), flag("--agent", pick(NAMES)), flag("--tier", pick(TIERS))),
    _opt(fixed("report", "--json"), NOW, flag("--agent", pick(NAMES))),
    _opt(fixed("context"), flag("--agent", pick(NAMES)), flag("--include-wiki", pick(TOPICS)), NOW),
    _opt(fixed("context", "--agent", "worf"), flag("--include", pick(REFS)), NOW),
    _opt(fixed("recall"), pick(TEXTS).map(lambda t: [t]), flag("--limit", pick(NUMBERS)), NOW),
    _opt(fixed("touch"), pick(REFS).map(lambda r: [r]), NOW),
    _opt(
        fixed("maintain"),
        st.sampled_from([[], ["--dry-run"]]),
        NOW,
        flag("--hot-stale-days", pick(NUMBERS)),
        flag("--promote-window-hours", pick(NUMBERS)),
        flag("--cold-ttl-days", pick(NUMBERS)),
        flag("--hot-max-bytes", pick(NUMBERS)),
        flag("--agent", pick(NAMES)),
    ),
    _opt(
        pick(["promote", "demote"]).map(lambda v: [v]),
        pick(REFS).map(lambda r: [r]),
        flag("--to", pick(TIERS)),
        flag("--topic", pick(TOPICS)),
    ),
    _opt(
        fixed("restore"),
        pick(REFS).map(lambda r: [r]),
        flag("--at", pick(["HEAD", "HEAD~1", "nope", "HEAD\0"])),
    ),
    _opt(
        fixed("log", "add"), flag("--agent", pick(NAMES)), NOW, pick([*TEXTS, "-"]).map(lambda t: ["--", t])
    ),
    _opt(
        fixed("log", "show"),
        st.one_of(st.just([]), pick(["2026-02-19", "2026-02-30", "x"]).map(lambda d: [d])),
    ),
    _opt(fixed("session", "start"), flag("--agent", pick(NAMES)), flag("--task", pick(TEXTS)), NOW),
    _opt(fixed("session", "end"), flag("--agent", pick(NAMES)), fixed("--summary-file", "-"), NOW),
    _opt(fixed("wiki", "write"), pick(TOPICS).map(lambda t: [t]), flag("--title", pick(TEXTS))),
    _opt(fixed("verify"), NOW),
    fixed("doctor"),
    _opt(fixed("history"), pick(REFS).map(lambda r: [r])),
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], bytes | None, str | None, dict[str, bytes], bool]:
    args = draw(COMMANDS)
    stdin = draw(st.one_of(st.sampled_from(STDIN), st.binary(max_size=40)))
    template = draw(st.sampled_from(SETTINGS_TEXT))
    conf = template.format(n=draw(pick(NUMBERS))) if template else None
    contents = st.one_of(
        st.sampled_from(CONTENTS), st.binary(max_size=60), st.text(max_size=60).map(str.encode)
    )
    files = draw(st.dictionaries(st.sampled_from(FILES), contents, max_size=2))
    return args, stdin, conf, files, draw(st.booleans())


def _base(repo: GitRepo) -> None:
    repo.commit(
        "memory",
        {
            f"{MEMORY_DIR}/hot/picard.md": "# Hot\n\n## Stale\ns\n\n## Keep\n<!-- squadmem: pin -->\nk\n",
            f"{MEMORY_DIR}/cold/picard.md": "# Cold\n\n## Old note\n<!-- squadmem: kind=fact -->\no\n",
            f"{MEMORY_DIR}/hot/worf.md": "# Hot\n\n## Worf stale\nw\n",
            f"{MEMORY_DIR}/wiki/security.md": "# Security\n\n## Rule\nr\n",
        },
        date=OLD,
    )


def test_the_cli_never_exits_3_and_a_refusal_changes_nothing(repo: GitRepo, tmp_path: Path) -> None:
    """No exit 3 from input: every argument, setting and file is validated with a clear exit 2."""
    _base(repo)

    @settings(
        max_examples=50,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=cases())
    def check(case: tuple[list[str], bytes | None, str | None, dict[str, bytes], bool]) -> None:
        args, stdin, conf, files, commit = case
        root = Path(tempfile.mkdtemp(dir=tmp_path)) / "repo"
        shutil.copytree(repo.root, root, symlinks=True)
        copy = GitRepo(root)
        try:
            if conf is not None:
                copy.write(f"{MEMORY_DIR}/tiers.toml", conf)
            for rel, raw in files.items():
                copy.write(rel, raw)
            if commit and (conf is not None or files):
                copy.git("add", "-A")
                copy.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "case", date=OLD)
            before = copy.snapshot()
            code, _, err = cli(copy, *args, input=stdin)  # type: ignore[arg-type]
            assert code in (0, 1, 2), f"squadmem {args!r} exited {code}: {err}"
            if code == 2:
                assert copy.snapshot() == before, f"squadmem {args!r} exited 2 but changed the repository"
        finally:
            shutil.rmtree(root.parent)

    check()
