"""An island's heartbeat: there from the island's first moment, beating from a light process."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from jupiter.cluster import protocol as P
from jupiter.cluster.heartbeat import Heartbeat
from jupiter.cluster.syncstore import SyncStore


def test_the_first_beat_is_written_before_the_beating_process_starts(tmp_path: Path) -> None:
    store = SyncStore(str(tmp_path / "store"))
    # a beat a minute: whatever is there when the constructor returns is the island's own
    beat = Heartbeat(str(tmp_path / "store"), "isl", 60.0, tmp_path / "isl" / "heartbeat.json")
    try:
        first = store.get_json(P.heartbeat("isl"))
        assert (first["round"], first["step"]) == (-1, 0)
        assert abs(first["time"] - time.time()) < 30
    finally:
        beat.close()


def test_the_beating_process_follows_the_island_and_stops_with_close(tmp_path: Path) -> None:
    store = SyncStore(str(tmp_path / "store"))
    beat = Heartbeat(str(tmp_path / "store"), "isl", 0.1, tmp_path / "isl" / "heartbeat.json")
    try:
        beat.info = {"round": 3, "step": 12}
        end = time.time() + 60
        while store.get_json(P.heartbeat("isl"))["round"] != 3 and time.time() < end:
            time.sleep(0.05)
        assert store.get_json(P.heartbeat("isl"))["step"] == 12
    finally:
        beat.close()
    assert beat.proc.returncode is not None
    stamp = store.get_json(P.heartbeat("isl"))["time"]
    time.sleep(0.5)
    assert store.get_json(P.heartbeat("isl"))["time"] == stamp  # no beats after close


def test_the_beating_process_imports_no_torch() -> None:
    # torch's import takes seconds of CPU on a loaded host: an island killed in that time
    # would never have beaten from this process
    code = "import sys, jupiter.cluster.heartbeat; print(sorted({'torch', 'numpy'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
