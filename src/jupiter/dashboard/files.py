"""The run's files the dashboard follows while they grow: each training run's metrics.jsonl
(learning curves) and a cluster run's cluster_report.jsonl, plan and heartbeats.

A live run appends to these files every few steps, and the page asks every 1.5 s, so each
file is read from where the last read stopped, not from the start; a file rewritten in
place (a resumed run truncates metrics.jsonl atomically: a new inode) or shorter than
before is read again whole. Only whole lines are taken: a line still being written is
left for the next read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

MAX_POINTS = 2000  # per curve: a longer one is thinned evenly, its last point always kept
# metrics.jsonl of one cycle: the run's own, a curriculum level's, a local island's
METRICS_GLOBS = ("train/metrics.jsonl", "train/levels/*/metrics.jsonl", "train/*/metrics.jsonl")
SYNC_DIR = "train/sync"  # the cluster's sync store when cluster.yaml names none (a folder)


class JsonlTail:
    """The JSON-object lines of one append-only file, read incrementally."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: list[dict[str, Any]] = []
        self._offset = 0
        self._inode: tuple[int, int] | None = None

    def read(self) -> list[dict[str, Any]]:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self.rows, self._offset, self._inode = [], 0, None
            return self.rows
        inode = (st.st_dev, st.st_ino)
        if inode != self._inode or st.st_size < self._offset:
            self.rows, self._offset, self._inode = [], 0, inode
        if st.st_size == self._offset:
            return self.rows
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            data = f.read(st.st_size - self._offset)
        end = data.rfind(b"\n") + 1  # whole lines only
        self._offset += end
        for line in data[:end].splitlines():
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):  # a torn line (a kill mid-write)
                continue
            if isinstance(row, dict):
                self.rows.append(row)
        return self.rows


def thin(points: list[Any], limit: int = MAX_POINTS) -> list[Any]:
    """At most `limit` points, evenly spaced, the first and last kept."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def curve(label: str, rel: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One run's learning curves from its metrics rows (the MetricsLogger's shape: step,
    kind "train" or "heldout", loss, tokens_per_s, lr …)."""
    rows = [r for r in rows if isinstance(r.get("step"), int)]
    has_loss = [r for r in rows if _number(r.get("loss")) is not None]
    train = [r for r in has_loss if r.get("kind", "train") == "train"]
    held = [r for r in has_loss if r.get("kind") == "heldout"]
    shown, shown_held = thin(train), thin(held)
    last = train[-1] if train else {}
    return {
        "run": label,
        "path": rel,
        "rows": len(rows),
        "train_points": len(train),
        "train": {"step": [r["step"] for r in shown]}
        | {key: [_number(r.get(key)) for r in shown] for key in ("loss", "tokens_per_s", "lr")},
        "heldout": {
            "step": [r["step"] for r in shown_held],
            "loss": [_number(r["loss"]) for r in shown_held],
        },
        "last": {"step": last.get("step")}
        | {
            key: _number(last.get(key))
            for key in ("loss", "tokens_per_s", "lr", "mfu", "peak_mem_gb", "epoch")
        },
        "last_heldout": (
            {"step": held[-1]["step"], "loss": _number(held[-1]["loss"])} if held else None
        ),
    }


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # gone, or being replaced
        return None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def cluster_view(
    rows: list[dict[str, Any]], plan: Any, beats: dict[str, Any], now: float
) -> dict[str, Any]:
    """Islands and sync rounds from the coordinator's report rows (the last row of a round
    wins; round -1 is the starting weights' held-out loss), the plan and the heartbeats."""
    by_round: dict[int, dict[str, Any]] = {}
    for row in rows:
        if isinstance(row.get("round"), int):
            by_round[row["round"]] = row
    start = by_round.pop(-1, {}).get("heldout_loss")
    rounds = [by_round[r] for r in sorted(by_round)]
    planned = (plan or {}).get("islands") or []
    names = [i["name"] for i in planned] or sorted(
        {n for r in rounds for n in [*r.get("islands", []), *r.get("skipped", [])]}
    )
    spec = {i["name"]: i for i in planned}
    islands = []
    for name in names:
        took = [r for r in rounds if name in r.get("islands", [])]
        beat = beats.get(name) or {}
        islands.append(
            {
                "name": name,
                "engine": spec.get(name, {}).get("engine"),
                "nodes": spec.get(name, {}).get("nodes") or [],
                "rounds": len(took),
                "skipped": sum(name in r.get("skipped", []) for r in rounds),
                "rejected": sum(name in (r.get("rejected") or {}) for r in rounds),
                "tokens_per_s": _mean(
                    [r["tokens_per_s"][name] for r in took if name in r.get("tokens_per_s", {})]
                ),
                "wait_s": sum(float(r.get("wait_s", {}).get(name, 0.0)) for r in took),
                "train_loss": (took[-1].get("train_loss") or {}).get(name) if took else None,
                "heartbeat": (
                    {
                        "round": beat.get("round"),
                        "step": beat.get("step"),
                        "age_s": now - float(beat["time"]),
                    }
                    if "time" in beat
                    else None
                ),
            }
        )
    return {
        "planned_rounds": (plan or {}).get("rounds"),
        "sync": {
            k: v
            for k, v in ((plan or {}).get("sync") or {}).items()
            if k in ("inner_steps", "outer", "aggregate", "dtype", "outer_lr")
        },
        "start_heldout_loss": start,
        "islands": islands,
        "rounds": [
            {
                "round": r["round"],
                "islands": r.get("islands", []),
                "skipped": r.get("skipped", []),
                "rejected": sorted(r.get("rejected") or {}),
                "heldout_loss": r.get("heldout_loss"),
                "bytes": r.get("bytes"),
                "reduction": r.get("reduction"),
                "tokens_per_s": sum((r.get("tokens_per_s") or {}).values()),
                "time": r.get("time"),
            }
            for r in rounds
        ],
    }


class RunFiles:
    """Every followed file of a workspace, found again at each look (a cycle's training may
    start, or an island appear, while the page is open)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tails: dict[Path, JsonlTail] = {}

    def cycle_dirs(self) -> list[tuple[int, Path]]:
        found = []
        for d in (self.root / "cycles").glob("cycle-*"):
            n = d.name.removeprefix("cycle-")
            if n.isdigit() and d.is_dir():
                found.append((int(n), d))
        return sorted(found)

    def metrics_files(self) -> list[tuple[str, Path]]:
        """(run label, path): cycle-001, cycle-001-<level>, cycle-001/<island>."""
        out: dict[Path, str] = {}
        for n, d in self.cycle_dirs():
            base = f"cycle-{n:03d}"
            for pattern in METRICS_GLOBS:
                for path in sorted(d.glob(pattern)):
                    sub = path.parent.relative_to(d / "train").parts
                    label = (
                        base
                        if not sub
                        else (f"{base}-{sub[1]}" if sub[0] == "levels" else f"{base}/{sub[0]}")
                    )
                    out.setdefault(path, label)
        return [(label, path) for path, label in out.items()]

    def cluster_files(self) -> list[tuple[int, Path]]:
        return [
            (n, d / "train")
            for n, d in self.cycle_dirs()
            if (d / "train" / "cluster_report.jsonl").is_file()
        ]

    def watched(self) -> list[Path]:
        """Every file whose change changes the page."""
        paths = [p for _, p in self.metrics_files()]
        for _, train in self.cluster_files():
            sync = train / "sync"
            paths += [train / "cluster_report.jsonl", sync / "spec" / "plan.json"]
            paths += sorted((sync / "heartbeat").glob("*.json"))
        return paths

    def tail(self, path: Path) -> list[dict[str, Any]]:
        if path not in self._tails:
            self._tails[path] = JsonlTail(path)
        return self._tails[path].read()

    def curves(self) -> list[dict[str, Any]]:
        return [
            curve(label, str(path.relative_to(self.root)), self.tail(path))
            for label, path in self.metrics_files()
        ]

    def clusters(self, now: float) -> list[dict[str, Any]]:
        out = []
        for n, train in self.cluster_files():
            sync = train / "sync"  # absent when sync.store is another machine's or a URL
            beats = {p.stem: _read_json(p) for p in sorted((sync / "heartbeat").glob("*.json"))}
            view = cluster_view(
                self.tail(train / "cluster_report.jsonl"),
                _read_json(sync / "spec" / "plan.json"),
                {k: v for k, v in beats.items() if isinstance(v, dict)},
                now,
            )
            out.append({"cycle": n, **view})
        return out
