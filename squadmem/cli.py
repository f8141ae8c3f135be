"""The ``squadmem`` command: typer commands that parse, call the core, print.

Every command is a few lines: the work is in the module named for its
concept. :class:`SquadmemError` becomes exit 2 (or its own code) with a
one-line message and a hint; anything unexpected becomes exit 3.
"""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from squadmem import __version__, listing, render, scaffold, settings
from squadmem.errors import Exit, SquadmemError
from squadmem.repo import Repo

app = typer.Typer(
    help=(
        "Tiered, git-native memory for AI agent teams.\n\n"
        "Tier files live under .squad/memory/ (hot, cold, archive, wiki, daily logs); "
        "ages come from commit history and every tier move is a commit."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

DEBUG_HINT = "SQUADMEM_DEBUG=1 shows the traceback"
F = TypeVar("F", bound=Callable[..., Any])

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
AgentOpt = Annotated[str | None, typer.Option("--agent", "-a", help="Only this agent's tier files.")]


def guarded(fn: F) -> F:
    """Turn SquadmemError into its exit code and one-line message; anything else into exit 3."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SquadmemError as exc:
            typer.echo(exc.render(), err=True)
            raise typer.Exit(int(exc.code)) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if os.environ.get("SQUADMEM_DEBUG"):
                traceback.print_exc()
            typer.echo(f"squadmem: internal error: {type(exc).__name__}: {exc}", err=True)
            typer.echo(f"hint: this is a bug in squadmem; please report it ({DEBUG_HINT})", err=True)
            raise typer.Exit(int(Exit.INTERNAL)) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"squadmem {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    directory: Annotated[
        Path, typer.Option("-C", help="Run as if started in this folder (like git -C).", show_default=False)
    ] = Path("."),
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    ctx.obj = directory


def open_repo(ctx: typer.Context) -> Repo:
    directory = ctx.find_root().obj or Path(".")
    if not Path(directory).is_dir():
        raise SquadmemError(f"-C {directory}: no such folder", hint="pass an existing folder")
    repo = Repo(directory)
    try:
        settings.load(repo.layout.memory)  # a malformed tiers.toml is refused before any work
    except SquadmemError:
        repo.close()
        raise
    return repo


@app.command()
@guarded
def init(
    ctx: typer.Context,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent", "-a", help="Agent to scaffold (repeatable); default: the folders of .squad/agents/."
        ),
    ] = None,
    hooks: Annotated[
        bool, typer.Option(help="Install the git hooks (chaining any hook already there).")
    ] = True,
) -> None:
    """Create the memory layout, tiers.toml, .gitattributes lines and git hooks.

    Safe to re-run: existing files are never overwritten, Squad's own files in
    .squad/memory/ are never touched, and a second run changes nothing.
    """
    with open_repo(ctx) as repo:
        result = scaffold.init(repo, agent or [], hooks=hooks)
    typer.echo(scaffold.describe(result))


@app.command("list")
@guarded
def list_(
    ctx: typer.Context,
    agent: AgentOpt = None,
    tier: Annotated[
        str | None, typer.Option("--tier", "-t", help="Only this tier: hot, cold, archive, wiki.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List every section: id, tier, size, flags and title."""
    with open_repo(ctx) as repo:
        rows = listing.list_sections(repo, agent, tier)
    typer.echo(render.to_json({"sections": rows}) if as_json else listing.text(rows))


# --- history, uses and report commands ---


# --- maintain, moves and demo commands ---


# --- logs, verify and review commands ---


def run() -> None:
    """Console-script entry point."""
    app(prog_name="squadmem")
