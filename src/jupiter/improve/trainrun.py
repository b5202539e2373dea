"""A training run of the train stage: the examples packed into datasets (a held-out share
apart, the knowledge recipe and replay mixed in), the curriculum's dataset files, where the
run trains (this process, torchrun, the MLX loop or the cluster's islands), and its summary.
The train stage runs one per cycle or per curriculum level; train.consensus one per member."""

from __future__ import annotations

import itertools
import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.budget import budget_info
from jupiter.improve.passages import train_chunks
from jupiter.improve.replay import replay_sequences
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk, Example
from jupiter.synth.parse import plain_chunk
from jupiter.synth.questions import document_subject


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


def chunk_titles(ws: Workspace, train_cfg: Any) -> dict[str, str] | None:
    """Chunk id -> what its document is about (its title, or as the document's first chunk
    reads it: a manual page's NAME line), when train.knowledge.sentences asks questions that
    name it, as the generator's questions do."""
    if not train_cfg.knowledge.sentences:
        return None
    chunks = list(ws.store.iter_chunks())
    subjects = {c.doc_id: document_subject(c) for c in chunks if c.start == 0}
    return {c.id: subjects.get(c.doc_id, c.title) for c in chunks}


def plain_chunks(ws: Workspace, train_cfg: Any) -> frozenset[str]:
    """Ids of the chunks of plain text (parse.plain_chunk), when train.knowledge.sentences
    asks of their sentences: their indented paragraphs are prose too."""
    if not train_cfg.knowledge.sentences:
        return frozenset()
    return frozenset(c.id for c in ws.store.iter_chunks() if plain_chunk(c))


def definition_chunks(ws: Workspace, train_cfg: Any) -> list[Chunk]:
    """The train split's chunks, when train.knowledge.definitions asks all their
    definitions."""
    return train_chunks(ws) if train_cfg.knowledge.definitions else []


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


def knowledge_mix(
    examples: list[Example],
    texts: list[str],
    train_cfg: Any,
    titles: dict[str, str] | None = None,
    chunks: list[Chunk] | None = None,
    asked: list[Example] | None = None,
    plain: frozenset[str] = frozenset(),
) -> tuple[list[Example], list[str], dict[str, int] | None]:
    """The examples and texts with train.knowledge's questions and permuted copies added
    (the train split only: the held-out loss stays on the queued examples); `titles`
    (chunk id -> title) name the subject of train.knowledge.sentences' questions (`plain`:
    chunks of plain text, plain_chunks), `chunks`
    are those whose definitions train.knowledge.definitions asks, but for those a Q&A of
    `asked` (default `examples`) already answers: a held-out example's fact stays out."""
    from jupiter.synth.knowledge import expand

    k = train_cfg.knowledge
    if not k.enabled:
        return examples, texts, None
    more, more_texts, mix = expand(
        examples,
        texts,
        phrasings=k.phrasings,
        reverse=k.reverse,
        usage=k.usage,
        permuted_copies=k.permuted_copies,
        seed=train_cfg.seed,
        sentences=k.sentences,
        titles=titles,
        plain=plain,
        definitions=chunks or (),
        asked=asked,
    )
    return more, more_texts, mix.as_dict()


def pack(
    ws: Workspace,
    tokenizer: Any,
    examples: list[Example],
    texts: list[str],
    train_cfg: Any = None,
    replay: list[str] | None = None,
) -> Datasets:
    """Encode and pack the examples (and raw texts), holding out train.heldout_fraction;
    mixed and shuffled with `train_cfg`'s seed and mix (default: train:'s); the knowledge
    recipe's questions and `replay` texts (train.replay.fraction of the tokens) go to the
    train split only."""
    import random

    from jupiter.data.chat import pad_id_for
    from jupiter.data.dataset import PackedDataset, mix_parts

    cfg = ws.cfg
    t = train_cfg or cfg.train
    frac = cfg.train.heldout_fraction
    held = [e for e in examples if is_heldout(e.id, frac)]
    kept = [e for e in examples if not is_heldout(e.id, frac)] or examples
    held_texts = [t for t in texts if is_heldout(t[:200], frac)]
    kept_texts = [t for t in texts if not is_heldout(t[:200], frac)]
    pad = pad_id_for(tokenizer)

    def packed(exs: list[Example], txts: list[str], more: list[str]) -> tuple[Any, Any, int]:
        rng = random.Random(t.seed)  # mix_examples' draws, kept apart for documents_first
        chats, raws, budget = mix_parts(
            tokenizer, exs, txts, t.raw_text_fraction, rng, cfg.system_prompt, t.min_corpus_share
        )
        extra = replay_sequences(
            tokenizer, more, t.replay.fraction, sum(len(ids) for ids, _ in chats + raws), t.seed
        )
        replayed = sum(len(ids) for ids, _ in extra)
        L = cfg.model.context_length
        if t.order == "documents_first":  # raw text (and replay) packed apart from the chats
            rng.shuffle(chats)
            docs = raws + extra
            return PackedDataset(docs + chats, L, pad, t.seed, len(docs)), budget, replayed
        seqs = chats + raws
        rng.shuffle(seqs)
        if extra:
            seqs = seqs + extra
            random.Random(t.seed).shuffle(seqs)
        return PackedDataset(seqs, L, pad, t.seed), budget, replayed

    kept, kept_texts, mix = knowledge_mix(
        kept,
        kept_texts,
        t,
        chunk_titles(ws, t),
        definition_chunks(ws, t),
        examples,
        plain_chunks(ws, t),
    )
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


def local_engine() -> str:
    """The engine of a plain `jupiter train`, from this machine alone: the MLX loop on
    Apple silicon with mlx installed, torch elsewhere (cluster.yaml is `--cluster`'s)."""
    import importlib.util
    import platform
    import sys

    apple = sys.platform == "darwin" and platform.machine() == "arm64"
    return "mlx" if apple and importlib.util.find_spec("mlx") is not None else "torch"


def node_memory_gb(cluster_path: str | None = None) -> float | None:
    """`memory_gb` of this machine's node in the cluster.yaml at `cluster_path`, for the
    automatic micro-batch; None without a path: a plain run measures its device and does
    not read cluster.yaml."""
    if cluster_path is None:
        return None
    node, _ = local_node(cluster_path)
    return node.memory_gb if node is not None else None


def run_fields(ws: Workspace) -> dict[str, Any]:
    """TrainRun's fields that this machine decides: the attention and precision in force
    (a device fallback's, improve/preflight.py: ws.fallbacks, never the config's)."""
    from jupiter.train.plan import Overrides

    precision = ws.fallbacks.get("train.precision")
    why = (
        (
            f"precision {precision}: train.precision {ws.cfg.train.precision} needs a CUDA GPU "
            "and this machine has none",
        )
        if precision
        else ()
    )
    return {
        "attention": ws.fallbacks.get("model.attention", ws.cfg.model.attention),
        "overrides": Overrides(precision=precision, reasons=why),
    }


def run_training(ws: Workspace, cycle: int, run: Any) -> Any:
    from jupiter.train.launch import launch_train
    from jupiter.train.trainer import train

    def log(m: dict[str, Any]) -> None:
        ws.store.log_metrics(
            run.run_id, int(m["step"]), {k: v for k, v in m.items() if k != "step"}
        )

    if ws.cluster is not None:
        return train_on_cluster(ws, run)
    if local_engine() == "mlx":  # a Mac: the MLX loop, same run
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


def run_summary(run_id: str, result: Any, data: Datasets) -> dict[str, Any]:
    losses = result.losses
    return {
        "run": run_id,
        "steps": result.steps,
        "examples": data.n_examples,
        "tokens": data.train.tokens,
        "first_loss": losses[0] if losses else float("nan"),
        "final_loss": losses[-1] if losses else float("nan"),
        "heldout_loss": result.heldout_loss,
        "tokens_per_s": round(result.tokens_per_s, 1),
        "model_dir": str(result.model_dir),
        "budget": budget_info(data.budget, result.epochs, result.max_steps),
        "knowledge": data.knowledge,
        "distill": result.distill,
        "plan": getattr(result, "plan", None),  # steps, batch, tokens and notes (train/plan.py)
    }
