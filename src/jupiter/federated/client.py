"""A client's round, in the flwr-clientapp process its SuperNode starts for each train
message: the client's own workspace data (its queue, packed as the train stage packs it),
the server's plan and global weights, E local steps of Jupiter's training loop
(train/loop.py: start, run_steps), and back go the trainable weights with the number of
examples and the mean loss. Nothing else leaves the machine."""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any

import torch
from flwr.app import ArrayRecord, ConfigRecord, Context, Message, MetricRecord, RecordDict
from rich.console import Console

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.federated.weights import Tensors, fingerprint, load_into, trainable

# Robustness tests only: "scale:F" multiplies what this client sends by F, "nan" sends NaN.
# Jupiter never sets it; a test sets it on one client to play a Byzantine party.
ATTACK_ENV = "JUPITER_FEDERATED_ATTACK"
POSITION_KEY = "jupiter-data"


def client_round(msg: Message, context: Context) -> Message:
    """The ClientApp's train handler."""
    from jupiter.config import load_domain
    from jupiter.improve.workspace import Workspace

    node = context.node_config
    if node.get("home"):
        os.environ["JUPITER_HOME"] = str(node["home"])
    cfg = load_domain(str(node["domain"]), quick=bool(node.get("quick", False)))
    ws = Workspace(cfg, quick=bool(node.get("quick", False)), console=Console(stderr=True))
    plan = dict(msg.content.config_records["config"])
    received = msg.content.array_records["arrays"].to_torch_state_dict()
    saved = context.state.config_records.get(POSITION_KEY)
    try:
        weights, metrics, position = train_round(
            ws, received, plan, dict(saved or {}), str(node.get("device", "auto"))
        )
    finally:
        ws.close()
    context.state[POSITION_KEY] = ConfigRecord(position)
    weights = attacked({k: weights[k] for k in received})  # the server's order, for the mods
    reply = RecordDict(
        {
            "arrays": ArrayRecord(weights),
            "metrics": MetricRecord(metrics),
            "about": ConfigRecord({"client": cfg.name}),
        }
    )
    return Message(reply, reply_to=msg)


def attacked(weights: Tensors) -> Tensors:
    how = os.environ.get(ATTACK_ENV, "")
    if how.startswith("scale:"):
        factor = float(how.split(":", 1)[1])
        return {k: v * factor for k, v in weights.items()}
    if how == "nan":
        return {k: torch.full_like(v, float("nan")) for k, v in weights.items()}
    return weights


def packed_data(ws: Any) -> tuple[Any, int, str, Path]:
    """(train PackedDataset, examples in it, a key of the data, tokenizer dir): the queue's
    examples packed once and kept in the workspace until the queue or tokenizer changes."""
    from jupiter.data.dataset import PackedDataset
    from jupiter.improve.training import base_tokenizer, training_examples
    from jupiter.improve.trainrun import pack

    examples = training_examples(ws)
    if not examples:
        raise JupiterError(
            f"domain {ws.cfg.name}: no accepted examples to train on in {ws.store_path}: run "
            "`jupiter generate` and `jupiter filter` on this client first"
        )
    tok_dir, tokenizer = base_tokenizer(ws)
    t = ws.cfg.train
    key = hashlib.sha256(
        json.dumps(
            [
                sorted(e.id for e in examples),
                str(tok_dir),
                ws.cfg.model.context_length,
                t.seed,
                t.heldout_fraction,
                t.raw_text_fraction,
                t.knowledge.model_dump(),  # the recipe's questions are packed in too
                ws.cfg.system_prompt,
            ],
            sort_keys=True,
        ).encode()
    ).hexdigest()[:16]
    cache = ws.root / "federated" / "data" / key
    if (cache / "meta.json").is_file():
        meta = json.loads((cache / "meta.json").read_text(encoding="utf-8"))
        return PackedDataset.load(cache / "train.npz"), int(meta["examples"]), key, tok_dir
    data = pack(ws, tokenizer, examples, [])  # a base model: no raw text mixed in
    cache.mkdir(parents=True, exist_ok=True)
    data.train.save(cache / "train.npz")
    atomic.write_text(cache / "meta.json", json.dumps({"examples": data.n_examples}))
    return data.train, data.n_examples, key, tok_dir


def train_config(ws: Any, plan: dict[str, Any]) -> Any:
    """The client's train section with the server's plan over it (method, LoRA shape, lr,
    local steps): the parts every party must share. Batch, precision and memory stay the
    client's own."""
    from jupiter.config import LoraConfig

    t = ws.cfg.train
    targets = plan["lora-targets"]
    lora = LoraConfig(
        r=int(plan["lora-r"]),
        alpha=int(plan["lora-alpha"]),
        dropout=float(plan["lora-dropout"]),
        target_modules="all-linear" if targets == "all-linear" else list(targets),
    )
    return t.model_copy(
        update={
            "method": str(plan["method"]),
            "lora": lora,
            "lr": float(plan["lr"]),
            "min_lr": float(plan["min-lr"]),
            "warmup_steps": int(plan["warmup-steps"]),
            "max_steps": int(plan["local-steps"]),
            "resume": "never",
            "metrics": [],
            "compile": False,
            "seed": t.seed + int(plan["server-round"]),
        }
    )


def train_round(
    ws: Any, received: Tensors, plan: dict[str, Any], position: dict[str, Any], device: str
) -> tuple[Tensors, dict[str, Any], dict[str, Any]]:
    """E local steps from the global weights; (weights, metrics, data position)."""
    from jupiter.improve.trainrun import node_memory_gb
    from jupiter.train import loop
    from jupiter.train.schedule import lr_at

    cfg = ws.cfg
    if not cfg.model.base:
        raise JupiterError(f"domain {cfg.name}: set model.base to the federation's base model")
    base = ws.model(cfg.model.base)
    if fingerprint(base) != plan["base-fingerprint"]:
        raise JupiterError(
            f"model.base {base} is not the server's base model (their fingerprints differ): "
            "every client must hold the same base checkpoint as the server"
        )
    dataset, n_examples, key, tok_dir = packed_data(ws)
    train = train_config(ws, plan)
    run = loop.TrainRun(
        dataset=dataset,
        config=train,
        out_dir=ws.root / "federated" / "client",
        tokenizer_dir=tok_dir,
        model_dir=base,
        run_id=f"federated-{plan['run']}",
        device=device,
        progress=False,
        attention=cfg.model.attention,
        memory_gb=node_memory_gb(),
    )
    state = loop.start(run)
    if position.get("data") == key:  # go on through the data where the last round stopped
        state.epoch, state.index = int(position["epoch"]), int(position["index"])
    load_into(state.model, received)
    rnd, steps, rounds = int(plan["server-round"]), int(plan["local-steps"]), int(plan["rounds"])
    state.lr_fn = lambda step: lr_at(
        (rnd - 1) * steps + step, rounds * steps, train.lr, train.min_lr, train.warmup_steps
    )
    loop.run_steps(run, state, steps)
    losses = state.losses
    metrics = {
        "num-examples": n_examples,
        "steps": len(losses),
        "train-loss": sum(losses) / len(losses) if losses else math.nan,
    }
    return (
        trainable(state.model),
        metrics,
        {"data": key, "epoch": state.epoch, "index": state.index},
    )


def keep_copy(keep_dir: Path, msg: Message, reply: Message) -> None:
    """What this client received and sent in a round, as safetensors, for its own audit."""
    from safetensors.torch import save

    plan = msg.content.config_records["config"]
    where = Path(keep_dir) / str(plan.get("run", "run"))
    rnd = int(str(plan.get("server-round", 0)))
    sent = next(iter(reply.content.array_records.values())).to_torch_state_dict()
    got = msg.content.array_records["arrays"].to_torch_state_dict()
    for what, tensors in (("received", got), ("sent", sent)):
        data = save({k: v.contiguous() for k, v in tensors.items()})
        atomic.write_bytes(where / f"round-{rnd:03d}-{what}.safetensors", data)
    metrics = next(iter(reply.content.metric_records.values()))
    atomic.write_text(where / f"round-{rnd:03d}-metrics.json", json.dumps(dict(metrics)))
