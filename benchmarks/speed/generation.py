"""Generation throughput against `jupiter serve`, and the overhead of Jupiter's engine.

A small random-init Llama (the `small` preset, a BPE tokenizer trained here on the
standard library's docs) is served by `jupiter serve` on 127.0.0.1. The same chat requests
(each with its own seed, `max_tokens` fixed) are sent at concurrency 1, 4 and 16 by
- a bare `openai` client loop: `AsyncOpenAI` under an `asyncio.Semaphore`;
- Jupiter's engine: `HTTPBackend` + `Engine`, with a fresh store (every request misses the
  cache, so every answer is also written to SQLite, as in a real run).
The two alternate, `--repeats` times each; the medians are compared. Overhead is
(engine wall time / bare wall time) − 1; the goal is 5 % or less.

    python benchmarks/speed/generation.py [--requests 96] [--max-tokens 64] [--repeats 3]
        [--concurrency 1 4 16] [--preset small]
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from pydoc_data.topics import topics

from jupiter.config import LLMConfig
from jupiter.data.tokenizer import train_tokenizer
from jupiter.models.presets import ModelConfig, build_model
from jupiter.store import Store
from jupiter.synth.backend import Request, Sampling
from jupiter.synth.engine import Engine
from jupiter.synth.http import HTTPBackend


def build_small_model(out: Path, preset: str) -> Path:
    tok = train_tokenizer(list(topics.values()), 4096, out)
    config = ModelConfig.from_preset(
        preset, len(tok), 1024, tok.pad_token_id, tok.bos_token_id, tok.eos_token_id
    )
    build_model(config, seed=0).save_pretrained(out)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(model: Path, port: int, max_batch: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupiter.cli",
            "serve",
            "--model",
            str(model),
            "--port",
            str(port),
            "--max-batch",
            str(max_batch),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
            return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("jupiter serve did not start within 180 s")


def prompts(n: int) -> list[str]:
    keys = sorted(topics)
    return [
        f"Explain the Python topic '{keys[i * 7 % len(keys)]}' in a few sentences."
        for i in range(n)
    ]


async def bare_openai(
    base_url: str, model: str, qs: list[str], c: int, max_tokens: int, seed0: int
) -> tuple[float, int]:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="none", max_retries=5, timeout=600)
    sem = asyncio.Semaphore(c)
    tokens = 0

    async def one(i: int, q: str) -> None:
        nonlocal tokens
        async with sem:
            r = await client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": q}],
                max_tokens=max_tokens,
                temperature=0.7,
                top_p=1.0,
                seed=seed0 + i,
            )
            tokens += r.usage.completion_tokens if r.usage else 0

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i, q) for i, q in enumerate(qs)))
    wall = time.perf_counter() - t0
    await client.close()
    return wall, tokens


def jupiter_engine(
    base_url: str, qs: list[str], c: int, max_tokens: int, seed0: int, db: Path
) -> tuple[float, int]:
    backend = HTTPBackend(LLMConfig(base_url=base_url, concurrency=c, timeout=600))
    reqs = [
        Request(
            messages=({"role": "user", "content": q},),
            sampling=Sampling(max_tokens=max_tokens, temperature=0.7, top_p=1.0, seed=seed0 + i),
        )
        for i, q in enumerate(qs)
    ]
    engine = Engine(backend, Store(db), c)

    async def go() -> float:
        await backend.check()  # model discovery is not timed, as the bare loop knows it
        t0 = time.perf_counter()
        await engine.run(reqs, lambda i, out, why: None)
        wall = time.perf_counter() - t0
        await backend.close()
        return wall

    wall = asyncio.run(go())
    assert engine.stats.calls == len(qs) and engine.stats.cache_hits == 0
    return wall, engine.stats.completion_tokens


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=96)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--preset", default="small")
    ap.add_argument("--max-batch", type=int, default=16)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jupiter-genbench-"))
    model = build_small_model(tmp / "model", args.preset)
    port = free_port()
    server = start_server(model, port, args.max_batch)
    base = f"http://127.0.0.1:{port}/v1"
    qs = prompts(args.requests)
    try:
        asyncio.run(bare_openai(base, "model", qs[:4], 4, 8, 10**6))  # warm-up
        print(
            f"jupiter serve, {args.preset} preset, {args.requests} requests x "
            f"{args.max_tokens} tokens, max batch {args.max_batch}"
        )
        print(
            f"{'conc':>4} {'bare req/s':>10} {'bare tok/s':>10} {'engine req/s':>12} "
            f"{'engine tok/s':>12} {'overhead':>9}"
        )
        for c in args.concurrency:
            bare: list[float] = []
            eng: list[float] = []
            toks = [0, 0]
            for r in range(args.repeats):
                seed0 = 1000 * r
                # alternate which side goes first: the machine drifts between runs
                for side in ("bare", "engine") if r % 2 == 0 else ("engine", "bare"):
                    if side == "bare":
                        wall, toks[0] = asyncio.run(
                            bare_openai(base, "model", qs, c, args.max_tokens, seed0)
                        )
                        bare.append(wall)
                    else:
                        wall, toks[1] = jupiter_engine(
                            base, qs, c, args.max_tokens, seed0, tmp / f"c{c}-r{r}.sqlite"
                        )
                        eng.append(wall)
            b, e = statistics.median(bare), statistics.median(eng)
            print(
                f"{c:>4} {len(qs) / b:>10.2f} {toks[0] / b:>10.1f} {len(qs) / e:>12.2f} "
                f"{toks[1] / e:>12.1f} {100 * (e / b - 1):>8.1f}%"
            )
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
