"""Checkpoints: exact round trip, checksums, corrupt ones skipped, retention."""

from __future__ import annotations

import json
import pydoc_data.topics
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from jupiter.data.tokenizer import train_tokenizer
from jupiter.errors import JupiterError
from jupiter.models.presets import build_model
from jupiter.train.checkpoint import (
    latest_checkpoint,
    list_checkpoints,
    load_checkpoint,
    save_checkpoint,
)


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> PreTrainedTokenizerFast:
    texts = [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)[:6]]
    return train_tokenizer(texts, 400, Path(tmp_path_factory.mktemp("tok")))


def tiny(seed: int, vocab: int = 400) -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        tie_word_embeddings=True,
        max_position_embeddings=64,
    )
    return build_model(config, seed)


def osd(model: torch.nn.Module, opt: torch.optim.Optimizer) -> dict:
    from torch.distributed.checkpoint.state_dict import get_optimizer_state_dict

    return get_optimizer_state_dict(model, opt)


def trained_pair(seed: int) -> tuple[LlamaForCausalLM, torch.optim.AdamW]:
    """A model and optimizer with non-trivial state (two steps taken)."""
    model = tiny(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x = torch.randint(0, 400, (2, 16), generator=torch.Generator().manual_seed(seed))
    for _ in range(2):
        model(input_ids=x, labels=x).loss.backward()
        opt.step()
        opt.zero_grad()
    return model, opt


def test_round_trip_restores_weights_optimizer_rng_and_state(
    tmp_path: Path, tok: PreTrainedTokenizerFast
) -> None:
    model, opt = trained_pair(0)
    torch.manual_seed(99)
    random.seed(99)
    np.random.seed(99)
    path = save_checkpoint(
        tmp_path, 7, model, tok, osd(model, opt), {"epoch": 1, "index": 3, "losses": [2.5]}
    )
    expect = (torch.rand(3), random.random(), np.random.rand())
    assert path == tmp_path / "step-000007"
    names = {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}
    assert {
        "model/config.json",
        "model/model.safetensors",
        "model/tokenizer.json",
        "optimizer.pt",
        "rng.pt",
        "state.json",
        "checksums.json",
    } <= names
    sums = json.loads((path / "checksums.json").read_text())
    assert set(sums) == names - {"checksums.json"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left

    other, other_opt = trained_pair(1)
    state = load_checkpoint(path, other, other_opt)
    assert state == {"epoch": 1, "index": 3, "losses": [2.5], "step": 7}
    for (n, a), b in zip(model.state_dict().items(), other.state_dict().values(), strict=True):
        assert torch.equal(a, b), n
    assert other.lm_head.weight is other.model.embed_tokens.weight
    sa, sb = opt.state_dict(), other_opt.state_dict()
    assert sa["param_groups"] == sb["param_groups"]
    for k in sa["state"]:
        for name in ("step", "exp_avg", "exp_avg_sq"):
            assert torch.equal(sa["state"][k][name], sb["state"][k][name])
    assert torch.equal(torch.rand(3), expect[0])
    assert random.random() == expect[1] and np.random.rand() == expect[2]


def test_tampered_checkpoint_is_skipped_and_refused(
    tmp_path: Path, tok: PreTrainedTokenizerFast
) -> None:
    model, opt = trained_pair(0)
    good = save_checkpoint(tmp_path, 1, model, tok, osd(model, opt), {})
    bad = save_checkpoint(tmp_path, 2, model, tok, osd(model, opt), {})
    weights = bad / "model" / "model.safetensors"
    blob = bytearray(weights.read_bytes())
    blob[-1] ^= 0xFF
    weights.write_bytes(bytes(blob))
    with pytest.warns(UserWarning, match="step-000002.*model/model.safetensors"):
        assert latest_checkpoint(tmp_path) == good
    with pytest.raises(JupiterError, match="corrupt"):
        load_checkpoint(bad, model, opt)
    (good / "state.json").unlink()  # a missing file counts as corrupt too
    with pytest.warns(UserWarning):
        assert latest_checkpoint(tmp_path) is None


def test_retention_keeps_the_newest_k(tmp_path: Path, tok: PreTrainedTokenizerFast) -> None:
    model, opt = trained_pair(0)
    for step in (10, 20, 30, 40):
        save_checkpoint(tmp_path, step, model, tok, osd(model, opt), {}, keep=2)
    assert [p.name for p in list_checkpoints(tmp_path)] == ["step-000030", "step-000040"]
    # a leftover with a higher number never costs the checkpoint just written
    save_checkpoint(tmp_path, 35, model, tok, osd(model, opt), {}, keep=1)
    assert [p.name for p in list_checkpoints(tmp_path)] == ["step-000035", "step-000040"]
    # saving the same step again replaces it whole
    save_checkpoint(tmp_path, 40, model, tok, osd(model, opt), {"again": True}, keep=5)
    assert json.loads((tmp_path / "step-000040" / "state.json").read_text())["again"] is True
    assert latest_checkpoint(tmp_path) == tmp_path / "step-000040"


def test_retention_keeps_the_best_besides_the_newest(
    tmp_path: Path, tok: PreTrainedTokenizerFast
) -> None:
    model, opt = trained_pair(0)
    best = tmp_path / "step-000010"
    for step in (10, 20, 30, 40):
        save_checkpoint(tmp_path, step, model, tok, osd(model, opt), {}, keep=2, best=best)
    names = [p.name for p in list_checkpoints(tmp_path)]
    assert names == ["step-000010", "step-000030", "step-000040"]
