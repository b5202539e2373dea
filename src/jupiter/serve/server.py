"""`jupiter serve`: an OpenAI-compatible HTTP server over a local model.

Routes: GET /v1/models, POST /v1/chat/completions, POST /v1/completions (streamed or not),
GET /health. With an API key, every path needs it but /health, which then says only
{"status": "ok"} to a caller without it. One worker thread owns the model: concurrent
requests wait in a queue and are decoded together as one batch, each one's text streamed
back as it is produced.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import queue
import socket
import threading
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from fastapi import APIRouter, Depends, FastAPI
from fastapi import Request as HttpRequest
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException

from jupiter.errors import JupiterError
from jupiter.serve.openai_api import (
    COMPLETION_MAX_TOKENS,
    PROMPT_MAX_CHARS,
    ApiError,
    ChatBody,
    CompletionBody,
    _Body,
    _parse,
)
from jupiter.synth.backend import Request

if TYPE_CHECKING:
    from jupiter.models.decode import GenOutput, LocalLM
    from jupiter.synth.passages import PassageIndex

BATCH_WAIT_S = 0.01  # how long a batch waits for one more request to share it
BATCH_MAX_WAIT_S = 0.1  # and in all at most: the latency a lone request can pay
Kind = Literal["chat", "text"]


# ------------------------------------------------------------------------------ batching
@dataclass
class Job:
    """One request on its way through the worker; events come back on its own loop."""

    request: Request
    loop: asyncio.AbstractEventLoop
    events: asyncio.Queue[tuple[str, Any]] = field(default_factory=asyncio.Queue)

    def send(self, kind: str, payload: Any = None) -> None:
        with suppress(RuntimeError):  # a closed loop: the server is shutting down
            self.loop.call_soon_threadsafe(self.events.put_nowait, (kind, payload))


class BatchWorker:
    """The thread that owns the model: takes every waiting job (up to max_batch) and runs
    them as one LocalLM.generate call. Events per job: start, text…, then done or error."""

    def __init__(self, lm: LocalLM, max_batch: int, wait_s: float = BATCH_WAIT_S) -> None:
        self.lm, self.max_batch, self.wait_s = lm, max(1, max_batch), wait_s
        self.counts = {"requests": 0, "batches": 0, "max_batch_seen": 0}
        self._last = 1  # size of the last batch taken
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="jupiter-batcher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)

    def submit(self, job: Job) -> None:
        self.counts["requests"] += 1
        self._queue.put(job)

    def _take(self) -> list[Job | None]:
        """What is waiting. The clients of the last batch usually come straight back with
        their next requests, spread over a few ms by both event loops: wait (up to
        BATCH_MAX_WAIT_S) until as many are here, then `wait_s` after each arrival for more.
        Without that, a batch once split stays split (4 → 3 + 1 → …, measured: half the
        throughput). None asks the thread to stop."""
        batch = [self._queue.get()]
        start = time.monotonic()
        target = min(self.max_batch, self._last)
        while len(batch) < self.max_batch:
            left = start + BATCH_MAX_WAIT_S - time.monotonic()
            timeout = left if len(batch) < target else min(self.wait_s, left)
            if timeout <= 0:
                break
            try:
                batch.append(self._queue.get(timeout=timeout))
            except queue.Empty:
                break
        self._last = max(1, sum(job is not None for job in batch))
        return batch

    def _loop(self) -> None:
        while True:
            batch = self._take()
            jobs = [job for job in batch if job is not None]
            if jobs:
                try:
                    self._run(jobs)
                except Exception as e:  # noqa: BLE001 - the worker outlives any one batch
                    error = ApiError(500, f"{type(e).__name__}: {e}", "server_error")
                    for job in jobs:
                        job.send("error", error)
            if len(jobs) < len(batch):
                return

    def _run(self, batch: list[Job]) -> None:
        ready: list[Job] = []
        prompts: list[list[int]] = []
        for job in batch:
            try:
                prompts.append(self.lm.request_ids(job.request))
            except JupiterError as e:  # a bad prompt fails its own request, not the batch
                job.send("error", ApiError(400, str(e)))
                continue
            except Exception as e:  # noqa: BLE001 - text the tokenizer refuses (a lone surrogate)
                job.send(
                    "error",
                    ApiError(400, f"the prompt cannot be tokenized ({type(e).__name__}: {e})"),
                )
                continue
            ready.append(job)
            job.send("start")
        if not ready:
            return
        self.counts["batches"] += 1
        self.counts["max_batch_seen"] = max(self.counts["max_batch_seen"], len(ready))
        sent = [False] * len(ready)

        def on_text(i: int, delta: str) -> None:
            sent[i] = True
            ready[i].send("text", delta)

        try:
            outs = self.lm.generate(
                prompts, [job.request.sampling for job in ready], on_text=on_text
            )
        except Exception as e:  # noqa: BLE001 - a failed batch must not stop the worker
            if len(ready) > 1 and not any(sent):
                # nothing streamed yet: each request again on its own, so only the one
                # that breaks generation gets the error and its neighbours their answers
                for job, ids in zip(ready, prompts, strict=True):
                    self._run_alone(job, ids)
                return
            error = ApiError(500, f"generation failed: {type(e).__name__}: {e}", "server_error")
            for job in ready:
                job.send("error", error)
            return
        for job, out in zip(ready, outs, strict=True):
            job.send("done", out)

    def _run_alone(self, job: Job, ids: list[int]) -> None:
        try:
            (out,) = self.lm.generate(
                [ids], [job.request.sampling], on_text=lambda _, delta: job.send("text", delta)
            )
        except Exception as e:  # noqa: BLE001 - this request's own failure
            job.send(
                "error",
                ApiError(500, f"generation failed: {type(e).__name__}: {e}", "server_error"),
            )
            return
        job.send("done", out)


# ----------------------------------------------------------------------------- responses
def _choice(kind: Kind, text: str | None, finish: str | None, stream: bool) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0}
    if kind == "text":
        choice["text"] = text or ""
    elif stream:
        choice["delta"] = {} if text is None else {"content": text}
    else:
        choice["message"] = {"role": "assistant", "content": text}
    return {**choice, "logprobs": None, "finish_reason": finish}


def _usage(out: GenOutput) -> dict[str, int]:
    p, c = out.prompt_tokens, out.completion_tokens
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


def _sse(data: dict[str, Any] | str) -> str:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n"


@dataclass(frozen=True)
class OpenBook:
    """Open-book answers: the model's retrieval index, whether chat requests get passages
    unless they say "open_book": false, and how many."""

    passages: PassageIndex | None = None
    default: bool = False
    top_k: int = 3

    def messages(self, body: ChatBody) -> list[dict[str, str]]:
        """The chat, its last user message given its top-k passages when asked open-book."""
        messages = [{"role": m.role, "content": m.text()} for m in body.messages]
        if not (self.default if body.open_book is None else body.open_book):
            return messages
        if self.passages is None:
            message = "open_book needs a model with a retrieval index (saved by `jupiter train`)"
            raise ApiError(400, message, param="open_book")
        last = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=None)
        if last is not None:
            question = messages[last]["content"]
            prompt = self.passages.prompt(question, body.open_book_top_k or self.top_k)
            messages[last] = {"role": "user", "content": prompt}
        return messages


class Server:
    """The routes, over one model and its batch worker."""

    def __init__(
        self,
        lm: LocalLM,
        model_id: str,
        api_key: str | None,
        max_batch: int,
        book: OpenBook | None = None,
    ) -> None:
        self.lm, self.model_id, self.api_key = lm, model_id, api_key
        self.book = book or OpenBook()
        self.worker = BatchWorker(lm, max_batch)

    def has_key(self, authorization: str) -> bool:
        """The Authorization header carries the API key (always, when none is set)."""
        if self.api_key is None:
            return True
        scheme, _, token = authorization.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            token.strip().encode(), self.api_key.encode()
        )

    async def authorize(self, http: HttpRequest) -> None:
        if not self.has_key(http.headers.get("authorization", "")):
            raise ApiError(401, KEY_MESSAGE, code="invalid_api_key")

    def _check_model(self, name: str | None) -> None:
        if name is not None and name not in (self.model_id, self.lm.name):
            message = f"the model `{name}` does not exist: this server serves `{self.model_id}`"
            raise ApiError(404, message, code="model_not_found", param="model")

    async def models(self) -> dict[str, Any]:
        card = {"id": self.model_id, "object": "model", "created": 0, "owned_by": "jupiter"}
        return {"object": "list", "data": [card]}

    async def health(self, http: HttpRequest) -> dict[str, Any]:
        """Liveness for anyone; the model and the counts only with the key (when one is set)."""
        if not self.has_key(http.headers.get("authorization", "")):
            return {"status": "ok"}
        return {"status": "ok", "model": self.model_id, **self.worker.counts}

    async def chat(self, http: HttpRequest) -> Response:
        body: ChatBody = await _parse(http, ChatBody)
        self._check_model(body.model)
        messages = tuple(self.book.messages(body))
        request = Request(messages=messages, sampling=body.sampling(self.lm.context))
        return await self._answer("chat", request, body)

    async def completions(self, http: HttpRequest) -> Response:
        body: CompletionBody = await _parse(http, CompletionBody)
        self._check_model(body.model)
        request = Request(prompt=body.text(), sampling=body.sampling(COMPLETION_MAX_TOKENS))
        return await self._answer("text", request, body)

    async def _answer(self, kind: Kind, request: Request, body: _Body) -> Response:
        size = len(request.prompt or "") + sum(len(m["content"]) for m in request.messages or ())
        if size > PROMPT_MAX_CHARS:
            raise ApiError(
                400,
                f"the prompt is {size:,} characters, over this server's "
                f"{PROMPT_MAX_CHARS:,}: send a shorter one (the model reads "
                f"{self.lm.context:,} tokens at most)",
                code="prompt_too_long",
                param="prompt" if kind == "text" else "messages",
            )
        job = Job(request, asyncio.get_running_loop())
        self.worker.submit(job)
        event, payload = await job.events.get()  # "start" once the prompt is in a batch
        if event == "error":
            raise payload
        rid = f"{'chatcmpl' if kind == 'chat' else 'cmpl'}-{uuid.uuid4().hex}"
        obj = "text_completion" if kind == "text" else "chat.completion"
        obj += ".chunk" if body.stream and kind == "chat" else ""
        envelope = {"id": rid, "object": obj, "created": int(time.time()), "model": self.model_id}
        if body.stream:
            usage = bool((body.stream_options or {}).get("include_usage"))
            chunks = self._chunks(kind, job, envelope, usage)
            return StreamingResponse(chunks, media_type="text/event-stream")
        while event != "done":  # the text deltas only matter when streaming
            event, payload = await job.events.get()
            if event == "error":
                raise payload
        out: GenOutput = payload
        choice = _choice(kind, out.text, out.finish_reason, stream=False)
        return JSONResponse({**envelope, "choices": [choice], "usage": _usage(out)})

    async def _chunks(
        self, kind: Kind, job: Job, envelope: dict[str, Any], usage: bool
    ) -> AsyncIterator[str]:
        def chunk(text: str | None, finish: str | None = None) -> str:
            return _sse({**envelope, "choices": [_choice(kind, text, finish, stream=True)]})

        if kind == "chat":  # the first delta names the role, as OpenAI's does
            role = {"role": "assistant", "content": ""}
            yield _sse({**envelope, "choices": [{**_choice(kind, "", None, True), "delta": role}]})
        while True:
            event, payload = await job.events.get()
            if event == "text":
                yield chunk(payload)
            elif event == "done":
                yield chunk(None if kind == "chat" else "", payload.finish_reason)
                if usage:
                    yield _sse({**envelope, "choices": [], "usage": _usage(payload)})
                break
            else:
                yield _sse(payload.body())
                break
        yield _sse("[DONE]")


KEY_MESSAGE = "invalid or missing API key: send Authorization: Bearer KEY"
OPEN_PATHS = frozenset({"/health"})  # answers without the key (a bare {"status": "ok"})


class KeyGate:
    """ASGI middleware: with an API key set, every HTTP path but /health needs it, routes
    added later and FastAPI's own /docs, /redoc and /openapi.json included (deny by
    default, so no new route is open by accident)."""

    def __init__(self, app: Any, server: Server) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        if self.server.has_key(authorization):
            await self.app(scope, receive, send)
            return
        error = ApiError(401, KEY_MESSAGE, code="invalid_api_key")
        await JSONResponse(error.body(), status_code=401)(scope, receive, send)


def create_app(
    lm: LocalLM,
    model_id: str,
    api_key: str | None = None,
    max_batch: int = 16,
    book: OpenBook | None = None,
) -> FastAPI:
    """The FastAPI app; its worker thread runs between startup and shutdown."""
    server = Server(lm, model_id, api_key, max_batch, book)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncGenerator[None, None]:
        server.worker.start()
        yield
        server.worker.stop()

    app = FastAPI(title="jupiter serve", lifespan=lifespan)
    v1 = APIRouter(prefix="/v1", dependencies=[Depends(server.authorize)])
    v1.add_api_route("/models", server.models, methods=["GET"])
    v1.add_api_route("/chat/completions", server.chat, methods=["POST"])
    v1.add_api_route("/completions", server.completions, methods=["POST"])
    app.include_router(v1)
    app.add_api_route("/health", server.health, methods=["GET"])

    async def on_error(_: HttpRequest, exc: Exception) -> Response:
        if not isinstance(exc, ApiError):  # starlette's own 404/405, in OpenAI's shape too
            exc = ApiError(getattr(exc, "status_code", 500), str(getattr(exc, "detail", exc)))
        return JSONResponse(exc.body(), status_code=exc.status)

    app.add_exception_handler(ApiError, on_error)
    app.add_exception_handler(HTTPException, on_error)
    if api_key is not None:
        app.add_middleware(KeyGate, server=server)
    return app


# ----------------------------------------------------------------------------- startup
@dataclass(frozen=True)
class ServeOptions:
    model_dir: str | Path  # a model reference: folder, Hub id, .gguf, ollama:NAME
    host: str = "127.0.0.1"
    port: int = 8000
    api_key: str | None = None
    max_batch: int = 16
    name: str | None = None  # the model id clients send; default: the dir's name
    chat_template: str = "auto"  # data/templates.py: auto, a name or a .jinja path
    open_book: bool = False  # chat requests get passages unless they send "open_book": false
    top_k: int = 3  # passages per question


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def check_options(opts: ServeOptions) -> None:
    """Refuse, before loading anything, an open port without an API key (anyone who reaches
    it could use the machine's accelerator), or a model reference that points nowhere."""
    if not opts.host.strip():
        raise JupiterError(
            "--host is empty: give the address to bind (127.0.0.1, or an "
            "interface's address with --api-key)"
        )
    if not opts.api_key and not is_loopback(opts.host):
        raise JupiterError(
            f"refusing to serve on {opts.host} without an API key: pass --api-key KEY "
            "(or set JUPITER_API_KEY), or bind 127.0.0.1"
        )
    from jupiter.models.reference import locate_model

    locate_model(str(opts.model_dir), base_dir=None)  # found; a GGUF is imported later


def _listen(host: str, port: int) -> socket.socket:
    # Bound here, not by uvicorn, so a taken port is one clear error before the model loads.
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as e:
        raise JupiterError(
            f"cannot listen on {host}:{port} ({e.strerror or e}): choose another --port"
        ) from None


def open_book(model_dir: Path, opts: ServeOptions) -> OpenBook:
    """The model's retrieval index when it has one (a request may then ask open-book);
    --open-book without one is an error before the model loads."""
    from jupiter.synth.passages import PassageIndex, has_index

    if not (opts.open_book or has_index(model_dir)):
        return OpenBook(top_k=opts.top_k)
    return OpenBook(PassageIndex.load(model_dir), opts.open_book, opts.top_k)


def run_server(opts: ServeOptions, log: Callable[[str], None] = print) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    from jupiter.models.integrity import check_model_files
    from jupiter.models.reference import model_label, resolve_model, user_cache_dir

    check_options(opts)
    sock = _listen(opts.host, opts.port)
    ref = str(opts.model_dir)
    model_dir = resolve_model(ref, base_dir=None, cache_dir=user_cache_dir())
    check_model_files(model_dir)  # a damaged file said in one line, before torch loads
    import uvicorn

    from jupiter.models.decode import LocalLM

    book = open_book(model_dir, opts)
    lm = LocalLM(model_dir, max_batch=opts.max_batch, chat_template=opts.chat_template)
    model_id = opts.name or model_label(ref, base_dir=None)
    app = create_app(lm, model_id, opts.api_key, opts.max_batch, book)
    port = sock.getsockname()[1]  # the one the system chose for --port 0
    books = f", open book: top {book.top_k} passages" if book.default else ""
    log(
        f"serving {opts.model_dir} as '{model_id}' on http://{opts.host}:{port}/v1 "
        f"({lm.device}, max batch {opts.max_batch}, "
        f"{'API key required' if opts.api_key else 'no API key'}{books})"
    )
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it shut down on
        pass
    log("stopped")
