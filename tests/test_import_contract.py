"""The package's layers, checked from the source (an AST scan of every import, those inside functions too).

    core/         pure: numpy and the standard library; never bpy, bl, envs, ui or anything above
    bl/           the Blender adapters: bpy and core only
    envs/         environments: core and bl (never ui, the API, the export or the harness)
    answers/      what evaluation and rating share: core, envs' registry, setio
    evaluation/   model answers; rating/  human answers: neither imports the other
    ui/           the sidebar: the API and its own modules, plus bl.compat (each Blender version's
                  drawing and folder differences, which the API has no business wrapping)
    cli/, __main__, api, export, pipeline, ...: the layers above, free to join the libraries

A new import that crosses a layer fails here with the file, the line and the rule.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "realitybench_addon"
BLENDER_MODULES = {"bpy", "bmesh", "mathutils", "gpu", "gpu_extras", "blf", "bpy_extras", "addon_utils"}

# area -> (allowed areas of this package, may it import Blender's modules?)
RULES = {
    "core": ({"core"}, False),
    "bl": ({"core", "bl"}, True),
    "envs": ({"core", "bl", "envs"}, True),
    "answers": ({"core", "answers", "setio", "envs"}, False),
    "evaluation": ({"core", "answers", "evaluation", "setio", "envs", "version"}, False),
    "rating": ({"core", "answers", "rating", "setio", "envs"}, False),
    "ui": ({"ui", "api", "bl.compat"}, True),
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path):
    """(line, absolute module name) of every import in one file, relative imports resolved."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # each name may be a module: from ..bl import compat is bl.compat
                yield node.lineno, f"{target}.{alias.name}"


def area_of(module: str, package: str) -> str:
    """'core' for realitybench_addon.core.x, 'api' for realitybench_addon.api, 'bl.compat' kept whole."""
    rest = module[len(package) + 1:] if module.startswith(package + ".") else ""
    return rest.split(".")[0] if rest else ""


def violations(root: Path, package: str = PACKAGE) -> list[str]:
    found = []
    for path in sorted((root / package).rglob("*.py")):
        own = area_of(module_name(path, root), package)
        if own not in RULES:
            continue
        allowed, blender_ok = RULES[own]
        for line, target in imported_modules(path, root):
            where = f"{path.relative_to(root)}:{line} imports {target}"
            if target.split(".")[0] in BLENDER_MODULES:
                if not blender_ok:
                    found.append(f"{where}: {own}/ must not import Blender's modules")
                continue
            if not target.startswith(package + ".") and target != package:
                continue
            area = area_of(target, package)
            dotted = target[len(package) + 1:]
            if area in allowed or any(dotted == a or dotted.startswith(a + ".") for a in allowed if "." in a):
                continue
            found.append(f"{where}: {own}/ may import only {', '.join(sorted(allowed))}")
    return found


def import_cycles(root: Path, package: str = PACKAGE) -> list[list[str]]:
    """Groups of modules that import each other, directly or through others (imports inside functions too:
    they hide a cycle from Python, not from a reader). The package's own __init__ (registration) is left out."""
    paths = {module_name(p, root): p for p in (root / package).rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        deps = set()
        for _, target in imported_modules(path, root):
            while target and target not in paths:
                target = target.rpartition(".")[0]
            if target and target not in (name, package):
                deps.add(target)
        graph[name] = deps
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_modules_import_each_other():
    assert import_cycles(ROOT) == []


def test_a_cycle_is_caught(tmp_path):
    package = tmp_path / PACKAGE / "ui"
    package.mkdir(parents=True)
    (package / "tuning.py").write_text("def f():\n    from . import properties\n", encoding="utf-8")
    (package / "properties.py").write_text("from . import tuning\n", encoding="utf-8")
    assert import_cycles(tmp_path) == [[f"{PACKAGE}.ui.properties", f"{PACKAGE}.ui.tuning"]]


def test_every_layer_imports_only_what_it_may():
    found = violations(ROOT)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("area, line, rule", [
    ("core", "import bpy", "must not import Blender's modules"),
    ("core", "from ..envs import registry", "core/ may import only core"),
    ("bl", "from ..envs.base import FrameContext", "bl/ may import only bl, core"),
    ("evaluation", "    from ..rating.store import load_ratings", "evaluation/ may import only"),
    ("rating", "from ..evaluation import metrics", "rating/ may import only"),
    ("ui", "from ..bl import raycast", "ui/ may import only api, bl.compat, ui"),
])
def test_a_wrong_import_is_caught(tmp_path, area, line, rule):
    """The scan itself: a copy of the package with one wrong import added fails with that rule."""
    package = tmp_path / PACKAGE
    for path in (ROOT / PACKAGE).rglob("*.py"):
        target = package / path.relative_to(ROOT / PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert violations(tmp_path) == []
    bad = package / area / "wrong.py"
    body = f"def f():\n{line}\n" if line.startswith(" ") else f"{line}\n"
    bad.write_text(body, encoding="utf-8")
    found = violations(tmp_path)
    assert len(found) == 1 and found[0].startswith(f"{PACKAGE}/{area}/wrong.py:") and rule in found[0], found
