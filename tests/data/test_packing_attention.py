"""Packed rows through a real HF model: with position ids restarting at every example, each
example's loss in a packed row equals its loss computed alone (no attention across examples)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from transformers import PreTrainedModel, PreTrainedTokenizerFast

from jupiter.data.chat import IGNORE, encode_chat, encode_text
from jupiter.data.dataset import Encoded, PackedDataset
from tinyhf import tiny_model, tiny_tokenizer

QA = [
    ("What does list.append do?", "It adds one item to the end of a list."),
    ("And dict.get?", "It returns a default when a key is missing."),
    ("How do I close a file?", "Use with open(path) as f: the file closes when the block ends."),
    ("Split?", "str.split splits a string at a separator and returns a list of the parts."),
]


@pytest.fixture(scope="module")
def tok() -> PreTrainedTokenizerFast:
    return tiny_tokenizer("mistral")


@pytest.fixture(scope="module")
def model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    m = tiny_model("mistral", len(tok), seed=1).float().eval()
    return m


def examples(tok: PreTrainedTokenizerFast) -> list[Encoded]:
    out = [
        encode_chat(
            tok,
            [
                {"role": "system", "content": "Answer briefly." * (1 + k)},
                {"role": "user", "content": q},
                {"role": "assistant", "content": a},
            ],
        )
        for k, (q, a) in enumerate(QA)
    ]
    out.append(encode_text(tok, "for i in range(10):\n    print(i * i)\n"))
    return out


def alone(model: PreTrainedModel, seq: Encoded) -> tuple[torch.Tensor, float, int]:
    """Logits, summed cross-entropy and target count of one example run by itself."""
    x = torch.tensor(seq[0][:-1])[None]
    y = torch.tensor(seq[1][1:])
    with torch.no_grad():
        logits = model(input_ids=x, use_cache=False).logits[0]
    # float64 sums, so that only the logits (not the summation order) are compared
    loss = F.cross_entropy(logits.double(), y, ignore_index=IGNORE, reduction="sum")
    return logits, float(loss), int((y != IGNORE).sum())


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_each_packed_example_scores_as_if_alone(
    tok: PreTrainedTokenizerFast, model: PreTrainedModel, attn: str
) -> None:
    model.set_attn_implementation(attn)
    seqs = examples(tok)
    lengths = [len(ids) for ids, _ in seqs]
    assert len(set(lengths)) == len(seqs) and max(lengths) <= 129  # none is split
    ds = PackedDataset(seqs, context_length=128, pad_id=tok.unk_token_id, seed=0)
    assert ds.num_rows < len(seqs)  # rows really hold several examples
    b = ds.batch(0, 0, ds.num_rows)
    with torch.no_grad():
        packed = model(input_ids=b.input_ids, position_ids=b.position_ids, use_cache=False).logits
        causal = model(input_ids=b.input_ids, use_cache=False).logits  # no position ids
    per_token = F.cross_entropy(
        packed.double().flatten(0, 1), b.labels.flatten(), ignore_index=IGNORE, reduction="none"
    ).view(b.labels.shape)

    found, total, count, leaked = 0, 0.0, 0, 0
    for r in range(ds.num_rows):
        pos = b.position_ids[r].tolist()
        starts = [t for t, p in enumerate(pos) if p == 0] + [len(pos)]
        for lo, hi in zip(starts, starts[1:], strict=False):
            x = b.input_ids[r, lo:hi].tolist()
            match = [s for s in seqs if s[0][:-1] == x]
            if not match:  # the padding segment
                assert set(b.labels[r, lo:hi].tolist()) == {IGNORE}
                continue
            logits, loss, n = alone(model, match[0])
            torch.testing.assert_close(packed[r, lo:hi], logits, atol=1e-5, rtol=0)
            assert float(per_token[r, lo:hi].sum()) == pytest.approx(loss, abs=1e-5)
            if lo > 0:  # without position ids, later examples see the earlier ones
                leaked += not torch.allclose(causal[r, lo:hi], logits, atol=1e-3)
            found, total, count = found + 1, total + loss, count + n
    assert found == len(seqs)
    assert leaked > 0
    assert count == ds.label_tokens == ds.target_count(0, 0, ds.num_rows)
    mean = F.cross_entropy(packed.double().flatten(0, 1), b.labels.flatten(), ignore_index=IGNORE)
    # the batch's token-mean loss is the token-weighted mean of the examples' own losses
    assert float(mean) == pytest.approx(total / count, abs=1e-7)
