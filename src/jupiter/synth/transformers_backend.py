"""A local Hugging Face model as a generation backend: a batch of requests becomes one
batched decode (jupiter.models.decode.LocalLM), run off the event loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from jupiter.errors import JupiterError
from jupiter.synth.backend import Completion, Request

if TYPE_CHECKING:
    from jupiter.models.decode import LocalLM


class TransformersBackend:
    """The `Backend` protocol over a model dir (or LoRA adapter dir) loaded in this process.

    Construction is cheap: the model loads on the first `check` or `complete`.
    """

    name = "transformers"

    def __init__(
        self,
        model_dir: Path,
        max_batch: int = 16,
        device: str | None = None,
        dtype: str = "auto",
        chat_template: str = "auto",
    ) -> None:
        self.model_dir = Path(model_dir)
        self.model = str(model_dir)
        self.max_batch = max(1, max_batch)
        self.device = device
        self.dtype = dtype
        self.chat_template = chat_template  # data/templates.py: auto, a name or a .jinja path
        self._lm: LocalLM | None = None
        # A threading lock, not an asyncio one: batches run in worker threads, and the
        # backend may be driven by several event loops in turn (one asyncio.run each).
        self._lock = threading.Lock()

    def _loaded(self) -> LocalLM:
        from jupiter.models.decode import LocalLM
        from jupiter.models.folder import is_model_dir

        if self._lm is None:
            if not is_model_dir(self.model_dir):
                raise JupiterError(
                    f"transformers backend: no model at {self.model_dir} (no config.json or "
                    "adapter_config.json): point the generator's model at a Hugging Face "
                    "model dir or a LoRA adapter dir"
                )
            self._lm = LocalLM(
                self.model_dir,
                device=self.device,
                dtype=self.dtype,
                max_batch=self.max_batch,
                chat_template=self.chat_template,
            )
        return self._lm

    def _load(self) -> None:
        with self._lock:
            self._loaded()

    def _run(self, requests: Sequence[Request]) -> list[Completion]:
        with self._lock:  # one batch at a time: two would share the device's memory
            lm = self._loaded()
            prompts = [lm.request_ids(r) for r in requests]
            outs = lm.generate(prompts, [r.sampling for r in requests])
        return [
            Completion(o.text, o.finish_reason, o.prompt_tokens, o.completion_tokens) for o in outs
        ]

    async def check(self) -> None:
        """Raise JupiterError when the dir holds no model; else load it."""
        await asyncio.to_thread(self._load)

    async def complete(self, requests: Sequence[Request]) -> list[Completion]:
        """One completion per request, in order, from one batched decode."""
        if not requests:
            return []
        return await asyncio.to_thread(self._run, list(requests))

    async def close(self) -> None:
        with self._lock:
            self._lm = None
