"""The dispatcher the git hook shims call: ``python -m squadmem.hooks.run EVENT ARGS...``.

Each git hook event runs the squadmem checks registered for it, in order,
and stops at the first that refuses. Standard library only.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

# event -> modules whose main(argv) runs for it; each is importable on its own
# by the pre-commit framework too (see .pre-commit-hooks.yaml).
EVENTS: dict[str, tuple[str, ...]] = {
    "pre-commit": (
        "squadmem.hooks.journal_check",
        "squadmem.hooks.file_check",
        "squadmem.hooks.log_check",
        "squadmem.hooks.budget_check",
    ),
    "pre-merge-commit": ("squadmem.hooks.log_check",),  # a merge git commits itself runs no pre-commit
    "prepare-commit-msg": ("squadmem.hooks.use_trailers",),
    "pre-push": ("squadmem.hooks.verify_push",),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in EVENTS:
        print(f"usage: python -m squadmem.hooks.run {{{'|'.join(EVENTS)}}} [ARGS...]", file=sys.stderr)
        return 2
    event, rest = args[0], args[1:]
    for name in EVENTS[event]:
        module = importlib.import_module(name)
        status = int(module.main(rest))
        if status != 0:
            return status
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
