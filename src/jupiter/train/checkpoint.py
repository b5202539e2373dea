"""Training checkpoints: run_dir/step-NNNNNN/ written whole or not at all.

Layout of one checkpoint:
    model/            HF model dir (config.json, model.safetensors), or the PEFT adapter
                      (adapter_config.json, adapter_model.safetensors), + tokenizer files
    optimizer.pt      full optimizer state keyed by parameter name (torch.distributed's
                      state-dict API, so DDP, FSDP2 and one process read the same file)
    scheduler.json    the learning-rate schedule and its position
    rng.pt            torch / numpy / python RNG states of every rank
    state.json        step, data position, losses so far, config hash, ...
    checksums.json    SHA-256 of every other file

Everything is written to a temp dir and renamed into place (models/folder.py, which also
writes and verifies the checksums), so a crash leaves either the old set of checkpoints or
the new one. Weights go through safetensors, and the .pt files
load with torch.load(weights_only=True): nothing on disk can run code when read.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from jupiter.errors import JupiterError
from jupiter.models.folder import (
    removed_on_failure,
    replace_dir,
    verify_checksums,
    write_checksums,
    write_hf_dir,
)

log = logging.getLogger(__name__)

STEP_DIR = re.compile(r"^step-(\d{6,})$")


def step_dir_name(step: int) -> str:
    return f"step-{step:06d}"


# ------------------------------------------------------------------------------- RNG
def rng_state() -> dict[str, Any]:
    """All RNG states as tensors and plain numbers, loadable with weights_only=True."""
    version, mt, gauss = random.getstate()
    np_kind, np_keys, np_pos, np_has_gauss, np_gauss = np.random.get_state(legacy=True)
    state: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "python": torch.tensor(mt, dtype=torch.int64),
        "python_version": version,
        "python_gauss": gauss,
        "numpy": torch.from_numpy(np.asarray(np_keys, dtype=np.int64)),
        "numpy_kind": np_kind,
        "numpy_pos": int(np_pos),
        "numpy_has_gauss": int(np_has_gauss),
        "numpy_gauss": float(np_gauss),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    mt = tuple(int(x) for x in state["python"].tolist())
    random.setstate((state["python_version"], mt, state["python_gauss"]))
    keys = state["numpy"].numpy().astype(np.uint32)
    np.random.set_state(
        (
            state["numpy_kind"],
            keys,
            state["numpy_pos"],
            state["numpy_has_gauss"],
            state["numpy_gauss"],
        )
    )
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


# ------------------------------------------------------------------------ save / load
def save_checkpoint(
    run_dir: Path,
    step: int,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase | None,
    optimizer_state: dict[str, Any],
    state: dict[str, Any],
    *,
    rng_states: list[dict[str, Any]] | None = None,
    model_state: dict[str, torch.Tensor] | None = None,
    scheduler: dict[str, Any] | None = None,
    keep: int | None = None,
    best: Path | None = None,
) -> Path:
    """Write run_dir/step-NNNNNN/ atomically; then keep the newest `keep` plus `best`.

    `rng_states` holds one entry per rank (default: this process's); `model_state` is a
    gathered full state dict for a sharded model (default: the model's own weights).
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    final = run_dir / step_dir_name(step)
    tmp = run_dir / f".tmp-{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    with removed_on_failure(tmp):
        tmp.mkdir()
        write_hf_dir(tmp / "model", model, tokenizer, model_state)
        torch.save(optimizer_state, tmp / "optimizer.pt")
        torch.save({"ranks": rng_states or [rng_state()]}, tmp / "rng.pt")
        if scheduler is not None:
            (tmp / "scheduler.json").write_text(json.dumps(scheduler, indent=1), encoding="utf-8")
        text = json.dumps({**state, "step": step}, indent=1)
        (tmp / "state.json").write_text(text, encoding="utf-8")
        write_checksums(tmp)
    replace_dir(tmp, final)
    if keep is not None:
        prune_checkpoints(run_dir, keep, protect={final} | ({best} if best else set()))
    return final


def finished_checkpoint(run_dir: Path) -> Path | None:
    """The newest valid checkpoint of run_dir when it holds the run's last step (state.json
    step == max_steps): its model/ is the final model, bit for bit."""
    ckpt = latest_checkpoint(run_dir)
    if ckpt is None:
        return None
    state = json.loads((ckpt / "state.json").read_text(encoding="utf-8"))
    return ckpt if state.get("max_steps") and state.get("step") == state["max_steps"] else None


def list_checkpoints(run_dir: Path) -> list[Path]:
    """step-* dirs in run_dir, oldest first (temp and half-renamed dirs are not listed)."""
    if not run_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in run_dir.iterdir() if (m := STEP_DIR.match(p.name))]
    return [p for _, p in sorted(found)]


def prune_checkpoints(
    run_dir: Path, keep: int, protect: set[Path] | frozenset[Path] = frozenset()
) -> list[Path]:
    """Delete all but the newest `keep` (at least 1) checkpoints; returns what was deleted.

    `protect` (the one just written, the best one) survives even when newer-numbered,
    corrupt leftovers of an earlier attempt outrank it.
    """
    old = [p for p in list_checkpoints(run_dir)[: -max(1, keep)] if p not in protect]
    for p in old:
        shutil.rmtree(p, ignore_errors=True)
    return old


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest checkpoint whose checksums verify; corrupt ones are skipped with a warning."""
    for path in reversed(list_checkpoints(run_dir)):
        problem = verify_checksums(path)
        if problem is None:
            return path
        msg = f"skipping corrupt checkpoint {path}: {problem}"
        log.warning(msg)
        warnings.warn(msg, stacklevel=2)
    return None


def read_checkpoint(path: Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(state.json, optimizer state, per-rank RNG states) of a verified checkpoint."""
    problem = verify_checksums(path)
    if problem is not None:
        raise JupiterError(
            f"checkpoint {path} is corrupt ({problem}): delete it to resume from an older one"
        )
    state: dict[str, Any] = json.loads((path / "state.json").read_text(encoding="utf-8"))
    if state.get("backend", "torch") != "torch":
        raise JupiterError(
            f"checkpoint {path} was written by the {state['backend']} backend: resume it there, "
            "or start PyTorch from its weights (model/) in a new run folder"
        )
    from jupiter.train.dist import deepspeed_safe_globals

    with torch.serialization.safe_globals(deepspeed_safe_globals()):
        optim: dict[str, Any] = torch.load(path / "optimizer.pt", weights_only=True)
    rngs: list[dict[str, Any]] = torch.load(path / "rng.pt", weights_only=True)["ranks"]
    return state, optim, rngs


def load_checkpoint(
    path: Path, model: torch.nn.Module, optimizer: torch.optim.Optimizer | None
) -> dict[str, Any]:
    """Restore weights, optimizer and rank 0's RNG from a checkpoint (one process, no
    sharding) and return its state.json."""
    from torch.distributed.checkpoint.state_dict import set_optimizer_state_dict

    from jupiter.models.loading import load_model_weights

    state, optim, rngs = read_checkpoint(path)
    load_model_weights(path / "model", model)
    if optimizer is not None:
        set_optimizer_state_dict(model, optimizer, optim)
    set_rng_state(rngs[0])
    return state
