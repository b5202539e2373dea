"""Bits per byte on a tiny random Llama with a tokenizer trained in the test."""

from __future__ import annotations

import math
from pydoc_data.topics import topics

import pytest
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from jupiter.data.tokenizer import train_tokenizer
from jupiter.errors import JupiterError
from jupiter.eval.bpb import bits_per_byte, take_bytes
from jupiter.eval.stats import ratio_ci

TRAIN_KEYS = ["for", "while", "if", "try", "with", "class", "function", "lambda"]
SCORE_KEYS = ["assert", "break", "continue", "del", "global", "pass", "raise", "return"]


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> PreTrainedTokenizerFast:
    texts = [topics[k][:1500] for k in TRAIN_KEYS]  # about 12 KB
    return train_tokenizer(texts, vocab_size=400, out_dir=tmp_path_factory.mktemp("tok"))


@pytest.fixture(scope="module")
def model(tok: PreTrainedTokenizerFast) -> LlamaForCausalLM:
    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=128,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    return LlamaForCausalLM(cfg).float()


def _texts() -> list[str]:
    return [topics[k][:700] for k in SCORE_KEYS]


def _hand_nll(
    model: LlamaForCausalLM, tok: PreTrainedTokenizerFast, texts: list[str], ctx: int
) -> tuple[float, int]:
    """The definition, one window at a time, no batching or padding."""
    nll, count = 0.0, 0
    with torch.no_grad():
        for text in texts:
            ids = [tok.bos_token_id] + tok.encode(text, add_special_tokens=False)
            for s in range(0, len(ids) - 1, ctx):
                tgt = ids[s + 1 : s + ctx + 1]
                inp = torch.tensor([ids[s : s + len(tgt)]])
                logits = model(input_ids=inp).logits[0].float()
                nll += F.cross_entropy(logits, torch.tensor(tgt), reduction="sum").item()
                count += len(tgt)
    return nll, count


def test_bpb_equals_hand_computed_cross_entropy(
    model: LlamaForCausalLM, tok: PreTrainedTokenizerFast
) -> None:
    texts = _texts()
    budget = 3000
    res = bits_per_byte(model, tok, texts, context_length=32, max_bytes=budget, batch_size=5)
    scored = take_bytes(texts, budget)
    n_bytes = sum(len(t.encode("utf-8")) for t in scored)
    assert res["bytes"] == n_bytes == budget  # the last text is cut to the budget
    nll, count = _hand_nll(model, tok, scored, ctx=32)
    assert res["tokens"] == count
    assert res["nll_nats"] == pytest.approx(nll, rel=1e-5)
    assert res["bpb"] == pytest.approx(nll / math.log(2) / n_bytes, abs=1e-4)


def test_bpb_of_untrained_model_is_near_uniform(
    model: LlamaForCausalLM, tok: PreTrainedTokenizerFast
) -> None:
    # a freshly initialised model is close to uniform over the vocabulary:
    # about log2(V) bits per token, spread over the bytes those tokens cover
    res = bits_per_byte(model, tok, _texts(), context_length=64, max_bytes=2000)
    uniform = math.log2(len(tok)) * res["tokens"] / res["bytes"]
    assert 0.9 * uniform < res["bpb"] < 1.1 * uniform
    assert 1.0 < res["bpb"] < 8.0


def test_bpb_does_not_depend_on_batch_size_and_restores_mode(
    model: LlamaForCausalLM, tok: PreTrainedTokenizerFast
) -> None:
    model.train()
    one = bits_per_byte(model, tok, _texts(), context_length=48, max_bytes=2500, batch_size=1)
    assert model.training
    many = bits_per_byte(model, tok, _texts(), context_length=48, max_bytes=2500, batch_size=8)
    assert one["tokens"] == many["tokens"]
    assert one["bpb"] == pytest.approx(many["bpb"], rel=1e-5)


def test_take_bytes_keeps_order_and_cuts_on_character_boundary() -> None:
    assert take_bytes(["abc", "def", "ghi"], 5) == ["abc", "de"]
    assert take_bytes(["abc", "def"], 100) == ["abc", "def"]
    assert take_bytes(["aé"], 2) == ["a"]  # "é" is 2 bytes: dropped, not split
    assert take_bytes(["", "xy"], 1) == ["x"]


def test_bpb_without_text_is_an_error(
    model: LlamaForCausalLM, tok: PreTrainedTokenizerFast
) -> None:
    with pytest.raises(JupiterError, match="no held-out text"):
        bits_per_byte(model, tok, ["", ""], context_length=32, max_bytes=1000)


def test_per_document_bits_and_bytes_add_up_to_the_total(
    model: LlamaForCausalLM, tok: PreTrainedTokenizerFast
) -> None:
    texts = _texts()
    res = bits_per_byte(model, tok, texts, context_length=32, max_bytes=3000, batch_size=3)
    scored = take_bytes(texts, 3000)
    assert res["doc_bytes"] == [len(t.encode("utf-8")) for t in scored]
    assert sum(res["doc_bytes"]) == res["bytes"]
    assert sum(res["doc_bits"]) == pytest.approx(res["nll_nats"] / math.log(2), rel=1e-9)
    # each document's bits are that document's own cross-entropy, whatever the batching
    for text, bits in zip(scored, res["doc_bits"], strict=True):
        nll, _ = _hand_nll(model, tok, [text], ctx=32)
        assert bits == pytest.approx(nll / math.log(2), rel=1e-4)
    ci = ratio_ci(res["doc_bits"], res["doc_bytes"])
    assert ci is not None and ci[0] < res["bpb"] < ci[1]
