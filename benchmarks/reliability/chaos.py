"""Run every chaos scenario of tests/chaos/, each as its own process, and write their
figures to one JSON file (default benchmarks/reliability/chaos.json); docs/RELIABILITY.md
quotes them.

    python benchmarks/reliability/chaos.py [--only kill_training,bad_input] [--out FILE]
        [--quick]

--quick runs each scenario small (a few kills, a sample of the corpus): minutes, not an
hour. A scenario that fails is recorded with its exit status and output tail. The same
scenarios run a few cases each in CI: `pytest tests/chaos`.
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
SCENARIOS_DIR = HERE.parents[1] / "tests" / "chaos"
SCENARIOS: dict[str, tuple[str, list[str], list[str]]] = {
    # name: (script in tests/chaos/, full arguments, --quick arguments)
    "kill_training": ("kill_training.py", ["--kills", "10"], ["--kills", "2", "--steps", "60"]),
    "kill_generation": (
        "kill_generation.py",
        ["--kills", "10"],
        ["--kills", "2", "--requests", "30"],
    ),
    "corrupt_checkpoint": ("corrupt_checkpoint.py", [], ["--quick"]),
    "bad_input": ("bad_input.py", ["--parity", "12"], ["--sample", "60", "--parity", "3"]),
    "islands": ("islands.py", [], ["--rounds", "4"]),
    "flaky_server": ("flaky_server.py", [], ["--requests", "30"]),
    "full_disk": ("full_disk.py", [], []),
    # the corpus over the commands that read or write models and workspaces (bad_input runs
    # it too), and the serve soak
    "bad_input_commands": (
        "bad_input.py",
        ["--commands", "--parity", "6"],
        ["--commands", "--sample", "60"],
    ),
    "serve_soak": ("serve_soak.py", ["--minutes", "10"], ["--minutes", "0.5"]),
}


def run(name: str, quick: bool) -> dict:
    script, full, small = SCENARIOS[name]
    out = Path(tempfile.mkdtemp()) / f"{name}.json"
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            str(SCENARIOS_DIR / script),
            *(small if quick else full),
            "--out",
            str(out),
        ],
        cwd=SCENARIOS_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = round(time.perf_counter() - t0, 1)
    print(f"{name}: exit {proc.returncode} in {seconds} s", flush=True)
    if proc.returncode != 0 or not out.is_file():
        return {
            "exit": proc.returncode,
            "seconds": seconds,
            "tail": proc.stdout[-2000:] + proc.stderr[-3000:],
        }
    return {**json.loads(out.read_text()), "seconds": seconds}


def main(argv: list[str]) -> None:
    if "-h" in argv or "--help" in argv:
        print(__doc__.strip())
        print("\nscenarios: " + ", ".join(SCENARIOS))
        return
    only = argv[argv.index("--only") + 1].split(",") if "--only" in argv else list(SCENARIOS)
    unknown = sorted(set(only) - set(SCENARIOS))
    if unknown:
        raise SystemExit(
            f"unknown scenario {', '.join(unknown)}: choose from {', '.join(SCENARIOS)}"
        )
    target = Path(argv[argv.index("--out") + 1]) if "--out" in argv else HERE / "chaos.json"
    quick = "--quick" in argv
    figures = json.loads(target.read_text()) if target.is_file() else {}
    for name in only:
        figures[name] = run(name, quick)
        target.write_text(json.dumps(figures, indent=1, default=str) + "\n")
    print(f"figures: {target}")


if __name__ == "__main__":
    main(sys.argv[1:])
