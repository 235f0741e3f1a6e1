"""The import graph of phonkit/ (docs/architecture.md): no circle, and no import from a layer
up to a layer above it. Every import counts: at module level, for type checking only, and
inside functions (only ``import_module``'s loading of plugins by name is not an import
statement)."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1] / "phonkit"
LAYERS = [  # docs/architecture.md, from the ground up: a module imports its own layer and below
    {"errors", "progress", "metrics", "plugin", "__init__"},
    {"settings", "data"},
    {"model"},
    {"jobs"},
    {"hookspecs"},
    {"plugins"},
    {"run"},
    {"tables", "analysis"},
    {"tasks"},
    {"experiments", "views"},
    {"default_plugins", "api", "cli", "__main__"},
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    first = module.split(".")[1] if "." in module else "__init__"
    return next(number for number, names in enumerate(LAYERS) if first in names)


def imports(path: Path) -> set[str]:
    """Every phonkit module ``path`` imports, wherever the import statement stands."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name == "phonkit" or name.startswith("phonkit.")}


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in ROOT.rglob("*.py")}
    return {
        name: {target for target in imports(path) if target in modules and target != name}
        for name, path in modules.items()
    }


def test_every_module_has_a_layer():
    assert all(layer(module) >= 0 for module in graph())


def test_no_import_goes_up_a_layer():
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


def test_the_graph_reads_type_only_and_function_imports():
    edges = graph()
    assert "phonkit.jobs" in edges["phonkit.hookspecs"]  # under TYPE_CHECKING
    assert "phonkit.tasks.train" in edges["phonkit.cli.main"]  # inside a command
