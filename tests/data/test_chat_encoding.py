"""encode_chat / encode_text: which tokens carry loss, checked by decoding them."""

from __future__ import annotations

import pydoc_data.topics
from pathlib import Path

import pytest
from transformers import PreTrainedTokenizerFast

from jupiter.data.chat import IGNORE, encode_chat, encode_text
from jupiter.data.tokenizer import train_tokenizer


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> PreTrainedTokenizerFast:
    texts = [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)[:8]]
    return train_tokenizer(texts, 600, Path(tmp_path_factory.mktemp("tok")))


def trained(tok: PreTrainedTokenizerFast, ids: list[int], labels: list[int]) -> str:
    assert len(ids) == len(labels)
    kept = [t for t, lab in zip(ids, labels, strict=True) if lab != IGNORE]
    # labels equal ids wherever they are kept: the shift happens at packing time
    assert kept == [t for t, lab in zip(ids, labels, strict=True) if lab != IGNORE and lab == t]
    return tok.decode(kept)


def test_single_turn_trains_only_the_answer_and_its_end(tok: PreTrainedTokenizerFast) -> None:
    msgs = [{"role": "user", "content": "What is x?"}, {"role": "assistant", "content": "answer"}]
    ids, labels = encode_chat(tok, msgs)
    assert trained(tok, ids, labels) == "answer<|end|>"
    # the ids are the whole rendered chat, bos first
    assert tok.decode(ids) == tok.apply_chat_template(msgs, tokenize=False)
    assert ids[0] == tok.bos_token_id


def test_system_and_multi_turn(tok: PreTrainedTokenizerFast) -> None:
    msgs = [
        {"role": "system", "content": "You are an expert."},
        {"role": "user", "content": "Define a for loop."},
        {"role": "assistant", "content": " It iterates over a sequence."},
        {"role": "user", "content": "And while?"},
        {"role": "assistant", "content": "It loops while a condition holds.\nDone."},
    ]
    ids, labels = encode_chat(tok, msgs)
    spans, current = [], []
    for t, lab in zip(ids, labels, strict=True):
        if lab != IGNORE:
            current.append(t)
        elif current:
            spans.append(tok.decode(current))
            current = []
    if current:
        spans.append(tok.decode(current))
    assert spans == [
        " It iterates over a sequence.<|end|>",
        "It loops while a condition holds.\nDone.<|end|>",
    ]


def test_chat_without_assistant_has_no_loss(tok: PreTrainedTokenizerFast) -> None:
    ids, labels = encode_chat(tok, [{"role": "user", "content": "hello"}])
    assert ids and all(lab == IGNORE for lab in labels)


def test_encode_text_is_bos_text_eos_with_loss_after_bos(tok: PreTrainedTokenizerFast) -> None:
    ids, labels = encode_text(tok, "for x in range(3): pass")
    assert ids[0] == tok.bos_token_id and ids[-1] == tok.eos_token_id
    assert tok.decode(ids[1:-1]) == "for x in range(3): pass"
    assert labels[0] == IGNORE and labels[1:] == ids[1:]
