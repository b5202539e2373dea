"""A full disk and a read-only store: one clear line, nothing half-written.

The disk is a real tmpfs of a few MB, mounted in a mount namespace of this script's own
(`unshare --mount` as root, else `unshare --user --map-root-user --mount`), so nothing
is mounted outside it and everything goes with it; filled with a file to leave a chosen
number of bytes. Where no namespace can be made, the checkpoint case falls back to a
write patched to raise ENOSPC at a chosen file, and the others are skipped (the figures
say which).

- checkpoint: a run stopped at step 10 (checkpoints 5 and 10), the disk filled; resumed,
  the step-15 checkpoint does not fit. One line naming the folder and the fix; no
  .tmp-* or step-15 left; steps 5 and 10 still verify. Room made, the run resumes and
  ends bit-identical to an uninterrupted one.
- collect: `jupiter collect` into a store on a nearly full disk: one line; the store,
  if any, passes SQLite's integrity check and holds no document of the failed collect.
- generate: `jupiter generate` whose cached answers fill the disk: one line; every cached
  row parses and the queue holds one row per cached answer; room made, the rerun asks
  only the requests without an answer.
- read-only: the workspace bind-mounted read-only after a good collect: `jupiter
  generate` and `jupiter status` each one line; the store's bytes unchanged.

    python tests/chaos/full_disk.py [--out FILE]
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generation_setup import Ledger, cached, example_count, store_path, write_domain
from harness import emit, max_abs_diff, out_arg, run_cli, store_digest, tiny_run, tiny_tokenizer

from fakellm import FakeLLM, teacher

MB = 1 << 20


# ---------------------------------------------------------------------------- the disk
def namespace_command() -> list[str] | None:
    """How to run this script in a mount namespace of its own, if this machine allows."""
    if not shutil.which("unshare"):
        return None
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    base = (
        ["unshare", "--mount", "--propagation", "private"]
        if root
        else ["unshare", "--user", "--map-root-user", "--mount"]
    )
    probe = subprocess.run([*base, "true"], capture_output=True)
    return base if probe.returncode == 0 else None


@contextlib.contextmanager
def tmpfs(path: Path, size_mb: int) -> Iterator[Path]:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(path)],
        check=True,
        capture_output=True,
    )
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(disk: Path, leave: int) -> Path:
    """A file taking all but `leave` bytes of the disk's free space."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    filler = disk / "filler.bin"
    with filler.open("wb") as f:
        left = max(0, free - leave)
        while left > 0:
            n = min(left, MB)
            try:
                f.write(b"\0" * n)
                f.flush()
            except OSError:
                break
            left -= n
    return filler


def one_line(err: str) -> bool:
    lines = [x for x in err.strip().splitlines() if x.strip()]
    return len(lines) == 1 and "Traceback" not in err


# ---------------------------------------------------------------------- the scenarios
def checkpoint_case(root: Path, disk: Path | None) -> dict[str, Any]:
    """The step-15 checkpoint on a full disk (a tmpfs, or a patched write when disk is
    None)."""
    from jupiter.errors import JupiterError
    from jupiter.train import checkpoint as ck
    from jupiter.train.trainer import train

    tok = tiny_tokenizer(root / "tok")
    cfg = {"max_steps": 20, "checkpoint_every": 5, "keep_checkpoints": 10}
    ref = train(tiny_run(tok, root / "ref", **cfg))
    out = (disk or root) / "run"
    train(tiny_run(tok, out, **cfg), stop_after=10)
    size = sum(p.stat().st_size for p in (out / "step-000010").rglob("*") if p.is_file())
    filler = fill(disk, size // 3) if disk is not None else None
    saved = ck.torch.save

    def full_at_step_15(obj: Any, f: Any, *a: Any, **kw: Any) -> None:
        if "step-000015" in str(f):
            raise OSError(errno.ENOSPC, "No space left on device", str(f))
        saved(obj, f, *a, **kw)

    if disk is None:
        ck.torch.save = full_at_step_15  # type: ignore[assignment]
    try:
        train(tiny_run(tok, out, **cfg))
        error = ""
    except JupiterError as err:
        error = str(err)
    except Exception as err:  # noqa: BLE001 - anything else is the finding
        error = f"RAW {type(err).__name__}: {err}"
    finally:
        ck.torch.save = saved  # type: ignore[assignment]
    left = sorted(p.name for p in out.iterdir() if p.name.startswith((".tmp-", "step-")))
    intact = all(ck.verify_checksums(out / s) is None for s in ("step-000005", "step-000010"))
    if filler is not None:
        filler.unlink()
    result = train(tiny_run(tok, out, **cfg))
    diff, same = max_abs_diff(ref.model_dir, result.model_dir)
    return {
        "disk": "tmpfs" if disk else "patched torch.save (ENOSPC at step 15)",
        "checkpoint_bytes": size,
        "error": error[:400],
        "jupiter_error": not error.startswith("RAW"),
        "one_line": bool(error) and one_line(error),
        "left_in_run_dir": left,
        "nothing_half_written": left == ["step-000005", "step-000010"],
        "older_intact": intact,
        "resumed_identical": same,
        "max_abs_diff": diff,
    }


def integrity(home: Path) -> str:
    db = store_path(home)
    if not db.is_file():
        return "no store"
    with sqlite3.connect(db) as con:
        return str(con.execute("PRAGMA integrity_check").fetchone()[0])


def collect_case(root: Path, disk: Path) -> dict[str, Any]:
    home = disk / "collect"
    home.mkdir()
    yaml = write_domain(root / "src-collect", "http://127.0.0.1:9/v1", 4)
    filler = fill(disk, 96 * 1024)
    out = run_cli(["collect", "--domain", str(yaml)], home)
    docs = 0
    if store_path(home).is_file():
        with sqlite3.connect(store_path(home)) as con:
            docs = con.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    filler.unlink()
    return {
        "exit": out.code,
        "one_line": one_line(out.stderr),
        "error": out.stderr.strip()[:400],
        "integrity": integrity(home),
        "documents_written": docs,
    }


def generate_case(root: Path, disk: Path) -> dict[str, Any]:
    ledger = Ledger()

    def reply(body: dict[str, Any]) -> str:
        ledger.note(body)
        return teacher(body, 0) + " " + "padding " * 300  # answers big enough to fill it

    home = disk / "gen"
    with FakeLLM(reply=reply) as llm:
        yaml = write_domain(home, llm.base_url, 200, concurrency=4)
        assert run_cli(["collect", "--domain", str(yaml)], home).code == 0
        filler = fill(disk, 160 * 1024)
        ledger.segment = 1
        first = run_cli(["generate", "--domain", str(yaml)], home, limit=300)
        before = cached(home)  # parses every cached row
        queued = example_count(home)
        sound = integrity(home)
        filler.unlink()
        ledger.segment = 2
        again = run_cli(["generate", "--domain", str(yaml)], home, limit=300)
        asked = ledger.of(2)
    return {
        "exit": first.code,
        "one_line": one_line(first.stderr),
        "error": first.stderr.strip()[-400:],
        "answers_cached_before_full": len(before),
        # answers reach the queue after the cache: the rerun queues the rest from it
        "queue_rows_before_full": queued,
        "integrity": sound,
        "rerun_exit": again.code,
        "rerun_asked_again": len(set(asked) & before),
        "answered_at_end": len(cached(home)),
        "queue_rows_at_end": example_count(home),
    }


def read_only_case(root: Path) -> dict[str, Any]:
    with FakeLLM() as llm:
        home = root / "ro"
        yaml = write_domain(home, llm.base_url, 20)
        assert run_cli(["collect", "--domain", str(yaml)], home).code == 0
        ws = home / "runs" / "gen"
        subprocess.run(["mount", "--bind", str(ws), str(ws)], check=True, capture_output=True)
        try:
            subprocess.run(
                ["mount", "-o", "remount,bind,ro", str(ws)], check=True, capture_output=True
            )
            before = store_digest(home)
            gen = run_cli(["generate", "--domain", str(yaml)], home)
            status = run_cli(["status", "--domain", str(yaml)], home)
            after = store_digest(home)
        finally:
            subprocess.run(["umount", "-l", str(ws)], capture_output=True)
    return {
        "how": "read-only bind mount of runs/<domain>/ (root ignores file modes)",
        "generate": {
            "exit": gen.code,
            "one_line": one_line(gen.stderr),
            "error": gen.stderr.strip()[:400],
        },
        "status": {
            "exit": status.code,
            "one_line": one_line(status.stderr) or status.code == 0,
            "error": status.stderr.strip()[:400],
        },
        "store_unchanged": before == after,
    }


# ------------------------------------------------------------------------------- main
def inside(argv: list[str]) -> dict[str, Any]:
    """The scenarios, in a mount namespace where tmpfs and bind mounts may be made."""
    root = Path(tempfile.mkdtemp(prefix="jupiter-full-disk-"))
    figures: dict[str, Any] = {"mounts": "tmpfs and bind mounts in a private mount namespace"}
    try:
        if "--no-checkpoint" not in argv:  # tests run the checkpoint case on its own
            with tmpfs(root / "disk1", 16) as disk:
                figures["checkpoint"] = checkpoint_case(root, disk)
        with tmpfs(root / "disk2", 2) as disk:
            figures["collect"] = collect_case(root, disk)
        with tmpfs(root / "disk3", 8) as disk:
            figures["generate"] = generate_case(root, disk)
        figures["read_only"] = read_only_case(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return figures


def patched(argv: list[str]) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="jupiter-full-disk-"))
    try:
        return {
            "mounts": "none could be made here: the checkpoint case by a patched write, "
            "the others skipped",
            "checkpoint": checkpoint_case(root, None),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str]) -> dict[str, Any]:
    if "--inside" in argv:
        return emit("disk full and read-only store", inside(argv), out_arg(argv))
    ns = None if "--patched" in argv else namespace_command()
    if ns is not None:
        out = out_arg(argv) or str(Path(tempfile.mkdtemp()) / "full_disk.json")
        args = [a for a in argv if a != "--out" and a != out_arg(argv)]
        code = subprocess.run([*ns, sys.executable, __file__, *args, "--inside", "--out", out])
        if code.returncode == 0:
            return json.loads(Path(out).read_text())
        print(f"the namespace run failed ({code.returncode}): patched write instead", flush=True)
    return emit("disk full and read-only store", patched(argv), out_arg(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
