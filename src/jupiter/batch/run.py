"""Every prompt through each model: resolved first (a bad reference stops the command
before any model loads), then one model at a time, batched greedy decoding with the KV cache
(models/decode.py's LocalLM: the model's chat template, eos and turn-end tokens)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from jupiter.batch.prompts import PromptItem


@dataclass(frozen=True)
class BatchOptions:
    max_new_tokens: int = 128
    max_batch: int = 16  # prompts decoded together
    chat_template: str = "auto"  # the model's own, else its family's (as chat and serve)
    system_prompt: str = ""
    dtype: str = "auto"  # bf16 on CUDA, fp32 elsewhere
    device: str | None = None


@dataclass(frozen=True)
class ModelInput:
    ref: str  # as given
    label: str  # its column in the table
    path: Path  # the local HF dir or adapter dir


@dataclass(frozen=True)
class Answer:
    text: str
    finish_reason: str  # stop | length
    prompt_tokens: int
    completion_tokens: int
    batch_seconds: float  # wall time of the batch the prompt was decoded in


@dataclass
class ModelRun:
    model: ModelInput
    answers: list[Answer] = field(default_factory=list)
    load_seconds: float = 0.0
    seconds: float = 0.0  # decoding, all batches


def resolve_models(refs: Sequence[str], cache_dir: Path, console: Console) -> list[ModelInput]:
    """Each --model as a local dir (GGUF and Ollama models imported once into `cache_dir`),
    its files checked, with a column label unique among them."""
    from jupiter.models.integrity import check_model_files
    from jupiter.models.reference import locate_model, resolve_model

    out: list[ModelInput] = []
    taken: set[str] = set()
    for ref in refs:
        found = locate_model(ref, base_dir=None)
        path = resolve_model(ref, base_dir=None, cache_dir=cache_dir, console=console)
        check_model_files(path)  # every model's files, before the first one answers
        label = found.label
        if label in taken:  # two runs' final/: name them by their parents
            label = f"{found.path.parent.parent.name}/{label}"
        k = 2
        while label in taken:
            label, k = f"{found.label} #{k}", k + 1
        taken.add(label)
        out.append(ModelInput(ref, label, path))
    return out


def decode_all(
    model: ModelInput,
    items: Sequence[PromptItem],
    opts: BatchOptions,
    on_batch: Callable[[int], None] = lambda n: None,
) -> ModelRun:
    """The model's greedy answer to every prompt, in the prompts' order. Prompts are batched
    by length (less left padding); each answer does not depend on its batch."""
    from jupiter.models.decode import LocalLM
    from jupiter.synth.backend import Sampling

    t0 = time.perf_counter()
    lm = LocalLM(
        model.path,
        device=opts.device,
        dtype=opts.dtype,
        max_batch=opts.max_batch,
        chat_template=opts.chat_template,
    )
    run = ModelRun(model, load_seconds=time.perf_counter() - t0)
    system = [{"role": "system", "content": opts.system_prompt}] if opts.system_prompt else []
    prompts = [lm.chat_ids([*system, {"role": "user", "content": it.prompt}]) for it in items]
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    greedy = Sampling(max_tokens=opts.max_new_tokens, temperature=0.0)
    answers: dict[int, Answer] = {}
    for start in range(0, len(order), lm.max_batch):
        rows = order[start : start + lm.max_batch]
        t = time.perf_counter()
        outs = lm.generate([prompts[i] for i in rows], [greedy] * len(rows))
        took = time.perf_counter() - t
        run.seconds += took
        for i, o in zip(rows, outs, strict=True):
            answers[i] = Answer(o.text, o.finish_reason, o.prompt_tokens, o.completion_tokens, took)
        on_batch(len(rows))
    run.answers = [answers[i] for i in range(len(prompts))]
    _release(lm)
    return run


def _release(lm: object) -> None:
    """Free the model before the next one loads."""
    import torch

    del lm
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def run_models(
    models: Sequence[ModelInput],
    items: Sequence[PromptItem],
    opts: BatchOptions,
    console: Console,
) -> list[ModelRun]:
    """Every prompt through each model, one model at a time, under a progress bar."""
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    runs: list[ModelRun] = []
    with bar:
        for m in models:
            task = bar.add_task(m.label, total=len(items))

            def advance(n: int, task: TaskID = task) -> None:
                bar.advance(task, n)

            runs.append(decode_all(m, items, opts, advance))
    return runs
