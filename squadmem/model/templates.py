"""The files squadmem ships from the repository's ``templates/`` folder: tier file skeletons, the
hook shim, the spawn prompt, workflows, the demo's story. One reader, by path under that folder,
and the one function that writes a new tier file's header.

An install carries the folder inside the package (``squadmem/templates/``, mapped in
pyproject.toml); a source checkout or an editable install reads ``templates/`` beside the
package. Standard library only, and no ``importlib.resources``: ``context`` reads the spawn
prompt at every spawn.
"""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FOLDERS = (os.path.join(_PACKAGE, "templates"), os.path.join(os.path.dirname(_PACKAGE), "templates"))


def folder() -> str:
    """The templates folder: the installed package's own, else the source checkout's."""
    return next((f for f in _FOLDERS if os.path.isdir(f)), _FOLDERS[0])


def read(name: str) -> str:
    """The template ``name`` (``hot.md``, ``workflows/x.yml``), as text."""
    with open(os.path.join(folder(), *name.split("/")), encoding="utf-8") as file:
        return file.read()


def tier_header(tier: str, name: str, *, workspace: bool | None = None) -> str:
    """The text a new tier file starts with: ``<tier>.md``; in a memory-tiers workspace (default:
    the places :func:`squadmem.model.places.current` names) its own ``workspace/<tier>.md`` for
    MEMORY.md and the skill's tier files."""
    if workspace is None:
        from squadmem.model import places

        workspace = places.current().kind == places.WORKSPACE
    own = workspace and tier != "wiki"
    return read(f"{'workspace/' if own else ''}{tier}.md").format(name=name)
