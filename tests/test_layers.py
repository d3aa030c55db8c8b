"""Imports run one way, and no module imports itself back through others.

Reads every ``import`` of the project's packages with :mod:`ast` (function-level
imports included) and fails on an import against the layer order below or on a
cycle between modules. The order is the one the README's architecture section
draws; change both together.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO

TOP_PACKAGES = ("controller", "vision", "hardware", "firmware")

# controller's own layers: a package may import only packages of a lower rank
# (core is the leaf, cli the root). Packages of one rank do not import each other.
CONTROLLER_RANKS: dict[str, int] = {
    "core": 0,
    "system": 1,
    "rules": 1,
    "storage": 1,
    "gamedata": 2,
    "game": 3,
    "companion": 3,
    "advisor": 4,
    "publish": 4,
    "scoreboard": 5,
    "table": 5,
    "board": 6,
    "config": 7,
    "daemon": 8,
    "demo": 9,
    "bench": 10,  # measures everything below it; only the CLI (and the tests) import it
    "cli": 11,
}
# From this rank up, a controller package may use vision and hardware.
DEVICE_USERS_FROM = CONTROLLER_RANKS["table"]
# vision and hardware stand beside the controller: they import only its core.
SIDE_PACKAGES: dict[str, frozenset[str]] = {
    "vision": frozenset({"controller.core"}),
    "hardware": frozenset({"controller.core", "firmware"}),
    "firmware": frozenset(),
}
# vision's own order: its leaf modules (errors, events, settings, images), then the
# synthetic renderer, the camera sources, reading, learning. A subpackage imports only
# those before it (reading never imports learning).
VISION_RANKS: dict[str, int] = {
    "vision": 0,
    "vision.models": 0,
    "vision.synth": 1,
    "vision.sources": 2,
    "vision.reading": 3,
    "vision.learning": 4,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _source_files() -> Iterator[Path]:
    for top in TOP_PACKAGES:
        yield from sorted((REPO / top).rglob("*.py"))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, module: str) -> Iterator[tuple[int, str, bool]]:
    """(line, imported module, runtime?) for every project import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for inner in node.body:
                typing_only.update(id(n) for n in ast.walk(inner))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # "from pkg import mod" imports pkg.mod when that is a module.
            names = [target]
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                if _exists(candidate):
                    names.append(candidate)
        for name in names:
            if name.split(".")[0] in TOP_PACKAGES:
                yield getattr(node, "lineno", 0), name, id(node) not in typing_only


def _exists(module: str) -> bool:
    base = REPO.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _area(module: str) -> str:
    """``controller.game.engine.turn`` -> ``controller.game``; ``vision.reading.read`` -> ``vision``."""
    parts = module.split(".")
    if parts[0] == "controller" and len(parts) > 1:
        return f"controller.{parts[1]}"
    return parts[0]


def _vision_part(module: str) -> str:
    """``vision.reading.read`` -> ``vision.reading``; a leaf module (``vision.errors``) -> ``vision``."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and f"vision.{parts[1]}" in VISION_RANKS):
        return ".".join(parts[:2])
    return "vision"


def _vision_allowed(src: str, dst: str) -> bool:
    if src == dst:
        return True
    return VISION_RANKS[dst] < VISION_RANKS[src]


def _allowed(src: str, dst: str) -> bool:
    if src == dst or dst == "controller":
        return True
    if src in SIDE_PACKAGES:
        return dst in SIDE_PACKAGES[src]
    if not src.startswith("controller."):
        return False
    src_rank = CONTROLLER_RANKS.get(src.split(".")[1], -1)
    if dst in SIDE_PACKAGES:
        return src_rank >= DEVICE_USERS_FROM
    dst_rank = CONTROLLER_RANKS.get(dst.split(".")[1])
    return dst_rank is not None and dst_rank < src_rank


@functools.cache  # read once per run: three tests walk the same graph
def _graph() -> dict[str, list[tuple[int, str, bool]]]:
    return {_module_name(p): list(_imports(p, _module_name(p))) for p in _source_files()}


def test_every_controller_package_has_a_layer() -> None:
    packages = {p.name for p in (REPO / "controller").iterdir() if (p / "__init__.py").is_file()}
    unknown = packages - set(CONTROLLER_RANKS) - {"data"}
    assert not unknown, f"give these packages a layer in tests/test_layers.py: {sorted(unknown)}"
    loose = [p.name for p in (REPO / "controller").glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"modules outside any package: {loose}"


def test_imports_run_one_way() -> None:
    wrong: list[str] = []
    for module, imports in _graph().items():
        src = _area(module)
        for line, target, _ in imports:
            dst = _area(target)
            if not _allowed(src, dst):
                path = module.replace(".", "/")
                wrong.append(f"{path}.py:{line}: {src} imports {target} ({dst})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_vision_parts_import_one_way() -> None:
    parts = {
        _vision_part(_module_name(p))
        for p in (REPO / "vision").rglob("*.py")
        if p.parent == REPO / "vision" or (p.parent / "__init__.py").is_file()
    }
    unknown = parts - set(VISION_RANKS)
    assert not unknown, f"give these vision parts a rank in tests/test_layers.py: {sorted(unknown)}"
    wrong: list[str] = []
    for module, imports in _graph().items():
        if not module.startswith("vision"):
            continue
        for line, target, _ in imports:
            if target.startswith("vision") and not _vision_allowed(
                _vision_part(module), _vision_part(target)
            ):
                path = module.replace(".", "/")
                wrong.append(f"{path}.py:{line}: {module} imports {target}")
    assert not wrong, "vision imports against its order:\n" + "\n".join(wrong)


def test_nothing_imports_the_cli() -> None:
    offenders = [
        f"{module} imports {target}"
        for module, imports in _graph().items()
        if not module.startswith("controller.cli")
        for _, target, _ in imports
        if target.startswith("controller.cli")
    ]
    assert not offenders, offenders


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    graph = _graph()
    edges: dict[str, set[str]] = {}
    for module, imports in graph.items():
        for _, target, runtime in imports:
            if not runtime or target == module:
                continue
            # A package's __init__ importing its own modules is how packages
            # re-export; a module importing its package's __init__ back is the cycle.
            if module.startswith(target + ".") and target in graph:
                continue
            if target in graph:
                edges.setdefault(module, set()).add(target)
    cycles = _cycles(edges)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize(
    ("src", "dst", "ok"),
    [
        ("controller.game", "controller.rules", True),
        ("controller.rules", "controller.game", False),
        ("controller.companion", "controller.advisor", False),
        ("controller.game", "controller.companion", False),
        ("controller.game", "vision", False),
        ("controller.table", "hardware", True),
        ("vision", "controller.core", True),
        ("vision", "controller.rules", False),
        ("hardware", "firmware", True),
        ("controller.bench", "controller.demo", True),
        ("controller.daemon", "controller.bench", False),
        ("controller.scoreboard", "controller.bench", False),
        ("controller.bench", "hardware", True),
        ("firmware", "controller.core", False),
    ],
)
def test_the_layer_rule_itself(src: str, dst: str, ok: bool) -> None:
    assert _allowed(src, dst) is ok


@pytest.mark.parametrize(
    ("src", "dst", "ok"),
    [
        ("vision.learning.calibrate", "vision.reading.model", True),
        ("vision.reading.read", "vision.learning.dataset", False),
        ("vision.reading.reader", "vision.sources.source", True),
        ("vision.sources.source", "vision.reading.read", False),
        ("vision.synth.scenes", "vision.sources.source", False),
        ("vision.sources.source", "vision.synth.scenes", True),
        ("vision.reading.read", "vision.errors", True),
        ("vision.errors", "vision.reading.read", False),
    ],
)
def test_the_vision_order_itself(src: str, dst: str, ok: bool) -> None:
    assert _vision_allowed(_vision_part(src), _vision_part(dst)) is ok


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
