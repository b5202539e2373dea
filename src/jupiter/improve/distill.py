"""The train stage's side of train.objective distill / sft+distill and of train.replay.loss
kl (train/distill.py): the checks that refuse what cannot run a teacher, the teacher dir,
and the teacher's sequences of the packed Q&A, each reading its chunk as the open-book
passage before the question, and of the packed replay texts, read as they are."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupiter.errors import JupiterError
from jupiter.improve.preflight import warn
from jupiter.improve.workspace import Workspace
from jupiter.records import Example

if TYPE_CHECKING:  # torch behind them: imported where used, as the train stage does
    from jupiter.data.dataset import PackedDataset
    from jupiter.data.distill import DistillData, DistillPair


def check_objective(ws: Workspace, init_dir: Path | None, engine: str) -> None:
    """Refuse, before anything is packed, a distilling objective (or replay with loss kl)
    this run cannot do: the teacher runs in the torch loop (`engine`), on one island (DDP at
    most), beside one run."""
    from jupiter.train.distill import teacher_off, teacher_setting, unsupported

    t = ws.cfg.train
    what = teacher_setting(t)
    if what is None:
        return
    launch, off = ws.launch, teacher_off(t)
    if t.consensus is not None:
        raise unsupported(what, "train.consensus", f"remove train.consensus, or {off}")
    loop = (
        "cluster training" if ws.cluster is not None else "the MLX loop" if engine == "mlx" else ""
    )
    if loop and t.objective == "sft":  # replay kl alone: the nearest thing, said
        warn(
            ws,
            f"train.replay.loss kl needs a teacher forward, which {loop} does not run: "
            "replay here trains with cross-entropy on the base's samples (set "
            "train.replay.loss: ce to silence this)",
        )
        ws.fallbacks["train.replay.loss"] = "ce"
        return
    if ws.cluster is not None:
        raise unsupported(what, "cluster training", "train without --cluster")
    if engine == "mlx":
        raise unsupported(what, "the MLX backend", f"{off}, or train on a PyTorch node")
    if launch is not None and launch.distributed and t.distributed != "ddp":
        raise unsupported(what, f"distributed: {t.distributed}", "set train.distributed: ddp")
    if t.replay.loss == "kl" and t.replay.fraction > 0 and t.distill.teacher != "base":
        raise JupiterError(
            "train.replay.loss kl keeps the student near its base, and train.distill.teacher "
            f"is {t.distill.teacher}: set the teacher to base, or train.replay.loss: ce"
        )
    if t.objective == "sft":
        return
    if init_dir is None and t.distill.teacher == "base":
        raise JupiterError(
            f"train.objective {t.objective} needs a teacher, and a model trained from scratch "
            "starts random: set model.base, or train.distill.teacher to a model dir"
        )
    distill_teacher(ws, t.distill.teacher)  # a wrong path is said before any packing


def distill_teacher(ws: Workspace, ref: str, tokenizer: Any = None) -> Path | None:
    """train.distill.teacher as a model dir (relative to the YAML), checked to share
    `tokenizer`'s vocabulary when given; None for "base"."""
    from jupiter.models.folder import is_model_dir
    from jupiter.train.trainer import load_run_tokenizer

    if ref == "base":
        return None
    path = ws.cfg.resolve(ref)
    if not path.is_dir() or not is_model_dir(path):
        raise JupiterError(
            f"train.distill.teacher: {path} is not a Hugging Face model dir (no config.json): "
            "set it to a model folder (relative to the domain YAML), or to base"
        )
    if tokenizer is None:
        return path
    try:
        same = load_run_tokenizer(path).get_vocab() == tokenizer.get_vocab()
    except (OSError, ValueError):
        same = False
    if not same:
        raise JupiterError(
            f"train.distill.teacher {path} lacks the student's tokenizer (the KL compares the "
            "same token ids): give a model of the student's family, or set it to base"
        )
    return path


def distill_pairs(
    ws: Workspace,
    tokenizer: Any,
    examples: list[Example],
) -> tuple[list[DistillPair], Counter[str]]:
    """Each Q&A whose chunk is a training chunk of the store as a student/teacher pair,
    and the others counted by reason."""
    from jupiter.data.dataset import _chat_messages
    from jupiter.data.distill import encode_pair
    from jupiter.synth.passages import Passage, open_book_prompt

    chunks = {c.id: c for c in ws.store.iter_chunks(split="train")}
    pairs: list[DistillPair] = []
    skipped = Counter[str]()
    for e in examples:
        chunk = chunks.get(e.chunk_id)
        if e.kind != "qa" or chunk is None:
            skipped["without their chunk"] += e.kind == "qa"
            continue
        book = open_book_prompt(e.question, [Passage(chunk.id, chunk.title, chunk.text)])
        got = encode_pair(tokenizer, _chat_messages(e, ws.cfg.system_prompt), book)
        if isinstance(got, str):
            skipped[got] += 1
        else:
            pairs.append(got)
    return pairs, skipped


def replay_pairs(tokenizer: Any, texts: list[str]) -> list[DistillPair]:
    """Each replay text as pack encodes it, its teacher reading it whole."""
    from jupiter.data.chat import encode_text
    from jupiter.data.distill import replay_pair

    got = [replay_pair(*encode_text(tokenizer, t)) for t in texts]
    return [p for p in got if not isinstance(p, str)]


def distill_data(
    ws: Workspace,
    tokenizer: Any,
    examples: list[Example],
    packed: PackedDataset,
    train_cfg: Any,
    replay: list[str] | None = None,
) -> DistillData | None:
    """The teacher's side of the Q&A (distilling objectives) and of the `replay` texts
    (replay loss kl) in the packed rows (data/distill.py), each said in one line; None when
    none of them is whole in a row (plain cross-entropy then)."""
    from jupiter.data.distill import DistillData

    teacher = distill_teacher(ws, train_cfg.distill.teacher, tokenizer)
    pairs: list[DistillPair] = []
    skipped = Counter[str]()
    if train_cfg.objective != "sft":
        pairs, skipped = distill_pairs(ws, tokenizer, examples)
    kl_replay = bool(replay) and train_cfg.replay.loss == "kl"
    data = DistillData.find(
        packed, pairs + (replay_pairs(tokenizer, replay or []) if kl_replay else []), teacher
    )
    if kl_replay:
        ws.console.print(
            f"replay kl: {data.replay_texts} replay texts ({data.replay_tokens:,} tokens) scored "
            "against the base's whole distribution in place of their cross-entropy (the base "
            "with its adapter disabled, or a frozen copy of the start)",
            highlight=False,
        )
    if train_cfg.objective == "sft":
        return data if len(data) else None
    who = (
        str(teacher)
        if teacher
        else (
            "a frozen copy of the starting weights"
            if train_cfg.method == "full"
            else "the base with its adapter disabled"
        )
    )
    left = "; ".join(f"{n} {why}" for why, n in skipped.items() if n) or "none"
    answers = len(data) - data.replay_texts
    ws.console.print(
        f"distill ({train_cfg.objective}): {answers} answers ({data.answer_tokens:,} tokens) "
        f"with a teacher that reads their chunk ({who}); Q&A left to cross-entropy: {left}",
        highlight=False,
    )
    return data if len(data) else None
