"""Where islands meet: a key -> bytes store on a local/NFS folder or any fsspec URL, plus the
codec for what goes through it (safetensors bytes) and a digest of weights.

Keys are posix relative paths ("global/round-000003.safetensors"). A reader sees a key whole
or not at all: a local put writes a temp file beside the target and renames it over; other
filesystems (sftp, memory) write `<key>.tmp-<uuid>` and move it; object stores (S3, GCS,
Azure) publish an object only when its upload completes, so they are written directly.
"""

from __future__ import annotations

import hashlib
import json
import math
import posixpath
import re
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from jupiter.atomic import write_bytes
from jupiter.errors import JupiterError

Dtype = Literal["bf16", "fp16", "fp32", "int8", "int4"]
TORCH_DTYPES: dict[str, torch.dtype] = {
    "bf16": torch.bfloat16,
    "fp16": torch.float16,
    "fp32": torch.float32,
}
# int8 / int4: symmetric integers per group of QUANT_GROUP values, one bf16 scale a group
# (absmax / 127 or / 7), int4 packed two to a byte: 1.03 and 0.53 bytes a value
QUANT_LEVELS = {"int8": 127, "int4": 7}
QUANT_GROUP = 64
SCALE_SUFFIX = "@scale"
# puts on these are atomic already, and their "move" is a copy + delete of the whole object
OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss"})
TMP_MARK = ".tmp-"


def shown(url: str) -> str:
    """The URL with any password masked, for messages."""
    return re.sub(r"(://[^/:@]*):[^/@]*@", r"\1:***@", url)


def check_key(key: str, prefix: bool = False) -> str:
    """A posix relative path without '.', '..' or hidden parts (those are temp files)."""
    parts = key.split("/") if isinstance(key, str) else [""]
    if prefix and parts[-1] == "":
        parts = parts[:-1]
    bad = (
        not isinstance(key, str)
        or (not key and not prefix)
        or key.startswith("/")
        or "\\" in key
        or TMP_MARK in key
        or any(p in ("", ".", "..") or p.startswith(".") for p in parts)
    )
    if bad:
        raise JupiterError(
            f"sync store key {key!r} is not a plain relative path; use names like "
            "'global/round-000003.safetensors' (no leading '/', '..', or parts starting with '.')"
        )
    return key


def _is_temp(key: str) -> bool:
    return TMP_MARK in key or any(p.startswith(".") for p in key.split("/"))


class SyncStore:
    """A key -> bytes store at `url`: a path (absolute or relative), file://..., or any fsspec
    URL (s3://bucket/run, sftp://user@host/path, memory://name for tests). `options` go to
    the fsspec filesystem (key_filename for sftp, endpoint_url for S3-compatible stores);
    fsspec's own FSSPEC_<PROTOCOL>_<OPTION> variables work too.
    Counts the bytes it moves in `bytes_put` and `bytes_got`."""

    def __init__(self, url: str, options: Mapping[str, Any] | None = None) -> None:
        if not url:
            raise JupiterError("sync store URL is empty; set sync.store to a folder or URL")
        self._url = url
        self.bytes_put = 0
        self.bytes_got = 0
        self._fs: Any = None
        if "://" not in url or url.startswith("file://"):
            self._local: Path | None = Path(url.removeprefix("file://")).expanduser().absolute()
            self._root = str(self._local)
            try:
                self._local.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise JupiterError(
                    f"sync store {url}: cannot create the folder ({e.strerror}); "
                    "pick a writable path for sync.store"
                ) from e
        else:
            self._local = None
            self._fs, self._root = _open_fs(url, dict(options or {}))
            self._root = self._root.rstrip("/")

    @property
    def url(self) -> str:
        return self._url

    def __repr__(self) -> str:
        return f"SyncStore({shown(self._url)!r})"

    # ----------------------------------------------------------------------------- paths
    def _path(self, key: str) -> str:
        return f"{self._root}/{check_key(key)}"

    @contextmanager
    def _io(self, what: str, key: str) -> Iterator[None]:
        """Turn a backend's exception (OSError, botocore, paramiko...) into one clear line."""
        try:
            yield
        except JupiterError:
            raise
        except FileNotFoundError as e:
            raise JupiterError(
                f"sync store {shown(self._url)} has no key {key!r}; it was never published "
                "or was deleted (check exists() before get, or wait for the round)"
            ) from e
        except Exception as e:
            raise JupiterError(
                f"sync store {shown(self._url)}: {what} {key!r} failed "
                f"({type(e).__name__}: {e}); check that the store is reachable and writable"
            ) from e

    # ----------------------------------------------------------------------------- bytes
    def put(self, key: str, data: bytes) -> None:
        """Write `data` under `key` atomically, replacing any older value."""
        path = self._path(key)
        with self._io("put", key):
            if self._local is not None:
                write_bytes(Path(path), data)  # temp file + fsync + os.replace
            elif _protocol(self._fs) in OBJECT_STORES:
                self._fs.pipe_file(path, data)
            else:
                self._put_by_move(path, data)
        self.bytes_put += len(data)

    def _put_by_move(self, path: str, data: bytes) -> None:
        tmp = f"{path}{TMP_MARK}{uuid.uuid4().hex}"
        self._fs.makedirs(posixpath.dirname(path), exist_ok=True)
        try:
            self._fs.pipe_file(tmp, data)
            self._fs.mv(tmp, path)
        except BaseException:
            try:
                self._fs.rm_file(tmp)
            except Exception:
                pass  # best effort: list() hides temp names anyway
            raise

    def get(self, key: str) -> bytes:
        path = self._path(key)
        with self._io("get", key):
            data = Path(path).read_bytes() if self._local is not None else self._fs.cat_file(path)
        self.bytes_got += len(data)
        return bytes(data)

    def exists(self, key: str) -> bool:
        path = self._path(key)
        with self._io("exists", key):
            if self._local is not None:
                return Path(path).is_file()
            return bool(self._fs.isfile(path))

    def delete(self, key: str) -> None:
        """Remove `key`; a missing key is not an error (deleting twice is fine)."""
        path = self._path(key)
        with self._io("delete", key):
            if self._local is not None:
                Path(path).unlink(missing_ok=True)
            else:
                try:
                    self._fs.rm_file(path)
                except FileNotFoundError:
                    pass

    def list(self, prefix: str = "") -> list[str]:
        """Every key starting with `prefix` (a plain string prefix, e.g. 'pseudo/round-0003/'
        or 'global/round-'), sorted; temp files of puts in flight are never listed."""
        if prefix:
            check_key(prefix, prefix=True)
        folder = prefix if prefix.endswith("/") or not prefix else posixpath.dirname(prefix)
        base = f"{self._root}/{folder}".rstrip("/")
        with self._io("list", prefix):
            if self._local is not None:
                found = [str(p) for p in Path(base).rglob("*") if p.is_file()]
            else:
                found = list(self._fs.find(base)) if self._fs.isdir(base) else []
        root = self._root if self._local is not None else self._fs._strip_protocol(self._root)
        keys = [Path(p).as_posix()[len(root) + 1 :] for p in found]
        return sorted(k for k in keys if k.startswith(prefix) and not _is_temp(k))

    # ----------------------------------------------------------------------------- json
    def put_json(self, key: str, obj: Any) -> None:
        self.put(key, json.dumps(obj, sort_keys=True, indent=1).encode("utf-8"))

    def get_json(self, key: str) -> Any:
        data = self.get(key)
        try:
            return json.loads(data)
        except ValueError as e:
            raise JupiterError(
                f"sync store {shown(self._url)}: {key!r} is not valid JSON ({e}); "
                "delete it so that its writer publishes it again"
            ) from e


def _protocol(fs: Any) -> str:
    proto = fs.protocol
    return str(proto[0] if isinstance(proto, (tuple, list)) else proto)


def _open_fs(url: str, options: dict[str, Any]) -> tuple[Any, str]:
    """fsspec's filesystem for `url`, probed once, with one clear line when it cannot be."""
    import fsspec
    from fsspec.registry import known_implementations, registry

    proto = fsspec.utils.get_protocol(url)
    if proto not in known_implementations and proto not in registry:
        raise JupiterError(
            f"sync store {shown(url)}: unknown protocol {proto!r}; use a folder, file://, "
            "s3://, gs://, sftp://user@host/path or another fsspec URL"
        )
    try:
        fs, root = fsspec.core.url_to_fs(url, **options)
    except ImportError as e:
        pkg = _package_for(proto)
        raise JupiterError(
            f"sync store {shown(url)}: the {proto}:// protocol needs {pkg}, which is not "
            f"installed; pip install {pkg}"
        ) from e
    except Exception as e:
        raise JupiterError(
            f"sync store {shown(url)} is unreachable ({type(e).__name__}: {e}); "
            "check the host, credentials and network"
        ) from e
    try:
        fs.exists(root)  # S3/GCS connect lazily: fail here, not mid-round
    except Exception as e:
        raise JupiterError(
            f"sync store {shown(url)} is unreachable ({type(e).__name__}: {e}); "
            "check the host, credentials and network"
        ) from e
    return fs, str(root)


def _package_for(proto: str) -> str:
    """The pip package(s) a protocol needs: the implementation's own package (s3fs, gcsfs),
    or what fsspec's message quotes for its built-in ones (paramiko for sftp)."""
    from fsspec.registry import known_implementations

    spec = known_implementations.get(proto, {})
    top = spec.get("class", "").split(".")[0]
    if top and top != "fsspec":
        return top
    quoted = re.findall(r'"([^"]+)"', spec.get("err", ""))
    return " ".join(quoted) or f"the package for {proto}://"


# --------------------------------------------------------------------------------- codec
def as_torch(x: torch.Tensor | np.ndarray) -> torch.Tensor:
    """A CPU torch tensor for a torch tensor or a numpy array (ml_dtypes bfloat16 included,
    which is what an MLX array becomes in numpy), without copying where possible."""
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    if x.dtype.name == "bfloat16":
        return torch.from_numpy(np.ascontiguousarray(x).view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(x))


def encode(
    tensors: Mapping[str, torch.Tensor | np.ndarray],
    dtype: Dtype = "bf16",
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """safetensors bytes with every floating tensor cast to `dtype` (others kept as is).

    fp16 tops out at 65504: a larger value becomes inf on purpose. Such a contribution is
    then rejected as non_finite by the aggregator, rather than silently clipped.
    """
    if dtype not in TORCH_DTYPES and dtype not in QUANT_LEVELS:
        raise JupiterError(f"unknown sync dtype {dtype!r}; use bf16, fp16, fp32, int8 or int4")
    if metadata and not all(isinstance(v, str) for v in metadata.values()):
        raise JupiterError("encode: metadata values must be strings; json.dumps them first")
    if dtype in QUANT_LEVELS:
        return _encode_quantized(tensors, dtype, metadata)
    target = TORCH_DTYPES[dtype]
    out: dict[str, torch.Tensor] = {}
    storages: set[int] = set()
    for name, x in tensors.items():
        t = as_torch(x)
        t = (t.to(target) if t.is_floating_point() else t).contiguous()
        ptr = t.untyped_storage().data_ptr()
        if ptr in storages and t.numel():  # tied weights: safetensors refuses shared storage
            t = t.clone()
        storages.add(t.untyped_storage().data_ptr())
        out[name] = t
    return bytes(st_save(out, metadata=dict(metadata) if metadata else None))


def _encode_quantized(
    tensors: Mapping[str, torch.Tensor | np.ndarray],
    dtype: str,
    metadata: Mapping[str, str] | None,
) -> bytes:
    """Every floating tensor as integers per group of QUANT_GROUP values and a bf16 scale
    a group (round to nearest; the scale is rounded to bf16 before the values are divided
    by it, so `decode` multiplies back by exactly what was used); others kept as is. The
    shapes and scheme go in the metadata under "quant"."""
    levels = QUANT_LEVELS[dtype]
    out: dict[str, torch.Tensor] = {}
    shapes: dict[str, list[int]] = {}
    for name, x in tensors.items():
        t = as_torch(x)
        if not t.is_floating_point():
            out[name] = t.contiguous().clone()
            continue
        flat = t.detach().to(torch.float32).reshape(-1)
        pad = (-flat.numel()) % QUANT_GROUP
        groups = torch.nn.functional.pad(flat, (0, pad)).reshape(-1, QUANT_GROUP)
        scale = (groups.abs().amax(dim=1) / levels).to(torch.bfloat16)
        safe = torch.where(scale == 0, torch.ones_like(scale), scale).to(torch.float32)
        q = torch.round(groups / safe[:, None]).clamp_(-levels, levels).to(torch.int8)
        if dtype == "int4":  # two values a byte: low nibble first, each stored as q + 8
            u = (q.reshape(-1, 2) + 8).to(torch.uint8)
            q = u[:, 0] | (u[:, 1] << 4)
        out[name] = q.reshape(-1).contiguous()
        out[name + SCALE_SUFFIX] = scale.contiguous()
        shapes[name] = list(t.shape)
    meta = dict(metadata or {})
    meta["quant"] = json.dumps({"dtype": dtype, "group": QUANT_GROUP, "shapes": shapes})
    return bytes(st_save(out, metadata=meta))


def _dequantize(tensors: dict[str, torch.Tensor], quant: dict[str, Any]) -> dict[str, torch.Tensor]:
    """`_encode_quantized`'s tensors back to fp32 in their shapes: integer times its group's
    scale, one IEEE multiply a value, so every reader gets the same bits."""
    group = int(quant["group"])
    out: dict[str, torch.Tensor] = {}
    for name, t in tensors.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        shape = quant["shapes"].get(name)
        if shape is None:
            out[name] = t
            continue
        if quant["dtype"] == "int4":
            low = (t & 0x0F).to(torch.int16) - 8
            high = (t >> 4).to(torch.int16) - 8
            t = torch.stack([low, high], dim=1).reshape(-1)
        scale = tensors[name + SCALE_SUFFIX].to(torch.float32)
        values = t.to(torch.float32).reshape(-1, group) * scale[:, None]
        n = math.prod(shape)
        out[name] = values.reshape(-1)[:n].reshape(shape)
    return out


def decode(data: bytes, source: str = "payload") -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """(tensors, metadata) from `encode`'s bytes: floating tensors in their stored dtype, or
    fp32 for an int8/int4 payload (its "quant" metadata kept)."""
    try:
        tensors = st_load(data)
        n = int.from_bytes(data[:8], "little")
        meta: dict[str, str] = json.loads(data[8 : 8 + n]).get("__metadata__") or {}
        if "quant" in meta:
            tensors = _dequantize(tensors, json.loads(meta["quant"]))
    except (SafetensorError, ValueError, KeyError, RuntimeError) as e:
        raise JupiterError(
            f"{source} is not a safetensors payload ({e}); delete it so that its writer "
            "publishes it again"
        ) from e
    return tensors, meta


def with_metadata(data: bytes, extra: Mapping[str, str]) -> bytes:
    """`encode`'s bytes again, the same tensors byte for byte, with `extra` added to the
    metadata."""
    tensors = st_load(data)
    n = int.from_bytes(data[:8], "little")
    meta: dict[str, str] = json.loads(data[8 : 8 + n]).get("__metadata__") or {}
    return bytes(st_save(tensors, metadata={**meta, **extra}))


def to_fp32(tensors: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Floating tensors as fp32 (what the aggregator works in); others unchanged."""
    return {k: v.float() if v.is_floating_point() else v for k, v in tensors.items()}


def weights_digest(tensors: Mapping[str, torch.Tensor | np.ndarray]) -> str:
    """SHA-256 over the names (sorted), each tensor's dtype, shape and raw bytes. Equal
    digests on a torch island and an MLX island prove byte-identical global weights."""
    h = hashlib.sha256(b"jupiter-weights-v1\n")
    for name in sorted(tensors):
        t = as_torch(tensors[name]).contiguous()
        dtype = str(t.dtype).removeprefix("torch.")
        h.update(json.dumps([name, dtype, list(t.shape)]).encode("utf-8") + b"\n")
        # raw bytes in memory order (little-endian on every platform Jupiter runs on)
        h.update(t.reshape(-1).view(torch.uint8).numpy().data)
    return h.hexdigest()
