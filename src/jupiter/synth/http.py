"""OpenAI-compatible HTTP backends: one server (Ollama, llama.cpp, vLLM, LM Studio,
mlx_lm.server, TGI, `jupiter serve`), or several load-balanced.

Failures are sorted for the engine: a timeout, a refused connection, 429, 5xx or a body
that is no chat or completion response is `Retryable` (the engine backs off and retries);
any other 4xx is a `BackendError`; a well-formed response whose content is not text is a
`MalformedAnswer` (a reject, never cached).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from typing import Any

import httpx

from jupiter.config import LLMConfig
from jupiter.errors import JupiterError
from jupiter.synth.backend import (
    MALFORMED_CONTENT,
    Backend,
    Completion,
    MalformedAnswer,
    Message,
    Request,
)


class BackendError(Exception):
    """A request the server refused for good (a 4xx other than 429, or a malformed body)."""


class Retryable(Exception):
    """A failure worth retrying; `retry_after` is the server's Retry-After, in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def flatten(messages: Sequence[Message]) -> str:
    """A chat as plain text for a completions endpoint (base models without a template)."""
    parts = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
    return "\n\n".join(parts) + "\n\nAssistant:"


def token_count(usage: Any, key: str) -> int:
    """A usage count; a server's odd usage (a word, null, a list) counts 0, since the
    answer itself may be fine and usage is only bookkeeping."""
    value: Any = usage.get(key) if isinstance(usage, dict) else None
    if isinstance(value, bool):
        return 0
    try:
        return max(int(value), 0)
    except (TypeError, ValueError, OverflowError):
        return 0


def completion_of(data: Any, chat: bool) -> Completion:
    """The Completion in a response body. Raises KeyError when the body is no chat or
    completion response, MalformedAnswer when its content is not text."""
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) and chat else choice
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise KeyError("choices")
    key = "content" if chat else "text"
    if key not in message:
        raise KeyError(key)
    text = message[key]  # null: a chat answer with no text (a tool call), read as ""
    if text is not None and not isinstance(text, str):
        raise MalformedAnswer(MALFORMED_CONTENT)
    reason = choice.get("finish_reason")
    usage = data.get("usage")
    return Completion(
        text=text or "",
        finish_reason=reason if isinstance(reason, str) and reason else "stop",
        prompt_tokens=token_count(usage, "prompt_tokens"),
        completion_tokens=token_count(usage, "completion_tokens"),
    )


def _retry_after(resp: httpx.Response) -> float | None:
    try:
        return float(resp.headers.get("retry-after", ""))
    except ValueError:
        return None


class HTTPBackend:
    """One OpenAI-compatible server. `api` picks /chat/completions or /completions."""

    name = "openai"
    max_batch = 1  # the server batches; the engine keeps `concurrency` requests in flight

    def __init__(self, cfg: LLMConfig) -> None:
        self.base_url = cfg.base_url.rstrip("/")
        self.model = cfg.model
        self.api = cfg.api
        # part of the cache key: the same request means another prompt through /completions
        self.name = "openai" if cfg.api == "chat" else "openai-completions"
        self.timeout = cfg.timeout
        headers = {}
        self.key_env = cfg.api_key_env
        if cfg.api_key_env:
            key = os.environ.get(cfg.api_key_env)
            if not key:
                raise JupiterError(
                    f"generator: the API key variable {cfg.api_key_env} is not set: export "
                    f"it, or set llm.api_key_env: '' for a server without a key"
                )
            headers["Authorization"] = f"Bearer {key}"
        self.headers = headers
        self.concurrency = cfg.concurrency
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """One client per event loop: connections belong to the loop that opened them, and
        callers may run several `asyncio.run`s with one backend (an exam, then generation)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=64)
            self._client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=self.headers,
                timeout=self.timeout,
                limits=limits,
            )
            self._loop = loop
        return self._client

    async def models(self) -> list[str]:
        """The served model ids; raises JupiterError when the server is unreachable."""
        try:
            resp = await self.client.get("/models", timeout=min(self.timeout, 10.0))
        except httpx.HTTPError as err:
            raise JupiterError(
                f"the LLM server at {self.base_url} is unreachable ({type(err).__name__}): "
                "start it (e.g. `ollama serve` or `jupiter serve --model DIR`) or fix "
                "llm.base_url"
            ) from None
        if resp.status_code == 401:
            fix = f"check {self.key_env}" if self.key_env else "set llm.api_key_env"
            raise JupiterError(f"the LLM server at {self.base_url} wants an API key: {fix}")
        if resp.status_code >= 400:
            raise JupiterError(
                f"the LLM server at {self.base_url} answered {resp.status_code} to GET "
                "/models: is llm.base_url the server's /v1 root?"
            )
        try:
            return [str(m["id"]) for m in resp.json().get("data", [])]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise JupiterError(
                f"{self.base_url}/models is not an OpenAI-compatible model list: is "
                "llm.base_url the server's /v1 root?"
            ) from None

    async def check(self) -> None:
        served = await self.models()
        if not self.model:
            if not served:
                raise JupiterError(f"{self.base_url} serves no model: set llm.model")
            self.model = served[0]
        elif served and self.model not in served:
            raise JupiterError(
                f"{self.base_url} does not serve '{self.model}' (it serves: "
                f"{', '.join(served[:10])}): fix llm.model"
            )

    def body(self, r: Request) -> tuple[str, dict[str, Any]]:
        s = r.sampling
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": s.max_tokens,
            "temperature": s.temperature,
            "top_p": s.top_p,
        }
        if s.seed is not None:
            body["seed"] = s.seed
        if s.stop:
            body["stop"] = list(s.stop)
        if s.schema:
            schema = json.loads(s.schema)
            body["response_format"] = (
                {"type": "json_object", "schema": schema}
                if s.schema_form == "json_object"
                else {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "strict": True, "schema": schema},
                }
            )
        if self.api == "chat":
            messages = (
                r.messages if r.messages is not None else ({"role": "user", "content": r.prompt},)
            )
            return "/chat/completions", body | {"messages": [dict(m) for m in messages]}
        prompt = r.prompt if r.prompt is not None else flatten(r.messages or ())
        return "/completions", body | {"prompt": prompt}

    async def complete_one(self, r: Request) -> Completion:
        path, body = self.body(r)
        try:
            # llm.timeout bounds the whole request: httpx's own timeout is per read, and a
            # server that drips its answer a few bytes at a time never trips it
            resp = await asyncio.wait_for(self.client.post(path, json=body), self.timeout)
        except (httpx.TimeoutException, httpx.TransportError, asyncio.TimeoutError) as err:
            raise Retryable(f"{type(err).__name__} from {self.base_url}{path}") from None
        if resp.status_code == 429 or resp.status_code >= 500:
            raise Retryable(f"HTTP {resp.status_code} from {self.base_url}", _retry_after(resp))
        if resp.status_code >= 400:
            raise BackendError(f"HTTP {resp.status_code} from {self.base_url}: {resp.text[:200]}")
        try:
            return completion_of(resp.json(), self.api == "chat")
        except (ValueError, KeyError, RecursionError):
            raise Retryable(f"a malformed response body from {self.base_url}{path}") from None

    async def complete(self, requests: Sequence[Request]) -> list[Completion]:
        return list(await asyncio.gather(*(self.complete_one(r) for r in requests)))

    async def close(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client = None


class BalancedBackend:
    """Several servers of one model, as one backend: each request goes to the endpoint with
    the fewest requests in flight; an endpoint that fails sits out `cooldown` seconds while
    the others take its share."""

    name = "cluster"
    max_batch = 1

    def __init__(self, endpoints: Sequence[HTTPBackend], cooldown: float = 5.0) -> None:
        if not endpoints:
            raise JupiterError(
                "generator.llm.backend is cluster, but no node in cluster.yaml has a "
                "`generator:` server: add one to a node with role generator or hybrid"
            )
        self.endpoints = list(endpoints)
        self.model = ",".join(sorted({e.model for e in endpoints}))
        self.cooldown = cooldown
        self.in_flight = [0] * len(endpoints)
        self.down_until = [0.0] * len(endpoints)
        self.served = [0] * len(endpoints)  # requests answered, per endpoint

    async def check(self) -> None:
        results = await asyncio.gather(*(e.check() for e in self.endpoints), return_exceptions=True)
        alive = [e for e, r in zip(self.endpoints, results, strict=True) if r is None]
        if not alive:
            raise JupiterError(
                "no generator endpoint of cluster.yaml is reachable: "
                + "; ".join(str(r) for r in results)
            )
        self.endpoints = alive
        self.in_flight = [0] * len(alive)
        self.down_until = [0.0] * len(alive)
        self.served = [0] * len(alive)
        self.model = ",".join(sorted({e.model for e in alive}))

    def pick(self) -> int:
        now = asyncio.get_running_loop().time()
        up = [i for i in range(len(self.endpoints)) if self.down_until[i] <= now]
        pool = up or list(range(len(self.endpoints)))
        return min(pool, key=lambda i: (self.in_flight[i], self.served[i]))

    async def complete_one(self, r: Request) -> Completion:
        i = self.pick()
        self.in_flight[i] += 1
        try:
            out = await self.endpoints[i].complete_one(r)
        except Retryable:
            self.down_until[i] = asyncio.get_running_loop().time() + self.cooldown
            raise
        finally:
            self.in_flight[i] -= 1
        self.served[i] += 1
        return out

    async def complete(self, requests: Sequence[Request]) -> list[Completion]:
        return list(await asyncio.gather(*(self.complete_one(r) for r in requests)))

    async def close(self) -> None:
        await asyncio.gather(*(e.close() for e in self.endpoints))


def make_backend(cfg: LLMConfig, cluster_path: str | None = None) -> Backend:
    """The backend an `llm:` section names; local dirs resolve as given (absolute)."""
    from pathlib import Path

    if cfg.backend == "openai":
        return HTTPBackend(cfg)
    if cfg.backend == "cluster":
        from jupiter.config import load_cluster

        nodes = [
            n
            for n in load_cluster(cluster_path).nodes
            if n.generator is not None and n.role in ("generator", "hybrid")
        ]
        for n in nodes:
            if n.generator is not None and n.generator.backend != "openai":
                raise JupiterError(
                    f"cluster.yaml: node '{n.name}': generator.backend must be openai (a "
                    "server on that node, e.g. `jupiter serve --host 0.0.0.0 --api-key …`)"
                )
        return BalancedBackend([HTTPBackend(n.generator) for n in nodes if n.generator])
    if not cfg.model:
        raise JupiterError(
            f"llm.backend is {cfg.backend}: set llm.model to a model folder, a Hub id, a .gguf "
            "file or ollama:NAME"
        )
    if cfg.backend == "transformers":
        from jupiter.synth.transformers_backend import TransformersBackend

        return TransformersBackend(Path(cfg.model), max_batch=cfg.max_batch)
    from jupiter.synth.mlx_backend import MLXBackend

    return MLXBackend(Path(cfg.model), max_batch=cfg.max_batch)
