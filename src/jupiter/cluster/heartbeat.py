"""An island's heartbeat, from a small process of its own.

A thread would starve whenever the training process holds the GIL for long (an MLX
evaluation, a collective waiting on a slow peer), and the coordinator would take a busy
island for a dead one. The beating process publishes the round and step its parent last
wrote to a local file, and stops as soon as the parent is gone. The first beat is the
island's own, written before the beating process starts: an island is never without a
heartbeat while it runs, even when it is killed before that process is up (a coordinator
takes an island with no heartbeat for one still starting, and waits for it to the deadline).

usage: python -m jupiter.cluster.heartbeat STORE ISLAND EVERY_S PARENT_PID INFO_FILE
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from jupiter.cluster import protocol as P
from jupiter.cluster.syncstore import SyncStore  # no torch: beats a fraction of a second in
from jupiter.procs import pid_alive as alive


class Heartbeat:
    """Start beating for `island`; set `info` to say where the island is."""

    def __init__(self, store_url: str, island: str, every_s: float, info_file: Path) -> None:
        self.info_file = info_file
        self.info = {"round": -1, "step": 0}
        beat(SyncStore(store_url), island, info_file)
        cmd = [
            sys.executable,
            "-m",
            "jupiter.cluster.heartbeat",
            store_url,
            island,
            str(every_s),
            str(os.getpid()),
            str(info_file),
        ]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)

    @property
    def info(self) -> dict[str, Any]:
        return dict(json.loads(self.info_file.read_text(encoding="utf-8")))

    @info.setter
    def info(self, value: dict[str, Any]) -> None:
        self.info_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.info_file.with_name(f".{self.info_file.name}.tmp")
        tmp.write_text(json.dumps(value), encoding="utf-8")
        os.replace(tmp, self.info_file)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def beat(store: SyncStore, island: str, info_file: Path) -> None:
    """One beat: where the island says it is (its info file), and the time."""
    info = json.loads(Path(info_file).read_text(encoding="utf-8"))
    store.put_json(P.heartbeat(island), {**info, "time": time.time()})


def main(argv: list[str]) -> int:
    url, island, every, parent, info_file = argv
    store = SyncStore(url)
    while alive(int(parent)) and os.getppid() == int(parent):
        try:
            beat(store, island, Path(info_file))
        except Exception:  # noqa: BLE001 - a missed beat only makes the island look late
            pass
        time.sleep(float(every))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
