"""The GitHub Actions workflows ``init --workflows`` writes, pinned to the squadmem installed here.

A workflow must install squadmem from a source that exists, pinned, or it
fails (or worse: installs whatever someone registered under the name) with a
``contents: write`` token. The requirement comes from ``--requirement``, or
from how this squadmem was installed (PEP 610's ``direct_url.json``):

- from a git URL: ``squadmem @ git+<url>@<commit>`` (the exact commit);
- from an index (no ``direct_url.json``): ``squadmem==<version>``;
- from a local folder or file (an editable checkout, a wheel on disk): no
  runner can reach it, so squadmem refuses and asks for ``--requirement``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from importlib import metadata
from pathlib import Path

from squadmem import __version__
from squadmem.model import templates
from squadmem.model.errors import SquadmemError

FOLDER = ".github/workflows"
NAMES = ("squadmem-maintain.yml", "squadmem-verify.yml")
PLACEHOLDER = "@REQUIREMENT@"
_SAFE = re.compile(r"[A-Za-z0-9._\-+@:/=<>!~,\[\] #%?&]+")


@dataclasses.dataclass(frozen=True)
class Written:
    requirement: str
    created: tuple[str, ...]
    kept: tuple[str, ...]  # already there: left alone


def installed_requirement() -> str:
    """The pip requirement that reinstalls this squadmem elsewhere, or a refusal saying why not."""
    try:
        raw = metadata.distribution("squadmem").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        raw = None
    if not raw:
        return f"squadmem=={__version__}"
    info = json.loads(raw)
    url = str(info.get("url", ""))
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and not url.startswith("file:"):
        return f"squadmem @ git+{url}@{vcs.get('commit_id')}"
    if url.startswith(("http://", "https://")) and "archive_info" in info:
        return f"squadmem @ {url}"
    raise SquadmemError(
        f"squadmem was installed from {url or 'a local folder'}, which a GitHub runner cannot reach",
        hint="pass --requirement with a source that exists, "
        "e.g. --requirement 'squadmem @ git+https://github.com/OWNER/squadmem@v0.1.0'",
    )


def check_requirement(requirement: str) -> str:
    text = requirement.strip()
    if not text or "'" in text or "\n" in text or not _SAFE.fullmatch(text) or "squadmem" not in text:
        raise SquadmemError(
            f"--requirement {requirement!r}: not a pip requirement for squadmem",
            hint="e.g. 'squadmem==0.1.0' or 'squadmem @ git+https://github.com/OWNER/squadmem@<commit>'",
        )
    return text


def render(name: str, requirement: str) -> str:
    text = templates.read(f"workflows/{name}")
    return text.replace(PLACEHOLDER, check_requirement(requirement))


def write(root: Path, requirement: str | None) -> Written:
    """Both workflows under ``.github/workflows/``; a file already there is never overwritten."""
    wanted = check_requirement(requirement) if requirement is not None else installed_requirement()
    created, kept = [], []
    for name in NAMES:
        path = root / FOLDER / name
        rel = f"{FOLDER}/{name}"
        if path.exists() or path.is_symlink():
            kept.append(rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8", newline="") as handle:
            handle.write(render(name, wanted))
        created.append(rel)
    return Written(wanted, tuple(created), tuple(kept))
