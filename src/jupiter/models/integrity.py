"""A model dir's files checked before a loader opens them: config JSON that parses, and
safetensors whose header parses and whose data is as long as the header says.

Loaders report a damaged file as a bare OSError or SafetensorError naming neither the file
nor the fix; these checks read only the JSON files and each safetensors header (never the
weights), so a 14 GB model is checked in milliseconds. Flipped bytes inside the weights
pass them: only a checksum finds those (train/checkpoint.py verifies its own checkpoints).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from jupiter.errors import JupiterError

JSON_FILES = (
    "config.json", "adapter_config.json", "model.safetensors.index.json",
    "tokenizer_config.json", "generation_config.json",
)  # fmt: skip
# safetensors caps its header at 100 MB (safetensors/src/tensor.rs, MAX_HEADER_SIZE)
MAX_HEADER = 100_000_000


def _json_problem(path: Path) -> str | None:
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        why = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
        return f"not valid JSON ({why})"
    except OSError as err:
        return f"unreadable ({err.strerror or err})"
    return None if isinstance(data, dict) else "not a JSON object"


def safetensors_problem(path: Path) -> str | None:
    """What is wrong with a safetensors file's framing, or None: an 8-byte little-endian
    header length, a JSON header, and data exactly as long as the tensors' offsets say."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                return f"truncated ({size} bytes)"
            (n,) = struct.unpack("<Q", head)
            if n > MAX_HEADER or 8 + n > size:
                return f"header length {n} does not fit the file's {size} bytes (truncated?)"
            header = json.loads(fh.read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return "its header is not valid JSON"
    except OSError as err:
        return f"unreadable ({err.strerror or err})"
    if not isinstance(header, dict):
        return "its header is not a JSON object"
    end = 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if not (isinstance(offsets, list) and len(offsets) == 2
                and all(isinstance(o, int) for o in offsets)):  # fmt: skip
            return f"tensor {name!r} has no valid data_offsets"
        end = max(end, offsets[1])
    if 8 + n + end != size:
        return f"holds {size - 8 - n} bytes of tensor data where its header says {end}"
    return None


def model_files_problem(model_dir: Path) -> str | None:
    """'FILE: what is wrong' for the first damaged file of a model or adapter dir, or None."""
    for name in JSON_FILES:
        f = model_dir / name
        if f.is_file():
            problem = _json_problem(f)
            if problem:
                return f"{f}: {problem}"
    for f in sorted(model_dir.glob("*.safetensors")):
        problem = safetensors_problem(f)
        if problem:
            return f"{f}: {problem}"
    return None


def check_model_files(model_dir: Path) -> None:
    """JupiterError naming the damaged file and the fix."""
    problem = model_files_problem(Path(model_dir))
    if problem:
        raise JupiterError(
            f"damaged model file {problem}: download or export the model again (or point at "
            "another model)"
        )


def loader_error(model_dir: Path, err: BaseException) -> JupiterError:
    """A loader's exception (OSError, SafetensorError, ValueError …) as one line with the
    dir and the fix, for what check_model_files cannot see beforehand."""
    first = (str(err).strip().splitlines() or [""])[0]
    first = first if len(first) <= 200 else first[:197] + "..."
    return JupiterError(
        f"cannot load the model in {model_dir} ({type(err).__name__}: {first}): check that "
        "its files are complete, or download or export it again"
    )
