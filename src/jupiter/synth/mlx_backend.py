"""A local Hugging Face model as a generator through mlx-lm (Apple silicon, or the CPU build
of mlx on Linux): the model dir is read by mlx-lm with the same parameter names transformers
uses, and a `complete` batch runs as one continuous batch (mlx-lm's `BatchGenerator`).

Every request of a batch goes through the same batched decode, whatever its sampling: the
generator takes one sampler per sequence, so greedy requests share mlx-lm's greedy sampler,
unseeded requests with equal (temperature, top_p) share one sampler, and a seeded request
draws from its own key chain. A seeded request thus samples the same tokens alone or in any
batch, and no request needs a one-by-one fallback.

Text is decoded without special tokens, as the transformers backend does. `completion_tokens`
counts every generated token, the eos (or the token that completed a stop string) included.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.synth.backend import Completion, Request, Sampling

Decode = Callable[[list[int]], str]


def require_mlx() -> None:
    """Import mlx and mlx-lm, or raise the JupiterError that says how to install them."""
    try:
        import mlx.core  # noqa: F401
        import mlx_lm  # noqa: F401
    except ImportError as err:
        # PyPI's plain `mlx` wheel on Linux has no backend; the CPU one is the `cpu` extra.
        extra = ' "mlx[cpu]"' if sys.platform.startswith("linux") else ""
        raise JupiterError(
            f'the mlx backend needs mlx and mlx-lm ({err}): pip install "mlx-lm"{extra}'
        ) from None


def rope_overrides(model_dir: Path) -> dict[str, Any]:
    """Config keys mlx-lm needs from a transformers>=5 config. Those write the RoPE settings
    as `rope_parameters`; mlx-lm 0.32 reads only the older top-level `rope_theta` and
    `rope_scaling`, and silently takes its own default otherwise (1e6 for Qwen2, where the
    model was trained with 1e4), so the weights load but the output is wrong."""
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise JupiterError(
            f"unreadable {model_dir / 'config.json'}: {err}: re-save the model"
        ) from None
    params = config.get("rope_parameters")
    if not isinstance(params, dict) or "rope_theta" not in params:
        return {}  # older format, or per-layer-type parameters mlx-lm reads itself
    out: dict[str, Any] = {}
    if "rope_theta" not in config:
        out["rope_theta"] = params["rope_theta"]
    if params.get("rope_type", "default") != "default" and not config.get("rope_scaling"):
        out["rope_scaling"] = params  # llama3 / yarn / linear keys are the same in both
    return out


class _SeededSampler:
    """Temperature + top-p sampling from a key chain of its own, so the tokens depend on the
    seed alone, not on what else shares the batch or the global mx.random state."""

    def __init__(self, temperature: float, top_p: float, seed: int) -> None:
        import mlx.core as mx

        self.temperature = temperature
        self.top_p = top_p
        self.key = mx.random.key(seed)

    def __call__(self, logprobs: Any) -> Any:
        import mlx.core as mx
        from mlx_lm.sample_utils import apply_top_p

        self.key, sub = mx.random.split(self.key)
        # Same order as mlx-lm's make_sampler: top-p on the logprobs, then temperature.
        if 0.0 < self.top_p < 1.0:
            logprobs = apply_top_p(logprobs, self.top_p)
        return mx.random.categorical(logprobs * (1.0 / self.temperature), key=sub)


def _samplers_for(settings: Sequence[Sampling]) -> list[Callable[[Any], Any]]:
    """One sampler per request. Requests that can share a sampler get the same object, which
    lets mlx-lm sample the whole batch in one call instead of row by row."""
    from mlx_lm.sample_utils import greedy_sampler, make_sampler

    shared: dict[tuple[float, float], Callable[[Any], Any]] = {}
    out: list[Callable[[Any], Any]] = []
    for s in settings:
        if s.temperature <= 0.0:
            out.append(greedy_sampler)
        elif s.seed is not None:
            out.append(_SeededSampler(s.temperature, s.top_p, s.seed))
        else:
            key = (s.temperature, s.top_p)
            if key not in shared:
                shared[key] = make_sampler(temp=s.temperature, top_p=s.top_p)
            out.append(shared[key])
    return out


def prompt_ids(tokenizer: Any, request: Request) -> list[int]:
    """A chat rendered with the model's template (generation prompt added), or a plain
    prompt tokenized as it is."""
    if request.messages is not None:
        messages = [dict(m) for m in request.messages]
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        # The template writes bos itself; specials added here would double it.
        return list(tokenizer.encode(text, add_special_tokens=False))
    prompt = request.prompt or ""
    bos = tokenizer.bos_token
    # As mlx-lm's stream_generate does: add bos unless the prompt already starts with it.
    add = bos is None or not prompt.startswith(bos)
    return list(tokenizer.encode(prompt, add_special_tokens=add))


@dataclass
class _Output:
    """One request's generated tokens, until its completion is known."""

    prompt_tokens: int
    stops: tuple[str, ...]
    tokens: list[int] = field(default_factory=list)
    generated: int = 0
    completion: Completion | None = None

    def push(self, token: int, finish: str | None, decode: Decode) -> bool:
        """Take the next token (mlx-lm's finish: "stop" on a stop token, "length" at
        max_tokens); True once the completion is known."""
        self.generated += 1
        if finish == "stop":  # an eos or stop token: counted, not part of the text
            return self._finish(decode(self.tokens), "stop")
        self.tokens.append(token)
        cut = self._stop_cut(decode)
        if cut is not None:
            return self._finish(cut, "stop")
        if finish is not None:
            return self._finish(decode(self.tokens), finish)
        return False

    def _stop_cut(self, decode: Decode) -> str | None:
        """The text before the first stop string, once one has appeared; else None."""
        if not self.stops:
            return None
        # Only the tail can hold a new match. A token decodes to at least one character,
        # except the pieces of a multi-byte character (up to 4), hence 4 tokens a character.
        window = 4 * max(len(s) for s in self.stops) + 4
        tail = decode(self.tokens[-window:])
        if not any(s in tail for s in self.stops):
            return None
        text = decode(self.tokens)
        found = [text.find(s) for s in self.stops if s in text]
        return text[: min(found)] if found else None

    def _finish(self, text: str, reason: str) -> bool:
        self.completion = Completion(text, reason, self.prompt_tokens, self.generated)
        return True


def _stop_tokens(tokenizer: Any, stops: Sequence[str]) -> tuple[set[int], tuple[str, ...]]:
    """(stop token ids, text stop strings). A stop string that is a special token (say
    "<|im_start|>") is matched as a token: the decoded text skips special tokens."""
    added: dict[str, int] = tokenizer.get_added_vocab()
    ids = set(tokenizer.eos_token_ids) | {added[s] for s in stops if s in added}
    return ids, tuple(s for s in stops if s and s not in added)


def _drain(generator: Any, outputs: dict[int, _Output], decode: Decode) -> None:
    """Step the batch generator until every sequence has finished or hit a stop string."""
    while responses := generator.next_generated():
        for r in responses:
            out = outputs[r.uid]
            if out.completion is not None:
                continue
            if out.push(int(r.token), r.finish_reason, decode) and r.finish_reason is None:
                # A text stop string: mlx-lm does not know it ended, so take it out.
                generator.remove([r.uid])


class MLXBackend:
    """The model (or merged LoRA adapter) in `model_dir`, served by mlx-lm; loaded on the
    first check() or complete()."""

    name = "mlx"

    def __init__(self, model_dir: Path, max_batch: int = 16, chat_template: str = "auto") -> None:
        self.model_dir = Path(model_dir)
        self.model = str(model_dir)
        self.max_batch = max(1, max_batch)
        self.chat_template = chat_template  # data/templates.py: auto, a name or a .jinja path
        self._lock = asyncio.Lock()  # one generation at a time: mlx-lm's state is shared
        self._loaded: tuple[Any, Any] | None = None
        self._merged: Path | None = None
        self._cleanup: weakref.finalize[Any, Any] | None = None

    async def check(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self._load)

    async def complete(self, requests: Sequence[Request]) -> list[Completion]:
        if not requests:
            return []
        async with self._lock:
            return await asyncio.to_thread(self._complete, list(requests))

    async def close(self) -> None:
        async with self._lock:
            self._loaded = None
            self._merged = None
            if self._cleanup is not None:
                self._cleanup()  # removes the merged adapter's temp dir
                self._cleanup = None

    # ------------------------------------------------------------------ loading
    def _weights_dir(self) -> Path:
        """The dir mlx-lm reads: `model_dir`, or a LoRA adapter merged into its base once,
        in a temp dir (mlx-lm cannot apply PEFT adapters itself)."""
        from jupiter.models.folder import is_adapter_dir, is_model_dir
        from jupiter.models.loading import merge_adapter

        if not self.model_dir.is_dir() or not is_model_dir(self.model_dir):
            raise JupiterError(
                f"mlx backend: no model in {self.model_dir} (no config.json or "
                "adapter_config.json): point it at a Hugging Face model dir or a LoRA adapter dir"
            )
        if not is_adapter_dir(self.model_dir):
            return self.model_dir
        if self._merged is None:
            tmp = Path(tempfile.mkdtemp(prefix="jupiter-mlx-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, tmp, True)
            self._merged = merge_adapter(self.model_dir, tmp / "merged")
        return self._merged

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is not None:
            return self._loaded
        require_mlx()
        from mlx_lm import load

        from jupiter.data.templates import model_type_of, set_chat_template, stop_token_ids

        path = self._weights_dir()
        try:
            # `load` is typed to return 2 or 3 items (return_config); we ask for 2.
            loaded: Any = load(str(path), model_config=rope_overrides(path))
            model, tokenizer = loaded
        except (ValueError, FileNotFoundError, KeyError) as err:
            raise JupiterError(
                f"mlx-lm cannot load {self.model_dir}: {err}: use a safetensors model of a "
                "family mlx-lm supports (Llama, Mistral, Qwen2 …) or the transformers backend"
            ) from None
        hf = tokenizer._tokenizer  # mlx-lm's wrapper delegates rendering to it
        set_chat_template(hf, self.chat_template, model_type_of(path))
        for tid in stop_token_ids(hf):  # the turn end (Gemma's <end_of_turn>) stops too
            tokenizer.add_eos_token(tid)
        self._loaded = (model, tokenizer)
        return self._loaded

    # --------------------------------------------------------------- generation
    def _complete(self, requests: list[Request]) -> list[Completion]:
        """Blocking: every request of the call in one continuous batch."""
        from mlx_lm.generate import BatchGenerator, StopSequences

        model, tokenizer = self._load()
        prompts = [prompt_ids(tokenizer, r) for r in requests]
        results: list[Completion | None] = [None] * len(requests)
        todo: list[int] = []
        for i, (request, ids) in enumerate(zip(requests, prompts, strict=True)):
            if not ids:
                raise JupiterError(f"mlx backend: request {i} has an empty prompt: give it text")
            if request.sampling.max_tokens <= 0:
                results[i] = Completion("", "length", len(ids), 0)
            else:
                todo.append(i)
        stops = [_stop_tokens(tokenizer, requests[i].sampling.stop) for i in todo]
        generator = BatchGenerator(
            model, completion_batch_size=self.max_batch, prefill_batch_size=self.max_batch
        )
        try:
            uids = generator.insert(
                [prompts[i] for i in todo],
                max_tokens=[requests[i].sampling.max_tokens for i in todo],
                samplers=_samplers_for([requests[i].sampling for i in todo]),
                stop_sequences=[StopSequences([(t,) for t in ids]) for ids, _ in stops],
            )
            outputs = {
                uid: _Output(len(prompts[i]), texts)
                for uid, i, (_, texts) in zip(uids, todo, stops, strict=True)
            }

            def decode(ids: list[int]) -> str:
                # No space clean-up: the text is exactly what the tokens spell.
                text = tokenizer.decode(
                    ids, skip_special_tokens=True, clean_up_tokenization_spaces=False
                )
                return str(text)

            _drain(generator, outputs, decode)
        finally:
            generator.close()
        for uid, i in zip(uids, todo, strict=True):
            results[i] = outputs[uid].completion
        if any(c is None for c in results):
            raise RuntimeError("mlx-lm ended a batch before every sequence finished")
        return [c for c in results if c is not None]
