"""`jupiter export`: a model as a merged HF dir, GGUF, Ollama or mlx-lm folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from jupiter.cli_context import console, err_console, workspace_for
from jupiter.cli_types import Quick
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command(name="export")
def export_cmd(
    to: Annotated[str, typer.Option("--to", help="hf | gguf | ollama | mlx")],
    out: Annotated[Path, typer.Option(help="Output folder (written whole or not at all).")],
    model: Annotated[
        str | None, typer.Option(help="Model dir, LoRA adapter, Hub id, .gguf or ollama:NAME.")
    ] = None,
    domain: Annotated[
        str | None, typer.Option("--domain", "-d", help="Export a model of this domain.")
    ] = None,
    best: Annotated[bool, typer.Option("--best", help="The best evaluated student.")] = False,
    cycle: Annotated[int | None, typer.Option(min=1, help="That cycle's student.")] = None,
    checkpoint: Annotated[
        str | None, typer.Option(help="epoch-K or step-N of the (latest or --cycle) run.")
    ] = None,
    quant: Annotated[
        str | None,
        typer.Option(
            help="hf: auto|f32|f16|bf16; gguf/ollama: f32|f16|bf16|q8_0 (default "
            "f16/q8_0); mlx: auto|f32|f16|bf16|q8|q4"
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
    quick: Quick = False,
) -> None:
    """Export a model: merged HF dir, GGUF (llama.cpp, LM Studio), Ollama (GGUF + Modelfile)
    or mlx-lm folder; writes OUT/export.json (source, checksums, eval figures)."""
    from jupiter.export.common import MANIFEST
    from jupiter.export.source import from_domain, from_model
    from jupiter.export.writer import (
        check_export_source,
        export_inputs,
        plan_export,
        write_export,
    )
    from jupiter.models.reference import user_cache_dir
    from jupiter.outputs import check_output

    if (model is None) == (domain is None):
        raise JupiterError("give --model MODEL or --domain NAME (one of them)")
    if model is not None and (best or cycle is not None or checkpoint is not None):
        raise JupiterError(
            "--best, --cycle and --checkpoint pick among a domain's models: use them with --domain"
        )
    plan = plan_export(to, out, quant, force)
    if model is not None:
        source = from_model(model, user_cache_dir(), err_console)
    else:
        ws = workspace_for(domain or "", quick)
        try:
            source = from_domain(ws, best=best, cycle=cycle, checkpoint=checkpoint)
        finally:
            ws.close()
    # an --out that is an input or a workspace is refused before anything is said or read,
    # and a damaged model is never exported
    check_output(plan.out, export_inputs(source), force=plan.force, manifest=MANIFEST)
    check_export_source(source)
    err_console.print(
        f"exporting {source.selected}: {source.path}", highlight=False, markup=False, soft_wrap=True
    )
    result = write_export(plan, source, err_console)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    files = ", ".join(result.manifest["files"])
    console.print(
        f"{plan.fmt} ({plan.quant}) → {result.out}: {files}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    if result.create:
        console.print(result.create, highlight=False, markup=False, soft_wrap=True)
