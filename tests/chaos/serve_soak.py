"""Soak: a real `jupiter serve` on a tiny model under minutes of mixed clients.

Good clients send well-formed chat requests back to back (greedy, or sampled with a seed)
and record each one's latency; bad clients cycle through what broke neighbours before:
bodies over the 4 MiB cap, JSON nested 100,000 deep, seeds past torch's range, hang-ups
mid-body, invalid fields, a prompt the tokenizer refuses, a prompt over the cap. A sampler reads the server's
resident memory every few seconds. Passes when no good request failed and the server
lived to the end; prints RSS start/end/peak, the good requests' latency percentiles, and
the bad requests by kind and status.

    python tests/chaos/serve_soak.py [--minutes 10] [--good 3] [--bad 3] [--out FILE]
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from harness import emit, out_arg
from serve_clients import CHAT, chat_body, good_request, http_bytes, send_raw, start_server


def _post(body: bytes) -> bytes:
    return http_bytes("POST", CHAT, body)


BIG = b'{"messages": [{"role": "user", "content": "' + b"x" * (5 << 20) + b'"}]}'
WHOLE = json.dumps(chat_body()).encode()
# kind -> (request bytes, hang up after sending)
BAD: dict[str, tuple[bytes, bool]] = {
    "body_over_cap": (_post(BIG), False),
    "nested_100k": (_post(b"[" * 100_000 + b"]" * 100_000), False),
    "seed_2_pow_70": (_post(json.dumps(chat_body(seed=2**70, temperature=1)).encode()), False),
    "hangup_mid_body": (_post(WHOLE)[:-25], True),
    "temperature_nan": (
        _post(b'{"messages": [{"role": "user", "content": "hi"}], "temperature": NaN}'),
        False,
    ),
    "max_tokens_negative": (_post(json.dumps(chat_body(max_tokens=-3)).encode()), False),
    "not_json": (_post(b"{oops"), False),
    "lone_surrogate": (_post(b'{"messages": [{"role": "user", "content": "\\ud800"}]}'), False),
    "messages_empty": (_post(b'{"messages": []}'), False),
    "prompt_over_cap": (_post(json.dumps(chat_body("lever " * 200_000)).encode()), False),
}


class Soak:
    def __init__(self, port: int, until: float) -> None:
        self.port, self.until = port, until
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self.bad: Counter[str] = Counter()
        self.bad_status: Counter[str] = Counter()

    def good_client(self, k: int) -> None:
        i = k
        while time.monotonic() < self.until:
            ok, seconds, why = good_request(self.port, i, timeout=120)
            with self.lock:
                self.latencies.append(seconds) if ok else self.failures.append(why)
            i += 1000

    def bad_client(self, k: int) -> None:
        rng = random.Random(k)
        kinds = sorted(BAD)
        while time.monotonic() < self.until:
            kind = rng.choice(kinds)
            data, hang_up = BAD[kind]
            try:
                status, _ = send_raw(self.port, data, timeout=60, hang_up=hang_up)
            except OSError as err:
                status = type(err).__name__
            with self.lock:
                self.bad[kind] += 1
                self.bad_status[f"{kind}:{'hung up' if hang_up else status}"] += 1
            time.sleep(rng.uniform(0.0, 0.2))


def _sample_rss(served: Any, until: float, every: float, out: list[tuple[float, float]]) -> None:
    t0 = time.monotonic()
    while time.monotonic() < until and served.proc.poll() is None:
        out.append((round(time.monotonic() - t0, 1), round(served.rss_mb(), 1)))
        time.sleep(every)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(q * len(s)))], 3)


def soak(minutes: float, good: int = 3, bad: int = 3, every: float = 5.0) -> dict[str, Any]:
    from tinyhf import save_tiny

    root = Path(tempfile.mkdtemp(prefix="jupiter-soak-"))
    served = start_server(save_tiny("llama", root / "tiny-model"), root / "serve.log")
    try:
        for i in range(3):  # warm up: the first requests pay for lazy imports
            good_request(served.port, i)
        run = Soak(served.port, time.monotonic() + minutes * 60)
        rss: list[tuple[float, float]] = []
        threads = [threading.Thread(target=_sample_rss, args=(served, run.until, every, rss))]
        threads += [threading.Thread(target=run.good_client, args=(k,)) for k in range(good)]
        threads += [threading.Thread(target=run.bad_client, args=(k,)) for k in range(bad)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        alive = served.proc.poll() is None
        lines = served.log_lines()
    finally:
        served.stop()
        shutil.rmtree(root, ignore_errors=True)
    lat = run.latencies
    mbs = [m for _, m in rss]
    return {
        "minutes": minutes,
        "good_clients": good,
        "bad_clients": bad,
        "good_requests": len(lat) + len(run.failures),
        "good_failed": len(run.failures),
        "failures_sample": run.failures[:5],
        "server_alive_at_end": alive,
        "latency_s": {
            "p50": _pct(lat, 0.50),
            "p95": _pct(lat, 0.95),
            "p99": _pct(lat, 0.99),
            "max": round(max(lat), 3) if lat else None,
            "mean": round(statistics.fmean(lat), 3) if lat else None,
        },
        "rss_mb": {
            "start": mbs[0] if mbs else None,
            "end": mbs[-1] if mbs else None,
            "peak": max(mbs) if mbs else None,
            "samples": len(mbs),
        },
        "rss_timeline_mb": rss[:: max(1, len(rss) // 40)],
        "bad_requests": sum(run.bad.values()),
        "bad_by_kind": dict(sorted(run.bad.items())),
        "bad_status": dict(sorted(run.bad_status.items())),
        "server_log_lines": len(lines),
        "server_log_tracebacks": sum("Traceback" in ln for ln in lines),
    }


def main(argv: list[str]) -> dict[str, Any]:
    def arg(name: str, default: float) -> float:
        return float(argv[argv.index(name) + 1]) if name in argv else default

    figures = soak(arg("--minutes", 10), int(arg("--good", 3)), int(arg("--bad", 3)))
    return emit("serve soak", figures, out_arg(argv))


if __name__ == "__main__":
    doc = main(sys.argv[1:])
    ok = doc["good_failed"] == 0 and doc["server_alive_at_end"]
    print(
        f"soak: {doc['good_requests']} good requests, {doc['good_failed']} failed; "
        f"{doc['bad_requests']} bad; p50 {doc['latency_s']['p50']} s, p99 "
        f"{doc['latency_s']['p99']} s; RSS {doc['rss_mb']['start']} -> {doc['rss_mb']['end']}"
        f" MB (peak {doc['rss_mb']['peak']})"
    )
    sys.exit(0 if ok else 1)
