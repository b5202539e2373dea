"""Run every chaos scenario, each as its own process, and write their figures to one JSON
file (default benchmarks/chaos/figures.json); docs/RELIABILITY.md quotes them.

    python benchmarks/chaos/run_all.py [--only r1,r4] [--out FILE] [--quick]

--quick runs each scenario small (a few kills, a sample of the corpus): minutes, not an
hour. A scenario that fails is recorded with its exit status and output tail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS: dict[str, tuple[str, list[str], list[str]]] = {
    # name: (script, full arguments, --quick arguments)
    "r1": ("r1_kill_train.py", ["--kills", "10"], ["--kills", "2", "--steps", "60"]),
    "r2": ("r2_kill_generate.py", ["--kills", "10"], ["--kills", "2", "--requests", "30"]),
    "r3": ("r3_corrupt_checkpoint.py", [], ["--quick"]),
    "r4": ("r4_bad_input.py", ["--parity", "12"], ["--sample", "60", "--parity", "3"]),
    "r56": ("r56_islands.py", [], ["--rounds", "4"]),
    "r7": ("r7_flaky_server.py", [], ["--requests", "30"]),
    "disk": ("r8_disk.py", [], []),
    # issue 26: the corpus over the other commands (R4 runs it too), and the serve soak
    "r4c": ("r4_bad_input.py", ["--commands", "--parity", "6"], ["--commands", "--sample", "60"]),
    "soak": ("soak_serve.py", ["--minutes", "10"], ["--minutes", "0.5"]),
}


def run(name: str, quick: bool) -> dict:
    script, full, small = SCENARIOS[name]
    out = Path(tempfile.mkdtemp()) / f"{name}.json"
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / script), *(small if quick else full),
                           "--out", str(out)], cwd=HERE, env=env, capture_output=True,
                          text=True)  # fmt: skip
    seconds = round(time.perf_counter() - t0, 1)
    print(f"{name}: exit {proc.returncode} in {seconds} s", flush=True)
    if proc.returncode != 0 or not out.is_file():
        return {"exit": proc.returncode, "seconds": seconds, "tail": proc.stdout[-2000:]
                + proc.stderr[-3000:]}  # fmt: skip
    return {**json.loads(out.read_text()), "seconds": seconds}


def main(argv: list[str]) -> None:
    only = argv[argv.index("--only") + 1].split(",") if "--only" in argv else list(SCENARIOS)
    target = Path(argv[argv.index("--out") + 1]) if "--out" in argv else HERE / "figures.json"
    quick = "--quick" in argv
    figures = json.loads(target.read_text()) if target.is_file() else {}
    for name in only:
        figures[name] = run(name, quick)
        target.write_text(json.dumps(figures, indent=1, default=str) + "\n")
    print(f"figures: {target}")


if __name__ == "__main__":
    main(sys.argv[1:])
