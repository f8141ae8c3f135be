"""pre-push hook: ``squadmem verify`` on the commits a push sends.

Called by the plain shim as ``main([remote, url])`` with git's ref lines on
stdin (``<local ref> <local sha> <remote ref> <remote sha>``), or by the
pre-commit framework, which passes the range in ``PRE_COMMIT_FROM_REF`` /
``PRE_COMMIT_TO_REF``. A ref the remote already has is checked from there; a
new branch from what no ref of that remote holds. The verify itself runs as
``python -m squadmem verify`` in a child process, so this module stays
standard library only. Exit 1 (a violation) stops the push.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

from squadmem.hooks import staged

ZERO = frozenset("0")


def ranges_from_stdin(text: str, remote: str, env: dict[str, str]) -> list[list[str]]:
    """Rev-list arguments, one list per pushed ref (deletions are skipped)."""
    found = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4 or set(parts[1]) == ZERO:
            continue
        local, remote_sha = parts[1], parts[3]
        if set(remote_sha) != ZERO and _known(remote_sha, env):
            found.append([f"{remote_sha}..{local}"])
        else:
            found.append([local, "--not", f"--remotes={remote}"])
    return found


def _known(sha: str, env: dict[str, str]) -> bool:
    proc = subprocess.run(["git", "cat-file", "-e", f"{sha}^{{commit}}"], env=env, capture_output=True)
    return proc.returncode == 0


def ranges_from_framework(environ: dict[str, str]) -> list[list[str]] | None:
    """The range the pre-commit framework gives in its environment, None when it gives none."""
    to_ref = environ.get("PRE_COMMIT_TO_REF")
    if not to_ref:
        return None
    from_ref = environ.get("PRE_COMMIT_FROM_REF")
    return [[f"{from_ref}..{to_ref}"] if from_ref else [to_ref]]


def verify(revs: Sequence[str], env: dict[str, str]) -> int:
    proc = subprocess.run([sys.executable, "-m", "squadmem", "verify", "--", *revs], env=env)
    return proc.returncode


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    env = staged.git_env(keep_index=False)
    ranges = ranges_from_framework(dict(os.environ))
    if ranges is None:
        ranges = ranges_from_stdin(sys.stdin.read(), args[0] if args else "origin", env)
    status = 0
    for revs in ranges:
        status = max(status, verify(revs, env))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
