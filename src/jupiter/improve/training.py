"""The train stage: the tokenizer (the domain's own BPE, or the base model's), the packed
datasets (accepted examples mixed with raw domain text, a held-out share apart), and one
training run per cycle — or per curriculum level, in order, each from the last one's
weights — in this process or in several through torchrun."""

from __future__ import annotations

import itertools
import json
import shutil
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.budget import budget_info, print_budget
from jupiter.improve.card import write_card
from jupiter.improve.distill import check_objective, distill_data
from jupiter.improve.grounding import data_summary, grounded_examples
from jupiter.improve.replay import replay_texts
from jupiter.improve.stages import ensure_tokenizer, init_model_dir, train_chunks
from jupiter.improve.workspace import Workspace
from jupiter.records import Example


def training_examples(ws: Workspace) -> list[Example]:
    """Every accepted example so far: this cycle's new ones and the ones earlier runs used,
    so a continued student does not forget the earlier data; model-written ones beyond
    promotion.real_data_fraction set aside (improve/grounding.py)."""
    examples = [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]
    return grounded_examples(ws, examples)


def save_untrained(ws: Workspace, model_config: Any, tok_dir: Path) -> Path:
    """The from-scratch model at step 0 (same seed as training), kept for comparison."""
    from jupiter.models.folder import save_model_dir
    from jupiter.models.presets import build_model
    from jupiter.train.trainer import load_run_tokenizer

    out = ws.root / "untrained"
    if not (out / "config.json").is_file():
        model = build_model(model_config, ws.cfg.train.seed)
        save_model_dir(out, model, load_run_tokenizer(tok_dir))
    return out


def is_heldout(key: str, fraction: float) -> bool:
    """A stable share of examples kept out of training (by a hash of their id)."""
    return fraction > 0 and zlib.crc32(key.encode()) % 10_000 < fraction * 10_000


@dataclass
class Datasets:
    train: Any  # PackedDataset
    heldout: Any  # PackedDataset | None
    n_examples: int
    budget: Any  # TokenBudget of the train split
    knowledge: dict[str, int] | None = None  # what train.knowledge added (synth/knowledge.py)


def knowledge_mix(examples: list[Example], texts: list[str], train_cfg: Any,
                  ) -> tuple[list[Example], list[str], dict[str, int] | None]:  # fmt: skip
    """The examples and texts with train.knowledge's questions and permuted copies added
    (the train split only: the held-out loss stays on the queued examples)."""
    from jupiter.synth.knowledge import expand

    k = train_cfg.knowledge
    if not k.enabled:
        return examples, texts, None
    more, more_texts, mix = expand(
        examples, texts, phrasings=k.phrasings, reverse=k.reverse, usage=k.usage,
        permuted_copies=k.permuted_copies, seed=train_cfg.seed,
    )  # fmt: skip
    return more, more_texts, mix.as_dict()


def pack(
    ws: Workspace, tokenizer: Any, examples: list[Example], texts: list[str],
    train_cfg: Any = None, replay: list[str] | None = None,
) -> Datasets:  # fmt: skip
    """Encode and pack the examples (and raw texts), holding out train.heldout_fraction;
    mixed and shuffled with `train_cfg`'s seed and mix (default: train:'s); the knowledge
    recipe's questions and `replay` texts (train.replay.fraction of the tokens) go to the
    train split only."""
    import random

    from jupiter.data.chat import pad_id_for
    from jupiter.data.dataset import PackedDataset, mix_examples
    from jupiter.improve.replay import replay_sequences

    cfg = ws.cfg
    t = train_cfg or cfg.train
    frac = cfg.train.heldout_fraction
    held = [e for e in examples if is_heldout(e.id, frac)]
    kept = [e for e in examples if not is_heldout(e.id, frac)] or examples
    held_texts = [t for t in texts if is_heldout(t[:200], frac)]
    kept_texts = [t for t in texts if not is_heldout(t[:200], frac)]
    pad = pad_id_for(tokenizer)

    def packed(exs: list[Example], txts: list[str], more: list[str]) -> tuple[Any, Any, int]:
        seqs, budget = mix_examples(tokenizer, exs, txts, t.raw_text_fraction, t.seed,
                                    cfg.system_prompt, t.min_corpus_share)  # fmt: skip
        extra = replay_sequences(tokenizer, more, t.replay.fraction,
                                 sum(len(ids) for ids, _ in seqs), t.seed)  # fmt: skip
        if extra:
            seqs = seqs + extra
            random.Random(t.seed).shuffle(seqs)
        replayed = sum(len(ids) for ids, _ in extra)
        return PackedDataset(seqs, cfg.model.context_length, pad, t.seed), budget, replayed

    kept, kept_texts, mix = knowledge_mix(kept, kept_texts, t)
    train, budget, replayed = packed(kept, kept_texts, list(replay or []))
    heldout = packed(held, held_texts, [])[0] if (held or held_texts) else None
    if replay:
        mix = (mix or {}) | {"replay_tokens": replayed}
    return Datasets(train, heldout, len(kept), budget, mix)


def read_level_file(path: Path, cycle: int, limit: int | None = None) -> list[Example]:
    """A curriculum dataset: JSONL in any format `jupiter data export` writes (messages,
    alpaca, sharegpt, completions, Mistral text, or plain {"text": ...} documents); with
    `limit`, its first `limit` records only (the preflight's look)."""
    from jupiter.data.formats import FormatError, to_messages

    if not path.is_file():
        raise JupiterError(f"curriculum dataset not found: {path} (fix levels[].datasets)")
    out: list[Example] = []
    with path.open("rb") as fh:
        raw_lines = list(itertools.islice(fh, limit)) if limit else fh.readlines()
    for n, raw in enumerate(raw_lines, 1):
        try:
            line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError:
            raise JupiterError(f"{path}:{n}: not UTF-8 text: save the file as UTF-8") from None
        if not line.strip():
            continue
        try:
            parsed = to_messages(json.loads(line))
        except json.JSONDecodeError:
            raise JupiterError(f"{path}:{n}: not a JSON line") from None
        except FormatError as err:
            raise JupiterError(f"{path}:{n}: {err}") from None
        source = f"file:{path.name}"
        if isinstance(parsed, str):
            out.append(Example("text", source, "", "dataset", text=parsed, cycle=cycle))
        else:
            out.append(Example("qa", source, "", "dataset", messages=parsed, cycle=cycle))
    if not out:
        raise JupiterError(f"curriculum dataset {path} holds no examples")
    return out


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


def local_node(cluster_path: str | None = None) -> tuple[Any, str]:
    """This machine's node in cluster.yaml (host localhost or this host's name) and the
    engine it trains with; (None, "torch") when the file does not list it."""
    import socket

    from jupiter.config import load_cluster

    try:
        cluster = load_cluster(cluster_path)
    except JupiterError:
        return None, "torch"
    here = {"localhost", "127.0.0.1", "::1", socket.gethostname(), socket.getfqdn()}
    node = next((n for n in cluster.nodes if n.host in here), None)
    return node, cluster.engine_of(node) if node is not None else "torch"


def node_memory_gb(cluster_path: str | None = None) -> float | None:
    """`memory_gb` of this machine's node, for the automatic micro-batch."""
    node, _ = local_node(cluster_path)
    return node.memory_gb if node is not None else None


def run_training(ws: Workspace, cycle: int, run: Any) -> Any:
    from jupiter.train.launch import launch_train
    from jupiter.train.trainer import train

    def log(m: dict[str, Any]) -> None:
        ws.store.log_metrics(run.run_id, int(m["step"]),
                             {k: v for k, v in m.items() if k != "step"})  # fmt: skip

    if ws.cluster is not None:
        return train_on_cluster(ws, run)
    if local_node()[1] == "mlx":  # a Mac (or backend: mlx): the MLX loop, same run
        return train_with_mlx(ws, run, log)
    if ws.launch is not None and ws.launch.distributed:
        return launch_train(run, ws.launch)
    return train(run, on_step=log)


def train_with_mlx(ws: Workspace, run: Any, log: Any) -> Any:
    from jupiter.train import mlx_loop

    launch = ws.launch
    if launch is not None and launch.nnodes > 1:
        raise JupiterError(
            "several Macs train as one island through cluster.yaml: list them there and run "
            "`jupiter train --cluster` (mlx.launch starts them from a written hostfile)"
        )
    if launch is not None and launch.nproc > 1:
        return mlx_loop.launch_mlx(run, launch.nproc)
    return mlx_loop.train(run, on_step=log)


def train_on_cluster(ws: Workspace, run: Any) -> Any:
    """Every island of cluster.yaml on the run; the sync store is the run's own folder
    unless cluster.yaml names a shared one."""
    from jupiter.cluster.launch import ClusterRun, read_report, run_cluster
    from jupiter.cluster.report import summary

    cluster = ws.cluster
    store = cluster.sync.store or str(run.out_dir / "sync")
    remote = [n.name for n in cluster.nodes if not n.is_local and n.role != "generator"]
    if remote and not cluster.sync.store:
        raise JupiterError(
            f"nodes {', '.join(remote)} are other machines, but the sync store defaults to this "
            "machine's run folder: set sync.store in cluster.yaml to a folder every node "
            "mounts (NFS) or an fsspec URL (s3://…, sftp://…)"
        )
    result = run_cluster(ClusterRun(run, cluster, store, run.out_dir))
    for line in summary(read_report(run.out_dir)):
        ws.console.print(line, highlight=False)
    return result


def train_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    from jupiter.models.presets import ModelConfig
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
    check_objective(ws, init_dir, local_node()[1])
    model_config = None
    if init_dir is None:
        model_config = ModelConfig.from_preset(
            cfg.model.preset, len(tokenizer), cfg.model.context_length,
            tokenizer.pad_token_id, tokenizer.bos_token_id, tokenizer.eos_token_id,
        )  # fmt: skip
        save_untrained(ws, model_config, tok_dir)
    if cfg.train.consensus is not None:
        return consensus_stage(ws, cycle, tokenizer, tok_dir, init_dir, model_config,
                               examples, t0)  # fmt: skip
    levels: list[Any] = list(cfg.levels) or [None]
    result, infos = None, []
    for level in levels:
        lv_examples = examples
        train_cfg = cfg.train
        out_dir = ws.train_dir(cycle)
        run_id = f"cycle-{cycle:03d}"
        if level is not None:
            lv_examples = [
                e for p in level.datasets
                for e in (training_examples(ws) if p == "queue" else
                          read_level_file(cfg.resolve(p), cycle))
            ]  # fmt: skip
            update: dict[str, Any] = {"epochs": level.epochs, "max_steps": level.max_steps}
            if level.lr is not None:
                update["lr"] = level.lr
            train_cfg = cfg.train.model_copy(update=update)
            out_dir = ws.train_dir(cycle) / "levels" / level.name
            run_id = f"{run_id}-{level.name}"
        has_text = any(e.kind == "text" for e in lv_examples)
        # without continuation examples, raw text comes straight from the training chunks
        texts: list[str] = [] if (has_text or level is not None or cfg.model.base) else [
            c.text for c in train_chunks(ws)
        ]  # fmt: skip
        preflight(ws, tokenizer, lv_examples)
        replay = replay_texts(ws, ws.model(cfg.model.base)) if cfg.model.base else []
        with ws.console.status(f"encoding {len(lv_examples)} examples…"):
            data = pack(ws, tokenizer, lv_examples, texts, train_cfg, replay)
        distill = None
        if train_cfg.objective != "sft":  # the examples as pack expands them (with their chunks)
            expanded = knowledge_mix(lv_examples, [], train_cfg)[0]
            distill = distill_data(ws, tokenizer, expanded, data.train, train_cfg)
        run = TrainRun(
            dataset=data.train, config=train_cfg, out_dir=out_dir, tokenizer_dir=tok_dir,
            model_config=model_config if result is None else None,
            model_dir=init_dir if result is None else result.model_dir,
            heldout=data.heldout, run_id=run_id, progress=ws.console.is_terminal,
            attention=cfg.model.attention, memory_gb=node_memory_gb(), distill=distill,
        )  # fmt: skip
        where = f"continued from {run.model_dir}" if run.model_dir else "from scratch"
        name = cfg.model.base or cfg.model.preset
        ws.console.print(
            f"train{f' [{level.name}]' if level else ''}: {data.n_examples} examples → "
            f"{data.train.tokens:,} tokens in {data.train.num_rows} rows of "
            f"{cfg.model.context_length}; {name} ({train_cfg.method}) {where}"
        )
        if data.knowledge is not None:
            ws.console.print(describe_mix(data.knowledge, data.budget))
        result = run_training(ws, cycle, run)
        infos.append(_summary(run_id, result, data))
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
    info = {**infos[-1], "init": str(init_dir) if init_dir else "scratch",
            "seconds": round(time.perf_counter() - t0, 2)}  # fmt: skip
    # what the student learnt from, for the lineage (`jupiter generators`)
    info["data"] = data_summary(ws, cycle, examples or lv_examples)
    if cfg.levels:
        info["levels"] = infos
    write_card(ws, cycle, info)
    return info


def consensus_stage(
    ws: Workspace, cycle: int, tokenizer: Any, tok_dir: Path, init_dir: Path | None,
    model_config: Any, examples: list[Example], t0: float,
) -> dict[str, Any]:  # fmt: skip
    """train.consensus: members, vote, merge (improve/consensus.py); the chosen model
    becomes the cycle's student."""
    from jupiter.improve.consensus import consensus_train

    cfg = ws.cfg
    has_text = any(e.kind == "text" for e in examples)
    texts = [] if (has_text or cfg.model.base) else [c.text for c in train_chunks(ws)]
    preflight(ws, tokenizer, examples)
    chosen, record = consensus_train(ws, cycle, tokenizer, tok_dir, init_dir, model_config,
                                     examples, texts)  # fmt: skip
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
    data["consensus"] = {k: record[k] for k in ("members_n", "merge", "merged", "reason",
                                                 "best_member", "best_bpb", "merged_bpb")}  # fmt: skip
    data["consensus"]["outliers"] = record["vote"]["outliers"]
    return {
        "run": f"cycle-{cycle:03d}", "steps": sum(m["steps"] for m in members),
        "examples": len(examples), "model_dir": str(student),
        "init": record["init"], "consensus": record, "data": data,
        "seconds": round(time.perf_counter() - t0, 2),
    }  # fmt: skip


def _summary(run_id: str, result: Any, data: Datasets) -> dict[str, Any]:
    losses = result.losses
    return {
        "run": run_id, "steps": result.steps, "examples": data.n_examples,
        "tokens": data.train.tokens, "first_loss": losses[0] if losses else float("nan"),
        "final_loss": losses[-1] if losses else float("nan"),
        "heldout_loss": result.heldout_loss,
        "tokens_per_s": round(result.tokens_per_s, 1), "model_dir": str(result.model_dir),
        "budget": budget_info(data.budget, result.epochs, result.max_steps),
        "knowledge": data.knowledge, "distill": result.distill,
    }  # fmt: skip


def describe_mix(mix: dict[str, int], budget: Any) -> str:
    """One line: the knowledge recipe's additions and the token mix of one epoch."""
    added = ", ".join(f"{n:,} {k}" for k, n in mix.items() if k not in ("facts", "replay_tokens"))
    replay = f" + {mix['replay_tokens']:,} replay tokens" if "replay_tokens" in mix else ""
    return (
        f"data mix: {mix.get('facts', 0):,} facts asked again ({added or 'nothing added'}); "
        f"one epoch = {budget.chat_tokens:,} Q&A tokens + {budget.raw_tokens:,} raw-text "
        f"tokens{replay}"
    )


def save_passages(ws: Workspace, model_dir: Path) -> None:
    """The domain's retrieval index (`retrieval` over the training chunks) beside the
    student, so `chat`, `serve` and eval can answer open-book from the model dir alone. A
    domain with no document chunks (datasets or logs only) has nothing to retrieve: no
    index is saved."""
    from jupiter.improve.stages import passage_index

    chunks = list(ws.store.iter_chunks(split="train"))
    if chunks:
        passage_index(ws, chunks).save(model_dir)


def _link_final(ws: Workspace, cycle: int, model_dir: Path) -> None:
    """Curriculum runs end in their last level's dir; the cycle's student dir points there."""
    student = ws.student_dir(cycle)
    if model_dir.resolve() == student.resolve() or student.exists():
        return
    import shutil

    shutil.copytree(model_dir, student)
