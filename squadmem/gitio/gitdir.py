"""Where a work tree's git directory is, and what it says, read without starting git.

Standard library only, and no ``pathlib``: the hooks call this on every
commit, and a commit that stages no memory file should pay for little more
than Python's start. Paths are strings (``os.path``).
"""

from __future__ import annotations

import os


def git_dir(start: str | None = None) -> str | None:
    """The git directory of the work tree a hook runs at the top of (``.git``, or where a ``.git``
    file points, as in a linked worktree), found without starting git; None if there is none."""
    named = os.environ.get("GIT_DIR")
    if named:  # git exports the one it commits with to its hooks (relative to where they run)
        return os.path.abspath(named)
    dot = os.path.join(start or os.getcwd(), ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8") as handle:
            first = handle.readline().rstrip("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir: "):
        return None
    found = first[len("gitdir: ") :].strip()
    return found if os.path.isabs(found) else os.path.join(os.path.dirname(dot), found)


def common_dir(start: str | None = None) -> str | None:
    """The common git directory of that work tree, absolute and real as ``git rev-parse
    --path-format=absolute --git-common-dir`` says it (a linked worktree's ``commondir`` names it),
    found without starting git; None if there is no git directory."""
    where = git_dir(start)
    if where is None:
        return None
    try:
        with open(os.path.join(where, "commondir"), encoding="utf-8") as handle:
            common = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        common = ""
    return os.path.realpath(os.path.join(where, common) if common else where)


def merge_head_file(start: str | None = None) -> str | None:
    """The first commit in ``MERGE_HEAD`` while a merge is being concluded, else None."""
    where = git_dir(start)
    try:
        with open(os.path.join(where, "MERGE_HEAD") if where else os.devnull, encoding="ascii") as handle:
            first = handle.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return first if len(first) in (40, 64) else None


# -- finding the repository a command runs in, as ``git rev-parse`` would ---------------------

HASHES = ("sha1", "sha256")


def discover(start: str, env: dict[str, str]) -> tuple[str, str, str, str] | None:
    """What ``git rev-parse --absolute-git-dir --git-common-dir --show-object-format
    --show-toplevel`` says in the work tree that holds ``start``, found without starting git: the
    git directory, the common git directory (absolute and real), the object format and the top of
    the work tree. ``env``: the environment git would run in (squadmem's).

    Only the plain layouts are read here: a ``.git`` folder, or a ``.git`` file naming the git
    directory (a linked worktree, a submodule, ``--separate-git-dir``), owned by this user, on one
    file system, its configuration plain (no ``core.worktree``, no ``core.bare``, no
    extension but ``objectFormat``, no includes). For anything else (a bare repository, a folder
    inside ``.git``, configuration in the environment, no repository at all) it returns None and
    the caller asks git, so git's answers and errors stay git's; so does a ``GIT_DIR`` or
    ``GIT_WORK_TREE`` in ``env``."""
    if any(k in env for k in ("GIT_DIR", "GIT_WORK_TREE")):
        return None
    if any(k.startswith("GIT_CONFIG_") and k not in _PLAIN_CONFIG for k in env) or _sudo(env):
        return None
    try:
        here = os.path.realpath(start)
        device = os.stat(here).st_dev
    except (OSError, ValueError):
        return None
    while True:
        found = _at(here)
        if found is not None:
            return found or None
        parent = os.path.dirname(here)
        if parent == here or _device(parent) != device:
            return None
        here = parent


_PLAIN_CONFIG = frozenset({"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"})


def _sudo(env: dict[str, str]) -> bool:
    """As root under sudo, git compares ownership with SUDO_UID: left to git."""
    return os.geteuid() == 0 and "SUDO_UID" in env


def _device(path: str) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None


def _at(top: str) -> tuple[str, str, str, str] | tuple[()] | None:
    """The repository whose work tree's top is ``top``; () where git must be asked; None where
    ``top`` holds no ``.git`` (go up)."""
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        where: str | None = dot
    elif os.path.isfile(dot):
        where = _gitfile(dot)
    elif os.path.lexists(dot) or _looks_like_git_dir(top):
        return ()  # a broken .git, or a bare repository / a folder inside one: git's to say
    else:
        return None
    if where is None:
        return ()
    real = os.path.realpath(where)
    common = _common(real)
    if common is None or not _looks_like_git_dir(real, common):
        return ()
    fmt = _object_format(common)
    if fmt is None or not _owned(top, dot, real, common):
        return ()
    return real, common, fmt, top


def _gitfile(dot: str) -> str | None:
    """Where a ``.git`` file points (``gitdir: PATH``, relative to its folder), None if unreadable."""
    try:
        with open(dot, "rb") as handle:
            text = handle.read(4096).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    first, _, rest = text.partition("\n")
    if not first.startswith("gitdir: ") or rest.strip() or "\r" in first:
        return None
    found = first[len("gitdir: ") :]
    return found if os.path.isabs(found) else os.path.join(os.path.dirname(dot), found)


def _common(where: str) -> str | None:
    """The common git directory of the git directory ``where`` (its ``commondir`` file), real."""
    try:
        with open(os.path.join(where, "commondir"), "rb") as handle:
            common = handle.read().decode("utf-8").rstrip("\n")
    except FileNotFoundError:
        return where
    except (OSError, UnicodeDecodeError):
        return None
    if not common or "\n" in common:
        return None
    return os.path.realpath(os.path.join(where, common))


def _looks_like_git_dir(where: str, common: str | None = None) -> bool:
    """git's test for a git directory: a HEAD, and objects/ and refs/ (in the common one)."""
    common = common or where
    head = os.path.join(where, "HEAD")
    return (
        os.path.isfile(head)
        and not os.path.islink(head)
        and os.path.isdir(os.path.join(common, "objects"))
        and os.path.isdir(os.path.join(common, "refs"))
    )


def _owned(*paths: str) -> bool:
    """Every path is this user's (else git's safe.directory rules decide: git's to say)."""
    me = os.geteuid()
    try:
        return all(os.lstat(p).st_uid == me for p in paths)
    except OSError:
        return False


def _object_format(common: str) -> str | None:
    """sha1 or sha256, as the repository's config says; None where its config is not plain (a
    work tree set elsewhere, bare, an extension but objectFormat, an include, a line git's
    quoting or continuation would read otherwise): git's to read."""
    try:
        with open(os.path.join(common, "config"), "rb") as handle:
            text = handle.read().decode("utf-8")
    except FileNotFoundError:
        return "sha1"
    except (OSError, UnicodeDecodeError):
        return None
    values = _core_and_extensions(text)
    if values is None:
        return None
    version = values.pop("core.repositoryformatversion", "0")
    fmt = values.pop("extensions.objectformat", "sha1")
    if values.pop("core.bare", "false").lower() not in ("false", "no", "off", "0"):
        return None
    if values or version not in ("0", "1") or fmt not in HASHES or (fmt != "sha1" and version != "1"):
        return None
    return fmt


def _core_and_extensions(text: str) -> dict[str, str] | None:
    """``core.*`` and ``extensions.*`` keys that decide where the work tree is and what it holds
    (names lower case); None for a config this plain reading would get wrong."""
    values: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            return None  # a value continued on the next line
        if line[0] == "[":
            name, close, after = line[1:].partition("]")
            if not close or after.strip()[:1] not in ("", "#", ";"):
                return None
            section = name.strip().lower()
            if section.startswith("include"):
                return None
            continue
        if section not in ("core", "extensions"):
            continue
        if '"' in line or "\\" in line:
            return None
        key, eq, value = line.partition("=")
        key = key.strip().lower()
        value = value.split("#")[0].split(";")[0].strip() if eq else "true"
        if section == "extensions" or key in ("bare", "worktree", "repositoryformatversion"):
            values[f"{section}.{key}"] = value
    return values
