"""What every command module shares: the two consoles, the --debug flag, a --json
document, the workspace of a --domain, a --model reference, a stage run.

Light on purpose: `jupiter --help` imports it; the stages are imported inside the
functions, when a command runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from jupiter.config import load_domain

if TYPE_CHECKING:
    from jupiter.improve.workspace import Workspace

console = Console()
err_console = Console(stderr=True)
STATE = {"debug": False}  # set by the app's callback (`jupiter --debug ...`)


def print_json(doc: object) -> None:
    """The whole of stdout for --json: one JSON document, nothing else."""
    import json

    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def workspace_for(domain: str, quick: bool) -> Workspace:
    from jupiter.improve.workspace import Workspace

    return Workspace(load_domain(domain, quick=quick), quick=quick, console=console)


def user_model(ref: str) -> Path:
    """A --model reference as a local dir; a GGUF is imported once into the user's cache."""
    from jupiter.models.reference import resolve_model, user_cache_dir

    return resolve_model(ref, base_dir=None, cache_dir=user_cache_dir(), console=err_console)


def run_stage(stage: str, domain: str, quick: bool, launch: object = None) -> None:
    """One stage of the cycle on the domain's workspace: refused without its input, marked
    done in order."""
    ws = workspace_for(domain, quick)
    ws.launch = launch
    from jupiter.improve.cycle import run_stage_command

    try:
        run_stage_command(ws, stage)
    finally:
        ws.close()
