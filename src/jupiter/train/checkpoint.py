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

Everything is written to a temp dir and renamed into place, so a crash leaves either the
old set of checkpoints or the new one. Weights go through safetensors, and the .pt files
load with torch.load(weights_only=True): nothing on disk can run code when read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file
from transformers import PreTrainedModel, PreTrainedTokenizerBase
from transformers.utils import logging as hf_logging

from jupiter.data.templates import write_stop_tokens
from jupiter.errors import JupiterError, disk_problem
from jupiter.procs import pid_alive

log = logging.getLogger(__name__)

STEP_DIR = re.compile(r"^step-(\d{6,})$")
CHECKSUMS = "checksums.json"


def step_dir_name(step: int) -> str:
    return f"step-{step:06d}"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_checksums(root: Path) -> None:
    """Write root/checksums.json: SHA-256 of every file under root (relative posix paths)."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != CHECKSUMS)
    sums = {p.relative_to(root).as_posix(): sha256_file(p) for p in files}
    (root / CHECKSUMS).write_text(json.dumps(sums, indent=1, sort_keys=True), encoding="utf-8")


def verify_checksums(root: Path) -> str | None:
    """None when every listed file exists with its recorded hash, else what is wrong."""
    listing = root / CHECKSUMS
    if not listing.is_file():
        return "checksums.json is missing"
    try:
        sums: dict[str, str] = json.loads(listing.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "checksums.json is unreadable"
    for rel, expected in sums.items():
        path = root / rel
        if not path.is_file():
            return f"{rel} is missing"
        if sha256_file(path) != expected:
            return f"{rel} does not match its SHA-256"
    return None


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
@contextmanager
def quiet_hf() -> Iterator[None]:
    """transformers 5 draws a progress bar per load and save; in a training log it is noise."""
    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


def _write_hf_dir(
    out: Path,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase | None,
    model_state: dict[str, torch.Tensor] | None = None,
) -> None:
    with quiet_hf():
        model.save_pretrained(out, safe_serialization=True, state_dict=model_state)
    if tokenizer is not None:
        tokenizer.save_pretrained(out)
        write_stop_tokens(out, tokenizer)  # other tools stop at the template's turn end too


def replace_dir(tmp: Path, final: Path) -> None:
    """Move tmp to final; an existing final is swapped out first (rename is atomic, rmtree not)."""
    old = final.with_name(f".old-{final.name}")
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def save_model_dir(
    out: Path,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase | None,
    model_state: dict[str, torch.Tensor] | None = None,
    checksum: bool = False,
) -> Path:
    """A plain HF model dir (safetensors + tokenizer), written to a temp dir and renamed;
    with `checksum`, its checksums.json too (a training run's final model: verify_model)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with removed_on_failure(tmp):
        _write_hf_dir(tmp, model, tokenizer, model_state)
        if checksum:
            write_checksums(tmp)
    replace_dir(tmp, out)
    return out


@contextmanager
def removed_on_failure(tmp: Path) -> Iterator[None]:
    """A temp dir being written is deleted when the write fails (a full disk, an error):
    nothing half-written stays, and its space is given back at once. A full or read-only
    disk is said in one line with the fix."""
    try:
        yield
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        problem = disk_problem(err, tmp.parent)
        if problem:
            m = TMP_DIR.match(tmp.name)
            raise JupiterError(
                f"cannot write {m.group(1) if m else tmp.name} in {tmp.parent}: {problem}; what "
                "was written before is intact: make room (or set JUPITER_HOME to a disk with "
                "room) and run the command again, training resumes from the newest checkpoint"
            ) from None
        raise


TMP_DIR = re.compile(r"^\.tmp-(.+?)(?:-(\d+))?$")  # .tmp-NAME-PID: a write under way
OLD_DIR = re.compile(r"^\.old-(.+)$")  # .old-NAME: NAME moved aside by replace_dir


def remove_stale_temps(run_dir: Path) -> list[Path]:
    """Clear what a writer killed mid-write left in run_dir: its .tmp-NAME-PID dirs (kept
    while PID still runs on this machine), and an .old-NAME dir (deleted when NAME is in
    place, else renamed back: the kill came between replace_dir's two renames). Returns
    the dirs deleted."""
    if not run_dir.is_dir():
        return []
    gone = []
    for path in sorted(run_dir.iterdir()):
        if not path.is_dir():
            continue
        if m := OLD_DIR.match(path.name):
            if not (run_dir / m.group(1)).exists():
                os.replace(path, run_dir / m.group(1))
                continue
        elif m := TMP_DIR.match(path.name):
            pid = int(m.group(2)) if m.group(2) else None
            if pid is not None and pid != os.getpid() and pid_alive(pid):
                continue
        else:
            continue
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path)
    if gone:
        log.info("removed %d dirs of an interrupted write in %s", len(gone), run_dir)
    return gone


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
        _write_hf_dir(tmp / "model", model, tokenizer, model_state)
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


def model_problem(model_dir: Path) -> str | None:
    """What is wrong with a model dir Jupiter wrote, or None: its checksums.json verified
    when it has one (the final model of a run), else the files' framing (integrity.py)."""
    from jupiter.models.integrity import model_files_problem

    if (model_dir / CHECKSUMS).is_file():
        problem = verify_checksums(model_dir)
        return f"{model_dir}/{problem}" if problem else None  # ".../model.safetensors does …"
    return model_files_problem(model_dir)


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


ADAPTER_CONFIG = "adapter_config.json"


def is_adapter_dir(path: Path) -> bool:
    """A PEFT adapter dir (adapter_config.json + adapter weights), not a whole model."""
    return (Path(path) / ADAPTER_CONFIG).is_file()


def load_model_weights(model_dir: Path, model: torch.nn.Module) -> None:
    """Copy the weights of an HF dir (or a PEFT adapter dir, into a PEFT model) into `model`."""
    if is_adapter_dir(model_dir):
        from jupiter.models.loading import load_adapter_weights

        load_adapter_weights(model, model_dir)  # type: ignore[arg-type]
        return
    files = sorted(model_dir.glob("*.safetensors"))
    if not files:
        raise JupiterError(f"no .safetensors weights in {model_dir}")
    weights: dict[str, torch.Tensor] = {}
    for f in files:
        weights.update(load_file(f))
    missing, unexpected = model.load_state_dict(weights, strict=False)
    # save_pretrained drops the output head when it is tied to the embedding.
    tied = {"lm_head.weight"} if getattr(model.config, "tie_word_embeddings", False) else set()
    if unexpected or set(missing) - tied:
        raise JupiterError(
            f"weights in {model_dir} do not fit the model: missing {sorted(set(missing) - tied)},"
            f" unexpected {sorted(unexpected)}"
        )


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

    state, optim, rngs = read_checkpoint(path)
    load_model_weights(path / "model", model)
    if optimizer is not None:
        set_optimizer_state_dict(model, optimizer, optim)
    set_rng_state(rngs[0])
    return state
