"""The OpenAI API's request bodies and error shape, as `jupiter serve` reads and answers
them: unknown fields are accepted (clients send more than a local server uses), a bad
body is a 400 with OpenAI's {"error": {message, type, param, code}}."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fastapi import Request as HttpRequest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import ClientDisconnect

from jupiter.synth.backend import Sampling

COMPLETION_MAX_TOKENS = 16  # OpenAI's default for /v1/completions; chat defaults to the context
# a request body larger than this is a 413 before it is read whole: one client's 20 MB
# prompt stalled every other client for half a minute (a local model's context holds a few
# hundred KB of text at most)
MAX_BODY_BYTES = 4 << 20
# a prompt longer than this (in characters, every message together) is a 400 before it is
# tokenized: above any local model's context (128k tokens are ~0.5M characters), and a 3 MB
# prompt under the body cap held the batch worker while it was tokenized, then cut
PROMPT_MAX_CHARS = 1 << 20
# the seeds a torch generator takes (manual_seed): 2**70 failed the whole batch it was in
SEED_MIN, SEED_MAX = -(2**63), 2**64 - 1


@dataclass
class ApiError(Exception):
    """An error answered with OpenAI's body: {"error": {message, type, param, code}}."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = None

    def body(self) -> dict[str, Any]:
        return {"error": {k: v for k, v in vars(self).items() if k != "status"}}


# ------------------------------------------------------------------------ request bodies
class _Body(BaseModel):
    # extra="allow": clients send fields this server does not use (user, logprobs …)
    model_config = ConfigDict(extra="allow")
    model: str | None = None
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    temperature: float | None = Field(None, ge=0, le=2)
    top_p: float | None = Field(None, gt=0, le=1)
    seed: int | None = Field(None, ge=SEED_MIN, le=SEED_MAX)
    stop: str | list[str] | None = None
    stream: bool | None = False
    stream_options: dict[str, Any] | None = None
    n: int | None = None

    def sampling(self, default_max_tokens: int) -> Sampling:
        if (self.n or 1) != 1:
            raise ApiError(400, "n must be 1: this server returns one choice", param="n")
        stop = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        return Sampling(
            max_tokens=self.max_completion_tokens or self.max_tokens or default_max_tokens,
            temperature=1.0 if self.temperature is None else self.temperature,  # OpenAI's default
            top_p=1.0 if self.top_p is None else self.top_p,
            seed=self.seed,
            stop=tuple(s for s in stop if s),
        )


class _Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if self.content is None or isinstance(self.content, str):
            return self.content or ""
        if any(part.get("type") != "text" for part in self.content):
            raise ApiError(400, "only text content parts are supported", param="messages")
        return "".join(str(part.get("text", "")) for part in self.content)


class ChatBody(_Body):
    messages: list[_Message] = Field(min_length=1)
    # Jupiter's own: answer with the top-k passages of the model's retrieval index before the
    # last user message (None: the server's --open-book); not `top_k`, which some clients
    # send as a sampling parameter
    open_book: bool | None = None
    open_book_top_k: int | None = Field(None, ge=1)


class CompletionBody(_Body):
    prompt: str | list[str]

    def text(self) -> str:
        if isinstance(self.prompt, str):
            return self.prompt
        if len(self.prompt) != 1:
            raise ApiError(400, "prompt must be one string (or a list of one)", param="prompt")
        return self.prompt[0]


async def _body(http: HttpRequest, cap: int = MAX_BODY_BYTES) -> bytes:
    """The request body, or a 413 as soon as it is longer than `cap` (by its declared
    Content-Length, or while it streams in without one)."""
    too_big = ApiError(
        413,
        f"the request body is over {cap // (1 << 20)} MiB: send a shorter prompt",
        code="request_too_large",
    )
    declared = http.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise too_big
    parts, size = [], 0
    try:
        async for part in http.stream():
            size += len(part)
            if size > cap:
                raise too_big
            parts.append(part)
    except ClientDisconnect:  # hung up mid-body: its one access-log line, no traceback
        raise ApiError(
            400, "the client closed the connection before its body ended", code="client_closed"
        ) from None
    return b"".join(parts)


async def _parse(http: HttpRequest, cls: type[_Body]) -> Any:
    raw = await _body(http)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: JSON nested thousands deep
        raise ApiError(400, "the request body is not valid JSON") from None
    try:
        return cls.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(400, f"{where}: {first['msg']}", param=where) from None
