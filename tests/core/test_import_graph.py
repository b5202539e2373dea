"""The import graph of src/jupiter has no circles, and the stages of the cycle are leaves.

Every import counts, those written inside functions and under TYPE_CHECKING too: an import
moved into a function hides a circle from Python, not from the layering. `from a import b`
counts as importing the module a.b when there is one, else a."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import jupiter

SRC = Path(jupiter.__file__).parent
PACKAGE = "jupiter"

# modules of improve/ that run a part of one stage, called by that stage's module only
STAGE_PARTS = {
    "jupiter.improve.generation": "generate",  # with an LLM teacher
    "jupiter.improve.consensus": "train",  # with train.consensus
}


def stage_modules() -> dict[str, set[str]]:
    """Module → the stages it runs: those of improve/cycle.py's STAGES, and STAGE_PARTS."""
    from jupiter.improve.cycle import STAGES

    out: dict[str, set[str]] = {}
    for stage, fn in STAGES.items():
        out.setdefault(fn.__module__, set()).add(stage)
    return out | {module: {stage} for module, stage in STAGE_PARTS.items()}


def module_names(root: Path = SRC, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted name → file of every module under `root` (a package is its __init__)."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join([package, *parts])] = path
    return out


def imported(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The modules of `modules` that the file imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the file's package, one level up per extra dot
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import a.b.c` of a name in a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph(root: Path = SRC, package: str = PACKAGE) -> dict[str, set[str]]:
    modules = module_names(root, package)
    return {name: set(imported(name, path, modules)) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~300)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(component: list[str], graph: dict[str, set[str]]) -> str:
    """The circle and its edges, one `a -> b` per line."""
    members = set(component)
    edges = [f"    {a} -> {b}" for a in component for b in sorted(graph[a] & members)]
    return f"{len(component)} modules: {', '.join(component)}\n" + "\n".join(edges)


def test_graph_sees_every_form_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "def f():\n    from pkg.sub import b\n",
        "sub/__init__.py": "from . import c\n",
        "sub/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import f\n",
        "sub/c.py": "import pkg.sub.b\nfrom pkg import a, name_in_init\n",
        "d.py": "from .sub.c import x\n",
    }
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    graph = import_graph(pkg, "pkg")
    assert graph["pkg.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.a"}
    assert graph["pkg.sub"] == {"pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.sub.b", "pkg.a", "pkg"}
    assert graph["pkg.d"] == {"pkg.sub.c"}
    assert circles(graph) == [["pkg.a", "pkg.sub.b"]]


def test_no_import_circles() -> None:
    graph = import_graph()
    found = circles(graph)
    assert not found, "import circles in src/jupiter:\n" + "\n".join(
        describe(c, graph) for c in found
    )


def test_stages_are_leaves() -> None:
    """A module that runs a stage imports no other that does, save a stage's module its own
    parts: what two stages share lives one floor down (the eval set, a training run, the
    lineage, the workspace). The state machine, improve/cycle.py, imports them all."""
    graph = import_graph()
    runs = stage_modules()
    assert set(runs) <= set(graph), set(runs) - set(graph)
    entries = set(runs) - set(STAGE_PARTS)
    crossing = sorted(
        f"{a} ({', '.join(sorted(runs[a]))}) -> {b} ({', '.join(sorted(runs[b]))})"
        for a in runs
        for b in graph[a] & set(runs)
        if b in entries or not runs[b] <= runs[a] or a in STAGE_PARTS
    )
    assert not crossing, "stage modules importing one another:\n" + "\n".join(crossing)
