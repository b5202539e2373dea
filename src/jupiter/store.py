"""One SQLite database per domain workspace: documents, chunks, the example queue, cycles,
generators, evaluations and metrics.

WAL mode so a trainer can read the queue while a generator writes to it. Every public
write runs in one transaction; ids are content hashes and inserts are INSERT OR IGNORE,
so re-running a stage writes nothing twice.
"""

from __future__ import annotations

import errno
import json
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.records import Chunk, Document, Example
from jupiter.wspath import from_stored, to_stored

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, uri TEXT NOT NULL, title TEXT NOT NULL,
    text TEXT NOT NULL, meta TEXT NOT NULL, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY, doc_id TEXT NOT NULL REFERENCES documents(id), source TEXT NOT NULL,
    uri TEXT NOT NULL, title TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    text TEXT NOT NULL, split TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_split ON chunks(split);
CREATE TABLE IF NOT EXISTS examples (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, generator TEXT NOT NULL, chunk_id TEXT NOT NULL,
    template TEXT NOT NULL, messages TEXT NOT NULL, text TEXT NOT NULL, cycle INTEGER NOT NULL,
    status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', used_by TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS examples_status ON examples(status, cycle);
CREATE TABLE IF NOT EXISTS filter_stats (
    cycle INTEGER NOT NULL, stage TEXT NOT NULL, reason TEXT NOT NULL, count INTEGER NOT NULL,
    samples TEXT NOT NULL, PRIMARY KEY (cycle, stage, reason)
);
CREATE TABLE IF NOT EXISTS cycles (
    n INTEGER PRIMARY KEY, generator TEXT NOT NULL, status TEXT NOT NULL,
    started_at REAL NOT NULL, finished_at REAL
);
CREATE TABLE IF NOT EXISTS stages (
    cycle INTEGER NOT NULL, stage TEXT NOT NULL, info TEXT NOT NULL, finished_at REAL NOT NULL,
    PRIMARY KEY (cycle, stage)
);
CREATE TABLE IF NOT EXISTS generators (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, path TEXT NOT NULL, cycle INTEGER NOT NULL,
    active INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS generator_events (
    at REAL NOT NULL, cycle INTEGER NOT NULL, action TEXT NOT NULL, generator TEXT NOT NULL,
    previous TEXT NOT NULL, reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS evals (
    cycle INTEGER NOT NULL, model TEXT NOT NULL, report TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (cycle, model)
);
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL,
    response TEXT NOT NULL, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
    run TEXT NOT NULL, step INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL,
    PRIMARY KEY (run, step, name)
);
"""


def _example_row(ex: Example, now: float) -> tuple[Any, ...]:
    return (
        ex.id,
        ex.kind,
        ex.generator,
        ex.chunk_id,
        ex.template,
        json.dumps(ex.messages, ensure_ascii=False),
        ex.text,
        ex.cycle,
        ex.status,
        ex.reason,
        now,
        json.dumps(list(ex.span)) if ex.span else "",
    )


# the lineage columns of generators, added to older workspaces by ALTER TABLE
GENERATOR_COLUMNS = {
    "parent": "TEXT NOT NULL DEFAULT ''",  # the generator it was compared with and replaces
    "status": "TEXT NOT NULL DEFAULT ''",  # initial | promoted | rejected
    "reason": "TEXT NOT NULL DEFAULT ''",  # why it was promoted or kept out
    "figures": "TEXT NOT NULL DEFAULT '{}'",  # JSON: the gate's figures at the decision
    "data": "TEXT NOT NULL DEFAULT '{}'",  # JSON: what it was trained on
}


def _generator_row(row: sqlite3.Row) -> dict[str, Any]:
    out = dict(row)
    for key in ("figures", "data"):
        out[key] = json.loads(out.get(key) or "{}")
    return out


def _row_example(row: sqlite3.Row) -> Example:
    span = row["span"]  # every store has the column (_migrate_examples)
    return Example(
        kind=row["kind"],
        generator=row["generator"],
        chunk_id=row["chunk_id"],
        template=row["template"],
        messages=json.loads(row["messages"]),
        text=row["text"],
        cycle=row["cycle"],
        status=row["status"],
        reason=row["reason"],
        span=tuple(json.loads(span)) if span else None,
    )


def folder_at_store(path: Path) -> JupiterError | None:
    """The one-line error for something other than a file (a folder, say) at a store's
    path, where "no workspace yet" would hide it; None when the path is a file or free."""
    if path.exists() and not path.is_file():
        return JupiterError(
            f"the store {path} is not a file: move it away (its workspace "
            "keeps its models and files) and run the command again"
        )
    return None


# the tables a store holds, in this version's schema or an older one
STORE_TABLES = set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))


class Store:
    """The workspace database. Open with `Store(path)`; close with `.close()` or a `with`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self._check_foreign()  # before WAL mode, which rewrites the file's header
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
            self._migrate_generators()
            self._migrate_examples()
        except sqlite3.DatabaseError as err:
            if isinstance(err, sqlite3.OperationalError):
                raise self.cannot_write(err) from None
            # "file is not a database", "database disk image is malformed": a store that
            # was overwritten or damaged, named with what can be done
            raise JupiterError(
                f"the store {self.path} is not a readable Jupiter store ({err}): restore it "
                "from a backup, or move it away to start the workspace afresh (its models "
                "and files stay)"
            ) from None
        except OSError as err:
            raise self.cannot_write(err) from None

    def _check_foreign(self) -> None:
        """Refuse a database that holds tables but none of a store's: another program's
        file where the store should be would otherwise get the store's tables written in."""
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
        names = {r[0] for r in self.db.execute(query)}
        if names and not names & STORE_TABLES:
            self.db.close()
            raise JupiterError(
                f"the store {self.path} is another program's database (tables: "
                f"{', '.join(sorted(names)[:4])}), not a Jupiter store: move it away (or set "
                "JUPITER_HOME to another folder) and run the command again"
            )

    def cannot_write(self, err: BaseException) -> BaseException:
        """A full disk or a store that cannot be written, as one line naming the store and
        the fix (a JupiterError); any other error as it is."""
        text = str(err)
        full = isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)
        if full or "database or disk is full" in text:
            return JupiterError(
                f"the disk holding the store {self.path} is full ({text}): free space (or set "
                "JUPITER_HOME to a disk with room) and run the command again; the store holds "
                "what was written before, nothing half-written"
            )
        locked = isinstance(err, OSError) and err.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
        if locked or any(
            m in text
            for m in ("readonly database", "unable to open database", "read-only file system")
        ):
            return JupiterError(
                f"cannot write the store {self.path} ({text}): the folder or file is read-only; "
                "make runs/ writable (or set JUPITER_HOME to a writable folder) and run the "
                "command again"
            )
        return err

    @classmethod
    def read_only(cls, path: Path | str) -> Store:
        """The store opened for reading only (SQLite mode=ro): no schema or migration is
        written, so a viewer (`jupiter dashboard`) never blocks or changes a run writing to
        it. Shared across threads: the caller serialises its use."""
        store = cls.__new__(cls)
        store.path = Path(path)
        uri = f"{store.path.resolve().as_uri()}?mode=ro"
        store.db = sqlite3.connect(
            uri, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        store.db.row_factory = sqlite3.Row
        return store

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception; nests as a no-op."""
        if self.db.in_transaction:
            yield self.db
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise self.cannot_write(err) from None
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException as err:
            if self.db.in_transaction:  # SQLite may have rolled back already (a full disk)
                self.db.execute("ROLLBACK")
            if isinstance(err, sqlite3.OperationalError):
                raise self.cannot_write(err) from None
            raise

    # documents and chunks -------------------------------------------------------------
    def add_documents(self, docs: Iterable[Document]) -> int:
        """Insert documents; returns how many were new."""
        now = time.time()
        rows = [(d.id, d.source, d.uri, d.title, d.text, json.dumps(d.meta), now) for d in docs]
        with self.transaction() as db:
            before = db.total_changes
            db.executemany("INSERT OR IGNORE INTO documents VALUES (?,?,?,?,?,?,?)", rows)
            return db.total_changes - before

    def add_chunks(self, chunks: Iterable[Chunk]) -> int:
        rows = [
            (c.id, c.doc_id, c.source, c.uri, c.title, c.start, c.end, c.text, c.split)
            for c in chunks
        ]
        with self.transaction() as db:
            before = db.total_changes
            db.executemany("INSERT OR IGNORE INTO chunks VALUES (?,?,?,?,?,?,?,?,?)", rows)
            return db.total_changes - before

    def iter_documents(self, source: str | None = None) -> Iterator[Document]:
        q = "SELECT * FROM documents"
        args: tuple[Any, ...] = ()
        if source is not None:
            q, args = q + " WHERE source = ?", (source,)
        for r in self.db.execute(q + " ORDER BY id", args).fetchall():
            yield Document(r["source"], r["uri"], r["title"], r["text"], json.loads(r["meta"]))

    def iter_chunks(self, split: str | None = None) -> Iterator[Chunk]:
        q = "SELECT * FROM chunks"
        args: tuple[Any, ...] = ()
        if split is not None:
            q, args = q + " WHERE split = ?", (split,)
        for r in self.db.execute(q + " ORDER BY id", args).fetchall():
            yield Chunk(
                r["doc_id"],
                r["source"],
                r["uri"],
                r["title"],
                r["start"],
                r["end"],
                r["text"],
                r["split"],
            )

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        r = self.db.execute("SELECT * FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
        if r is None:
            return None
        return Chunk(
            r["doc_id"],
            r["source"],
            r["uri"],
            r["title"],
            r["start"],
            r["end"],
            r["text"],
            r["split"],
        )

    def count(self, table: str, where: str = "", args: tuple[Any, ...] = ()) -> int:
        assert table in {"documents", "chunks", "examples", "cycles", "generators", "evals"}
        q = f"SELECT COUNT(*) FROM {table}" + (f" WHERE {where}" if where else "")
        return int(self.db.execute(q, args).fetchone()[0])

    # the example queue ----------------------------------------------------------------
    def add_examples(self, examples: Iterable[Example]) -> int:
        """Queue examples (status as given, normally pending); returns how many were new."""
        now = time.time()
        rows = [_example_row(e, now) for e in examples]
        with self.transaction() as db:
            before = db.total_changes
            db.executemany(
                "INSERT OR IGNORE INTO examples (id, kind, generator, chunk_id, template, messages,"
                " text, cycle, status, reason, created_at, span) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            return db.total_changes - before

    def iter_examples(
        self, status: str | None = None, cycle: int | None = None, kind: str | None = None
    ) -> Iterator[Example]:
        conds, args = [], []
        for col, val in (("status", status), ("cycle", cycle), ("kind", kind)):
            if val is not None:
                conds.append(f"{col} = ?")
                args.append(val)
        q = "SELECT * FROM examples" + (" WHERE " + " AND ".join(conds) if conds else "")
        for r in self.db.execute(q + " ORDER BY id", args).fetchall():
            yield _row_example(r)

    def set_status(self, decisions: Iterable[tuple[str, str, str]]) -> None:
        """Apply (example_id, status, reason) decisions in one transaction."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE examples SET status = ?, reason = ? WHERE id = ?",
                [(s, r, i) for i, s, r in decisions],
            )

    def mark_used(self, ids: Iterable[str], run: str) -> None:
        with self.transaction() as db:
            db.executemany(
                "UPDATE examples SET status = 'used', used_by = ? WHERE id = ?",
                [(run, i) for i in ids],
            )

    def example_counts(self, cycle: int | None = None) -> dict[tuple[str, str], int]:
        """{(status, reason): count}, over all cycles or one."""
        q = "SELECT status, reason, COUNT(*) FROM examples"
        args: tuple[Any, ...] = ()
        if cycle is not None:
            q, args = q + " WHERE cycle = ?", (cycle,)
        rows = self.db.execute(q + " GROUP BY status, reason ORDER BY status, reason", args)
        return {(r[0], r[1]): int(r[2]) for r in rows.fetchall()}

    def record_filter_stats(
        self, cycle: int, stage: str, counts: dict[str, int], samples: dict[str, list[str]]
    ) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM filter_stats WHERE cycle = ? AND stage = ?", (cycle, stage))
            db.executemany(
                "INSERT INTO filter_stats VALUES (?,?,?,?,?)",
                [
                    (cycle, stage, reason, n, json.dumps(samples.get(reason, [])[:5]))
                    for reason, n in counts.items()
                ],
            )

    def filter_stats(self, cycle: int | None = None) -> list[dict[str, Any]]:
        q = "SELECT * FROM filter_stats"
        args: tuple[Any, ...] = ()
        if cycle is not None:
            q, args = q + " WHERE cycle = ?", (cycle,)
        rows = self.db.execute(q + " ORDER BY cycle, stage, reason", args).fetchall()
        return [dict(r) | {"samples": json.loads(r["samples"])} for r in rows]

    # cycles and stages ----------------------------------------------------------------
    def start_cycle(self, n: int, generator: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO cycles VALUES (?,?,?,?,NULL)",
                (n, generator, "running", time.time()),
            )

    def finish_cycle(self, n: int, status: str = "done") -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE cycles SET status = ?, finished_at = ? WHERE n = ?",
                (status, time.time(), n),
            )

    def cycles(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute("SELECT * FROM cycles ORDER BY n").fetchall()]

    def mark_stage(self, cycle: int, stage: str, info: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO stages VALUES (?,?,?,?)",
                (cycle, stage, json.dumps(info), time.time()),
            )

    def clear_stage(self, cycle: int, stage: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM stages WHERE cycle = ? AND stage = ?", (cycle, stage))

    def stages(self, cycle: int) -> dict[str, dict[str, Any]]:
        rows = self.db.execute(
            "SELECT stage, info FROM stages WHERE cycle = ? ORDER BY finished_at", (cycle,)
        )
        return {r[0]: json.loads(r[1]) for r in rows.fetchall()}

    # generators: the lineage -------------------------------------------------------------
    def _migrate_examples(self) -> None:
        """Add examples.span (the document characters an answer quotes, as JSON [start,
        end]) to a workspace from an earlier version."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(examples)").fetchall()}
        if "span" not in have:
            self.db.execute("ALTER TABLE examples ADD COLUMN span TEXT NOT NULL DEFAULT ''")

    def _migrate_generators(self) -> None:
        """Add the lineage columns a workspace from an earlier version lacks (new workspaces
        take the same path). Rows from then were the first generator (cycle 0) or promoted
        students: their status says so."""
        have = {r[1] for r in self.db.execute("PRAGMA table_info(generators)").fetchall()}
        missing = [(c, d) for c, d in GENERATOR_COLUMNS.items() if c not in have]
        if not missing:
            return
        with self.transaction() as db:
            for column, decl in missing:
                db.execute(f"ALTER TABLE generators ADD COLUMN {column} {decl}")
            db.execute(
                "UPDATE generators SET status = CASE WHEN cycle = 0 THEN 'initial' "
                "ELSE 'promoted' END WHERE status = ''"
            )

    def add_generator(
        self,
        gen_id: str,
        kind: str,
        path: str,
        cycle: int,
        *,
        parent: str = "",
        status: str = "initial",
        reason: str = "",
        figures: dict[str, Any] | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        """Record a generator (or a rejected student) in the lineage; a second call for the
        same id updates its lineage fields (a decision taken again), never `active`."""
        path = to_stored(path, self.root)  # relative: a copied workspace reads its own
        row = (
            gen_id,
            kind,
            path,
            cycle,
            time.time(),
            parent,
            status,
            reason,
            json.dumps(figures or {}),
            json.dumps(data or {}),
        )
        with self.transaction() as db:
            db.execute(
                "INSERT INTO generators (id, kind, path, cycle, active, created_at, parent, "
                "status, reason, figures, data) VALUES (?,?,?,?,0,?,?,?,?,?,?) "
                "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, path = excluded.path, "
                "cycle = excluded.cycle, parent = excluded.parent, status = excluded.status, "
                "reason = excluded.reason, figures = excluded.figures, data = excluded.data",
                row,
            )

    def activate_generator(
        self, gen_id: str, *, cycle: int = 0, action: str = "initial", reason: str = ""
    ) -> None:
        """Make `gen_id` the generator of record; the change is logged in generator_events."""
        with self.transaction() as db:
            before = self.active_generator()
            db.execute("UPDATE generators SET active = (id = ?)", (gen_id,))
            db.execute(
                "INSERT INTO generator_events VALUES (?,?,?,?,?,?)",
                (time.time(), cycle, action, gen_id, before["id"] if before else "", reason),
            )

    def active_generator(self) -> dict[str, Any] | None:
        r = self.db.execute("SELECT * FROM generators WHERE active = 1").fetchone()
        return self._generator(r) if r else None

    def generator(self, gen_id: str) -> dict[str, Any] | None:
        r = self.db.execute("SELECT * FROM generators WHERE id = ?", (gen_id,)).fetchone()
        return self._generator(r) if r else None

    def generators(self) -> list[dict[str, Any]]:
        """Every generator and rejected student, in the order they were first recorded."""
        rows = self.db.execute("SELECT * FROM generators ORDER BY created_at, rowid").fetchall()
        return [self._generator(r) for r in rows]

    @property
    def root(self) -> Path:
        """The workspace: the folder holding this store."""
        return self.path.parent

    def _generator(self, row: sqlite3.Row) -> dict[str, Any]:
        out = _generator_row(row)
        out["path"] = from_stored(out["path"], self.root)
        return out

    def generator_events(self) -> list[dict[str, Any]]:
        """Activations in order: the first generator, promotions, rollbacks."""
        rows = self.db.execute("SELECT * FROM generator_events ORDER BY at, rowid").fetchall()
        return [dict(r) for r in rows]

    def decisions(self) -> list[dict[str, Any]]:
        """The decide stage of every cycle that has one: {cycle, info, at}, by cycle."""
        rows = self.db.execute(
            "SELECT cycle, info, finished_at FROM stages WHERE stage = 'decide' ORDER BY cycle"
        ).fetchall()
        return [{"cycle": r[0], "info": json.loads(r[1]), "at": r[2]} for r in rows]

    # the llm call cache -------------------------------------------------------------------
    def cached_response(self, key: str) -> dict[str, Any] | None:
        """The cached answer as stored, None when there is none; a row that is no JSON
        object reads as {} (no completion: the engine drops it and asks again)."""
        r = self.db.execute("SELECT response FROM llm_cache WHERE key = ?", (key,)).fetchone()
        if r is None:
            return None
        try:
            value = json.loads(r[0])
        except (ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}

    def drop_cached_response(self, key: str) -> None:
        """Forget one cached answer (one that no longer parses): the next run asks again."""
        with self.transaction() as db:
            db.execute("DELETE FROM llm_cache WHERE key = ?", (key,))

    def cache_response(
        self, key: str, backend: str, model: str, request: dict[str, Any], response: dict[str, Any]
    ) -> None:
        """Record one call's answer at once, in its own transaction: a run killed right after
        loses nothing it paid for."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO llm_cache VALUES (?,?,?,?,?,?)",
                (
                    key,
                    backend,
                    model,
                    json.dumps(request, ensure_ascii=False),
                    json.dumps(response, ensure_ascii=False),
                    time.time(),
                ),
            )

    def cache_size(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def example_ids(self, cycle: int | None = None) -> set[str]:
        if cycle is None:
            return {r[0] for r in self.db.execute("SELECT id FROM examples").fetchall()}
        rows = self.db.execute("SELECT id FROM examples WHERE cycle = ?", (cycle,))
        return {r[0] for r in rows.fetchall()}

    # evaluations and metrics ------------------------------------------------------------
    def add_eval(self, cycle: int, model: str, report: dict[str, Any]) -> None:
        if report.get("path"):
            report = report | {"path": to_stored(report["path"], self.root)}
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO evals VALUES (?,?,?,?)",
                (cycle, model, json.dumps(report), time.time()),
            )

    def evals(self, cycle: int | None = None) -> list[dict[str, Any]]:
        q = "SELECT * FROM evals"
        args: tuple[Any, ...] = ()
        if cycle is not None:
            q, args = q + " WHERE cycle = ?", (cycle,)
        rows = self.db.execute(q + " ORDER BY cycle, created_at", args).fetchall()
        out = []
        for r in rows:
            report = json.loads(r["report"])
            if isinstance(report, dict) and report.get("path"):
                report["path"] = from_stored(report["path"], self.root)
            out.append(dict(r) | {"report": report})
        return out

    def log_metrics(self, run: str, step: int, values: dict[str, float]) -> None:
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO metrics VALUES (?,?,?,?)",
                [(run, step, k, float(v)) for k, v in values.items()],
            )

    def metrics(self, run: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT step, name, value FROM metrics WHERE run = ? ORDER BY step, name", (run,)
        )
        return [dict(r) for r in rows.fetchall()]
