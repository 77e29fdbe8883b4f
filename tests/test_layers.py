"""pokerai is layered (``docs/ARCHITECTURE.md``): a module imports only from its own layer or lower ones,
and no modules import each other in a cycle.

The checks read every module's source with :mod:`ast` (nothing is imported), resolve absolute and
relative imports of ``pokerai`` modules, and list each one that reaches up to a higher layer, and
each group of modules that import one another round a cycle. Imports inside functions (and under
``TYPE_CHECKING``) count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pokerai"

LAYERS: dict[str, int] = {
    "atomic": 0,
    "cluster": 0,
    "config": 0,
    "jit": 0,
    "interrupts": 0,
    "rng": 0,
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

INDEPENDENT: tuple[frozenset[str], ...] = (frozenset({"deepcfr", "tabular"}),)
"""Parts of one layer that may not import each other: the two blueprint kinds share only what lies
below them (hold'em itself in ``games/holdem.py``)."""

NETWORK_FREE: frozenset[str] = frozenset({"tabular", "search", "eval"})
"""Parts that may not import ``deepcfr`` although it lies below them: the default bot (search over the
tabular blueprint) and its evaluation reach a Deep CFR blueprint only through the ``Blueprint``
protocol of ``games/holdem.py``."""


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


def part_of(name: str) -> str | None:
    """The top-level part of ``pokerai`` that a dotted name lies in, or None outside ``pokerai``."""
    parts = name.split(".")
    return parts[1] if parts[0] == "pokerai" and len(parts) >= 2 else None


def independent_imports(root: Path) -> list[str]:
    """Every import in the package at ``root`` between two parts that :data:`INDEPENDENT` keeps apart,
    and of ``deepcfr`` by a part of :data:`NETWORK_FREE`, as ``file:line: a -> b``."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        own = part_of(module)
        for line, name in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            other = part_of(name)
            if own != other and any({own, other} <= group for group in INDEPENDENT):
                problems.append(
                    f"{path.relative_to(root.parent)}:{line}: {module} imports {name} ({own} and {other} "
                    "may not import each other)"
                )
            elif other == "deepcfr" and own in NETWORK_FREE:
                problems.append(
                    f"{path.relative_to(root.parent)}:{line}: {module} imports {name} ({own} may not "
                    "import deepcfr)"
                )
    return problems


def test_no_module_imports_a_part_kept_apart_from_its_own() -> None:
    assert independent_imports(PACKAGE) == []


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` and the package modules it imports (itself left out).

    A name imported from a module (``from pokerai.search.tree import Exact``) counts as an import of
    that module; a package's ``__init__`` is left out of the graph, since importing any submodule runs
    it (an edge to it would make every re-export a cycle).
    """
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    modules = {name for name, path in files.items() if path.name != "__init__.py"}

    def module_of(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name in modules:
        path = files[name]
        targets = {
            module_of(imported) for _, imported in imports_of(path.read_text(encoding="utf-8"), name, False)
        }
        graph[name] = {target for target in targets if target is not None and target != name}
    return graph


def import_cycles(root: Path) -> list[list[str]]:
    """Every group of two or more modules that import one another round a cycle (the strongly connected
    components of :func:`import_graph`, by Tarjan's algorithm), each sorted."""
    graph = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


def test_no_modules_import_each_other_in_a_cycle() -> None:
    assert import_cycles(PACKAGE) == []


def package_of(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``pokerai`` under ``tmp_path`` holding ``files`` (path inside it -> text), each folder
    with an ``__init__.py`` (empty unless given); returns its folder."""
    root = tmp_path / "pokerai"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for file, text in files.items():
        target = root / file
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.parent / "__init__.py").touch()
        target.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        # Two modules, the cycle closed by an import inside a function.
        (
            {
                "cli/a.py": "from pokerai.cli import b\n",
                "cli/b.py": "def later():\n    from pokerai.cli.a import x\n",
            },
            [["pokerai.cli.a", "pokerai.cli.b"]],
        ),
        # Three modules round a cycle, one import relative and one only for type checking.
        (
            {
                "search/a.py": "from .b import x\n",
                "search/b.py": "import pokerai.search.c\n",
                "search/c.py": "if TYPE_CHECKING:\n    from pokerai.search.a import y\n",
            },
            [["pokerai.search.a", "pokerai.search.b", "pokerai.search.c"]],
        ),
        # A chain, and a module importing its own package's __init__: no cycle.
        (
            {
                "search/__init__.py": "from pokerai.search.a import x\n",
                "search/a.py": "from pokerai.search import b\n",
                "search/b.py": "import pokerai.engine\n",
            },
            [],
        ),
    ],
)
def test_an_import_cycle_is_found(tmp_path: Path, files: dict[str, str], expected: list[list[str]]) -> None:
    assert import_cycles(package_of(tmp_path, files)) == expected


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
    assert len(upward_imports(package_of(tmp_path, {file: text}))) == 1


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("tabular/config.py", "from pokerai.deepcfr.encoding import NOT_DEALT\n"),
        ("tabular/blueprint.py", "def later():\n    from ..deepcfr import export\n"),
        ("deepcfr/export.py", "from pokerai.tabular.blueprint import TabularBlueprint\n"),
        ("deepcfr/__init__.py", "import pokerai.tabular.tree\n"),
        ("search/beliefs.py", "from pokerai.deepcfr.encoding import NOT_DEALT\n"),
        ("search/rollouts.py", "def later():\n    from ..deepcfr import export\n"),
        ("eval/aivat.py", "import pokerai.deepcfr.export\n"),
    ],
)
def test_an_import_kept_apart_is_found(tmp_path: Path, file: str, text: str) -> None:
    """Between the two blueprint kinds (one layer), or of deepcfr by the search or evaluation (which
    lie above it): only the rules for parts kept apart catch these, not the layers."""
    root = package_of(tmp_path, {file: text})
    assert len(independent_imports(root)) == 1
    assert upward_imports(root) == []


def test_imports_down_and_sideways_are_allowed(tmp_path: Path) -> None:
    root = package_of(
        tmp_path,
        {
            "agents/spec.py": "from pokerai.engine.state import Action\nfrom . import base\n"
            "from ..search.river import x\nimport numpy\nfrom pokerai import config\n",
            "tabular/config.py": "from pokerai.games.holdem import HUNLSettings\nfrom . import mccfr\n"
            "from pokerai.tabular import tree\n",
        },
    )
    assert upward_imports(root) == []
    assert independent_imports(root) == []
