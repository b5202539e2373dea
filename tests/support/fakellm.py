"""A real OpenAI-compatible HTTP server on 127.0.0.1 with a scripted teacher, for tests of
the generation engine: deterministic answers, a log of every call, and failures on a
schedule (HTTP 500, 429 with Retry-After, or a response slower than the client's timeout).

The teacher answers recipe prompts from the passage they quote, so the answers pass the
recipes' strict parsers; prompts whose seed falls in `malformed_every` get prose instead of
JSON. Import from tests as `from fakellm import FakeLLM`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PASSAGE = re.compile(r"<passage>\n(.*?)\n</passage>", re.S)
SENTENCE = re.compile(r"[^.!?\n]+[.!?]")


def request_key(body: dict[str, Any]) -> str:
    raw = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def teacher(body: dict[str, Any], malformed_every: int) -> str:
    """A deterministic answer to a recipe prompt (or a judge prompt: a score)."""
    prompt = body["messages"][-1]["content"] if "messages" in body else body["prompt"]
    seed = int(body.get("seed") or 0)
    if malformed_every and seed % malformed_every == 0:
        return "Sure! Here is a question about the passage, I hope it helps."
    if "Answer with the letter" in prompt:
        return "B."
    if "<passage>" not in prompt and '"score"' not in prompt:
        return f"An answer to: {prompt[:60]}"
    if '"score"' in prompt:
        return json.dumps({"score": 2 if "wrong way" in prompt else 5, "reason": "graded"})
    m = PASSAGE.search(prompt)
    passage = m.group(1) if m else prompt
    sentences = [s.strip() for s in SENTENCE.findall(passage) if len(s.split()) >= 4]
    answer = sentences[seed % len(sentences)] if sentences else passage[:200]
    subject = " ".join(answer.split()[:5])
    return json.dumps(
        {
            "question": f"What does the documentation say about {subject} (variant {seed})?",
            "answer": answer,
        }
    )


class FakeLLM:
    """`with FakeLLM(log=path, fail=schedule) as llm:` serves on llm.base_url.

    fail(n) gets the 1-based number of the request and returns None (answer), "500",
    "429" or "timeout" (sleep `slow_seconds` before answering)."""

    def __init__(
        self,
        log: Path | None = None,
        fail: Callable[[int], str | None] | None = None,
        malformed_every: int = 0,
        slow_seconds: float = 3.0,
        delay: float = 0.0,
        model: str = "teacher",
        reply: Callable[[dict[str, Any]], str] | None = None,
    ) -> None:
        self.log, self.fail = log, fail or (lambda n: None)
        # the answer to a request body; None: the recipe teacher above
        self.reply = reply or (lambda body: teacher(body, self.malformed_every))
        self.gets = 0  # GET requests (the model list a client checks first)
        self.malformed_every, self.slow_seconds, self.delay = malformed_every, slow_seconds, delay
        self.model = model
        self.count = 0
        self.outcomes: list[str] = []
        self.paths: list[str] = []
        self.bodies: list[dict[str, Any]] = []  # every POST body, in arrival order
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def send(self, code: int, body: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:
                with llm.lock:
                    llm.gets += 1
                if self.path.rstrip("/") == "/v1/models":
                    self.send(200, {"object": "list", "data": [{"id": llm.model}]}, {})
                else:
                    self.send(404, {"error": {"message": "not found"}}, {})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with llm.lock:
                    llm.count += 1
                    n = llm.count
                    outcome = llm.fail(n)
                    llm.outcomes.append(outcome or "ok")
                    llm.paths.append(self.path)
                    llm.bodies.append(body)
                    if llm.log is not None:
                        with llm.log.open("a") as f:
                            f.write(
                                json.dumps(
                                    {"n": n, "key": request_key(body), "outcome": outcome or "ok"}
                                )
                                + "\n"
                            )
                if outcome == "500":
                    return self.send(500, {"error": {"message": "scheduled failure"}}, {})
                if outcome == "429":
                    return self.send(
                        429, {"error": {"message": "slow down"}}, {"Retry-After": "0.05"}
                    )
                if outcome == "timeout":
                    time.sleep(llm.slow_seconds)
                if llm.delay:
                    time.sleep(llm.delay)
                text = llm.reply(body)
                chat = self.path.endswith("/chat/completions")
                choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
                if chat:
                    choice["message"] = {"role": "assistant", "content": text}
                else:
                    choice["text"] = text
                self.send(
                    200,
                    {
                        "id": f"x-{n}",
                        "object": "chat.completion" if chat else "text_completion",
                        "model": llm.model,
                        "choices": [choice],
                        "usage": {
                            "prompt_tokens": 10,
                            "completion_tokens": len(text.split()),
                            "total_tokens": 10 + len(text.split()),
                        },
                    },
                    {},
                )

        return Handler

    def __enter__(self) -> FakeLLM:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
