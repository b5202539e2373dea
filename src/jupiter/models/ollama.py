"""Models pulled with Ollama, found in its local store: the GGUF blob behind `ollama:NAME[:TAG]`.

The store ($OLLAMA_MODELS, else ~/.ollama/models) holds one JSON manifest per model and tag,
manifests/<registry>/<namespace>/<name>/<tag>, whose layers name content-addressed blobs,
blobs/sha256-<hex>; the layer of media type `application/vnd.ollama.image.model` is the
weights, a GGUF file. Nothing is pulled: a model not in the store is an error naming the fix.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from jupiter.errors import JupiterError

PREFIX = "ollama:"
REGISTRY = "registry.ollama.ai"
MODEL_LAYER = "application/vnd.ollama.image.model"
# the Linux installer's service user keeps its store here, not under the user's home
SERVICE_STORE = Path("/usr/share/ollama/.ollama/models")


@dataclass(frozen=True)
class OllamaModel:
    name: str  # as written after `ollama:`, with the tag made explicit: name:tag
    blob: Path  # the GGUF file
    digest: str  # its sha256, hex, as the manifest names it


def store_dir() -> Path:
    """$OLLAMA_MODELS when set (only there); else ~/.ollama/models, or the service's store."""
    env = os.environ.get("OLLAMA_MODELS")
    if env:
        return Path(env).expanduser()
    home = Path("~/.ollama/models").expanduser()
    return SERVICE_STORE if not home.is_dir() and SERVICE_STORE.is_dir() else home


def split_name(ref: str) -> tuple[str, str, str, str]:
    """(registry, namespace, model, tag) of `NAME[:TAG]` as Ollama reads it: `gemma3:270m`,
    `user/name:tag`, `host/user/name:tag`; the tag defaults to latest."""
    name = ref.removeprefix(PREFIX).strip()
    last = name.rsplit("/", 1)[-1]
    tag = "latest"
    if ":" in last:
        name, tag = name.rsplit(":", 1)
    parts = name.split("/")
    if not name or not tag or len(parts) > 3 or not all(parts):
        raise JupiterError(
            f"'{ref}' is not an Ollama model name: write ollama:NAME[:TAG], e.g. ollama:gemma3:270m"
        )
    if len(parts) == 1:
        return REGISTRY, "library", parts[0], tag
    if len(parts) == 2:
        return REGISTRY, parts[0], parts[1], tag
    return parts[0], parts[1], parts[2], tag


def pulled_names(store: Path, limit: int = 8) -> list[str]:
    """Up to `limit` models in the store, as `ollama list` shows them (name:tag)."""
    tags = sorted((store / "manifests").glob("*/*/*/*"))
    return [short_name(*tag.parts[-4:]) for tag in tags[:limit]]


def short_name(registry: str, namespace: str, model: str, tag: str) -> str:
    """The name as `ollama list` shows it: gemma3:270m, user/name:tag, host/user/name:tag."""
    if registry != REGISTRY:
        return f"{registry}/{namespace}/{model}:{tag}"
    return f"{model if namespace == 'library' else f'{namespace}/{model}'}:{tag}"


def find_model(ref: str) -> OllamaModel:
    """The GGUF blob of an Ollama model in the local store; JupiterError with the fix if not."""
    registry, namespace, model, tag = split_name(ref)
    short = short_name(registry, namespace, model, tag)
    store = store_dir()
    if not (store / "manifests").is_dir():
        raise JupiterError(
            f"no Ollama model store at {store}: install Ollama and `ollama pull {short}`, or set "
            "OLLAMA_MODELS to the store's folder"
        )
    manifest = store / "manifests" / registry / namespace / model / tag
    if not manifest.is_file():
        have = ", ".join(pulled_names(store)) or "none"
        raise JupiterError(
            f"Ollama model '{short}' is not in the store {store} (it has: {have}): fetch it "
            f"once with `ollama pull {short}`, or fix the name"
        )
    try:
        layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers") or []
    except (OSError, json.JSONDecodeError, AttributeError) as err:
        raise JupiterError(
            f"unreadable Ollama manifest {manifest} ({err}): `ollama pull {short}` again"
        ) from None
    digests = [x.get("digest", "") for x in layers if x.get("mediaType") == MODEL_LAYER]
    if not digests or not digests[0].startswith("sha256:"):
        raise JupiterError(
            f"Ollama manifest {manifest} has no model layer ({MODEL_LAYER}): '{short}' is not a "
            "GGUF model Jupiter can read; choose another model"
        )
    digest = digests[0].removeprefix("sha256:")
    blob = store / "blobs" / f"sha256-{digest}"
    if not blob.is_file():
        raise JupiterError(
            f"Ollama's blob for '{short}' is missing ({blob}): `ollama pull {short}` again"
        )
    return OllamaModel(short, blob, digest)
