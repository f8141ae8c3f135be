"""What the commands run most often do once parsed: ``context`` at every spawn, ``recall``,
``near`` and ``track`` as hooks at every tool call, and ``list``.

Two entry points call these with the same arguments: the click CLI (:mod:`squadmem.cli.app`) and the
fast lane (:mod:`squadmem.cli.lane`), which parses these commands without importing click. Each
function takes the ``echo`` to print with (click's, or :func:`echo`, the lane's copy of it) and
the ``-C`` folder; it opens the repository, runs the command's module and prints.
:func:`failure` and :func:`show_warnings` are both entry points' error handling (:func:`guarded`
runs a command for the lane). Imported at every start-up: the standard library only at import,
the rest when called.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import warnings
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    Echo = Callable[..., None]

DEBUG_HINT = "SQUADMEM_DEBUG=1 shows the traceback"


def context(
    echo: Echo,
    directory: Path,
    *,
    agent: str,
    include_cold: bool,
    include_wiki: list[str] | None,
    include: list[str] | None,
    task: str | None,
    record: bool,
    as_json: bool,
    now: str | None,
) -> None:
    """``squadmem context``: the spawn prompt on stdout, its size on stderr."""
    from squadmem.cli import invocation
    from squadmem.commands import context as spawn

    with invocation.open_repo(directory, needs_memory=True) as repo:
        result = spawn.context(
            repo,
            agent,
            invocation.moment(now, repo),
            include_cold=include_cold,
            wiki=include_wiki or [],
            sections=include or [],
            record=record,
            task=task,
        )
    echo(invocation.to_json(result.as_dict()) if as_json else result.text, nl=False)
    echo(result.summary(), err=True)


def recall(
    echo: Echo,
    directory: Path,
    *,
    query: str,
    agent: str | None,
    tier: str | None,
    limit: int,
    logs: bool,
    record: bool,
    in_history: bool,
    as_json: bool,
    now: str | None,
    beyond_spawn: bool = False,
) -> None:
    """``squadmem recall``: the sections holding the query's words, best first; with
    ``--beyond-spawn``, those a spawn for the query (``context --task``) does not hold."""
    from squadmem.cli import invocation
    from squadmem.commands import recall as recalling

    if beyond_spawn and agent is None:
        from squadmem.model.errors import SquadmemError

        raise SquadmemError(
            "--beyond-spawn needs --agent: whose spawn?",
            hint='e.g. squadmem recall --agent worf --beyond-spawn "<your task>"',
        )
    with invocation.open_repo(directory, needs_memory=True) as repo:
        skip = None
        if beyond_spawn and agent is not None:
            from squadmem.commands import context as spawning

            skip = spawning.spawn_held(repo, agent, query)
        found = recalling.recall(
            repo,
            query,
            invocation.moment(now, repo),
            agent=agent,
            tier=tier,
            limit=limit,
            logs=logs,
            record=record,
            history=in_history,
            skip=skip,
        )
    echo(invocation.to_json(found.as_dict()) if as_json else found.text())


def near(
    echo: Echo,
    directory: Path,
    *,
    things: list[str] | None,
    from_hook: bool,
    agent: str | None,
    max_bytes: int,
    as_json: bool,
) -> None:
    """``squadmem near``: memory naming the files or issues given, or those of a hook's event."""
    from squadmem.cli import invocation
    from squadmem.commands import near as nearby
    from squadmem.model.errors import SquadmemError

    who = agent or nearby.agent_from_env()
    if not from_hook:
        with invocation.open_repo(directory) as repo:
            found = nearby.near(repo, nearby.manual(things or []), who, max_bytes)
        echo(invocation.to_json(found.as_dict()) if as_json else found.text, nl=False)
        return
    try:
        event = nearby.parse(read_stdin())
        with invocation.open_repo(directory) as repo:
            found = nearby.near(repo, event, who, max_bytes)
    except SquadmemError as exc:
        echo(f"squadmem near: {exc.message}", err=True)
        return
    echo(invocation.to_json(found.as_dict()) if as_json else found.as_hook_output(), nl=False)


def track(
    echo: Echo,
    directory: Path,
    *,
    files: list[Path] | None,
    fmt: str,
    from_hook: bool,
    dry_run: bool,
    now: str | None,
    as_json: bool,
) -> None:
    """``squadmem track``: record the uses an agent's session transcripts show."""
    from squadmem.cli import invocation
    from squadmem.commands import track as tracking

    paths = list(files or [])
    if from_hook:
        paths.append(tracking.hook_transcript(sys.stdin.read()))
    with invocation.open_repo(directory) as repo:
        result = tracking.track(
            repo, paths, invocation.moment(now, repo, records=not dry_run), fmt=fmt, dry_run=dry_run
        )
    echo(invocation.to_json(result.as_dict()) if as_json else result.text())


def list_(echo: Echo, directory: Path, *, agent: str | None, tier: str | None, as_json: bool) -> None:
    """``squadmem list``: every section, a row each (or JSON)."""
    from squadmem.cli import invocation
    from squadmem.commands import listing

    with invocation.open_repo(directory) as repo:
        rows = listing.list_sections(repo, agent, tier)
    echo(invocation.to_json({"sections": rows}) if as_json else listing.text(rows))


COMMANDS: dict[str, Callable[..., None]] = {
    "list": list_,
    "context": context,
    "recall": recall,
    "near": near,
    "track": track,
}


def read_stdin() -> str:
    """Standard input as UTF-8 text; refuses other bytes rather than guess."""
    from squadmem.model.errors import SquadmemError

    raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SquadmemError(
            f"standard input: not UTF-8 (byte {exc.start})", hint="pipe UTF-8 text into squadmem"
        ) from None


def echo(message: str = "", nl: bool = True, err: bool = False) -> None:
    """click's ``echo`` for text, as it prints outside a click command: to stdout (stderr with
    ``err``), ANSI escapes stripped unless the stream is a terminal, flushed."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    out = message + "\n" if nl else message
    if not out:
        stream.flush()
        return
    if not _isatty(stream):
        out = _strip_ansi(out)
    stream.write(out)
    stream.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:
        return False


def _strip_ansi(text: str) -> str:
    if "\033" not in text:
        return text
    import re

    return re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", text)


def guarded(command: str, directory: Path, values: dict[str, Any]) -> int:
    """Run ``command`` as the CLI's ``guarded`` does: its exit status, a SquadmemError as its code
    and one line, anything else as exit 3; the warnings it raised printed on stderr after it."""
    import warnings

    from squadmem.model.errors import SquadmemWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SquadmemWarning)
        try:
            COMMANDS[command](echo, directory, **values)
            return 0
        except KeyboardInterrupt:
            raise
        except Exception as exc:
            return failure(exc, echo)
        finally:
            show_warnings(caught, echo)


def failure(exc: Exception, echo: Echo) -> int:
    """What a command's exception becomes, for both entry points: a SquadmemError its one line and
    its exit code; anything else a line naming the bug and exit 3 (the traceback with
    ``SQUADMEM_DEBUG``)."""
    from squadmem.model.errors import Exit, SquadmemError

    if isinstance(exc, SquadmemError):
        echo(exc.render(), err=True)
        return int(exc.code)
    if os.environ.get("SQUADMEM_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    echo(f"squadmem: internal error: {type(exc).__name__}: {exc}", err=True)
    echo(f"hint: this is a bug in squadmem; please report it ({DEBUG_HINT})", err=True)
    return int(Exit.INTERNAL)


def show_warnings(caught: list[warnings.WarningMessage], echo: Echo) -> None:
    """The squadmem warnings a command raised (files left out, and why), each once, on stderr."""
    from squadmem.model.errors import SquadmemWarning

    shown = set()
    for item in caught:
        if isinstance(item.message, SquadmemWarning) and item.message.render() not in shown:
            shown.add(item.message.render())
            echo(item.message.render(), err=True)
