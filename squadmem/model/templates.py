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

from squadmem.model import places as places_kinds

TYPE_CHECKING = False  # typing is not imported at run time: ``context`` reads the spawn prompt here
if TYPE_CHECKING:
    from collections.abc import Callable

    from squadmem.model.places import Places

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FOLDERS = (os.path.join(_PACKAGE, "templates"), os.path.join(os.path.dirname(_PACKAGE), "templates"))


def folder() -> str:
    """The templates folder: the installed package's own, else the source checkout's."""
    return next((f for f in _FOLDERS if os.path.isdir(f)), _FOLDERS[0])


def read(name: str) -> str:
    """The template ``name`` (``hot.md``, ``workflows/x.yml``), as text."""
    with open(os.path.join(folder(), *name.split("/")), encoding="utf-8") as file:
        return file.read()


def tier_header(tier: str, name: str, *, workspace: bool) -> str:
    """The text a new tier file starts with: ``<tier>.md``; in a memory-tiers workspace its own
    ``workspace/<tier>.md`` for MEMORY.md and the skill's tier files."""
    own = workspace and tier != "wiki"
    return read(f"{'workspace/' if own else ''}{tier}.md").format(name=name)


def headers(places: Places) -> Callable[[str, str], str]:
    """``(tier, name) -> the text a new tier file starts with`` in ``places``' layout: what the
    planner and the writer are handed."""
    workspace = places.kind == places_kinds.WORKSPACE
    return lambda tier, name: tier_header(tier, name, workspace=workspace)
