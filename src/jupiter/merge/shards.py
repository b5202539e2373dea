"""Safetensors read one tensor at a time, and written one tensor at a time.

`safe_open` memory-maps a whole file, and every page a merge touches stays in the process's
resident set until the map is closed: merging five 1 GB models would show 5 GB resident
even when one tensor is held at a time. So the header is parsed here and each tensor is
read with one `readinto` of its byte range (the format: an 8-byte little-endian header
length, a JSON header of {name: {dtype, shape, data_offsets}}, then the raw bytes).

Writing: the names, shapes and dtypes of a merged model are known before any value is, so
each shard's header is written first and the tensors follow as they are computed, in header
order; no shard is ever held whole in memory.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import torch

from jupiter.errors import JupiterError

DTYPES: dict[str, torch.dtype] = {
    "F64": torch.float64,
    "F32": torch.float32,
    "F16": torch.float16,
    "BF16": torch.bfloat16,
    "I64": torch.int64,
    "I32": torch.int32,
    "I16": torch.int16,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
    "F8_E4M3": torch.float8_e4m3fn,
    "F8_E5M2": torch.float8_e5m2,
}
CODES = {v: k for k, v in DTYPES.items()}
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"
# the header of a safetensors file is at most 100 MB (the Rust reader's own limit)
MAX_HEADER = 100_000_000


@dataclass(frozen=True)
class TensorInfo:
    """Where one tensor lies: its file, dtype, shape and byte range within the data."""

    file: Path
    dtype: torch.dtype
    shape: tuple[int, ...]
    begin: int  # absolute offset in the file
    nbytes: int


def read_header(path: Path) -> dict[str, TensorInfo]:
    """The tensors of one safetensors file, by name, in the order of their data."""
    try:
        with path.open("rb") as f:
            n = int.from_bytes(f.read(8), "little")
            if not 0 < n <= MAX_HEADER:
                raise ValueError(f"header length {n}")
            header: dict[str, Any] = json.loads(f.read(n))
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise JupiterError(
            f"{path} is not a readable safetensors file ({e}): re-save the model with "
            "save_pretrained(safe_serialization=True)"
        ) from None
    header.pop("__metadata__", None)
    out: dict[str, TensorInfo] = {}
    for name, entry in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        if entry["dtype"] not in DTYPES:
            raise JupiterError(
                f"{path}: tensor {name} has dtype {entry['dtype']}, which "
                "Jupiter cannot merge; convert the model to fp32, fp16 or bf16"
            )
        begin, end = entry["data_offsets"]
        out[name] = TensorInfo(
            path, DTYPES[entry["dtype"]], tuple(entry["shape"]), 8 + n + begin, end - begin
        )
    return out


def read_tensor(info: TensorInfo) -> torch.Tensor:
    """One tensor, read into its own buffer (no memory map)."""
    if info.nbytes == 0:
        return torch.empty(info.shape, dtype=info.dtype)
    buf = bytearray(info.nbytes)
    with info.file.open("rb") as f:
        f.seek(info.begin)
        if f.readinto(buf) != info.nbytes:
            raise JupiterError(f"{info.file} is truncated: download or copy it again")
    return torch.frombuffer(buf, dtype=info.dtype).reshape(info.shape)


def weight_files(model_dir: Path, single: str = SINGLE) -> list[Path]:
    """The safetensors files of a model dir: the shards its index names, or the one file."""
    index = model_dir / single.replace(".safetensors", ".safetensors.index.json")
    if index.is_file():
        try:
            weight_map: dict[str, str] = json.loads(index.read_text("utf-8"))["weight_map"]
        except (OSError, ValueError, KeyError) as e:
            raise JupiterError(
                f"{index} is not a safetensors index ({e}): re-save the model"
            ) from None
        files = [model_dir / f for f in dict.fromkeys(weight_map.values())]
        missing = [f.name for f in files if not f.is_file()]
        if missing:
            raise JupiterError(
                f"{model_dir} lacks the shards {missing[:3]} its index names: "
                "copy the whole model dir"
            )
        return files
    if (model_dir / single).is_file():
        return [model_dir / single]
    found = sorted(model_dir.glob("*.safetensors"))
    if found:
        return found
    pickled = sorted(p.name for p in model_dir.glob("*.bin")) + sorted(
        p.name for p in model_dir.glob("*.pt")
    )
    hint = f" (it has {pickled[0]}, a pickle Jupiter does not load)" if pickled else ""
    raise JupiterError(
        f"no .safetensors weights in {model_dir}{hint}: re-save the model with "
        "save_pretrained(safe_serialization=True)"
    )


class ModelWeights:
    """The named tensors of an HF model dir, read one at a time on request."""

    def __init__(self, model_dir: Path, label: str | None = None) -> None:
        self.dir = Path(model_dir)
        self.label = label or self.dir.name
        self.files = weight_files(self.dir)
        self.tensors: dict[str, TensorInfo] = {}
        for f in self.files:
            self.tensors.update(read_header(f))

    def names(self) -> list[str]:
        return list(self.tensors)

    def shape(self, name: str) -> tuple[int, ...]:
        return self.tensors[name].shape

    def dtype(self, name: str) -> torch.dtype:
        return self.tensors[name].dtype

    def read(self, name: str) -> torch.Tensor:
        return read_tensor(self.tensors[name])

    def nbytes(self) -> int:
        return sum(t.nbytes for t in self.tensors.values())


def parse_size(text: str | int) -> int:
    """'500MB', '2GB', '4GiB' or a number of bytes."""
    if isinstance(text, int):
        return text
    units = {
        "": 1,
        "B": 1,
        "KB": 10**3,
        "MB": 10**6,
        "GB": 10**9,
        "KIB": 2**10,
        "MIB": 2**20,
        "GIB": 2**30,
    }
    s = text.strip().upper().replace(" ", "")
    num = s.rstrip("KMGIB")
    try:
        value = float(num) * units[s[len(num) :]]
    except (KeyError, ValueError):
        raise JupiterError(f"shard_size {text!r}: write a size like 500MB or 4GB") from None
    if value < 1:
        raise JupiterError(f"shard_size {text!r} must be positive")
    return int(value)


@dataclass(frozen=True)
class TensorSpec:
    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * torch.empty((), dtype=self.dtype).element_size()


def plan_shards(specs: Sequence[TensorSpec], max_bytes: int) -> list[list[TensorSpec]]:
    """Consecutive groups of at most `max_bytes` (a tensor larger than that gets its own)."""
    shards: list[list[TensorSpec]] = [[]]
    size = 0
    for spec in specs:
        if shards[-1] and size + spec.nbytes > max_bytes:
            shards.append([])
            size = 0
        shards[-1].append(spec)
        size += spec.nbytes
    return shards


def _header(specs: Sequence[TensorSpec]) -> bytes:
    entries: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for s in specs:
        entries[s.name] = {
            "dtype": CODES[s.dtype],
            "shape": list(s.shape),
            "data_offsets": [offset, offset + s.nbytes],
        }
        offset += s.nbytes
    raw = json.dumps(entries, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    return len(raw).to_bytes(8, "little") + raw


class ShardWriter:
    """Writes tensors in `order` into shards of at most `max_bytes`, each as it comes."""

    def __init__(self, out_dir: Path, specs: Sequence[TensorSpec], max_bytes: int) -> None:
        self.out_dir = Path(out_dir)
        self.shards = plan_shards(specs, max_bytes)
        n = len(self.shards)
        self.names = (
            [SINGLE] if n == 1 else [f"model-{i + 1:05d}-of-{n:05d}.safetensors" for i in range(n)]
        )
        self.order = [s for shard in self.shards for s in shard]
        # positions in `order` where a new shard begins
        self._starts = {sum(len(sh) for sh in self.shards[:i]) for i in range(n)}
        self._next = 0
        self._file: IO[bytes] | None = None
        self._shard = -1
        # each file's SHA-256, taken from the bytes as they are written (no second read);
        # writing and hashing run on a second thread while the next tensor is merged
        # (hashlib and file writes release the GIL), at most one tensor behind
        self.sha256: dict[str, str] = {}
        self._hash = hashlib.sha256()
        self._worker = ThreadPoolExecutor(max_workers=1)
        self._pending: Future[None] | None = None

    def _open_next_shard(self) -> None:
        self._close_file()
        self._shard += 1
        self._file = (self.out_dir / self.names[self._shard]).open("wb")
        self._hash = hashlib.sha256()
        self._emit(_header(self.shards[self._shard]))

    def _emit(self, data: bytes | memoryview) -> None:
        self._wait()
        self._pending = self._worker.submit(self._write_and_hash, self._file, self._hash, data)

    @staticmethod
    def _write_and_hash(file: IO[bytes] | None, h: Any, data: bytes | memoryview) -> None:
        assert file is not None
        file.write(data)
        h.update(data)

    def _wait(self) -> None:
        if self._pending is not None:
            self._pending.result()  # a write error surfaces here
            self._pending = None

    def _close_file(self) -> None:
        self._wait()
        if self._file is not None:
            self.sha256[self.names[self._shard]] = self._hash.hexdigest()
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None

    def write(self, name: str, tensor: torch.Tensor) -> None:
        """The next tensor in `order`; its dtype and shape must be the planned ones."""
        spec = self.order[self._next]
        if name != spec.name or tensor.dtype != spec.dtype or tuple(tensor.shape) != spec.shape:
            raise RuntimeError(
                f"shard writer expected {spec}, got {name} {tensor.dtype} {tuple(tensor.shape)}"
            )
        if self._next in self._starts:
            self._open_next_shard()
        flat = tensor.detach().to("cpu").contiguous().reshape(-1)
        if flat.numel():
            self._emit(flat.view(torch.uint8).numpy().data)
        self._next += 1

    def abort(self) -> None:
        """Stop after a failure: the pending write finished, the file and thread closed."""
        try:
            self._wait()
        finally:
            if self._file is not None:
                self._file.close()
                self._file = None
            self._worker.shutdown(wait=True)

    def close(self) -> None:
        """Finish the last shard and write the index when there are several."""
        if self._next != len(self.order):
            raise RuntimeError(f"shard writer closed after {self._next} of {len(self.order)}")
        if self._shard < 0:  # a model without tensors still gets its (empty) file
            self._open_next_shard()
        self._close_file()
        self._worker.shutdown(wait=True)
        if len(self.shards) > 1:
            weight_map = {
                s.name: self.names[i] for i, shard in enumerate(self.shards) for s in shard
            }
            total = sum(s.nbytes for s in self.order)
            index = {"metadata": {"total_size": total}, "weight_map": weight_map}
            raw = json.dumps(index, indent=2).encode("utf-8")
            (self.out_dir / INDEX).write_bytes(raw)
            self.sha256[INDEX] = hashlib.sha256(raw).hexdigest()
