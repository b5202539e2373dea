"""The command line's layout: cli.py keeps the app, the error policy and the wiring; each
verb's package owns its commands; and `jupiter --help` imports no heavy library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

from jupiter import cli

CLI = Path(cli.__file__)


def test_cli_py_stays_thin() -> None:
    text = CLI.read_text()
    assert len(text.splitlines()) < 300
    tree = ast.parse(text)
    commands = [
        f.name
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
        and any("command" in ast.unparse(d) for d in f.decorator_list)
    ]
    assert commands == ["version"], commands


def test_every_command_lives_in_its_verbs_package() -> None:
    group = typer.main.get_command(cli.app)
    seen: dict[str, str] = {}

    def walk(command: object, path: str) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{path} {name}".strip())
            return
        seen[path] = command.callback.__module__  # type: ignore[attr-defined]

    walk(group, "")
    assert {"eval", "score", "merge", "data export", "federated server", "train"} <= set(seen)
    for path, module in seen.items():
        if path == "version":
            assert module == "jupiter.cli"
        else:
            assert module.startswith("jupiter.") and module.endswith(".cli"), (path, module)
    assert seen["score"] == seen["eval"] == "jupiter.eval.cli"
    assert seen["merge"] == "jupiter.merge.cli" and seen["data export"] == "jupiter.data.cli"
    runner = CliRunner()
    groups = {" ".join(p.split()[:depth]) for p in seen for depth in range(len(p.split()))}
    for path in sorted(groups | set(seen)):  # every command's help, each group's too
        r = runner.invoke(cli.app, [*path.split(), "--help"])
        assert r.exit_code == 0 and "Usage:" in r.output, (path, r.output)


def test_the_command_line_starts_without_heavy_imports() -> None:
    code = (
        "import sys, jupiter.cli; print(' '.join(m for m in ('torch', 'numpy', "
        "'transformers', 'safetensors', 'jupiter.store', 'jupiter.improve.workspace') "
        "if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"imported at start-up: {r.stdout.strip()}"
