"""The train stage: the domain tokenizer, the packed dataset of accepted examples mixed with
raw domain text, and one training run per cycle (resumed if it was interrupted)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.stages import ensure_tokenizer, init_model_dir, train_chunks
from jupiter.improve.workspace import Workspace
from jupiter.records import Example


def training_examples(ws: Workspace) -> list[Example]:
    """Every accepted example so far: this cycle's new ones and the ones earlier runs used,
    so a continued student does not forget the earlier data."""
    return [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]


def save_untrained(ws: Workspace, model_config: Any) -> Path:
    """The from-scratch model at step 0 (same seed as training), kept for comparison."""
    from jupiter.data.tokenizer import load_tokenizer
    from jupiter.models.presets import build_model
    from jupiter.train.checkpoint import save_model_dir

    out = ws.root / "untrained"
    if not (out / "config.json").is_file():
        model = build_model(model_config, ws.cfg.train.seed)
        save_model_dir(out, model, load_tokenizer(ws.tokenizer_dir))
    return out


def train_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    from jupiter.data.dataset import PackedDataset, encode_examples
    from jupiter.data.tokenizer import load_tokenizer
    from jupiter.models.presets import ModelConfig
    from jupiter.train.loop import TrainRun, train

    cfg = ws.cfg
    examples = training_examples(ws)
    if not examples:
        raise JupiterError(
            f"no accepted examples to train on in {ws.store_path}: run `jupiter generate` and "
            f"`jupiter filter --domain {cfg.name}` first (or loosen the filters)"
        )
    tok_dir = ensure_tokenizer(ws)
    tokenizer = load_tokenizer(tok_dir)
    has_text = any(e.kind == "text" for e in examples)
    # without continuation examples, raw text comes straight from the training chunks
    texts = [] if has_text else [c.text for c in train_chunks(ws)]
    t0 = time.perf_counter()
    with ws.console.status(f"encoding {len(examples)} examples…"):
        seqs = encode_examples(
            tokenizer, examples, texts, cfg.train.raw_text_fraction, cfg.train.seed,
            cfg.system_prompt,
        )  # fmt: skip
        dataset = PackedDataset(seqs, cfg.model.context_length, tokenizer.pad_token_id,
                                cfg.train.seed)  # fmt: skip
    init_dir = init_model_dir(ws, cycle)
    model_config = None
    if init_dir is None:
        model_config = ModelConfig.from_preset(
            cfg.model.preset, len(tokenizer), cfg.model.context_length,
            tokenizer.pad_token_id, tokenizer.bos_token_id, tokenizer.eos_token_id,
        )  # fmt: skip
        save_untrained(ws, model_config)
    run_id = f"cycle-{cycle:03d}"
    run = TrainRun(
        dataset=dataset, config=cfg.train, out_dir=ws.train_dir(cycle), tokenizer_dir=tok_dir,
        model_config=model_config, model_dir=init_dir, run_id=run_id,
        progress=ws.console.is_terminal,
    )  # fmt: skip
    ws.console.print(
        f"train: {len(examples)} examples → {dataset.tokens:,} tokens in {dataset.num_rows} rows"
        f" of {cfg.model.context_length}; {cfg.model.preset} model "
        + (f"continued from {init_dir}" if init_dir else "from scratch")
    )

    def log(m: dict[str, Any]) -> None:
        ws.store.log_metrics(run_id, int(m["step"]),
                             {k: v for k, v in m.items() if k != "step"})  # fmt: skip

    result = train(run, on_step=log)
    ws.store.mark_used([e.id for e in examples if e.status == "accepted"], run_id)
    losses = result.losses
    info = {
        "run": run_id, "steps": result.steps, "examples": len(examples),
        "tokens": dataset.tokens, "first_loss": losses[0] if losses else None,
        "final_loss": losses[-1] if losses else None,
        "tokens_per_s": round(result.tokens_per_s, 1), "model_dir": str(result.model_dir),
        "init": str(init_dir) if init_dir else "scratch",
        "seconds": round(time.perf_counter() - t0, 2),
    }  # fmt: skip
    ws.console.print(
        f"train: {result.steps} steps, loss {info['first_loss']:.3f} → {info['final_loss']:.3f}, "
        f"{result.tokens_per_s:,.0f} tokens/s → {result.model_dir}"
    )
    return info
