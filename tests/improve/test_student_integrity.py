"""The cycle's student checked by its checksums before eval and promotion: flipped or cut
bytes in train/final are found; the student comes back from the run's finished checkpoint
with a warning, or the stage stops with one line naming the file and the fix, before
anything is scored."""

from __future__ import annotations

import pydoc_data.topics
import shutil
from pathlib import Path

import pytest
from gate_records import MakeWorkspace, printed
from transformers import AutoTokenizer, LlamaConfig

from jupiter.config import TrainConfig
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.tokenizer import train_tokenizer
from jupiter.errors import JupiterError
from jupiter.improve.evaluate import eval_stage
from jupiter.improve.student import check_student
from jupiter.improve.workspace import Workspace
from jupiter.models.folder import sha256_file, verify_checksums
from jupiter.train.checkpoint import list_checkpoints
from jupiter.train.loop import TrainRun
from jupiter.train.trainer import train

TEXTS = [pydoc_data.topics.topics[k][:400] for k in sorted(pydoc_data.topics.topics)[:12]]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 6-step run (checkpoints at 3 and 6, final/), copied into each test."""
    root = tmp_path_factory.mktemp("run")
    tok_dir = root / "tok"
    train_tokenizer(TEXTS, 400, tok_dir)
    tok = AutoTokenizer.from_pretrained(tok_dir)
    seqs = encode_examples(tok, [], TEXTS, raw_text_fraction=1.0, seed=0)
    model = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=32,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    config = TrainConfig(
        max_steps=6,
        micro_batch_size=8,
        warmup_steps=1,
        precision="fp32",
        checkpoint_every=3,
        log_every=3,
        checkpoint_every_epoch=False,
        metrics=[],
    )
    run = TrainRun(
        PackedDataset(seqs, context_length=32, pad_id=tok.pad_token_id, seed=0),
        config,
        root / "train",
        tok_dir,
        model_config=model,
        device="cpu",
        progress=False,
    )
    assert train(run).finished
    return root / "train"


def with_student(make_ws: MakeWorkspace, trained: Path) -> Workspace:
    ws = make_ws()
    shutil.copytree(trained, ws.train_dir(1))
    return ws


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x55
    path.write_bytes(bytes(data))


def test_flipped_bytes_restored_from_the_finished_checkpoint(
    make_ws: MakeWorkspace, trained: Path
) -> None:
    ws = with_student(make_ws, trained)
    weights = ws.student_dir(1) / "model.safetensors"
    good = sha256_file(weights)
    flip(weights)
    assert check_student(ws, 1) == ws.student_dir(1)
    assert sha256_file(weights) == good  # the checkpoint's weights are the final ones
    assert verify_checksums(ws.student_dir(1)) is None
    out = " ".join(printed(ws).split())
    assert "warning: cycle 1's student is damaged" in out
    assert "model.safetensors does not match its SHA-256" in out and "step-000006" in out
    assert not [p for p in ws.train_dir(1).iterdir() if p.name.startswith(".")]
    printed_before = printed(ws)
    check_student(ws, 1)  # intact now: nothing said
    assert printed(ws) == printed_before


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_damaged_student_without_checkpoint_stops_eval_in_one_line(
    make_ws: MakeWorkspace, trained: Path, damage: str
) -> None:
    ws = with_student(make_ws, trained)
    for ckpt in list_checkpoints(ws.train_dir(1)):
        shutil.rmtree(ckpt)
    weights = ws.student_dir(1) / "model.safetensors"
    if damage == "flip":
        flip(weights)
    else:  # cut short: a raw SafetensorError before; no checksums.json: framing says so
        weights.write_bytes(weights.read_bytes()[:1000])
        (ws.student_dir(1) / "checksums.json").unlink()
    with pytest.raises(JupiterError) as err:
        eval_stage(ws, 1)
    line = str(err.value)
    assert len(line.splitlines()) == 1
    assert line.startswith("cycle 1's student is damaged (") and str(weights) in line
    assert line.endswith(
        "no valid checkpoint holds its last step: delete "
        f"{ws.student_dir(1)} and run `jupiter train --domain t` (it resumes from the newest "
        "valid checkpoint)"
    )
    assert ws.store.evals() == [] and not (ws.cycle_dir(1) / "eval.json").exists()
