"""CPU taken by the launcher: mlx.launch as shipped against `python -m jupiter.train.mlx_launch`
(the same launcher with its relay waiting instead of spinning), both starting the same ranks
on 127.0.0.1 with the ring backend. Each rank only sleeps, so what the run costs beyond the
ranks' start-up is the launcher's own relaying.

    python benchmarks/speed/mlx_launch.py [--ranks 2] [--seconds 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

RANK = "import time; time.sleep({seconds})\n"


def cpu_of(argv: list[str], hostfile: Path, script: Path) -> tuple[float, float]:
    """(CPU-seconds of the launcher and its ranks, wall seconds) for one launch."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(
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
        stdout=subprocess.DEVNULL,
        check=True,
    )
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    stock = Path(sys.executable).with_name("mlx.launch")
    launchers = {
        "mlx.launch (as shipped)": [str(stock)],
        "jupiter.train.mlx_launch": [sys.executable, "-m", "jupiter.train.mlx_launch"],
    }
    with tempfile.TemporaryDirectory() as tmp:
        hostfile, script = Path(tmp) / "hosts.json", Path(tmp) / "rank.py"
        hostfile.write_text(json.dumps([{"ssh": "127.0.0.1", "ips": ["127.0.0.1"]}] * a.ranks))
        script.write_text(RANK.format(seconds=a.seconds))
        results: dict[str, tuple[float, float]] = {}
        for name, argv in launchers.items():
            runs = [cpu_of(argv, hostfile, script) for _ in range(a.repeats)]
            results[name] = (median(c for c, _ in runs), median(w for _, w in runs))
    print(f"{a.ranks} ranks sleeping {a.seconds:.0f} s, median of {a.repeats} launches")
    print(f"{'launcher':28s} {'CPU-s':>7s} {'wall s':>7s} {'CPU per wall s':>15s}")
    for name, (cpu, wall) in results.items():
        print(f"{name:28s} {cpu:7.2f} {wall:7.2f} {cpu / wall:15.2f}")
    ours, theirs = results["jupiter.train.mlx_launch"][0], results["mlx.launch (as shipped)"][0]
    print(f"CPU ratio, shipped / ours: {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
