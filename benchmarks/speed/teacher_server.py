"""A real local teacher: llama.cpp's server (llama-cpp-python's `[server]` extra) serving the
Gemma 3 270M GGUF, driving Jupiter's generate stage (the grounded_qa recipe) on CMake's
reference documentation, a corpus the recipes were not written around.

For each `--formats` entry (text: free text; json_object: the recipe's JSON schema as a
grammar) it runs collect + generate in a fresh workspace and prints requests/s, completion
tokens/s, and every answer's outcome (accepted, or the reason it was refused). Then the
cost of a kill -9: `jupiter generate` is killed once a third of its answers are cached, run
again, and the calls asked twice and the wall time lost are printed against the clean run.

    python benchmarks/speed/teacher_server.py [--requests 24] [--threads 2] [--concurrency 2]
        [--formats text,json_object] [--docs 40] [--no-kill]

Needs `pip install 'llama-cpp-python[server]'` (builds llama.cpp: minutes) and the GGUF
(`make real-model`). One server process for all runs; `--threads` is its CPU threads.
"""

from __future__ import annotations

import argparse
import glob
import io
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "support"))
from llamaserver import GEMMA as GGUF  # noqa: E402
from llamaserver import LlamaServer  # noqa: E402


def domain_yaml(root: Path, url: str, fmt: str, requests: int, docs: int, concurrency: int) -> Path:
    src = root / "docs"
    if not src.is_dir():
        src.mkdir()
        files = sorted(glob.glob("/usr/share/cmake-*/Help/command/*.rst"))[:docs]
        if not files:
            raise SystemExit("CMake's reference (/usr/share/cmake-*/Help) is not on this machine")
        for f in files:
            shutil.copy(f, src)
    path = root / f"{fmt}.yaml"
    path.write_text(f"""
name: teacher-{fmt.replace("_", "-")}
description: CMake, the build system generator, from its reference documentation.
topics: [cmake, build system, targets, commands]
sources: [{{type: local, path: {src}, include: ["*.rst"]}}]
chunking: {{heldout_fraction: 0.0}}
generator:
  type: llm
  continuation: false
  num_requests: {requests}
  llm: {{base_url: "{url}", concurrency: {concurrency}, max_tokens: 160, temperature: 0.2,
         timeout: 600, max_retries: 2, response_format: {fmt}}}
""")
    return path


def generate(yaml: Path, home: Path) -> dict[str, Any]:
    os.environ["JUPITER_HOME"] = str(home)
    from jupiter.config import load_domain
    from jupiter.improve import cycle as cycle_mod
    from jupiter.improve.workspace import Workspace

    ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO(), width=200))
    for stage in ("collect", "generate"):
        info = cycle_mod.run_stage(ws, 1, stage)
        ws.store.mark_stage(1, stage, info)
    rows = ws.store.db.execute(
        "SELECT CASE status WHEN 'rejected' THEN reason ELSE status END, COUNT(*) "
        "FROM examples WHERE cycle = 1 GROUP BY 1"
    ).fetchall()
    ws.close()
    return info | {"outcomes": dict(rows)}


def kill_cost(yaml: Path, home: Path, requests: int, clean_s: float) -> None:
    env = os.environ | {"JUPITER_HOME": str(home)}
    cli = [sys.executable, "-m", "jupiter.cli"]
    subprocess.run(
        [*cli, "collect", "--domain", str(yaml)], env=env, check=True, capture_output=True
    )
    db = next(home.glob("runs/*/jupiter.sqlite"))

    def cached() -> int:
        try:
            with sqlite3.connect(db) as con:
                return int(con.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])
        except sqlite3.OperationalError:
            return 0

    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*cli, "generate", "--domain", str(yaml)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    while cached() < requests // 3 and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_s, at_kill = time.perf_counter() - t0, cached()
    t1 = time.perf_counter()
    out = subprocess.run(
        [*cli, "generate", "--domain", str(yaml)], env=env, text=True, capture_output=True
    ).stdout
    resumed_s = time.perf_counter() - t1
    line = next((x for x in " ".join(out.split()).split("generate: ")[1:]), "?")
    print(
        f"kill -9 after {at_kill}/{requests} answers cached ({killed_s:.1f} s): the resumed "
        f"run asked {requests - at_kill} ({resumed_s:.1f} s): {line[:160]}"
    )
    lost = killed_s + resumed_s - clean_s
    print(
        f"  wall lost to the kill: {lost:+.1f} s against the clean run's {clean_s:.1f} s "
        f"(the calls in flight at the kill, asked again, plus one process start)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=24)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--formats", default="text,json_object")
    ap.add_argument("--no-kill", action="store_true")
    a = ap.parse_args()
    if not GGUF.is_file():
        raise SystemExit(f"{GGUF} is absent: run `make real-model`")
    root = Path(tempfile.mkdtemp(prefix="teacher-"))
    try:
        server = LlamaServer(GGUF, root / "server.log", threads=a.threads, alias="gemma-3-270m")
        with server:
            run(a, root, server.base_url)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(a: argparse.Namespace, root: Path, url: str) -> None:
    """Each format's generate stage, then the kill -9, against the server at `url`."""
    import llama_cpp

    print(
        f"llama-cpp-python {llama_cpp.__version__}, {GGUF.name}, {a.threads} threads, "
        f"{a.requests} requests, concurrency {a.concurrency}"
    )
    clean: dict[str, float] = {}
    for fmt in a.formats.split(","):
        yaml = domain_yaml(root, url, fmt, a.requests, a.docs, a.concurrency)
        info = generate(yaml, root / f"home-{fmt}")
        s = info["seconds"]
        clean[fmt] = s
        print(
            f"{fmt}: {info['calls']} calls in {s:.1f} s = {info['calls'] / s:.2f} req/s, "
            f"{info['completion_tokens']} completion tokens = "
            f"{info['completion_tokens'] / s:.1f} tok/s; outcomes {info['outcomes']}"
        )
    if not a.no_kill:
        fmt = a.formats.split(",")[-1]
        yaml = domain_yaml(root, url, fmt, a.requests, a.docs, a.concurrency)
        kill_cost(yaml, root / "home-kill", a.requests, clean[fmt])


if __name__ == "__main__":
    main()
