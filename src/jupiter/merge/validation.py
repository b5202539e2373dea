"""Validation of merge candidates through the project's eval code: bits-per-byte on held-out
text (eval/bpb.py) and multiple-choice accuracy (eval/report.py's exam, eval/mc.py's items).

One model is loaded once; each candidate (an input, a soup, the merged output) is copied
into it tensor by tensor, so scoring n candidates never holds n models. Convex weights need
the gradient of held-out bpb with respect to the mixing weights: since the merged model is
sum_i w_i theta_i, d bpb / d w_i = <grad bpb at the mix, theta_i>, one backward pass and one
streamed dot product per input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import torch
import torch.nn.functional as F
from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.eval.bpb import _start_id, _windows, bpb_figures, take_bytes
from jupiter.eval.qa import MCItem

Metric = Literal["bpb", "mc_accuracy"]
TensorOf = Callable[[str], torch.Tensor]


@dataclass
class ValidationData:
    """What candidates are scored on: held-out texts for bpb, MC items for accuracy."""

    texts: list[str] = field(default_factory=list)
    mc: list[MCItem] = field(default_factory=list)
    context: int = 256
    max_bytes: int = 50_000
    about: dict[str, Any] = field(default_factory=dict)

    def metric(self, select_by: str) -> Metric:
        """bpb when there is held-out text (a finer signal than a few MC items), else MC."""
        if select_by == "bpb" and not self.texts:
            raise JupiterError("select_by: bpb needs held-out text: give --heldout or --domain")
        if select_by == "mc_accuracy" and not self.mc:
            raise JupiterError("select_by: mc_accuracy needs MC items: give --qa or --domain")
        if select_by != "auto":
            return select_by  # type: ignore[return-value]
        return "bpb" if self.texts else "mc_accuracy"


def heldout_file_texts(path: Path) -> list[str]:
    """Paragraphs of a text file, of a folder's text files, or the "text" of JSONL rows."""
    from jupiter.eval.general import SUFFIXES, paragraphs

    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    elif path.is_file():
        files = [path]
    else:
        raise JupiterError(f"held-out text not found: {path}: give a text file or a folder")
    out: list[str] = []
    for f in files:
        try:
            raw = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise JupiterError(f"{f} is not UTF-8 text (--heldout)") from None
        if f.suffix == ".jsonl":
            out += [str(json.loads(line).get("text", "")) for line in raw.splitlines() if line]
        else:
            out += paragraphs(raw)
    out = [t for t in out if t.strip()]
    if not out:
        raise JupiterError(f"no text in {path} (--heldout wants .txt/.md files or JSONL text)")
    return out


def file_validation(
    qa: Path | None,
    heldout: Path | None,
    max_items: int,
    mc_choices: int,
    max_bytes: int,
    context: int,
) -> ValidationData:
    """Validation data from files: MC items built from a QA JSONL (hard distractors, or the
    items' own choices), held-out text from a file or folder."""
    from jupiter.eval.mc import build_mc
    from jupiter.eval.qa import load_eval_set

    mc: list[MCItem] = []
    if qa is not None:
        mc = build_mc(load_eval_set(qa), mc_choices, 0, "hard")[:max_items]
    texts = heldout_file_texts(heldout) if heldout is not None else []
    about = {"qa": str(qa) if qa else None, "heldout": str(heldout) if heldout else None}
    return ValidationData(texts, mc, context, max_bytes, about | {"n_mc": len(mc)})


class Validator:
    """One loaded model (the reference input's architecture) that candidates are copied into
    and scored with."""

    def __init__(
        self,
        model_dir: Path,
        names: Sequence[str],
        data: ValidationData,
        console: Console | None = None,
    ) -> None:
        from jupiter.synth.model import ModelGenerator

        self.data = data
        self.console = console or Console(stderr=True)
        self.gen = ModelGenerator(model_dir, "merge-candidate", max_new_tokens=8)
        self.model = self.gen.model
        params = self.model.state_dict(keep_vars=True)
        missing = [n for n in names if n not in params]
        if missing:
            raise JupiterError(
                f"validation cannot place tensor {missing[0]} in {type(self.model).__name__} "
                f"(loaded from {model_dir}): merge without validation, or convert the model"
            )
        self.names = list(names)
        self.params: dict[str, torch.Tensor] = {n: params[n] for n in self.names}
        self.context = max(1, min(data.context, int(self.gen.context)))

    def load(self, tensor_of: TensorOf) -> None:
        """Copy every tensor of a candidate into the model."""
        with torch.no_grad():
            for name in self.names:
                self.params[name].copy_(tensor_of(name))

    def figures(self) -> dict[str, Any]:
        """bpb (with its 95% interval) and MC accuracy (with its interval and chance)."""
        from jupiter.eval.report import evaluate_answerer

        out: dict[str, Any] = {}
        if self.data.texts:
            got = bpb_figures(
                self.model,
                self.gen.tokenizer,
                self.data.texts,
                self.context,
                self.data.max_bytes,
                self.gen.device,
            )
            out |= {"bpb": got["bpb"], "bpb_ci": got["bpb_ci"], "bytes": got["bytes"]}
        if self.data.mc:
            rep = evaluate_answerer(self.gen, [], self.data.mc)
            out |= {k: rep[k] for k in ("mc_accuracy", "mc_accuracy_ci", "mc_chance", "n_mc")}
        return out

    def score(self, metric: Metric) -> float:
        """The candidate's score, lower is better: bpb, or minus MC accuracy."""
        if metric == "bpb":
            return self.bpb_with_grad(grad=False)
        hits = [self.gen.choose(m.question, m.choices) == m.correct for m in self.data.mc]
        return -sum(hits) / len(hits)

    def _windows(self) -> tuple[list[tuple[list[int], list[int]]], int]:
        """bits_per_byte's windows of the held-out text, and its byte count."""
        tok = self.gen.tokenizer
        scored = take_bytes(self.data.texts, self.data.max_bytes)
        start = _start_id(tok)
        windows = []
        for text in scored:
            ids = tok.encode(text, add_special_tokens=False)
            windows += _windows(([start] if start is not None else []) + ids, self.context)
        return windows, sum(len(t.encode("utf-8")) for t in scored)

    def bpb_with_grad(self, grad: bool = True) -> float:
        """Held-out bpb of the loaded candidate (the value bits_per_byte gives); with `grad`,
        its gradient is left in each parameter's .grad."""
        windows, n_bytes = self._windows()
        if not n_bytes:
            raise JupiterError("no held-out text to validate on: give --heldout or --domain")
        self.model.eval()
        self.model.zero_grad(set_to_none=True)
        total = 0.0
        dev = self.gen.device
        with torch.set_grad_enabled(grad):
            for inputs, targets in windows:  # one window at a time: no padding, little memory
                logits = self.model(input_ids=torch.tensor([inputs], device=dev)).logits[0]
                nll = F.cross_entropy(
                    logits.float(), torch.tensor(targets, device=dev), reduction="sum"
                )
                if grad:
                    (nll / (math.log(2) * n_bytes)).backward()
                total += float(nll.detach())
        return total / math.log(2) / n_bytes

    def mix_loss_grad(
        self, readers: Sequence[TensorOf], w: torch.Tensor
    ) -> tuple[float, torch.Tensor]:
        """Held-out bpb of sum_i w_i theta_i and its gradient with respect to w."""
        self.load(lambda name: mix(readers, w, name))
        loss = self.bpb_with_grad(grad=True)
        gw = torch.zeros(len(readers), dtype=torch.float64)
        for name in self.names:
            g = self.params[name].grad
            if g is None:
                continue
            g = g.detach().to("cpu", torch.float32)
            for i, read in enumerate(readers):
                gw[i] += float((g * read(name).to(torch.float32)).sum())
        self.model.zero_grad(set_to_none=True)
        return loss, gw


def mix(readers: Sequence[TensorOf], w: torch.Tensor | Sequence[float], name: str) -> torch.Tensor:
    """sum_i w_i theta_i for one tensor, read one input at a time."""
    acc: torch.Tensor | None = None
    for wi, read in zip([float(x) for x in w], readers, strict=True):
        t = read(name).to(torch.float32)
        acc = t * wi if acc is None else acc.add_(t, alpha=wi)
    assert acc is not None
    return acc
