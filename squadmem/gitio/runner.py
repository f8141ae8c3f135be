"""Running git: one environment policy and one runner that says what failed.

Inherited ``GIT_*`` variables that would point git elsewhere are dropped, as
pre-commit's ``no_git_env`` does, except ``GIT_INDEX_FILE``: in a pre-commit
hook it names the index being committed (``git commit -a`` and ``git commit
PATH`` commit a temporary index, not ``.git/index``). Standard library only.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence

from squadmem.model.errors import Exit, SquadmemError

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
