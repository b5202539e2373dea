"""Batched local generation with per-request sampling and streaming text.

One left-padded batch is prefilled once, then decoded token by token with the KV cache.
Each row has its own temperature, top-p, seed, token budget and stop strings, and its text
is handed out as it is produced. `model.generate` cannot do either (one sampling config per
batch, no per-row streaming), so the decode loop is written out here.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupiter.errors import JupiterError
from jupiter.synth.backend import Message, Request, Sampling

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase

DTYPES = ("auto", "float32", "bfloat16", "float16")
CPUINFO = Path("/proc/cpuinfo")
REPLACEMENT = "\ufffd"  # what a partial UTF-8 sequence decodes to: wait for its next byte

TextCallback = Callable[[int, str], None]


@dataclass
class GenOutput:
    """One row's result: its text (stop string and eos excluded), the generated ids (eos
    included, as it was generated), why it ended, and token counts."""

    text: str
    token_ids: list[int]
    finish_reason: str  # "stop" | "length"
    prompt_tokens: int
    completion_tokens: int


@functools.cache
def cpu_runs_bf16() -> bool:
    """Whether this CPU runs bf16 matmuls natively (AVX-512 BF16 or AMX); elsewhere torch
    emulates bf16 and it is slower than fp32."""
    import torch

    if "AMX" in torch.backends.cpu.get_cpu_capability():
        return True
    try:
        flags = CPUINFO.read_text(encoding="ascii", errors="replace")
    except OSError:  # not Linux: no way to ask, so no
        return False
    return "avx512_bf16" in flags.split()


def torch_dtype(name: str, device: torch.device, *, cpu_bf16: bool = False) -> torch.dtype:
    """ "auto" is bf16 on CUDA (half the memory, full fp32 range) and fp32 elsewhere; with
    `cpu_bf16`, also bf16 on a CPU that runs it natively (`cpu_runs_bf16`)."""
    import torch

    if name not in DTYPES:
        raise JupiterError(f"unknown dtype '{name}': choose one of {', '.join(DTYPES)}")
    if name == "auto":
        if device.type == "cuda" or (cpu_bf16 and device.type == "cpu" and cpu_runs_bf16()):
            return torch.bfloat16
        return torch.float32
    result: torch.dtype = getattr(torch, name)
    return result


class TextStream:
    """Incremental detokenization of one row, cut at its stop strings.

    Decodes a window of the last tokens rather than the whole row (the prefix/read offsets
    of text-generation-inference): the token before the window keeps leading spaces right
    for sentencepiece decoders. Text ending in U+FFFD is an incomplete UTF-8 character and
    waits for the next token; text that could be the start of a stop string is held back.
    """

    def __init__(self, tokenizer: PreTrainedTokenizerBase, stops: Sequence[str]) -> None:
        self.tokenizer = tokenizer
        self.stops = [s for s in stops if s]
        self.text = ""
        self.stopped = False  # a stop string was found; text ends just before it
        self._ids: list[int] = []
        self._prefix = 0
        self._read = 0
        self._emitted = 0

    def _decode(self, ids: list[int]) -> str:
        return str(
            self.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)
        )

    def _read_window(self, flush: bool) -> None:
        before = self._decode(self._ids[self._prefix : self._read])
        after = self._decode(self._ids[self._prefix :])
        if len(after) > len(before) and (flush or not after.endswith(REPLACEMENT)):
            self.text += after[len(before) :]
            self._prefix, self._read = self._read, len(self._ids)
            self._cut_at_stop()

    def _cut_at_stop(self) -> None:
        # Only the tail can hold a new match: earlier text was searched already.
        start = max(0, self._emitted - max((len(s) for s in self.stops), default=0))
        found = [i for i in (self.text.find(s, start) for s in self.stops) if i >= 0]
        if found:
            self.text = self.text[: min(found)]
            self.stopped = True

    def _held(self) -> int:
        """Length of the longest end of the text that begins some stop string."""
        for n in range(min(len(self.text), max((len(s) for s in self.stops), default=0)), 0, -1):
            tail = self.text[-n:]
            if any(s.startswith(tail) and s != tail for s in self.stops):
                return n
        return 0

    def _release(self, final: bool) -> str:
        safe = len(self.text) if final or self.stopped else len(self.text) - self._held()
        delta = self.text[self._emitted : safe] if safe > self._emitted else ""
        self._emitted = max(self._emitted, safe)
        return delta

    def push(self, token: int) -> str:
        """Add a generated token; the text it makes safe to show (may be empty)."""
        self._ids.append(token)
        self._read_window(flush=False)
        return self._release(final=False)

    def finish(self) -> str:
        """The text still held back, now that the row has ended."""
        if not self.stopped:
            self._read_window(flush=True)
        return self._release(final=True)


@dataclass
class _Row:
    prompt_len: int
    budget: int
    sampling: Sampling
    stream: TextStream
    generator: Any  # torch.Generator, or None when greedy
    ids: list[int] = field(default_factory=list)
    finish: str | None = None


def cut_left(ids: Sequence[int], budget: int, bos: int | None) -> list[int]:
    """`ids` cut from the left to `budget` tokens; a leading bos survives the cut, so the
    model still sees a well-formed start."""
    ids = list(ids)
    if len(ids) <= budget:
        return ids
    if bos is not None and ids[0] == bos and budget > 1:
        return [bos, *ids[len(ids) - budget + 1 :]]
    return ids[len(ids) - budget :]


def left_pad(prompts: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, attention mask) with every prompt ending at the last column, where
    generation starts."""
    import torch

    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
        mask[i, width - len(p) :] = 1
    return ids, mask


def nucleus(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """Probabilities with the tail outside the top-p mass zeroed (Holtzman et al. 2019);
    the most likely token always stays."""
    if top_p >= 1.0:
        return probs
    sorted_p, order = probs.sort(descending=True)
    # drop a token when the mass before it already reaches top_p
    sorted_p[(sorted_p.cumsum(-1) - sorted_p) >= top_p] = 0.0
    return probs.new_zeros(probs.shape).scatter(-1, order, sorted_p)


class LocalLM:
    """A Hugging Face causal LM (or LoRA adapter) that completes batches of token prompts."""

    def __init__(
        self,
        model_dir: Path,
        device: str | None = None,
        dtype: str = "auto",
        max_batch: int = 16,
        chat_template: str = "auto",
    ) -> None:
        import torch

        from jupiter.data.chat import pad_id_for
        from jupiter.models.loading import load_for_inference

        self.name = str(model_dir)
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.max_batch = max(1, max_batch)
        self.model, self.tokenizer = load_for_inference(
            Path(model_dir),
            device=self.device,
            dtype=torch_dtype(dtype, self.device),
            chat_template=chat_template,
        )
        self.pad_id = pad_id_for(self.tokenizer)
        self.context = int(getattr(self.model.config, "max_position_embeddings", 2048))
        self.eos_ids = self._eos_ids()
        if not self.eos_ids:
            raise JupiterError(f"the tokenizer in {model_dir} has no eos token: set eos_token")

    def _eos_ids(self) -> set[int]:
        """eos, the chat template's turn-end token and generation_config's eos ids."""
        from jupiter.data.templates import stop_token_ids

        saved = getattr(self.model.generation_config, "eos_token_id", None)
        return set(stop_token_ids(self.tokenizer, [saved]))

    # ------------------------------------------------------------------------- prompts
    def chat_ids(self, messages: Sequence[Message]) -> list[int]:
        """The chat rendered by the model's template with the assistant prompt appended.

        Tokenized without specials: the template writes bos itself. A system message the
        template rejects is folded into the first user turn, as in training.
        """
        from jinja2.exceptions import TemplateError

        from jupiter.data.chat import fit_template

        fitted, _ = fit_template(self.tokenizer, messages)
        try:
            text = self.tokenizer.apply_chat_template(
                fitted, tokenize=False, add_generation_prompt=True
            )
        except TemplateError as e:
            raise JupiterError(f"the chat template rejected the chat: {e}") from None
        if not isinstance(text, str):
            raise JupiterError("the tokenizer's chat template did not render to text")
        ids: list[int] = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return ids

    def prompt_ids(self, text: str) -> list[int]:
        """A plain completion prompt, with the specials the tokenizer adds (bos, mostly)."""
        ids: list[int] = self.tokenizer(text)["input_ids"]
        return ids

    def request_ids(self, request: Request) -> list[int]:
        """The prompt of a chat or completion request; JupiterError when it has no tokens."""
        if request.messages is not None:
            ids = self.chat_ids(request.messages)
        else:
            ids = self.prompt_ids(request.prompt or "")
        if not ids:
            raise JupiterError("the prompt has no tokens: give it some text")
        return ids

    def _fit(self, prompt: Sequence[int]) -> list[int]:
        """The prompt cut from the left to context - 1 tokens, keeping a leading bos."""
        if not prompt:
            raise JupiterError("a prompt has no tokens: give it some text")
        return cut_left(prompt, self.context - 1, self.tokenizer.bos_token_id)

    # ------------------------------------------------------------------------ generate
    def generate(
        self,
        prompts: Sequence[list[int]],
        params: Sequence[Sampling],
        on_text: TextCallback | None = None,
    ) -> list[GenOutput]:
        """One output per prompt, in order, `max_batch` rows per forward batch.

        `on_text(row, delta)` gets each row's new text as it is generated; the deltas of a
        row concatenate to its final text.
        """
        if len(prompts) != len(params):
            raise ValueError(f"{len(prompts)} prompts but {len(params)} sampling params")
        out: list[GenOutput] = []
        for start in range(0, len(prompts), self.max_batch):
            end = start + self.max_batch
            out += self._generate_batch(prompts[start:end], params[start:end], start, on_text)
        return out

    def _new_row(self, prompt: list[int], sampling: Sampling) -> _Row:
        import torch

        generator = None
        if sampling.temperature > 0:
            seed = sampling.seed if sampling.seed is not None else secrets.randbits(63)
            generator = torch.Generator(device=self.device).manual_seed(seed)
        budget = max(0, min(sampling.max_tokens, self.context - len(prompt)))
        stream = TextStream(self.tokenizer, sampling.stop)
        return _Row(len(prompt), budget, sampling, stream, generator)

    def _generate_batch(
        self,
        prompts: Sequence[list[int]],
        params: Sequence[Sampling],
        offset: int,
        on_text: TextCallback | None,
    ) -> list[GenOutput]:
        import torch
        from transformers import DynamicCache

        from jupiter.models.scoring import _cache_kwarg

        fitted = [self._fit(p) for p in prompts]
        rows = [self._new_row(p, s) for p, s in zip(fitted, params, strict=True)]
        for row in rows:
            if row.budget == 0:
                row.finish = "length"
        ids, mask = (t.to(self.device) for t in left_pad(fitted, self.pad_id))
        # Left padding shifts each row; positions count real tokens only, so a row gets the
        # same rotary positions in a batch as alone.
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache(config=self.model.config)
        cache_arg = {_cache_kwarg(self.model): cache}  # its name changed in transformers 5.24
        with torch.inference_mode():
            while any(r.finish is None for r in rows):
                out = self.model(
                    input_ids=ids,
                    attention_mask=mask,
                    position_ids=positions,
                    use_cache=True,
                    logits_to_keep=1,
                    **cache_arg,
                )
                tokens = self._choose(out.logits[:, -1].float(), rows)
                for i, (row, token) in enumerate(zip(rows, tokens, strict=True)):
                    if row.finish is None:
                        self._advance(row, token, offset + i, on_text)
                # finished rows keep feeding a pad token: their output is no longer read
                feed = [
                    t if r.finish is None else self.pad_id
                    for r, t in zip(rows, tokens, strict=True)
                ]
                ids = torch.tensor(feed, device=self.device)[:, None]
                mask = torch.cat([mask, mask.new_ones((len(rows), 1))], dim=1)
                positions = positions[:, -1:] + 1
        return [self._output(row) for row in rows]

    def _choose(self, logits: torch.Tensor, rows: list[_Row]) -> list[int]:
        """The next token of every row: argmax when greedy, else a draw from the row's
        own generator, so a seeded row draws the same tokens in any batch."""
        import torch

        picked = list(logits.argmax(dim=-1).unbind(0))
        for i, row in enumerate(rows):
            if row.finish is not None or row.generator is None:
                continue
            probs = torch.softmax(logits[i] / row.sampling.temperature, dim=-1)
            probs = nucleus(probs, row.sampling.top_p)
            picked[i] = torch.multinomial(probs, 1, generator=row.generator)[0]
        return [int(t) for t in torch.stack(picked).tolist()]

    def _advance(self, row: _Row, token: int, index: int, on_text: TextCallback | None) -> None:
        row.ids.append(token)
        delta = ""
        if token in self.eos_ids:
            row.finish = "stop"
        else:
            delta = row.stream.push(token)
            if row.stream.stopped:
                row.finish = "stop"
            elif len(row.ids) >= row.budget:
                row.finish = "length"
        if row.finish is not None:
            delta += row.stream.finish()
        if delta and on_text is not None:
            on_text(index, delta)

    @staticmethod
    def _output(row: _Row) -> GenOutput:
        return GenOutput(
            text=row.stream.text,
            token_ids=row.ids,
            finish_reason=row.finish or "length",
            prompt_tokens=row.prompt_len,
            completion_tokens=len(row.ids),
        )
