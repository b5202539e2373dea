"""What `jupiter dashboard` shows, as one JSON document: read from the workspace's store
(opened read-only) and its files, never written.

Sections: the cycles with each model's eval figures and 95% intervals and the decision;
learning curves; the data queue by status and drop reason with samples; generation and
its cost; the cluster's islands and sync rounds; the generator lineage. The document is
rebuilt only when something changed (the store's data_version, the followed files' size
and time), so any number of open pages cost one read per change.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

from jupiter.dashboard.files import RunFiles
from jupiter.data.report import KEPT_LABEL, data_report
from jupiter.errors import JupiterError
from jupiter.store import Store, folder_at_store

STAGE_ORDER = ("collect", "generate", "filter", "train", "eval", "decide")
FIGURES = ("bpb", "qa_f1", "qa_exact", "mc_accuracy", "general_bpb")
MODEL_ORDER = ("untrained", "base", "student:", "generator:")  # as `jupiter eval` prints them
# a big store under a live run changes at every look: after a build of t seconds (over
# 50 ms) the next waits 4t, so the page costs at most a fifth of a core (200k examples and
# 90k LLM answers: 0.25 s a build)
REBUILD_PAUSE = 4.0
SAMPLES = 3  # examples shown per status and per drop reason
SAMPLE_CHARS = 400
TRAIN_KEYS = (
    "run",
    "steps",
    "examples",
    "tokens",
    "first_loss",
    "final_loss",
    "heldout_loss",
    "tokens_per_s",
    "seconds",
)
GENERATE_KEYS = (
    "generator",
    "made",
    "new",
    "requests",
    "cache_hits",
    "calls",
    "retries",
    "failed",
    "malformed",
    "completion_tokens",
    "grounded",
    "direct",
    "continuation",
    "seconds",
)


def finite(value: Any) -> Any:
    """The value with NaN and infinities as None: the page's JSON.parse refuses them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def _model_rank(name: str) -> int:
    return next((i for i, p in enumerate(MODEL_ORDER) if name.startswith(p)), len(MODEL_ORDER))


def _eval_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in sorted(rows, key=lambda r: _model_rank(r["model"])):
        rep = row["report"]
        out.append(
            {
                "model": row["model"],
                "figures": {k: {"value": rep.get(k), "ci": rep.get(f"{k}_ci")} for k in FIGURES},
                "n_qa": rep.get("n_qa"),
                "n_mc": rep.get("n_mc"),
                "mc_chance": rep.get("mc_chance"),
            }
        )
    return out


def _comparisons(ev: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, comp in (ev.get("comparisons") or {}).items():
        for metric, m in (comp.get("metrics") or {}).items():
            out.append(
                {
                    "comparison": name,
                    "model": comp.get("model"),
                    "against": comp.get("against"),
                    "metric": metric,
                    "difference": m.get("difference"),
                    "ci": m.get("ci"),
                    "verdict": m.get("verdict"),
                    "higher_is_better": m.get("higher_is_better", True),
                }
            )
    return out


def _decision(info: dict[str, Any] | None) -> dict[str, Any] | None:
    if not info:
        return None
    if info.get("skipped"):
        return {"outcome": "skipped", "reason": "the decide stage was skipped"}
    keys = (
        "metric",
        "margin",
        "student",
        "generator",
        "difference_ci",
        "generator_id",
        "new_generator",
        "reason",
    )
    return {
        "outcome": "promoted" if info.get("promoted") else "kept",
        **{k: info.get(k) for k in keys},
    }


def content(kind: str, messages: str, text: str) -> str:
    """An example's text as Example.content() gives it, cut to SAMPLE_CHARS."""
    if kind == "text":
        body = text
    else:
        try:
            body = "\n".join(str(m.get("content", "")) for m in json.loads(messages))
        except (ValueError, AttributeError, TypeError):
            body = messages
    return body if len(body) <= SAMPLE_CHARS else body[: SAMPLE_CHARS - 1] + "…"


class Board:
    """One workspace seen read-only. `document()` is safe to call from many threads."""

    def __init__(
        self,
        root: Path,
        name: str,
        cycles: int | None = None,
        max_examples: int | None = None,
        start: str = "",
    ) -> None:
        """`start`: the command that makes the workspace, for the error when there is none."""
        self.root, self.name = Path(root).resolve(), name
        self.cycles_planned, self.max_examples = cycles, max_examples
        store_path = self.root / "jupiter.sqlite"
        if (err := folder_at_store(store_path)) is not None:
            raise err
        if not store_path.is_file():
            raise JupiterError(
                f"no workspace yet for '{name}' at {self.root}: run "
                f"`{start or f'jupiter start --domain {name}'}` first"
            )
        try:
            self.store = Store.read_only(store_path)
            self.store.db.execute("SELECT COUNT(*) FROM cycles").fetchone()
        except Exception as err:  # noqa: BLE001 - unreadable for any reason: one line
            raise JupiterError(f"cannot read the store {store_path} ({err})") from None
        self.files = RunFiles(self.root)
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._doc: dict[str, Any] = {}
        self._next_build = 0.0

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------------------ freshness
    def _fingerprint(self) -> tuple[Any, ...]:
        data_version = self.store.db.execute("PRAGMA data_version").fetchone()[0]
        stats = []
        for path in self.files.watched():
            try:
                st = os.stat(path)
                stats.append((str(path), st.st_size, st.st_mtime_ns, st.st_ino))
            except FileNotFoundError:
                continue
        return (data_version, tuple(stats))

    def _last_activity(self) -> float | None:
        times = []
        for path in [
            self.store.path,
            self.store.path.with_name("jupiter.sqlite-wal"),
            *self.files.watched(),
        ]:
            try:
                times.append(os.stat(path).st_mtime)
            except FileNotFoundError:
                continue
        return max(times) if times else None

    def document(self) -> dict[str, Any]:
        """The page's data; rebuilt only when the store or a followed file changed."""
        with self._lock:
            if self._doc and time.monotonic() < self._next_build:
                return self._doc
            key = self._fingerprint()
            if key != self._key:
                t0 = time.monotonic()
                doc = self._build()
                doc["version"] = hashlib.sha256(repr(key).encode()).hexdigest()[:16]
                self._key, self._doc = key, doc
                took = time.monotonic() - t0
                self._next_build = time.monotonic() + (REBUILD_PAUSE * took if took > 0.05 else 0)
            return self._doc

    # --------------------------------------------------------------------------- build
    def _build(self) -> dict[str, Any]:
        db = self.store.db
        db.execute("BEGIN")  # one snapshot of the store for every section
        try:
            counts = self._queue_counts()
            doc: dict[str, Any] = {
                "domain": self.name,
                "workspace": str(self.root),
                "overview": self.overview(),
                "cycles": self.cycles(),
                "queue": self.queue(counts),
                "generation": self.generation(counts),
                "lineage": self.lineage(),
            }
        finally:
            db.execute("COMMIT")
        now = time.time()
        doc["curves"] = self.files.curves()
        doc["cluster"] = self.files.clusters(now)
        doc["built_at"] = now
        doc["last_activity"] = self._last_activity()
        return dict(finite(doc))

    def overview(self) -> dict[str, Any]:
        s = self.store
        cycles = s.cycles()
        current = next((c for c in cycles if c["status"] != "done"), None)
        done = s.stages(current["n"]) if current else {}
        active = s.active_generator()
        return {
            "documents": s.count("documents"),
            "chunks_train": s.count("chunks", "split = ?", ("train",)),
            "chunks_heldout": s.count("chunks", "split = ?", ("heldout",)),
            "examples": s.count("examples"),
            "active_generator": active["id"] if active else None,
            "cycles_done": sum(c["status"] == "done" for c in cycles),
            "cycles_planned": self.cycles_planned,
            "current_cycle": current["n"] if current else None,
            "next_stage": (
                next((st for st in STAGE_ORDER if st not in done), None) if current else None
            ),
        }

    def cycles(self) -> list[dict[str, Any]]:
        s = self.store
        evals: dict[int, list[dict[str, Any]]] = {}
        for row in s.evals():
            evals.setdefault(row["cycle"], []).append(row)
        out = []
        for c in s.cycles():
            done = s.stages(c["n"])
            train = done.get("train") or {}
            out.append(
                {
                    "n": c["n"],
                    "status": c["status"],
                    "generator": c["generator"],
                    "started_at": c["started_at"],
                    "finished_at": c["finished_at"],
                    "stages": [
                        {"name": st, "skipped": bool(done[st].get("skipped"))}
                        for st in STAGE_ORDER
                        if st in done
                    ],
                    "models": _eval_rows(evals.get(c["n"], [])),
                    "comparisons": _comparisons(done.get("eval") or {}),
                    "decision": _decision(done.get("decide")),
                    "train": {k: train.get(k) for k in TRAIN_KEYS} if train else None,
                }
            )
        return out

    def _samples(self, where: str, args: tuple[Any, ...]) -> list[str]:
        """The text of the first SAMPLES examples matching `where` (the status index finds
        them without reading the whole queue)."""
        rows = self.store.db.execute(
            f"SELECT kind, messages, text FROM examples WHERE {where} LIMIT ?", (*args, SAMPLES)
        ).fetchall()
        return [content(r["kind"], r["messages"], r["text"]) for r in rows]

    def _queue_counts(self) -> list[dict[str, Any]]:
        """Examples by (cycle, generator, status): one pass over the queue for both the
        queue and the generation sections."""
        rows = self.store.db.execute(
            "SELECT cycle, generator, status, COUNT(*) AS count FROM examples "
            "GROUP BY cycle, generator, status ORDER BY cycle, generator, status"
        ).fetchall()
        return [dict(r) for r in rows]

    def queue(self, counts: list[dict[str, Any]]) -> dict[str, Any]:
        by_status: dict[str, int] = {}
        by_cycle: dict[tuple[int, str], int] = {}
        for r in counts:
            by_status[r["status"]] = by_status.get(r["status"], 0) + r["count"]
            key = (r["cycle"], r["status"])
            by_cycle[key] = by_cycle.get(key, 0) + r["count"]
        reasons = self.store.db.execute(
            "SELECT reason, COUNT(*) FROM examples WHERE status = 'rejected' "
            "GROUP BY reason ORDER BY reason"
        ).fetchall()
        stages = []
        for rep in data_report(self.store):
            kept = KEPT_LABEL.get(rep.stage, "accepted")
            rows = [
                {
                    "reason": r,
                    "count": n,
                    "share": pct,
                    "kept": r == kept,
                    "samples": rep.samples.get("accepted" if r == kept else r, [])[:SAMPLES],
                }
                for r, n, pct in rep.rows()
            ]
            stages.append(
                {
                    "stage": rep.stage,
                    "cycle": rep.cycle,
                    "total": rep.total,
                    "kept": rep.kept,
                    "rows": rows,
                }
            )
        return {
            "by_status": dict(sorted(by_status.items())),
            "by_cycle": [
                {"cycle": c, "status": st, "count": n} for (c, st), n in sorted(by_cycle.items())
            ],
            "by_reason": [{"status": "rejected", "reason": r, "count": n} for r, n in reasons],
            "status_samples": {st: self._samples("status = ?", (st,)) for st in by_status},
            "reason_samples": {
                r: self._samples("status = 'rejected' AND reason = ?", (r,)) for r, _ in reasons
            },
            "stages": stages,
        }

    def _llm_answers(self, cycles: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The cached LLM answers by (cycle they were written in, backend, model), with
        their token counts and how many came in the last minute: one pass over the cache."""
        now = time.time()
        window = " ".join("WHEN created_at >= ? AND created_at < ? THEN ?" for _ in cycles)
        args: list[Any] = [
            a for c in cycles for a in (c["started_at"], c["finished_at"] or now + 1.0, c["n"])
        ]
        cycle_of = f"CASE {window} ELSE NULL END" if cycles else "NULL"
        rows = self.store.db.execute(
            f"SELECT {cycle_of} AS cycle, backend, model, COUNT(*) AS calls, "
            "COALESCE(SUM(json_extract(response, '$.prompt_tokens')), 0) AS prompt_tokens, "
            "COALESCE(SUM(json_extract(response, '$.completion_tokens')), 0) AS completion_tokens,"
            " MAX(created_at) AS last, SUM(created_at >= ?) AS recent_calls, "
            "COALESCE(SUM(CASE WHEN created_at >= ? THEN "
            "json_extract(response, '$.completion_tokens') END), 0) AS recent_tokens "
            "FROM llm_cache GROUP BY 1, backend, model",
            (*args, now - 60.0, now - 60.0),
        ).fetchall()
        return [dict(r) for r in rows]

    def generation(self, counts: list[dict[str, Any]]) -> dict[str, Any]:
        cycles = self.store.cycles()
        answers = self._llm_answers(cycles)
        out = []
        for c in cycles:
            info = self.store.stages(c["n"]).get("generate") or {}
            queued = [
                {k: r[k] for k in ("generator", "status", "count")}
                for r in counts
                if r["cycle"] == c["n"]
            ]
            mine = [a for a in answers if a["cycle"] == c["n"]]
            out.append(
                {
                    "cycle": c["n"],
                    "done": bool(info) and not info.get("skipped"),
                    "stage": {k: info[k] for k in GENERATE_KEYS if k in info},
                    "queued": queued,
                    "queued_total": sum(q["count"] for q in queued),
                    "llm_calls": sum(a["calls"] for a in mine),
                    "prompt_tokens": sum(a["prompt_tokens"] for a in mine),
                    "completion_tokens": sum(a["completion_tokens"] for a in mine),
                }
            )
        models: dict[tuple[str, str], dict[str, Any]] = {}
        for a in answers:
            m = models.setdefault(
                (a["backend"], a["model"]),
                {
                    "backend": a["backend"],
                    "model": a["model"],
                    "calls": 0,
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "last": a["last"],
                },
            )
            for k in ("calls", "prompt_tokens", "completion_tokens"):
                m[k] += a[k]
            m["last"] = max(m["last"], a["last"])
        return {
            "cycles": out,
            "llm": [models[k] for k in sorted(models)],
            "max_examples": self.max_examples,
            "cache_hits": sum(int(c["stage"].get("cache_hits") or 0) for c in out),
            "last_minute": {
                "calls": sum(a["recent_calls"] for a in answers),
                "completion_tokens": sum(a["recent_tokens"] for a in answers),
            },
        }

    def lineage(self) -> dict[str, Any]:
        gens = []
        for g in self.store.generators():
            data = g.get("data") or {}
            gens.append(
                {
                    "id": g["id"],
                    "kind": g["kind"],
                    "parent": g.get("parent") or "",
                    "cycle": g["cycle"],
                    "status": g.get("status") or "",
                    "active": bool(g["active"]),
                    "reason": g.get("reason") or "",
                    "figures": g.get("figures") or {},
                    "data": {
                        k: data[k]
                        for k in ("examples", "by_generator", "grounded_share")
                        if k in data
                    },
                    "created_at": g["created_at"],
                }
            )
        return {"generators": gens, "events": self.store.generator_events()}
