"""`jupiter test`: a list of prompts through one or more models, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jupiter.cli_context import console, err_console
from jupiter.cli_types import ChatTemplate
from jupiter.outputs import output_lock

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command(name="test")
def batch_test(
    model: Annotated[
        list[str],
        typer.Option(
            "--model",
            help="Model to test (dir, adapter, checkpoint step-N dir, "
            ".gguf, Hub id, ollama:NAME); repeat to compare.",
        ),
    ],
    prompts: Annotated[
        Path,
        typer.Option(
            "--prompts", help='.txt (one prompt a line) or .jsonl of {"prompt", "expected"?}.'
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default: test-results/<time>).")
    ] = None,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 128,
    max_batch: Annotated[int, typer.Option(min=1, help="Prompts decoded together.")] = 16,
    system_prompt: Annotated[str, typer.Option(help="A system message before each prompt.")] = "",
    chat_template: ChatTemplate = "auto",
) -> None:
    """Run a list of prompts through each model (greedy, batched, chat template): writes
    results.jsonl, a side-by-side results.md and summary.json; scored (token F1, exact
    match, 95% CI) where the JSONL gives expected answers."""
    import time

    from jupiter.batch.prompts import read_prompts
    from jupiter.batch.report import check_results_out, write_results
    from jupiter.batch.run import BatchOptions, resolve_models, run_models
    from jupiter.models.reference import user_cache_dir

    items = read_prompts(prompts)
    models = resolve_models(model, user_cache_dir(), err_console)
    out_dir = out or Path("test-results") / time.strftime("%Y%m%d-%H%M%S")
    check_results_out(out_dir, [m.path for m in models] + [prompts])  # before any answer
    opts = BatchOptions(max_new_tokens, max_batch, chat_template, system_prompt)
    with output_lock(out_dir):  # taken before the first answer: a second run fails at once
        runs = run_models(models, items, opts, console)
        doc = write_results(out_dir, items, runs)
    for s in doc["models"]:
        score = (
            ""
            if not s["n_scored"]
            else (f", token F1 {s['f1']:.3f}, exact {s['exact']:.3f} ({s['n_scored']} scored)")
        )
        console.print(
            f"{s['model']}: {s['n']} answers, {s['tokens_per_s'] or 0:g} tokens/s{score}",
            highlight=False,
            markup=False,
        )
    console.print(f"results: {out_dir / 'results.md'}, {out_dir / 'results.jsonl'}", markup=False)
