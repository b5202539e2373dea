"""A faulty or malicious island, as its own process: it follows the sync protocol but
publishes, every round, the global weights scaled by 1e6 (mode scale) or NaNs (mode nan)
in place of an honest pseudo-gradient.

usage: python bad_island.py STORE ISLAND MODE WORKDIR
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode, encode
from jupiter.cluster.heartbeat import Heartbeat
from jupiter.cluster.island import wait_round
from jupiter.cluster.syncstore import SyncStore


def main(url: str, island: str, mode: str, workdir: str) -> None:
    store = SyncStore(url)
    beat = Heartbeat(url, island, 1.0, Path(workdir) / "heartbeat.json")
    last = -1
    while True:
        rnd, done, _ = wait_round(store, last)
        if done:
            break
        weights, meta = decode(store.get(P.global_key(rnd)))
        if mode == "scale":  # "local" weights = global x 1e6
            bad = {n: w.float() - 1e6 * w.float() for n, w in weights.items()}
        else:
            bad = {n: torch.full_like(w.float(), float("nan")) for n, w in weights.items()}
        info = {
            "island": island,
            "round": rnd,
            "steps": 4,
            "tokens": 512,
            "train_s": 1.0,
            "tokens_per_s": 512.0,
            "loss": 1.0,
            "wait_s": 0.0,
            "digest": meta["digest"],
            "global_digest": meta["digest"],
            "step": 4 * (rnd + 1),
        }
        store.put(P.contribution_key(rnd, island), encode(bad, "bf16", {"info": json.dumps(info)}))
        last = rnd
        time.sleep(0.1)
    beat.close()


if __name__ == "__main__":
    main(*sys.argv[1:5])
