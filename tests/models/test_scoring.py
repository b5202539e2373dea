"""Log-likelihoods without the vocabulary-wide logits equal the ones from the logits."""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM

from jupiter.data.chat import IGNORE
from jupiter.models.scoring import target_nll


def test_target_nll_equals_logits_path(tiny_model_dirs: dict[str, Path]) -> None:
    for family in ("llama", "qwen2"):
        model = AutoModelForCausalLM.from_pretrained(tiny_model_dirs[family]).eval()
        torch.manual_seed(0)
        vocab = model.config.vocab_size
        ids = torch.randint(3, vocab, (3, 12))
        mask = torch.ones_like(ids)
        mask[2, 9:] = 0  # right padding
        targets = torch.randint(3, vocab, (3, 12))
        targets[0, :4] = IGNORE
        targets[2, 9:] = IGNORE
        got = target_nll(model, ids, mask, targets)
        with torch.no_grad():
            logits = model(input_ids=ids, attention_mask=mask).logits
        want = (
            F.cross_entropy(
                logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE, reduction="none"
            )
            .reshape(3, 12)
            .sum(dim=1)
        )
        assert got.shape == (3,)
        # fp32 both ways: the summed nats of each row agree to 1e-5 relative
        assert torch.allclose(got, want, rtol=1e-5, atol=1e-4), (family, got, want)
