"""`jupiter merge`: models or LoRA adapters of one base merged into one, from a recipe
YAML or flags (merge/recipe.py turns the flags into the recipe)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jupiter.cli_context import console, err_console, workspace_for
from jupiter.cli_types import FINITE
from jupiter.errors import JupiterError

commands = typer.Typer()  # merged into the app by jupiter/cli.py


@commands.command(name="merge")
def merge_cmd(
    recipe: Annotated[Path | None, typer.Option("--recipe", help="Merge recipe YAML.")] = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="linear | weighted | greedy_soup | convex | task_arithmetic | ties "
            "| dare_linear | dare_ties | slerp | median | trimmed_mean | krum"
        ),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", help="Input model or adapter, DIR[:WEIGHT]; repeat."),
    ] = None,
    base: Annotated[str | None, typer.Option(help="Base model (task vectors; adapters').")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Output dir (written whole or not at all).")
    ] = None,
    density: Annotated[
        float | None, typer.Option(click_type=FINITE, help="TIES/DARE: share of entries kept.")
    ] = None,
    t: Annotated[
        float | None, typer.Option("--t", click_type=FINITE, help="SLERP: 0 first model, 1 second.")
    ] = None,
    lam: Annotated[
        float | None,
        typer.Option("--lambda", click_type=FINITE, help="Scale of the merged task vector."),
    ] = None,
    normalize: Annotated[bool | None, typer.Option("--normalize/--no-normalize")] = None,
    seed: Annotated[int | None, typer.Option(help="DARE's masks.")] = None,
    trim_fraction: Annotated[
        float | None, typer.Option(click_type=FINITE, help="trimmed_mean: cut per end.")
    ] = None,
    byzantine: Annotated[int | None, typer.Option(help="krum: bad models tolerated.")] = None,
    lora: Annotated[str | None, typer.Option(help="Adapters: delta (full model) | concat.")] = None,
    dtype: Annotated[str | None, typer.Option(help="auto | float32 | bfloat16 | float16")] = None,
    domain: Annotated[
        str | None, typer.Option("--domain", "-d", help="Validate on this domain's eval set.")
    ] = None,
    qa: Annotated[Path | None, typer.Option("--qa", help="Validation QA/MC JSONL.")] = None,
    heldout: Annotated[
        Path | None, typer.Option(help="Validation held-out text (file or dir).")
    ] = None,
    max_items: Annotated[int | None, typer.Option(min=1, help="Validation MC items.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
) -> None:
    """Merge models or LoRA adapters of one base into one (soups, task arithmetic, TIES,
    DARE, SLERP, robust means), from a recipe YAML or flags; writes DIR/merge.json."""
    from jupiter.merge.engine import merge_models
    from jupiter.merge.recipe import MergeFlags, recipe_from_flags
    from jupiter.models.reference import user_cache_dir

    flags = MergeFlags(
        method,
        model or [],
        base,
        out,
        lora,
        dtype,
        params={
            "density": density,
            "t": t,
            "lambda": lam,
            "normalize": normalize,
            "seed": seed,
            "trim_fraction": trim_fraction,
            "byzantine": byzantine,
        },
        validation={"domain": domain, "qa": qa, "heldout": heldout, "max_items": max_items},
    )
    spec, base_dir = recipe_from_flags(recipe, flags)
    info = merge_models(
        spec,
        base_dir=base_dir,
        cache_dir=user_cache_dir(),
        data=_merge_validation(spec.validation, base_dir),
        force=force,
        console=err_console,
    )
    weights = ", ".join(
        f"{Path(i['ref']).name} {w:.3g}"
        for i, w in zip(info["inputs"], info["weights"], strict=True)
    )
    console.print(
        f"{spec.method}: {weights} -> {info['out']} ({info['output']['kind']}, "
        f"{info['seconds']:.1f} s, peak RSS {info['peak_rss_mb']:.0f} MB)",
        highlight=False,
    )
    val_out = (info.get("validation") or {}).get("output")
    if val_out:
        figs = ", ".join(f"{k} {val_out[k]:.4f}" for k in ("bpb", "mc_accuracy") if k in val_out)
        console.print(f"validation of the merge: {figs}", highlight=False)


def _merge_validation(spec, base_dir: Path | None):  # noqa: ANN001, ANN202 - lazy types
    """The recipe's validation data: a domain's eval set and held-out chunks, or files
    (relative to the recipe's folder)."""
    from jupiter.merge.validation import ValidationData, file_validation

    if spec is None:
        return None
    if spec.domain is None:
        qa, held = ((base_dir or Path.cwd()) / p if p else None for p in (spec.qa, spec.heldout))
        return file_validation(
            qa, held, spec.max_items, spec.mc_choices, spec.max_bytes, spec.context
        )
    from jupiter.improve.evalset import eval_items, heldout_texts

    ws = workspace_for(spec.domain, False)
    if not ws.has_store():
        raise JupiterError(
            f"no workspace yet at {ws.root} to validate on: run `jupiter start "
            f"--domain {spec.domain}`, or give --qa/--heldout files"
        )
    try:
        _, mc, about = eval_items(ws)
        texts = heldout_texts(ws)
    finally:
        ws.close()
    max_bytes = min(spec.max_bytes, ws.cfg.eval.heldout_max_bytes)
    mc = mc[: spec.max_items]
    about = {"domain": spec.domain, "eval_set": about.get("path"), "n_mc": len(mc)}
    return ValidationData(texts, mc, ws.cfg.model.context_length, max_bytes, about)
