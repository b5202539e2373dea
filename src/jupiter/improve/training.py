"""The train stage: the tokenizer (the domain's own BPE, or the base model's), the packed
datasets (accepted examples mixed with raw domain text, a held-out share apart), and one
training run per cycle — or per curriculum level, in order, each from the last one's
weights — in this process or in several through torchrun."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.budget import print_budget
from jupiter.improve.card import write_card
from jupiter.improve.consensus import consensus_train
from jupiter.improve.distill import check_objective, distill_data
from jupiter.improve.grounding import data_summary, grounded_examples
from jupiter.improve.passages import save_passages, train_chunks
from jupiter.improve.replay import replay_texts
from jupiter.improve.trainrun import (
    chunk_titles,
    definition_chunks,
    knowledge_mix,
    local_engine,
    pack,
    plain_chunks,
    read_level_file,
    run_fields,
    run_summary,
    run_training,
    save_untrained,
)
from jupiter.improve.workspace import Workspace
from jupiter.models.folder import is_model_dir
from jupiter.records import MODEL_KINDS, Example
from jupiter.synth.rephrase import REPHRASE


def training_examples(ws: Workspace) -> list[Example]:
    """Every accepted example so far: this cycle's new ones and the ones earlier runs used,
    so a continued student does not forget the earlier data; model-written ones beyond
    promotion.real_data_fraction set aside (improve/grounding.py)."""
    examples = [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]
    return grounded_examples(ws, examples)


def ensure_tokenizer(ws: Workspace) -> Path:
    """Train the domain tokenizer once per workspace, on the training chunks."""
    from jupiter.data.tokenizer import train_tokenizer

    if (ws.tokenizer_dir / "tokenizer.json").is_file():
        return ws.tokenizer_dir
    texts = [c.text for c in train_chunks(ws)]
    tmp = ws.tokenizer_dir.with_name("tokenizer.tmp")
    with ws.console.status(f"training a {ws.cfg.model.vocab_size}-token BPE tokenizer…"):
        train_tokenizer(texts, ws.cfg.model.vocab_size, tmp)
    tmp.replace(ws.tokenizer_dir)
    return ws.tokenizer_dir


def init_model_dir(ws: Workspace, cycle: int) -> Path | None:
    """Cycle > 1 continues from the last student unless train.init is base (or scratch).
    After `jupiter rollback`, the students made before it are set aside: training goes on
    from the generator rolled back to when it is a model, else from the base (or scratch)."""
    if ws.cfg.train.init in ("base", "scratch"):
        return None
    rollbacks = [e["cycle"] for e in ws.store.generator_events() if e["action"] == "rollback"]
    after = max(rollbacks, default=0)  # students of this cycle and before are set aside
    for n in range(cycle - 1, after, -1):
        d = ws.student_dir(n)
        if is_model_dir(d):
            return d
    active = ws.store.active_generator() if rollbacks else None
    if active is not None and active["kind"] in MODEL_KINDS and Path(active["path"]).is_dir():
        return Path(active["path"])
    return None


def base_tokenizer(ws: Workspace) -> tuple[Path, Any]:
    """(tokenizer dir, tokenizer): the base model's for fine-tuning, else the domain's BPE."""
    from jupiter.data.templates import model_type_of
    from jupiter.train.trainer import load_run_tokenizer

    if ws.cfg.model.base:
        base = ws.model(ws.cfg.model.base)
        if not (base / "config.json").is_file():
            raise JupiterError(
                f"model.base {base} is not a Hugging Face model dir (no config.json): point it "
                "at a model folder, a Hub id, a .gguf file or ollama:NAME"
            )
        return with_chat_template(ws, base, load_run_tokenizer(base), model_type_of(base))
    tok_dir = ensure_tokenizer(ws)
    return with_chat_template(ws, tok_dir, load_run_tokenizer(tok_dir), None)


def with_chat_template(
    ws: Workspace, tok_dir: Path, tokenizer: Any, model_type: str | None
) -> tuple[Path, Any]:
    """The tokenizer with model.chat_template applied; when that changed its template, it is
    saved into the workspace and that dir is used, so every checkpoint carries the template."""
    from jupiter.data.templates import set_chat_template

    before = tokenizer.chat_template
    set_chat_template(tokenizer, ws.cfg.chat_template(), model_type)
    if tokenizer.chat_template == before:
        return tok_dir, tokenizer
    out = ws.root / "tokenizer-chat"
    tokenizer.save_pretrained(out)
    return out, tokenizer


def preflight(ws: Workspace, tokenizer: Any, examples: list[Example]) -> None:
    """Show one rendered, masked chat and refuse a template that would not learn to stop."""
    from jupiter.data.chat import preflight as check

    chat = next((e for e in examples if e.kind == "qa" and e.messages), None)
    if chat is None:
        return
    messages = list(chat.messages)
    if ws.cfg.system_prompt and messages[0]["role"] != "system":
        messages.insert(0, {"role": "system", "content": ws.cfg.system_prompt})
    ws.console.print("train: one example as the model sees it (⟦trained⟧):", highlight=False)
    ws.console.print(check(tokenizer, messages), markup=False, highlight=False)


def train_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    from jupiter.models.presets import ModelConfig
    from jupiter.train.distill import teacher_setting
    from jupiter.train.loop import TrainRun

    cfg = ws.cfg
    t0 = time.perf_counter()
    examples = training_examples(ws) if not cfg.levels else []
    if not cfg.levels and not examples:
        raise JupiterError(
            f"no accepted examples to train on in {ws.store_path}: run `jupiter generate` and "
            f"`jupiter filter --domain {cfg.name}` first (or loosen the filters)"
        )
    tok_dir, tokenizer = base_tokenizer(ws)
    init_dir = init_model_dir(ws, cycle)
    if init_dir is None and cfg.model.base:
        init_dir = ws.model(cfg.model.base)
    check_objective(ws, init_dir, local_engine())
    model_config = None
    if init_dir is None:
        model_config = ModelConfig.from_preset(
            cfg.model.preset,
            len(tokenizer),
            cfg.model.context_length,
            tokenizer.pad_token_id,
            tokenizer.bos_token_id,
            tokenizer.eos_token_id,
        )
        save_untrained(ws, model_config, tok_dir)
    if cfg.train.consensus is not None:
        return consensus_stage(ws, cycle, tokenizer, tok_dir, init_dir, model_config, examples, t0)
    levels: list[Any] = list(cfg.levels) or [None]
    result, infos = None, []
    for level in levels:
        lv_examples = examples
        train_cfg = cfg.train  # the YAML's, as loaded: a level's figures go into the run
        if ws.fallbacks.get("train.replay.loss") == "ce":  # MLX, cluster: no teacher forward
            replay_ce = train_cfg.replay.model_copy(update={"loss": "ce"})
            train_cfg = train_cfg.model_copy(update={"replay": replay_ce})
        fields = run_fields(ws)
        out_dir = ws.train_dir(cycle)
        run_id = f"cycle-{cycle:03d}"
        if level is not None:
            lv_examples = [
                e
                for p in level.datasets
                for e in (
                    training_examples(ws)
                    if p == "queue"
                    else read_level_file(cfg.resolve(p), cycle)
                )
            ]
            fields["overrides"] = level_overrides(fields["overrides"], level)
            out_dir = ws.train_dir(cycle) / "levels" / level.name
            run_id = f"{run_id}-{level.name}"
        has_text = any(e.kind == "text" for e in lv_examples)
        # without continuation examples, raw text comes straight from the training chunks
        texts: list[str] = (
            []
            if (has_text or level is not None or cfg.model.base)
            else [c.text for c in train_chunks(ws)]
        )
        preflight(ws, tokenizer, lv_examples)
        replay = replay_texts(ws, ws.model(cfg.model.base)) if cfg.model.base else []
        with ws.console.status(f"encoding {len(lv_examples)} examples…"):
            data = pack(ws, tokenizer, lv_examples, texts, train_cfg, replay)
        distill = None
        if teacher_setting(train_cfg):  # the examples as pack expands them (with their chunks)
            expanded = knowledge_mix(
                lv_examples,
                [],
                train_cfg,
                chunk_titles(ws, train_cfg),
                definition_chunks(ws, train_cfg),
                plain=plain_chunks(ws, train_cfg),
            )[0]
            distill = distill_data(ws, tokenizer, expanded, data.train, train_cfg, replay)
        run = TrainRun(
            dataset=data.train,
            config=train_cfg,
            out_dir=out_dir,
            tokenizer_dir=tok_dir,
            model_config=model_config if result is None else None,
            model_dir=init_dir if result is None else result.model_dir,
            heldout=data.heldout,
            run_id=run_id,
            progress=ws.console.is_terminal,
            distill=distill,
            **fields,
        )
        where = f"continued from {run.model_dir}" if run.model_dir else "from scratch"
        name = cfg.model.base or cfg.model.preset
        ws.console.print(
            f"train{f' [{level.name}]' if level else ''}: {data.n_examples} examples → "
            f"{data.train.tokens:,} tokens in {data.train.num_rows} rows of "
            f"{cfg.model.context_length}; {name} ({train_cfg.method}) {where}"
        )
        if cfg.finetune_defaulted and level is levels[0]:
            ws.console.print(describe_finetune_defaults(train_cfg, cfg.finetune_defaulted))
        teacher = sum(e.template == REPHRASE for e in lv_examples)
        if data.knowledge is not None or train_cfg.order != "mixed" or teacher:
            ws.console.print(
                describe_mix(data.knowledge or {}, data.budget, train_cfg.order, teacher)
            )
        result = run_training(ws, cycle, run)
        infos.append(run_summary(run_id, result, data))
        ws.console.print(
            f"train: {result.steps} steps, loss {infos[-1]['first_loss']:.3f} → "
            f"{infos[-1]['final_loss']:.3f}, {result.tokens_per_s:,.0f} tokens/s → "
            f"{result.model_dir}"
        )
        steps_key = f"the max_steps of level {level.name}" if level else "train.max_steps"
        print_budget(ws.console, infos[-1]["budget"], train_cfg, steps_key)
    assert result is not None
    if not cfg.levels:
        ws.store.mark_used([e.id for e in examples if e.status == "accepted"], infos[-1]["run"])
    _link_final(ws, cycle, result.model_dir)
    save_passages(ws, ws.student_dir(cycle))
    info = {
        **infos[-1],
        "init": str(init_dir) if init_dir else "scratch",
        "seconds": round(time.perf_counter() - t0, 2),
    }
    # what the student learnt from, for the lineage (`jupiter generators`)
    info["data"] = data_summary(ws, cycle, examples or lv_examples)
    if cfg.levels:
        info["levels"] = infos
    if ws.fallbacks:  # what this machine ran instead of the YAML's settings
        info["fallbacks"] = dict(ws.fallbacks)
    write_card(ws, cycle, info)
    return info


def level_overrides(over: Any, level: Any) -> Any:
    """A curriculum level's length and lr as the run's own figures (train/plan.py's
    Overrides), with the reason the plan prints; train: stays as loaded."""
    from dataclasses import replace

    figures = [f"epochs {level.epochs}"] + [
        f"{k} {v}" for k, v in (("max_steps", level.max_steps), ("lr", level.lr)) if v is not None
    ]
    why = f"curriculum level {level.name}: {', '.join(figures)} (the level's, over train:)"
    return replace(
        over,
        epochs=level.epochs,
        max_steps=level.max_steps,
        lr=level.lr,
        reasons=(*over.reasons, why),
    )


def consensus_stage(
    ws: Workspace,
    cycle: int,
    tokenizer: Any,
    tok_dir: Path,
    init_dir: Path | None,
    model_config: Any,
    examples: list[Example],
    t0: float,
) -> dict[str, Any]:
    """train.consensus: members, vote, merge (improve/consensus.py); the chosen model
    becomes the cycle's student."""
    cfg = ws.cfg
    has_text = any(e.kind == "text" for e in examples)
    texts = [] if (has_text or cfg.model.base) else [c.text for c in train_chunks(ws)]
    preflight(ws, tokenizer, examples)
    chosen, record = consensus_train(
        ws, cycle, tokenizer, tok_dir, init_dir, model_config, examples, texts
    )
    ws.store.mark_used([e.id for e in examples if e.status == "accepted"], f"cycle-{cycle:03d}")
    student = ws.student_dir(cycle)
    if chosen.resolve() != student.resolve():
        from jupiter.models.folder import replace_dir

        tmp = student.with_name(f".tmp-{student.name}")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(chosen, tmp)
        replace_dir(tmp, student)
    save_passages(ws, student)
    members = record["members"]
    data = data_summary(ws, cycle, examples)
    data["consensus"] = {
        k: record[k]
        for k in ("members_n", "merge", "merged", "reason", "best_member", "best_bpb", "merged_bpb")
    }
    data["consensus"]["outliers"] = record["vote"]["outliers"]
    return {
        "run": f"cycle-{cycle:03d}",
        "steps": sum(m["steps"] for m in members),
        "examples": len(examples),
        "model_dir": str(student),
        "init": record["init"],
        "consensus": record,
        "data": data,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def describe_finetune_defaults(t: Any, keys: list[str]) -> str:
    """One line: the fine-tuning defaults the YAML's train: left in force (config/domain.py
    FINETUNE_TRAIN), each with its value, and how to change them."""

    def said(key: str) -> str:
        if key == "knowledge":
            kinds = (f"{k} {v}" for k, v in t.knowledge.model_dump().items() if v)
            return "knowledge recipe " + ", ".join(kinds)
        if key == "replay":
            return f"replay {t.replay.fraction:g} of the tokens ({t.replay.loss})"
        if key == "lora":
            return f"LoRA r {t.lora.r}, alpha {t.lora.alpha}, dropout {t.lora.dropout:g}"
        value = getattr(t, key)
        return f"{key} {value:g}" if isinstance(value, float) else f"{key} {value}"

    return (
        f"train: fine-tuning defaults for a pretrained base: {'; '.join(map(said, keys))} "
        "(write them under train: to change them)"
    )


def describe_mix(mix: dict[str, int], budget: Any, order: str = "mixed", teacher: int = 0) -> str:
    """One line: the knowledge recipe's additions, the teacher's phrasings among the queued
    Q&A (generator.rephrase), the token mix of one epoch and the order it is read in
    (train.order)."""
    added = ", ".join(f"{n:,} {k}" for k, n in mix.items() if k not in ("facts", "replay_tokens"))
    if teacher:
        added = ", ".join(filter(None, (added, f"{teacher:,} teacher phrasings (queued)")))
    replay = f" + {mix['replay_tokens']:,} replay tokens" if "replay_tokens" in mix else ""
    how = {
        "mixed": "Q&A interleaved with the raw text",
        "documents_first": "raw text first, then Q&A",
    }[order]
    return (
        f"data mix: {mix.get('facts', 0):,} facts asked again ({added or 'nothing added'}); "
        f"one epoch = {budget.chat_tokens:,} Q&A tokens + {budget.raw_tokens:,} raw-text "
        f"tokens{replay}, {how}"
    )


def _link_final(ws: Workspace, cycle: int, model_dir: Path) -> None:
    """Curriculum runs end in their last level's dir; the cycle's student dir points there."""
    student = ws.student_dir(cycle)
    if model_dir.resolve() == student.resolve() or student.exists():
        return
    import shutil

    shutil.copytree(model_dir, student)
