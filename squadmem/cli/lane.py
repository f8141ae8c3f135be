"""The fast lane: the ``squadmem`` console script, which parses the commands agents run most
often without importing click, and hands every other command line to the click CLI unchanged.

Agents run ``squadmem context`` at every spawn and ``near`` / ``track`` as hooks at every tool
call, and people and scripts run ``list``; click's import and the building of every command
cost more than Python's own start. The lane parses ``--version`` and the commands of
:mod:`squadmem.cli.lane_table` (generated from the click definitions: ``python -m
squadmem.cli.lane_spec``) in exactly the forms click accepts, and parses them to the values click
would pass. Whatever it is not sure of (``--help``, an unknown or abbreviated option, a missing
value, ``--``, text that is not UTF-8 or holds a NUL byte, a value click would refuse, any other
command) it declines, and click parses the whole command line itself, so its messages and exit
codes stay click's. A test holds the lane's parse equal to click's.
"""

from __future__ import annotations

import os
import sys

from squadmem.cli import lane_table as table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Row = tuple[Any, ...]

# the fields of a table row
NAME, POSITIONAL, OPTS, OFF, FLAG, TYPE, DEFAULT, REQUIRED, MANY, LISTED = range(10)
COMPLETE = "_SQUADMEM_COMPLETE"  # click's shell completion for the prog name squadmem


class Declined(Exception):
    """The lane will not parse this command line: click will."""


def run() -> None:
    """Console-script entry point."""
    parsed = parse(sys.argv[1:])
    if parsed is None:
        from squadmem.cli.app import run as click_run

        click_run()
        return
    command, values = parsed
    if command == "--version":
        from squadmem import __version__
        from squadmem.cli.frequent import echo

        echo(f"squadmem {__version__}")
        sys.exit(0)
    sys.exit(_guarded(command, values))


def _guarded(command: str, values: dict[str, Any]) -> int:
    from squadmem.cli import frequent

    directory = values.pop("directory")
    try:
        return frequent.guarded(command, directory, values)
    except KeyboardInterrupt:
        frequent.echo(err=True)
        frequent.echo("Aborted!", err=True)
        return 1


def parse(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The command and the values click would call it with (``directory``: ``-C``'s), or None
    where the lane declines."""
    if COMPLETE in os.environ or not _plain_streams() or not all(map(_plain, argv)):
        return None
    if argv == list(table.VERSION):
        return "--version", {}
    try:
        at, group = _group(argv)
        if argv[at] not in table.COMMANDS:
            return None
        values = _command(table.COMMANDS[argv[at]], argv[at + 1 :])
    except (Declined, IndexError):
        return None
    return argv[at], {**group, **values}


def _plain(arg: str) -> bool:
    """UTF-8 text without NUL bytes: what the CLI takes without refusing it."""
    if "\0" in arg:
        return False
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_streams() -> bool:
    """Standard output and error as click prints to them as they are (not ASCII: click would wrap
    them); else click prints."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        try:
            if stream is None or not encoding or codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            continue
    return True


def _group(argv: list[str]) -> tuple[int, dict[str, Any]]:
    """Where the command's name is, after the group's options (``-C``), and their values."""
    found: dict[str, list[str]] = {}
    short = _options(table.GROUP)
    at = 0
    while argv[at][:1] == "-" and argv[at] != "-":
        arg = argv[at]
        row = short.get(arg[:2])
        if row is None or arg[:2] == "--":
            raise Declined
        if len(arg) > 2:
            found.setdefault(row[NAME], []).append(arg[2:])
        else:
            found.setdefault(row[NAME], []).append(argv[at + 1])
            at += 1
        at += 1
    return at, _values(table.GROUP, found, [])


def _options(rows: tuple[Row, ...]) -> dict[str, Row]:
    return {opt: row for row in rows for opt in (*row[OPTS], *row[OFF])}


def _command(rows: tuple[Row, ...], args: list[str]) -> dict[str, Any]:
    """The values of a command's parameters, as click parses ``args`` (flags as their values)."""
    opts = _options(rows)
    found: dict[str, list[Any]] = {}
    positional: list[str] = []
    args = list(args)
    while args:
        arg = args.pop(0)
        if arg == "--":
            raise Declined
        if arg[:1] != "-" or len(arg) == 1:
            positional.append(arg)
            continue
        row, value = _option(opts, arg, args)
        found.setdefault(row[NAME], []).append(value)
    return _values(rows, found, positional)


def _option(opts: dict[str, Row], arg: str, rest: list[str]) -> tuple[Row, Any]:
    """The option ``arg`` names and its value (taken from ``rest`` when not attached), as click's
    parser matches it: a long option first (``--name=value``), else a short one (``-avalue``)."""
    name, eq, attached = arg.partition("=")
    row = opts.get(name) if _is_long(name) else None
    if row is not None:
        if row[FLAG]:
            if eq:
                raise Declined  # click: the option does not take a value
            return row, name not in row[OFF]
        return row, attached if eq else rest.pop(0)
    row = opts.get(arg[:2])
    if arg[:2] == "--" or row is None or _is_long(arg[:2]):
        raise Declined
    if row[FLAG]:
        if len(arg) > 2:
            raise Declined  # a cluster of short flags: click's to parse
        return row, arg[:2] not in row[OFF]
    return row, arg[2:] if len(arg) > 2 else rest.pop(0)


def _is_long(opt: str) -> bool:
    """click's rule: an option of one prefix character and one letter is short, else long."""
    return not (len(opt) == 2 and opt[0] == "-" and opt[1] != "-")


def _values(rows: tuple[Row, ...], found: dict[str, list[Any]], positional: list[str]) -> dict[str, Any]:
    """Each parameter's value as click's callback gets it: converted, defaulted, the last of a
    repeated option, the list of a repeatable one."""
    values: dict[str, Any] = {}
    for row in rows:
        given = positional if row[POSITIONAL] else found.get(row[NAME], [])
        if row[POSITIONAL] and not row[MANY]:
            if len(positional) > 1:
                raise Declined  # click: unexpected extra arguments
            given = positional[:1]
        if not given and row[REQUIRED]:
            raise Declined
        values[row[NAME]] = _value(row, given)
    if positional and not any(row[POSITIONAL] for row in rows):
        raise Declined
    return values


def _value(row: Row, given: list[Any]) -> Any:
    if row[MANY]:
        converted = [_convert(row[TYPE], v) for v in given]
        return (converted or None) if row[LISTED] else tuple(converted)
    if given:
        return _convert(row[TYPE], given[-1])
    return None if row[DEFAULT] is None else _convert(row[TYPE], row[DEFAULT])


def _convert(kind: str, value: Any) -> Any:
    """A value as click's type converts it; what click would refuse, the lane declines."""
    if kind == "int":
        try:
            return int(value)
        except ValueError:
            raise Declined from None
    if kind == "path":
        try:
            os.stat(value)
        except OSError:
            pass
        else:
            if not os.access(value, os.R_OK):
                raise Declined  # click: the path is not readable
        from pathlib import Path

        return Path(value)
    return value
