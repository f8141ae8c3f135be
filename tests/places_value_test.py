"""Which layout a repository uses is a value each caller holds, never a process-wide setting.

A command finds its work tree's places once (``Layout.places``) and hands
them down; a commit's places come from what it holds. Two work trees opened
in one process (a Squad team and a memory-tiers workspace) each read their
own paths, whichever was opened last. The model's path rules import one
another in one direction only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from squadmem.engine import catalog
from squadmem.model import places, settings, templates
from squadmem.model.layout import Layout, classify

PACKAGE = Path(__file__).resolve().parent.parent / "squadmem"


def _squad_tree(root: Path) -> Path:
    hot = root / ".squad" / "memory" / "hot"
    hot.mkdir(parents=True)
    (hot / "picard.md").write_text("# picard\n\n## Warp core\nKeep it cold.\n", encoding="utf-8")
    return root


def _workspace_tree(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "tiers.toml").write_text(settings.workspace_template("wren"), encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Greenhouse vents\nOpen the east one.\n", encoding="utf-8"
    )
    return root


def test_places_value_two_work_trees_in_one_process_each_read_their_own(tmp_path: Path) -> None:
    workspace = Layout(_workspace_tree(tmp_path / "garden"))
    squad = Layout(_squad_tree(tmp_path / "ship"))  # opened last: it changes nothing of the first
    assert workspace.places == places.Places(places.WORKSPACE, "wren")
    assert squad.places == places.SQUAD_PLACES
    assert [e.id for e in catalog.load(workspace).entries] == ["wren/greenhouse-vents"]
    assert [e.id for e in catalog.load(squad).entries] == ["picard/warp-core"]
    assert catalog.load(workspace).places == workspace.places


@pytest.mark.parametrize(
    ("rel", "squad", "workspace"),
    [
        ("MEMORY.md", None, ("hot", "wren")),
        (".squad/memory/hot/wren.md", ("hot", "wren"), None),
        ("memory/wiki/garden.md", None, ("wiki", "garden")),
    ],
)
def test_places_value_a_path_is_read_in_the_places_handed_in(
    rel: str, squad: tuple[str, str] | None, workspace: tuple[str, str] | None
) -> None:
    garden = places.Places(places.WORKSPACE, "wren")
    for where, expected in ((places.SQUAD_PLACES, squad), (garden, workspace)):
        found = classify(rel, where)
        assert (None if found is None else (found.tier, found.name)) == expected


def test_places_value_new_tier_files_start_with_their_layouts_header() -> None:
    squad = templates.headers(places.SQUAD_PLACES)
    garden = templates.headers(places.Places(places.WORKSPACE, "wren"))
    assert squad("hot", "wren") == templates.tier_header("hot", "wren", workspace=False)
    assert garden("hot", "wren") == templates.tier_header("hot", "wren", workspace=True)
    assert garden("hot", "wren") != squad("hot", "wren")
    assert garden("wiki", "garden") == squad("wiki", "garden")  # a wiki page is a wiki page


def test_places_value_the_module_keeps_no_layout_of_its_own() -> None:
    """Regression: the places used to be bound per process (``bind``/``current``), so the last
    work tree opened decided how every other path was read."""
    state = [name for name, value in vars(places).items() if isinstance(value, places.Places)]
    assert state == ["SQUAD_PLACES"]
    assert not {"bind", "use", "current"} & set(vars(places))


def _imports(path: Path, module: str) -> set[str]:
    """The squadmem modules ``module`` (at ``path``) imports, at the top or inside a function."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found |= {base} | {f"{base}.{a.name}" for a in node.names}
    return {name for name in found if name.startswith("squadmem")}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_places_value_no_import_circle_in_the_package() -> None:
    files = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {m: {i for i in _imports(p, m) if i in files and i != m} for m, p in files.items()}
    assert _cycles(graph) == []
