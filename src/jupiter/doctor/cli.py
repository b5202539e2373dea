"""`jupiter doctor`: this machine and the domain's surroundings, one line a check."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jupiter.cli_context import STATE, console, print_json
from jupiter.cli_types import FiniteFloat, JsonFlag
from jupiter.config import load_cluster, load_domain
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command()
def doctor(
    domain: Annotated[
        str | None,
        typer.Option("--domain", "-d", help="Also check this domain's servers and models."),
    ] = None,
    cluster_file: Annotated[
        str | None, typer.Option("--cluster-file", help="Also probe the nodes of this file.")
    ] = None,
    timeout: Annotated[
        float, typer.Option(click_type=FiniteFloat(min=0.1), help="Seconds per network probe.")
    ] = 3.0,
    as_json: JsonFlag = False,
) -> None:
    """Check this machine and the domain's surroundings: Python, torch, GPUs, NCCL/gloo,
    disk, memory, optional packages, LLM servers, HF cache, models, cluster nodes. One line
    per check; every warn and fail with its fix; exit 1 when any check fails."""
    from jupiter.doctor.run import context, failed, print_report, report_json, run_checks

    cfg = load_domain(domain) if domain else None
    if cluster_file and not Path(cluster_file).is_file():
        raise JupiterError(
            f"--cluster-file {cluster_file}: no such file: give the path of "
            "a cluster.yaml (see config/cluster.yaml)"
        )
    if cluster_file:  # a file the user named that does not parse is refused like a missing one
        load_cluster(cluster_file)
    checks = run_checks(context(cfg, cluster_file, timeout), debug=STATE["debug"])
    if as_json:
        print_json(report_json(checks))
    else:
        print_report(checks, console)
    if failed(checks):
        raise typer.Exit(1)
