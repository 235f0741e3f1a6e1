"""The import graph of phonkit/ (docs/architecture.md): no circle, and no module-level
import from a layer below (a module imports from its own layer and the ones above)."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1] / "phonkit"
LAYERS = [  # docs/architecture.md, top down
    {"errors", "settings", "progress", "hookspecs", "plugins", "plugin", "__init__"},
    {"data"},
    {"model"},
    {"run"},
    {"tasks"},
    {"analysis", "views", "experiments"},
    {"default_plugins"},
    {"api"},
    {"cli", "__main__"},
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    first = module.split(".")[1] if "." in module else "__init__"
    return next(number for number, names in enumerate(LAYERS) if first in names)


def runtime_imports(path: Path) -> set[str]:
    """The phonkit modules imported at module level (not inside functions, not for type
    checking only)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("phonkit"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("phonkit")}
    return {name for name in found if name == "phonkit" or name.startswith("phonkit.")}


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in ROOT.rglob("*.py")}
    return {
        name: {target for target in runtime_imports(path) if target in modules and target != name}
        for name, path in modules.items()
    }


def test_no_import_goes_to_a_layer_below():
    wrong = [
        f"{source} -> {target}"
        for source, targets in graph().items()
        for target in targets
        if layer(target) > layer(source)
    ]
    assert wrong == []


def test_no_import_circle():
    edges = graph()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError(" -> ".join([*path[path.index(module) :], module]))
        if module in done:
            return
        for target in sorted(edges.get(module, ())):
            visit(target, [*path, module])
        done.add(module)

    for module in sorted(edges):
        visit(module, [])
