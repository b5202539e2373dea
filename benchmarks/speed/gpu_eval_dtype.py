"""Does a Gemma 3 score the same in bf16 on this device as in fp32? A diagnostic for the eval
path (bits-per-byte over right-padded batches, greedy answers over left-padded batches,
multiple choice over a shared prompt) on a tiny random Gemma 3 shaped like the 270M one
(head_dim 256, one KV head, sliding and full attention layers), per dtype and attention
implementation, batched against one row at a time.

    python benchmarks/speed/gpu_eval_dtype.py [--device cuda] [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import torch


def tiny_gemma(out: Path) -> Path:
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    from tinyhf import tiny_base_tokenizer

    tok = tiny_base_tokenizer("gemma")
    torch.manual_seed(0)
    cfg = Gemma3TextConfig(
        vocab_size=len(tok),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=6,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=256,
        query_pre_attn_scalar=256,
        max_position_embeddings=512,
        sliding_window=16,
        tie_word_embeddings=True,
    )
    model = Gemma3ForCausalLM(cfg)
    for c in (model.config, model.generation_config):
        c.eos_token_id, c.bos_token_id, c.pad_token_id = (
            tok.eos_token_id,
            tok.bos_token_id,
            tok.pad_token_id,
        )
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    return out


TEXTS = [
    "The json module encodes and decodes JSON documents. " * (1 + i % 3) + f"Item {i} ends here."
    for i in range(8)
]
PROMPTS = [
    "What does json.dumps do?",
    "hi",
    "Explain deque with maxlen in two sentences please.",
    "x",
]


def check(model_dir: Path, device: str, dtype: str, attn: str) -> dict[str, object]:
    from jupiter.eval.bpb import bpb_figures
    from jupiter.synth.model import ModelGenerator

    gen = ModelGenerator(model_dir, "t", max_new_tokens=12, device=device, dtype=dtype)
    gen.model.config._attn_implementation = attn
    batched = bpb_figures(gen.model, gen.tokenizer, TEXTS, 64, 100_000, gen.device)["bpb"]
    alone = [bpb_figures(gen.model, gen.tokenizer, [t], 64, 100_000, gen.device) for t in TEXTS]
    bits = sum(a["bpb"] * a["bytes"] for a in alone) / sum(a["bytes"] for a in alone)
    answers = gen.answer(PROMPTS)
    ones = [gen.answer([p])[0] for p in PROMPTS]
    mc = gen.choice_logprobs(PROMPTS[2], ["a deque", "a list of lines", "itertools.islice", "zz"])
    return {
        "bpb batched": round(batched, 4),
        "bpb one by one": round(bits, 4),
        "answers batched == one by one": answers == ones,
        "finite": all(math.isfinite(v) for v in (batched, bits, *mc)),
        "mc": [round(v, 3) for v in mc],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = tiny_gemma(Path(tmp) / "gemma")
        rows = {}
        for dtype in ("float32", "bfloat16"):
            for attn in ("sdpa", "eager"):
                rows[(dtype, attn)] = got = check(d, a.device, dtype, attn)
                print(a.device, dtype, attn, got, flush=True)
        ref = rows[("float32", "eager")]["bpb batched"]
        for k, v in rows.items():
            print(k, "bpb vs fp32 eager:", f"{v['bpb batched'] / ref - 1:+.2%}")


if __name__ == "__main__":
    main()
