"""What kill_generation.py and flaky_server.py share: a small domain whose teacher
is an LLM behind a fake OpenAI-compatible server on 127.0.0.1, the identity of a request
as both sides see it, and the store's view of what was answered."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from pydoc_data.topics import topics
from typing import Any


def identity(messages: Any, seed: Any) -> str:
    """One request as the server sees it (its body) and as the store keeps it (its cached
    request record): the chat and the seed."""
    raw = json.dumps([messages, seed], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()[:20]


def write_domain(
    home: Path,
    base_url: str,
    requests: int,
    concurrency: int = 2,
    retries: int = 3,
    timeout: float = 120.0,
) -> Path:
    """docs/ of 12 language-reference pages and a YAML whose generator is the LLM at
    base_url (no continuation examples: every example is an answer)."""
    docs = home / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, text in sorted(topics.items())[:12]:
        (docs / f"{name}.md").write_text(f"# {name}\n\n{text[:1500]}\n")
    yaml = home / "gen.yaml"
    yaml.write_text(
        "name: gen\nsources: [{type: local, path: docs}]\n"
        "chunking: {heldout_fraction: 0.0}\n"
        "generator:\n  type: llm\n  continuation: false\n"
        f"  num_requests: {requests}\n"
        f"  llm: {{base_url: '{base_url}', concurrency: {concurrency}, max_retries: {retries}, "
        f"timeout: {timeout}}}\n"
    )
    return yaml


def store_path(home: Path) -> Path:
    return home / "runs" / "gen" / "jupiter.sqlite"


def cached(home: Path) -> set[str]:
    """Identities of the answers in the store's LLM cache."""
    db = store_path(home)
    if not db.is_file():
        return set()
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT request FROM llm_cache").fetchall()
    out = set()
    for (text,) in rows:
        req = json.loads(text)
        out.add(identity(req.get("messages"), (req.get("sampling") or {}).get("seed")))
    return out


def example_count(home: Path) -> int:
    db = store_path(home)
    if not db.is_file():
        return 0
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT COUNT(*) FROM examples").fetchone()[0])


def accepted(home: Path) -> list[str]:
    """The accepted examples' chats, sorted (ids hold the workspace's paths; chats do not)."""
    with sqlite3.connect(store_path(home)) as con:
        rows = con.execute("SELECT messages FROM examples WHERE status = 'accepted'")
        return sorted(r[0] for r in rows)


class Ledger:
    """The server's record of each request body it got, by the run segment it came in."""

    def __init__(self) -> None:
        self.segment = 0
        self.seen: list[tuple[int, str]] = []
        self.lock = threading.Lock()

    def note(self, body: dict[str, Any]) -> None:
        with self.lock:
            self.seen.append((self.segment, identity(body.get("messages"), body.get("seed"))))

    def of(self, segment: int) -> list[str]:
        with self.lock:
            return [i for s, i in self.seen if s == segment]
