"""The inputs of a merge: model references resolved to local dirs, opened for streaming, and
checked to be of one base (same architecture, same tensor names and shapes) before any
weight is read."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.merge.lora import AdapterWeights
from jupiter.merge.recipe import TASK_VECTOR, Recipe
from jupiter.merge.shards import INDEX, ModelWeights
from jupiter.models.folder import ADAPTER_CONFIG, is_adapter_dir, sha256_file

Source = ModelWeights | AdapterWeights
# files of a model dir that are not its weights, copied to the output (config, tokenizer)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")
NOT_COPIED = {
    INDEX,
    "pytorch_model.bin.index.json",
    "merge.json",
    "checksums.json",
    ADAPTER_CONFIG,
    "README.md",
}
# config.json keys that must agree for two models to be of one architecture
ARCH_KEYS = (
    "model_type",
    "architectures",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "vocab_size",
    "tie_word_embeddings",
)


@dataclass
class Inputs:
    kind: Literal["model", "adapter"]
    sources: list[Source]
    refs: list[str]
    base: ModelWeights | None
    base_ref: str | None

    @property
    def reference(self) -> ModelWeights:
        """Whose names, shapes, dtypes, config and tokenizer the output takes: the base when
        there is one, else the first model."""
        if self.base is not None:
            return self.base
        first = self.sources[0]
        assert isinstance(first, ModelWeights)
        return first


def _resolve(ref: str, base_dir: Path | None, cache_dir: Path, console: Console | None) -> Path:
    """The reference as a local dir, verified as every command that reads a model verifies
    it (its JSON files, its safetensors' framing, its checksums when listed): a merge reads
    only tensors, and took a damaged config or tokenizer into its output. Any architecture
    merges, so the config is not built into a model; it must name its model_type."""
    from jupiter.models.integrity import check_model_files
    from jupiter.models.reference import resolve_model

    path = resolve_model(ref, base_dir=base_dir, cache_dir=cache_dir, console=console)
    check_model_files(path)
    if not is_adapter_dir(path) and (path / "config.json").is_file():
        kind = json.loads((path / "config.json").read_text(encoding="utf-8")).get("model_type")
        if not (isinstance(kind, str) and kind):
            raise JupiterError(
                f"damaged model {ref}: {path}/config.json names no model_type: "
                "fix or re-save the model"
            )
    return path


def _adapter_base(dirs: list[Path]) -> Path:
    """The one base the adapters name."""
    from jupiter.models.loading import adapter_base

    bases = {d: adapter_base(d) for d in dirs}
    if len(set(bases.values())) > 1:
        listing = ", ".join(f"{d.name} -> {b}" for d, b in bases.items())
        raise JupiterError(
            f"the adapters name different bases ({listing}): merge adapters "
            "of one base, or give the base with --base DIR"
        )
    return next(iter(bases.values()))


def open_inputs(
    recipe: Recipe, base_dir: Path | None, cache_dir: Path, console: Console | None = None
) -> Inputs:
    refs = [m.model for m in recipe.models]
    dirs = [_resolve(r, base_dir, cache_dir, console) for r in refs]
    adapters = [is_adapter_dir(d) for d in dirs]
    if any(adapters) and not all(adapters):
        mixed = ", ".join(
            f"{r} ({'adapter' if a else 'model'})" for r, a in zip(refs, adapters, strict=True)
        )
        raise JupiterError(
            f"mixed inputs: {mixed}; merge full models or LoRA adapters, "
            "not both (merge an adapter into its base first)"
        )
    base_path = _resolve(recipe.base, base_dir, cache_dir, console) if recipe.base else None
    if base_path is not None and is_adapter_dir(base_path):
        raise JupiterError(f"--base {recipe.base} is an adapter: give the full base model")
    if all(adapters):
        base_path = base_path or _adapter_base(dirs)
        base = ModelWeights(base_path, label=recipe.base or base_path.name)
        sources: list[Source] = [
            AdapterWeights(d, base, label=r) for d, r in zip(dirs, refs, strict=True)
        ]
        return Inputs("adapter", sources, refs, base, recipe.base or str(base_path))
    if recipe.lora == "concat":
        raise JupiterError(
            "lora: concat needs LoRA adapter inputs; these are full models: drop lora: concat"
        )
    if recipe.method in TASK_VECTOR and base_path is None:
        raise JupiterError(
            f"{recipe.method} works on task vectors (model - base): give the "
            "model they were fine-tuned from with --base DIR (or base:)"
        )
    if recipe.method not in TASK_VECTOR and base_path is not None:
        raise JupiterError(
            f"{recipe.method} does not use a base model: drop --base (or base:), "
            "or use task_arithmetic, ties or dare_*"
        )
    models = [ModelWeights(d, label=r) for d, r in zip(dirs, refs, strict=True)]
    base_weights = ModelWeights(base_path, label=recipe.base) if base_path else None
    return Inputs("model", list(models), refs, base_weights, recipe.base)


def _arch(model_dir: Path) -> dict[str, Any]:
    path = model_dir / "config.json"
    if not path.is_file():
        return {}
    try:
        cfg: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise JupiterError(f"{path} is not valid JSON: fix or re-save the model") from None
    return {k: cfg.get(k) for k in ARCH_KEYS if k in cfg}


def check_compatible(inputs: Inputs) -> list[str]:
    """Every input has the reference's tensors with the same shapes, and the same
    architecture; returns the tensor names in the reference's file order."""
    ref = inputs.reference
    names = ref.names()
    ref_arch = _arch(ref.dir)
    label = ref.label
    for src in inputs.sources:
        if src is ref:
            continue
        if isinstance(src, ModelWeights):
            arch = _arch(src.dir)
            diff = [k for k in ARCH_KEYS if k in arch and k in ref_arch and arch[k] != ref_arch[k]]
            if diff:
                k = diff[0]
                raise JupiterError(
                    f"{src.label} and {label} are different architectures ({k}: {arch[k]} vs "
                    f"{ref_arch[k]}): merge only models fine-tuned from one base"
                )
        missing = [n for n in names if n not in src.tensors]
        extra = [n for n in src.tensors if n not in ref.tensors]
        if missing or extra:
            what = f"lacks tensor {missing[0]}" if missing else f"has extra tensor {extra[0]}"
            raise JupiterError(
                f"{src.label} {what} that {label} "
                f"{'has' if missing else 'lacks'} ({len(missing)} missing, "
                f"{len(extra)} extra): merge only models of one base "
                "architecture"
            )
        for n in names:
            if src.shape(n) != ref.shape(n):
                raise JupiterError(
                    f"tensor {n} has shape {list(src.shape(n))} in {src.label} but "
                    f"{list(ref.shape(n))} in {label}: merge only models of one base (same "
                    "architecture and vocabulary)"
                )
    return names


def copy_side_files(inputs: Inputs, out: Path) -> None:
    """Config, generation config, tokenizer and chat template of the reference model; an
    adapter's own tokenizer files (it may carry added tokens) over the base's."""
    dirs = [inputs.reference.dir]
    if inputs.kind == "adapter":
        dirs.append(inputs.sources[0].dir)
    for d in dirs:
        for f in sorted(d.iterdir()):
            if f.is_file() and f.name not in NOT_COPIED and not f.name.endswith(WEIGHT_SUFFIXES):
                if d is not dirs[0] and f.name == "config.json":
                    continue
                shutil.copy2(f, out / f.name)


def set_config_dtype(out: Path, dtype: str) -> None:
    """Record an explicit output dtype in config.json (transformers reads it on load)."""
    path = out / "config.json"
    if dtype == "auto" or not path.is_file():
        return
    cfg = json.loads(path.read_text(encoding="utf-8"))
    for key in ("torch_dtype", "dtype"):
        if key in cfg:
            cfg[key] = dtype
    cfg.setdefault("dtype", dtype)
    path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")


def file_hashes(files: list[Path]) -> dict[str, str]:
    return {f.name: sha256_file(f) for f in files}


def input_record(src: Source, ref: str, weight: float | None) -> dict[str, Any]:
    files = list(src.files)
    if isinstance(src, AdapterWeights):
        files.append(src.dir / ADAPTER_CONFIG)
    elif (src.dir / INDEX).is_file():
        files.append(src.dir / INDEX)
    return {"ref": ref, "path": str(src.dir), "weight": weight, "sha256": file_hashes(files)}
