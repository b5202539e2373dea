"""One model reference for every place that takes a model (model.base, generator.model_path,
generator.llm.model, `jupiter serve --model`, `jupiter chat --model`):

    models/base                an HF model dir (config.json) or a PEFT adapter dir
    runs/x/…/train/step-000040 a training checkpoint: the model (or adapter) it holds
    google/gemma-3-270m-it     a Hugging Face Hub id, read from the local HF cache only
    models/gemma-3-270m.gguf   a GGUF file, imported once into an HF dir (gguf_import.py)
    ollama:gemma3:270m         a model pulled with Ollama: its GGUF blob, then as a GGUF file

`locate_model` finds the weights without loading anything, so a bad reference is an error
before any stage runs; `resolve_model` returns a local HF dir (or adapter dir), importing a
GGUF on first use. Nothing is ever downloaded: Jupiter runs offline (procs.quiet_libraries).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.models import ollama
from jupiter.models.folder import is_model_dir
from jupiter.models.gguf_import import import_gguf, is_gguf

Kind = Literal["dir", "gguf", "hub", "ollama"]
# the Hub's repo id shape: owner/name of letters, digits, '-', '_', '.'
# org/name, optionally @revision (a branch, tag or commit hash in the local cache)
HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*(@[A-Za-z0-9_./-]+)?$")
KINDS_HINT = "a model folder, a .gguf file, a Hugging Face id (org/name) or ollama:NAME[:TAG]"


@dataclass(frozen=True)
class Located:
    """Where a reference's weights are: a model dir, or a GGUF file still to import."""

    ref: str  # as written
    kind: Kind
    path: Path
    label: str  # a short name for generator ids, served model ids and logs
    gguf: bool = False  # path is a GGUF file, imported into an HF dir on resolve
    digest: str | None = None  # the GGUF's SHA-256 when known without reading it (Ollama)


def user_cache_dir() -> Path:
    """Where commands without a workspace (serve, chat) keep imported models:
    $JUPITER_MODEL_CACHE, else $XDG_CACHE_HOME/jupiter/models, else ~/.cache/jupiter/models."""
    env = os.environ.get("JUPITER_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(xdg).expanduser() / "jupiter" / "models"


def workspace_cache_dir(workspace_root: Path) -> Path:
    """Where a domain workspace keeps the models it imported."""
    return workspace_root / "models"


def hub_cache_dir() -> Path:
    """The local Hugging Face Hub cache, found as huggingface_hub finds it, but read at call
    time (huggingface_hub reads the environment once, at import)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(name):
            return Path(os.environ[name]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface"
    )
    return Path(home).expanduser() / "hub"


def _gguf_in(folder: Path, ref: str, kind: Kind, label: str) -> Located | None:
    """The one GGUF file of a folder without config.json (a Hub repo of GGUF files)."""
    files = sorted(folder.glob("*.gguf"))
    if len(files) > 1:
        names = ", ".join(f.name for f in files[:6])
        raise JupiterError(
            f"{folder} holds {len(files)} GGUF files ({names}): point the model at one of "
            f"them, e.g. {files[0]}"
        )
    if not files:
        return None
    return Located(ref, kind, files[0].resolve(), label, gguf=True)


def _folder(ref: str, path: Path) -> Located:
    if is_model_dir(path):
        return Located(ref, "dir", path, path.name)
    # a training checkpoint (train/checkpoint.py: step-NNNNNN/ with state.json): its model/
    if (path / "state.json").is_file() and is_model_dir(path / "model"):
        return Located(ref, "dir", path / "model", path.name)
    found = _gguf_in(path, ref, "gguf", path.name)
    if found is None:
        raise JupiterError(
            f"{path} is not a model folder (no config.json or adapter_config.json): point the "
            f"model at {KINDS_HINT}"
        )
    return found


def _file(ref: str, path: Path) -> Located:
    if not is_gguf(path):
        raise JupiterError(
            f"{path} is not a GGUF file (no GGUF header): point the model at {KINDS_HINT}"
        )
    return Located(ref, "gguf", path, path.stem, gguf=True)


def _hub_snapshot(repo_id: str, cache: Path, revision: str | None = None) -> Path | None:
    """The cached snapshot of the repo's revision (default main), or None; never a network
    call."""
    from huggingface_hub import snapshot_download

    try:
        return Path(
            snapshot_download(repo_id, cache_dir=cache, local_files_only=True, revision=revision)
        )
    except (OSError, ValueError):  # LocalEntryNotFoundError, HFValidationError
        return None


def _hub(ref: str, tried: Path) -> Located:
    cache = hub_cache_dir()
    repo, _, revision = ref.partition("@")
    snapshot = _hub_snapshot(repo, cache, revision or None)
    if snapshot is None:
        what = f"model '{repo}'" + (f" at revision '{revision}'" if revision else "")
        fetch = f"hf download {repo}" + (f" --revision {revision}" if revision else "")
        raise JupiterError(
            f"{what} is not in the local Hugging Face cache ({cache}), nor a folder "
            f"({tried}): fetch it once with `{fetch}`, or point at a local folder"
        )
    if is_model_dir(snapshot):
        return Located(ref, "hub", snapshot, ref)
    found = _gguf_in(snapshot, ref, "hub", ref)
    if found is None:
        raise JupiterError(
            f"the cached copy of '{ref}' ({snapshot}) has no config.json and no .gguf file: "
            f"fetch it again with `hf download {ref}`"
        )
    return found


def locate_model(ref: str, *, base_dir: Path | None) -> Located:
    """Where `ref` points, checked without loading anything; relative paths resolve against
    `base_dir` (the domain YAML's folder), or the current directory when None."""
    text = ref.strip()
    if not text:
        raise JupiterError(f"empty model reference: write {KINDS_HINT}")
    if text.startswith(ollama.PREFIX):
        found = ollama.find_model(text)
        return Located(ref, "ollama", found.blob, found.name, gguf=True, digest=found.digest)
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    if path.is_dir():
        return _folder(ref, path.resolve())
    if path.is_file():
        return _file(ref, path.resolve())
    if text.lower().endswith(".gguf"):
        raise JupiterError(f"GGUF file not found: {path}: fix the path to the .gguf file")
    if HUB_ID.match(text):
        return _hub(text, path)
    raise JupiterError(f"model not found: {path} (no such file or folder): point at {KINDS_HINT}")


def resolve_model(
    ref: str, *, base_dir: Path | None, cache_dir: Path, console: Console | None = None
) -> Path:
    """A local HF model dir or PEFT adapter dir for `ref`; a GGUF (a file, an Ollama blob, a
    Hub repo of GGUF) is imported into `cache_dir` once and read from there afterwards."""
    found = locate_model(ref, base_dir=base_dir)
    if not found.gguf:
        return found.path
    return import_gguf(
        found.path, cache_dir=cache_dir, digest=found.digest, label=found.label, console=console
    )


def model_label(ref: str, *, base_dir: Path | None) -> str:
    """A short name for a reference: the folder's or file's name, org/name, or name:tag."""
    return locate_model(ref, base_dir=base_dir).label
