"""git's configuration and identity, read one way: one ``git var -l``, parsed here.

``git var -l`` lists every configuration value in effect (system, global,
local, worktree, ``-c`` and ``GIT_CONFIG_*``), one ``key=value`` a line,
then git's logical variables, among them ``GIT_AUTHOR_IDENT`` and
``GIT_COMMITTER_IDENT`` (``Name <email> <seconds> <zone>``). A key is matched
as git matches it: its section and name in any case, its subsection exactly.
The last value of a key wins, as ``git config --get`` says. Standard library
only: the hooks use it too.
"""

from __future__ import annotations

from squadmem.gitio import runner
from squadmem.model.errors import SquadmemError

TYPE_CHECKING = False  # typing is not imported at run time: hooks import this module
if TYPE_CHECKING:
    from pathlib import Path

ARGS = ("var", "-l")
TRUE = frozenset({"true", "yes", "on", "1"})
NO_IDENT = "git does not know who you are (user.name / user.email are not set)"
NO_IDENT_HINT = 'set them: git config user.name "Your Name" && git config user.email you@example.com'


def key_of(key: str) -> str:
    """A configuration key as git lists it: section and name lower case, a subsection as written."""
    section, dot, rest = key.partition(".")
    if not dot:
        return key.lower()
    middle, _, name = rest.rpartition(".")
    return ".".join([section.lower(), *([middle] if middle else []), name.lower()])


class Config:
    """One reading of git's configuration and identity (``git var -l``'s output)."""

    def __init__(self, listing: str) -> None:
        self.values: dict[str, str] = {}
        self.idents: dict[str, str] = {}
        for row in listing.splitlines():
            name, eq, value = row.partition("=")
            if not name:
                continue
            if not eq:  # a key set with no value (``[core] bare``) is true
                value = "true"
            if name.endswith("_IDENT") and name.startswith("GIT_"):
                self.idents[name[4:-6]] = value
            else:
                self.values[key_of(name)] = value  # the last one wins

    def get(self, key: str) -> str | None:
        """The value of ``key`` (``core.autocrlf``, ``merge.squadmem.driver``), None when unset."""
        return self.values.get(key_of(key)) or None

    def flag(self, key: str) -> bool:
        """A boolean key as git reads it (unset is false)."""
        return (self.get(key) or "false").lower() in TRUE

    def ident(self, who: str) -> str:
        """``Name <email> <seconds> <zone>`` git would record as ``who`` (AUTHOR or COMMITTER);
        refused (exit 2) when git does not know who the user is."""
        value = self.idents.get(who, "")
        if not value or "(none)" in value.split(">")[0]:
            raise SquadmemError(NO_IDENT, hint=NO_IDENT_HINT)
        return value

    def committer_time(self) -> int:
        """The seconds since the epoch git would date a commit made now (``GIT_COMMITTER_DATE``, or now)."""
        return ident_time(self.ident("COMMITTER"))


def ident_time(ident: str) -> int:
    """The seconds of an ident line (``Name <email> <seconds> <zone>``)."""
    return int(ident.rpartition(">")[2].split()[0])


def read(env: runner.Env, cwd: Path | str | None = None) -> Config:
    """git's configuration and identity as they are now, from one ``git var -l``."""
    return Config(runner.git(ARGS, env, cwd=cwd).decode("utf-8", "surrogateescape"))
