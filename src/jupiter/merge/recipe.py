"""A merge recipe: which models, which method, its parameters, where the result goes; read
from YAML (`jupiter merge --recipe FILE`) or built from flags. Every check that can be made
without reading a weight is made here, each failing with the fix."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jupiter.errors import JupiterError

Method = Literal[
    "linear",
    "weighted",
    "greedy_soup",
    "convex",
    "task_arithmetic",
    "ties",
    "dare_linear",
    "dare_ties",
    "slerp",
    "median",
    "trimmed_mean",
    "krum",
]
METHODS: tuple[str, ...] = get_args(Method)
# the methods that work on task vectors (x_i - base) and so need the base model
TASK_VECTOR = ("task_arithmetic", "ties", "dare_linear", "dare_ties")
# methods that choose or ignore the weights: a weight given to them would be a mistake
UNWEIGHTED = ("greedy_soup", "convex", "median", "trimmed_mean", "krum", "slerp")
# LoRA adapters concatenated to a higher rank reproduce a weighted sum of deltas exactly
CONCAT_METHODS = ("linear", "weighted", "task_arithmetic")
# normalize's default per method (mergekit's): TIES averages the agreeing entries
NORMALIZE = {"task_arithmetic": False, "ties": True, "dare_linear": False, "dare_ties": False}
# density's default: TIES keeps the top 20% (Yadav et al. 2023, k = 20); DARE drops 90%
# of a fine-tune's delta (Yu et al. 2024 drop p = 0.9)
DENSITY = {"ties": 0.2, "dare_linear": 0.1, "dare_ties": 0.1}
Dtype = Literal["auto", "float32", "bfloat16", "float16"]


class Strict(BaseModel):
    # NaN and infinities refused (`lambda: .nan` wrote an all-NaN model)
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


class ModelEntry(Strict):
    model: str  # a model reference: dir, Hub id in the local cache, .gguf, ollama:NAME
    weight: float | None = None


class MergeParams(Strict):
    density: float | None = Field(default=None, gt=0, le=1)  # TIES / DARE
    lam: float = Field(default=1.0, alias="lambda")  # scales the merged task vector
    normalize: bool | None = None  # task-vector methods; None: the method's default
    t: float = Field(default=0.5, ge=0, le=1)  # SLERP: 0 is the first model, 1 the second
    seed: int = 0  # DARE's masks
    trim_fraction: float = Field(default=0.25, ge=0, lt=0.5)
    byzantine: int = Field(default=1, ge=0)  # Krum: how many bad models to tolerate
    multi: int = Field(default=1, ge=1)  # Multi-Krum: average the `multi` best
    steps: int = Field(default=20, ge=1)  # convex: optimiser steps
    lr: float = Field(default=0.3, gt=0)  # convex: Adam's step size on the logits
    select_by: Literal["auto", "bpb", "mc_accuracy"] = "auto"  # greedy soup's score


class ValidationSpec(Strict):
    domain: str | None = None  # the domain's eval set and held-out chunks
    qa: Path | None = None  # else a QA/MC JSONL ...
    heldout: Path | None = None  # ... and a held-out text file or folder
    max_items: int = Field(default=50, ge=1)
    max_bytes: int = Field(default=50_000, ge=1)
    mc_choices: int = Field(default=4, ge=2)
    context: int = Field(default=256, ge=16)  # bpb windows (the domain's context_length)


class Recipe(Strict):
    method: Method
    models: list[ModelEntry] = Field(min_length=1)
    base: str | None = None
    out: Path | None = None
    params: MergeParams = Field(default_factory=MergeParams)
    lora: Literal["delta", "concat"] = "delta"
    dtype: Dtype = "auto"  # auto: each tensor in the first input's dtype
    shard_size: str = "4GB"
    validation: ValidationSpec | None = None

    def weights(self) -> list[float]:
        return [1.0 if m.weight is None else m.weight for m in self.models]

    def normalize(self) -> bool:
        p = self.params.normalize
        return NORMALIZE.get(self.method, False) if p is None else p

    def density(self) -> float:
        d = self.params.density
        return DENSITY.get(self.method, 1.0) if d is None else d


def _explain(where: str, err: ValidationError) -> JupiterError:
    e = err.errors()[0]
    loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
    if e["type"] == "extra_forbidden":
        msg = f"unknown key '{loc}' (see the README's 'Merging models' for the recipe keys)"
    elif e["type"] == "missing":
        msg = f"missing required key '{loc}'"
    elif e["type"] == "literal_error" and loc == "method":
        msg = f"unknown method {e.get('input')!r}: use one of {', '.join(METHODS)}"
    else:
        got = e.get("input")
        msg = f"{loc}: {e['msg']}" + ("" if isinstance(got, dict | list) else f", got {got!r}")
    return JupiterError(f"{where}: {msg}")


def parse_recipe(data: Any, where: str = "merge recipe") -> Recipe:
    if not isinstance(data, dict):
        raise JupiterError(f"{where}: expected a mapping with method: and models:")
    try:
        recipe = Recipe.model_validate(data)
    except ValidationError as err:
        raise _explain(where, err) from None
    check_recipe(recipe, where)
    return recipe


def load_recipe(path: Path) -> tuple[Recipe, Path]:
    """The recipe and the folder its relative paths are read from."""
    if not path.is_file():
        raise JupiterError(f"recipe not found: {path}: give the path of a merge recipe YAML")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise JupiterError(f"{path} is not valid YAML: {str(e).splitlines()[0]}") from None
    return parse_recipe(data, str(path)), path.parent


def parse_model_flag(text: str) -> dict[str, Any]:
    """--model DIR[:WEIGHT]; a suffix that is not a number stays part of the reference
    (ollama:gemma3:270m)."""
    ref, sep, tail = text.rpartition(":")
    if sep and ref:
        try:
            return {"model": ref, "weight": float(tail)}
        except ValueError:
            pass
    return {"model": text}


def check_recipe(r: Recipe, where: str = "merge recipe") -> None:
    """The checks between fields: model counts, weights, base, parameters per method."""

    def fail(msg: str) -> None:
        raise JupiterError(f"{where}: {msg}")

    n, m = len(r.models), r.method
    if n < 2:
        fail(f"{m} needs at least two models, got {n}: list each with --model or under models:")
    if m == "slerp" and n != 2:
        fail(f"slerp interpolates exactly two models, got {n}: keep two, or use linear or ties")
    weighted = [e.weight is not None for e in r.models]
    if m in UNWEIGHTED and any(weighted):
        what = "chooses its own weights" if m in ("greedy_soup", "convex") else "is unweighted"
        fail(f"{m} {what}: drop the weights (model:WEIGHT) or use method weighted")
    if m == "weighted" and not all(weighted):
        bare = next(e.model for e in r.models if e.weight is None)
        fail(
            f"weighted needs a weight for every model, and '{bare}' has none (a number "
            "after its last colon): write --model DIR:WEIGHT (or weight:)"
        )
    w = r.weights()
    if not all(math.isfinite(x) for x in w):
        fail(f"weights must be finite numbers, got {w}")
    if m in ("linear", "weighted") and any(x <= 0 for x in w):
        fail(
            f"{m} averages: every weight must be positive, got {w} (negative weights "
            "subtract a model: use task_arithmetic with a base)"
        )
    if m in TASK_VECTOR:
        if all(x == 0 for x in w):
            fail(f"every weight is 0, so {m} would return the base: give non-zero weights")
        if r.normalize() and abs(math.fsum(w)) < 1e-8:
            fail(
                f"the weights {w} sum to 0 and {m} divides by their sum: change them, or "
                "set params.normalize: false"
            )
    if m == "krum" and n <= 2 * r.params.byzantine + 2:
        fail(
            f"krum tolerating byzantine={r.params.byzantine} needs more than "
            f"{2 * r.params.byzantine + 2} models, got {n}: lower params.byzantine or use "
            "median"
        )
    if m == "krum" and r.params.multi > n:
        fail(f"krum: params.multi={r.params.multi} is more than the {n} models")
    if r.lora == "concat" and m not in CONCAT_METHODS:
        fail(
            f"lora: concat sums the adapters' deltas, which {m} does not: use method "
            f"{', '.join(CONCAT_METHODS)}, or lora: delta"
        )
    if m in ("greedy_soup", "convex") and r.validation is None:
        fail(
            f"{m} scores models on validation data: give --domain NAME, or --qa FILE "
            "and/or --heldout FILE (validation: in a recipe)"
        )
    if (
        m == "convex"
        and r.validation is not None
        and not (r.validation.domain or r.validation.heldout)
    ):
        fail("convex fits the weights to held-out text loss: give --heldout FILE or --domain")
    v = r.validation
    if v is not None and v.domain is None and v.qa is None and v.heldout is None:
        fail("validation: give domain, or qa and/or heldout")
    if v is not None and v.domain and (v.qa or v.heldout):
        fail(
            "validation: --domain brings its own eval set and held-out text: drop --qa "
            "and --heldout, or drop --domain"
        )


@dataclass
class MergeFlags:
    """`jupiter merge`'s flags, None where not given (a --recipe file's value then stands).
    Their paths are relative to the current folder; a recipe's, to the recipe's folder."""

    method: str | None = None
    models: list[str] = field(default_factory=list)  # DIR[:WEIGHT], in order
    base: str | None = None
    out: Path | None = None
    lora: str | None = None
    dtype: str | None = None
    params: dict[str, Any] = field(default_factory=dict)  # MergeParams' keys (lambda, ...)
    validation: dict[str, Any] = field(default_factory=dict)  # ValidationSpec's keys


def _flag_path(ref: str) -> str:
    """A --model/--base path relative to the current dir (a recipe's are relative to it)."""
    return str(Path(ref).resolve()) if Path(ref).expanduser().exists() else ref


def recipe_from_flags(recipe: Path | None, flags: MergeFlags) -> tuple[Recipe, Path | None]:
    """The recipe `jupiter merge` runs: the --recipe file's (if any) with every flag given
    over it, checked whole; and the folder its relative paths are read from."""
    data: dict[str, Any] = {}
    base_dir = None
    if recipe is not None:
        loaded, base_dir = load_recipe(recipe)
        data = loaded.model_dump(by_alias=True, exclude_unset=True)
    if flags.models:
        data["models"] = [parse_model_flag(m) for m in flags.models]
        for m in data["models"]:
            m["model"] = _flag_path(m["model"])
    given = {
        "method": flags.method,
        "base": flags.base and _flag_path(flags.base),
        "lora": flags.lora,
        "dtype": flags.dtype,
        "out": flags.out and str(flags.out.expanduser().resolve()),
    }
    data |= {k: v for k, v in given.items() if v is not None}
    params = {k: v for k, v in flags.params.items() if v is not None}
    data["params"] = data.get("params", {}) | params
    val = {
        k: str(v.resolve()) if isinstance(v, Path) else v
        for k, v in flags.validation.items()
        if v is not None
    }
    if val:
        data["validation"] = (data.get("validation") or {}) | val
    if "method" not in data or "models" not in data:
        raise JupiterError("give --recipe FILE, or --method and two or more --model DIR[:WEIGHT]")
    return parse_recipe(data, str(recipe) if recipe else "jupiter merge"), base_dir
