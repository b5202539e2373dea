"""`jupiter merge` against mergekit on the same merges of larger random Llama models: wall
time and peak memory of each, their ratio, and the largest difference between the outputs.

The models (seeded): a random Llama base (hidden 1024, 12 layers, vocab 32,000, untied head:
about 220 M parameters, 0.88 GB in fp32) and fine-tunes = base + 0.002 N(0, 1), written as
HF dirs (config.json + one model.safetensors). Every merge runs in its own interpreter
with torch on one thread, the inputs read once beforehand so both sides find them in the
page cache, and the order of the sides alternates between repeats.

Each side's figures: the merge's wall time (imports excluded: mergekit's take ~5 s, Jupiter's
~3 s); its peak RSS (VmHWM, reset after the imports through /proc/self/clear_refs), and the
growth of that peak over the RSS after imports. Memory-mapped input pages count in RSS, so a
reader that maps whole files shows them there.

    python benchmarks/speed/merge_speed.py [--quick] [--methods linear,ties,slerp] [--repeats 2]
        [--breakdown]
        [--hidden 1024 --layers 12 --vocab 32000 --inter 2816] [--models 3] [--dir DIR]
"""

from __future__ import annotations

import os

os.environ["OMP_NUM_THREADS"] = "1"  # one thread per side: the figures are single-core
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import json
import math
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIDE = r"""
import json, os, sys, time
side, method, work, out = sys.argv[1:5]
spec = json.loads(sys.argv[5])

def status_mb(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

import torch
torch.set_num_threads(1)
if side.startswith("jupiter"):
    from pathlib import Path
    from jupiter.merge import engine
    from jupiter.merge.engine import merge_models
    from jupiter.merge.recipe import parse_recipe
    import jupiter.models.reference, jupiter.train.checkpoint
    if side == "jupiter-nohash":  # what the inputs' SHA-256 costs (a second thread)
        engine._input_hashes = lambda recipe, inputs: {"inputs": [], "base": None}
else:
    from mergekit.config import MergeConfiguration
    from mergekit.merge import run_merge
    from mergekit.options import MergeOptions
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status_mb("VmRSS:")
t0 = time.perf_counter()
if side.startswith("jupiter"):
    merge_models(parse_recipe({**spec["jupiter"], "out": out}), base_dir=None,
                 cache_dir=Path(work) / "cache")
else:
    opts = MergeOptions(quiet=True, copy_tokenizer=False, write_model_card=False,
                        device="cpu")
    run_merge(MergeConfiguration.model_validate(spec["mergekit"]), out, opts)
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "before_mb": before, "peak_mb": status_mb("VmHWM:")}))
"""


def make_models(root: Path, args: argparse.Namespace) -> dict[str, Path]:
    """The base and args.models fine-tunes, written tensor by tensor."""
    import torch
    from safetensors.torch import save_file
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(
        vocab_size=args.vocab,
        hidden_size=args.hidden,
        intermediate_size=args.inter,
        num_hidden_layers=args.layers,
        num_attention_heads=args.hidden // 64,
        num_key_value_heads=args.hidden // 64,
        tie_word_embeddings=False,
        architectures=["LlamaForCausalLM"],
    )
    with torch.device("meta"):
        shapes = {k: tuple(v.shape) for k, v in LlamaForCausalLM(cfg).state_dict().items()}
    gen = torch.Generator().manual_seed(0)
    base = {
        k: (torch.ones(s) if len(s) == 1 else 0.02 * torch.randn(s, generator=gen))
        for k, s in shapes.items()
    }
    dirs = {}
    for i in range(args.models + 1):
        name = "base" if i == 0 else f"ft{i}"
        d = root / name
        d.mkdir(parents=True, exist_ok=True)
        cfg.save_pretrained(d)
        tensors = (
            base
            if i == 0
            else {k: v + 0.002 * torch.randn(v.shape, generator=gen) for k, v in base.items()}
        )
        save_file(tensors, str(d / "model.safetensors"), metadata={"format": "pt"})
        dirs[name] = d
    params = sum(math.prod(s) for s in shapes.values())
    print(
        f"models: {args.models + 1} x {params / 1e6:.0f} M parameters "
        f"({params * 4 / 1e9:.2f} GB fp32 each) in {root}",
        flush=True,
    )
    return dirs


def specs(method: str, dirs: dict[str, Path]) -> dict[str, Any]:
    """The same merge as a Jupiter recipe and a mergekit config."""
    fts = [str(d) for k, d in dirs.items() if k != "base"]
    base = str(dirs["base"])
    if method == "linear":
        w = [1.0] * len(fts)
        return {
            "jupiter": {"method": "linear", "models": [{"model": m} for m in fts]},
            "mergekit": {
                "merge_method": "linear",
                "dtype": "float32",
                "models": [
                    {"model": m, "parameters": {"weight": x}} for m, x in zip(fts, w, strict=True)
                ],
            },
        }
    if method == "ties":
        return {
            "jupiter": {
                "method": "ties",
                "base": base,
                "params": {"density": 0.5},
                "models": [{"model": m, "weight": 1.0} for m in fts],
            },
            "mergekit": {
                "merge_method": "ties",
                "base_model": base,
                "dtype": "float32",
                "models": [
                    {"model": m, "parameters": {"weight": 1.0, "density": 0.5}} for m in fts
                ],
            },
        }
    if method == "slerp":
        a, b = fts[:2]
        return {
            "jupiter": {
                "method": "slerp",
                "params": {"t": 0.3},
                "models": [{"model": a}, {"model": b}],
            },
            "mergekit": {
                "merge_method": "slerp",
                "base_model": a,
                "dtype": "float32",
                "models": [{"model": a}, {"model": b}],
                "parameters": {"t": 0.3},
            },
        }
    raise SystemExit(f"unknown method {method}")


def run_side(side: str, method: str, spec: dict[str, Any], work: Path) -> dict[str, float]:
    out = work / f"out-{side}-{method}"
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run(
        [sys.executable, "-c", SIDE, side, method, str(work), str(out), json.dumps(spec)],
        capture_output=True,
        text=True,
    )
    if r.returncode:
        raise SystemExit(f"{side} {method} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def max_abs_diff(a: Path, b: Path) -> float:
    """Over every tensor of the two outputs, read one tensor at a time."""
    import torch

    from jupiter.merge.shards import ModelWeights

    wa, wb = ModelWeights(a), ModelWeights(b)
    assert set(wa.names()) == set(wb.names())
    worst = 0.0
    for n in wa.names():
        worst = max(worst, float((wa.read(n).to(torch.float32) - wb.read(n)).abs().max()))
    return worst


def warm(dirs: dict[str, Path]) -> None:
    for d in dirs.values():
        with (d / "model.safetensors").open("rb") as f:
            while f.read(1 << 24):
                pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="hidden 256, 4 layers, vocab 8000")
    ap.add_argument("--methods", default="linear,ties,slerp")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--inter", type=int, default=2816)
    ap.add_argument("--models", type=int, default=3, help="fine-tunes besides the base")
    ap.add_argument("--dir", type=Path, default=None, help="work dir (default: a temp dir)")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also Jupiter without hashing its inputs (merge.json's SHA-256)",
    )
    args = ap.parse_args()
    if args.quick:
        args.hidden, args.layers, args.vocab, args.inter = 256, 4, 8000, 704
    work = args.dir or Path(tempfile.mkdtemp(prefix="merge-speed-"))
    load0 = os.getloadavg()[0]
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; 1-minute load {load0:.2f}",
        flush=True,
    )
    try:
        dirs = make_models(work / "models", args)
        warm(dirs)
        rows = []
        for method in args.methods.split(","):
            spec = specs(method, dirs)
            sides = ["jupiter", "mergekit"] + (["jupiter-nohash"] if args.breakdown else [])
            got: dict[str, list[dict[str, float]]] = {s: [] for s in sides}
            for rep in range(args.repeats):
                for side in sides if rep % 2 == 0 else sides[::-1]:
                    got[side].append(run_side(side, method, spec, work))
                    r = got[side][-1]
                    print(
                        f"  {method} {side}: {r['seconds']:.2f} s, peak {r['peak_mb']:.0f} "
                        f"MiB (+{r['peak_mb'] - r['before_mb']:.0f})",
                        flush=True,
                    )
            diff = max_abs_diff(work / f"out-jupiter-{method}", work / f"out-mergekit-{method}")
            rows.append((method, got, diff))
        print(f"\n1-minute load: {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
        extra = " Jupiter s, inputs not hashed |" if args.breakdown else ""
        print(
            "| merge | Jupiter s | mergekit s | time ratio J/mk | Jupiter peak MiB (growth) "
            f"| mergekit peak MiB (growth) | max abs diff |{extra}"
        )
        print("|---|---|---|---|---|---|---|" + ("---|" if args.breakdown else ""))
        for method, got, diff in rows:
            j, m = (min(x["seconds"] for x in got[s]) for s in ("jupiter", "mergekit"))
            jp, mp = (max(got[s], key=lambda x: x["peak_mb"]) for s in ("jupiter", "mergekit"))
            nohash = min((x["seconds"] for x in got.get("jupiter-nohash", [])), default=None)
            tail = f" {nohash:.2f} |" if nohash is not None else ""
            print(
                f"| {method} | {j:.2f} | {m:.2f} | {j / m:.2f}x | {jp['peak_mb']:.0f} "
                f"(+{jp['peak_mb'] - jp['before_mb']:.0f}) | {mp['peak_mb']:.0f} "
                f"(+{mp['peak_mb'] - mp['before_mb']:.0f}) | {diff:.1e} |{tail}"
            )
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - t0:.0f} s")
