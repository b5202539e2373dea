"""`jupiter dashboard`: a local web page on the domain's run."""

from __future__ import annotations

from typing import Annotated

import typer

from jupiter.cli_context import console
from jupiter.cli_types import Domain, Quick
from jupiter.config import load_domain

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command()
def dashboard(
    domain: Domain,
    quick: Quick = False,
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8765,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="JUPITER_DASHBOARD_KEY",
            help="Needed beyond loopback: the page answers to /?key=KEY only.",
        ),
    ] = None,
) -> None:
    """A local web page on the domain's run, updating live: cycles with their figures and
    intervals, learning curves, the data queue, generation, the cluster, the lineage."""
    from jupiter.dashboard.server import run_dashboard
    from jupiter.improve.workspace import Workspace

    cfg = load_domain(domain, quick=quick)
    root = Workspace(cfg, quick=quick).root  # only its path: the store is opened read-only
    start = f"jupiter start --domain {domain}" + (" --quick" if quick else "")
    run_dashboard(
        root,
        cfg.name,
        host,
        port,
        cfg.cycles,
        cfg.max_examples,
        start,
        log=lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True),
        api_key=api_key or None,
    )
