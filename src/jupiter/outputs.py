"""The output folder a command writes (`export --out`, `merge --out`): never one of its
inputs or a workspace, replaced only when it is Jupiter's own earlier output, and held by
one writer at a time.

`--force` replaces a folder only when it is empty or holds the manifest the same command
writes (export.json, merge.json): a folder that holds anything else (a workspace, the
models a merge reads, a home directory) is refused, `--force` or not, so no typo in
`--out` can delete what the user was given. A lock file beside the folder
(`.NAME.lock`, holding the writer's pid) makes a second writer to the same `--out` fail
in one line instead of racing the first to the final rename; a lock whose process is
gone is taken over.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from jupiter.errors import JupiterError
from jupiter.procs import pid_alive
from jupiter.wspath import WORKSPACE_MARK, workspace_of


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_output(
    out: Path,
    inputs: Sequence[Path],
    *,
    force: bool,
    manifest: str,
    allowed_in: Path | None = None,
) -> Path:
    """The resolved output folder, or a one-line JupiterError when writing it could lose
    data: `out` is, holds or sits inside an input; is or sits inside a workspace (but
    under `allowed_in`, the command's own place in one); exists without --force; or
    exists holding something other than an earlier output of this command."""
    out = Path(out).expanduser().resolve()
    for given in inputs:
        src = Path(given).expanduser().resolve()
        if _inside(src, out):
            what = "is" if src == out else "holds"
            raise JupiterError(
                f"--out {out} {what} the input {src}: writing it would delete "
                "the input; choose a folder outside it"
            )
        if _inside(out, src):
            raise JupiterError(
                f"--out {out} sits inside the input {src}: choose a folder outside it"
            )
    ws = workspace_of(out)
    if ws is not None and not (
        allowed_in is not None
        and _inside(out, allowed_in.resolve())
        and out != allowed_in.resolve()
    ):
        where = "is the workspace" if ws == out else f"sits inside the workspace {ws}"
        raise JupiterError(
            f"--out {out} {where}: Jupiter manages that folder; choose a folder outside it"
        )
    if out.exists() and not out.is_dir():
        raise JupiterError(f"--out {out} is a file: choose a folder path")
    above = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if above is not None:
        raise JupiterError(f"--out {out} sits under the file {above}: choose a folder path")
    holder = lock_holder(out)
    if holder is not None:
        raise JupiterError(_busy(holder, out))
    if out.exists():
        if not force:
            raise JupiterError(
                f"{out} already exists: choose another --out, or add --force to replace it"
            )
        entries = [p.name for p in out.iterdir()]
        if entries and manifest not in entries:
            raise JupiterError(
                f"--out {out} holds files Jupiter did not write (no {manifest}): --force "
                "replaces only an earlier output of this command; choose an empty or new "
                "folder"
            )
        if (out / WORKSPACE_MARK).exists():  # a manifest copied into a workspace: still no
            raise JupiterError(f"--out {out} is a workspace: choose a folder outside it")
    return out


def check_output_file(out: Path, inputs: Sequence[Path]) -> Path:
    """The resolved path of a report file a command writes (`eval --out`), or a one-line
    JupiterError when writing it would overwrite what the command reads: `out` is an input
    or sits inside an input folder (a model's config.json), or sits inside a workspace
    (its store); or it is a folder, or sits under a file."""
    out = Path(out).expanduser().resolve()
    if out.is_dir():
        raise JupiterError(f"--out {out} is a folder: give the path of a file for the report")
    for given in inputs:
        src = Path(given).expanduser().resolve()
        if _inside(out, src):
            what = "is" if out == src else "sits inside"
            raise JupiterError(
                f"--out {out} {what} the input {src}: writing it would "
                "overwrite what is read; choose a path outside it"
            )
    ws = workspace_of(out)
    if ws is not None:
        raise JupiterError(
            f"--out {out} sits inside the workspace {ws}: Jupiter manages that "
            "folder; choose a path outside it"
        )
    above = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if above is not None:
        raise JupiterError(f"--out {out} sits under the file {above}: choose another path")
    return out


@contextlib.contextmanager
def claimed_output(
    out: Path,
    inputs: Sequence[Path],
    *,
    force: bool,
    manifest: str,
    allowed_in: Path | None = None,
) -> Iterator[Path]:
    """check_output, then the lock, then check_output again under it (a writer that
    finished meanwhile left a folder this one must not replace without --force)."""
    args = {"force": force, "manifest": manifest, "allowed_in": allowed_in}
    out = check_output(out, inputs, **args)  # type: ignore[arg-type]
    with output_lock(out):
        yield check_output(out, inputs, **args)  # type: ignore[arg-type]


def lock_holder(out: Path) -> int | None:
    """The pid of another live process holding `out`'s lock, or None."""
    lock = out.with_name(f".{out.name}.lock")
    try:
        pid = int(lock.read_text().strip() or 0)
    except (OSError, ValueError):
        return None
    return pid if pid and pid != os.getpid() and pid_alive(pid) else None


def _busy(pid: int, out: Path) -> str:
    return (
        f"another Jupiter command (pid {pid}) is writing {out}: wait for it to finish, "
        "or choose another --out"
    )


@contextlib.contextmanager
def output_lock(out: Path) -> Iterator[Path]:
    """Hold `.NAME.lock` beside `out` while the block writes it; a second writer gets a
    one-line error naming the first one's pid. A lock left by a dead process is taken."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = out.with_name(f".{out.name}.lock")
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            pid = lock_holder(out)
            if pid is not None:
                raise JupiterError(_busy(pid, out)) from None
            lock.unlink(missing_ok=True)  # its writer is gone
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(str(os.getpid()))
        break
    else:
        raise JupiterError(
            f"could not take the lock {lock}: remove it if no Jupiter command is writing {out}"
        )
    try:
        yield out
    finally:
        lock.unlink(missing_ok=True)
