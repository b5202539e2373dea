"""The model folder: a Hugging Face model dir (config.json, *.safetensors, tokenizer files)
or a PEFT adapter dir (adapter_config.json, adapter_model.safetensors), as every part of
Jupiter writes and reads it.

Written whole or not at all: into .tmp-NAME-PID beside it, then renamed into place (an
existing NAME moved aside to .old-NAME first), so a crash leaves the old folder or the new
one; remove_stale_temps clears what a killed writer left. A folder Jupiter trains holds a
checksums.json (SHA-256 of every other file) that readers verify.

Imports neither torch nor transformers at module level: `jupiter collect` and the model
reference resolver ask "is this a model dir" without paying for them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from jupiter.errors import JupiterError, disk_problem
from jupiter.procs import pid_alive

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)

CONFIG = "config.json"
ADAPTER_CONFIG = "adapter_config.json"
CHECKSUMS = "checksums.json"  # {relative posix path: SHA-256} of every other file
HASH_CHUNK = 8 << 20  # GGUF files and weights run to tens of GB: hashed in 8 MiB reads
TMP_DIR = re.compile(r"^\.tmp-(.+?)(?:-(\d+))?$")  # .tmp-NAME-PID: a write under way
OLD_DIR = re.compile(r"^\.old-(.+)$")  # .old-NAME: NAME moved aside by replace_dir


# ------------------------------------------------------------------------ what it is
def is_adapter_dir(path: Path) -> bool:
    """A PEFT adapter dir (adapter_config.json + adapter weights), not a whole model."""
    return (Path(path) / ADAPTER_CONFIG).is_file()


def is_model_dir(path: Path) -> bool:
    """An HF model dir or a PEFT adapter dir: something load_for_inference reads."""
    return (Path(path) / CONFIG).is_file() or is_adapter_dir(path)


# ----------------------------------------------------------------------- checksums
def sha256_file(path: Path) -> str:
    """The file's SHA-256 (hex), read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(HASH_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def file_sums(root: Path, skip: Collection[str] = (CHECKSUMS,)) -> dict[str, str]:
    """SHA-256 of every file under root by relative posix path, but those named in `skip`
    (the listing itself: checksums.json, an export's export.json)."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name not in skip)
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in files}


def write_checksums(root: Path) -> None:
    """Write root/checksums.json: SHA-256 of every file under root (relative posix paths)."""
    sums = file_sums(root)
    (root / CHECKSUMS).write_text(json.dumps(sums, indent=1, sort_keys=True), encoding="utf-8")


Fault = Literal["absent", "unreadable", "missing", "differs"]


def checksum_fault(root: Path) -> tuple[Fault, str] | None:
    """The first way root's files differ from its checksums.json, as (fault, relative
    path): "absent" (no checksums.json), "unreadable" (not a {path: hash} object), "missing"
    or "differs" (a listed file). None when every listed file has its recorded hash."""
    listing = root / CHECKSUMS
    if not listing.is_file():
        return "absent", CHECKSUMS
    try:
        sums = json.loads(listing.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, OSError):
        sums = None
    if not (isinstance(sums, dict) and all(isinstance(v, str) for v in sums.values())):
        return "unreadable", CHECKSUMS
    for rel, expected in sorted(sums.items()):
        path = root / rel
        if not path.is_file():
            return "missing", rel
        if sha256_file(path) != expected:
            return "differs", rel
    return None


def verify_checksums(root: Path) -> str | None:
    """None when root's checksums.json verifies, else what is wrong, said from inside root
    ("model.safetensors does not match its SHA-256"). A checkpoint without one is wrong."""
    fault = checksum_fault(root)
    if fault is None:
        return None
    kind, rel = fault
    return {
        "absent": f"{CHECKSUMS} is missing",
        "unreadable": f"{CHECKSUMS} is unreadable",
        "missing": f"{rel} is missing",
        "differs": f"{rel} does not match its SHA-256",
    }[kind]


def checksums_problem(model_dir: Path) -> str | None:
    """'FILE: what is wrong' when the dir's checksums.json is unreadable or a file it lists
    is missing or holds other bytes; None when it matches, or when there is none (a model
    from elsewhere: only the folders Jupiter trains carry one)."""
    fault = checksum_fault(model_dir)
    if fault is None or fault[0] == "absent":
        return None
    kind, rel = fault
    path = model_dir / rel
    if kind == "unreadable":
        return f"{path}: not a valid list of checksums (delete it to load the model unchecked)"
    if kind == "missing":
        return f"{path}: missing (listed in {CHECKSUMS})"
    return f"{path}: does not match its SHA-256 in {CHECKSUMS}"


# ------------------------------------------------------------------ writing it whole
@contextmanager
def quiet_hf() -> Iterator[None]:
    """transformers 5 draws a progress bar per load and save; in a training log it is noise."""
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


@contextmanager
def unwrap_without_deepspeed() -> Iterator[None]:
    """transformers' save_pretrained unwraps the model through accelerate, which imports
    DeepSpeed (1.2-1.4 s beyond transformers on a 2-core CPU) whenever it is installed, only to
    ask whether the model is a DeepSpeedEngine. It cannot be one unless DeepSpeed is
    already imported, so while saving the check answers from sys.modules."""
    import sys

    try:
        from accelerate.utils import other
    except ImportError:  # transformers unwraps by hand without accelerate
        yield
        return
    probe = getattr(other, "is_deepspeed_available", None)
    if probe is None or "deepspeed" in sys.modules:
        yield
        return
    other.is_deepspeed_available = lambda: "deepspeed" in sys.modules
    try:
        yield
    finally:
        other.is_deepspeed_available = probe


def save_hf_model(
    model: PreTrainedModel, out: Path, state_dict: dict[str, torch.Tensor] | None = None
) -> None:
    """model.save_pretrained (safetensors), without progress bars or a DeepSpeed import."""
    with quiet_hf(), unwrap_without_deepspeed():
        model.save_pretrained(out, safe_serialization=True, state_dict=state_dict)


def write_hf_dir(
    out: Path,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase | None,
    model_state: dict[str, torch.Tensor] | None = None,
) -> None:
    """The model's safetensors and config (a PEFT model: its adapter), and the tokenizer,
    into `out` as it is (callers write into a temp dir: save_model_dir)."""
    from jupiter.data.templates import write_stop_tokens

    save_hf_model(model, out, model_state)
    if tokenizer is not None:
        tokenizer.save_pretrained(out)
        write_stop_tokens(out, tokenizer)  # other tools stop at the template's turn end too


def replace_dir(tmp: Path, final: Path) -> None:
    """Move tmp to final; an existing final is swapped out first (rename is atomic, rmtree not)."""
    old = final.with_name(f".old-{final.name}")
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def save_model_dir(
    out: Path,
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase | None,
    model_state: dict[str, torch.Tensor] | None = None,
    checksum: bool = False,
) -> Path:
    """A plain HF model dir (safetensors + tokenizer), written to a temp dir and renamed;
    with `checksum`, its checksums.json too (a training run's final model: verify_model)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with removed_on_failure(tmp):
        write_hf_dir(tmp, model, tokenizer, model_state)
        if checksum:
            write_checksums(tmp)
    replace_dir(tmp, out)
    return out


@contextmanager
def removed_on_failure(tmp: Path) -> Iterator[None]:
    """A temp dir being written is deleted when the write fails (a full disk, an error):
    nothing half-written stays, and its space is given back at once. A full or read-only
    disk is said in one line with the fix."""
    try:
        yield
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        problem = disk_problem(err, tmp.parent)
        if problem:
            m = TMP_DIR.match(tmp.name)
            raise JupiterError(
                f"cannot write {m.group(1) if m else tmp.name} in {tmp.parent}: {problem}; what "
                "was written before is intact: make room (or set JUPITER_HOME to a disk with "
                "room) and run the command again, training resumes from the newest checkpoint"
            ) from None
        raise


def remove_stale_temps(run_dir: Path) -> list[Path]:
    """Clear what a writer killed mid-write left in run_dir: its .tmp-NAME-PID dirs (kept
    while PID still runs on this machine), and an .old-NAME dir (deleted when NAME is in
    place, else renamed back: the kill came between replace_dir's two renames). Returns
    the dirs deleted."""
    if not run_dir.is_dir():
        return []
    gone = []
    for path in sorted(run_dir.iterdir()):
        if not path.is_dir():
            continue
        if m := OLD_DIR.match(path.name):
            if not (run_dir / m.group(1)).exists():
                os.replace(path, run_dir / m.group(1))
                continue
        elif m := TMP_DIR.match(path.name):
            pid = int(m.group(2)) if m.group(2) else None
            if pid is not None and pid != os.getpid() and pid_alive(pid):
                continue
        else:
            continue
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path)
    if gone:
        log.info("removed %d dirs of an interrupted write in %s", len(gone), run_dir)
    return gone
