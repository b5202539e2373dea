"""mlx.launch without its busy wait (train/mlx_launch.py): the same launcher, ranks' output
relayed, and the CPU left to the ranks."""

from __future__ import annotations

import json
import os
import resource
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupiter.train import mlx_launch

pytest.importorskip("mlx.core")

# each line in one write: with PYTHONUNBUFFERED=1 in the environment (this host and CI have
# it) a rank's print writes its pieces ("rank", " ", "0", ...) one by one, and two ranks'
# pieces interleave in the relayed output ("rankrank 1 done", seen once on a CI run)
RANK = """
import os, sys, time
time.sleep({sleep})
sys.stdout.write("rank " + str(os.environ.get("MLX_RANK")) + " done\\n")
sys.stdout.flush()
sys.stderr.write("to stderr\\n")
sys.stderr.flush()
"""


def launch(
    tmp_path: Path, argv: list[str], sleep: float
) -> tuple[subprocess.CompletedProcess[str], float]:
    script = tmp_path / "rank.py"
    script.write_text(RANK.format(sleep=sleep))
    hostfile = tmp_path / "hosts.json"
    hostfile.write_text(json.dumps([{"ssh": "127.0.0.1", "ips": ["127.0.0.1"]}] * 2))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [
            *argv,
            "--hostfile",
            str(hostfile),
            "--backend",
            "ring",
            "--python",
            sys.executable,
            str(script),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, cpu


def test_two_ranks_relayed_without_spinning(tmp_path: Path) -> None:
    start = time.monotonic()
    out, cpu = launch(tmp_path, mlx_launch.command(), sleep=4.0)
    wall = time.monotonic() - start
    assert out.returncode == 0, out.stderr
    assert sorted(line for line in out.stdout.splitlines() if line.startswith("rank")) == [
        "rank 0 done",
        "rank 1 done",
    ]
    assert out.stderr.count("to stderr") == 2
    assert wall >= 4.0
    # two interpreters starting and sleeping take well under a second each; the stock
    # launcher spends about one CPU-second per second of the ranks' run relaying
    assert cpu < 2.5, f"{cpu:.1f} CPU-seconds for two ranks that slept 4 s"


def test_the_relay_waits_for_output_and_reports_stdin_writable() -> None:
    """The stock relay asks select about a rank's stdin pipe, which always has room, so it
    never waits; ours waits on the output pipes and reports the stdin pipe writable."""
    out_r, out_w = os.pipe()
    in_r, in_w = os.pipe()
    try:
        assert select.select([out_r], [in_w], [], 0.3)[1] == [in_w]  # the spin: ready at once
        start = time.monotonic()
        assert mlx_launch._wait_on_reads([out_r], [in_w], [], 0.3) == ([], [in_w], [])
        assert time.monotonic() - start >= 0.25
        os.write(out_w, b"x")
        start = time.monotonic()
        assert mlx_launch._wait_on_reads([out_r], [in_w], [], 5.0) == ([out_r], [in_w], [])
        assert time.monotonic() - start < 1.0
    finally:
        for fd in (out_r, out_w, in_r, in_w):
            os.close(fd)
