"""``docs/reference.md``: the command reference, rendered from the CLI's own ``--help``.

The README and the pages in docs/ teach; this page lists every command and option exactly as
``--help`` states them, so the two cannot drift: a test renders it again and
compares. Regenerate with ``python -m squadmem.cli.reference > docs/reference.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click

from squadmem.cli.app import app

WIDTH = 100
HEADER = (
    "# Command reference\n\n"
    "Generated from `--help` by `python -m squadmem.cli.reference > docs/reference.md`;"
    " a test keeps it equal to what the commands print. [concepts.md](concepts.md) explains the"
    " concepts; `squadmem <command> --help` shows the same text as this page.\n"
)


def _commands(group: Any, ctx: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub = command.context_class(command, info_name=name, parent=ctx)
        yield " ".join((*path, name)), sub
        if isinstance(command, click.Group):
            yield from _commands(command, sub, (*path, name))


def _help(ctx: click.Context) -> str:
    """The command's own help, at a fixed width."""
    formatter = ctx.make_formatter()
    formatter.width = WIDTH
    ctx.command.format_help(ctx, formatter)
    return str(formatter.getvalue()).rstrip() + "\n"


def render() -> str:
    root = app
    ctx = root.context_class(root, info_name="squadmem", **root.context_settings)
    out = [HEADER, "## `squadmem`\n", "```text\n" + _help(ctx) + "```\n"]
    for name, sub in _commands(root, ctx, ()):
        out.append(f"## `squadmem {name}`\n")
        out.append("```text\n" + _help(sub) + "```\n")
    return "\n".join(out)


if __name__ == "__main__":
    print(render(), end="")
