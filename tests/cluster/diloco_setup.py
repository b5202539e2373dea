"""Shared pieces of the cluster tests: a tiny-preset run, a two-island cluster.yaml, and
process control for islands and the coordinator (real processes, all on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transformers import AutoTokenizer

from jupiter.cluster import protocol as P
from jupiter.cluster.heartbeat import alive
from jupiter.cluster.launch import (
    ClusterRun,
    coordinator_command,
    descendants,
    kill_tree,
    launch_commands,
    upload_spec,
)
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import ClusterConfig, TrainConfig
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.tokenizer import train_tokenizer
from jupiter.models.presets import ModelConfig
from jupiter.train.loop import TrainRun
from tinyhf import CORPUS

TEXTS = [f"{t} ({i})" for i, t in enumerate(CORPUS * 6)]


def make_tokenizer(out: Path) -> Path:
    train_tokenizer(TEXTS, 400, out)
    return out


def tiny_run(tok_dir: Path, out: Path, **cfg: Any) -> TrainRun:
    """The tiny preset on a small corpus; a held-out slice for the validation loss."""
    tok = AutoTokenizer.from_pretrained(tok_dir)
    seqs = encode_examples(tok, [], TEXTS, raw_text_fraction=1.0, seed=0)
    held = encode_examples(tok, [], TEXTS[::7], raw_text_fraction=1.0, seed=1)
    data = PackedDataset(seqs, context_length=32, pad_id=tok.pad_token_id, seed=0)
    heldout = PackedDataset(held, context_length=32, pad_id=tok.pad_token_id, seed=0)
    config = TrainConfig(
        **{
            "micro_batch_size": 4,
            "lr": 3e-3,
            "min_lr": 3e-4,
            "warmup_steps": 2,
            "checkpoint_every": 1000,
            "eval_every": 1000,
            "precision": "fp32",
            "metrics": [],
            **cfg,
        }
    )
    model_config = ModelConfig.from_preset(
        "tiny", len(tok), 32, tok.pad_token_id, tok.bos_token_id, tok.eos_token_id
    )
    return TrainRun(
        data, config, out, tok_dir, model_config=model_config, heldout=heldout, progress=False
    )


def cluster(store: Path, islands: dict[str, tuple[str, int]], **sync: Any) -> ClusterConfig:
    """islands: name -> (engine, processes), every one on localhost."""
    nodes = [
        {
            "host": "localhost",
            "name": f"{name}-node",
            "device_type": "cpu",
            "backend": engine,
            "processes": procs,
            "island": name,
            "memory_gb": 8,
        }
        for name, (engine, procs) in islands.items()
    ]
    settings = {"store": str(store), "heartbeat_s": 2, "round_timeout_s": 300, **sync}
    return ClusterConfig.model_validate({"nodes": nodes, "sync": settings})


class Processes:
    """The coordinator and each island as its own process group, to kill and restart."""

    def __init__(self, cr: ClusterRun, logs: Path) -> None:
        self.cr, self.logs = cr, logs
        self.store = SyncStore(cr.store_url)
        upload_spec(cr, self.store)
        self.cmds = launch_commands(cr.cluster, cr.store_url, cr.workdir)
        self.procs: dict[str, list[subprocess.Popen[bytes]]] = {}
        logs.mkdir(parents=True, exist_ok=True)

    def start(self, name: str) -> None:
        cmds = (
            [(coordinator_command(self.cr.store_url, self.cr.workdir), dict(os.environ))]
            if name == "coordinator"
            else self.cmds[name]
        )
        out = (self.logs / f"{name}.log").open("ab")
        self.procs[name] = [
            subprocess.Popen(
                c, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
            for c, env in cmds
        ]

    def kill(self, name: str) -> None:
        """kill -9 of the island's processes, all of them (torchrun's workers too)."""
        for p in self.procs.pop(name):
            tree = [p.pid, *descendants(p.pid)]
            for pid in tree:
                os.kill(pid, signal.SIGKILL)
            p.wait()
            until(lambda t=tree: not any(alive(x) for x in t), 10, f"{name} to die", self)

    def wait(self, name: str, timeout: float) -> list[int]:
        return [p.wait(timeout=timeout) for p in self.procs[name]]

    def stop_all(self) -> None:
        for name in list(self.procs):
            for p in self.procs[name]:
                kill_tree(p.pid, signal.SIGKILL)
                p.wait()

    def latest(self) -> dict[str, Any]:
        return (
            self.store.get_json(P.LATEST)
            if self.store.exists(P.LATEST)
            else {"round": -1, "done": False}
        )

    def log_tail(self) -> str:
        logs = "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )
        return f"{logs}\n--- state\n{self.state()}"

    def state(self) -> str:
        """Each process's exit code (None: running), each heartbeat's age, the latest round's
        contributions: what a timed-out wait needs to be read."""
        now = time.time()
        out = [f"{n}: {[p.poll() for p in ps]}" for n, ps in self.procs.items()]
        for key in self.store.list("heartbeat/"):
            beat = self.store.get_json(key)
            out.append(f"{key}: {now - float(beat['time']):.1f} s old, {beat}")
        latest = self.latest()["round"]
        out.append(
            f"round {latest} contributions: {self.store.list(f'rounds/round-{latest:06d}/')}"
        )
        return "\n".join(out)


def until(cond: Callable[[], bool], timeout: float, what: str, procs: Processes) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n{procs.log_tail()}")


def report(workdir: Path) -> list[dict[str, Any]]:
    from jupiter.cluster.launch import read_report

    return read_report(workdir)


def raw_rows(workdir: Path) -> list[dict[str, Any]]:
    path = workdir / "cluster_report.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.is_file() else []
