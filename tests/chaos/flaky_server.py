"""Generation against a flaky OpenAI-compatible server.

The fake teacher (tests/support/fakellm.py) misbehaves on a seeded share of the requests, each
time in one of these ways:
- http_500: HTTP 500; http_429: HTTP 429 with Retry-After;
- hang: no answer for longer than the client's timeout;
- slow_drip: a 200 whose body comes a few bytes at a time, each within the read timeout,
  the whole far beyond the request's timeout;
- garbage: a 200 whose body is not JSON; empty: a 200 with no body;
- wrong_types: a 200 whose JSON has the wrong shape (choices a mapping);
- content_number: a 200 whose message content is a number (a malformed answer);
- reset: the connection closed without an answer; truncated: a body shorter than its
  Content-Length.

A generate stage runs against it (in this process, through the stage a `jupiter
generate` or `start` runs) and must end within a bound; every request is answered, or
counted failed after its retries (or a malformed reject), and nothing is lost: a second
run against the healed server asks exactly the requests that have no answer in the store,
and then every planned request has its one queue row.

    python tests/chaos/flaky_server.py [--requests 80] [--rate 0.4] [--seed 18]
        [--out FILE]
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from generation_setup import Ledger, cached, example_count, write_domain
from harness import emit, out_arg

from fakellm import FakeLLM

KINDS = (
    "http_500",
    "http_429",
    "hang",
    "slow_drip",
    "garbage",
    "empty",
    "wrong_types",
    "content_number",
    "reset",
    "truncated",
)
TIMEOUT = 1.0  # the client's llm.timeout, seconds


class FlakyLLM(FakeLLM):
    """The fake teacher, failing a `rate` share of requests in one of KINDS (seeded)."""

    def __init__(self, rate: float, seed: int, ledger: Ledger) -> None:
        self.rng, self.rate, self.ledger = random.Random(seed), rate, ledger
        self.injected: Counter[str] = Counter()
        self.healthy = False
        self.drips: list[float] = []  # seconds each slow drip held its client
        self.flaky_lock = threading.Lock()
        super().__init__(reply=self._reply)

    def _reply(self, body: dict[str, Any]) -> str:
        from fakellm import teacher

        return teacher(body, 0)

    def pick(self) -> str:
        with self.flaky_lock:
            if self.healthy or self.rng.random() >= self.rate:
                return "ok"
            kind = self.rng.choice(KINDS)
            self.injected[kind] += 1
            return kind

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        base: Any = super()._handler()
        llm = self

        class Handler(base):  # type: ignore[misc,valid-type]
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                body = json.loads(raw)
                llm.ledger.note(body)
                kind = llm.pick()
                self.mangle = kind == "content_number"  # one handler serves a connection
                if kind not in ("ok", "content_number"):
                    return self.misbehave(kind, body)
                sock, self.rfile = self.rfile, io.BytesIO(raw)
                try:
                    super().do_POST()
                finally:
                    self.rfile = sock

            def send(self, code: int, body: dict[str, Any], headers: dict[str, str]) -> None:
                if getattr(self, "mangle", False) and code == 200:
                    body["choices"][0]["message"]["content"] = 12345
                super().send(code, body, headers)

            def raw(self, code: int, data: bytes, length: int | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) if length is None else length))
                self.end_headers()
                self.wfile.write(data)

            def misbehave(self, kind: str, body: dict[str, Any]) -> None:
                try:
                    if kind == "http_500":
                        self.raw(500, b'{"error": {"message": "internal error"}}')
                    elif kind == "http_429":
                        self.send_response(429)
                        self.send_header("Retry-After", "0.2")
                        self.send_header("Content-Length", "2")
                        self.end_headers()
                        self.wfile.write(b"{}")
                    elif kind == "hang":
                        time.sleep(TIMEOUT * 3)
                        self.raw(500, b"{}")
                    elif kind == "slow_drip":  # the real answer, too slowly
                        answer = {"role": "assistant", "content": llm._reply(body)}
                        data = json.dumps({"choices": [{"index": 0, "message": answer}]})
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        t0 = time.perf_counter()
                        try:
                            for i in range(0, len(data), 4):  # 4 bytes every TIMEOUT / 3 s
                                self.wfile.write(data[i : i + 4].encode())
                                self.wfile.flush()
                                time.sleep(TIMEOUT / 3)
                        finally:  # how long the client listened
                            llm.drips.append(round(time.perf_counter() - t0, 1))
                    elif kind == "garbage":
                        self.raw(200, b"<html>502 Bad Gateway</html>")
                    elif kind == "empty":
                        self.raw(200, b"")
                    elif kind == "wrong_types":
                        self.raw(200, json.dumps({"choices": {"0": "yes"}, "usage": []}).encode())
                    elif kind == "reset":
                        self.close_connection = True
                        self.connection.shutdown(2)
                    elif kind == "truncated":
                        self.raw(200, b'{"choices": [{"message": {"con', length=400)
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass

        return Handler


def generate_once(yaml: Path, home: Path) -> tuple[dict[str, Any], float, str]:
    """The generate stage of cycle 1, in this process: (its summary, seconds, what it says
    is missing)."""
    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.improve.generation import missing_requests
    from jupiter.improve.stages import collect_stage, generate_stage
    from jupiter.improve.workspace import Workspace

    os.environ["JUPITER_HOME"] = str(home)
    ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO()))
    try:
        if not ws.has_store() or not ws.store.count("documents"):
            collect_stage(ws, 1)
            ws.store.start_cycle(1, "llm")
        t0 = time.perf_counter()
        info = generate_stage(ws, 1)
        return info, time.perf_counter() - t0, missing_requests(ws, info)
    finally:
        ws.close()


def run(requests: int, rate: float, seed: int, root: Path) -> dict[str, Any]:
    ledger = Ledger()
    with FlakyLLM(rate, seed, ledger) as llm:
        home = root / "flaky"
        yaml = write_domain(home, llm.base_url, requests, concurrency=4, retries=2, timeout=TIMEOUT)
        ledger.segment = 1
        info, seconds, missing = generate_once(yaml, home)
        answered_first = cached(home)
        failed = info.get("failed", 0)
        llm.healthy = True
        ledger.segment = 2
        again, seconds2, missing2 = generate_once(yaml, home)
        second = ledger.of(2)
        answered = cached(home)
        rows = example_count(home)
    counts = {k: v for k, v in info.get("counts", {}).items() if k.startswith("malformed")}
    return {
        "requests": requests,
        "failure_rate": rate,
        "seed": seed,
        "client_timeout_s": TIMEOUT,
        "injected": dict(sorted(llm.injected.items())),
        "injected_total": sum(llm.injected.values()),
        "slow_drip_held_s": llm.drips,
        "first_run": {
            "seconds": round(seconds, 1),
            "server_requests": len(ledger.of(1)),
            "retries": info.get("retries"),
            "failed_after_retries": failed,
            "malformed_rejects": counts,
            "answered": len(answered_first),
            "says_missing": missing,
        },
        "second_run": {
            "seconds": round(seconds2, 1),
            "asked": len(second),
            "asked_only_the_unanswered": sorted(second)
            == sorted(set(ledger.of(1)) - answered_first),
            "failed": again.get("failed", 0),
            "says_missing": missing2,
        },
        "answered_at_end": len(answered),
        "queue_rows": rows,
        "nothing_lost": rows == requests and not missing2,
    }


def main(argv: list[str]) -> dict[str, Any]:
    requests = int(argv[argv.index("--requests") + 1]) if "--requests" in argv else 80
    rate = float(argv[argv.index("--rate") + 1]) if "--rate" in argv else 0.4
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 18
    root = Path(tempfile.mkdtemp(prefix="jupiter-flaky-server-"))
    try:
        figures = run(requests, rate, seed, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return emit("flaky server", figures, out_arg(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
