"""What a commit being made stages, read with the standard library only; the hooks' common runner.

The hooks compare the index against HEAD (``git diff --cached --raw``, one
process for every memory file, shared by the checks) and read blobs, settings
and a merge's other parent through one ``git cat-file --batch`` process, all
through the git gateway (:mod:`squadmem.gitio`). The pre-commit hook starts
both at once (:func:`start`), before it imports the checks, so that git opens
the repository while Python imports; :func:`close` ends them. Started by
squadmem's shim, it asks no ``git diff``: the shim's own (the same command
line) left its answer in a file (:func:`handed_diff`). Named files (what the
pre-commit framework passes, every file under ``pre-commit run --all-files``)
are judged as they are in the work tree instead.

Heavy modules (the model's checks, ``tomllib`` for an edited tiers.toml)
are imported only when a memory file is involved: a commit that stages none
pays for Python's start, this module, the gateway's runner and one ``git
diff``. Paths are strings here (``os.path``), not ``pathlib``.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable, Mapping, Sequence

from squadmem.gitio import gitdir, questions
from squadmem.gitio.catfile import CatFile
from squadmem.gitio.formats import Staged, cat_files, parse_raw
from squadmem.gitio.runner import IDENTITY, git_env
from squadmem.model import constants
from squadmem.model import places as where
from squadmem.model.errors import Exit, SquadmemError

TYPE_CHECKING = False  # not typing's: importing typing costs every commit a few milliseconds
if TYPE_CHECKING:
    import argparse

    from squadmem.model import settings

# The Squad layout's; the commit's own are places(env).pathspecs and places(env).settings (a
# memory-tiers workspace keeps them elsewhere).
MEMORY = constants.SQUAD_DIR + "/"
SETTINGS_PATH = constants.SETTINGS_PATH
NOT_A_REPO = "not inside a git work tree: run it in a repository (git runs it at the top of the work tree)"

_changes: dict[str | None, list[Staged]] = {}  # GIT_INDEX_FILE -> the memory files the index changes
_blobs: dict[tuple[str | None, str], bytes | None] = {}  # (GIT_INDEX_FILE, spec) -> object read
_pending: dict[str | None, Callable[[], list[Staged]]] = {}  # GIT_INDEX_FILE -> the diff started early
_readers: dict[str | None, CatFile] = {}  # GIT_INDEX_FILE -> the cat-file --batch started early

# What the shim hands the pre-commit checks: the file its `git diff --raw -z` wrote, and the pathspecs
# that diff was given (templates/hook.sh).
HANDED = "SQUADMEM_STAGED_DIFF"
HANDED_SPECS = "SQUADMEM_STAGED_SPECS"
HANDED_NAME = "squadmem-staged.diff"  # in the git directory
# Variables git sets for a hook, or naming who commits: none changes what the index holds.
_HARMLESS = frozenset({"GIT_EDITOR", "GIT_PREFIX", "GIT_REFLOG_ACTION"}) | IDENTITY
_bound: list[str] = []  # the top of the work tree, once found (once per process)
_layouts: dict[str | None, list[where.Places]] = {}  # GIT_INDEX_FILE -> the parents' and the index's places
_head: dict[str | None, where.Places] = {}  # GIT_INDEX_FILE -> HEAD's places


def places(env: Mapping[str, str]) -> where.Places:
    """Where the commit being made keeps its memory (``.squad/memory/`` or a memory-tiers workspace):
    the index's layout, read from what it stages, never from the work tree."""
    return layouts(env)[-1]


def layouts(env: Mapping[str, str]) -> list[where.Places]:
    """HEAD's layout, a merge's other parent's (``MERGE_HEAD``) and the index's, each once, the
    index's last (more than one when the commit changes the layout: it is judged in each). What
    the index holds decides (:func:`squadmem.model.places.decide`), read from HEAD and the staged
    changes; ``git ls-files`` only when the commit deletes under ``.squad/memory/``."""
    key = env.get("GIT_INDEX_FILE")
    if key not in _layouts:
        if not _bound:
            top(env)
        settings, squad = where.WORKSPACE_SETTINGS, where.SQUAD_DIR
        parents = ["HEAD", *filter(None, [gitdir.merge_head_file()])]
        specs = [f"{rev}:{path}" for rev in parents for path in (settings, squad)]
        found = blobs(["HEAD", *specs, f":{settings}"], env)
        index = where.decide(
            found[f":{settings}"], _index_holds_squad(env, found[f"HEAD:{squad}"] is not None)
        )
        committed = [
            where.decide(found[f"{r}:{settings}"], found[f"{r}:{squad}"] is not None) for r in parents
        ]
        committed = committed if found["HEAD"] else [index]  # no commit yet: the index's alone
        _layouts[key] = [*(p for p in dict.fromkeys(committed) if p != index), index]
        _head[key] = committed[0]
    return _layouts[key]


def head_places(env: Mapping[str, str]) -> where.Places:
    """HEAD's layout (the index's when there is no commit yet)."""
    layouts(env)
    return _head[env.get("GIT_INDEX_FILE")]


def _index_holds_squad(env: Mapping[str, str], in_head: bool) -> bool:
    """Whether the index holds any file under ``.squad/memory/``."""
    inside = [
        e for e in memory_changes(env) if e.path.startswith(MEMORY) or (e.source or "").startswith(MEMORY)
    ]
    if any(e.new_sha and e.path.startswith(MEMORY) for e in inside):
        return True
    if not in_head or not inside:
        return in_head
    return questions.index_holds(env, constants.SQUAD_DIR)


def handed_diff(environ: dict[str, str] | None = None) -> tuple[bytes, list[str]] | None:
    """What the shim's ``git diff`` wrote (the file it names, removed once read) and the pathspecs it
    was given; None when the shim handed nothing. The two variables are taken out of the environment."""
    source = os.environ if environ is None else environ
    path = source.pop(HANDED, "")
    specs = source.pop(HANDED_SPECS, "").split()
    if os.path.basename(path) != HANDED_NAME:  # none, or not the shim's file: never read nor removed
        return None
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    with contextlib.suppress(OSError):
        os.unlink(path)
    return raw, specs


def _asked_alike(env: Mapping[str, str], specs: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether the shim's diff asked what the checks would (:func:`questions.staged_changes`): the same
    pathspecs, and no variable of the hook's that :func:`git_env` drops but those that cannot change
    the answer (it keeps GIT_DIR and GIT_WORK_TREE, which name the repository git commits to)."""
    if list(specs) != [f":(top){p}" for p in where.HOOK_PATHSPECS]:
        return False
    return all(not name.startswith("GIT_") or name in env or name in _HARMLESS for name in environ)


def start(env: Mapping[str, str], handed: tuple[bytes, list[str]] | None = None) -> None:
    """Start the commit's two git processes now: what the index changes (:func:`memory_changes`;
    none when the shim ``handed`` its diff and that diff asked what squadmem would) and the object
    reader (:func:`blobs`); git works while the caller imports. :func:`close` ends them."""
    key = env.get("GIT_INDEX_FILE")
    if key not in _changes and key not in _pending:
        if handed is not None and _asked_alike(env, handed[1], os.environ):
            _changes[key] = parse_raw(handed[0])
        else:
            _pending[key] = questions.staged_changes_later(env, where.HOOK_PATHSPECS)
    if key not in _readers:
        _readers[key] = CatFile(env)
        _readers[key].start()


def close() -> None:
    """End what :func:`start` started (a diff never read is waited for, its failure ignored)."""
    for pending in _pending.values():
        with contextlib.suppress(SquadmemError):
            pending()
    _pending.clear()
    for reader in _readers.values():
        reader.close()
    _readers.clear()


def _hook_changes(env: Mapping[str, str]) -> list[Staged]:
    """Every file the index changes against HEAD in either layout's places and among Squad's spawn
    files (renames found), read once per process."""
    key = env.get("GIT_INDEX_FILE")
    if key not in _changes:
        pending = _pending.pop(key, None)
        _changes[key] = pending() if pending else questions.staged_changes(env, where.HOOK_PATHSPECS)
    return _changes[key]


def memory_changes(env: Mapping[str, str]) -> list[Staged]:
    """Every file the index changes against HEAD in either layout's places (renames found)."""
    return [e for e in _hook_changes(env) if not where.is_spawn_file(e.path)]


def spawn_changes(env: Mapping[str, str]) -> list[Staged]:
    """Squad's spawn files the index changes against HEAD (``squadmem.hooks.spawn_check``)."""
    return [e for e in _hook_changes(env) if where.is_spawn_file(e.path)]


def blobs(specs: Sequence[str], env: Mapping[str, str]) -> dict[str, bytes | None]:
    """Objects by spec (``cat-file --batch``), each read once per process: one git for all checks."""
    key = env.get("GIT_INDEX_FILE")
    missing = [s for s in dict.fromkeys(specs) if (key, s) not in _blobs]
    if missing:
        reader = _readers.get(key)
        found = {spec: reader.read(spec) for spec in missing} if reader else cat_files(missing, env)
        for spec, raw in found.items():
            _blobs[(key, spec)] = raw
    return {s: _blobs[(key, s)] for s in specs}


def commit_specs(entries: Sequence[Staged], settings_path: str) -> list[str]:
    """What the checks of a commit read: each staged memory file in the index and in HEAD (a
    rename's source too), HEAD itself, and tiers.toml in both."""
    paths = dict.fromkeys(p for e in entries for p in (e.path, e.source) if p)
    return [
        "HEAD",
        f":{settings_path}",
        f"HEAD:{settings_path}",
        *(f"{w}:{p}" for p in paths for w in ("", "HEAD")),
    ]


def staged(folder: str, env: Mapping[str, str], against: str | None = None) -> list[Staged]:
    """Paths under ``folder`` (relative to the top of the work tree) that the index changes against
    HEAD (renames found), or against the commit ``against`` (no renames)."""
    if against is None and any(
        folder.rstrip("/") == p or folder.startswith(p + "/") for p in where.ALL_PATHSPECS
    ):
        return [
            e for e in memory_changes(env) if e.path.startswith(folder) or (e.source or "").startswith(folder)
        ]
    return questions.staged_changes(env, [folder], against)


def read_settings(blobs: Mapping[str, bytes | None], spec: str | None, path: str) -> settings.Settings:
    """Settings from the blob read as ``spec`` (``:<path>``, the index's, when None), else the
    defaults; ``path``: the settings' path in the layout judged, named in messages."""
    from squadmem.model import settings

    raw = blobs.get(f":{path}" if spec is None else spec)
    if raw is None:
        return settings.Settings()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SquadmemError(f"{path}: not UTF-8", hint="save tiers.toml as UTF-8") from None
    return settings.parse(text, path)


def top(env: Mapping[str, str]) -> str:
    """The top of the work tree the hook runs in (git runs hooks there; no process is started then).

    Which layout the commit uses is read from what it stages (:func:`places`), never from here."""
    if gitdir.git_dir() is not None:
        return _bind(os.getcwd())
    try:
        out = questions.toplevel(env)
    except SquadmemError:
        raise SquadmemError(NOT_A_REPO) from None
    if not out:
        raise SquadmemError(NOT_A_REPO)
    return _bind(out)


def _bind(root: str) -> str:
    if _bound != [root]:
        _bound[:] = [root]
    return root


def git_dir(env: Mapping[str, str]) -> str:
    """The work tree's own git directory (no process at the top of the work tree)."""
    found = gitdir.git_dir()
    if found is not None:
        return found
    return questions.absolute_git_dir(env)


def relative(names: Sequence[str], root: str) -> list[str]:
    """Named files as paths from the top of the work tree (``/``-separated), in order, each once."""
    found: dict[str, None] = {}
    for name in names:
        rel = os.path.relpath(os.path.abspath(name), root)
        found[rel.replace(os.sep, "/")] = None
    return list(found)


def work_tree_blobs(rels: Sequence[str], root: str) -> dict[str, bytes | None]:
    """The work tree's bytes of each path (None when it is not a regular file there: a FIFO or a
    folder is never read, so nothing hangs)."""
    found: dict[str, bytes | None] = {}
    for rel in rels:
        found[rel] = None
        try:
            fd = os.open(os.path.join(root, rel), os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                with os.fdopen(fd, "rb", closefd=False) as handle:
                    found[rel] = handle.read()
        finally:
            os.close(fd)
    return found


def odd_kind(path: str) -> str | None:
    """What ``path`` is when it is there but not a regular file (``a symlink``, ``a FIFO``...), else None."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "a folder" if stat.S_ISDIR(mode) else "a FIFO, socket or device"


def parser(prog: str, description: str, files: str | None) -> argparse.ArgumentParser:
    """The hooks' command line (pre-commit-hooks style): ``--help``, unknown options refused."""
    import argparse

    made = argparse.ArgumentParser(prog=prog, description=description)
    if files is not None:
        made.add_argument("filenames", nargs="*", metavar="FILE", help=files)
    return made


FILES_HELP = (
    "files to judge as they are in the work tree (the pre-commit framework passes them; "
    "every file under --all-files); none: judge what the index stages for the commit"
)


Check = Callable[[dict[str, str], Sequence[str]], "list[str] | tuple[list[str], bool]"]
"""A check: its offences (each refuses), or the lines to print and whether they refuse."""


def run_check(
    check: Check,
    argv: Sequence[str] | None,
    prog: str,
    description: str,
    files: str | None = FILES_HELP,
) -> int:
    """A pre-commit check as a command: its offences on stderr; 1 if any, a refusal's own code on error."""
    args = parser(prog, description, files).parse_args(argv)
    return run(check, getattr(args, "filenames", None) or (), prog)


def run(check: Check, names: Sequence[str], prog: str) -> int:
    """``check`` in the work tree this runs in: its lines on stderr, 1 if they refuse; a refusal's code."""
    try:
        env = git_env()
        root = top(env)
        found = check(env, relative(names, root) if names else ())
    except SquadmemError as exc:
        if exc.message == NOT_A_REPO:
            print(f"{prog}: {NOT_A_REPO}", file=sys.stderr)
            return int(Exit.USAGE)
        report([], exc)
        return int(exc.code)
    offences, refuses = found if isinstance(found, tuple) else (found, bool(found))
    report(offences)
    return 1 if refuses else 0


def report(lines: Sequence[str], error: SquadmemError | None = None) -> None:
    """Hook output: one line per offence on stderr."""
    for line in lines:
        print(line, file=sys.stderr)
    if error is not None:
        print(error.render(), file=sys.stderr)
