"""The files squadmem ships in ``squadmem/templates/``: tier file skeletons, the hook shim,
the spawn prompt, workflows, the demo's story. One reader, by path under that folder.

Standard library only.
"""

from __future__ import annotations

from importlib import resources


def read(name: str) -> str:
    """The template ``name`` (``hot.md``, ``workflows/x.yml``), as text."""
    return resources.files("squadmem").joinpath("templates", *name.split("/")).read_text("utf-8")


def tier_header(tier: str, name: str) -> str:
    """The text a new tier file starts with: ``<tier>.md``; in a memory-tiers workspace its own
    ``workspace/<tier>.md`` for MEMORY.md and the skill's tier files."""
    from squadmem.model import places

    own = places.current().kind == places.WORKSPACE and tier != "wiki"
    return read(f"{'workspace/' if own else ''}{tier}.md").format(name=name)
