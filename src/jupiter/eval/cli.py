"""`jupiter eval`: the domain's student against its generator (the cycle's eval stage), or
the domain's eval set written as an lm-eval task; and `jupiter score`: any model on any
QA set. `jupiter eval --model M --qa FILE ...` is kept as the old spelling of `score`."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated, Literal, cast

import click
import typer

from jupiter.cli_context import console, err_console, print_json, run_stage
from jupiter.cli_types import ChatTemplate, JsonFlag, OpenBook, Quick, TopK
from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.outputs import output_lock

commands = typer.Typer()  # merged into the app by jupiter/cli.py


# unknown options are collected, not refused: `eval --model M --qa FILE` passes them on
# to `score` (the old spelling); without --model/--qa they are refused as click would
@commands.command(
    name="eval", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def eval_cmd(
    ctx: typer.Context,
    domain: Annotated[
        str | None, typer.Option("--domain", "-d", help="Domain name or path to its YAML.")
    ] = None,
    quick: Quick = False,
    export_lm_eval: Annotated[
        Path | None,
        typer.Option(
            "--export-lm-eval",
            help="With --domain: write the domain's eval set here as an lm-eval task "
            "(YAML + JSONL) instead of evaluating.",
        ),
    ] = None,
    as_json: JsonFlag = False,
    model: Annotated[str | None, typer.Option(hidden=True, help="See `jupiter score`.")] = None,
    qa: Annotated[
        Path | None, typer.Option("--qa", hidden=True, help="See `jupiter score`.")
    ] = None,
) -> None:
    """Evaluate the student against the current generator, with 95% intervals (the cycle's
    eval stage), or export the domain's eval set for lm-eval. Any model on any QA set:
    `jupiter score`."""
    if export_lm_eval is not None:
        if domain is None or model is not None or qa is not None:
            raise JupiterError(
                "--export-lm-eval writes a domain's eval set: give --domain "
                "NAME, without --model/--qa"
            )
        _refuse_extra(ctx)
        _export_lm_eval(domain, quick, export_lm_eval, as_json)
        return
    if model is not None or qa is not None:
        if model is None or qa is None or domain is not None:
            raise JupiterError("--model and --qa go together, without --domain")
        score_args = ["--model", model, "--qa", str(qa), *ctx.args, *(["--json"] * as_json)]
        _run_score(ctx, score_args)
        return
    if domain is None:
        raise JupiterError(
            "give --domain NAME, or --model MODEL --qa FILE.jsonl (or use `jupiter score`)"
        )
    _refuse_extra(ctx)
    if as_json:
        with contextlib.redirect_stdout(sys.stderr):
            info = _eval_stage_json(domain, quick)
        print_json(info)
    else:
        run_stage("eval", domain, quick)


def _refuse_extra(ctx: typer.Context) -> None:
    """What click says of an unknown option or a stray argument."""
    if ctx.args:
        extra = ctx.args[0]
        if extra.startswith("-"):
            known = [
                o for p in ctx.command.params if not getattr(p, "hidden", False) for o in p.opts
            ]
            raise click.NoSuchOption(extra, possibilities=known, ctx=ctx)
        raise click.UsageError(f"Got unexpected extra argument ({extra})", ctx=ctx)


def _run_score(ctx: typer.Context, args: list[str]) -> None:
    """`jupiter score ARGS`, parsed and run as the app would run it."""
    root = ctx.find_root()
    group = cast(click.Group, root.command)
    score_cmd = group.get_command(root, "score")
    assert score_cmd is not None
    with score_cmd.make_context("score", args, parent=root) as sub:
        score_cmd.invoke(sub)


@commands.command(name="score")
def score_cmd(
    model: Annotated[
        str, typer.Option(help="The model to score (dir, Hub id, .gguf, ollama:NAME).")
    ],
    qa: Annotated[Path, typer.Option("--qa", help="JSONL of {id, question, answer} (or choices).")],
    out: Annotated[Path | None, typer.Option(help="Write the JSON report here.")] = None,
    mc_choices: Annotated[int, typer.Option(min=2, help="Choices per built MC item.")] = 4,
    distractors: Annotated[str, typer.Option(help="hard | random")] = "hard",
    max_items: Annotated[int | None, typer.Option(min=1)] = None,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 48,
    general: Annotated[
        Path | None, typer.Option(help="Out-of-domain text file or folder (default: bundled).")
    ] = None,
    general_max_bytes: Annotated[int, typer.Option(min=0, help="0: no general_bpb.")] = 40_000,
    chat_template: ChatTemplate = "auto",
    system_prompt: str = "",
    seed: int = 0,
    open_book: OpenBook = False,
    top_k: TopK = 3,
    passages: Annotated[
        Path | None,
        typer.Option(
            help="With --open-book: the model dir whose retrieval index to use "
            "(default: the scored model's own)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Score any model on any QA set: domain QA (token F1, exact match), multiple choice and
    general bits-per-byte, with 95% intervals; a JSON report with --out."""
    if distractors not in ("hard", "random"):
        raise JupiterError(f"--distractors must be hard or random, got {distractors!r}")
    if passages is not None and not open_book:
        raise JupiterError(
            "--passages names the index --open-book reads: add --open-book, or drop --passages"
        )
    from jupiter.eval.report import write_report
    from jupiter.eval.standalone import ScoreOptions, print_report, score_model
    from jupiter.models.reference import user_cache_dir

    opts = ScoreOptions(
        model,
        qa,
        mc_choices,
        cast(Literal["hard", "random"], distractors),
        max_items,
        max_new_tokens,
        seed,
        chat_template,
        system_prompt,
        general,
        general_max_bytes,
        open_book=open_book,
        top_k=top_k,
        passages=passages,
    )
    if out is not None:  # never onto what it reads: the model, the QA set, a workspace
        from jupiter.models.reference import locate_model
        from jupiter.outputs import check_output_file

        given = [locate_model(model, base_dir=None).path, qa, *([general] if general else [])]
        check_output_file(out, given)
    # --out held from before the model loads: a second run to the same file fails at once
    with output_lock(out) if out is not None else contextlib.nullcontext():
        if as_json:
            with contextlib.redirect_stdout(sys.stderr):
                report = score_model(opts, user_cache_dir(), err_console)
                if out is not None:
                    write_report(out, report)
            print_json(report)
            return
        report = score_model(opts, user_cache_dir(), err_console)
        print_report(report, console)
        if out is not None:
            write_report(out, report)
            console.print(f"report: {out}")


def _eval_stage_json(domain: str, quick: bool) -> dict:
    """The eval stage with every message on stderr; its record (figures, comparisons, the
    eval set, lm_eval) for `jupiter eval --json`."""
    from jupiter.improve.cycle import current_cycle, run_stage
    from jupiter.improve.workspace import Workspace

    ws = Workspace(load_domain(domain, quick=quick), quick=quick, console=err_console)
    try:
        cycle = current_cycle(ws) if ws.has_store() else 1
        info = run_stage(ws, cycle, "eval")
        ws.store.mark_stage(cycle, "eval", info)
    finally:
        ws.close()
    return {
        "domain": ws.cfg.name,
        "cycle": cycle,
        "eval_json": str(ws.cycle_dir(cycle) / "eval.json"),
        **info,
    }


def _export_lm_eval(domain: str, quick: bool, out: Path, as_json: bool) -> None:
    from jupiter.improve.lmeval import export_eval_set
    from jupiter.improve.workspace import Workspace

    ws = Workspace(load_domain(domain, quick=quick), quick=quick, console=err_console)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            manifest = export_eval_set(ws, out)
    finally:
        ws.close()
    if as_json:
        print_json(manifest)
        return
    console.print(
        f"{manifest['items']} multiple-choice items of '{manifest['task']}' → "
        f"{manifest['yaml']}; score a model with:",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    console.print(manifest["command"], highlight=False, markup=False, soft_wrap=True)
