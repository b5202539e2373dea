"""`jupiter chat` (a REPL) and `jupiter serve` (an OpenAI-compatible HTTP API)."""

from __future__ import annotations

from typing import Annotated

import typer

from jupiter.cli_context import console, user_model, workspace_for
from jupiter.cli_types import ChatTemplate, Domain, FiniteFloat, OpenBook, Quick, TopK
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command()
def chat(
    domain: Domain = "python",
    model: Annotated[
        str | None,
        typer.Option(help="Instead of the best one: a model dir, Hub id, .gguf or ollama:NAME."),
    ] = None,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 128,
    temperature: Annotated[float, typer.Option(click_type=FiniteFloat(min=0.0))] = 0.0,
    chat_template: ChatTemplate = "auto",
    quick: Quick = False,
    open_book: OpenBook = False,
    top_k: TopK = 3,
) -> None:
    """Chat with the domain's best model."""
    from jupiter.serve.chat import ChatSession, best_model, chat_repl, open_book_index

    ws = workspace_for(domain, quick)
    try:
        model_dir = user_model(model) if model else best_model(ws)
        from jupiter.models.folder import is_model_dir

        if not is_model_dir(model_dir):
            raise JupiterError(
                f"not a model dir (no config.json or adapter_config.json): {model_dir}"
            )
        passages = open_book_index(model_dir, ws) if open_book else None
    finally:
        ws.close()
    console.print(f"model: {model_dir}")
    if passages is not None:
        console.print(f"open book: top {top_k} of {len(passages)} passages per question")
    session = ChatSession(
        model_dir,
        ws.cfg.system_prompt,
        max_new_tokens,
        temperature,
        chat_template,
        passages,
        top_k,
    )
    chat_repl(session, console)


@commands.command()
def serve(
    model: Annotated[
        str,
        typer.Option(
            "--model", help="HF model dir, LoRA adapter dir, Hub id, .gguf file or ollama:NAME."
        ),
    ],
    host: Annotated[
        str, typer.Option(help="Address to bind; other than loopback needs a key.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8000,
    api_key: Annotated[
        str | None, typer.Option(envvar="JUPITER_API_KEY", help="Require Bearer KEY.")
    ] = None,
    max_batch: Annotated[int, typer.Option(min=1, help="Requests decoded together.")] = 16,
    name: Annotated[
        str | None, typer.Option(help="Model id clients send (default: dir name).")
    ] = None,
    chat_template: ChatTemplate = "auto",
    open_book: OpenBook = False,
    top_k: TopK = 3,
) -> None:
    """Serve a model over an OpenAI-compatible HTTP API (/v1/chat/completions, /v1/completions).
    A chat request may send "open_book": true (and "open_book_top_k") to get passages."""
    from jupiter.serve.server import ServeOptions, run_server

    opts = ServeOptions(
        model, host, port, api_key or None, max_batch, name, chat_template, open_book, top_k
    )
    run_server(
        opts, log=lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True)
    )
