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


def test_every_entry_point_quiets_the_libraries() -> None:
    """Loggers are per process: the CLI and each process it starts on its own entry point
    (torchrun ranks, islands, the coordinator) call procs.quiet_libraries."""
    import logging
    import os

    from jupiter.procs import quiet_libraries

    logger = logging.getLogger("bitsandbytes")
    level, env = logger.level, dict(os.environ)
    try:
        os.environ.pop("HF_HUB_OFFLINE", None)
        quiet_libraries()
        assert logger.level == logging.ERROR and os.environ["HF_HUB_OFFLINE"] == "1"
    finally:
        logger.setLevel(level)
        os.environ.clear()
        os.environ.update(env)
    src = Path(cli.__file__).parent
    for entry in ("cli.py", "train/launch.py", "cluster/island.py", "cluster/coordinator.py"):
        tree = ast.parse((src / entry).read_text(encoding="utf-8"))
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "quiet_libraries"
        ]
        assert calls, f"{entry} never calls quiet_libraries"
