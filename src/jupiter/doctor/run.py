"""Run every check, in print order, and render the report as lines or as JSON."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from jupiter.doctor.nodes import cluster_checks
from jupiter.doctor.packages import package_checks
from jupiter.doctor.result import Check, Context, fail
from jupiter.doctor.servers import hf_cache_check, model_checks, server_checks
from jupiter.doctor.system import (
    accelerator_check,
    collectives_check,
    disk_check,
    gpu_checks,
    memory_check,
    mlx_check,
    python_check,
    torch_check,
)

CheckFn = Callable[[Context], list[Check]]
CHECKS: tuple[CheckFn, ...] = (
    python_check,
    torch_check,
    accelerator_check,
    mlx_check,
    gpu_checks,
    collectives_check,
    disk_check,
    memory_check,
    package_checks,
    server_checks,
    hf_cache_check,
    model_checks,
    cluster_checks,
)
STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red"}


def context(cfg: Any = None, cluster_file: str | None = None, timeout: float = 3.0) -> Context:
    """The checks' context: runs go under $JUPITER_HOME (default: the current directory)."""
    return Context(cfg, cluster_file, Path(os.environ.get("JUPITER_HOME", ".")), timeout)


def run_checks(
    ctx: Context, checks: tuple[CheckFn, ...] = CHECKS, debug: bool = False
) -> list[Check]:
    """Every check's lines; a check that raises is itself a failed line (the doctor must
    report on a broken machine, not die on it), or raises with `debug`."""
    out: list[Check] = []
    for check in checks:
        try:
            out += check(ctx)
        except Exception as e:  # noqa: BLE001 - reported as the check's own failure
            if debug:
                raise
            name = check.__name__.removesuffix("_checks").removesuffix("_check")
            out.append(
                fail(
                    "doctor",
                    name,
                    f"the check itself failed: {type(e).__name__}: {e}",
                    "run `jupiter --debug doctor` and report the traceback",
                )
            )
    return out


def failed(checks: list[Check]) -> bool:
    return any(c.status == "fail" for c in checks)


def report_json(checks: list[Check]) -> dict[str, Any]:
    counts = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    return {"ok": not failed(checks), "counts": counts, "checks": [c.to_json() for c in checks]}


def print_report(checks: list[Check], console: Console) -> None:
    """One line per check: status, name, what was found, and for a warn or fail the fix."""
    width = max((len(c.name) for c in checks), default=0)
    for c in checks:
        line = (
            f"[{STYLE[c.status]}]{c.status:<4}[/] {escape(c.name.ljust(width))}  {escape(c.detail)}"
        )
        if c.fix:
            line += f" [bold]→ fix:[/] {escape(c.fix)}"
        console.print(line, highlight=False, soft_wrap=True)
    counts = report_json(checks)["counts"]
    console.print(
        f"{counts['ok']} ok, {counts['warn']} warn, {counts['fail']} fail", highlight=False
    )
