from __future__ import annotations

from pathlib import Path

import pytest

from squadmem.model import templates

SHIPPED = Path(templates.__file__).resolve().parents[2] / "templates"  # the repository's templates/


@pytest.mark.parametrize("name", ["hot.md", "hook.sh", "spawn.md", "demo/story.toml"])
def test_read_gives_the_shipped_file(name: str) -> None:
    assert templates.read(name) == (SHIPPED / name).read_text("utf-8")


def test_read_reaches_into_folders() -> None:
    for path in (SHIPPED / "workflows").iterdir():
        assert templates.read(f"workflows/{path.name}") == path.read_text("utf-8")


def test_read_of_a_missing_template_raises() -> None:
    with pytest.raises(FileNotFoundError):
        templates.read("nope.md")


def test_the_package_reads_the_repository_templates_folder() -> None:
    """A source checkout has no squadmem/templates/: the reader finds templates/ beside the package."""
    assert Path(templates.folder()).resolve() == SHIPPED.resolve()
