"""The cycle's commands: `jupiter start` (every stage in order), one stage alone
(`collect`, `generate`, `filter`), `status`, and the lineage (`generators`, `rollback`)."""

from __future__ import annotations

from typing import Annotated

import typer

from jupiter.cli_context import console, print_json, run_stage, workspace_for
from jupiter.cli_types import Domain, JsonFlag, Quick
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py


STAGE_COMMANDS = {
    "collect": "Collect the domain's documents into the store.",
    "generate": "Generate examples with the current generator into the queue.",
    "filter": "Filter the pending examples of the current cycle.",
}


def _stage_command(stage: str, doc: str) -> None:
    def command(domain: Domain, quick: Quick = False) -> None:
        run_stage(stage, domain, quick)

    commands.command(name=stage, help=doc)(command)


for _stage, _doc in STAGE_COMMANDS.items():
    _stage_command(_stage, _doc)


@commands.command()
def start(
    domain: Domain = "python",
    auto: Annotated[bool, typer.Option("--auto", help="Run every stage without asking.")] = False,
    interactive: Annotated[
        bool, typer.Option("--interactive", help="Ask before each stage; show samples.")
    ] = False,
    quick: Quick = False,
) -> None:
    """Run the cycle: collect → generate → filter → train → eval → decide."""
    if auto and interactive:
        raise JupiterError("--auto and --interactive exclude each other: pick one")
    ws = workspace_for(domain, quick)  # validate the config before the heavy imports
    from jupiter.improve.cycle import run_cycles

    try:
        run_cycles(ws, interactive=interactive)
    finally:
        ws.close()
    console.print(f"workspace: {ws.root}")


@commands.command()
def status(domain: Domain, quick: Quick = False, as_json: JsonFlag = False) -> None:
    """Cycles, data counts by status and reason, scores, and the current generator."""
    from jupiter.improve.report import status_data, status_tables

    ws = workspace_for(domain, quick)
    if as_json:
        doc = {"domain": ws.cfg.name, "workspace": str(ws.root), "exists": False}
        try:
            print_json(status_data(ws) if ws.has_store() else doc)
        finally:
            ws.close()
        return
    if not ws.has_store():
        console.print(f"no workspace yet at {ws.root}: run `jupiter start --domain {domain}`")
        return
    try:
        for table in status_tables(ws):
            console.print(table)
    finally:
        ws.close()


@commands.command()
def generators(domain: Domain, quick: Quick = False) -> None:
    """The lineage: every generator and rejected student, its parent, cycle, figures, the
    data it was trained on, and why it was promoted or kept out; then the activations."""
    from jupiter.improve.lineage import lineage_tables

    ws = workspace_for(domain, quick)
    if not ws.has_store():  # nothing to list is an error, as in rollback
        raise JupiterError(
            f"no workspace yet at {ws.root}: run `jupiter start --domain {domain}` first"
        )
    try:
        for table in lineage_tables(ws):
            console.print(table)
    finally:
        ws.close()


@commands.command(name="rollback")
def rollback_cmd(
    domain: Domain,
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            help="Generator id (see `jupiter generators`); default: the active one's parent.",
        ),
    ] = None,
    quick: Quick = False,
) -> None:
    """Make an earlier generator active again; recorded in the lineage."""
    from jupiter.improve.lineage import rollback

    ws = workspace_for(domain, quick)
    try:
        done = rollback(ws, to)
    finally:
        ws.close()
    console.print(
        f"rolled back: {done['to']} is the active generator again (was {done['from']}); "
        "the next cycle's data comes from it",
        highlight=False,
    )
