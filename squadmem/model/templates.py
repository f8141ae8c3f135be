"""The files squadmem ships in ``squadmem/templates/``: tier file skeletons, the hook shim,
the spawn prompt, workflows, the demo's story. One reader, by path under that folder.

Standard library only.
"""

from __future__ import annotations

from importlib import resources


def read(name: str) -> str:
    """The template ``name`` (``hot.md``, ``workflows/x.yml``), as text."""
    return resources.files("squadmem").joinpath("templates", *name.split("/")).read_text("utf-8")
