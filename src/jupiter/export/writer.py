"""One export: check the request (format, quantization, --out) before anything heavy, write
the format into a staging folder beside --out, add export.json, rename it into place."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupiter.errors import JupiterError
from jupiter.export.common import (
    LLAMA_QUANTIZE,
    MANIFEST,
    Format,
    check_format,
    check_out,
    check_quant,
    scratch,
    slug,
    staging,
    weight_hashes,
    write_manifest,
)
from jupiter.outputs import claimed_output

if TYPE_CHECKING:
    from rich.console import Console

    from jupiter.export.source import Source

MODELFILE = "Modelfile"


@dataclass(frozen=True)
class Plan:
    """A checked request: where and how to write."""

    fmt: Format
    quant: str
    out: Path
    force: bool = False

    @property
    def name(self) -> str:
        return slug(self.out.name)

    @property
    def gguf_name(self) -> str:
        return f"{self.name}-{self.quant}.gguf"

    @property
    def create_line(self) -> str:
        return f"ollama create {self.name} -f {shlex.quote(str(self.out / MODELFILE))}"


@dataclass
class Result:
    out: Path
    manifest: dict[str, Any]
    create: str | None = None  # the `ollama create` line
    warnings: list[str] = field(default_factory=list)


def plan_export(fmt: str, out: Path, quant: str | None = None, force: bool = False) -> Plan:
    """Check the request; one-line errors for an unknown format, a quantization the format
    does not have, an existing --out without --force."""
    form = check_format(fmt)
    return Plan(form, check_quant(form, quant), check_out(out, force), force)


@contextmanager
def full_model(source: Source, out: Path, copy: bool = False) -> Iterator[Path]:
    """An HF dir with the source's full weights: the source itself, or (for an adapter, or
    with `copy`) a plain HF export of it in a scratch folder, which also carries the chat
    template and the stop tokens."""
    from jupiter.export.hf import write_hf

    if source.kind == "model" and not copy:
        yield source.path
        return
    with scratch(out, "hf") as tmp:
        write_hf(source.path, source.kind, tmp, "auto")
        yield tmp


def _ollama(
    plan: Plan, tmp: Path, hf_dir: Path, info: dict[str, Any], source: Source
) -> dict[str, Any]:
    from jupiter.atomic import write_text
    from jupiter.export.gguf import load_tokenizer, read_config
    from jupiter.export.ollama import modelfile, translate

    tokenizer, _ = load_tokenizer(hf_dir, read_config(hf_dir))
    translation = translate(tokenizer, bool(info["add_bos"]))
    text = modelfile(
        plan.gguf_name, translation, info["stop_tokens"], source.system_prompt, plan.create_line
    )
    write_text(tmp / MODELFILE, text)
    return {
        "create": plan.create_line,
        "template_family": translation.family,
        "template_note": translation.note or None,
        "system": source.system_prompt or translation.default_system or None,
    }


def _source_record(source: Source) -> dict[str, Any]:
    from jupiter.models.loading import adapter_base

    record: dict[str, Any] = {
        "ref": source.ref,
        "selected": source.selected,
        "path": str(source.path),
        "kind": source.kind,
        "weights_sha256": weight_hashes(source.path),
    }
    if source.kind == "adapter":
        base = adapter_base(source.path)
        record["base"] = {"path": str(base), "weights_sha256": weight_hashes(base)}
    return record


def export_inputs(source: Source) -> list[Path]:
    """What an export reads: the model folder, and an adapter's base (a one-line
    JupiterError when the adapter names none, or one that is missing)."""
    if source.kind != "adapter":
        return [source.path]
    from jupiter.models.loading import adapter_base

    return [source.path, adapter_base(source.path)]


def check_export_source(source: Source) -> None:
    """A one-line JupiterError when a folder the export reads is damaged: its checksums.json
    (when it has one) no longer matches, a safetensors file is cut or malformed, the weights
    file is missing, or a weight is NaN or infinite. Nothing is written before this."""
    from jupiter.models.integrity import (
        adapter_weights_problem,
        model_build_problem,
        model_files_problem,
        nonfinite_problem,
    )

    for folder in export_inputs(source):
        problem = (
            model_files_problem(folder)
            or adapter_weights_problem(folder)
            or model_build_problem(folder)
            or nonfinite_problem(folder)
        )
        if problem:
            raise JupiterError(
                f"damaged model: {problem}: nothing exported; train, download "
                "or export the model again"
            )


def write_export(plan: Plan, source: Source, console: Console) -> Result:
    """Write the export of `source` at plan.out (whole, or not at all)."""
    from jupiter.export.gguf import quantize_gguf, write_gguf
    from jupiter.export.hf import write_hf
    from jupiter.export.mlx import write_mlx

    result = Result(plan.out, {})
    record = _source_record(source)
    # never the model it reads (or an adapter's base), a workspace, or a folder Jupiter did
    # not write; one writer at a time (outputs.py)
    with (
        claimed_output(plan.out, export_inputs(source), force=plan.force, manifest=MANIFEST),
        staging(plan.out) as tmp,
    ):
        extra: dict[str, Any] = {}
        if plan.fmt == "hf":
            info = write_hf(source.path, source.kind, tmp, plan.quant)
        else:
            # mlx-lm's converter takes the tokenizer as it finds it: give it the template
            with full_model(source, plan.out, copy=plan.fmt == "mlx") as hf_dir:
                if plan.fmt == "mlx":
                    info = write_mlx(hf_dir, tmp, plan.quant)
                else:
                    tmp.mkdir()
                    if plan.quant in LLAMA_QUANTIZE:  # f16 first, then llama.cpp's quantizer
                        f16 = tmp / f"{plan.name}-f16.gguf"
                        info = write_gguf(hf_dir, f16, "f16", label=source.label, console=console)
                        info |= quantize_gguf(f16, tmp / plan.gguf_name, plan.quant)
                        info["file"] = plan.gguf_name
                        f16.unlink()
                    else:
                        info = write_gguf(
                            hf_dir,
                            tmp / plan.gguf_name,
                            plan.quant,
                            label=source.label,
                            console=console,
                        )
                    if plan.fmt == "ollama":
                        extra["ollama"] = _ollama(plan, tmp, hf_dir, info, source)
                        result.create = plan.create_line
                        if extra["ollama"]["template_note"]:
                            result.warnings.append(
                                f"no TEMPLATE in the Modelfile: {extra['ollama']['template_note']}"
                            )
        result.manifest = write_manifest(
            tmp,
            {
                "format": plan.fmt,
                "quant": plan.quant,
                "source": record,
                "gguf" if plan.fmt == "ollama" else plan.fmt: info,
                **extra,
                "eval": source.evals,
                "eval_note": None if source.evals else source.eval_note,
            },
        )
    return result
