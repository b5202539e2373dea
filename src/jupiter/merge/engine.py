"""`jupiter merge`: inputs opened and checked, weights chosen (given, greedy soup, convex,
Krum), the merged model streamed tensor by tensor into a temp dir, merge.json written, and
the dir renamed into place. Nothing else is ever left at the output path.

Memory: for each tensor name, the inputs' tensors of that name (plus the base's) are read,
merged and written before the next name is read, so a merge holds n + 2 tensors, not n
models. Validation adds one loaded model (and its gradients, for convex weights).
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import torch
from rich.console import Console

from jupiter import __version__
from jupiter.errors import JupiterError
from jupiter.merge import methods
from jupiter.merge.aggregate import add_sq_distances, krum_scores_of
from jupiter.merge.inputs import (
    Inputs,
    check_compatible,
    copy_side_files,
    file_hashes,
    input_record,
    open_inputs,
    set_config_dtype,
)
from jupiter.merge.lora import ADAPTER_WEIGHTS, AdapterWeights, concat_adapters
from jupiter.merge.recipe import TASK_VECTOR, Recipe
from jupiter.merge.shards import ShardWriter, TensorSpec, parse_size
from jupiter.merge.soup import fit_convex, greedy_soup
from jupiter.merge.validation import TensorOf, ValidationData, Validator
from jupiter.outputs import check_output, output_lock

MERGE_MANIFEST = "merge.json"  # written last: a folder holding it is a finished merge

# methods whose result is a weighted mean of the inputs, with weights fixed before writing
MEAN_METHODS = ("linear", "weighted", "greedy_soup", "convex", "krum")
SPARSIFY: dict[str, methods.Sparsify] = {
    "ties": "magnitude",
    "dare_linear": "random",
    "dare_ties": "random",
}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def peak_rss_mb() -> float:
    """This process's peak resident set so far (ru_maxrss: KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def _out_dtype(recipe: Recipe, ref_dtype: torch.dtype) -> torch.dtype:
    if not ref_dtype.is_floating_point:
        return ref_dtype
    return DTYPES.get(recipe.dtype, ref_dtype)


def combine(recipe: Recipe, name: str, inputs: Inputs, weights: list[float]) -> torch.Tensor:
    """The merged tensor `name`; every input is read here and dropped on return."""
    ref = inputs.reference
    if not ref.dtype(name).is_floating_point:  # integer buffers are not averaged
        return ref.read(name)
    m, p = recipe.method, recipe.params
    if m in MEAN_METHODS:
        used = [
            (s, w) for s, w in zip(inputs.sources, _mean_weights(recipe, weights), strict=True) if w
        ]
        return methods.linear((s.read(name) for s, _ in used), [w for _, w in used])
    tensors = [s.read(name) for s in inputs.sources]
    if m == "slerp":
        return methods.slerp(tensors[0], tensors[1], p.t)
    if m == "median":
        return methods.coordinate_median(tensors)
    if m == "trimmed_mean":
        return methods.coordinate_trimmed_mean(tensors, p.trim_fraction)
    assert m in TASK_VECTOR and inputs.base is not None
    seeds = [methods.entry_seed(p.seed, name, i) for i in range(len(tensors))]
    return methods.task_vectors(
        inputs.base.read(name),
        tensors,
        weights,
        lam=p.lam,
        normalize=recipe.normalize(),
        sparsify=SPARSIFY.get(m),
        density=recipe.density(),
        elect_sign=m in ("ties", "dare_ties"),
        seeds=seeds,
    )


def _mean_weights(recipe: Recipe, weights: list[float]) -> list[float]:
    """The weights a mean is computed with: the given ones, or 1 for each chosen model;
    `methods.linear` divides by their sum, as mergekit does (sum x_i / 3 and sum x_i * 1/3
    differ in the last bit). merge.json reports them normalised."""
    if recipe.method in ("linear", "weighted"):
        return recipe.weights()
    if recipe.method in ("greedy_soup", "krum"):
        return [1.0 if w else 0.0 for w in weights]
    return weights


def krum_weights(recipe: Recipe, inputs: Inputs, names: list[str]) -> tuple[list[float], dict]:
    """Krum over whole models: pairwise distances streamed tensor by tensor, then the
    `multi` lowest-scored models averaged uniformly."""
    n = len(inputs.sources)
    dist = torch.zeros(n, n, dtype=torch.float64)
    for name in names:
        if inputs.reference.dtype(name).is_floating_point:
            add_sq_distances(dist, [s.read(name) for s in inputs.sources])
    scores = krum_scores_of(dist, recipe.params.byzantine)
    chosen = sorted(range(n), key=lambda i: (scores[i], i))[: recipe.params.multi]
    weights = [1.0 / len(chosen) if i in chosen else 0.0 for i in range(n)]
    return weights, {"krum_scores": scores, "selected": chosen}


def choose_weights(
    recipe: Recipe,
    inputs: Inputs,
    names: list[str],
    validator: Validator | None,
    console: Console,
) -> tuple[list[float], dict[str, Any]]:
    """The weights the output is made with, and how they were chosen."""
    n = len(inputs.sources)
    m = recipe.method
    given = recipe.weights()
    if m in ("linear", "weighted"):
        total = math.fsum(given)
        return [w / total for w in given], {}
    if m == "krum":
        return krum_weights(recipe, inputs, names)
    if m not in ("greedy_soup", "convex"):
        return given, {}
    assert validator is not None
    readers: list[TensorOf] = [s.read for s in inputs.sources]
    if m == "greedy_soup":
        metric = validator.data.metric(recipe.params.select_by)
        individual = []
        for i, src in enumerate(readers):
            validator.load(src)
            individual.append(validator.score(metric))
            console.print(
                f"greedy soup: {inputs.refs[i]} alone: {metric} {abs(individual[-1]):.4f}",
                highlight=False,
            )

        def score_soup(idx: Sequence[int]) -> float:
            validator.load(lambda name: _uniform(readers, idx, name))
            return validator.score(metric)

        kept, history = greedy_soup(individual, score_soup)
        weights = [1.0 / len(kept) if i in kept else 0.0 for i in range(n)]
        return weights, {
            "metric": metric,
            "individual": individual,
            "kept": kept,
            "history": history,
        }
    p = recipe.params
    w, history = fit_convex(n, lambda w: validator.mix_loss_grad(readers, w), p.steps, p.lr)
    return w, {"metric": "bpb", "history": history}


def _uniform(readers: Sequence[TensorOf], idx: Sequence[int], name: str) -> torch.Tensor:
    return methods.linear((readers[i](name) for i in idx), [1.0] * len(idx))


def _nonfinite_input(inputs: Inputs, name: str) -> str | None:
    """The label of the first input whose tensor `name` holds a NaN or an infinity (the
    base first: an adapter reads through it); None when each is finite (the merge itself
    overflowed)."""
    candidates = [*([inputs.base] if inputs.base is not None else []), *inputs.sources]
    for src in candidates:
        tensor = src.read(name)
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            return src.label
    return None


def _check_finite(name: str, tensor: torch.Tensor, inputs: Inputs) -> None:
    """A merged tensor with NaN or infinities (NaN in an input, or a scale past the output
    dtype's range: --lambda 1e39 in float16) stops the merge before its folder exists."""
    if not tensor.is_floating_point():
        return
    # in slices: a whole-tensor mask would add its own size to the merge's streaming peak
    flat = tensor.reshape(-1)
    if all(bool(torch.isfinite(part).all()) for part in flat.split(1 << 16)):
        return
    bad = sum(int((~torch.isfinite(part)).sum()) for part in flat.split(1 << 16))
    culprit = _nonfinite_input(inputs, name)
    if bad and culprit:
        raise JupiterError(
            f"the input {culprit} holds NaN or infinite values in {name}: "
            "nothing written; merge without it, or fix it first"
        )
    if bad:
        raise JupiterError(
            f"the merged tensor {name} holds {bad} NaN or infinite values in {tensor.dtype}: "
            "check the inputs for NaN weights, lower --lambda or the weights, or write "
            "--dtype float32"
        )


def write_model(
    recipe: Recipe, inputs: Inputs, names: list[str], weights: list[float], out: Path
) -> ShardWriter:
    """Stream the merged tensors into safetensors shards under `out`."""
    ref = inputs.reference
    specs = [TensorSpec(n, _out_dtype(recipe, ref.dtype(n)), ref.shape(n)) for n in names]
    writer = ShardWriter(out, specs, parse_size(recipe.shard_size))
    try:
        for spec in writer.order:
            merged = combine(recipe, spec.name, inputs, weights).to(spec.dtype)
            _check_finite(spec.name, merged, inputs)
            writer.write(spec.name, merged)
            del merged
    except BaseException:
        writer.abort()
        raise
    writer.close()
    return writer


def _validation_figures(
    validator: Validator, inputs: Inputs, out: Path, kind: str
) -> dict[str, Any]:
    """Every input's figures and the output's, on the same items and text."""
    from jupiter.merge.shards import ModelWeights

    per_input = []
    for src, ref in zip(inputs.sources, inputs.refs, strict=True):
        validator.load(src.read)
        per_input.append({"ref": ref, **validator.figures()})
    if kind == "adapter":
        assert inputs.base is not None
        merged: Any = AdapterWeights(out, inputs.base)
    else:
        merged = ModelWeights(out)
    validator.load(merged.read)
    return {"data": validator.data.about, "inputs": per_input, "output": validator.figures()}


def merge_models(
    recipe: Recipe,
    *,
    base_dir: Path | None,
    cache_dir: Path,
    data: ValidationData | None = None,
    force: bool = False,
    console: Console | None = None,
    allowed_in: Path | None = None,
) -> dict[str, Any]:
    """Run the recipe; returns merge.json's content (also written into the output dir).
    `allowed_in`: a workspace folder the caller (a cycle's stage) may write under."""
    console = console or Console(stderr=True)
    start = time.perf_counter()
    if recipe.out is None:
        raise JupiterError("no output dir: give --out DIR (or out: in the recipe)")
    out_path = recipe.out if recipe.out.is_absolute() else (base_dir or Path.cwd()) / recipe.out
    inputs = open_inputs(recipe, base_dir, cache_dir, console)
    dirs = [s.dir.resolve() for s in inputs.sources] + (
        [inputs.base.dir.resolve()] if inputs.base else []
    )
    # never an input, a workspace, or a folder Jupiter did not write (outputs.py)
    guard = {"force": force, "manifest": MERGE_MANIFEST, "allowed_in": allowed_in}
    out = check_output(out_path, dirs, **guard)  # type: ignore[arg-type]
    names = check_compatible(inputs)
    # the inputs' SHA-256 on a second thread (hashlib releases the GIL): reading a model to
    # hash it costs about as much as merging it
    with ThreadPoolExecutor(max_workers=1) as pool:
        hashes = pool.submit(_input_hashes, recipe, inputs)
        validator = None
        if data is not None:
            validator = Validator(inputs.reference.dir, names, data, console)
        weights, selection = choose_weights(recipe, inputs, names, validator, console)
        with output_lock(out):
            check_output(out, dirs, **guard)  # type: ignore[arg-type]  # again, under it
            info = _write_whole(
                recipe, inputs, names, weights, validator, selection, hashes, start, out
            )
    info["out"] = str(out)
    return info


def _write_whole(
    recipe: Recipe,
    inputs: Inputs,
    names: list[str],
    weights: list[float],
    validator: Validator | None,
    selection: dict[str, Any],
    hashes: Any,
    start: float,
    out: Path,
) -> dict[str, Any]:
    """The merged model in a temp folder beside `out`, merge.json last, renamed over it."""
    from jupiter.models.folder import replace_dir

    tmp = out.with_name(f".tmp-{out.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        record = _write_output(recipe, inputs, names, weights, tmp)
        if validator is not None:
            record["validation"] = _validation_figures(validator, inputs, tmp, record["kind"])
        info = _merge_record(recipe, inputs, weights, selection, record, start)
        info |= hashes.result()
        (tmp / MERGE_MANIFEST).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return info


def _write_output(
    recipe: Recipe, inputs: Inputs, names: list[str], weights: list[float], tmp: Path
) -> dict[str, Any]:
    if recipe.lora == "concat":
        assert inputs.base is not None
        adapters = [s for s in inputs.sources if isinstance(s, AdapterWeights)]
        coefs = (
            weights
            if recipe.method in ("linear", "weighted")
            else [recipe.params.lam * w for w in weights]
        )
        ranks = concat_adapters(adapters, coefs, inputs.base.dir.resolve(), tmp)
        for f in sorted(adapters[0].dir.iterdir()):  # the adapter's own tokenizer, if any
            if f.is_file() and f.name.startswith(("tokenizer", "special_tokens", "chat_template")):
                shutil.copy2(f, tmp / f.name)
        return {
            "kind": "adapter",
            "rank": max(ranks.values(), default=0),
            "shards": 1,
            "sha256": file_hashes([tmp / ADAPTER_WEIGHTS]),
        }
    writer = write_model(recipe, inputs, names, weights, tmp)
    copy_side_files(inputs, tmp)
    set_config_dtype(tmp, recipe.dtype)
    return {"kind": "model", "shards": len(writer.shards), "sha256": writer.sha256}


def _merge_record(
    recipe: Recipe,
    inputs: Inputs,
    weights: list[float],
    selection: dict[str, Any],
    record: dict[str, Any],
    start: float,
) -> dict[str, Any]:
    params = recipe.params.model_dump(by_alias=True)
    params |= {"density": recipe.density(), "normalize": recipe.normalize()}
    info: dict[str, Any] = {
        "jupiter_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "method": recipe.method,
        "params": params,
        "inputs_kind": inputs.kind,
        "lora": recipe.lora if inputs.kind == "adapter" else None,
        "inputs": [],  # with their SHA-256, from _input_hashes
        "base": None,
        "weights": weights,
        "selection": selection,
        "output": {k: v for k, v in record.items() if k != "validation"},
        "validation": record.get("validation"),
        "seconds": round(time.perf_counter() - start, 3),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
    return info


def _input_hashes(recipe: Recipe, inputs: Inputs) -> dict[str, Any]:
    """merge.json's inputs and base, each with the SHA-256 of its weight files."""
    records = [
        input_record(s, r, m.weight)
        for s, r, m in zip(inputs.sources, inputs.refs, recipe.models, strict=True)
    ]
    base = (
        None
        if inputs.base is None
        else {
            "ref": inputs.base_ref,
            "path": str(inputs.base.dir),
            "sha256": file_hashes(list(inputs.base.files)),
        }
    )
    return {"inputs": records, "base": base}
