"""models/ sits below train/: training uses models, never the other way around (the
model folder, the loss kernels and the scoring all live at or below models/)."""

from __future__ import annotations

import ast
from pathlib import Path

import jupiter.models

MODELS = Path(jupiter.models.__file__).parent


def _imported(source: str, package: str) -> set[str]:
    """Every module a file of `package` imports, those inside functions and under
    TYPE_CHECKING too; relative imports resolved."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            full = ".".join([*base, node.module or ""]).strip(".")
            names |= {full} | {f"{full}.{a.name}" for a in node.names}
    return names


def test_models_never_imports_train() -> None:
    """models/ sits below train/: training uses models, never the other way around."""
    files = sorted(MODELS.rglob("*.py"))
    assert MODELS / "folder.py" in files
    bad = set()
    for f in files:
        package = ".".join(["jupiter", *f.relative_to(MODELS.parent).parts[:-1]])
        for name in _imported(f.read_text(encoding="utf-8"), package):
            if name == "jupiter.train" or name.startswith("jupiter.train."):
                bad.add(f"{f.relative_to(MODELS)}: {name}")
    assert not bad, sorted(bad)


def test_the_layering_check_sees_imports_inside_functions() -> None:
    source = "def g():\n    from ..train import loss\n    import jupiter.train.dist\n"
    names = _imported(source, "jupiter.models")
    assert {"jupiter.train.loss", "jupiter.train.dist"} <= names
    assert "jupiter.models.folder" in _imported("from .folder import CONFIG\n", "jupiter.models")
