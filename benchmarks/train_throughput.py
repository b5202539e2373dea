"""Training throughput: Jupiter's loop against a plain Hugging Face training loop.

Both train the same Llama preset on the same packed batches for the same number of steps
in this one process. The peer is what a user writes by hand: fp32, eager,
`model(input_ids, labels=...)`, AdamW. Jupiter's loop adds bf16 autocast where the
hardware has it (precision: auto) and its own loss over already-shifted labels.

    python benchmarks/train_throughput.py [--preset tiny] [--steps 30] [--batch 16] [--ctx 256]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from pydoc_data.topics import topics

import torch

from jupiter.config import TrainConfig
from jupiter.data.chat import encode_text
from jupiter.data.dataset import PackedDataset
from jupiter.data.tokenizer import train_tokenizer
from jupiter.models.presets import ModelConfig, build_model
from jupiter.train.loop import TrainRun, run_steps, start


def peer_tokens_per_s(model_config, data: PackedDataset, steps: int, batch: int) -> float:
    model = build_model(model_config, 0).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times = []
    for i in range(steps):
        x, _ = data.batch(0, i, batch)
        t0 = time.perf_counter()
        loss = model(input_ids=x, labels=x).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - t0)
    return x.numel() / statistics.median(times[3:])


def jupiter_tokens_per_s(run: TrainRun, steps: int) -> float:
    state = start(run)
    times: list[float] = []
    for _ in range(steps):
        t0 = time.perf_counter()
        run_steps(run, state, 1)
        times.append(time.perf_counter() - t0)
    return run.config.micro_batch_size * run.dataset.context_length / statistics.median(times[3:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="tiny")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--ctx", type=int, default=256)
    ap.add_argument("--vocab", type=int, default=4096)
    args = ap.parse_args()
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        tok = train_tokenizer(list(topics.values()), args.vocab, Path(tmp) / "tok")
        data = PackedDataset([encode_text(tok, t) for t in topics.values()], args.ctx,
                             tok.pad_token_id, 0)  # fmt: skip
        mc = ModelConfig.from_preset(args.preset, len(tok), args.ctx, tok.pad_token_id,
                                     tok.bos_token_id, tok.eos_token_id)  # fmt: skip
        peer = peer_tokens_per_s(mc, data, args.steps, args.batch)
        rows = [("peer: HF fp32 eager loop", peer)]
        for precision in ("fp32", "auto"):
            cfg = TrainConfig(max_steps=10**6, micro_batch_size=args.batch, precision=precision,
                              warmup_steps=1)  # fmt: skip
            run = TrainRun(dataset=data, config=cfg, out_dir=Path(tmp) / precision,
                           tokenizer_dir=Path(tmp) / "tok", model_config=mc, progress=False)  # fmt: skip
            rows.append(
                (f"jupiter loop, precision={precision}", jupiter_tokens_per_s(run, args.steps))
            )
    print(f"preset {args.preset}, batch {args.batch} x ctx {args.ctx}, {args.steps} steps, "
          f"torch {torch.__version__}, cpu {torch.backends.cpu.get_cpu_capability()}")  # fmt: skip
    for name, tps in rows:
        print(f"{name:40s} {tps:10,.0f} tokens/s   ratio vs peer {tps / peer:5.2f}x")


if __name__ == "__main__":
    main()
