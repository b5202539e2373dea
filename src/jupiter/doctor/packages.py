"""Optional packages: installed or not, what each enables, and the pip line.

Found with importlib's finders (nothing is imported: deepspeed alone takes seconds). A
missing package the domain's config asks for fails; one this machine could use warns; one
that needs hardware this machine lacks (a CUDA kernel on a CPU box) is only noted.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from dataclasses import dataclass

from jupiter.config import DomainConfig
from jupiter.doctor.result import Check, Context, fail, ok, warn


@dataclass(frozen=True)
class Optional:
    module: str  # what is imported
    dist: str  # the distribution pip installs (its version is read from it)
    enables: str
    pip: str
    needs: str = ""  # "cuda" | "apple" | "": the hardware it is of use on


def needed_by(module: str, cfg: DomainConfig) -> str:
    """The setting of the domain config that makes `module` necessary, or ""."""
    llms = (cfg.generator.llm, cfg.filters.judge.llm, cfg.eval.judge_llm)
    settings = {
        "deepspeed": (cfg.train.distributed == "deepspeed", "train.distributed: deepspeed"),
        "bitsandbytes": (cfg.train.method == "qlora", "train.method: qlora"),
        "flash_attn": (
            cfg.model.attention == "flash_attention_2",
            "model.attention: flash_attention_2",
        ),
        "peft": (cfg.train.method != "full", f"train.method: {cfg.train.method}"),
        "mlx_lm": (
            any(llm is not None and llm.backend == "mlx" for llm in llms),
            "an LLM with backend: mlx",
        ),
        "sentence_transformers": (
            cfg.retrieval.kind != "bm25",
            f"retrieval.kind: {cfg.retrieval.kind}",
        ),
        "lm_eval": (bool(getattr(cfg.eval, "lm_eval_tasks", None)), "eval.lm_eval_tasks"),
    }
    hit, setting = settings.get(module, (False, ""))
    return setting if hit else ""


PACKAGES = (
    Optional(
        "deepspeed",
        "deepspeed",
        "ZeRO 2/3 sharding (train.distributed: deepspeed)",
        'pip install "jupiter[deepspeed]"',
        "cuda",
    ),
    Optional(
        "bitsandbytes",
        "bitsandbytes",
        "QLoRA: 4-bit base weights (train.method: qlora)",
        'pip install "jupiter[qlora]"',
        "cuda",
    ),
    Optional(
        "flash_attn",
        "flash-attn",
        "FlashAttention-2 kernels (model.attention: auto picks them on CUDA)",
        "pip install flash-attn --no-build-isolation",
        "cuda",
    ),
    Optional(
        "liger_kernel",
        "liger-kernel",
        "Liger's fused linear cross-entropy on CUDA (less memory at large vocabularies)",
        "pip install liger-kernel",
        "cuda",
    ),
    Optional("peft", "peft", "LoRA / QLoRA fine-tuning and adapters", "pip install peft"),
    Optional(
        "mlx_lm",
        "mlx-lm",
        "training and generation with MLX (Apple silicon)",
        'pip install "jupiter[mlx]"',
        "apple",
    ),
    Optional(
        "flwr",
        "flwr",
        "federated training over Flower, with differential privacy",
        'pip install "jupiter[federated]"',
    ),
    Optional(
        "sentence_transformers",
        "sentence-transformers",
        "embedding and hybrid open-book retrieval (retrieval.kind)",
        'pip install "jupiter[retrieval]"',
    ),
    Optional(
        "lm_eval",
        "lm-eval",
        "lm-eval-harness benchmarks (eval.lm_eval_tasks) and "
        "scoring an exported task (jupiter eval --export-lm-eval)",
        "pip install lm-eval",
    ),
    Optional(
        "datasets",
        "datasets",
        "Parquet files and datasets folders as sources",
        'pip install "jupiter[data]"',
    ),
)


def installed(module: str) -> bool:
    """The module can be imported (its spec is found; a finder that refuses it counts as
    missing)."""
    if module in sys.modules and sys.modules[module] is not None:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _has_hardware(needs: str) -> bool:
    if needs == "cuda":
        if importlib.util.find_spec("torch") is None:
            return False
        import torch

        return bool(torch.cuda.is_available()) and not getattr(torch.version, "hip", None)
    if needs == "apple":
        import platform

        return sys.platform == "darwin" and platform.machine() == "arm64"
    return True


def package_check(pkg: Optional, ctx: Context) -> Check:
    name = pkg.dist
    if installed(pkg.module):
        return ok("packages", name, f"{_version(pkg.dist)}: {pkg.enables}")
    needed = needed_by(pkg.module, ctx.cfg) if ctx.cfg is not None else ""
    if needed:
        return fail("packages", name, f"not installed, and the domain sets {needed}", pkg.pip)
    if not _has_hardware(pkg.needs):
        where = "a CUDA GPU" if pkg.needs == "cuda" else "an Apple-silicon Mac"
        return ok("packages", name, f"not installed (of use on {where}): {pkg.enables}")
    return warn("packages", name, f"not installed: {pkg.enables}", pkg.pip)


def package_checks(ctx: Context) -> list[Check]:
    return [package_check(p, ctx) for p in PACKAGES]
