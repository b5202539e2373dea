"""A real `jupiter serve` process on a tiny model, and the clients the chaos suite points at
it: a good chat request, and raw requests that can be malformed at any level (the HTTP
framing, the JSON, a field) or hang up mid-body. Shared by corpus_http.py (one bad request
at a time, beside good ones) and serve_soak.py (minutes of mixed clients)."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import kill_group, start_group

CHAT = "/v1/chat/completions"
PORT_LINE = re.compile(r"on http://127\.0\.0\.1:(\d+)/v1")


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    def log_lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    def rss_mb(self) -> float:
        """The server process's resident memory, from /proc."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        kill_group(self.proc)


def start_server(model: Path, log: Path, max_batch: int = 4, limit: float = 180) -> Served:
    """`jupiter serve --model MODEL --port 0` in its own process group; returns once it
    listens (its first line names the port)."""
    exe = Path(sys.executable).parent / "jupiter"
    proc = start_group(
        [str(exe), "serve", "--model", str(model), "--port", "0", "--max-batch", str(max_batch)],
        log,
    )
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = PORT_LINE.search(log.read_text(errors="replace")) if log.is_file() else None
        if found:
            return Served(proc, int(found.group(1)), log)
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    kill_group(proc)
    raise RuntimeError(f"jupiter serve did not start: {log.read_text(errors='replace')[-2000:]}")


def http_bytes(
    method: str,
    path: str,
    body: bytes | None,
    headers: dict[str, str] | None = None,
    length: int | None = None,
) -> bytes:
    """A raw HTTP/1.1 request; `length` overrides Content-Length (a lie, when given)."""
    head = {"Host": "127.0.0.1", "Connection": "close", **(headers or {})}
    if body is not None:
        head.setdefault("Content-Type", "application/json")
        head["Content-Length"] = str(len(body) if length is None else length)
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items()), "", ""]
    return "\r\n".join(lines).encode("latin-1") + (body or b"")


def send_raw(
    port: int, data: bytes, timeout: float = 60.0, hang_up: bool = False
) -> tuple[int | None, bytes]:
    """Send `data`; (status, body) of the answer, or (None, b"") when `hang_up` (the
    connection closed right after sending) or nothing came back."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except OSError:  # the server answered (a 413) and closed before all was sent
            pass
        if hang_up:
            return None, b""
        chunks = []
        with contextlib.suppress(OSError):
            while True:
                part = sock.recv(65536)
                if not part:
                    break
                chunks.append(part)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    found = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return (int(found.group(1)) if found else None), body


def chat_body(content: str = "What does the lever do?", **fields: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": content}], "max_tokens": 8, **fields}


def good_request(port: int, i: int = 0, timeout: float = 120.0) -> tuple[bool, float, str]:
    """One well-formed chat request (greedy, or sampled with a seed on odd i): (answered
    200 with text, seconds, why not)."""
    fields = {"temperature": 0.0} if i % 2 == 0 else {"temperature": 0.7, "seed": i}
    body = json.dumps(chat_body(f"Question {i}: what does the lever do?", **fields)).encode()
    t0 = time.perf_counter()
    try:
        status, raw = send_raw(port, http_bytes("POST", CHAT, body), timeout=timeout)
    except OSError as err:
        return False, time.perf_counter() - t0, f"{type(err).__name__}: {err}"
    took = time.perf_counter() - t0
    if status != 200:
        return False, took, f"status {status}: {raw[:200]!r}"
    try:
        text = json.loads(raw)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return False, took, f"not an answer: {raw[:200]!r}"
    return isinstance(text, str), took, "" if isinstance(text, str) else "content not text"
