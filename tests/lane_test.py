"""The fast lane parses its commands as click does, or declines; its table is the click definitions'.

The lane (``squadmem.cli.lane``) is the console script: it parses ``context``, ``recall``, ``near``
and ``track`` without importing click, from a table generated from the click commands. A test
renders the table again; a property holds, for generated command lines over those commands'
options (values, attached values, unknown and abbreviated options, ``--``, help, missing values),
that the lane's parse is click's (the callback's keyword arguments and ``-C``) or the lane
declines; whole processes show the two entry points print the same and exit the same.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from conftest import GitRepo
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.cli import frequent, lane
from squadmem.cli import lane_spec as spec
from squadmem.cli import lane_table as table
from squadmem.cli.app import app

HERE = Path(__file__).resolve().parent.parent


def test_the_table_is_rendered_from_the_click_commands() -> None:
    written = (HERE / "squadmem" / "cli" / "lane_table.py").read_text("utf-8")
    assert written == spec.render(), (
        "regenerate: python -m squadmem.cli.lane_spec > squadmem/cli/lane_table.py"
    )


def click_parse(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """What click calls the command with, or None where click refuses, shows help or exits."""
    try:
        with app.make_context("squadmem", list(argv)) as ctx:
            rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
            if not rest:
                return None
            name, command, args = app.resolve_command(ctx, rest)
            assert name is not None and command is not None
            with command.make_context(name, args, parent=ctx) as sub:
                return name, {"directory": ctx.params["directory"], **sub.params}
    except (click.exceptions.ClickException, click.exceptions.Exit):
        return None


VALUES = ["picard", "", "-", "-a", "--json", "3", " 7", "+2", "x=y", "=", "٣", "1_0", "-1", "2.5", "a b"]
NOISE = ["--", "-h", "--help", "--bogus", "--agen", "--jso", "-z", "-ax", "--json=1", "--no-json", "-"]


def _tokens(rows: tuple[tuple[Any, ...], ...]) -> st.SearchStrategy[list[str]]:
    """One option (in each form click takes: separate, --long=value, -sVALUE) or one word."""
    opts = [opt for row in rows for opt in (*row[lane.OPTS], *row[lane.OFF])]
    value = st.sampled_from(VALUES)
    alone = st.sampled_from(opts).map(lambda o: [o])
    noise = st.sampled_from(NOISE).map(lambda o: [o])
    separate = st.tuples(st.sampled_from(opts), value).map(list)
    attached = st.tuples(st.sampled_from(opts), st.sampled_from(["", "="]), value).map(
        lambda t: [t[0] + t[1] + t[2]]
    )
    word = value.map(lambda v: [v])
    return st.one_of(alone, separate, separate, attached, attached, word, word, noise)


GROUPS = [[], [], [], ["-C", "."], ["-C."], ["-C=."], ["-C", "nowhere"], ["--version"], ["-h"], ["-C"]]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from(sorted(table.COMMANDS)))
    group = draw(
        st.sampled_from([[], ["-C", "."], ["-C."], ["-C=."], ["-C", "nowhere"], ["--version"], ["-h"]])
    )
    head = draw(st.sampled_from([[name]] * 6 + [["list"], [name[:-1]], []]))
    body = draw(st.lists(_tokens(table.COMMANDS[name]), max_size=6))
    return [*group, *head, *(t for token in body for t in token)]


@settings(max_examples=1000, deadline=None)
@given(argv=command_lines())
def test_the_lane_parses_as_click_does_or_declines(argv: list[str]) -> None:
    parsed = lane.parse(argv)
    if parsed is None or parsed[0] == "--version":
        return
    assert parsed == click_parse(argv)


ACCEPTED = [
    ["context", "--agent", "picard"],
    ["context", "-a", "picard", "--include-wiki", "security", "--include=picard/x", "--no-record"],
    ["-C", ".", "context", "-apicard", "--task", "rotate the keys", "--json", "--now", "2026-02-20"],
    ["recall", "staging keys"],
    ["recall", "--limit", "3", "-t", "cold", "word", "--no-logs", "--history", "--agent=worf"],
    ["near", "--from-hook"],
    ["near", "src/auth/token.py", "#123", "--max-bytes=512", "-a", "worf", "--json"],
    ["track", "--from-hook"],
    ["track", "a.jsonl", "--format", "claude", "--dry-run", "--now=2026-02-20"],
]


@pytest.mark.parametrize("argv", ACCEPTED, ids=lambda a: " ".join(a))
def test_the_lane_takes_what_agents_type(argv: list[str]) -> None:
    parsed = lane.parse(argv)
    assert parsed is not None
    assert parsed == click_parse(argv)


DECLINED = [
    [],
    ["--help"],
    ["context", "--help"],
    ["context", "-h"],
    ["context"],
    ["context", "--agent"],
    ["context", "--agen", "x"],
    ["context", "--agent", "x", "--json=yes"],
    ["recall", "--", "word"],
    ["recall", "a", "b"],
    ["recall", "--limit", "many", "word"],
    ["maintain"],
    ["list", "--tier"],
    ["list", "--help"],
    ["--version", "context"],
    ["-C", "x", "--version"],
    ["recall", "a\udcffb"],
    ["recall", "a\0b"],
]


@pytest.mark.parametrize("argv", DECLINED, ids=repr)
def test_the_lane_leaves_the_rest_to_click(argv: list[str]) -> None:
    assert lane.parse(argv) is None


def test_the_lane_leaves_shell_completion_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_SQUADMEM_COMPLETE", "bash_source")
    assert lane.parse(["context", "--agent", "picard"]) is None


@pytest.mark.parametrize("text", ["plain", "\033[31mred\033[0m and \033[1;2mbold\033[m", "", "a\033b"])
@pytest.mark.parametrize("nl", [True, False])
def test_the_lane_prints_as_click_echo(text: str, nl: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    printed = []
    for echo in (click.echo, frequent.echo):
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        echo(text, nl=nl)
        echo(text, nl=nl, err=True)
        printed.append((out.getvalue(), err.getvalue()))
    assert printed[0] == printed[1]


def both(root: Path, *args: str, input: str | None = None) -> list[tuple[int, str, str]]:
    """``squadmem ARGS`` as the console script runs it (the lane), and through click alone."""
    entry = ["-m", "squadmem"], ["-c", "from squadmem.cli.app import run; run()"]
    env = dict(os.environ, PYTHONPATH=str(HERE))
    runs = [
        subprocess.run(
            [sys.executable, *how, *args], cwd=root, env=env, text=True, capture_output=True, input=input
        )
        for how in entry
    ]
    return [(r.returncode, r.stdout, r.stderr) for r in runs]


HOT = "# Hot memory: picard\n\n## Auth tokens\nTokens rotate \033[31mevery\033[0m 30 days.\n"


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("--version",), None),
        (("context", "--agent", "picard"), None),
        (("context", "--agent", "picard", "--json", "--no-record"), None),
        (("context", "--agent", "nobody"), None),
        (("context", "--agent", "../x"), None),
        (("recall", "tokens", "--no-record"), None),
        (("recall", "tokens", "--limit", "0", "--json", "--no-record"), None),
        (("recall", "tokens", "--now", "soon"), None),
        (("near", "--from-hook", "-a", "picard"), '{"tool_name": "Read", "tool_input": {}}'),
        (("near", "--from-hook"), "not json"),
        (("track", "--from-hook", "--dry-run"), '{"transcript_path": "missing.jsonl"}'),
        (("-C", "nowhere", "recall", "x"), None),
        (("context",), None),
        (("list",), None),
        (("list", "--json", "-a", "picard"), None),
        (("list", "--tier", "hot", "--agent", "picard"), None),
        (("list", "--tier", "attic"), None),
    ],
)
def test_the_lane_and_click_print_the_same(repo: GitRepo, args: tuple[str, ...], stdin: str | None) -> None:
    repo.write(".squad/memory/hot/picard.md", HOT)
    repo.commit("memory", {".squad/memory/hot/picard.md": HOT}, date="2026-02-01T10:00:00+00:00")
    lane_run, click_run = both(repo.root, *args, input=stdin)
    assert lane_run == click_run
