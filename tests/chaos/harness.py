"""Shared pieces of the chaos scenarios: the machine line every figure carries, a tiny
training run, process groups to kill -9, an in-process `jupiter` runner, and the digest of
a workspace's store.

The scenarios import the tests' helpers (tests/support/: fakellm, badinput, tinyhf) and
the cluster set-up (tests/cluster/diloco_setup.py). Under pytest, tests/support is on
sys.path (pyproject's pythonpath); run as a script (`python tests/chaos/kill_training.py`,
or through benchmarks/reliability/chaos.py), a scenario finds them through the lines below.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
for _p in (TESTS / "support", TESTS / "cluster"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))


# ------------------------------------------------------------------------------ figures
def machine() -> dict[str, Any]:
    """Where and when a figure was taken."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    import torch

    info = {
        "date": time.strftime("%Y-%m-%d"),
        "os": f"{platform.system()} {platform.release()}",
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "root": os.geteuid() == 0 if hasattr(os, "geteuid") else None,
    }
    with contextlib.suppress(ImportError):
        import mlx.core as mx

        info["mlx"] = mx.__version__
    return info


def emit(scenario: str, figures: dict[str, Any], out: str | None = None) -> dict[str, Any]:
    """Print a scenario's figures (one JSON document after a FIGURES marker) and write them
    to `out` when given; returns them with the machine line."""
    doc = {"scenario": scenario, "machine": machine(), **figures}
    text = json.dumps(doc, indent=1, default=str)
    print(f"FIGURES {scenario}\n{text}", flush=True)
    if out:
        Path(out).write_text(text + "\n", encoding="utf-8")
    return doc


def out_arg(argv: list[str]) -> str | None:
    """`--out FILE` from a scenario's command line."""
    return argv[argv.index("--out") + 1] if "--out" in argv else None


# ---------------------------------------------------------------------- training runs
def tiny_texts() -> list[str]:
    from tinyhf import CORPUS

    return [f"{t} ({i})" for i, t in enumerate(CORPUS * 3)]


def tiny_tokenizer(out: Path) -> Path:
    from jupiter.data.tokenizer import train_tokenizer

    if not (out / "tokenizer.json").is_file():
        train_tokenizer(tiny_texts(), 400, out)
    return out


def tiny_run(tok_dir: Path, out: Path, **cfg: Any) -> Any:
    """A from-scratch Llama (2 layers, hidden 64, context 32) on ~100 short texts; fp32,
    checkpoints as `cfg` says. Returns a jupiter.train.loop.TrainRun."""
    from transformers import AutoTokenizer, LlamaConfig

    from jupiter.config import TrainConfig
    from jupiter.data.dataset import PackedDataset, encode_examples
    from jupiter.train.loop import TrainRun

    tok = AutoTokenizer.from_pretrained(tok_dir)
    texts = tiny_texts()
    seqs = encode_examples(tok, [], texts, raw_text_fraction=1.0, seed=0)
    held = encode_examples(tok, [], texts[::9], raw_text_fraction=1.0, seed=1)
    model_config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=True,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    base = {
        "max_steps": 40,
        "micro_batch_size": 4,
        "grad_accum": 1,
        "warmup_steps": 2,
        "precision": "fp32",
        "checkpoint_every": 4,
        "checkpoint_every_epoch": False,
        "eval_every": 1000,
        "metrics": [],
        "log_every": 1,
        "lr": 3e-3,
        "loss": "plain",
        "gradient_checkpointing": False,
        "keep_checkpoints": 2,
    }
    return TrainRun(
        PackedDataset(seqs, context_length=32, pad_id=tok.pad_token_id, seed=0),
        TrainConfig(**{**base, **cfg}),
        out,
        tok_dir,
        model_config=model_config,
        heldout=PackedDataset(held, context_length=32, pad_id=tok.pad_token_id, seed=0),
        run_id="chaos",
        device="cpu",
        progress=False,
    )


def trainer_command(spec: Path, backend: str) -> list[str]:
    """The trainer's entry point as a process: what `jupiter train` starts (torchrun's
    worker module, or mlx.launch's), on one rank."""
    module = "jupiter.train.mlx_loop" if backend == "mlx" else "jupiter.train.launch"
    return [sys.executable, "-m", module, str(spec)]


def max_abs_diff(a_dir: Path, b_dir: Path) -> tuple[float, bool]:
    """(largest |a - b| over every tensor, every tensor bit-identical) of two model dirs."""
    import torch
    from safetensors.torch import load_file

    a, b = load_file(a_dir / "model.safetensors"), load_file(b_dir / "model.safetensors")
    if a.keys() != b.keys():
        return float("inf"), False
    diff = max(float((a[k].double() - b[k].double()).abs().max()) for k in a)
    return diff, all(torch.equal(a[k], b[k]) for k in a)


# ----------------------------------------------------------------------- processes
def start_group(
    cmd: list[str], log: Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    """A process in its own process group (session), output appended to `log`."""
    out = log.open("ab")
    env = dict(os.environ if env is None else env, OMP_NUM_THREADS="1")
    return subprocess.Popen(
        cmd,
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """kill -9 of the whole process group (the process and every child it started)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


# ------------------------------------------------------------------ in-process jupiter
@dataclass
class Outcome:
    code: int | str  # the exit status, or "timeout"
    stdout: str
    stderr: str
    seconds: float


def run_cli(argv: list[str], home: Path, limit: int = 60) -> Outcome:
    """`jupiter ARGV` without a new interpreter: this process forks, and the child calls
    cli.main with sys.argv patched (its SystemExit is the exit status), in `home` with
    JUPITER_HOME=home, stdin empty and stdout/stderr going to files. What is imported
    already costs nothing, a case cannot leak state into the next, and one that hangs
    (a server that starts) is killed with its process group after `limit` seconds."""
    where = Path(tempfile.mkdtemp(prefix="jupiter-case-"))  # not in home: it may be full
    out_path, err_path = where / "stdout", where / "stderr"
    t0 = time.perf_counter()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(argv, home, out_path, err_path)
    code: int | str = "timeout"
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        time.sleep(0.01)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    read = [p.read_text(errors="replace") if p.is_file() else "" for p in (out_path, err_path)]
    shutil.rmtree(where, ignore_errors=True)
    return Outcome(code, read[0], read[1], time.perf_counter() - t0)


def _child(argv: list[str], home: Path, out_path: Path, err_path: Path) -> None:
    code = 70
    try:
        os.setpgid(0, 0)  # its own group: a timeout kills what it started too
        os.chdir(home)
        os.environ.update(JUPITER_HOME=str(home), COLUMNS="200")
        fds = [
            os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for p in (out_path, err_path)
        ]
        null = os.open(os.devnull, os.O_RDONLY)
        for fd, target in ((null, 0), (fds[0], 1), (fds[1], 2)):
            os.dup2(fd, target)
        # fresh streams on fds 0-2: the parent's may be a test runner's capture objects
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False, buffering=1)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
        sys.argv = ["jupiter", *argv]
        from jupiter import cli

        try:
            cli.main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 - what main let through is a finding
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def run_cli_process(argv: list[str], home: Path, limit: int = 120) -> Outcome:
    """`jupiter ARGV` as a real process (the same checks as run_cli, for parity)."""
    env = dict(os.environ, JUPITER_HOME=str(home), COLUMNS="200", OMP_NUM_THREADS="1")
    exe = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"
    t0 = time.perf_counter()
    try:
        r = subprocess.run(
            [exe, *argv],
            cwd=home,
            env=env,
            capture_output=True,
            text=True,
            timeout=limit,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as e:
        return Outcome("timeout", str(e.stdout or ""), str(e.stderr or ""), float(limit))
    return Outcome(r.returncode, r.stdout, r.stderr, time.perf_counter() - t0)


# -------------------------------------------------------------------------- the store
def store_files(home: Path) -> list[Path]:
    """Every store file under home's workspaces (the database, its WAL and shared memory)."""
    return sorted(home.glob("runs/*/jupiter.sqlite*"))


def store_digest(home: Path) -> dict[str, str]:
    """SHA-256 of each workspace's database; a non-empty WAL left behind counts too."""
    out = {}
    for p in store_files(home):
        if not p.is_file():  # a folder where the store should be: the case's own damage
            continue
        if p.name.endswith("-shm") or (p.name.endswith("-wal") and p.stat().st_size == 0):
            continue
        out[str(p.relative_to(home))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def tree_digest(roots: list[Path]) -> dict[str, str]:
    """SHA-256 of every file under each root (SQLite's shared memory, and a WAL left
    empty, aside: opening a store to read it makes them)."""
    out = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.name.endswith("-shm") or not p.is_file() or p.is_symlink():
                continue
            if p.name.endswith("-wal") and p.stat().st_size == 0:
                continue
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
