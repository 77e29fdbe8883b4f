"""pokerai is layered (``docs/ARCHITECTURE.md``): a module imports only from its own layer or lower ones.

The check reads every module's source with :mod:`ast` (nothing is imported), resolves absolute and
relative imports of ``pokerai`` modules, and lists each one that reaches up to a higher layer.
Imports inside functions count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pokerai"

LAYERS: dict[str, int] = {
    "config": 0,
    "jit": 0,
    "interrupts": 0,
    "shipped": 0,
    "engine": 0,
    "abstraction": 1,
    "games": 2,
    "solvers": 3,
    "deepcfr": 4,
    "tabular": 4,
    "search": 5,
    "agents": 6,
    "eval": 7,
    "cli": 8,
    "web": 8,
}
"""The layer of each top-level part of ``pokerai`` (a subpackage, or ``config.py``)."""


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path`` inside the package folder ``root``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every import in ``source``, the text of ``module``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # "from pokerai import eval" imports the subpackage: count each name as a module too.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def layer_of(name: str) -> int | None:
    """The layer of a dotted ``pokerai`` name, or None outside ``pokerai`` or at its top."""
    parts = name.split(".")
    if parts[0] != "pokerai" or len(parts) < 2:
        return None
    return LAYERS.get(parts[1])


def upward_imports(root: Path) -> list[str]:
    """Every import in the package at ``root`` that reaches a higher layer, as ``file:line: a -> b``."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        own = layer_of(module)
        if own is None:
            continue
        for line, name in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            other = layer_of(name)
            if other is not None and other > own:
                problems.append(
                    f"{path.relative_to(root.parent)}:{line}: {module} (layer {own}) imports "
                    f"{name} (layer {other})"
                )
    return problems


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward_imports(PACKAGE) == []


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    parts |= {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    assert parts == set(LAYERS)


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("engine/cards.py", "from pokerai.agents.base import Agent\n"),
        ("engine/cards.py", "def later():\n    import pokerai.eval.duplicate\n"),
        ("games/kuhn.py", "from ..search import subgame\n"),
        ("search/__init__.py", "from ..agents import base\n"),
        ("solvers/cfr.py", "from pokerai import cli\n"),
    ],
)
def test_an_upward_import_is_found(tmp_path: Path, file: str, text: str) -> None:
    root = tmp_path / "pokerai"
    target = root / file
    target.parent.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    target.write_text(text)
    assert len(upward_imports(root)) == 1


def test_imports_down_and_sideways_are_allowed(tmp_path: Path) -> None:
    root = tmp_path / "pokerai"
    (root / "agents").mkdir(parents=True)
    (root / "agents" / "spec.py").write_text(
        "from pokerai.engine.state import Action\nfrom . import base\nfrom ..search.river import x\n"
        "import numpy\nfrom pokerai import config\n"
    )
    assert upward_imports(root) == []
