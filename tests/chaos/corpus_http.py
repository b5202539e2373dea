"""The `serve_http` family: bad requests to a running `jupiter serve`, each sent
beside two good requests. A case passes when its answer has an expected status (a 4xx
with OpenAI's {"error": …} body for what reaches the API), both neighbours are answered
200 with text, the server is still up, and its log gained at most two lines, none of them
a traceback. A hang-up expects no answer, only the rest."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serve_clients import CHAT, Served, chat_body, good_request, http_bytes, send_raw

COMPLETIONS = "/v1/completions"
BIG = 5 << 20  # over serve's 4 MiB body cap
NEAR_CAP = 3 << 20  # under it: the prompt itself must be refused or cut, not stall others


@dataclass(frozen=True)
class HttpCase:
    name: str
    data: bytes | Callable[[], bytes]  # what is sent (built late: some are megabytes)
    expect: frozenset[int] = frozenset({400})  # statuses that pass; empty: a hang-up
    api_error: bool = True  # a 4xx must carry OpenAI's {"error": {"message": …}}
    family: str = "serve_http"

    @property
    def id(self) -> str:
        return f"{self.family}/{self.name}"

    def payload(self) -> bytes:
        return self.data() if callable(self.data) else self.data


def _post(body: Any, path: str = CHAT) -> bytes:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return http_bytes("POST", path, raw)


def _chat(**fields: Any) -> bytes:
    return _post(chat_body(**fields))


def _completion(**fields: Any) -> bytes:
    return _post({"max_tokens": 8, **fields}, COMPLETIONS)


def _deep(n: int, open_: str = "[", close: str = "]") -> bytes:
    return (open_ * n + close * n).encode()


def _chunked(body: bytes, size_line: bytes | None = None) -> bytes:
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    size = size_line if size_line is not None else f"{len(body):x}".encode()
    return head + size + b"\r\n" + body + b"\r\n0\r\n\r\n"


def _fields() -> list[HttpCase]:
    """Each chat field given a value the API does not take."""
    bad: dict[str, dict[str, Any]] = {
        "temperature_negative": {"temperature": -1},
        "temperature_three": {"temperature": 3},
        "temperature_word": {"temperature": "hot"},
        "top_p_zero": {"top_p": 0},
        "top_p_above_one": {"top_p": 1.5},
        "max_tokens_zero": {"max_tokens": 0},
        "max_tokens_negative": {"max_tokens": -5},
        "max_tokens_float": {"max_tokens": 2.5},
        "max_tokens_word": {"max_tokens": "ten"},
        "seed_2_pow_70": {"seed": 2**70, "temperature": 1},
        "seed_below_min": {"seed": -(2**64), "temperature": 1},
        "seed_word": {"seed": "abc"},
        "seed_float": {"seed": 1.5},
        "n_two": {"n": 2},
        "stop_number": {"stop": 5},
        "stop_list_of_numbers": {"stop": [1, 2]},
        "stream_list": {"stream": [1]},
        "stream_options_string": {"stream_options": "x"},
        "open_book_top_k_zero": {"open_book_top_k": 0},
        "max_completion_tokens_negative": {"max_completion_tokens": -1},
    }
    return [HttpCase(f"chat/{name}", _chat(**f)) for name, f in bad.items()]


def _non_finite() -> list[HttpCase]:
    """JSON's NaN and Infinity (Python's json reads them) in every float field."""
    out = []
    for field_name in ("temperature", "top_p"):
        for word in ("NaN", "Infinity", "-Infinity"):
            raw = (
                f'{{"messages": [{{"role": "user", "content": "hi"}}], "max_tokens": 4, '
                f'"{field_name}": {word}}}'
            ).encode()
            out.append(HttpCase(f"chat/{field_name}_{word.lower()}", _post(raw)))
    return out


def _messages() -> list[HttpCase]:
    bodies: dict[str, Any] = {
        "no_messages": {"max_tokens": 4},
        "messages_empty": {"messages": []},
        "messages_a_string": {"messages": "hi"},
        "message_without_role": {"messages": [{"content": "hi"}]},
        "role_a_number": {"messages": [{"role": 3, "content": "hi"}]},
        "content_a_number": {"messages": [{"role": "user", "content": 7}]},
        "content_image_part": {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}],
                }
            ]
        },
        "content_list_of_numbers": {"messages": [{"role": "user", "content": [1, 2]}]},
        "message_a_string": {"messages": ["hi"]},
    }
    return [HttpCase(f"chat/{name}", _post(b)) for name, b in bodies.items()]


def _bodies() -> list[HttpCase]:
    """The body as a whole: not JSON, not an object, nested deep, not UTF-8, huge."""
    return [
        HttpCase("chat/not_json", _post(b"{oops")),
        HttpCase("chat/empty_body", _post(b"")),
        HttpCase("chat/json_array", _post(b"[1, 2]")),
        HttpCase("chat/json_number", _post(b"42")),
        HttpCase("chat/json_string", _post(b'"hello"')),
        HttpCase("chat/json_null", _post(b"null")),
        HttpCase("chat/nested_100k_arrays", _post(_deep(100_000))),
        HttpCase(
            "chat/nested_50k_objects", _post(('{"a":' * 50_000 + "1" + "}" * 50_000).encode())
        ),
        HttpCase("chat/not_utf8", _post(b'{"messages": [{"role": "user", "content": "caf\xe9"}]}')),
        HttpCase(
            "chat/lone_surrogate",
            _post(b'{"messages": [{"role": "user", "content": "\\ud800"}]}'),
            frozenset({200, 400}),
        ),
        HttpCase(
            "chat/body_over_cap", lambda: _post(b'{"x": "' + b"a" * BIG + b'"}'), frozenset({413})
        ),
        HttpCase(
            "chat/body_over_cap_chunked",
            lambda: _chunked(b'{"x": "' + b"a" * BIG + b'"}'),
            frozenset({413}),
        ),
        HttpCase(
            "chat/prompt_3mb",
            lambda: _chat(content="lever " * (NEAR_CAP // 6)),
            frozenset({400, 413}),
        ),
        HttpCase(
            "completions/prompt_3mb",
            lambda: _completion(prompt="lever " * (NEAR_CAP // 6)),
            frozenset({400, 413}),
        ),
        HttpCase(
            "chat/content_length_too_big",
            http_bytes("POST", CHAT, b"{}", length=BIG),
            frozenset({413}),
        ),
    ]


def _protocol() -> list[HttpCase]:
    """Requests that are wrong before the API sees them: paths, methods, HTTP framing."""
    return [
        HttpCase("http/unknown_path", http_bytes("GET", "/v1/nope", None), frozenset({404})),
        HttpCase("http/get_chat", http_bytes("GET", CHAT, None), frozenset({405})),
        HttpCase("http/put_completions", http_bytes("PUT", COMPLETIONS, b"{}"), frozenset({405})),
        HttpCase("http/garbage_request_line", b"GARBAGE\r\n\r\n", frozenset({400}), False),
        HttpCase(
            "http/header_without_colon",
            b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
            frozenset({400}),
            False,
        ),
        HttpCase(
            "http/header_1mb",
            http_bytes("GET", "/health", None, {"X-Big": "a" * (1 << 20)}),
            frozenset({200, 400, 431}),
            False,
        ),
        HttpCase("http/bad_chunk_size", _chunked(b"{}", b"zz"), frozenset({400}), False),
        HttpCase(
            "http/content_length_word",
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n{}",
            frozenset({400}),
            False,
        ),
        HttpCase("chat/unknown_model", _chat(model="no-such-model"), frozenset({404, 400})),
    ]


def _completions() -> list[HttpCase]:
    bodies: dict[str, dict[str, Any]] = {
        "no_prompt": {},
        "prompt_list_of_two": {"prompt": ["a", "b"]},
        "prompt_number": {"prompt": 7},
        "prompt_token_ids": {"prompt": [1, 2, 3]},
        "max_tokens_word": {"prompt": "hi", "max_tokens": "ten"},
        "seed_2_pow_70": {"prompt": "hi", "seed": 2**70, "temperature": 1},
        "temperature_three": {"prompt": "hi", "temperature": 3},
        "stop_dict": {"prompt": "hi", "stop": {"a": 1}},
    }
    cases = [HttpCase(f"completions/{name}", _completion(**b)) for name, b in bodies.items()]
    cases.append(HttpCase("completions/not_json", _post(b"{'prompt': 'hi'}", COMPLETIONS)))
    cases.append(
        HttpCase(
            "completions/temperature_nan",
            _post(b'{"prompt": "hi", "max_tokens": 4, "temperature": NaN}', COMPLETIONS),
        )
    )
    return cases


def _hang_ups() -> list[HttpCase]:
    """Clients that go away: mid-body, before the body, after a lying Content-Length."""
    whole = json.dumps(chat_body()).encode()
    e: frozenset[int] = frozenset()
    return [
        HttpCase("hangup/mid_body", http_bytes("POST", CHAT, whole)[:-20], e),
        HttpCase(
            "hangup/before_body",
            http_bytes("POST", CHAT, whole).split(b"\r\n\r\n")[0] + b"\r\n\r\n",
            e,
        ),
        HttpCase("hangup/length_lies", http_bytes("POST", CHAT, whole, length=len(whole) + 500), e),
        HttpCase("hangup/mid_headers", b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127", e),
        HttpCase("hangup/mid_chunked", _chunked(whole)[:-30], e),
        HttpCase("hangup/after_request", _chat(), e),
    ]


def http_cases() -> list[HttpCase]:
    return (
        _fields()
        + _non_finite()
        + _messages()
        + _bodies()
        + _protocol()
        + _completions()
        + _hang_ups()
    )


@dataclass
class _Neighbours:
    results: list[tuple[bool, float, str]] = field(default_factory=list)

    def run(self, port: int, k: int) -> list[threading.Thread]:
        def one(i: int) -> None:
            time.sleep(0.02 * i)  # in the same batch window as the bad request
            self.results.append(good_request(port, i, timeout=30))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(k)]
        for t in threads:
            t.start()
        return threads


def run_http_case(case: HttpCase, served: Served) -> dict[str, Any]:
    problems = []
    lines_before = len(served.log_lines())
    neighbours = _Neighbours()
    threads = neighbours.run(served.port, 2)
    t0 = time.perf_counter()
    hang_up = not case.expect
    try:
        status, body = send_raw(served.port, case.payload(), timeout=30, hang_up=hang_up)
    except OSError as err:
        status, body = None, str(err).encode()
    seconds = time.perf_counter() - t0
    for t in threads:
        t.join(60)
    if not hang_up and status not in case.expect:
        problems.append(f"status {status}, expected {sorted(case.expect)}")
    if not hang_up and status and status >= 400 and case.api_error:
        try:
            message = json.loads(body)["error"]["message"]
            if not isinstance(message, str) or "\n" in message:
                problems.append("error message not one line")
        except (ValueError, KeyError, TypeError):
            problems.append(f"not OpenAI's error body: {body[:120]!r}")
    failed = [why for ok, _, why in neighbours.results if not ok]
    if failed or len(neighbours.results) != 2:
        problems.append(f"a good neighbour failed: {failed[:1]}")
    time.sleep(0.3)  # a hang-up's log line is written once the server notices
    new = served.log_lines()[lines_before:]
    if any("Traceback" in ln for ln in new):
        problems.append("traceback in the server log")
    if len(new) > 2:
        problems.append(f"{len(new)} log lines")
    if served.proc.poll() is not None:
        problems.append("the server died")
    return {
        "id": case.id,
        "family": case.family,
        "code": status,
        "problems": problems,
        "error": body[:200].decode(errors="replace"),
        "seconds": round(seconds, 3),
        "seeded": False,
    }


def run_http_corpus(cases: list[HttpCase], model: Path, root: Path) -> list[dict[str, Any]]:
    """Every case against one server (a new one after a case that wedged or killed it)."""
    from serve_clients import start_server

    served = start_server(model, root / "serve.log")
    results = []
    try:
        for case in cases:
            results.append(run_http_case(case, served))
            if any("neighbour" in p or "died" in p for p in results[-1]["problems"]):
                # a wedged server would fail every later case too: the next gets a new one
                served.stop()
                served = start_server(model, root / f"serve-{len(results)}.log")
    finally:
        served.stop()
    return results
