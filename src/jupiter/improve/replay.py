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
    key = json.dumps([str(model_dir), rcfg.samples, rcfg.max_tokens, rcfg.temperature,
                      rcfg.top_p, ws.cfg.train.seed])  # fmt: skip
    cache = ws.root / "replay" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsonl"
    if cache.is_file():
        return [json.loads(line)["text"] for line in cache.read_text().splitlines() if line]
    with ws.console.status(f"sampling {rcfg.samples} replay texts from the base…"):
        texts = sample_base(model_dir, rcfg.samples, rcfg.max_tokens, rcfg.temperature,
                            rcfg.top_p, ws.cfg.train.seed)  # fmt: skip
    cache.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(cache, "".join(json.dumps({"text": t}) + "\n" for t in texts))
    return texts


def sample_base(model_dir: Path, n: int, max_tokens: int, temperature: float, top_p: float,
                seed: int) -> list[str]:  # fmt: skip
    """`n` texts the model writes from bos alone (each row seeded: seed + its index);
    the empty ones (eos at once) left out."""
    from jupiter.models.decode import LocalLM, cpu_runs_bf16
    from jupiter.models.memory import release_heap
    from jupiter.synth.backend import Sampling

    lm = LocalLM(model_dir, dtype="bfloat16" if cpu_runs_bf16() else "auto")
    bos = lm.tokenizer.bos_token_id
    prompt = [bos] if bos is not None else lm.prompt_ids("\n")
    params = [Sampling(max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                       seed=seed + i) for i in range(n)]  # fmt: skip
    out = [o.text.strip() for o in lm.generate([list(prompt) for _ in range(n)], params)]
    del lm
    release_heap()
    return [t for t in out if t]


def replay_sequences(tokenizer: Any, texts: list[str], fraction: float, other_tokens: int,
                     seed: int) -> list[tuple[list[int], list[int]]]:  # fmt: skip
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
