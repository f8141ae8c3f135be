"""What a commit being made stages, read with the standard library only.

The hooks compare the index against HEAD (``git diff --cached --raw``) and read
blobs, settings and a merge's other parent through one ``git cat-file --batch``
process. Inherited ``GIT_*`` variables that would point git elsewhere are
dropped, as pre-commit's ``no_git_env`` does, except ``GIT_INDEX_FILE``: in a
pre-commit hook it names the index being committed (``git commit -a`` and
``git commit PATH`` commit a temporary index, not ``.git/index``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from squadmem import settings
from squadmem.errors import Exit, SquadmemError

SETTINGS_PATH = ".squad/memory/tiers.toml"  # layout.MEMORY_DIR + "/tiers.toml" (a test holds them equal)
_KEEP = frozenset(
    {
        "GIT_EXEC_PATH",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSL_CAINFO",
        "GIT_SSL_NO_VERIFY",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_COUNT",
        "GIT_HTTP_PROXY_AUTHMETHOD",
        "GIT_ALLOW_PROTOCOL",
        "GIT_ASKPASS",
        "GIT_TEMPLATE_DIR",
    }
)


def git_env(environ: Mapping[str, str] | None = None, keep_index: bool = True) -> dict[str, str]:
    """The environment for the git a hook runs: no inherited GIT_* but the harmless ones and the index."""
    source = os.environ if environ is None else environ
    env = {
        k: v
        for k, v in source.items()
        if not k.startswith("GIT_") or k in _KEEP or k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }
    index = source.get("GIT_INDEX_FILE")
    if keep_index and index:
        env["GIT_INDEX_FILE"] = os.path.abspath(index)
    return env


def git(args: Sequence[str], env: Mapping[str, str], input: bytes | None = None) -> bytes:
    """Run git; a failure becomes a SquadmemError naming the command and git's last line."""
    proc = subprocess.run(["git", *args], env=env, input=input, capture_output=True)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SquadmemError(
            f"git {' '.join(args[:3])} failed (exit {proc.returncode}): {err[-1] if err else ''}",
            hint="run the hook inside the repository's work tree",
            code=Exit.INTERNAL,
        )
    return proc.stdout


class Staged:
    """One path the index changes against HEAD: status A, M, D, T or R (``source`` is a rename's origin)."""

    __slots__ = ("new_sha", "old_sha", "path", "source", "status")

    def __init__(
        self, status: str, path: str, old_sha: str | None, new_sha: str | None, source: str | None = None
    ) -> None:
        self.status = status
        self.path = path
        self.old_sha = old_sha
        self.new_sha = new_sha
        self.source = source


def parse_raw(out: bytes) -> list[Staged]:
    """``git diff --raw -z`` output, renames included."""
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[Staged] = []
    at = 0
    while at < len(fields) and fields[at].startswith(":"):
        meta = fields[at][1:].split(" ")
        status = meta[4][0]
        old, new = (None if set(sha) == {"0"} else sha for sha in meta[2:4])
        if status in "RC":
            found.append(Staged(status, fields[at + 2], old, new, fields[at + 1]))
            at += 3
        else:
            found.append(Staged(status, fields[at + 1], old, new))
            at += 2
    return found


def git_dir(start: Path | None = None) -> Path | None:
    """The git directory of the work tree a hook runs at the top of (``.git``, or where a ``.git``
    file points, as in a linked worktree), found without starting git; None if there is none."""
    dot = (start or Path.cwd()) / ".git"
    if dot.is_dir():
        return dot
    try:
        first = dot.read_text("utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir: "):
        return None
    found = Path(first[len("gitdir: ") :].strip())
    return found if found.is_absolute() else dot.parent / found


def merge_head_file(start: Path | None = None) -> str | None:
    """The first commit in ``MERGE_HEAD`` while a merge is being concluded, else None."""
    where = git_dir(start)
    try:
        text = (where / "MERGE_HEAD").read_text("ascii") if where else ""
    except (OSError, UnicodeDecodeError):
        return None
    first = text.split("\n", 1)[0].strip()
    return first if len(first) in (40, 64) else None


def staged(folder: str, env: Mapping[str, str], against: str | None = None) -> list[Staged]:
    """Paths under ``folder`` (relative to the top of the work tree) that the index changes against
    HEAD (renames found), or against the commit ``against`` (no renames)."""
    args = ["diff", "--cached", "--raw", "-z", "--no-ext-diff", "--no-color"]
    args += ["--no-renames", against] if against else ["-M"]
    return parse_raw(git([*args, "--", f":(top){folder}"], env))


def raw_blobs(out: bytes) -> list[str]:
    """Every blob named in ``git log --raw -z`` output (``-c`` merges too), in order, each once."""
    found: dict[str, None] = {}
    for field in out.decode("utf-8", "surrogateescape").split("\0"):
        if field.startswith(":"):
            words = field.lstrip(":").split(" ")
            for sha in words[len(words) // 2 : -1]:
                if set(sha) != {"0"}:
                    found[sha] = None
    return list(found)


def cat_files(specs: Sequence[str], env: Mapping[str, str]) -> dict[str, bytes | None]:
    """Objects by spec (a sha, ``:path`` for the index, ``REV:path``) from one ``cat-file --batch``."""
    if not specs:
        return {}
    out = git(["cat-file", "--batch"], env, input="".join(f"{s}\n" for s in specs).encode("utf-8"))
    found: dict[str, bytes | None] = {}
    at = 0
    for spec in specs:
        end = out.index(b"\n", at)
        head = out[at:end].split(b" ")
        if len(head) != 3 or head[-1] in (b"missing", b"ambiguous"):
            found[spec] = None
            at = end + 1
            continue
        size = int(head[2])
        found[spec] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found


def read_settings(blobs: Mapping[str, bytes | None], spec: str = f":{SETTINGS_PATH}") -> settings.Settings:
    """Settings from the blob read as ``spec`` (the index's tiers.toml by default), else the defaults."""
    raw = blobs.get(spec)
    if raw is None:
        return settings.Settings()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SquadmemError(f"{SETTINGS_PATH}: not UTF-8", hint="save tiers.toml as UTF-8") from None
    return settings.parse(text, Path(SETTINGS_PATH))


def run_check(check: Callable[[dict[str, str]], list[str]]) -> int:
    """A pre-commit check as a hook: its offences on stderr; 1 if any, a refusal's own code on error."""
    try:
        offences = check(git_env())
    except SquadmemError as exc:
        report([], exc)
        return int(exc.code)
    report(offences)
    return 1 if offences else 0


def report(lines: Sequence[str], error: SquadmemError | None = None) -> None:
    """Hook output: one line per offence on stderr."""
    for line in lines:
        print(line, file=sys.stderr)
    if error is not None:
        print(error.render(), file=sys.stderr)
