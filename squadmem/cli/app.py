"""The ``squadmem`` command: click commands that parse, call the core, print.

Every command is a few lines: the work is in the module named for its
concept, imported when the command runs, so a command pays only for what it
uses (agents run ``squadmem context`` at every spawn). :class:`SquadmemError`
becomes exit 2 (or its own code) with a one-line message and a hint;
anything unexpected becomes exit 3.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from squadmem import __version__
from squadmem.cli import frequent, invocation
from squadmem.model.errors import SquadmemError, SquadmemWarning

if TYPE_CHECKING:
    from squadmem.cli.invocation import Repo

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
F = TypeVar("F", bound=Callable[..., Any])


class _Path(click.Path):
    """click's Path, but a value holding a NUL byte is passed on as it is (os.stat would raise
    ValueError): the command refuses it with exit 2 (:func:`check_arguments`)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and "\0" in value:
            return Path(value)
        return super().convert(value, param, ctx)


PATH = _Path(path_type=Path)


class Argument(click.Argument):
    """A positional argument that has help: `--help` lists it under Arguments."""

    def __init__(self, decls: Sequence[str], *, help: str, **kw: Any) -> None:
        super().__init__(decls, **kw)
        self.described = help  # not `help`: click 8.5 has its own, drawn in a section of its own

    def make_metavar(self, ctx: click.Context | None = None) -> str:
        return self.metavar or str(self.name)

    def get_usage_pieces(self, ctx: click.Context) -> list[str]:
        name = self.make_metavar(ctx)
        piece = f"{{{name}}}" if self.required else f"[{name}]"
        return [piece + ("..." if self.nargs != 1 else "")]

    def get_help_record(self, ctx: click.Context) -> tuple[str, str]:
        name = self.make_metavar(ctx) + ("..." if self.nargs != 1 else "")
        return name, f"{self.described}  [required]" if self.required else self.described


class Command(click.Command):
    """A command whose `--help` lists its arguments (with their help) before its options."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records = [(p.param_type_name, p.get_help_record(ctx)) for p in self.get_params(ctx)]
        for kind, title in (("argument", "Arguments"), ("option", "Options")):
            rows = [row for k, row in records if k == kind and row is not None]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Nothing: :meth:`format_options` lists the arguments (click 8.5 would add a second list)."""


class Group(click.Group):
    """A group that lists its commands as written, then its subgroups."""

    command_class = Command
    group_class = type  # subgroups are Groups too

    def list_commands(self, ctx: click.Context) -> list[str]:
        commands = list(self.commands)
        return [n for n in commands if not isinstance(self.commands[n], click.Group)] + [
            n for n in commands if isinstance(self.commands[n], click.Group)
        ]


def option(*decls: str, help: str, metavar: str | None = None, **kw: Any) -> Callable[[F], F]:
    """An option whose `--help` names what it takes (``DATE``, ``NAME``, ``N``…) and its default."""
    kw.setdefault("show_default", True)
    return click.option(*decls, help=help, metavar=metavar, **kw)


def argument(name: str, **kw: Any) -> Callable[[F], F]:
    return click.argument(name, cls=Argument, **kw)


def _listed(ctx: click.Context, param: click.Parameter, value: tuple[Any, ...]) -> list[Any] | None:
    """A repeatable option or argument given no value is None (its default), else a list."""
    return list(value) if value else None


JSON = option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
NOW = option(
    "--now",
    metavar="DATE",
    help=(
        "Take this moment as now: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] with Z or ±HH:MM (none: UTC),"
        " not before the newest commit (verify, review and log may look earlier); a command that"
        " commits dates its commits there;"
        " default: the clock."
    ),
)
AGENT = option("--agent", "-a", metavar="NAME", help="Only this agent's tier files.")
COMMIT_EDITS = option(
    "--commit-edits",
    is_flag=True,
    help=(
        "First commit the tier files' uncommitted changes as they are (one commit; a hot file over"
        " budget, which git commit refuses); default: refuse while a tier file has some."
    ),
)
VERBOSE = option(
    "--verbose", "-v", is_flag=True, help="Say on stderr what the history cache did (read, rebuilt, why)."
)
REF = argument("ref", metavar="ID", help="A section's id (squadmem list shows them) or exact heading.")
TOPIC = option(
    "--topic", metavar="TOPIC", help="With --to wiki: the topic (default: its topic= flag, else decisions)."
)
SESSION_AGENT = option("--agent", "-a", required=True, metavar="NAME", help="The agent whose session it is.")


def _not_utf8(value: Any) -> bool:
    values = value if isinstance(value, list | tuple) else [value]
    return any(isinstance(v, str | Path) and not str(v).isascii() and _undecodable(str(v)) for v in values)


def _undecodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _has_nul(value: Any) -> bool:
    values = value if isinstance(value, list | tuple) else [value]
    return any(isinstance(v, str | Path) and "\0" in str(v) for v in values)


def _refuse_bad_text(shown: str, value: Any) -> None:
    if _not_utf8(value):
        raise SquadmemError(f"{shown}: not UTF-8", hint="give squadmem UTF-8 text")
    if _has_nul(value):
        raise SquadmemError(f"{shown}: holds a NUL byte", hint="give squadmem text without NUL bytes")


def check_arguments(values: dict[str, Any]) -> None:
    """Refuse an argument whose bytes are not UTF-8 (Python keeps them as lone surrogates), or that
    holds a NUL byte (no file name, git argument or text squadmem writes may hold one)."""
    ctx = click.get_current_context(silent=True)
    params = {p.name: p for p in ctx.command.params} if ctx is not None else {}
    for name, value in values.items():
        param = params.get(name)
        opts = param.opts if param is not None else []
        _refuse_bad_text(opts[0] if opts and opts[0].startswith("-") else name.upper(), value)
    if ctx is not None:
        _refuse_bad_text("-C", ctx.find_root().obj)


def guarded(fn: F) -> F:
    """Turn SquadmemError into its exit code and one-line message; anything else into exit 3.

    A command whose first parameter is ``ctx`` is given click's context.
    Arguments that are not UTF-8 are refused first; the warnings the core
    raised (files left out, and why) are printed on stderr.
    """
    code = fn.__code__
    takes_ctx = code.co_argcount > 0 and code.co_varnames[0] == "ctx"

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SquadmemWarning)
            try:
                return _run(fn, takes_ctx, args, kwargs)
            finally:
                frequent.show_warnings(caught, click.echo)

    return wrapper  # type: ignore[return-value]


def _run(fn: Callable[..., Any], takes_ctx: bool, args: Any, kwargs: dict[str, Any]) -> Any:
    try:
        check_arguments(kwargs)
        if takes_ctx:
            args = (click.get_current_context(), *args)
        return fn(*args, **kwargs)
    except (click.exceptions.Exit, click.exceptions.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise click.exceptions.Exit(frequent.failure(exc, click.echo)) from None


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        click.echo(f"squadmem {__version__}")
        ctx.exit()


@click.group(
    "squadmem",
    cls=Group,
    help=(
        "Tiered, git-native memory for AI agent teams.\n\n"
        "Tier files live under .squad/memory/ (hot, cold, archive, wiki, daily logs), or where a"
        " memory-tiers workspace keeps them (MEMORY.md, memory/); "
        "ages come from commit history and every tier move is a commit."
    ),
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
)
@option(
    "-C",
    "directory",
    type=PATH,
    default=Path("."),
    show_default=False,
    metavar="PATH",
    help="Run as if started in this folder (like git -C).",
)
@option(
    "--version",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_version,
    help="Print the version and exit.",
)
@click.pass_context
def app(ctx: click.Context, directory: Path) -> None:
    ctx.obj = directory


def open_repo(ctx: click.Context, set_up_driver: bool = True, needs_memory: bool = False) -> Repo:
    return invocation.open_repo(ctx.find_root().obj, set_up_driver=set_up_driver, needs_memory=needs_memory)


@app.command()
@option(
    "--agent",
    "-a",
    multiple=True,
    callback=_listed,
    metavar="NAME",
    help="Agent to scaffold (repeatable); default: the folders of .squad/agents/.",
)
@option("--hooks/--no-hooks", default=True, help="Install the git hooks (chaining any hook already there).")
@option(
    "--spawn/--no-spawn",
    "spawn_blocks",
    default=True,
    help="In a Squad team, make its spawn template read squadmem's memory (see: squadmem spawn).",
)
@option(
    "--squad-skill/--no-squad-skill",
    default=True,
    help="With --no-spawn in a Squad team, write .github/skills/squadmem-memory/SKILL.md instead.",
)
@option(
    "--workflows",
    "with_workflows",
    is_flag=True,
    help="Also write .github/workflows/squadmem-{maintain,verify}.yml, pinned to this squadmem.",
)
@option(
    "--requirement",
    metavar="SPEC",
    help="What the workflows pip install (default: how this squadmem was installed).",
)
@option(
    "--layout",
    "layout_choice",
    type=click.Choice(["squad", "in-place"]),
    metavar="[squad|in-place]",
    help="squad: .squad/memory/; in-place: a memory-tiers workspace's MEMORY.md and memory/ "
    "(default: in-place where MEMORY.md and memory/ are and .squad/memory/ is not).",
)
@guarded
def init(
    ctx: click.Context,
    agent: list[str] | None,
    hooks: bool,
    spawn_blocks: bool,
    squad_skill: bool,
    with_workflows: bool,
    requirement: str | None,
    layout_choice: str | None,
) -> None:
    """Create the memory layout, tiers.toml, .gitattributes lines, the merge driver and git hooks.

    Safe to re-run: existing files are never overwritten (it says "kept" for
    them), Squad's own files in .squad/memory/ are never touched, and a second
    run changes nothing. In a Squad team it also puts squadmem's marked blocks
    in Squad's spawn files (see: squadmem spawn on), unless Squad's files hold
    entries not taken in yet: then spawns keep reading Squad's files until
    `squadmem intake`, then `squadmem spawn on`; after `squadmem spawn off` it
    leaves them off. Commit what it wrote.

    In a memory-tiers skill workspace (MEMORY.md and memory/, no
    .squad/memory/) squadmem keeps the memory where the host (OpenClaw) loads
    it: MEMORY.md is the one agent's hot tier, memory/tier2-recent.md cold,
    memory/tier3-archive.md the archive, memory/wiki/ the wiki,
    memory/YYYY-MM-DD.md the daily logs, and memory/tiers.toml the settings
    (with the agent's name: --agent, default main). Every command, hook and
    verify works there as in .squad/memory/.
    """
    from squadmem.commands import scaffold

    with open_repo(ctx, set_up_driver=False) as repo:
        result = scaffold.init(
            repo,
            agent or [],
            hooks=hooks,
            squad_skill=squad_skill,
            spawn_blocks=spawn_blocks,
            with_workflows=with_workflows,
            requirement=requirement,
            layout_choice=layout_choice,
        )
    click.echo(scaffold.describe(result))


@app.command("list")
@AGENT
@option("--tier", "-t", metavar="TIER", help="Only this tier: hot, cold, archive, wiki.")
@JSON
@guarded
def list_(ctx: click.Context, **values: Any) -> None:
    """List every section: id, tier, size, flags and title."""
    frequent.list_(click.echo, ctx.find_root().obj, **values)


# --- spawn context ---


@app.command("context")
@option("--agent", "-a", required=True, metavar="NAME", help="The agent being spawned.")
@option("--include-cold", is_flag=True, help="Add the agent's cold memory (summarized history).")
@option(
    "--include-wiki",
    multiple=True,
    callback=_listed,
    metavar="TOPIC",
    help="Add this wiki page (repeatable).",
)
@option(
    "--include",
    multiple=True,
    callback=_listed,
    metavar="ID",
    help="Add this one section of any tier, by id or heading (repeatable).",
)
@option(
    "--task",
    metavar="TEXT",
    help="The task the agent is spawned for: fill hot.max_bytes with the sections matching it first.",
)
@option("--record/--no-record", default=True, help="Record uses of the wiki pages and sections included.")
@JSON
@NOW
@guarded
def context_command(ctx: click.Context, **values: Any) -> None:
    """Print the spawn prompt's "## Memory Context": hot memory, and more only when asked.

    Hot is always included (the session block, notes, the Index); that load is
    not a use, or nothing in hot would ever age. --include-cold adds the cold
    file without recording uses (that would bring every cold section back to
    hot); --include-wiki TOPIC and --include ID add pages and sections and
    record a use of each section they bring. Bytes and approximate tokens go
    to stderr, so stdout is exactly the prompt text.

    A pinned section too large for hot (a Squad Core Context that intake
    keeps in cold) is carried all the same, first; the hot sections that fit
    within hot.max_bytes after it follow, and a warning names the fix.

    --task TEXT (the task the coordinator gives the agent) keeps the whole
    context within hot.max_bytes: pinned sections (Core Context) first, then
    the sections of any tier the agent sees, best first by their BM25 score
    over the task's words (letters and digits, as recall cuts them:
    document-indexer is document and indexer, #302 is 302) plus a lift for
    what the team wrote in its last hours (by when history first holds
    each), then the rest of hot, each whole while it fits; the room left names further matches,
    a line each ("- ID (tier)", then ": title" when the id does not say
    it), for the agent to bring with --include ID; what room is still left
    holds the agent's
    other cold, archive and wiki sections, newest first (by the date each
    states). The payload ends with an Index of what it left out, a line each
    as hot's Index writes them (title, file, tier and date; a wiki page's in
    one line), newest first, cut last-first to fit, its last line saying how
    many more; room for its heading, its newest line and that last line
    (at most a tenth of the budget) is kept before the rest is filled, and
    it takes whatever room the fill leaves. Matches are not recorded
    as uses: the agent confirms one with squadmem touch.

    Example: squadmem context --agent picard --include-wiki security
    """
    frequent.context(click.echo, ctx.find_root().obj, **values)


@app.command("recall")
@argument("query", help="Words, a sentence or names (paths, #123, FR-022, FooBar); any of them finds.")
@AGENT
@option("--tier", "-t", metavar="TIER", help="Only this tier.")
@option(
    "--limit", type=int, default=5, metavar="N", help="Show (and record as used) at most this many sections."
)
@option("--logs/--no-logs", default=True, help="Also search the daily logs (shown, never recorded).")
@option("--record/--no-record", default=True, help="Record the sections shown as used.")
@option(
    "--beyond-spawn",
    is_flag=True,
    help="Leave out the sections a spawn for QUERY holds (what context --agent A --task QUERY gives): "
    "with your task's words, the rest of what it needs. Needs --agent.",
)
@option(
    "--history",
    "in_history",
    is_flag=True,
    help="Also search sections removed from every tier (with the restore command) and lines gone from logs.",
)
@JSON
@NOW
@guarded
def recall_command(ctx: click.Context, **values: Any) -> None:
    """Search every tier and the daily logs; record the sections found as used.

    A section matches when it holds any word of the query, so a task
    sentence works: each word is cut into its letters and digits, so a path
    (src/auth/token.py), an issue (#123), an ID (FR-022) or a name (FooBar)
    matches those parts in that order, and a word also matches as a prefix
    (token finds tokens; a number does not: #12 is not #123); stop words
    (the, to, of) are left out. The best come first: for one word (a name),
    BM25 with titles weighing twice, and of the best hundred those naming
    it as a file, a path part or in a code span first (token.py for token);
    for more words (a task's sentence), BM25 on their tokens, a word
    counting its longer forms (deploy: deployed), more of the words and
    rarer ones first, the sections naming those that look like names
    (#302, token.py) before the others. They
    come from an index in .git/squadmem/ kept current by file; when fewer
    than --limit hold the words whole, sections holding
    them inside longer words follow (token in accessTokenCache, looked up
    by trigrams); when none holds them at all, the parts of a joined word
    are asked for (a task named tank-signalr-doorscan finds the sections
    about SignalR). The sections shown are
    recorded as used, so one recalled from cold or the archive comes back to
    hot at the next maintain if it fits the hot budget (else it stays, with a
    warning); --no-record only looks. --history also finds sections no tier
    holds any more, each with `squadmem restore ID --at REV`, and log lines
    (of a day's log or a session file) no log holds any more.
    --beyond-spawn leaves out what the agent's spawn for the query already
    holds (its hot and pinned sections, the matches and recent ones
    `squadmem context --agent A --task QUERY` gives), so an agent asking
    with its task's words gets five it has not read.

    Example: squadmem recall --agent worf --beyond-spawn "rotate the staging keys"
    """
    frequent.recall(click.echo, ctx.find_root().obj, **values)


# --- history, uses and report commands ---


@app.command("report")
@option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema in docs/commands.md).")
@option("--format", "-f", "fmt", metavar="FORMAT", help="text (the default), markdown or json.")
@NOW
@AGENT
@VERBOSE
@guarded
def report_command(
    ctx: click.Context, as_json: bool, fmt: str | None, now: str | None, agent: str | None, verbose: bool
) -> None:
    """Tier files against their budgets, each section's last use, daily logs, and what to run next.

    A section's last use is the latest of: the earliest commit holding its
    current text (a move keeps it, an edit resets it), any commit whose
    Squad-Memory-Used trailer names it, a pending use (squadmem touch), and
    an uncommitted edit (now). History is read once and cached in
    .git/squadmem/, so later runs read only new commits. In a shallow clone,
    ages that reach the boundary are "unknown" and such sections never move.

    Example: squadmem report --agent picard --now 2026-03-01 --format markdown
    """
    from squadmem.commands import report as reporting

    if fmt is not None and fmt not in ("text", "markdown", "json"):
        raise SquadmemError(f"--format {fmt}: unknown format", hint="use text, markdown or json")
    if as_json and fmt not in (None, "json"):
        raise SquadmemError(
            f"--json and --format {fmt} ask for two formats",
            hint="give one: --json, or --format text|markdown",
        )
    fmt = "json" if as_json else fmt or "text"
    with open_repo(ctx, needs_memory=True) as repo:
        data = reporting.make(repo, now=invocation.moment(now, repo), agent=agent, verbose=verbose)
    if fmt == "json":
        click.echo(invocation.to_json(data))
    else:
        click.echo(
            reporting.markdown(data) if fmt == "markdown" else reporting.text(data), nl=fmt != "markdown"
        )


@app.command("history")
@argument("ref", metavar="ID", help="A section's id (see squadmem list) or exact heading.")
@JSON
@guarded
def history_command(ctx: click.Context, ref: str, as_json: bool) -> None:
    """A section's timeline from commits: created, edited, moved (from → to), used.

    Each event names its commit, date and author. A move is found by content,
    whoever made it (squadmem or a hand cut-and-paste); an edit made on a
    branch is dated by the branch's commit; uses are commits whose
    Squad-Memory-Used trailer names the section, plus pending uses. The walk
    is kept in .git/squadmem/timeline-walks: asked again, only commits made
    since are walked.

    Example: squadmem history picard/auth-tokens
    """
    from squadmem.commands import timeline

    with open_repo(ctx, needs_memory=True) as repo:
        data = timeline.timeline(repo, ref)
    click.echo(invocation.to_json(data) if as_json else timeline.text(data, repo.layout.places))


@app.command("touch")
@argument(
    "refs",
    metavar="ID",
    nargs=-1,
    required=True,
    help="Section ids or exact headings.",
)
@NOW
@guarded
def touch_command(ctx: click.Context, refs: tuple[str, ...], now: str | None) -> None:
    """Record a use of each section now: it counts at once, and rides on your next commit.

    The uses wait in .git/squadmem/pending-uses.json; the prepare-commit-msg
    hook (installed by squadmem init) adds them to your next commit message as
    a trailer `Squad-Memory-Used: <id>, <id>`, and they are cleared once a
    commit carrying them exists. A use keeps a section in hot, and brings a
    cold or archive one back on the next squadmem maintain.

    Example: squadmem touch picard/auth-tokens "Deploy checklist"
    """
    from squadmem.commands import touch

    with open_repo(ctx, needs_memory=True) as repo:
        ids = touch.touch(repo, refs, invocation.moment(now, repo, records=True))
    click.echo(touch.text(ids))


# --- maintain, moves and demo commands ---


def _print_outcome(outcome: Any, as_json: bool) -> None:
    click.echo(invocation.to_json(outcome.as_dict()) if as_json else outcome.text())


@app.command()
@option("--dry-run", "-n", is_flag=True, help="Print the plan; change nothing.")
@option("--json", "as_json", is_flag=True, help="Print the plan (and commits made) as JSON.")
@AGENT
@NOW
@option(
    "--hot-stale-days",
    type=float,
    metavar="DAYS",
    help="Hot section unused this many days → cold (default: hot.stale_days, 7).",
)
@option(
    "--hot-max-bytes",
    type=int,
    metavar="BYTES",
    help="Hot file budget in bytes, Index included (default: hot.max_bytes, 4096).",
)
@option(
    "--hot-max-lines",
    type=int,
    metavar="LINES",
    help="Hot file budget in lines, Index included (default: hot.max_lines, 100).",
)
@option(
    "--cold-ttl-days",
    type=float,
    metavar="DAYS",
    help="Cold section unused this many days → wiki/archive (default: cold.ttl_days, 30).",
)
@option(
    "--promote-window-hours",
    type=float,
    metavar="HOURS",
    help="Cold/archive section used this recently → hot (default: promote.window_hours, 24).",
)
@option(
    "--intake/--no-intake",
    "take_in",
    default=True,
    help="First take in Squad's new entries (see: squadmem intake).",
)
@COMMIT_EDITS
@guarded
def maintain(
    ctx: click.Context,
    dry_run: bool,
    as_json: bool,
    agent: str | None,
    now: str | None,
    hot_stale_days: float | None,
    hot_max_bytes: int | None,
    hot_max_lines: int | None,
    cold_ttl_days: float | None,
    promote_window_hours: float | None,
    take_in: bool,
    commit_edits: bool,
) -> None:
    """Apply the tier rules, one commit per move, then refresh each changed Index.

    In a Squad team it first takes in what Squad's agents appended to their
    history.md and decisions files (one intake commit; see squadmem intake).

    In order: hot sections unused for hot.stale_days go to cold; cold sections
    unused for cold.ttl_days go to the wiki (kind=decision|fact, topic= or
    "decisions") or the archive; cold and archive sections used (a
    Squad-Memory-Used trailer or a pending touch) within promote.window_hours
    come back to hot if they fit its budget (else they stay, with a warning;
    one demoted by hand waits for a newer use); then, while a hot file with
    its Index is over its budget, its least recently used section goes to
    cold. A cold file over budget is reported with the --cold-ttl-days run
    that brings it under. Pinned sections, the Session
    block, the Index and the wiki never move. Each move is a commit
    `memory(<agent>): demote "<title>" hot → cold` with Squad-Memory-Move and
    Squad-Memory-Reason trailers; your other staged and unstaged changes are
    left alone, and a tier file with uncommitted changes makes the run refuse
    (--commit-edits commits them first, as they are: an edit that took hot
    over budget, which the pre-commit hook refuses, then moves sections out).
    Thresholds come from .squad/memory/tiers.toml (memory/tiers.toml in a
    memory-tiers workspace kept in place); the flags override them. In such
    a workspace it first reads the uses OpenClaw left (squadmem track with
    no files: the agent's session transcripts and the skill's access log),
    so a section the agent used there is not moved out for its age.

    Example: squadmem maintain --dry-run --now 2026-03-01
    """
    from squadmem.commands import maintain as maintaining

    overrides = {
        "hot": {"stale_days": hot_stale_days, "max_bytes": hot_max_bytes, "max_lines": hot_max_lines},
        "cold": {"ttl_days": cold_ttl_days},
        "promote": {"window_hours": promote_window_hours},
    }
    with open_repo(ctx, needs_memory=True) as repo:
        outcome = maintaining.maintain(
            repo,
            now=invocation.moment(now, repo, commits=not dry_run),
            agent=agent,
            overrides=overrides,
            dry_run=dry_run,
            take_in=take_in,
            commit_edits=commit_edits,
        )
    _print_outcome(outcome, as_json)


@app.command()
@REF
@option("--to", default="hot", metavar="TIER", help="Tier to move it to: hot, cold, archive or wiki.")
@TOPIC
@JSON
@NOW
@COMMIT_EDITS
@guarded
def promote(
    ctx: click.Context,
    ref: str,
    to: str,
    topic: str | None,
    as_json: bool,
    now: str | None,
    commit_edits: bool,
) -> None:
    """Move one section up to hot (or --to another tier), as one commit.

    Name it by id or exact heading; a name that fits several sections is an
    error listing them, never a guess. A section already in that tier is left
    alone (exit 0). A missing hot file is created from the template. Moving
    into hot counts as a use, so the stale rule does not send it straight back;
    a full hot file first sends out its least recently used movable sections
    (each a commit), and a section that cannot fit even then is refused.

    Example: squadmem promote picard/auth-tokens
    """
    from squadmem.commands import move

    with open_repo(ctx, needs_memory=True) as repo:
        moment = invocation.moment(now, repo, commits=True)
        outcome = move.promote(repo, ref, now=moment, to=to, topic=topic, commit_edits=commit_edits)
    _print_outcome(outcome, as_json)


@app.command()
@REF
@option("--to", metavar="TIER", help="Tier to move it to; default: one down (hot → cold → archive).")
@TOPIC
@JSON
@NOW
@COMMIT_EDITS
@guarded
def demote(
    ctx: click.Context,
    ref: str,
    to: str | None,
    topic: str | None,
    as_json: bool,
    now: str | None,
    commit_edits: bool,
) -> None:
    """Move one section down one tier (hot → cold, cold → archive), or --to a tier, as one commit.

    Name it by id or exact heading; an ambiguous name lists the candidates and
    exits 2. A section already in that tier (or in the archive) is left alone
    (exit 0). A missing destination file is created from the template. A
    demote holds: maintain promotes the section again only for a use newer
    than the demote.

    Example: squadmem demote "Auth tokens" --to archive
    """
    from squadmem.commands import move

    with open_repo(ctx, needs_memory=True) as repo:
        moment = invocation.moment(now, repo, commits=True)
        outcome = move.demote(repo, ref, now=moment, to=to, topic=topic, commit_edits=commit_edits)
    _print_outcome(outcome, as_json)


@app.command()
@REF
@option("--at", metavar="REV", help="Take it from this commit; default: the last commit that had it.")
@option("--to", metavar="TIER", help="Tier to put it in; default: the tier it was in.")
@TOPIC
@JSON
@NOW
@guarded
def restore(
    ctx: click.Context,
    ref: str,
    at: str | None,
    to: str | None,
    topic: str | None,
    as_json: bool,
    now: str | None,
) -> None:
    """Bring back a section that is no longer in any tier, from history, as one commit.

    It is found by id or exact heading in the last commit that had it (or in
    --at REV) and appended to the tier file it was in (or --to's), with
    trailers Squad-Memory-Move: <id> history -> <tier> and Squad-Memory-Restore: <rev>.
    A restore counts as a use. A section that is still there is left alone (exit 0).

    Example: squadmem restore picard/auth-tokens --at HEAD~5
    """
    from squadmem.commands import restore as restoring

    with open_repo(ctx, needs_memory=True) as repo:
        outcome = restoring.restore(
            repo, ref, now=invocation.moment(now, repo, commits=True), at=at, to=to, topic=topic
        )
    _print_outcome(outcome, as_json)


@app.command()
@option(
    "--fix",
    is_flag=True,
    help="Finish or roll back a half-finished move; settle what a merge left (commits).",
)
@JSON
@guarded
def doctor(ctx: click.Context, fix: bool, as_json: bool) -> None:
    """Check squadmem's setup and memory's integrity; exit 1 if a check fails.

    Hooks installed, merge driver configured, tiers.toml valid, tier files
    and daily logs readable (a failure names the command that clears it;
    tier folders are folders), no section in two places, no file under a tier folder squadmem
    cannot read, no Index line pointing at nothing, no half-finished move or
    index.lock left by one (--fix completes or rolls it back), no edit a merge
    kept at a section's old place (--fix commits it at the new place, and
    removes a section's copies in other tiers), no unpublished move rebased
    onto an edit of its section (--fix makes it again), git's own index.lock left by
    a killed git command, shallow clone, pending uses.

    Example: squadmem doctor --fix
    """
    from squadmem.commands import doctor as doctoring

    directory = ctx.find_root().obj
    # a malformed tiers.toml is for doctor to report; nothing is set up before its checks
    with invocation.open_repo(directory, set_up_driver=False, read_settings=False) as repo:
        checks = doctoring.run(repo, fix=fix)
    click.echo(invocation.to_json(doctoring.as_dict(checks)) if as_json else doctoring.text(checks))
    raise click.exceptions.Exit(int(doctoring.exit_code(checks)))


@app.command()
@guarded
def settle(ctx: click.Context) -> None:
    """Commit what a merge left: each edit it kept at a moved section's old place, at the new place.

    The merge driver notes such an edit (git took the moved section's new file
    whole); this makes one commit that puts it at the new place, then one that
    removes a section's later copies when it is in two places of one agent's
    tiers or of the wiki. The post-merge hook runs it after every merge that
    left one; `maintain` and `doctor --fix` do it first too.

    A move commit rebased onto an edit of its section (git pull --rebase)
    carries the unedited text: settle first makes the unpublished commits
    from that move on again, the move carrying the edited text (a pure move
    verify proves), and drops a settle commit that did it on top.

    Example: squadmem settle
    """
    from squadmem.commands import doctor

    with open_repo(ctx) as repo:
        notes = doctor.settle_merges(repo)
    click.echo("\n".join(notes) if notes else "nothing to settle")


@app.command()
@option(
    "--keep", type=PATH, metavar="PATH", help="Build the demo repository here (a new folder) and keep it."
)
@guarded
def demo(keep: Path | None) -> None:
    """Show squadmem at work on a throw-away repository with 60 days of agent memory.

    Builds a git repository where picard, worf and data kept hot, cold and
    wiki memory and daily logs for about 60 days (sample content shipped with
    squadmem), then prints `squadmem report`, `squadmem maintain --dry-run`,
    `squadmem maintain`, the resulting `git log --oneline` and one move commit.
    The output is the same on every run (--now is the end of that history).

    Example: squadmem demo --keep ledger-demo
    """
    from squadmem.commands import demo as demoing

    demoing.run(keep, click.echo)


# --- logs, verify and review commands ---


@app.group(
    "log",
    no_args_is_help=True,
    help=(
        "Daily logs: .squad/memory/log/YYYY-MM-DD.md (memory/YYYY-MM-DD.md in a memory-tiers workspace),"
        " named by the day in tiers.toml's timezone, and session files YYYY-MM-DD-<suffix>.md beside them; "
        "append-only during its day, frozen after it."
    ),
)
def log_app() -> None:
    """A group: its commands do the work."""


@log_app.command("add")
@argument("text", help="The entry's text; - reads it from standard input.")
@option("--agent", "-a", metavar="NAME", help="Agent the entry is from.")
@NOW
@guarded
def log_add(ctx: click.Context, text: str, agent: str | None, now: str | None) -> None:
    """Append a timestamped entry to today's log, creating the log if needed.

    The entry reads `- 14:03 [picard] text`; the further lines of a multi-line
    text are indented by two spaces. Commit the log during its day: after its
    midnight (plus log.grace_minutes) the hooks and verify refuse any change,
    so --now for a past day whose log is committed is refused.

    Example: squadmem log add --agent picard "rotated the staging keys"
    """

    from squadmem.commands import daylog

    body = frequent.read_stdin() if text == "-" else text
    with open_repo(ctx) as repo:
        click.echo(f"appended to {daylog.add(repo, body, invocation.moment(now, repo, earlier=True), agent)}")


@log_app.command("show")
@argument("day", metavar="[DATE]", required=False, help="YYYY-MM-DD; default: today.")
@JSON
@NOW
@guarded
def log_show(ctx: click.Context, day: str | None, as_json: bool, now: str | None) -> None:
    """Print a day's log (default: today's, in tiers.toml's timezone).

    The session files of that day (YYYY-MM-DD-<suffix>.md) follow, each under
    a line `==> FILE <==`. --json prints {"date", "file", "entries": [{"time",
    "agent", "text"}], "text"}, and "sessions": [{"file", "text"}] when the
    day has session files ("file" null when it has only those).

    Example: squadmem log show 2026-03-01 --json
    """
    from squadmem.commands import daylog

    with open_repo(ctx) as repo:
        shown = daylog.show(repo, day, now)
    if as_json:
        click.echo(invocation.to_json(shown.as_dict()))
    else:
        text = shown.output()
        click.echo(text, nl=not text.endswith("\n"))


@app.command()
@argument(
    "revs",
    metavar="RANGE",
    nargs=-1,
    callback=_listed,
    help="Commits to check, as for git log (origin/main..HEAD); default: @{upstream}..HEAD, else HEAD.",
)
@JSON
@NOW
@guarded
def verify(ctx: click.Context, revs: list[str] | None, as_json: bool, now: str | None) -> None:
    """Prove a range of commits kept memory's rules; exit 1 with one line per violation.

    For every commit: daily logs judged by its committer date (no change after
    the log's day, no rename or deletion, no bad or future name, only appends
    during the day); each Squad-Memory-Move commit a pure move; each
    Squad-Memory-Index commit only the Index section; every other commit that
    changes tier files, and every merge, loses no section (unless edited,
    renamed, removed from the archive, or named in a Squad-Memory-Delete: ID
    trailer) and duplicates none. Which files are memory is each commit's own
    layout (.squad/memory/, or a workspace's memory/tiers.toml with nothing
    under .squad/memory/): a commit that changes it is judged in its parent's
    layout and its own, and must carry every section and log along. A log or
    tier file committed as a symlink or submodule is a violation; replacement
    refs (git replace) are never read. At the tip: hot budgets. Commits dated
    more than an hour after --now are reported too.

    Examples: squadmem verify origin/main..HEAD; squadmem verify -- HEAD --not --remotes=origin
    """
    from squadmem.commands import verify as verifying

    with open_repo(ctx) as repo:
        shown, code = verifying.verify(
            repo, revs, invocation.moment(now, repo, earlier=True), as_json=as_json
        )
    click.echo(shown)
    raise click.exceptions.Exit(int(code))


@app.command()
@argument(
    "revs",
    metavar="RANGE",
    nargs=-1,
    required=True,
    callback=_listed,
    help="Commits to review, as for git log.",
)
@option(
    "--format",
    "-f",
    "fmt",
    default="markdown",
    metavar="FORMAT",
    help="markdown (a pull-request comment) or json.",
)
@NOW
@guarded
def review(ctx: click.Context, revs: list[str], fmt: str, now: str | None) -> None:
    """Render a range's memory changes as a pull-request comment.

    Moves (section, from → to, reason, verified ✓/✗), hot and cold file sizes
    at the range's base and tip against their budgets, bytes appended to daily
    logs, and verify's violations. Exits 0 whatever it finds: verify is the gate.

    Example: squadmem review origin/main..HEAD --format markdown > comment.md
    """
    from squadmem.commands import review as reviewing

    reviewing.check_format(fmt)
    with open_repo(ctx) as repo:
        found = reviewing.review(repo, revs, invocation.moment(now, repo, earlier=True))
    click.echo(reviewing.as_json(found) if fmt == "json" else reviewing.markdown(found), nl=fmt == "json")


# --- session commands ---


@app.group(
    "session",
    no_args_is_help=True,
    help=(
        "An agent's session: the hot `## Session` block, written at start, "
        "logged and summarized into cold at end."
    ),
)
def session_app() -> None:
    """A group: its commands do the work."""


@session_app.command("start")
@SESSION_AGENT
@option("--task", "-t", required=True, metavar="TEXT", help="What the agent is doing, one line.")
@option("--talking-to", metavar="NAME", help="Who the agent is talking to.")
@option("--force", is_flag=True, help="Replace a session in progress (it stays in history).")
@option("--new", is_flag=True, help="The agent is new here: create its hot file.")
@NOW
@JSON
@guarded
def session_start(
    ctx: click.Context,
    agent: str,
    task: str,
    talking_to: str | None,
    force: bool,
    new: bool,
    now: str | None,
    as_json: bool,
) -> None:
    """Write the `## Session` block into hot/<agent>.md and commit it.

    The agent must have tier files already (a typo is refused with the list of
    agents here); --new creates the hot file of an agent new to the team.

    The block holds the task, the start time and, each `- none yet` until the
    agent fills them in: Active decisions, Last actions, Blockers, Talking to.
    A session already in progress is refused unless --force. The commit is made
    beside your work: your other staged and unstaged changes are left alone.

    Example: squadmem session start --agent picard --task "rotate the staging keys"
    """
    from squadmem.commands import session as sessions

    with open_repo(ctx) as repo:
        moment = invocation.commit_moment(now, repo)
        result = sessions.start(repo, agent, task, moment, talking_to=talking_to, force=force, new=new)
    click.echo(invocation.to_json(result.as_dict()) if as_json else result.text())


@session_app.command("end")
@SESSION_AGENT
@option(
    "--summary-file",
    metavar="FILE",
    help="The summary for cold (- reads standard input); default: extractive.",
)
@option(
    "--transcript",
    multiple=True,
    type=PATH,
    callback=_listed,
    metavar="FILE",
    help="Track this session transcript first (squadmem track); repeatable.",
)
@NOW
@JSON
@guarded
def session_end(
    ctx: click.Context,
    agent: str,
    summary_file: str | None,
    transcript: list[Path] | None,
    now: str | None,
    as_json: bool,
) -> None:
    """Log the session, summarize it into cold, clear the block: one commit.

    The raw block is appended to today's daily log; a cold section
    `## <YYYY-MM-DD>: <task>` holds the summary (yours, or one extracted from
    the block: the task, every decision, then blockers and last actions while
    they fit a tenth of its size); the block goes back to `- none yet`.
    With --now, the entry goes to that moment's daily log, which must still
    be open at the date the commit will carry (else exit 2, nothing written).

    Example: squadmem session end --agent picard --summary-file - < summary.md
    """

    from squadmem.commands import session as sessions

    summary = None
    if summary_file == "-":
        summary = frequent.read_stdin()
    elif summary_file is not None:
        try:
            summary = Path(summary_file).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SquadmemError(
                f"--summary-file {summary_file}: cannot read it ({type(exc).__name__})",
                hint="give a UTF-8 text file, or - for standard input",
            ) from None
    with open_repo(ctx) as repo:
        moment = invocation.commit_moment(now, repo)
        if transcript:
            from squadmem.commands import track as tracking

            tracked = tracking.track(repo, transcript, moment)
            click.echo(tracked.text().splitlines()[-1], err=True)
        result = sessions.end(repo, agent, moment, summary)
    click.echo(invocation.to_json(result.as_dict()) if as_json else result.text())


@app.command()
@JSON
@guarded
def uninstall(ctx: click.Context, as_json: bool) -> None:
    """Take squadmem out of this repository; keep every memory file.

    Removes squadmem's git hooks (an earlier hook squadmem chained is put
    back), the merge driver (git config merge.squadmem), squadmem's lines in
    .gitattributes and the spawn blocks (as squadmem spawn off does). The
    tracked changes are one commit. The tier files, daily logs, wiki and
    tiers.toml stay as they are; a second run finds nothing to do, and
    squadmem init sets everything up again.

    Example: squadmem uninstall
    """
    from squadmem.commands import uninstall as uninstalling

    with open_repo(ctx, set_up_driver=False) as repo:
        removed = uninstalling.uninstall(repo)
    click.echo(invocation.to_json(removed.as_dict()) if as_json else removed.text())


# --- spawn commands ---


@app.group(
    "spawn",
    no_args_is_help=True,
    help="What Squad's spawn tells each agent to read: squadmem's memory, or Squad's whole files.",
)
def spawn_app() -> None:
    """A group: its commands do the work."""


@spawn_app.command("on")
@option("--dry-run", "-n", is_flag=True, help="Say which files would change; change nothing.")
@JSON
@guarded
def spawn_on(ctx: click.Context, dry_run: bool, as_json: bool) -> None:
    """Make Squad's spawn read squadmem's memory, as one commit.

    Where .squad/templates/spawn-reference.md tells every agent to read its
    whole history.md and decisions.md (and where .github/agents/squad.agent.md,
    the charter template, each agent's charter.md and Squad's tiered-memory and
    agent-collaboration skills repeat it), a marked block
    (<!-- squadmem:KEY --> ... <!-- /squadmem:KEY -->) tells it to run
    `squadmem context --agent {name} --task "<its task>"` instead. Lines are
    found by what they say, not by line number; a spawn template without them
    is refused, and so is a team whose entries are not taken in yet (run
    `squadmem intake` first). The lines replaced are kept in
    .squad/memory/squad-spawn.json. `squad upgrade` drops the blocks: the
    pre-commit hook puts them back before such a commit (add the fixed files
    and commit again), verify and the pre-push hook name a commit that lost
    one, and `squadmem maintain` puts back what is committed without them.
    Blocks an older squadmem worded otherwise are written again in today's
    words (so are they by maintain). `squadmem init` does this in the work
    tree.

    Example: squadmem spawn on --dry-run
    """
    from squadmem.commands import spawn

    with open_repo(ctx, needs_memory=True) as repo:
        turned = spawn.turn(repo, on=True, dry_run=dry_run)
    click.echo(invocation.to_json(turned.as_dict()) if as_json else turned.text())


@spawn_app.command("off")
@option("--dry-run", "-n", is_flag=True, help="Say which files would change; change nothing.")
@JSON
@guarded
def spawn_off(ctx: click.Context, dry_run: bool, as_json: bool) -> None:
    """Give Squad's files back their own spawn lines, byte for byte, as one commit.

    Each squadmem block is replaced by the line it stood for; spawns read the
    whole history.md and decisions.md again and maintain no longer puts the
    blocks back. The tiers and the intake are untouched.

    Example: squadmem spawn off
    """
    from squadmem.commands import spawn

    with open_repo(ctx) as repo:
        turned = spawn.turn(repo, on=False, dry_run=dry_run)
    click.echo(invocation.to_json(turned.as_dict()) if as_json else turned.text())


@spawn_app.command("status")
@JSON
@guarded
def spawn_status(ctx: click.Context, as_json: bool) -> None:
    """Where squadmem's blocks stand in Squad's files, and Squad's lines left without one.

    A block in an older squadmem's wording is listed as outdated: the next
    `squadmem maintain` (or `squadmem spawn on`) writes today's.

    Example: squadmem spawn status --json
    """
    from squadmem.commands import spawn

    with open_repo(ctx) as repo:
        state = spawn.status(repo)
    click.echo(invocation.to_json(state.as_dict()) if as_json else state.text())


# --- wiki commands ---


@app.group(
    "wiki",
    no_args_is_help=True,
    help="Durable reference knowledge: wiki pages under .squad/memory/wiki/ (memory/wiki/ in a workspace).",
)
def wiki_app() -> None:
    """A group: its commands do the work."""


@wiki_app.command("write")
@argument("topic", help="The wiki page: .squad/memory/wiki/TOPIC.md (memory/wiki/TOPIC.md in a workspace).")
@option(
    "--file",
    "-f",
    default="-",
    metavar="FILE",
    help="Read the entry from this file; - (the default) is stdin.",
)
@option("--title", metavar="TEXT", help="Heading for an entry written without a ## heading.")
@option("--replace", is_flag=True, help="Replace a section of the page that has the same title.")
@JSON
@guarded
def wiki_write(
    ctx: click.Context, topic: str, file: str, title: str | None, replace: bool, as_json: bool
) -> None:
    """Write an entry into a wiki page, as one commit.

    The entry is Markdown with ## sections (### inside them), or plain text
    with --title. A section already on the page with the same content is
    skipped; one with the same title is refused unless --replace. The page is
    created from the template if missing. Your other changes are left alone.

    Example: echo "Rotate signing keys every 90 days." | squadmem wiki write security --title "Key rotation"
    """
    from squadmem.commands import wiki

    text = frequent.read_stdin() if file == "-" else _read_text(file)
    with open_repo(ctx) as repo:
        written = wiki.write(repo, topic, text, title=title, replace=replace)
    click.echo(invocation.to_json(written.as_dict()) if as_json else written.text())


def _read_text(path: str) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise SquadmemError(f"{path}: cannot read: {exc.strerror}", hint="check the path") from None
    except UnicodeDecodeError:
        raise SquadmemError(f"{path}: not UTF-8", hint="save the entry as UTF-8") from None


@app.command("near")
@argument("things", nargs=-1, callback=_listed, metavar="THING", help="Files or issues (#123) to look up.")
@option(
    "--from-hook", is_flag=True, help="Read a Claude Code PostToolUse hook's JSON on stdin; print its output."
)
@option("--agent", "-a", metavar="NAME", help="Whose memory (default: $SQUADMEM_AGENT, else every agent's).")
@option("--max-bytes", type=int, default=1024, metavar="BYTES", help="At most this many bytes per event.")
@JSON
@guarded
def near_command(ctx: click.Context, **values: Any) -> None:
    """Memory that names the file or issue an agent just touched (an opt-in Claude Code hook).

    As a PostToolUse hook it reads the event's JSON, takes the files the tool
    read or edited (by file name) and the #issues and file names of a shell
    command, and prints the hook output that adds the entries of the agent's
    cold, archive and the wiki naming them (best first, as recall ranks;
    whole while they fit in --max-bytes, then a line each), each entry once
    per session. Nothing is recorded as used. It never fails the tool call:
    a problem is one line on stderr, exit 0. By hand: squadmem near
    src/auth/token.py '#123'.

    In .claude/settings.json:
    {"hooks": {"PostToolUse": [{"matcher": "Read|Edit|Write|MultiEdit|Bash",
    "hooks": [{"type": "command", "command": "squadmem near --from-hook"}]}]}}
    """
    frequent.near(click.echo, ctx.find_root().obj, **values)


@app.command("track")
@argument(
    "files",
    nargs=-1,
    type=PATH,
    callback=_listed,
    metavar="FILE",
    help="Session transcripts (JSONL, or OpenClaw's SQLite store).",
)
@option(
    "--format",
    "fmt",
    default="auto",
    metavar="FORMAT",
    help="auto, claude (Claude Code), codex (Codex CLI rollout) or openclaw (session JSONL or SQLite).",
)
@option("--from-hook", is_flag=True, help="Read a Claude Code hook's JSON (transcript_path) on stdin.")
@option("--dry-run", is_flag=True, help="Show the uses; record nothing.")
@NOW
@JSON
@guarded
def track_command(ctx: click.Context, **values: Any) -> None:
    """Record a use of each section an agent read or cited in its session transcripts.

    A read of a tier file (the sections its line range returned; a whole hot
    file is the spawn's load, never a use), a section id in the agent's
    output, or a heading it quoted; in OpenClaw also memory_get, an edit of a
    memory file and a memory_search hit the agent read or cited. Each use
    counts at the event's time. A transcript read again records nothing new.

    In an OpenClaw memory-tiers workspace, with no files it reads what the
    host left for the workspace's agent: its SQLite store
    (~/.openclaw/agents/<id>/agent/openclaw-agent.sqlite, read-only), older
    sessions/*.jsonl, and the skill's access-log.json; one it cannot read is
    a warning, and skipped (maintain reads them too). A file named here that
    cannot be read is an error, and nothing is recorded.

    Example: squadmem track ~/.claude/projects/-src-app/3f9c.jsonl
    """
    frequent.track(click.echo, ctx.find_root().obj, **values)


# --- migrate commands ---


@app.group(
    "migrate",
    no_args_is_help=True,
    help="Bring another memory layout into squadmem's tiers, ages kept by git history.",
)
def migrate_app() -> None:
    """A group: its commands do the work."""


@migrate_app.command("squad")
@option(
    "--remove-originals",
    is_flag=True,
    help="Then cut each fully taken-in history.md down to its header (work tree only).",
)
@option("--dry-run", is_flag=True, help="Show where entries would go; change nothing.")
@NOW
@JSON
@guarded
def migrate_squad(
    ctx: click.Context, remove_originals: bool, dry_run: bool, now: str | None, as_json: bool
) -> None:
    """Take a Squad team's memory into the tiers, entry by entry: one commit.

    Each `###` learning and `📌` update of .squad/agents/<agent>/history.md
    (and history-archive.md), each decision of .squad/decisions.md (and
    decisions-archive.md, decisions/inbox/) becomes a `##` section of its own,
    placed by its age from git history: Core Context pinned in hot, recent
    entries in hot within its budget, then cold, then the archive; decisions in
    the wiki topic `decisions`. Entries already taken in are skipped (the
    ledger .squad/memory/intake.tsv), so a second run takes only what is new.
    Squad's files are read as committed; they are left alone unless
    --remove-originals.

    Example: squadmem migrate squad --dry-run
    """
    from squadmem.commands import migrate

    with open_repo(ctx) as repo:
        conf = repo.layout.settings
        result = migrate.squad_team(
            repo,
            conf,
            invocation.moment(now, repo, commits=not dry_run),
            remove_originals=remove_originals,
            dry_run=dry_run,
        )
    click.echo(invocation.to_json(result.as_dict()) if as_json else result.text())


@app.command()
@option("--dry-run", "-n", is_flag=True, help="Show where entries would go; change nothing.")
@NOW
@JSON
@guarded
def intake(ctx: click.Context, dry_run: bool, now: str | None, as_json: bool) -> None:
    """Take in what Squad's agents appended since the last intake: one commit.

    Reads .squad/agents/*/history.md (and history-archive.md),
    .squad/decisions.md (and decisions-archive.md) and .squad/decisions/inbox/
    as HEAD has them, and takes in each entry not taken before, where its age
    puts it. `squadmem maintain` runs it first, so a team rarely needs to.

    Example: squadmem intake --dry-run
    """
    from squadmem.commands import intake as intaking

    with open_repo(ctx, needs_memory=True) as repo:
        conf = repo.layout.settings
        result = intaking.intake(
            repo, conf, invocation.moment(now, repo, commits=not dry_run), dry_run=dry_run
        )
    click.echo(invocation.to_json(result.as_dict()) if as_json else result.text())


@migrate_app.command("memory-tiers")
@argument(
    "workspace",
    required=False,
    type=PATH,
    metavar="WORKSPACE",
    help="The skill's workspace (MEMORY.md, memory/, state/); default: here.",
)
@option("--agent", "-a", metavar="NAME", help="The agent whose tiers receive it.")
@option("--dry-run", is_flag=True, help="Show what would move; change nothing.")
@NOW
@JSON
@guarded
def migrate_memory_tiers(
    ctx: click.Context,
    workspace: Path | None,
    agent: str | None,
    dry_run: bool,
    now: str | None,
    as_json: bool,
) -> None:
    """Move a memory-tiers workspace into an agent's tiers and daily logs: one commit.

    MEMORY.md goes to hot, memory/tier2-recent.md to cold, memory/tier3-archive.md
    to the archive, memory/YYYY-MM-DD.md (and YYYY-MM-DD-<suffix>.md session
    files, each under its name) to the daily logs, byte for byte; the
    section access times of state/access-log.json ride on the commit as dated
    Squad-Memory-Used trailers. A second run changes nothing.

    The host (OpenClaw) still loads the workspace's MEMORY.md in its main sessions,
    and squadmem no longer maintains it: to keep MEMORY.md as the hot tier,
    run squadmem init in the workspace instead (it keeps the memory in place).

    Example: squadmem migrate memory-tiers ~/.openclaw/workspace --agent main --dry-run
    """
    from squadmem.commands import migrate_tiers

    where = None if workspace is None else Path(ctx.find_root().obj or ".") / workspace
    with open_repo(ctx) as repo:
        result = migrate_tiers.memory_tiers(
            repo,
            where,
            agent,
            dry_run=dry_run,
            now=invocation.moment(now, repo, commits=not dry_run) if now else None,
        )
    click.echo(invocation.to_json(result.as_dict()) if as_json else result.text())


def run() -> None:
    """Console-script entry point."""
    app(prog_name="squadmem")
