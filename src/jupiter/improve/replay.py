"""Replay against forgetting (train.replay): text the base model writes itself, sampled once
per base and mixed into every training run at a set share of the tokens.

Training on the base's own samples is a Monte-Carlo form of a KL term to the base on
general text (self-synthesized rehearsal, Huang et al. 2024): the student keeps the
distribution it started from wherever the domain data do not pull it away. The samples are
unconditioned (from bos), so no eval text, general or domain, ever enters training.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from jupiter import atomic
from jupiter.improve.workspace import Workspace


def replay_texts(ws: Workspace, model_dir: Path) -> list[str]:
    """The base's samples for train.replay, from the workspace's cache or sampled now."""
    rcfg = ws.cfg.train.replay
    if not rcfg.fraction:
        return []
    key = json.dumps(
        [
            str(model_dir),
            rcfg.samples,
            rcfg.max_tokens,
            rcfg.temperature,
            rcfg.top_p,
            ws.cfg.train.seed,
        ]
    )
    cache = ws.root / "replay" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsonl"
    if cache.is_file():
        return [json.loads(line)["text"] for line in cache.read_text().splitlines() if line]
    with ws.console.status(f"sampling {rcfg.samples} replay texts from the base…"):
        texts = sample_base(
            model_dir,
            rcfg.samples,
            rcfg.max_tokens,
            rcfg.temperature,
            rcfg.top_p,
            ws.cfg.train.seed,
        )
    cache.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(cache, "".join(json.dumps({"text": t}) + "\n" for t in texts))
    return texts


def sample_base(
    model_dir: Path,
    n: int,
    max_tokens: int,
    temperature: float,
    top_p: float,
    seed: int,
    batch_size: int = 16,
) -> list[str]:
    """`n` texts the model writes from bos alone (seeded per batch: seed + its index), in
    batches through transformers' generate (bf16 where the CPU runs it natively); the empty
    ones (eos at once) left out."""
    import torch

    from jupiter.models.decode import torch_dtype
    from jupiter.models.loading import load_for_inference
    from jupiter.models.memory import release_heap

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model, tok = load_for_inference(
        model_dir, device=device, dtype=torch_dtype("auto", device, cpu_bf16=True)
    )
    start = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
    out: list[str] = []
    for k, i in enumerate(range(0, n, batch_size)):
        rows = min(batch_size, n - i)
        torch.manual_seed(seed + k)
        with torch.inference_mode():
            got = model.generate(  # type: ignore[operator]
                input_ids=torch.full((rows, 1), start, dtype=torch.long, device=device),
                attention_mask=torch.ones((rows, 1), dtype=torch.long, device=device),
                do_sample=True,
                temperature=temperature,
                top_p=top_p,
                top_k=0,
                max_new_tokens=max_tokens,
                pad_token_id=tok.pad_token_id or start,
            )
        out += [str(t).strip() for t in tok.batch_decode(got[:, 1:], skip_special_tokens=True)]
    del model
    release_heap()
    return [t for t in out if t]


def replay_sequences(
    tokenizer: Any, texts: list[str], fraction: float, other_tokens: int, seed: int
) -> list[tuple[list[int], list[int]]]:
    """Encoded replay texts making up `fraction` of the tokens once added to `other_tokens`
    (cycled through in a seeded order when the samples are fewer; the last one cut)."""
    from jupiter.data.chat import encode_text

    if not texts or fraction <= 0:
        return []
    budget = int(other_tokens * fraction / (1.0 - fraction))
    encoded = [encode_text(tokenizer, t) for t in texts]
    order = list(range(len(encoded)))
    random.Random(seed).shuffle(order)
    out: list[tuple[list[int], list[int]]] = []
    used, k = 0, 0
    while used < budget and order:
        ids, labels = encoded[order[k % len(order)]]
        keep = min(len(ids), budget - used)
        if keep < 2:
            break
        out.append((ids[:keep], labels[:keep]))
        used, k = used + keep, k + 1
    return out
