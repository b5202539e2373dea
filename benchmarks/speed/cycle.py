"""Wall time of the Jupiter cycle, stage by stage, with the figures each stage reports.

    python benchmarks/speed/cycle.py            # the --quick cycle (budget: 90 s on 2 cores)
    python benchmarks/speed/cycle.py --full     # the default demo (budget: 10 minutes)

Runs `jupiter start --domain python --auto` in a fresh temp dir as a real process, then
reads the stages table and the eval reports.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="the default demo instead of --quick")
    args = ap.parse_args()
    exe = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"
    with tempfile.TemporaryDirectory() as home:
        cmd = [exe, "start", "--domain", "python", "--auto"] + ([] if args.full else ["--quick"])
        t0 = time.perf_counter()
        subprocess.run(
            cmd,
            cwd=home,
            env=dict(os.environ, JUPITER_HOME=home),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - t0
        ws = Path(home) / "runs" / ("python" if args.full else "python-quick")
        con = sqlite3.connect(ws / "jupiter.sqlite")
        rows = con.execute("SELECT cycle, stage, info FROM stages ORDER BY cycle, finished_at")
        print(f"{'cycle':>5} {'stage':10} {'seconds':>8}  figures")
        for cycle, stage, info in rows.fetchall():
            d = json.loads(info)
            keep = {
                k: v
                for k, v in d.items()
                if k
                in (
                    "documents",
                    "chunks",
                    "made",
                    "new",
                    "examined",
                    "steps",
                    "tokens",
                    "tokens_per_s",
                    "final_loss",
                    "promoted",
                )
            }
            print(f"{cycle:>5} {stage:10} {d.get('seconds', 0):>8.1f}  {keep}")
        for path in sorted(ws.glob("cycles/*/eval.json")):
            rep = json.loads(path.read_text())
            for who in ("untrained", "student", "generator"):
                r = rep.get(who) or {}
                print(
                    f"{path.parent.name} {who:10s} bpb={r.get('bpb')} qa_f1={r.get('qa_f1'):.3f} "
                    f"mc_accuracy={r.get('mc_accuracy'):.3f}"
                    if r
                    else f"{who}: —"
                )
        print(f"total wall time: {wall:.1f} s ({'default demo' if args.full else 'quick'})")


if __name__ == "__main__":
    main()
