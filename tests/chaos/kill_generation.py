"""Kill -9 `jupiter generate` at random moments against a counting fake server.

The teacher is tests/support/fakellm.py's OpenAI-compatible server on 127.0.0.1, answering after
`--delay` seconds, with every request body noted by the run segment it came in. The
generation is started as a real `jupiter generate` process in its own process group and
killed (SIGKILL to the group) at a random moment of its work, `--kills` times, then let
finish. Per kill: the answers in the store's LLM cache at the kill; the requests the next
segment sent again that were among them (must be 0); the in-flight waste (requests sent in
the killed segment whose answers never reached the store). At the end: every planned
request answered once, one queue row per answer, and the same accepted examples as an
uninterrupted run.

    python tests/chaos/kill_generation.py [--kills 10] [--requests 120]
        [--delay 0.1] [--seed 18] [--out FILE]
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from generation_setup import Ledger, accepted, cached, example_count, write_domain
from harness import emit, kill_group, out_arg, start_group

from fakellm import FakeLLM, teacher


def jupiter(args: list[str], yaml: Path, home: Path, log: Path) -> Any:
    """`jupiter ARGS --domain YAML` as a process group of its own, in `home`."""
    cmd = [sys.executable, "-m", "jupiter.cli", *args, "--domain", str(yaml)]
    return start_group(cmd, log, env={**os.environ, "JUPITER_HOME": str(home)}, cwd=home)


def run_segment(
    ledger: Ledger, yaml: Path, home: Path, log: Path, kill_in: float | None, timeout: float = 600
) -> dict[str, Any]:
    """One `jupiter generate`: killed `kill_in` seconds after its first request (None: run
    to its end). What it sent, and what reached the store."""
    before = cached(home)
    ledger.segment += 1
    seg = ledger.segment
    proc = jupiter(["generate"], yaml, home, log)
    t0 = time.monotonic()
    while proc.poll() is None and not ledger.of(seg) and time.monotonic() - t0 < timeout:
        time.sleep(0.005)
    if kill_in is not None:
        time.sleep(kill_in)
        ended = proc.poll() is not None
        kill_group(proc)
    else:
        proc.wait(timeout=timeout)
        ended = True
    time.sleep(0.3)  # the server finishes what the dead client had asked
    after = cached(home)
    sent = ledger.of(seg)
    return {
        "segment": seg,
        "kill_after_s": kill_in,
        "ended_before_kill": ended and kill_in is not None,
        "exit": proc.returncode,
        "sent": len(sent),
        "new_answers": len(after - before),
        "asked_again": len(set(sent) & before),  # answers already in the store: must be 0
        "wasted_in_flight": len([i for i in set(sent) if i not in after]),
    }


def run(kills: int, requests: int, delay: float, seed: int, root: Path) -> dict[str, Any]:
    rng = random.Random(seed)
    ledger = Ledger()

    def reply(body: dict[str, Any]) -> str:
        ledger.note(body)
        return teacher(body, 0)

    with FakeLLM(delay=delay, reply=reply) as llm:
        home = root / "run"
        yaml = write_domain(home, llm.base_url, requests)
        log = root / "log.txt"
        assert jupiter(["collect"], yaml, home, log).wait(300) == 0, f"collect failed: {log}"
        per_second = 2 / delay  # concurrency 2
        rows = []
        for k in range(kills):
            # a random moment within this segment's share of the work left, so that every
            # kill lands while requests are still being asked
            left = max(requests - len(cached(home)), 1) / per_second
            share = 2 * left / (kills - k + 1)
            rows.append(run_segment(ledger, yaml, home, log, rng.uniform(0, share)))
            print(f"kill {len(rows)}: {rows[-1]}", flush=True)
        last = run_segment(ledger, yaml, home, log, None)
        answered = cached(home)
        total_sent = len(ledger.seen)
        examples = example_count(home)
        got = accepted(home)
        # the reference in the same folder (ids and the request plan follow the paths)
        home.rename(root / "killed-done")
        ref_yaml = write_domain(home, llm.base_url, requests)
        ledger.segment = 1000
        for cmd in ("collect", "generate"):
            code = jupiter([cmd], ref_yaml, home, log).wait(600)
            assert code == 0, f"reference {cmd} failed: see {log}"
        same = accepted(home) == got
    return {
        "kills": kills,
        "requests": requests,
        "server_delay_s": delay,
        "seed": seed,
        "asked_again": sum(r["asked_again"] for r in rows) + last["asked_again"],
        "wasted_in_flight": sum(r["wasted_in_flight"] for r in rows),
        "requests_sent": total_sent,
        "answered": len(answered),
        "queue_rows": examples,
        "last_exit": last["exit"],
        "accepted_same_as_uninterrupted": same,
        "accepted": len(got),
        "per_kill": rows,
        "final_segment": last,
    }


def main(argv: list[str]) -> dict[str, Any]:
    kills = int(argv[argv.index("--kills") + 1]) if "--kills" in argv else 10
    requests = int(argv[argv.index("--requests") + 1]) if "--requests" in argv else 120
    delay = float(argv[argv.index("--delay") + 1]) if "--delay" in argv else 0.1
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 18
    root = Path(tempfile.mkdtemp(prefix="jupiter-kill-generation-"))
    try:
        figures = run(kills, requests, delay, seed, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return emit("kill -9 generation", figures, out_arg(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
