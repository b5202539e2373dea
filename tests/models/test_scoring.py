"""Log-likelihoods without the vocabulary-wide logits equal the ones from the logits."""

from __future__ import annotations

from pathlib import Path

import pytest
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


def _whole_rows_nll(model: torch.nn.Module, prompt: list[int], conts: list[list[int]]) -> list:
    """Each prompt + continuation run whole, one row at a time: the reference."""
    out = []
    for cont in conts:
        ids = torch.tensor([prompt + cont])
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
        out.append(-sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(cont)))
    return out


def test_shared_prefix_nll_equals_whole_rows(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from jupiter.models.scoring import shared_prefix_nll
    from tinyhf import save_tiny_base

    gemma = save_tiny_base("gemma", tmp_path / "gemma")  # sliding window 64
    for path in (tiny_model_dirs["llama"], tiny_model_dirs["qwen2"], gemma):
        model = AutoModelForCausalLM.from_pretrained(path).eval()
        vocab = model.config.vocab_size
        torch.manual_seed(1)
        # a short prompt, and one longer than Gemma's sliding window
        for length in (4, 150):
            prompt = torch.randint(3, vocab, (length,)).tolist()
            conts = [torch.randint(3, vocab, (n,)).tolist() for n in (5, 1, 9, 5)]
            got = shared_prefix_nll(model, prompt, conts, pad_id=0)
            assert got is not None and got.shape == (4,)
            want = _whole_rows_nll(model, prompt, conts)
            # fp32 both ways: the summed nats agree to 1e-4 relative
            assert got.tolist() == pytest.approx(want, rel=1e-4, abs=1e-4), (path.name, length)
    assert shared_prefix_nll(model, [5], [[6, 7]], pad_id=0) is None  # nothing to share


def test_position_nll_is_the_fused_loss_kept_per_position() -> None:
    from jupiter.models.loss import fused_linear_ce, position_nll

    torch.manual_seed(3)
    hidden, weight = torch.randn(37, 16), torch.randn(300, 16)
    labels = torch.randint(0, 300, (37,))
    for cap in (None, 5.0):
        for dtype in (torch.float32, torch.bfloat16):
            got = position_nll(hidden, weight, labels, cap, dtype)
            want = fused_linear_ce(hidden, weight, labels, cap, compute_dtype=dtype)
            assert got.shape == (37,) and got.dtype == torch.float32
            assert float(got.sum()) == pytest.approx(float(want), rel=1e-5), (cap, dtype)
            one = position_nll(hidden[5:6], weight, labels[5:6], cap, dtype)
            assert float(one[0]) == pytest.approx(float(got[5]), rel=1e-5, abs=1e-5)
    logits = hidden @ weight.t()
    ref = F.cross_entropy(logits, labels, reduction="none")
    assert torch.allclose(position_nll(hidden, weight, labels), ref, rtol=1e-5, atol=1e-5)
