"""The one interface every LLM backend implements: a request in, a completion out.

A request is either chat (`messages`) or plain completion (`prompt`), with its sampling
parameters. Its cache key hashes the backend, the model, the prompt and the sampling
parameters (seed included), so the same call is never paid for twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

Message = dict[str, str]


@dataclass(frozen=True)
class Sampling:
    """OpenAI-style sampling parameters; temperature 0 means greedy."""

    max_tokens: int = 256
    temperature: float = 0.7
    top_p: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] = ()
    # the answer's JSON schema (its JSON text) and how to ask for it: "json_schema" or
    # "json_object" (llm.response_format); "" = free text
    schema: str = ""
    schema_form: str = ""


def sampling_key(s: Sampling) -> dict[str, Any]:
    """The sampling fields of a cache key; a free-text request's key leaves the schema
    fields out, as it did before they existed (caches written then stay valid)."""
    out = asdict(s)
    if not s.schema:
        del out["schema"], out["schema_form"]
    return out


@dataclass(frozen=True)
class Request:
    """One call: chat `messages`, or a completion `prompt` (exactly one of them)."""

    messages: tuple[Message, ...] | None = None
    prompt: str | None = None
    sampling: Sampling = field(default_factory=Sampling)

    def __post_init__(self) -> None:
        if (self.messages is None) == (self.prompt is None):
            raise ValueError("a Request has either messages or a prompt, not both or neither")

    @property
    def is_chat(self) -> bool:
        return self.messages is not None

    def key(self, backend: str, model: str) -> str:
        """sha256 of (backend, model, prompt, sampling): the llm cache's primary key."""
        body = {
            "backend": backend,
            "model": model,
            "messages": [dict(m) for m in self.messages] if self.messages is not None else None,
            "prompt": self.prompt,
            "sampling": sampling_key(self.sampling),
        }
        raw = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(raw.encode()).hexdigest()


@dataclass(frozen=True)
class Completion:
    """What came back: the text, why it ended ("stop" or "length"), and token counts."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def well_formed(self) -> bool:
        """Every field of its type: only such a completion is cached or parsed."""
        counts = (self.prompt_tokens, self.completion_tokens)
        return (
            isinstance(self.text, str)
            and isinstance(self.finish_reason, str)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in counts)
        )


# the reject reason of an answer that is no completion: a number, a list or an object
# where the text should be
MALFORMED_CONTENT = "malformed:content_not_text"


class MalformedAnswer(Exception):
    """A server answered, but not with text; the message is the reject reason. Not worth a
    retry (the server meant it) nor a cache row (a re-run asks again)."""


def cached_completion(record: Any) -> Completion | None:
    """A cached answer as a Completion, or None when the row no longer parses as one."""
    if not isinstance(record, dict):
        return None
    try:
        out = Completion(**record)
    except TypeError:  # a missing text, or a key Completion does not have
        return None
    return out if out.well_formed() else None


@runtime_checkable
class Backend(Protocol):
    """An LLM that completes requests. `complete` takes a batch: HTTP backends send its
    requests concurrently, local backends run them as one batched forward pass."""

    name: str  # "openai", "transformers", "mlx", "cluster": part of the cache key
    model: str  # the model's name or path: part of the cache key
    max_batch: int  # how many requests one `complete` call should carry

    async def check(self) -> None:
        """Raise JupiterError with the fix when the backend cannot serve (unreachable,
        missing model); called once before a run starts."""
        ...

    async def complete(self, requests: Sequence[Request]) -> list[Completion]:
        """One completion per request, in order. Raises on failure; the engine retries."""
        ...

    async def close(self) -> None: ...
