"""Checkpoints and model dirs of the MLX loop, in checkpoint.py's layout, written whole or
not at all:

    model/                  HF model dir (fp32) or PEFT adapter dir, + tokenizer files
    optimizer.safetensors   AdamW's moments by parameter name (exp_avg/NAME, exp_avg_sq/NAME)
    scheduler.json          the learning-rate schedule and its position
    rng.json                mlx / numpy / python RNG states of every rank
    state.json              step, data position, losses so far, config hash, "backend": "mlx"
    checksums.json          SHA-256 of every other file

Nothing is pickled. Every rank calls `save` (the RNG states are gathered); rank 0 writes.
"""

from __future__ import annotations

import json
import logging
import os
import random
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from jupiter.errors import JupiterError
from jupiter.models.folder import (
    removed_on_failure,
    replace_dir,
    verify_checksums,
    write_checksums,
)
from jupiter.train.checkpoint import prune_checkpoints, step_dir_name
from jupiter.train.mlx_model import (
    FAMILIES,
    ModelSpec,
    adapter_weights,
    flat,
    from_canonical,
    load_adapter,
    set_arrays,
    to_canonical,
)
from jupiter.train.mlx_state import POSITION_KEYS, MLXState

if TYPE_CHECKING:
    import mlx.nn as nn
    from transformers import PreTrainedTokenizerBase

    from jupiter.train.loop import TrainRun

log = logging.getLogger(__name__)

LOWER_PRECISION = ("bfloat16", "float16")
GENERATION_FILE = "generation_config.json"


# ---------------------------------------------------------------------- collectives
def all_sum(state: MLXState, x: Any) -> Any:
    import mlx.core as mx

    if state.world == 1:
        return x
    return mx.distributed.all_sum(x, group=state.group)


def barrier(state: MLXState) -> None:
    import mlx.core as mx

    if state.world > 1:
        mx.eval(all_sum(state, mx.array(1.0)))


def gather_json(state: MLXState, obj: Any) -> list[Any]:
    """Every rank's JSON-able `obj`, in rank order, on every rank (padded bytes through
    all_gather: the ring backend moves arrays only)."""
    import mlx.core as mx

    raw = json.dumps(obj).encode()
    if state.world == 1:
        return [obj]
    sizes = mx.distributed.all_gather(mx.array([len(raw)], dtype=mx.int32), group=state.group)
    longest = int(np.array(sizes).max())
    padded = np.frombuffer(raw.ljust(longest, b" "), dtype=np.uint8)
    rows = mx.distributed.all_gather(mx.array(padded), group=state.group)
    lengths = np.array(sizes).tolist()
    table = np.array(rows).reshape(state.world, longest)
    return [json.loads(bytes(table[i, : lengths[i]]).decode()) for i in range(state.world)]


# ------------------------------------------------------------------------------ RNG
def rng_state() -> dict[str, Any]:
    """mlx's key, numpy's legacy generator and python's, as JSON."""
    import mlx.core as mx

    kind, keys, pos, has_gauss, gauss = np.random.get_state(legacy=True)  # type: ignore[misc]
    version, mt, py_gauss = random.getstate()
    return {
        "mlx": [int(k) for k in np.array(cast(Any, mx.random.state)[0])],
        "numpy": [kind, [int(k) for k in keys], int(pos), int(has_gauss), float(gauss)],
        "python": [version, list(mt), py_gauss],
    }


def set_rng_state(saved: dict[str, Any]) -> None:
    import mlx.core as mx

    hi, lo = saved["mlx"]
    mx.random.seed((hi << 32) | lo)  # the key is the two halves of the 64-bit seed
    kind, keys, pos, has_gauss, gauss = saved["numpy"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, gauss))
    version, mt, py_gauss = saved["python"]
    random.setstate((version, tuple(mt), py_gauss))


# ---------------------------------------------------------------------- model dirs
def save_hf_dir(
    out: Path,
    model: nn.Module,
    spec: ModelSpec,
    tokenizer: PreTrainedTokenizerBase | None,
    dtype: str = "float32",
) -> None:
    """Write an HF model dir into `out`: config.json, model.safetensors with transformers'
    names in `dtype`, generation_config.json and the tokenizer."""
    import mlx.core as mx

    if spec.lora is not None:
        raise JupiterError("a LoRA model saves as an adapter dir, not as a whole HF dir")
    out.mkdir(parents=True, exist_ok=True)
    weights = {n: w.astype(getattr(mx, dtype)) for n, w in flat(model.parameters()).items()}
    # format "pt": the metadata transformers expects of a torch-layout safetensors file
    mx.save_safetensors(str(out / "model.safetensors"), weights, metadata={"format": "pt"})
    config = dict(spec.hf_config)
    config.pop("torch_dtype", None)
    config |= {"architectures": [FAMILIES[config["model_type"]][1]], "dtype": dtype}
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True), "utf-8")
    source = spec.source_dir / GENERATION_FILE if spec.source_dir else None
    if source is not None and source.is_file():
        shutil.copyfile(source, out / GENERATION_FILE)
    else:  # a preset: what save_pretrained derives from the config (bos, eos, pad)
        from transformers import AutoConfig, GenerationConfig

        conf = {k: v for k, v in spec.hf_config.items() if k != "model_type"}
        hf = AutoConfig.for_model(spec.hf_config["model_type"], **conf)
        GenerationConfig.from_model_config(hf).save_pretrained(out)
    if tokenizer is not None:
        from jupiter.data.templates import write_stop_tokens

        tokenizer.save_pretrained(out)
        write_stop_tokens(out, tokenizer)  # other tools stop at the template's turn end too


def save_adapter_dir(
    out: Path, model: nn.Module, spec: ModelSpec, tokenizer: PreTrainedTokenizerBase | None
) -> None:
    """A PEFT adapter dir (adapter_config.json + adapter_model.safetensors) that jupiter's
    torch loader and PeftModel.from_pretrained read, naming the base by absolute path."""
    import peft
    from safetensors.numpy import save_file

    if spec.lora is None or spec.source_dir is None:
        raise JupiterError("only a LoRA model on an HF base dir saves as an adapter dir")
    out.mkdir(parents=True, exist_ok=True)
    weights = {n: np.ascontiguousarray(w) for n, w in adapter_weights(model).items()}
    save_file(weights, str(out / "adapter_model.safetensors"), metadata={"format": "pt"})
    config = peft.LoraConfig(
        r=spec.lora.r,
        lora_alpha=spec.lora.alpha,
        lora_dropout=spec.lora.dropout,
        target_modules=list(spec.targets),
        task_type="CAUSAL_LM",
        base_model_name_or_path=str(spec.source_dir),
        inference_mode=True,
    )
    config.save_pretrained(str(out))
    if tokenizer is not None:
        tokenizer.save_pretrained(out)


# ----------------------------------------------------------------------------- save
def config_hash(run: TrainRun, state: MLXState) -> str:
    """What must not change under a resumed run (the torch loop's hash, MLX's config)."""
    from jupiter.train.loop import run_hash

    return run_hash(run, state.spec.hf_config, state.plan.global_batch)


def tokenizer_of(run: TrainRun, state: MLXState) -> Any:
    if state.tokenizer is None:
        from transformers import AutoTokenizer

        state.tokenizer = AutoTokenizer.from_pretrained(run.tokenizer_dir)
    return state.tokenizer


def write_model(out: Path, run: TrainRun, state: MLXState, dtype: str = "float32") -> None:
    """The adapter dir under LoRA, else a whole HF dir in `dtype`."""
    if state.spec.lora is not None:
        save_adapter_dir(out, state.model, state.spec, tokenizer_of(run, state))
    else:
        save_hf_dir(out, state.model, state.spec, tokenizer_of(run, state), dtype)


def _write_optimizer(path: Path, state: MLXState) -> None:
    import mlx.core as mx

    arrays: dict[str, mx.array] = {}
    for p, (m, v) in state.moments.items():
        name, m = to_canonical(p, m)
        arrays[f"exp_avg/{name}"] = m
        arrays[f"exp_avg_sq/{name}"] = to_canonical(p, v)[1]
    mx.save_safetensors(str(path), arrays, metadata={"step": str(state.step)})


def save(run: TrainRun, state: MLXState) -> Path:
    """Write run.out_dir/step-NNNNNN/ atomically (rank 0); keep the newest K plus the best."""
    rngs = gather_json(state, rng_state())
    final = run.out_dir / step_dir_name(state.step)
    if state.rank == 0:
        cfg = run.config
        run.out_dir.mkdir(parents=True, exist_ok=True)
        tmp = run.out_dir / f".tmp-{final.name}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        with removed_on_failure(tmp):
            tmp.mkdir()
            write_model(tmp / "model", run, state)
            _write_optimizer(tmp / "optimizer.safetensors", state)
            (tmp / "rng.json").write_text(json.dumps({"ranks": rngs}), encoding="utf-8")
            schedule = {
                "type": "warmup_cosine",
                "step": state.step,
                "max_steps": state.plan.max_steps,
                "lr": run.lr,
                "min_lr": cfg.min_lr,
                "warmup_steps": cfg.warmup_steps,
            }
            (tmp / "scheduler.json").write_text(json.dumps(schedule, indent=1), encoding="utf-8")
            saved = {
                **state.position(),
                "config_hash": config_hash(run, state),
                "run_id": run.run_id,
                "max_steps": state.plan.max_steps,
                "world": state.world,
                "backend": "mlx",
            }
            (tmp / "state.json").write_text(json.dumps(saved, indent=1), encoding="utf-8")
            write_checksums(tmp)
        replace_dir(tmp, final)
        best = {Path(state.best["path"])} if state.best.get("path") else set()
        prune_checkpoints(run.out_dir, cfg.keep_checkpoints, protect={final} | best)
    barrier(state)
    return final


def save_final(run: TrainRun, state: MLXState, final: Path) -> None:
    """out_dir/final: the adapter, or the HF dir in the base's own dtype when it was stored
    in 16 bits (the checkpoints keep fp32 for an exact resume)."""
    if state.rank == 0:
        source = state.spec.source_dtype
        dtype = source if source in LOWER_PRECISION else "float32"
        tmp = final.with_name(f".tmp-{final.name}-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        with removed_on_failure(tmp):
            write_model(tmp, run, state, dtype)
            write_checksums(tmp)  # checked before the student is evaluated or promoted
        replace_dir(tmp, final)
    barrier(state)


# ------------------------------------------------------------------------- restore
def restore(run: TrainRun, state: MLXState, path: Path) -> None:
    """Weights, AdamW moments, this rank's RNG and the data position from checkpoint `path`."""
    import mlx.core as mx

    problem = verify_checksums(path)
    if problem is not None:
        raise JupiterError(
            f"checkpoint {path} is corrupt ({problem}): delete it to resume from an older one"
        )
    saved: dict[str, Any] = json.loads((path / "state.json").read_text(encoding="utf-8"))
    if saved.get("backend") != "mlx":
        raise JupiterError(
            f"checkpoint {path} was written by the torch backend: resume it there, or train"
            " into another out dir (or set train.resume: never)"
        )
    if state.spec.lora is not None:
        load_adapter(state.model, path / "model")
    else:
        set_arrays(state.model, dict(mx.load(str(path / "model" / "model.safetensors"))))  # type: ignore[arg-type]
    moments: dict[str, list[Any]] = {}
    optim = mx.load(str(path / "optimizer.safetensors"))
    for key, value in optim.items():  # type: ignore[union-attr]
        kind, _, name = key.partition("/")
        p, arr = from_canonical(name, value)
        moments.setdefault(p, [None, None])[0 if kind == "exp_avg" else 1] = arr
    state.moments = {p: (m, v) for p, (m, v) in moments.items()}
    rngs = json.loads((path / "rng.json").read_text(encoding="utf-8"))["ranks"]
    set_rng_state(rngs[state.rank] if state.rank < len(rngs) else rngs[0])
    if saved.get("config_hash") != config_hash(run, state):
        log.warning("resuming %s with a changed config or dataset", path)
    for key in (*POSITION_KEYS, "best", "epochs_done"):
        setattr(state, key, saved.get(key, getattr(state, key)))
